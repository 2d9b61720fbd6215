import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openDescribed, openRaster } from '../../src/core/raster/io/dataset';
import { needGdal, py, readF64, tmpDir } from '../helpers/raster-gdal';

// Layouts the direct tile reader (fs.readSync + native inflate + our predictor undo) takes over from geotiff.js.
const CASES: { name: string; type: string; np: string; opts: string[]; nodata?: number; sparse?: boolean }[] = [
  { name: 'deflate_pred3_float64_strips', type: 'Float64', np: 'float64', opts: ['COMPRESS=DEFLATE', 'PREDICTOR=3', 'BLOCKYSIZE=17'] },
  { name: 'deflate_pred3_float32_pixel', type: 'Float32', np: 'float32', opts: ['TILED=YES', 'BLOCKXSIZE=64', 'BLOCKYSIZE=32', 'COMPRESS=DEFLATE', 'PREDICTOR=3', 'INTERLEAVE=PIXEL'], nodata: -9999 },
  { name: 'deflate_pred2_int16_band', type: 'Int16', np: 'int16', opts: ['TILED=YES', 'BLOCKXSIZE=64', 'BLOCKYSIZE=64', 'COMPRESS=DEFLATE', 'PREDICTOR=2', 'INTERLEAVE=BAND'], nodata: -32768 },
  { name: 'deflate_pred2_uint32_strips', type: 'UInt32', np: 'uint32', opts: ['COMPRESS=DEFLATE', 'PREDICTOR=2', 'BLOCKYSIZE=50'] },
  { name: 'deflate_pred2_uint8_pixel', type: 'Byte', np: 'uint8', opts: ['TILED=YES', 'BLOCKXSIZE=48', 'BLOCKYSIZE=48', 'COMPRESS=DEFLATE', 'PREDICTOR=2'], nodata: 255 },
  { name: 'none_int32_tiled', type: 'Int32', np: 'int32', opts: ['TILED=YES', 'BLOCKXSIZE=32', 'BLOCKYSIZE=32'] },
  { name: 'sparse_uint16_nodata', type: 'UInt16', np: 'uint16', opts: ['TILED=YES', 'BLOCKXSIZE=64', 'BLOCKYSIZE=64', 'COMPRESS=DEFLATE', 'SPARSE_OK=TRUE'], nodata: 7, sparse: true },
];

test('direct tile reads (DEFLATE/none, predictors 1-3, strips, tiles, band/pixel interleave, sparse) match GDAL, also reopened from a descriptor', needGdal(), async () => {
  const dir = tmpDir();
  for (const c of CASES) {
    const file = path.join(dir, `${c.name}.tif`);
    const dump = path.join(dir, `${c.name}.f64`);
    py(`
from osgeo import gdal, osr
import numpy as np
rng = np.random.default_rng(11)
W, H = 203, 141
d = gdal.GetDriverByName('GTiff').Create(${JSON.stringify(file)}, W, H, 2, gdal.GDT_${c.type}, ${JSON.stringify(c.opts)})
d.SetGeoTransform((300000, 30, 0, 4000000, 0, -30))
s = osr.SpatialReference(); s.ImportFromEPSG(32617); d.SetProjection(s.ExportToWkt())
info = np.iinfo(np.${c.np}) if np.issubdtype(np.${c.np}, np.integer) else None
for i in (1, 2):
    b = d.GetRasterBand(i)
    ${c.nodata !== undefined ? `b.SetNoDataValue(${c.nodata})` : 'pass'}
    if info is not None:
        a = rng.integers(max(info.min, -2**31), min(info.max, 2**32 - 1), (H, W), endpoint=True, dtype=np.int64).astype(np.${c.np})
    else:
        a = rng.normal(0, 1000, (H, W)).astype(np.${c.np})
    ${c.nodata !== undefined ? `a[5:9, 7:20] = ${c.nodata}` : 'pass'}
    ${c.sparse ? `b.WriteArray(a[70:, :], 0, 70)` : 'b.WriteArray(a)'}
d = None
d = gdal.Open(${JSON.stringify(file)})
np.concatenate([d.GetRasterBand(i).ReadAsArray(21, 13, 170, 120).astype(np.float64).ravel() for i in (1, 2)]).tofile(${JSON.stringify(dump)})
`);
    const ref = readF64(dump);
    const ds = await openRaster(file);
    const desc = ds.describe?.();
    assert.ok(desc, `${c.name}: the direct reader should take this layout`);
    const again = openDescribed(JSON.parse(JSON.stringify(desc)));
    const n = 170 * 120;
    for (const d of [ds, again]) {
      for (let b = 1; b <= 2; b++) {
        const raw = await d.readWindowRaw(b, 21, 13, 170, 120);
        const f = await d.readWindow(b, 21, 13, 170, 120);
        for (let i = 0; i < n; i++) {
          const want = ref[(b - 1) * n + i];
          if (raw[i] !== want) assert.fail(`${c.name} band ${b} pixel ${i}: raw ${raw[i]} != GDAL ${want}`);
          const expect = c.nodata !== undefined && want === c.nodata ? NaN : Math.fround(want);
          if (!Object.is(f[i], expect)) assert.fail(`${c.name} band ${b} pixel ${i}: float ${f[i]} != ${expect}`);
        }
        // The streaming read (blocks decoded into one reused buffer, none cached) gives the same samples, into a
        // caller's longer buffer; twice, so the second read goes through the reused block buffer.
        for (let k = 0; k < 2; k++) {
          const into = new (raw.constructor as new (n: number) => ArrayLike<number>)(n + 7);
          const st = await d.readStripRaw!(b, 21, 13, 170, 120, undefined, into);
          assert.equal(st.length, n);
          for (let i = 0; i < n; i++) if (st[i] !== raw[i]) assert.fail(`${c.name} band ${b} pixel ${i}: strip read ${st[i]} != ${raw[i]}`);
        }
      }
      if (d.pixelInterleaved) {
        // Both bands inside each pixel, as stored.
        const il = await d.readInterleaved!(21, 13, 170, 120);
        for (let i = 0; i < n; i++) {
          for (let b = 1; b <= 2; b++) if (il[2 * i + b - 1] !== ref[(b - 1) * n + i]) assert.fail(`${c.name} interleaved band ${b} pixel ${i}: ${il[2 * i + b - 1]} != ${ref[(b - 1) * n + i]}`);
        }
      }
      await d.close();
    }
  }
});

test('direct tile reads refuse a file that changed after it was described, and name corrupt tiles', needGdal(), async () => {
  const dir = tmpDir();
  const file = path.join(dir, 'c.tif');
  py(`
from osgeo import gdal
import numpy as np
d = gdal.GetDriverByName('GTiff').Create(${JSON.stringify(file)}, 128, 128, 1, gdal.GDT_UInt16, ['TILED=YES', 'BLOCKXSIZE=64', 'BLOCKYSIZE=64', 'COMPRESS=DEFLATE'])
d.GetRasterBand(1).WriteArray(np.random.default_rng(1).integers(0, 4000, (128, 128)).astype(np.uint16))
d = None`);
  const ds = await openRaster(file);
  const desc = ds.describe!()!;
  await ds.close();
  // Garble the first tile's compressed bytes: the error names the file and says it may be corrupt.
  const bytes = fs.readFileSync(file);
  const at = desc.layout.offsets[0];
  for (let i = 2; i < 40; i++) bytes[at + i] ^= 0x5a;
  fs.writeFileSync(file, bytes);
  const bad = await openRaster(file);
  await assert.rejects(() => bad.readWindow(1, 0, 0, 64, 64), (e: Error) => e.message.includes('c.tif') && /corrupt|truncated/.test(e.message));
  await bad.close();
  fs.appendFileSync(file, Buffer.alloc(10));
  assert.throws(() => openDescribed(desc), /c\.tif.*changed/);
});
