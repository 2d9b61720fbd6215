import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { runTool } from '../../src/core/raster/engine';
import { openRaster } from '../../src/core/raster/io/dataset';
import { needGdal, py, tmpDir } from '../helpers/raster-gdal';
import { makeS2 } from '../helpers/raster-fixtures';

/** No output and no temp file may remain after a failed run. */
function assertNoOutput(dir: string): void {
  const left = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => /\.tif|\.tmp/.test(f)) : [];
  assert.deepEqual(left, [], `partial output left in ${dir}`);
}

test('not a TIFF and truncated files: errors name the file; no partial output', needGdal(), async () => {
  const dir = tmpDir();
  const txt = path.join(dir, 'notes.tif');
  fs.writeFileSync(txt, 'this is not a tiff at all, just text\n');
  const out = path.join(dir, 'out');
  await assert.rejects(() => runTool('ndvi', { image: txt }, { outDir: out }), (e: Error) => /notes\.tif: not a TIFF/.test(e.message));
  await assert.rejects(() => runTool('ndvi', { image: path.join(dir, 'nope.tif') }, { outDir: out }), /nope\.tif: file not found/);
  const src = makeS2(dir);
  const cut = path.join(dir, 'cut.tif');
  const bytes = fs.readFileSync(src);
  fs.writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
  await assert.rejects(() => runTool('ndvi', { image: cut }, { outDir: out }), (e: Error) => /cut\.tif/.test(e.message) && /(truncated|corrupt|cannot)/.test(e.message));
  assertNoOutput(out);
});

test('a VRT and an ERDAS Imagine copy of a GeoTIFF read as the GeoTIFF (formats once refused by name; each has its own tests: raster-vrt.test.ts, raster-hfa.test.ts)', needGdal(), async () => {
  const dir = tmpDir();
  const src = makeS2(dir);
  const vrt = path.join(dir, 'scene.vrt'), img = path.join(dir, 'scene.img');
  execFileSync('gdal_translate', ['-q', '-of', 'VRT', src, vrt]);
  execFileSync('gdal_translate', ['-q', '-of', 'HFA', src, img]);
  const [v, h, t] = [await openRaster(vrt), await openRaster(img), await openRaster(src)];
  const want = Array.from(await t.readWindowRaw(3, 5, 7, 40, 30));
  assert.deepEqual(Array.from(await v.readWindowRaw(3, 5, 7, 40, 30)), want);
  assert.deepEqual(Array.from(await h.readWindowRaw(3, 5, 7, 40, 30)), want);
  await v.close(); await h.close(); await t.close();
});

test('band out of range, missing role, grid mismatch, bad expression: each names the problem', needGdal(), async () => {
  const dir = tmpDir();
  const out = path.join(dir, 'out');
  const src = makeS2(dir);
  await assert.rejects(() => runTool('ndvi', { image: src, nir: '12' }, { outDir: out }), /argument "nir": band 12 is out of range for .*s2\.tif \(8 bands/);
  await assert.rejects(() => runTool('raster_stats', { image: src, band: 9 }, { outDir: out }), /band 9 is out of range/);
  const bare = makeS2(dir, 'bare.tif', { descriptions: false });
  await assert.rejects(() => runTool('ndvi', { image: bare }, { outDir: out }), /missing band role "nir" in .*bare\.tif .*--arg nir=.*sensor=/);
  await assert.rejects(() => runTool('ndvi', { image: { red: bare } }, { outDir: out, cwd: dir }), /mapping has no file for band role "nir"/);
  await assert.rejects(() => runTool('ndvi', { image: bare, sensor: 'modis' }, { outDir: out }), /argument "sensor" must be one of/);

  const small = path.join(dir, 'small.tif');
  const utm = path.join(dir, 'utm51.tif');
  py(`from osgeo import gdal\ngdal.Translate(${JSON.stringify(small)}, ${JSON.stringify(src)}, srcWin=[0, 0, 100, 100], bandList=[1])\ngdal.Translate(${JSON.stringify(utm)}, ${JSON.stringify(src)}, bandList=[1], outputSRS='EPSG:32651')`);
  await assert.rejects(() => runTool('apply_mask', { image: src, mask: small }, { outDir: out }), /grids do not match: "image" .*s2\.tif.* and "mask" .*small\.tif.* size 700x650 vs 100x100/);
  await assert.rejects(() => runTool('apply_mask', { image: src, mask: utm }, { outDir: out }), /grids do not match.*CRS EPSG:32650 vs EPSG:32651/);

  await assert.rejects(() => runTool('band_math', { image: src, expression: 'b1 + * 2' }, { outDir: out }), /argument "expression": expected a number, band \(b1\.\.bn\), function or "\(" at position 6/);
  await assert.rejects(() => runTool('band_math', { image: src, expression: 'b1 + evil(b2)' }, { outDir: out }), /unknown name "evil" at position 6/);
  await assert.rejects(() => runTool('band_math', { image: src, expression: 'b9 * 2' }, { outDir: out }), /band b9 at position 1 is out of range \(the image has 8 bands/);
  await assert.rejects(() => runTool('band_math', { image: src, expression: '(b1 + b2' }, { outDir: out }), /expected "\)" at position 9/);
  await assert.rejects(() => runTool('band_math', { image: src, expression: 'process.exit(1)' }, { outDir: out }), /unknown name "process"/);
  assertNoOutput(out);
});

test('unknown tool, unknown argument, wrong type, missing required argument', async () => {
  const out = path.join(tmpDir(), 'out');
  await assert.rejects(() => runTool('nvdi', {}, { outDir: out }), /unknown tool "nvdi"/);
  await assert.rejects(() => runTool('ndvi', { image: 'x.tif', nirr: 4 }, { outDir: out }), /ndvi: unknown argument "nirr"; ndvi takes image, sensor, nir, red/);
  await assert.rejects(() => runTool('threshold', { image: 'x.tif', op: 'gt', value: 'abc' }, { outDir: out }), /threshold: argument "value" must be a number, got "abc"/);
  await assert.rejects(() => runTool('threshold', { image: 'x.tif', value: 1 }, { outDir: out }), /threshold: missing required argument "op"/);
  await assert.rejects(() => runTool('threshold', { image: 'x.tif', op: 'bigger', value: 1 }, { outDir: out }), /argument "op" must be one of gt, ge, lt, le, eq, ne/);
  await assert.rejects(() => runTool('clip_bbox', { image: 'x.tif', bbox: '1,2,3' }, { outDir: out }), /argument "bbox" must have 4 numbers/);
  await assert.rejects(() => runTool('ndvi', { image: 'x.tif', nir: '0' }, { outDir: out }), /argument "nir" must be a 1-based band index/);
  await assert.rejects(() => runTool('ndvi', { image: 'missing.tif' }, { outDir: out }), /missing\.tif: file not found/);
});

/** mulberry32: a small seeded PRNG so the fuzz cases are the same every run. */
function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('fuzz: corrupted TIFF bytes never hang or crash (seeded, bounded time)', needGdal(), async () => {
  const dir = tmpDir();
  const src = makeS2(dir, 'fz.tif');
  const good = fs.readFileSync(src);
  const rnd = prng(1234);
  const started = Date.now();
  let failedCleanly = 0, readOk = 0;
  for (let k = 0; k < 80; k++) {
    const b = Buffer.from(good);
    const mode = k % 4;
    // Corrupt the header/IFD region most of the time (that is where parsers go wrong), tile data otherwise.
    const region = mode === 3 ? b.length : Math.min(b.length, 4096);
    const flips = 1 + Math.floor(rnd() * 12);
    for (let i = 0; i < flips; i++) b[Math.floor(rnd() * region)] = Math.floor(rnd() * 256);
    if (mode === 2) b.writeUInt32LE(Math.floor(rnd() * 0xffffffff), 8 + Math.floor(rnd() * 200));
    const f = path.join(dir, `fuzz${k}.tif`);
    fs.writeFileSync(f, b);
    const attempt = (async () => {
      const ds = await openRaster(f);
      try {
        const band = 1 + Math.floor(rnd() * ds.bandCount);
        await ds.readWindow(band, 0, 0, Math.min(ds.width, 300), Math.min(ds.height, 300));
        await ds.readWindow(band, Math.max(0, ds.width - 50), Math.max(0, ds.height - 50), Math.min(ds.width, 50), Math.min(ds.height, 50));
      } finally { await ds.close(); }
    })();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((r) => { timer = setTimeout(() => r('timeout'), 10_000); });
    const r = await Promise.race([attempt.then(() => 'ok' as const, (e: unknown) => e), timeout]);
    clearTimeout(timer);
    assert.notEqual(r, 'timeout', `case ${k} hung`);
    if (r === 'ok') readOk++;
    else {
      assert.ok(r instanceof Error, `case ${k}: threw a non-Error ${String(r)}`);
      failedCleanly++;
    }
    fs.rmSync(f);
  }
  assert.equal(readOk + failedCleanly, 80);
  assert.ok(failedCleanly > 0, 'some corruptions must be detected');
  assert.ok(Date.now() - started < 60_000, 'fuzz finished in bounded time');
});

test('abort stops a run within a second and leaves no output', needGdal(), async () => {
  const dir = tmpDir();
  const big = path.join(dir, 'big.tif');
  py(`
from osgeo import gdal, osr
import numpy as np
N = 4000
d = gdal.GetDriverByName('GTiff').Create(${JSON.stringify(big)}, N, N, 2, gdal.GDT_UInt16, ['TILED=YES', 'BLOCKXSIZE=512', 'BLOCKYSIZE=512', 'COMPRESS=DEFLATE'])
d.SetGeoTransform((500000, 10, 0, 4430000, 0, -10)); s = osr.SpatialReference(); s.ImportFromEPSG(32650); d.SetProjection(s.ExportToWkt())
rng = np.random.default_rng(1)
for i in (1, 2):
    d.GetRasterBand(i).WriteArray(rng.integers(1, 5000, (N, N)).astype(np.uint16))
d = None`);
  for (const workers of ['0', '2']) {
    const out = path.join(dir, `out${workers}`);
    process.env.GEOWEAVE_WORKERS = workers;
    try {
      const ac = new AbortController();
      let progressed = false;
      const run = runTool('ndvi', { image: big, red: 1, nir: 2 }, { outDir: out, signal: ac.signal, onProgress: () => { progressed = true; } });
      // Abort once the run is under way.
      await new Promise<void>((resolve) => { const t = setInterval(() => { if (progressed) { clearInterval(t); resolve(); } }, 5); });
      const t0 = Date.now();
      ac.abort();
      await assert.rejects(run, (e: Error) => e.name === 'AbortError' || /abort/i.test(e.message));
      const took = Date.now() - t0;
      assert.ok(took < 1000, `workers=${workers}: stopped ${took} ms after abort`);
      assertNoOutput(out);
    } finally {
      delete process.env.GEOWEAVE_WORKERS;
    }
  }
});

test('a scene without band descriptions: the error gives the guessed bands, in cell syntax inside a notebook', needGdal(), async () => {
  const { writeRealLikeData } = await import('../helpers/real-data');
  const { cellErrorMessage } = await import('../../src/core/notebook/cell-errors');
  const d = tmpDir('gw-l7-');
  const { scene } = writeRealLikeData(d, 128);
  const err = await runTool('ndvi', { image: scene }, { outDir: path.join(d, 'out'), cwd: d }).then(() => undefined, (e: Error) => e);
  assert.ok(err, 'ndvi must not guess bands on its own');
  assert.match(err.message, /missing band role "nir" in .*L7_ETMs\.tif .*: pass --arg nir=4 --arg red=3 \(a guess: the file looks like Landsat 7 ETM\+/);
  const cell = cellErrorMessage(err);
  assert.match(cell, /^missing band role "nir" in L7_ETMs\.tif \(6 bands, none described\): add a line `nir: 4` and a line `red: 3` to the cell\. A guess/);
  assert.doesNotMatch(cell, /--arg/);
  const ok = await runTool('ndvi', { image: scene, nir: 4, red: 3 }, { outDir: path.join(d, 'out'), cwd: d });
  assert.ok((ok.stats as { mean: number }).mean > 0.2, ok.summary);
  // The same input under another tool's name: slope's dem given as image.
  const { dem } = { dem: 'landsat/srtm_30m.tif' };
  const slope = await runTool('slope', { image: dem }, { outDir: path.join(d, 'out'), cwd: d });
  assert.equal(slope.tool, 'slope');
  await assert.rejects(() => runTool('slope', { dem, zfactor: 2 }, { outDir: path.join(d, 'out'), cwd: d }), /unknown argument "zfactor".*did you mean "z_factor"\?/);
});
