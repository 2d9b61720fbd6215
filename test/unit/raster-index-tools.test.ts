import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runTool, describeRaster, listBuiltinTools, getToolSpec } from '../../src/core/raster/engine';
import { main } from '../../src/cli/main';
import { needGdal, py, PY_READ, readF64, tmpDir, gdalinfoJson } from '../helpers/raster-gdal';
import { makeS2 } from '../helpers/raster-fixtures';

/** Runs numpy `expr` (float64 arrays b[1..n] of `src`, nodata → nan) and returns [max abs diff vs band 1 of `out`, nodata mismatches]. */
function vsNumpy(src: string, out: string, expr: string, dir: string): [number, number] {
  const dump = path.join(dir, `cmp-${Math.random().toString(36).slice(2)}.f64`);
  py(`${PY_READ}
import numpy as np, warnings
warnings.simplefilter('ignore')
b = read(${JSON.stringify(src)})
with np.errstate(all='ignore'):
    ref = np.asarray(${expr}, dtype=np.float64)
ref[~np.isfinite(ref)] = np.nan
o = read(${JSON.stringify(out)})[1]
both = ~np.isnan(o) & ~np.isnan(ref)
d = np.abs(o[both] - ref[both]).max() if both.any() else 0.0
np.array([d, int((np.isnan(o) != np.isnan(ref)).sum())], dtype=np.float64).tofile(${JSON.stringify(dump)})
`);
  const r = readF64(dump);
  return [r[0], r[1]];
}

test('band_math, threshold, cloud_mask and apply_mask match numpy', needGdal(), async () => {
  const dir = tmpDir();
  const src = makeS2(dir);
  const out = path.join(dir, 'out');
  const bm = await runTool('band_math', { image: src, expression: 'max(b5 - b3, 0) / sqrt(abs(b5 + b3)) * 2' }, { outDir: out });
  let [d, m] = vsNumpy(src, bm.outputs.result.path, 'np.where(np.isnan(b[5]) | np.isnan(b[3]), np.nan, np.maximum(b[5] - b[3], 0)) / np.sqrt(np.abs(b[5] + b[3])) * 2', dir);
  assert.equal(m, 0); assert.ok(d <= 1e-3 * 1, `band_math diff ${d}`);

  const cmp = await runTool('band_math', { image: src, expression: 'b5 > 3000 && b3 < 800' }, { outDir: path.join(dir, 'cmp') });
  [d, m] = vsNumpy(src, cmp.outputs.result.path, 'np.where(np.isnan(b[5]) | np.isnan(b[3]), np.nan, ((b[5] > 3000) & (b[3] < 800)).astype(float))', dir);
  assert.equal(m, 0); assert.equal(d, 0);
  assert.deepEqual(cmp.outputs.result.roles, ['mask']);

  const th = await runTool('threshold', { image: src, band: 'nir', op: 'ge', value: '3200' }, { outDir: out });
  [d, m] = vsNumpy(src, th.outputs.mask.path, 'np.where(np.isnan(b[5]), np.nan, (b[5] >= 3200).astype(float))', dir);
  assert.equal(m, 0); assert.equal(d, 0);
  assert.match(th.summary, /% of valid pixels are nir ≥ 3200/);

  const cm = await runTool('cloud_mask', { image: src }, { outDir: out });
  [d, m] = vsNumpy(src, cm.outputs.mask.path, 'np.where(np.isnan(b[8]), np.nan, np.isin(b[8], [3, 8, 9, 10]).astype(float))', dir);
  assert.equal(m, 0); assert.equal(d, 0);
  assert.equal(cm.stats.sensor, 'sentinel2_l2a');

  const am = await runTool('apply_mask', { image: src, mask: cm.outputs.mask.path, invert: 'true' }, { outDir: out });
  [d, m] = vsNumpy(src, am.outputs.masked.path, 'np.where(np.isin(b[8], [3, 8, 9, 10]) | np.isnan(b[8]), np.nan, b[1])', dir);
  assert.equal(m, 0); assert.equal(d, 0);
  assert.equal(gdalinfoJson(am.outputs.masked.path).bands.length, 8);
});

test('cloud_mask reads Landsat QA_PIXEL bits 1-4 (bit 0 fill is nodata)', needGdal(), async () => {
  const dir = tmpDir();
  const qa = path.join(dir, 'qa.tif');
  py(`
from osgeo import gdal, osr
import numpy as np
rng = np.random.default_rng(5)
d = gdal.GetDriverByName('GTiff').Create(${JSON.stringify(qa)}, 300, 200, 1, gdal.GDT_UInt16, ['TILED=YES'])
d.SetGeoTransform((300000, 30, 0, 4000000, 0, -30)); s = osr.SpatialReference(); s.ImportFromEPSG(32617); d.SetProjection(s.ExportToWkt())
d.GetRasterBand(1).WriteArray(rng.integers(0, 1 << 16, (200, 300)).astype(np.uint16)); d.GetRasterBand(1).SetDescription('QA_PIXEL')
d = None`);
  const r = await runTool('cloud_mask', { image: qa }, { outDir: path.join(dir, 'o') });
  const [d, m] = vsNumpy(qa, r.outputs.mask.path, 'np.where((b[1].astype(np.int64) & 1) == 1, np.nan, ((b[1].astype(np.int64) & 0b11110) != 0).astype(float))', dir);
  assert.equal(m, 0); assert.equal(d, 0);
});

test('clip_bbox (native and lon/lat), resample and raster_stats agree with GDAL/numpy', needGdal(), async () => {
  const dir = tmpDir();
  const src = makeS2(dir);
  const out = path.join(dir, 'out');
  const clip = await runTool('clip_bbox', { image: src, bbox: '501005,4424100,503000,4427000' }, { outDir: out });
  const ref = path.join(dir, 'ref_clip.tif');
  py(`from osgeo import gdal\ngdal.Warp(${JSON.stringify(ref)}, ${JSON.stringify(src)}, outputBounds=(501000, 4424100, 503000, 4427000), xRes=10, yRes=10)`);
  const a = gdalinfoJson(clip.outputs.clipped.path), b = gdalinfoJson(ref);
  assert.deepEqual(a.geoTransform, b.geoTransform);
  assert.deepEqual(a.size, b.size);
  assert.equal(a.bands[4].description, 'nir');
  const [d, m] = vsNumpy(ref, clip.outputs.clipped.path, 'b[1]', dir);
  assert.equal(m, 0); assert.equal(d, 0);

  // lon/lat bbox → UTM 50N: the clip must contain the transformed point.
  const ll = await runTool('clip_bbox', { image: src, bbox: [117.005, 39.98, 117.02, 39.99], bbox_crs: 'lonlat' }, { outDir: path.join(dir, 'll') });
  const g = gdalinfoJson(ll.outputs.clipped.path).geoTransform;
  assert.ok(g[0] > 500000 && g[0] < 501000 && g[3] > 4424000 && g[3] < 4430000, `clip origin ${g}`);

  const rs = await runTool('resample', { image: src, factor: 5, method: 'average' }, { outDir: out });
  const [d2, m2] = vsNumpy(src, rs.outputs.resampled.path, 'np.nanmean(b[1].reshape(130, 5, 140, 5), axis=(1, 3))', dir);
  assert.equal(m2, 0); assert.ok(d2 < 1e-3, `resample diff ${d2}`);
  assert.deepEqual(gdalinfoJson(rs.outputs.resampled.path).geoTransform, [500000, 50, 0, 4430000, 0, -50]);

  const st = await runTool('raster_stats', { image: src, band: 5, bins: 10 }, { outDir: out });
  const dump = path.join(dir, 'pct.f64');
  py(`${PY_READ}\nimport numpy as np\na = read(${JSON.stringify(src)})[5]\na = a[~np.isnan(a)]\nnp.array([a.mean(), a.std(), np.percentile(a, 50), np.percentile(a, 90), a.min(), a.max()], dtype=np.float64).tofile(${JSON.stringify(dump)})`);
  const [mean, std, p50, p90, mn, mx] = readF64(dump);
  assert.ok(Math.abs((st.stats.mean as number) - mean) < 1e-3);
  assert.ok(Math.abs((st.stats.std as number) - std) < 1e-2);
  const pc = st.stats.percentiles as Record<string, number>;
  assert.equal(pc.p50, p50); assert.equal(pc.p90, p90);
  assert.equal(st.stats.min, mn); assert.equal(st.stats.max, mx);
  const h = st.stats.histogram as { counts: number[] };
  assert.equal(h.counts.length, 10);
  assert.equal(h.counts.reduce((s, x) => s + x, 0), st.stats.valid);
});

test('raster_info, quicklook, describeRaster and the CLI --json output', needGdal(), async () => {
  const dir = tmpDir();
  const src = makeS2(dir);
  const info = await runTool('raster_info', { image: src }, { outDir: path.join(dir, 'o') });
  assert.equal(info.stats.crs, 'EPSG:32650');
  assert.match(info.summary, /700×650 pixels, 8 uint16 bands at 10 m in EPSG:32650/);
  const ql = await runTool('quicklook', { image: src, band: 8 }, { outDir: path.join(dir, 'o') });
  assert.equal(ql.stats.colormap, 'class');
  assert.deepEqual([...fs.readFileSync(ql.quicklook!).subarray(1, 4)], [...Buffer.from('PNG')]);
  const item = await describeRaster(src);
  assert.equal(item.crs, 'EPSG:32650');
  assert.equal(item.bands?.find((b) => b.role === 'nir')?.index, 5);
  assert.equal(item.bands?.find((b) => b.role === 'qa')?.index, 8);
  assert.ok(listBuiltinTools().some((t) => t.id === 'ndvi'));
  assert.deepEqual(Object.keys(getToolSpec('threshold')!.params), ['image', 'band', 'op', 'value']);
  assert.equal(getToolSpec('no_such_tool'), undefined);
  const dem = path.join(dir, 'terrain.tif');
  py(`from osgeo import gdal\nd = gdal.GetDriverByName('GTiff').Create(${JSON.stringify(dem)}, 10, 10, 1, gdal.GDT_Float32)\nd.GetRasterBand(1).SetDescription('elevation')\nd = None`);
  const demItem = await describeRaster(dem);
  assert.deepEqual(demItem.roles, ['dem']);
  assert.equal(demItem.bands?.[0].role, 'dem');
  const cm = await runTool('cloud_mask', { image: src }, { outDir: path.join(dir, 'o') });
  assert.deepEqual((await describeRaster(cm.outputs.mask.path)).roles, ['mask']);

  const lines: string[] = [];
  const code = await main(['run', 'ndvi', '--arg', `image=${src}`, '--out', path.join(dir, 'cli'), '--json'], { out: (t) => lines.push(t), err: (t) => lines.push(t) });
  assert.equal(code, 0, lines.join('\n'));
  const j = JSON.parse(lines[0]);
  assert.equal(j.tool, 'ndvi');
  assert.equal(j.outputs.index, path.join(dir, 'cli', 's2_ndvi.tif'));
  assert.ok(fs.existsSync(j.quicklook));
  assert.equal(typeof j.stats.mean, 'number');
  assert.match(j.summary, /^Mean NDVI 0\.\d+/);
  assert.match(j.summary, /(north|south|east|west|centre|spread)/);
});
