import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { openRaster } from '../../src/core/raster/io/dataset';
import { applyKernel, fusedKernel, KernelSpec } from '../../src/core/raster/pipeline/kernels';
import { StatsAccumulator } from '../../src/core/raster/stats';
import { needGdal, py, tmpDir } from '../helpers/raster-gdal';

// The fused normalized-difference path (straight from decoded blocks) must give the generic path's bits exactly.
const CASES: { name: string; type: string; np: string; nodata?: number; scale?: [number, number]; ref?: [number, number] }[] = [
  { name: 'uint16 nodata 0', type: 'UInt16', np: 'uint16', nodata: 0 },
  { name: 'uint16 file scale/offset + preset scale', type: 'UInt16', np: 'uint16', nodata: 0, scale: [0.0000275, -0.2], ref: [2, 0.01] },
  { name: 'int32 (not exact in float32)', type: 'Int32', np: 'int32' },
  { name: 'int16 (zero sums, negatives)', type: 'Int16', np: 'int16', nodata: -32768 },
  { name: 'float32 with NaN and nodata', type: 'Float32', np: 'float32', nodata: -1.5 },
];

test('fused normalized difference equals readWindow + scaling + computeIndex bit for bit', needGdal(), async () => {
  const dir = tmpDir();
  for (const c of CASES) {
    const file = path.join(dir, `f${CASES.indexOf(c)}.tif`);
    py(`
from osgeo import gdal
import numpy as np
rng = np.random.default_rng(5)
d = gdal.GetDriverByName('GTiff').Create(${JSON.stringify(file)}, 150, 100, 3, gdal.GDT_${c.type}, ['TILED=YES', 'BLOCKXSIZE=64', 'BLOCKYSIZE=64', 'COMPRESS=DEFLATE'])
for i in (1, 2, 3):
    b = d.GetRasterBand(i)
    if np.issubdtype(np.${c.np}, np.integer):
        info = np.iinfo(np.${c.np})
        a = rng.integers(max(info.min, -2**31), min(info.max, 2**31 - 1), (100, 150), endpoint=True, dtype=np.int64)
        a[::7, ::3] = rng.integers(-3, 4, a[::7, ::3].shape)
        a = np.clip(a, info.min, info.max).astype(np.${c.np})
    else:
        a = rng.normal(0, 3, (100, 150)).astype(np.${c.np})
        a[::11, ::5] = np.nan
    a[::13, ::4] = -a[::13, ::4] if not np.issubdtype(np.${c.np}, np.unsignedinteger) else 0
    ${c.nodata !== undefined ? `b.SetNoDataValue(${c.nodata}); a[3:5, 10:30] = ${c.nodata}` : 'pass'}
    ${c.scale ? `b.SetScale(${c.scale[0]}); b.SetOffset(${c.scale[1]})` : 'pass'}
    b.WriteArray(a)
d = None`);
    const ds = await openRaster(file);
    const refs = [{ scale: c.ref?.[0], offset: c.ref?.[1] }, { scale: c.ref?.[0], offset: c.ref?.[1] }];
    const k: KernelSpec = { type: 'index', id: 'ndvi' };
    // Windows inside one block, including the short edge blocks.
    for (const [x, y, w, h] of [[0, 0, 64, 64], [64, 64, 64, 36], [128, 0, 22, 64], [70, 5, 30, 20]] as const) {
      const a = (await ds.blockWindow!(2, x, y, w, h))!, b = (await ds.blockWindow!(3, x, y, w, h))!;
      assert.ok(a && b, `${c.name}: window ${x},${y} lies in one block`);
      const fused = fusedKernel(k, a, b, refs[0], refs[1], w, h);
      const ins = await Promise.all([2, 3].map(async (band, i) => {
        const v = await ds.readWindow(band, x, y, w, h);
        const r = refs[i];
        if (r.scale !== undefined) for (let j = 0; j < v.length; j++) v[j] = v[j] * r.scale + (r.offset ?? 0);
        return v;
      }));
      const generic: Float32Array = applyKernel(k, ins)[0];
      assert.deepEqual(Buffer.from(fused.buffer), Buffer.from(generic.buffer), `${c.name}: window ${x},${y},${w},${h}`);
      assert.ok(generic.some((v: number) => v !== v) && generic.some((v: number) => v === v), `${c.name}: the case exercises both valid and invalid pixels`);
    }
    assert.equal(await ds.blockWindow!(2, 60, 0, 10, 10), null, 'a window across blocks is not a single block');
    await ds.close();
  }
});

test('statistics merged from per-thread accumulators equal one accumulator over all blocks', () => {
  const W = 1300, H = 1100;
  const one = new StatsAccumulator(W, H, { ignore: -9999, sampleLimit: 50_000 });
  const parts = [0, 1, 2].map(() => new StatsAccumulator(W, H, { ignore: -9999, sampleLimit: 50_000 }));
  let seed = 9;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  let k = 0;
  for (let y = 0; y < H; y += 256) {
    for (let x = 0; x < W; x += 256) {
      const w = Math.min(256, W - x), h = Math.min(256, H - y);
      const v = new Float32Array(w * h);
      for (let i = 0; i < v.length; i++) v[i] = rnd() < 0.05 ? NaN : rnd() < 0.02 ? -9999 : Math.fround(rnd() * 2 - 1 + y / H);
      const copy = v.slice();
      one.add(v, x, y, w, h);
      const filled = parts[k++ % 3].add(copy, x, y, w, h, -9999);
      assert.ok(filled || w * h === 0);
      assert.ok(copy.every((z) => z === z), 'NaN became the fill value in the same pass');
    }
  }
  const merged = new StatsAccumulator(W, H, { ignore: -9999, sampleLimit: 50_000 });
  for (const p of parts) merged.merge(p.state());
  const a = one.result(), b = merged.result();
  assert.equal(b.valid, a.valid); assert.equal(b.count, a.count); assert.equal(b.min, a.min); assert.equal(b.max, a.max);
  assert.ok(Math.abs(b.mean! - a.mean!) < 1e-9);
  assert.deepEqual(b.percentiles, a.percentiles);
  assert.deepEqual(b.histogram, a.histogram);
  assert.deepEqual(b.grid.valid, a.grid.valid);
  assert.deepEqual(merged.where((v) => v > 0.5), one.where((v) => v > 0.5));
  assert.throws(() => merged.merge(new StatsAccumulator(W + 1, H).state()), /differ/);
});
