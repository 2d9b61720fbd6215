import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runTool } from '../../src/core/raster/engine';
import { needGdal, py, PY_READ, readF64, tmpDir } from '../helpers/raster-gdal';
import { makeS2 } from '../helpers/raster-fixtures';

// numpy formulas over GDAL-read float64 arrays (nodata → nan), reflectance = DN * scale + offset.
const NUMPY: Record<string, string> = {
  ndvi: '(nir - red) / (nir + red)',
  evi: '2.5 * (nir - red) / (nir + 6 * red - 7.5 * blue + 1)',
  savi: '(1 + 0.5) * (nir - red) / (nir + red + 0.5)',
  ndwi: '(green - nir) / (green + nir)',
  mndwi: '(green - swir1) / (green + swir1)',
  ndbi: '(swir1 - nir) / (swir1 + nir)',
  nbr: '(nir - swir2) / (nir + swir2)',
  ndmi: '(nir - swir1) / (nir + swir1)',
  ndsi: '(green - swir1) / (green + swir1)',
  ndci: '(rededge - red) / (rededge + red)',
};

/** Compares our output with numpy; returns [max abs diff, nodata mismatches]. */
function compare(src: string, out: string, formula: string, scale: number, offset: number): [number, number] {
  const dump = out + '.diff';
  py(`${PY_READ}
import numpy as np
b = read(${JSON.stringify(src)})
blue, green, red, rededge, nir, swir1, swir2 = [b[i] * ${scale} + ${offset} for i in range(1, 8)]
with np.errstate(all='ignore'):
    ref = ${formula}
ref[~np.isfinite(ref)] = np.nan
o = read(${JSON.stringify(out)})[1]
mism = int((np.isnan(o) != np.isnan(ref)).sum())
both = ~np.isnan(o) & ~np.isnan(ref)
np.array([np.abs(o[both] - ref[both]).max(), mism], dtype=np.float64).tofile(${JSON.stringify(dump)})
`);
  const r = readF64(dump);
  return [r[0], r[1]];
}

test('every spectral index matches numpy over GDAL-read arrays (max abs diff <= 1e-6)', needGdal(), async () => {
  const dir = tmpDir();
  const src = makeS2(dir);
  for (const id of Object.keys(NUMPY)) {
    const res = await runTool(id, { image: src }, { outDir: path.join(dir, 'out') });
    const out = res.outputs.index.path;
    assert.ok(fs.existsSync(out), `${id}: output written`);
    assert.ok(res.quicklook && fs.existsSync(res.quicklook), `${id}: quicklook written`);
    // EVI and SAVI read integer DNs as reflectance × 10000.
    const scale = id === 'evi' || id === 'savi' ? 0.0001 : 1;
    const [diff, mism] = compare(src, out, NUMPY[id], scale, 0);
    assert.equal(mism, 0, `${id}: nodata pixels differ from numpy`);
    assert.ok(diff <= 1e-6, `${id}: max abs diff ${diff}`);
    assert.match(res.summary, /\d/, `${id}: summary has numbers`);
    assert.ok(!/^\s*(ndvi|evi)\b/i.test(res.summary), 'summary states findings, not the tool name');
  }
});

test('sensor presets: Landsat C2 L2 scale and offset are applied, and band order follows the preset', needGdal(), async () => {
  const dir = tmpDir();
  // No descriptions: bands resolve from the preset (Landsat stack SR_B1..SR_B7, ST_B10), DNs in the C2 L2 range.
  const s2 = makeS2(dir, 's2like.tif', { descriptions: false });
  const src = path.join(dir, 'ls.tif');
  py(`
from osgeo import gdal
import numpy as np
d = gdal.Translate(${JSON.stringify(src)}, ${JSON.stringify(s2)})
for i in range(1, d.RasterCount + 1):
    b = d.GetRasterBand(i); a = b.ReadAsArray().astype(np.float64)
    dn = np.where(a == 0, 0, np.round((a / 10000 + 0.2) / 0.0000275))
    b.WriteArray(dn.astype(np.uint16))
d = None
`);
  // Reflectance × 10000 (the Sentinel-2-like stack) is not Collection 2: the preset is refused, not applied.
  await assert.rejects(runTool('ndvi', { image: s2, sensor: 'landsat89_c2l2' }, { outDir: path.join(dir, 'out') }),
    /argument "sensor": Landsat 8\/9 Collection 2 Level-2 \(sensor=landsat89_c2l2\) does not fit .*s2like\.tif: values 1-\d+ look like reflectance × 10000/);
  const res = await runTool('ndvi', { image: src, sensor: 'landsat89_c2l2' }, { outDir: path.join(dir, 'out') });
  // landsat preset: red = band 4, nir = band 5 of the stack.
  const dump = path.join(dir, 'ls.diff');
  py(`${PY_READ}
import numpy as np
b = read(${JSON.stringify(src)})
red = b[4] * 0.0000275 - 0.2
nir = b[5] * 0.0000275 - 0.2
with np.errstate(all='ignore'):
    ref = (nir - red) / (nir + red)
ref[~np.isfinite(ref)] = np.nan
o = read(${JSON.stringify(res.outputs.index.path)})[1]
both = ~np.isnan(o) & ~np.isnan(ref)
np.array([np.abs(o[both] - ref[both]).max(), int((np.isnan(o) != np.isnan(ref)).sum())], dtype=np.float64).tofile(${JSON.stringify(dump)})
`);
  const r = readF64(dump);
  assert.equal(r[1], 0);
  assert.ok(r[0] <= 1e-6, `max abs diff ${r[0]}`);
  const bands = res.stats.bands as Record<string, { band: number; how: string }>;
  assert.equal(bands.red.band, 4);
  assert.equal(bands.nir.band, 5);
  assert.match(bands.red.how, /0\.0000275/);
});

test('worker threads and inline processing write identical values', needGdal(), async () => {
  const dir = tmpDir();
  const src = makeS2(dir);
  const prev = process.env.GEOWEAVE_WORKERS;
  try {
    process.env.GEOWEAVE_WORKERS = '0';
    const a = await runTool('ndvi', { image: src }, { outDir: path.join(dir, 'inline') });
    process.env.GEOWEAVE_WORKERS = '2';
    const b = await runTool('ndvi', { image: src }, { outDir: path.join(dir, 'workers') });
    const { openRaster } = await import('../../src/core/raster/io/dataset');
    const da = await openRaster(a.outputs.index.path), db = await openRaster(b.outputs.index.path);
    const va = await da.readWindowRaw(1, 0, 0, da.width, da.height), vb = await db.readWindowRaw(1, 0, 0, db.width, db.height);
    await da.close(); await db.close();
    assert.deepEqual(Buffer.from((va as Float32Array).buffer), Buffer.from((vb as Float32Array).buffer));
    assert.equal(a.summary, b.summary);
    // A strip-organised copy (workers take whole tile rows) gives the same values too.
    const striped = path.join(dir, 'striped.tif');
    py(`from osgeo import gdal\ngdal.Translate(${JSON.stringify(striped)}, ${JSON.stringify(src)}, creationOptions=['COMPRESS=DEFLATE'])`);
    const c = await runTool('ndvi', { image: striped }, { outDir: path.join(dir, 'striped') });
    const dc = await openRaster(c.outputs.index.path);
    const vc = await dc.readWindowRaw(1, 0, 0, dc.width, dc.height);
    await dc.close();
    assert.deepEqual(Buffer.from((vc as Float32Array).buffer), Buffer.from((va as Float32Array).buffer));
  } finally {
    if (prev === undefined) delete process.env.GEOWEAVE_WORKERS; else process.env.GEOWEAVE_WORKERS = prev;
  }
});

test('a {role: path} mapping of single-band files works like a stacked image', needGdal(), async () => {
  const dir = tmpDir();
  const src = makeS2(dir);
  for (const [band, name] of [[3, 'B04.tif'], [5, 'B08.tif']] as const) {
    py(`from osgeo import gdal\ngdal.Translate(${JSON.stringify(path.join(dir, name))}, ${JSON.stringify(src)}, bandList=[${band}], creationOptions=['TILED=YES','COMPRESS=LZW'])`);
  }
  const stacked = await runTool('ndvi', { image: src }, { outDir: path.join(dir, 'a') });
  const mapped = await runTool('ndvi', { image: JSON.stringify({ red: 'B04.tif', nir: 'B08.tif' }) }, { outDir: path.join(dir, 'b'), cwd: dir });
  assert.equal(mapped.stats.mean, stacked.stats.mean);
  assert.equal(mapped.summary, stacked.summary);
});
