/** The analysis tools on the sample workspace, checked against numpy/GDAL over GDAL-read arrays. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { writeSampleWorkspace } from '../../src/core/raster/sample/generate';
import { writeRaster } from '../../src/core/raster/io/writer';
import { runTool } from '../../src/core/raster/engine';
import { mulberry32 } from '../../src/core/raster/algorithms/prng';
import { gdalSkip, pyJson, PY_READ_BAND, PY, sameRasterButArgs } from '../helpers/raster-gdal';

const skip = gdalSkip('numpy/GDAL comparisons');
const READ = PY_READ_BAND;

let dir = '';
const cwd = () => dir;
const out = (name: string) => path.join(dir, 'out', name);

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-tools-'));
  await writeSampleWorkspace(dir);
});
after(() => { if (dir) fs.rmSync(dir, { recursive: true, force: true }); });

test('dnbr and burn_severity match numpy over GDAL-read arrays; area_by_class matches pixel counts', { skip }, async () => {
  const d = await runTool('dnbr', { pre: 'fire_pre.tif', post: 'fire_post.tif' }, { outDir: out('burn'), cwd: cwd() });
  const s = await runTool('burn_severity', { image: d.outputs.dnbr.path }, { outDir: out('burn'), cwd: cwd() });
  const a = await runTool('area_by_class', { image: s.outputs.severity.path }, { outDir: out('burn'), cwd: cwd() });
  const r = pyJson(READ + `
pre = gdal.Open(sys.argv[1]).ReadAsArray().astype(np.float64); post = gdal.Open(sys.argv[2]).ReadAsArray().astype(np.float64)
nbr = lambda x: (x[4] - x[6]) / (x[4] + x[6])
ref = nbr(pre) - nbr(post)
mine, nd = read(sys.argv[3])
sev, snd = read(sys.argv[4])
D = mine.astype(np.float32)
T = [np.float32(v) for v in (-0.25, -0.1, 0.1, 0.27, 0.44, 0.66)]
cls = np.select([D < T[0], D < T[1], D < T[2], D < T[3], D < T[4], D < T[5]], [1, 2, 3, 4, 5, 6], 7)
cls[mine == nd] = 0
counts = {int(k): int((sev == k).sum()) for k in range(1, 8)}
print(json.dumps({"max": float(np.abs(mine.astype(np.float64) - ref).max()), "nodata": nd, "sev_nodata": snd,
  "mismatch": int((cls != sev).sum()), "counts": counts}))
`, path.join(dir, 'fire_pre.tif'), path.join(dir, 'fire_post.tif'), d.outputs.dnbr.path, s.outputs.severity.path);
  assert.ok(r.max <= 1e-6, `dNBR max abs difference ${r.max}`);
  assert.equal(r.nodata, -9999);
  assert.equal(r.mismatch, 0, 'severity classes equal numpy thresholds');
  assert.equal(r.sev_nodata, 0);
  const table = a.stats.table as any[];
  for (const row of table) {
    assert.equal(row.pixels, r.counts[row.class], `class ${row.class}`);
    assert.ok(Math.abs(row.m2 - row.pixels * 100) < 1e-6);
    assert.ok(Math.abs(row.ha - row.pixels / 100) < 1e-9);
    assert.ok(Math.abs(row.km2 - row.pixels / 1e4) < 1e-9);
    assert.ok(typeof row.label === 'string' && row.label.length > 0, 'labels come from the severity band description');
  }
  const csv = fs.readFileSync(a.outputs.table.path, 'utf8').trim().split('\n');
  assert.equal(csv[0], 'class,pixels,m2,ha,km2,percent,label');
  assert.equal(csv.length, table.length + 1);
  const burnedHa = (s.stats.burned_m2 as number) / 1e4;
  const numpyBurned = [4, 5, 6, 7].reduce((t, k) => t + r.counts[k], 0) / 100;
  assert.ok(Math.abs(burnedHa - numpyBurned) < 1e-6);
  assert.match(s.summary, new RegExp(`Burned area ${Math.round(numpyBurned)} ha .* (north-west|western|northern)`));
});

test('area_by_class on a geographic (EPSG:4326) raster: areas by latitude, by hand', { skip }, async () => {
  // 40 x 30 pixels of 0.25° from 10°E/60°N: class = 1 + (row mod 3), so each class spans different latitudes.
  const w = 40, h = 30, res = 0.25;
  const data = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) data[y * w + x] = 1 + (y % 3);
  data[0] = 0; // nodata pixel
  const p = path.join(dir, 'geo_classes.tif');
  await writeRaster(p, { width: w, height: h, bands: 1, dtype: 'uint8', nodata: 0, geo: { epsg: 4326, geoTransform: [10, res, 0, 60, 0, -res], geographic: true } }, [data]);
  const info = JSON.parse(spawnSync('gdalinfo', ['-json', p], { encoding: 'utf8' }).stdout);
  assert.match(info.coordinateSystem.wkt, /ID\["EPSG",4326\]\]$/);
  const r = await runTool('area_by_class', { image: 'geo_classes.tif' }, { outDir: out('geo'), cwd: cwd() });
  // Hand computation: sphere R = 6371008.8 m (REFERENCE.md), each pixel R²·Δλ·|sin φ2 − sin φ1|.
  const R = 6371008.8, rad = Math.PI / 180;
  const sphere = new Map<number, number>();
  for (let y = 0; y < h; y++) {
    const lat1 = 60 - y * res, lat2 = 60 - (y + 1) * res;
    const cell = R * R * res * rad * Math.abs(Math.sin(lat1 * rad) - Math.sin(lat2 * rad));
    for (let x = 0; x < w; x++) { const c = data[y * w + x]; if (c) sphere.set(c, (sphere.get(c) ?? 0) + cell); }
  }
  const table = r.stats.table as any[];
  assert.deepEqual(table.map((t) => t.class), [1, 2, 3]);
  for (const row of table) {
    const ref = sphere.get(row.class)!;
    const rel = Math.abs(row.m2 / ref - 1);
    assert.ok(rel < 0.005, `class ${row.class}: ellipsoid ${row.m2} vs sphere ${ref} (${(rel * 100).toFixed(3)}%)`);
  }
  // Class 1 sits one row further north than class 3 in every band of rows: smaller pixels.
  assert.ok(table[0].m2 / table[0].pixels < table[2].m2 / table[2].pixels);
  // 10° of longitude × 7.5° of latitude around 56°N is about 517 000 km².
  const totalKm2 = table.reduce((t, x) => t + x.km2, 0);
  // Polygons of a geographic mask carry the same ellipsoidal areas (one polygon: every pixel but the nodata corner).
  const v = await runTool('vectorize_mask', { image: 'geo_classes.tif' }, { outDir: out('geo'), cwd: cwd() });
  assert.equal(v.stats.count, 1);
  assert.ok(Math.abs((v.stats.total_m2 as number) / 1e6 / totalKm2 - 1) < 1e-9);
  assert.ok(totalKm2 > 500000 && totalKm2 < 530000, `total ${totalKm2} km²`); // 10° × 7.5° around 56°N
});

test('zonal_stats: class zones match numpy; GeoJSON polygons match gdal_rasterize + numpy', { skip }, async () => {
  const d = await runTool('dnbr', { pre: 'fire_pre.tif', post: 'fire_post.tif' }, { outDir: out('zonal'), cwd: cwd() });
  const s = await runTool('burn_severity', { image: d.outputs.dnbr.path }, { outDir: out('zonal'), cwd: cwd() });
  const z = await runTool('zonal_stats', { image: d.outputs.dnbr.path, zones: s.outputs.severity.path }, { outDir: out('zonal'), cwd: cwd() });
  const r = pyJson(READ + `
v, vnd = read(sys.argv[1]); z, znd = read(sys.argv[2])
v = v.astype(np.float64); ok = (v != vnd)
res = {}
for k in np.unique(z[z != znd]):
    m = (z == k) & ok
    x = v[m]
    res[str(int(k))] = {"count": int(m.sum()), "mean": float(x.mean()), "min": float(x.min()), "max": float(x.max()), "std": float(x.std()), "sum": float(x.sum())}
print(json.dumps(res))
`, d.outputs.dnbr.path, s.outputs.severity.path);
  const rows = z.stats.table as any[];
  assert.equal(rows.length, Object.keys(r).length);
  for (const row of rows) {
    const ref = r[String(row.zone)];
    assert.equal(row.count, ref.count);
    for (const k of ['mean', 'min', 'max', 'std']) assert.ok(Math.abs(row[k] - ref[k]) <= 1e-6, `zone ${row.zone} ${k}: ${row[k]} vs ${ref[k]}`);
    assert.ok(Math.abs(row.sum - ref.sum) <= 1e-6 * Math.max(1, Math.abs(ref.sum)));
  }

  const p = await runTool('zonal_stats', { image: 's2_scene.tif', band: 'nir', zones: 'fields.geojson' }, { outDir: out('zonal'), cwd: cwd() });
  const ids = path.join(dir, 'field_ids.tif');
  const rr = spawnSync('gdal_rasterize', ['-q', '-a', 'id', '-ot', 'Int32', '-a_nodata', '0', '-init', '0', '-te', '500000', '4424000', '506000', '4430000', '-tr', '10', '10', path.join(dir, 'fields.geojson'), ids], { encoding: 'utf8' });
  assert.equal(rr.status, 0, rr.stderr);
  const q = pyJson(READ + `
nir, nd = read(sys.argv[1], 5); ids, _ = read(sys.argv[2])
nir = nir.astype(np.float64)
res = {}
for k in np.unique(ids[ids > 0]):
    m = (ids == k); ok = m & (nir != nd)
    res[str(int(k))] = {"pixels": int(m.sum()), "count": int(ok.sum()), "mean": float(nir[ok].mean()), "std": float(nir[ok].std())}
print(json.dumps(res))
`, path.join(dir, 's2_scene.tif'), ids);
  const prow = p.stats.table as any[];
  assert.equal(prow.length, Object.keys(q).length);
  for (const row of prow) {
    const ref = q[String(row.id)];
    assert.equal(row.count + row.nodata_pixels, ref.pixels, `field ${row.id} pixel-centre rasterisation`);
    assert.equal(row.count, ref.count);
    assert.ok(Math.abs(row.mean - ref.mean) < 1e-6 * ref.mean && Math.abs(row.std - ref.std) < 1e-4, `field ${row.id}`);
    assert.ok(typeof row.crop === 'string');
  }
  const csv = fs.readFileSync(p.outputs.table.path, 'utf8').trim().split('\n');
  assert.equal(csv.length, prow.length + 1);
  assert.match(csv[0], /^id,crop,count,nodata_pixels,area_ha,mean,min,max,std,sum$/);
  assert.match(p.summary, /Across 12 polygons .* from \d+ in zone \d+ \(\w+\) to \d+ in zone \d+ \(\w+\)/);
  // One field on the scene and its copy far off it: one mean, not a range from a zone to itself.
  const fc = JSON.parse(fs.readFileSync(path.join(dir, 'fields.geojson'), 'utf8'));
  const far = JSON.parse(JSON.stringify(fc.features[0]));
  far.properties.id = 99;
  const shift = (c: any): any => (typeof c[0] === 'number' ? [c[0] + (Math.abs(c[0]) > 360 ? 100000 : 5), c[1]] : c.map(shift));
  far.geometry.coordinates = shift(far.geometry.coordinates);
  fs.writeFileSync(path.join(dir, 'one_on_one_off.geojson'), JSON.stringify({ ...fc, features: [fc.features[0], far] }));
  const one = await runTool('zonal_stats', { image: 's2_scene.tif', band: 'nir', zones: 'one_on_one_off.geojson' }, { outDir: out('zonal'), cwd: cwd() });
  const first = (one.stats.table as any[]).find((r) => r.count > 0);
  assert.match(one.summary, new RegExp(`^Across 2 polygons \\([^)]*\\), only zone ${first.id} \\(\\w+\\) covers valid pixels: its mean is [\\d.]+\\. 1 zone has no valid pixels\\.`), one.summary);
});

test('otsu → vectorize_mask and connected_patches agree with gdal_polygonize (4- and 8-connected)', { skip }, async () => {
  const d = await runTool('dnbr', { pre: 'fire_pre.tif', post: 'fire_post.tif' }, { outDir: out('vec'), cwd: cwd() });
  const m = await runTool('otsu_threshold', { image: d.outputs.dnbr.path }, { outDir: out('vec'), cwd: cwd() });
  assert.ok((m.stats.threshold as number) > 0.05 && (m.stats.threshold as number) < 0.6, `threshold ${m.stats.threshold}`);
  const v = await runTool('vectorize_mask', { image: m.outputs.mask.path }, { outDir: out('vec'), cwd: cwd() });
  const c = await runTool('connected_patches', { image: m.outputs.mask.path }, { outDir: out('vec'), cwd: cwd() });
  const res: Record<string, any> = {};
  for (const conn of ['4', '8']) {
    const dst = path.join(dir, `poly${conn}.geojson`);
    const args = ['/usr/bin/gdal_polygonize.py', '-q', ...(conn === '8' ? ['-8'] : []), m.outputs.mask.path, '-f', 'GeoJSON', dst, 'poly', 'DN'];
    const rr = spawnSync(PY, args, { encoding: 'utf8' });
    assert.equal(rr.status, 0, rr.stderr);
    res[conn] = pyJson(READ + `
ds = ogr.Open(sys.argv[1]); lyr = ds.GetLayer()
n = 0; area = 0.0; holes = 0
for f in lyr:
    if f.GetField('DN') != 1: continue
    g = f.GetGeometryRef(); n += 1; area += g.GetArea(); holes += g.GetGeometryCount() - 1
print(json.dumps({"n": n, "area": area, "holes": holes}))
`, dst);
  }
  assert.equal(v.stats.count, res['4'].n, 'one polygon per 4-connected region, like gdal_polygonize');
  assert.ok(Math.abs((v.stats.total_m2 as number) - res['4'].area) < 1e-3);
  assert.equal(v.stats.holes, res['4'].holes);
  assert.equal(c.stats.count, res['8'].n, '8-connected patches, like gdal_polygonize -8');
  const doc = JSON.parse(fs.readFileSync(v.outputs.polygons.path, 'utf8'));
  assert.equal(doc.crs.properties.name, 'urn:ogc:def:crs:EPSG::32650');
  const x = doc.features[0].geometry.coordinates[0][0][0];
  assert.ok(x >= 500000 && x <= 506000, 'coordinates in the raster CRS');
  const lab = pyJson(READ + `
l, nd = read(sys.argv[1]); u, n = np.unique(l[l > 0], return_counts=True)
print(json.dumps({"sizes": sorted([int(k) for k in n], reverse=True), "first": int(u[np.argmax(n)])}))
`, c.outputs.labels.path);
  assert.deepEqual(lab.sizes, c.stats.sizes);
  assert.equal(lab.first, 1, 'label 1 is the largest patch');
});

test('distance_to matches gdal_proximity.py in metres', { skip }, async () => {
  const m = await runTool('mndwi', { image: 's2_scene.tif' }, { outDir: out('dist'), cwd: cwd() });
  const t = await runTool('threshold', { image: m.outputs[Object.keys(m.outputs)[0]].path, op: 'gt', value: 0.2 }, { outDir: out('dist'), cwd: cwd() });
  const mask = t.outputs[Object.keys(t.outputs)[0]].path;
  const dd = await runTool('distance_to', { image: mask }, { outDir: out('dist'), cwd: cwd() });
  const ref = path.join(dir, 'prox.tif');
  const rr = spawnSync(PY, ['/usr/bin/gdal_proximity.py', '-q', mask, ref, '-values', '1', '-distunits', 'GEO', '-ot', 'Float32'], { encoding: 'utf8' });
  assert.equal(rr.status, 0, rr.stderr);
  const r = pyJson(READ + `
a, _ = read(sys.argv[1]); b, _ = read(sys.argv[2])
a = a.astype(np.float64); b = b.astype(np.float64)
print(json.dumps({"over": float((a - b).max()), "off": float((np.abs(a - b) > 0.01).mean()), "max": float(np.abs(a - b).max())}))
`, dd.outputs.distance.path, ref);
  // gdal_proximity's two-pass sweep sometimes misses the true nearest pixel (too long by up to a few
  // metres); the exact transform is never longer, and the two agree almost everywhere.
  assert.ok(r.over <= 1e-3, `never farther than GDAL's distance (max excess ${r.over} m)`);
  assert.ok(r.off < 0.005, `${(r.off * 100).toFixed(2)}% of pixels differ by more than 1 cm`);
  assert.ok(r.max < 5, `max difference ${r.max} m`);
  assert.match(dd.summary, /mean distance to the nearest mask pixel is \d/);
});

test('masks say what their 1s and 0s mean (GDAL reads the UTF-8 labels back); morphology keeps them; area_by_class names the classes', { skip }, async () => {
  const n = await runTool('ndvi', { image: 's2_scene.tif' }, { outDir: out('lab'), cwd: cwd() });
  const t = await runTool('threshold', { image: Object.values(n.outputs)[0].path, op: 'ge', value: 0.3 }, { outDir: out('lab'), cwd: cwd() });
  const mask = t.outputs.mask.path;
  const m = await runTool('morphology', { image: mask, op: 'open' }, { outDir: out('lab'), cwd: cwd() });
  const desc = (p: string) => pyJson(`
import sys, json
from osgeo import gdal
ds = gdal.Open(sys.argv[1]); print(json.dumps(ds.GetRasterBand(1).GetDescription()))
`, p);
  assert.equal(desc(mask), 'mask: 0=ndvi < 0.3;1=ndvi ≥ 0.3', 'the ≥ survives as UTF-8, not as a Latin-1 "e"');
  assert.equal(desc(m.outputs.mask.path), 'mask (open radius 1): 0=ndvi < 0.3;1=ndvi ≥ 0.3');
  const a = await runTool('area_by_class', { image: m.outputs.mask.path }, { outDir: out('lab'), cwd: cwd() });
  const table = a.stats.table as { class: number; pixels: number; label: string }[];
  assert.deepEqual(table.map((r) => [r.class, r.label]), [[0, 'ndvi < 0.3'], [1, 'ndvi ≥ 0.3']]);
  const counts = pyJson(READ + `
a, nd = read(sys.argv[1]); v = a[a != nd]
print(json.dumps([int((v == 0).sum()), int((v == 1).sum())]))
`, m.outputs.mask.path);
  assert.deepEqual(table.map((r) => r.pixels), counts);
  assert.match(a.summary, /ndvi ≥ 0\.3 \(1\) [\d.]+ (ha|km²)/);
});

test('change_difference, change_vector_analysis and time_series_trend match numpy; grid mismatches name both files', { skip }, async () => {
  const c = await runTool('change_difference', { before: 'urban_2018.tif', after: 'urban_2024.tif', band: 'red', threshold: 300 }, { outDir: out('chg'), cwd: cwd() });
  const r = pyJson(READ + `
a, _ = read(sys.argv[1], 3); b, _ = read(sys.argv[2], 3); d, dnd = read(sys.argv[3]); m, mnd = read(sys.argv[4])
ref = b.astype(np.float64) - a
print(json.dumps({"max": float(np.abs(d - ref).max()), "mask_mismatch": int(((ref > 300).astype(np.uint8) != m).sum())}))
`, path.join(dir, 'urban_2018.tif'), path.join(dir, 'urban_2024.tif'), c.outputs.difference.path, c.outputs.change_mask.path);
  assert.equal(r.max, 0);
  assert.equal(r.mask_mismatch, 0);
  assert.match(c.summary, /increased by more than 300 over [\d.]+% of the valid area \(\d+ ha\), mostly in the (east|north-east|eastern third)/);

  const cva = await runTool('change_vector_analysis', { before: 'urban_2018.tif', after: 'urban_2024.tif', bands: 'nir,swir1' }, { outDir: out('cva'), cwd: cwd() });
  const cv = pyJson(READ + `
a5, _ = read(sys.argv[1], 5); a6, _ = read(sys.argv[1], 6); b5, _ = read(sys.argv[2], 5); b6, _ = read(sys.argv[2], 6)
d1 = b5.astype(np.float64) - a5; d2 = b6.astype(np.float64) - a6
mag = np.hypot(d1, d2); ang = np.degrees(np.arctan2(d2, d1)) % 360
m, _ = read(sys.argv[3]); d, dnd = read(sys.argv[4])
ok = (mag > 0) & (d != dnd)
dd = np.abs(d[ok] - ang[ok]); dd = np.minimum(dd, 360 - dd)
print(json.dumps({"mag": float(np.abs(m - mag).max() / mag.max()), "dir": float(dd.max())}))
`, path.join(dir, 'urban_2018.tif'), path.join(dir, 'urban_2024.tif'), cva.outputs.magnitude.path, cva.outputs.direction.path);
  assert.ok(cv.mag < 1e-6, `CVA magnitude relative difference ${cv.mag}`);
  assert.ok(cv.dir < 1e-3, `CVA direction difference ${cv.dir}°`);

  const tt = await runTool('time_series_trend', {
    images: ['fire_pre.tif', 'urban_2018.tif', 'urban_2024.tif'], dates: ['2018-01-01', '2020-01-01', '2021-01-01'], band: 'nir',
  }, { outDir: out('trend'), cwd: cwd() });
  const q = pyJson(READ + `
ys = np.stack([read(p, 5)[0].astype(np.float64) for p in sys.argv[1:4]])
t = np.array([2018.0, 2020.0, 2021.0])
slope = np.polyfit(t, ys.reshape(3, -1), 1)[0].reshape(ys.shape[1:])
mine, _ = read(sys.argv[4])
print(json.dumps({"max": float(np.abs(mine - slope).max()), "scale": float(np.abs(slope).max())}))
`, path.join(dir, 'fire_pre.tif'), path.join(dir, 'urban_2018.tif'), path.join(dir, 'urban_2024.tif'), tt.outputs.trend.path);
  assert.ok(q.max <= 1e-6 * q.scale + 1e-4, `trend max abs difference ${q.max} (scale ${q.scale})`);
  assert.equal((tt.stats.series as any[]).length, 3);

  // Same size and CRS, origin shifted by one pixel.
  const shifted = path.join(dir, 'shifted.tif');
  await writeRaster(shifted, { width: 600, height: 600, bands: 1, dtype: 'float32', nodata: -9999, geo: { epsg: 32650, geoTransform: [500010, 10, 0, 4430000, 0, -10], geographic: false } }, [new Float32Array(360000)]);
  await assert.rejects(runTool('change_difference', { before: 'dem.tif', after: 'shifted.tif' }, { outDir: out('bad'), cwd: cwd() }),
    (e: Error) => /grids do not match/.test(e.message) && e.message.includes('dem.tif') && e.message.includes('shifted.tif') && /geotransform/.test(e.message));
  const small = path.join(dir, 'small.tif');
  await writeRaster(small, { width: 60, height: 60, bands: 1, dtype: 'float32', nodata: -9999, geo: { epsg: 32650, geoTransform: [500000, 100, 0, 4430000, 0, -100], geographic: false } }, [new Float32Array(3600)]);
  await assert.rejects(runTool('dnbr', { pre: 'fire_pre.tif', post: 'small.tif', nir: 1, swir2: 1 }, { outDir: out('bad'), cwd: cwd() }),
    (e: Error) => /grids do not match/.test(e.message) && e.message.includes('fire_pre.tif') && e.message.includes('small.tif') && /size 600x600 vs 60x60/.test(e.message));
  await assert.rejects(runTool('time_series_trend', { images: ['dem.tif', 'small.tif'], dates: ['2020-01-01', '2021-01-01'] }, { outDir: out('bad'), cwd: cwd() }),
    /grids do not match.*dem\.tif.*small\.tif/);
  assert.ok(!fs.existsSync(out('bad')) || fs.readdirSync(out('bad')).length === 0, 'no partial outputs');
});

test('land_surface_temperature matches the REFERENCE formula in numpy; Landsat ST is only converted', { skip }, async () => {
  const w = 50, h = 40, n = w * h;
  const rand = mulberry32(5);
  const red = new Float32Array(n), nir = new Float32Array(n), bt = new Float32Array(n);
  for (let i = 0; i < n; i++) { red[i] = 0.03 + 0.15 * rand(); nir[i] = 0.1 + 0.4 * rand(); bt[i] = 285 + 25 * rand(); }
  bt[7] = NaN;
  const geo = { epsg: 32650, geoTransform: [500000, 30, 0, 4430000, 0, -30] as [number, number, number, number, number, number], geographic: false };
  await writeRaster(path.join(dir, 'thermal.tif'), { width: w, height: h, bands: 3, dtype: 'float32', nodata: -9999, descriptions: ['red', 'nir', 'thermal'], geo }, [red, nir, bt]);
  const r = await runTool('land_surface_temperature', { image: 'thermal.tif' }, { outDir: out('lst'), cwd: cwd() });
  const q = pyJson(READ + `
red, _ = read(sys.argv[1], 1); nir, _ = read(sys.argv[1], 2); bt, nd = read(sys.argv[1], 3)
red = red.astype(np.float64); nir = nir.astype(np.float64); bt = bt.astype(np.float64)
ndvi = (nir - red) / (nir + red)
pv = np.clip((ndvi - 0.2) / (0.5 - 0.2), 0, 1) ** 2
eps = 0.004 * pv + 0.986
lst = bt / (1 + (10.895e-6 * bt / 1.438e-2) * np.log(eps)) - 273.15
mine, mnd = read(sys.argv[2])
ok = bt != nd
print(json.dumps({"max": float(np.abs(mine[ok] - lst[ok]).max()), "nodata_kept": bool(mine.flat[7] == mnd)}))
`, path.join(dir, 'thermal.tif'), r.outputs.lst.path);
  assert.ok(q.max < 1e-4, `LST max difference ${q.max} °C`);
  assert.ok(q.nodata_kept);
  assert.match(r.summary, /Land surface temperature averages \d+\.\d °C/);

  // Landsat C2 L2: ST_B10 DN × 0.00341802 + 149 K is already LST.
  const st = new Uint16Array(n), sr4 = new Uint16Array(n), sr5 = new Uint16Array(n);
  for (let i = 0; i < n; i++) { st[i] = 42000 + (i % 1000); sr4[i] = 9000; sr5[i] = 20000; }
  await writeRaster(path.join(dir, 'landsat.tif'), { width: w, height: h, bands: 3, dtype: 'uint16', nodata: 0, descriptions: ['SR_B4', 'SR_B5', 'ST_B10'], geo }, [sr4, sr5, st]);
  const l = await runTool('land_surface_temperature', { image: 'landsat.tif', sensor: 'landsat89_c2l2' }, { outDir: out('lst8'), cwd: cwd() });
  const z = pyJson(READ + `
st, _ = read(sys.argv[1], 3); mine, _ = read(sys.argv[2])
print(json.dumps({"max": float(np.abs(mine - (st * 0.00341802 + 149.0 - 273.15)).max())}))
`, path.join(dir, 'landsat.tif'), l.outputs.lst.path);
  assert.ok(z.max < 1e-3, `Landsat ST conversion max difference ${z.max}`);
});

test('kmeans_classify, reclassify and morphology: deterministic outputs, summaries with numbers and places', { skip }, async () => {
  const k1 = await runTool('kmeans_classify', { image: 's2_scene.tif', bands: 'red,nir,swir1', k: 4, seed: 3 }, { outDir: out('km1'), cwd: cwd() });
  const k2 = await runTool('kmeans_classify', { image: 's2_scene.tif', bands: [3, 5, 6], k: 4, seed: 3 }, { outDir: out('km2'), cwd: cwd() });
  // Band names or indices: the same data; the files differ only in the arguments their provenance records.
  assert.ok(sameRasterButArgs(k1.outputs.classes.path, k2.outputs.classes.path), 'same seed and bands → same data');
  assert.equal((k1.stats.classes as any[]).length, 4);
  assert.match(k1.summary, /^4 spectral clusters over 3 bands: the largest, class \d, covers \d+% of valid pixels \(\d+ ha\)/);

  const dem = await runTool('reclassify', { image: 'dem.tif', breaks: [100, 200, 300], labels: ['low', 'mid', 'high', 'very high'] }, { outDir: out('rc'), cwd: cwd() });
  const r = pyJson(READ + `
z, _ = read(sys.argv[1]); c, nd = read(sys.argv[2])
ref = np.select([z < 100, z < 200, z < 300], [1, 2, 3], 4)
print(json.dumps({"mismatch": int((ref != c).sum()), "nd": nd}))
`, path.join(dir, 'dem.tif'), dem.outputs.classes.path);
  assert.equal(r.mismatch, 0);
  const water = await runTool('otsu_threshold', { image: 's2_scene.tif', band: 'swir1' }, { outDir: out('rc'), cwd: cwd() });
  const morph = await runTool('morphology', { image: water.outputs.mask.path, op: 'erode', radius: 2 }, { outDir: out('rc'), cwd: cwd() });
  assert.match(morph.summary, /^Erosion with a 2-pixel disc removed \d+ pixels \([\d.]+% of the original mask\), (mostly in|spread across|concentrated)/);
  await assert.rejects(runTool('morphology', { image: 'dem.tif', op: 'smooth' }, { outDir: out('rc'), cwd: cwd() }), /op.*open, close, dilate, erode/);
});

test('tools stop within a second of an abort and leave no output', async () => {
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(runTool('slope', { dem: 'dem.tif' }, { outDir: out('abort1'), cwd: cwd(), signal: ac.signal }));
  for (const [id, args] of [['kmeans_classify', { image: 's2_scene.tif', k: 12 }], ['distance_to', { image: 'dem.tif' }], ['vectorize_mask', { image: 'fire_post.tif' }]] as const) {
    const ctl = new AbortController();
    const started = Date.now();
    const p = runTool(id, args as Record<string, unknown>, { outDir: out(`abort-${id}`), cwd: cwd(), signal: ctl.signal });
    setTimeout(() => ctl.abort(), 30);
    let settled = 0;
    await p.then(() => { settled = Date.now(); }, () => { settled = Date.now(); });
    assert.ok(settled - started < 1030, `${id} took ${settled - started} ms after an abort at 30 ms`);
    const leftovers = fs.existsSync(out(`abort-${id}`)) ? fs.readdirSync(out(`abort-${id}`)).filter((f) => f.includes('.tmp')) : [];
    assert.deepEqual(leftovers, []);
  }
});
