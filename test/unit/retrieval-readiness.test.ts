import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import type { ToolManifest } from '../../src/core/manifests/types';
import type { DataContext, DataItem } from '../../src/core/retrieval/types';
import { executability, namedInTask } from '../../src/core/retrieval/executability';
import { guessSensor } from '../../src/core/raster/sensor-guess';
import { localizeNote } from '../../src/core/retrieval/reason-language';
import { dataForTask } from '../../src/core/data/for-task';
import { scanDataFolder } from '../../src/core/data/scan';
import { describeVector } from '../../src/core/data/vector';
import { GeoWeave } from '../../src/core/geoweave';
import { writeSampleWorkspace } from '../../src/core/raster/sample/generate';
import { needGdal, tmpDir } from '../helpers/raster-gdal';
import { BRAZIL_NDVI, L7_DEM, L7_SCENE, writeCoarserCopy, writeRealLikeData } from '../helpers/real-data';

const manifest = (id: string) => JSON.parse(fs.readFileSync(path.join(__dirname, '../../../tool-manifests', `${id}.json`), 'utf8')) as ToolManifest;
const S2_ROLES = ['blue', 'green', 'red', 'rededge', 'nir', 'swir1', 'swir2', 'qa'];
const UTM50 = { crs: 'EPSG:32650', extent: [500000, 4424000, 506000, 4430000] as [number, number, number, number], lonLat: [117, 39.97, 117.07, 40.02] as [number, number, number, number] };
const grid = (pixel: number, n: number) => ({ width: n, height: n, geoTransform: [500000, pixel, 0, 4430000, 0, -pixel] });
const s2: DataItem = { path: 's2_scene.tif', type: 'raster', bands: S2_ROLES.map((role, i) => ({ index: i + 1, role })), ...UTM50, grid: grid(10, 600) };
const l7: DataItem = {
  path: 'landsat/L7_ETMs.tif', type: 'raster', bands: [1, 2, 3, 4, 5, 6].map((index) => ({ index })), crs: 'EPSG:32629',
  extent: [520000, 4278000, 532000, 4290000], lonLat: [-8.77, 38.65, -8.63, 38.76], grid: { width: 400, height: 400, geoTransform: [520000, 30, 0, 4290000, 0, -30] },
  guess: guessSensor({ bandCount: 6, dtype: 'uint8', min: 18, max: 148 }),
};
const brazil: DataItem = { path: 'brazil/ndvi_brazil.tif', type: 'raster', bands: [{ index: 1, description: 'NDVI' }], roles: ['index', 'ndvi'], crs: 'EPSG:32723', extent: [190000, 8238000, 202000, 8250000], lonLat: [-47.9, -15.92, -47.78, -15.81], grid: { width: 400, height: 400, geoTransform: [190000, 30, 0, 8250000, 0, -30] } };
const fields: DataItem = { path: 'fields.geojson', type: 'vector', crs: 'EPSG:32650', extent: [503926, 4424137, 505873, 4426801], lonLat: [117.046, 39.967, 117.069, 39.991] };

test('sensor guess: band count, data type and value range', () => {
  const l7Guess = guessSensor({ bandCount: 6, dtype: 'uint8', min: 18, max: 148 });
  assert.equal(l7Guess?.sensor, 'landsat7_etm');
  assert.deepEqual([l7Guess?.bands.red, l7Guess?.bands.nir, l7Guess?.bands.swir2], [3, 4, 6]);
  assert.match(l7Guess!.why, /6 bands of UInt8, values 18–148/);
  // Surface reflectance ×10 000 in Int16 is the same layout; a 6-band float stack of indices is nothing.
  assert.equal(guessSensor({ bandCount: 6, dtype: 'int16', min: -120, max: 9400 })?.sensor, 'landsat7_etm');
  assert.equal(guessSensor({ bandCount: 6, dtype: 'float32', min: -0.9, max: 0.95 })?.sensor, undefined);
  assert.equal(guessSensor({ bandCount: 7, dtype: 'uint16', min: 7300, max: 42000 })?.bands.nir, 5);
  assert.equal(guessSensor({ bandCount: 7, dtype: 'uint8', min: 3, max: 250 })?.bands.thermal, 6);
  assert.equal(guessSensor({ bandCount: 4, dtype: 'uint8', min: 0, max: 255 })?.bands.nir, 4);
  assert.equal(guessSensor({ bandCount: 4, dtype: 'uint16', min: 0, max: 9000 })?.bands.red, 3);
  assert.equal(guessSensor({ bandCount: 12, dtype: 'uint16', min: 0, max: 12000 })?.bands.nir, 8);
  assert.equal(guessSensor({ bandCount: 1, dtype: 'float32', min: 0, max: 900 }), undefined);
});

test('files named in a task: whole names, stems that cannot be ordinary words, Chinese around them', () => {
  const items: DataItem[] = [l7, s2, { path: 'urban_2018.tif', type: 'raster' }, { path: 'dem.tif', type: 'raster' }, fields];
  const named = (t: string) => namedInTask(t, items).map((i) => i.path);
  assert.deepEqual(named('Compute NDVI for the Landsat scene L7_ETMs.tif'), ['landsat/L7_ETMs.tif']);
  assert.deepEqual(named('对L7_ETMs.tif计算植被指数'), ['landsat/L7_ETMs.tif']);
  assert.deepEqual(named('growth since urban_2018 in fields.geojson'), ['urban_2018.tif', 'fields.geojson']);
  assert.deepEqual(named('slope from the dem'), []);
  assert.deepEqual(named('slope from dem.tif.'), ['dem.tif']);
  assert.deepEqual(named('s2_scene.tiff'), []);
  // Files of one name in different folders: the folder the task gives picks one; the name alone names both.
  const dated: DataItem[] = [{ ...s2, path: 'scenes/2018/B04.tif' }, { ...s2, path: 'scenes/2024/B04.tif' }];
  assert.deepEqual(namedInTask('red band of 2024/B04.tif', dated).map((i) => i.path), ['scenes/2024/B04.tif']);
  assert.deepEqual(namedInTask('red band of scenes\\2018\\B04.tif', dated).map((i) => i.path), ['scenes/2018/B04.tif']);
  assert.deepEqual(namedInTask('red band of B04.tif', dated).map((i) => i.path), ['scenes/2018/B04.tif', 'scenes/2024/B04.tif']);
  // A GRIB file opens whole and is listed before its messages: a task naming a message means the message.
  const grib: DataItem[] = ['gfs.grib2', 'gfs.grib2#TMP:2-HTGL', 'gfs.grib2#TMP:85000-ISBL', 'gfs.grib2#PRMSL'].map((p) => ({ path: `weather/${p}`, type: 'raster' }));
  assert.deepEqual(namedInTask('histogram of PRMSL in gfs.grib2', grib).map((i) => i.path), ['weather/gfs.grib2#PRMSL']);
  assert.deepEqual(namedInTask('mean of gfs.grib2#TMP:2-HTGL', grib).map((i) => i.path), ['weather/gfs.grib2#TMP:2-HTGL']);
  assert.equal(namedInTask('mean of gfs.grib2', grib)[0]?.path, 'weather/gfs.grib2', 'the file alone: the whole file first');
});

test('readiness: a file the task names is used and said so; its bands are a guess when it has no descriptions', () => {
  const data: DataContext = { items: [s2, l7] };
  const plain = executability(manifest('ndvi'), data);
  assert.equal(plain.args.image, 's2_scene.tif', 'without a name the described scene comes first');
  const r = executability(manifest('ndvi'), data, { task: 'Compute NDVI for the Landsat scene L7_ETMs.tif' });
  assert.equal(r.ready, true, r.notes.join(' | '));
  assert.deepEqual(r.args, { image: 'landsat/L7_ETMs.tif', red: 3, nir: 4 });
  assert.ok(r.notes.includes('needs red, NIR — guessed in L7_ETMs.tif (named in the task) bands 3, 4'), r.notes.join(' | '));
  assert.equal(r.caveats?.length, 1);
  assert.match(r.caveats![0], /L7_ETMs\.tif has no band descriptions: red, NIR in bands 3, 4 is a guess \(looks like Landsat 7 ETM\+.*6 bands of UInt8/);
  // The task in the data context works the same (forward retrieval passes only the context).
  assert.equal(executability(manifest('ndvi'), { ...data, task: 'NDVI of L7_ETMs.tif' }).args.image, 'landsat/L7_ETMs.tif');
  // Only a guess: with nothing else at hand the undescribed scene is used, flagged.
  const alone = executability(manifest('ndvi'), { items: [l7] });
  assert.equal(alone.args.image, 'landsat/L7_ETMs.tif');
  assert.ok(alone.caveats?.length);
});

test('readiness: polygons in another projection, far from the raster, are not ready and say why', () => {
  const r = executability(manifest('zonal_stats'), { items: [brazil, fields] }, { task: 'mean NDVI of ndvi_brazil.tif per field' });
  assert.equal(r.ready, false);
  assert.deepEqual(r.args, { image: 'brazil/ndvi_brazil.tif', zones: 'fields.geojson' });
  assert.equal(r.issues?.length, 1);
  assert.match(r.issues![0], /ndvi_brazil\.tif \(EPSG:32723, near 15\.9°S 47\.8°W\) and fields\.geojson \(EPSG:32650, near 40\.0°N 117\.1°E\) do not overlap/);
  assert.equal(r.notes[0], r.issues![0], 'what stops the run is the first note (the reason line shows it)');
  // Overlapping but in another CRS: the builtin tool reprojects the polygons onto the raster, so it is ready.
  const lonlat: DataItem = { ...fields, crs: 'EPSG:4326', extent: fields.lonLat };
  const crs = executability(manifest('zonal_stats'), { items: [s2, lonlat] });
  assert.equal(crs.ready, true, crs.notes.join(' | '));
  assert.deepEqual(crs.issues ?? [], []);
  // Without a name, the raster that covers the fields is chosen.
  assert.equal(executability(manifest('zonal_stats'), { items: [brazil, s2, fields] }).ready, true);
  assert.equal(executability(manifest('zonal_stats'), { items: [brazil, s2, fields] }).args.image, 's2_scene.tif');
});

test('readiness: two rasters on different grids are not ready and name the alignment step; a pair on one grid is preferred', () => {
  const pre: DataItem = { ...s2, path: 'fire_pre.tif' };
  const post: DataItem = { ...s2, path: 'fire_post.tif' };
  const coarse: DataItem = { ...s2, path: 'fire_post_30m.tif', grid: grid(30, 200) };
  const named = executability(manifest('dnbr'), { items: [pre, post, coarse] }, { task: 'dNBR from fire_pre.tif and fire_post_30m.tif' });
  assert.equal(named.ready, false);
  assert.match(named.issues![0], /fire_pre\.tif and fire_post_30m\.tif are not on the same grid \(EPSG:32650, 10 m, 600×600 vs EPSG:32650, 30 m, 200×200\): align fire_post_30m\.tif onto fire_pre\.tif first \(resample\)/);
  const free = executability(manifest('dnbr'), { items: [coarse, pre, post] });
  assert.equal(free.ready, true, free.notes.join(' | '));
  assert.deepEqual([free.args.pre, free.args.post], ['fire_pre.tif', 'fire_post.tif']);
  const reprojected = executability(manifest('change_vector_analysis'), { items: [s2, { ...l7, bands: S2_ROLES.slice(0, 6).map((role, i) => ({ index: i + 1, role })), lonLat: UTM50.lonLat }] },
    { task: 'change between s2_scene.tif and L7_ETMs.tif' });
  assert.match(reprojected.issues![0], /not on the same grid .*\(reproject\)/);
});

test('readiness: one file does not fill two whole-raster inputs, and a product named after its DEM is not a DEM', () => {
  // align (image + reference) and ndvi_anomaly (image + baseline) with one NDVI file: the second input is missing, not the same file again.
  const ndvi: DataItem = { path: 'out/landsat_ndvi.tif', type: 'raster', roles: ['index', 'ndvi'], ...UTM50, grid: grid(30, 200) };
  const align = executability(manifest('align'), { items: [ndvi] });
  assert.equal(align.ready, false);
  assert.deepEqual(align.missing, ['reference']);
  const anomaly = executability(manifest('ndvi_anomaly'), { items: [ndvi] });
  assert.equal(anomaly.ready, false);
  assert.ok(anomaly.args.baseline !== anomaly.args.image, JSON.stringify(anomaly.args));
  // Two years of NDVI: the later is the image, the earlier its baseline.
  const y23: DataItem = { ...ndvi, path: 'ndvi_2023.tif' }, y24: DataItem = { ...ndvi, path: 'ndvi_2024.tif' };
  for (const items of [[y23, y24], [y24, y23]]) {
    const r = executability(manifest('ndvi_anomaly'), { items });
    assert.deepEqual([r.args.image, r.args.baseline], ['ndvi_2024.tif', 'ndvi_2023.tif']);
  }
  // With a second file each input takes its own.
  const two = executability(manifest('align'), { items: [ndvi, s2] });
  assert.equal(two.ready, true, two.notes.join(' | '));
  assert.notEqual(two.args.image, two.args.reference);
  assert.deepEqual(two.issues ?? [], [], 'other grids are what align is for');
  // A scene's bands may still come from one file for one input (ndvi: red + NIR of s2_scene.tif).
  assert.equal(executability(manifest('ndvi'), { items: [s2] }).ready, true);
  // A slope written next to its DEM, named after it, is no DEM; the DEM and a filled DEM are.
  const dem: DataItem = { path: 'valley_dem_wgs84.tif', type: 'raster', bands: [{ index: 1 }], ...UTM50, grid: grid(30, 200) };
  const slope: DataItem = { ...dem, path: 'out/valley_dem_wgs84_slope.tif' };
  assert.equal(executability(manifest('aspect'), { items: [slope] }).ready, false);
  assert.deepEqual(executability(manifest('aspect'), { items: [slope, dem] }).args.dem, 'valley_dem_wgs84.tif');
  assert.equal(executability(manifest('aspect'), { items: [{ ...dem, path: 'srtm_filled.tif' }] }).ready, true);
});

test('a reason from the shipped practice flows says so; "chosen before" is for what was learned here (en, zh)', async () => {
  const gw = await GeoWeave.open({ stateDir: tmpDir(), onProgress: () => undefined });
  try {
    const fresh = await gw.forwardCandidates('ndvi of the fields', { k: 3 });
    const reasons = fresh.candidates.map((c) => c.reason).join(' | ');
    assert.match(reasons, /chosen for "ndvi" in the practice flows/, reasons);
    assert.doesNotMatch(reasons, /chosen before/);
    assert.equal(localizeNote('chosen for "ndvi" in the practice flows', 'zh'), '练习流程中曾为“ndvi”选用');
    await gw.recordTrajectories([{ task: 'ndvi of the fields', tools: ['ndvi', 'zonal_stats'] }]);
    const learned = await gw.forwardCandidates('ndvi of the fields', { k: 3 });
    assert.match(learned.candidates.map((c) => c.reason).join(' | '), /chosen before for "ndvi/);
  } finally {
    await gw.dispose();
  }
});

test('readiness: the data the task speaks of stays, not ready and why, rather than a ready pair of other data', () => {
  const U32 = { crs: 'EPSG:32632', extent: [500000, 4424000, 506000, 4430000] as [number, number, number, number], lonLat: [9, 39.97, 9.07, 40.02] as [number, number, number, number] };
  const U33 = { crs: 'EPSG:32633', extent: [200000, 4424000, 206000, 4430000] as [number, number, number, number], lonLat: [9, 39.97, 9.07, 40.02] as [number, number, number, number] };
  const at = (x0: number, p: number) => ({ width: 6000 / p, height: 6000 / p, geoTransform: [x0, p, 0, 4430000, 0, -p] });
  const s2ndvi: DataItem = { path: 'out/s2_20240715_ndvi.tif', type: 'raster', roles: ['index', 'ndvi'], ...U32, grid: at(500000, 10) };
  const qa: DataItem = { path: 'landsat/LC09_L2SP_193032_20240712_20240713_02_T1_QA_PIXEL.TIF', type: 'raster', bands: [{ index: 1, role: 'qa', description: 'QA_PIXEL' }], ...U33, grid: at(200000, 30) };
  const landsatMask: DataItem = { path: 'out/landsat_cloudmask.tif', type: 'raster', roles: ['mask'], ...U33, grid: at(200000, 30) };
  const items = [qa, landsatMask, s2ndvi];
  // Said: the Sentinel-2 NDVI is the image; no mask is on its grid, so not ready, and why.
  const r = executability(manifest('apply_mask'), { items }, { task: 'mask the clouds out of the July 2024 Sentinel-2 NDVI using the SCL cloud mask' });
  assert.equal(r.ready, false);
  assert.equal(r.args.image, 'out/s2_20240715_ndvi.tif');
  assert.match(r.issues![0], /s2_20240715_ndvi\.tif and landsat_cloudmask\.tif are not on the same grid/);
  // Unsaid: the pair that can run together, as before.
  const free = executability(manifest('apply_mask'), { items });
  assert.equal(free.ready, true);
  assert.deepEqual([free.args.image, free.args.mask], [qa.path, landsatMask.path]);
});

test('data for a task: earlier outputs of unrelated steps are left out, outputs of related or named ones kept', () => {
  const severity: DataItem = { path: '.geoweave/outputs/dnbr_burn_severity.tif', type: 'raster', roles: ['class', 'severity'], producedBy: 'burn_severity' };
  const index: DataItem = { path: '.geoweave/outputs/s2_scene_ndvi.tif', type: 'raster', roles: ['index', 'ndvi'], producedBy: 'ndvi' };
  const data: DataContext = { items: [severity, index, s2, fields] };
  const veg = dataForTask('评估植被健康状况', data, new Set(['ndvi', 'evi', 'zonal_stats']));
  assert.deepEqual(veg.items.map((i) => i.path), [index.path, 's2_scene.tif', 'fields.geojson']);
  assert.equal(veg.task, '评估植被健康状况');
  const zonal = executability(manifest('zonal_stats'), veg);
  assert.equal(zonal.args.image, index.path);
  const named = dataForTask('area of each class in dnbr_burn_severity.tif', data, new Set(['area_by_class']));
  assert.ok(named.items.includes(severity));
});

test('GeoJSON described with its CRS and extent (legacy crs member, RFC 7946 lon/lat)', () => {
  const dir = tmpDir('gw-vector-');
  fs.writeFileSync(path.join(dir, 'utm.geojson'), JSON.stringify({ type: 'FeatureCollection', crs: { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::32650' } },
    features: [{ type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [[[503000, 4425000], [504000, 4425000], [504000, 4426000], [503000, 4425000]]] } }] }));
  fs.writeFileSync(path.join(dir, 'lonlat.geojson'), JSON.stringify({ type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [-47.85, -15.85] } }));
  const utm = describeVector('utm.geojson', dir);
  assert.equal(utm.crs, 'EPSG:32650');
  assert.deepEqual(utm.extent, [503000, 4425000, 504000, 4426000]);
  assert.ok(utm.lonLat && Math.abs(utm.lonLat[0] - 117.035) < 0.01 && Math.abs(utm.lonLat[1] - 39.975) < 0.01, JSON.stringify(utm.lonLat));
  const ll = describeVector('lonlat.geojson', dir);
  assert.equal(ll.crs, 'EPSG:4326');
  assert.deepEqual(ll.lonLat, [-47.85, -15.85, -47.85, -15.85]);
});

let dir = '';
let gw: GeoWeave | undefined;
before(async () => {
  if (needGdal().skip) return;
  dir = tmpDir('gw-trust-');
  await writeSampleWorkspace(dir);
  writeRealLikeData(dir);
  writeCoarserCopy(path.join(dir, 'fire_post.tif'), path.join(dir, 'fire_post_30m.tif'), 30);
  gw = await GeoWeave.open({ stateDir: tmpDir('gw-trust-state-') });
});
after(async () => { await gw?.dispose(); });

test('the data scan describes real-data-like files: a guessed Landsat 7 layout, extents in lon/lat, grids', needGdal(), async () => {
  const ctx = await scanDataFolder(dir);
  const scene = ctx.items.find((i) => i.path === L7_SCENE)!;
  assert.equal(scene.crs, 'EPSG:32629');
  assert.equal(scene.guess?.sensor, 'landsat7_etm');
  assert.match(scene.guess!.why, /^6 bands of UInt8, values \d+–\d+$/);
  assert.ok(scene.lonLat![0] < -8 && scene.lonLat![0] > -9.5 && scene.lonLat![1] > 38 && scene.lonLat![1] < 39.5, JSON.stringify(scene.lonLat));
  assert.deepEqual(scene.grid, { width: 400, height: 400, geoTransform: [520000, 30, 0, 4290000, 0, -30] });
  assert.deepEqual(ctx.items.find((i) => i.path === L7_DEM)?.roles, ['dem']);
  assert.equal(ctx.items.find((i) => i.path === 's2_scene.tif')?.guess, undefined, 'described bands need no guess');
  assert.ok(ctx.items.find((i) => i.path === 'fields.geojson')?.lonLat);
});

test('the data scan skips FIFOs named like data (a read of one would block for good) and keeps links to real files', async () => {
  const d = tmpDir('gw-scan-fifo-');
  for (const name of ['fields.geojson', 'scene.tif', 'zones.gpkg', 'zones.shp']) {
    if (spawnSync('mkfifo', [path.join(d, name)]).status !== 0) return; // no mkfifo here: nothing to check
  }
  fs.writeFileSync(path.join(d, 'real.geojson'), JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, geometry: { type: 'Point', coordinates: [6.1, 49.6] } }] }));
  fs.symlinkSync(path.join(d, 'real.geojson'), path.join(d, 'link.geojson'));
  // In a child with a time bound: a regression blocks the event loop, where no test timeout could fire.
  const code = `const { scanDataFolder } = require(${JSON.stringify(path.join(__dirname, '../../src/core/data/scan.js'))});
const { describeVector } = require(${JSON.stringify(path.join(__dirname, '../../src/core/data/vector.js'))});
scanDataFolder(process.argv[1]).then((ctx) => console.log(JSON.stringify({ paths: ctx.items.map((i) => i.path).sort(),
  direct: ['fields.geojson', 'zones.gpkg'].map((f) => describeVector(f, process.argv[1])) })));`;
  const r = spawnSync(process.execPath, ['-e', code, d], { encoding: 'utf8', timeout: 20_000 });
  assert.equal(r.signal, null, 'the scan blocked on a FIFO');
  const out = JSON.parse(r.stdout);
  assert.deepEqual(out.paths, ['link.geojson', 'real.geojson']);
  assert.deepEqual(out.direct, [{ path: 'fields.geojson', type: 'vector' }, { path: 'zones.gpkg', type: 'vector' }]);
});

test('forward readiness on real-data-like files: the named scene, CRS/overlap and grid problems with their reasons', needGdal(), async () => {
  const data = await scanDataFolder(dir);
  const ndvi = (await gw!.forwardCandidates('Compute NDVI for the Landsat scene L7_ETMs.tif', { k: 5, data })).candidates.find((c) => c.id === 'ndvi')!;
  assert.deepEqual(ndvi.readiness.args, { image: L7_SCENE, red: 3, nir: 4 });
  assert.equal(ndvi.readiness.ready, true);
  assert.match(ndvi.reason, /guessed in L7_ETMs\.tif \(named in the task\) bands 3, 4/);
  assert.match(ndvi.readiness.caveats![0], /is a guess \(looks like Landsat 7 ETM\+/);
  const zonal = (await gw!.forwardCandidates('mean NDVI of ndvi_brazil.tif per field polygon', { k: 5, data })).candidates.find((c) => c.id === 'zonal_stats')!;
  assert.equal(zonal.readiness.ready, false);
  assert.deepEqual(zonal.readiness.args, { image: BRAZIL_NDVI, zones: 'fields.geojson' });
  assert.match(zonal.reason, /do not overlap/);
  assert.match(zonal.readiness.issues![0], /ndvi_brazil\.tif \(EPSG:32723.*fields\.geojson \(EPSG:32650.*do not overlap/);
  const dnbr = (await gw!.forwardCandidates('burn severity from fire_pre.tif and fire_post_30m.tif', { k: 5, data })).candidates.find((c) => c.id === 'dnbr')!;
  assert.equal(dnbr.readiness.ready, false);
  assert.match(dnbr.readiness.issues![0], /align fire_post_30m\.tif onto fire_pre\.tif first \(resample\)/);
  const plain = (await gw!.forwardCandidates('how severe was the fire', { k: 5, data })).candidates.find((c) => c.id === 'dnbr')!;
  assert.equal(plain.readiness.ready, true, plain.reason);
  assert.deepEqual([plain.readiness.args.pre, plain.readiness.args.post], ['fire_pre.tif', 'fire_post.tif']);
});

test('readiness: a tool that cannot use the file the task names is not ready on another file instead', () => {
  const r = executability(manifest('cloud_mask'), { items: [s2, l7] }, { task: 'Compute NDVI for the Landsat scene L7_ETMs.tif' });
  assert.equal(r.ready, false);
  assert.equal(r.args.image, undefined);
  assert.ok(r.notes.includes('needs a QA band for image — not in L7_ETMs.tif, which the task names'), r.notes.join(' | '));
  // A vector input is still free to come from the workspace when the task names only a raster.
  const z = executability(manifest('zonal_stats'), { items: [s2, fields] }, { task: 'mean of s2_scene.tif per field' });
  assert.deepEqual(z.args, { image: 's2_scene.tif', zones: 'fields.geojson' });
});

test('readiness: a file the task names that is not there (a typo, a download not finished) is not stood in for', () => {
  const typo = executability(manifest('ndvi'), { items: [s2, l7] }, { task: 'Compute NDVI for L7_ETM.tif' });
  assert.equal(typo.ready, false);
  assert.equal(typo.args.image, undefined, 'NDVI was made ready on another scene');
  assert.ok(typo.notes.includes('needs red + NIR for image — L7_ETM.tif, which the task names, is not among the data found here; did you mean L7_ETMs.tif?'), typo.notes.join(' | '));
  assert.equal(localizeNote(typo.notes.at(-1)!, 'zh'), 'image 需要红光 + NIR：任务点名的 L7_ETM.tif 不在已找到的数据中；是否指 L7_ETMs.tif？');
  // A named vector that is missing blocks only the vector input's stand-ins; the raster still resolves.
  const zonal = executability(manifest('zonal_stats'), { items: [s2, fields] }, { task: 'mean of s2_scene.tif per parcel of parcels_2024.gpkg' });
  assert.equal(zonal.ready, false);
  assert.deepEqual(zonal.args, { image: 's2_scene.tif' });
  assert.ok(zonal.notes.some((n) => /zones — parcels_2024\.gpkg, which the task names, is not among the data found here$/.test(n)), zonal.notes.join(' | '));
  // An archive named after its extraction is there as what it unpacked to; one that is not there at
  // all blocks every input.
  const unpacked = executability(manifest('ndvi'), { items: [{ ...s2, path: 'S2B_MSIL2A_X.SAFE' }] }, { task: 'NDVI of S2B_MSIL2A_X.SAFE.zip' });
  assert.equal(unpacked.args.image, 'S2B_MSIL2A_X.SAFE', unpacked.notes.join(' | '));
  const gone = executability(manifest('ndvi'), { items: [s2] }, { task: 'NDVI of S2B_MSIL2A_Y.SAFE.zip' });
  assert.equal(gone.ready, false);
  assert.match(gone.notes.join(' | '), /S2B_MSIL2A_Y\.SAFE\.zip, which the task names, is not among the data found here/);
  // A derived layer named for a later step ("the mean slope (slope.tif) inside the buffer") does not
  // hold back a first step that reads a scene's bands; an input of values waits for it.
  const later = 'take the dNBR > 0.27 burned area, buffer it by 1 km and give me the mean slope (slope.tif) inside the buffer';
  const pair = executability(manifest('dnbr'), { items: [s2, { ...s2, path: 'fire_pre.tif' }, { ...s2, path: 'fire_post.tif' }] }, { task: later });
  assert.deepEqual([pair.args.pre, pair.args.post], ['fire_pre.tif', 'fire_post.tif'], pair.notes.join(' | '));
  const zonalLater = executability(manifest('zonal_stats'), { items: [s2, fields] }, { task: later });
  assert.equal(zonalLater.ready, false);
  assert.match(zonalLater.notes.join(' | '), /slope\.tif, which the task names, is not among the data found here/);
  // A format GeoWeave does not read: said so, with the conversion, rather than another file used.
  const sid = executability(manifest('raster_stats'), { items: [s2] }, { task: 'mean brightness of ortho_2024.sid' });
  assert.equal(sid.ready, false);
  assert.ok(sid.notes.includes('needs a raster for image — ortho_2024.sid, which the task names, is MrSID/ECW, which GeoWeave does not read yet: convert it first (gdal_translate ortho_2024.sid ortho_2024.tif)'), sid.notes.join(' | '));
  assert.equal(localizeNote(sid.notes.at(-1)!, 'zh'), 'image 需要栅格：任务点名的 ortho_2024.sid 是 MrSID/ECW 格式，GeoWeave 暂不能读取，请先转换（gdal_translate ortho_2024.sid ortho_2024.tif）');
  // GRIB is read now (ERA5, GFS): one named and absent is looked for like any other file.
  const grib = executability(manifest('raster_stats'), { items: [s2] }, { task: 'mean 2 m temperature in era5_t2m_2024.grib' });
  assert.equal(grib.ready, false);
  assert.match(grib.notes.join(' | '), /era5_t2m_2024\.grib, which the task names, is not among the data found here/);
  // An HDF4 file is read now (MODIS): one named and absent is looked for like any other file.
  const hdf = executability(manifest('raster_stats'), { items: [s2] }, { task: 'mean NDVI in MOD13Q1.A2024001.h26v05.061.hdf' });
  assert.equal(hdf.ready, false);
  assert.match(hdf.notes.join(' | '), /MOD13Q1\.A2024001\.h26v05\.061\.hdf, which the task names, is not among the data found here/);
  // A URL named in the task: read when a cell runs, not stood in for by a workspace scene.
  const cog = 'https://example.org/cogs/S2A_31TDF_20240707_B08.tif';
  const remote = executability(manifest('raster_stats'), { items: [s2] }, { task: `histogram of ${cog}` });
  assert.equal(remote.ready, false);
  assert.ok(remote.notes.includes(`needs a raster for image — ${cog}, which the task names, is read over HTTP when a cell runs; readiness checks files in the workspace only: give it in the cell (image: ${cog})`), remote.notes.join(' | '));
  assert.match(localizeNote(remote.notes.at(-1)!, 'zh'), /^image 需要栅格：任务点名的 https:\/\/example\.org\/cogs\/S2A_31TDF_20240707_B08\.tif 在单元格运行时通过 HTTP 读取/);
  // A file that was found but could not be read says why (a NetCDF-4 file, here).
  const nc4 = executability(manifest('raster_stats'), { items: [s2], unreadable: [{ path: 'climate/era5_t2m_2024.nc', reason: 'not a TIFF file (it is an HDF5 file (NetCDF-4 is one), which GeoWeave does not read yet)' }] }, { task: 'monthly mean of era5_t2m_2024.nc' });
  assert.equal(nc4.ready, false);
  assert.ok(nc4.notes.includes('needs a raster for image — era5_t2m_2024.nc, which the task names, cannot be read: not a TIFF file (it is an HDF5 file (NetCDF-4 is one), which GeoWeave does not read yet)'), nc4.notes.join(' | '));
  // The data file of a raw raster is named as delivered; the scan lists its header.
  const dem: DataItem = { path: 'usgs/n37_w122_1arc_v3.hdr', type: 'raster', roles: ['dem'], bands: [{ index: 1, role: 'dem' }], ...UTM50, grid: grid(30, 200) };
  const slope = executability(manifest('slope'), { items: [s2, dem] }, { task: 'slope of n37_w122_1arc_v3.bil' });
  assert.equal(slope.args.dem, 'usgs/n37_w122_1arc_v3.hdr', slope.notes.join(' | '));
  assert.match(slope.notes.join(' | '), /n37_w122_1arc_v3\.hdr \(named in the task\)/);
  // A one-band grid that says nothing of what it holds feeds elevation when the task names it for
  // that, flagged as taken on the task's word; unnamed, it is no DEM.
  const tile: DataItem = { path: 'os/SU42.asc', type: 'raster', bands: [{ index: 1 }], ...UTM50, grid: grid(50, 200) };
  const named = executability(manifest('slope'), { items: [s2, tile] }, { task: 'slope of SU42.asc' });
  assert.equal(named.ready, true, named.notes.join(' | '));
  assert.equal(named.args.dem, 'os/SU42.asc');
  assert.ok(named.notes.includes('needs a DEM — taken as such from SU42.asc (named in the task)'), named.notes.join(' | '));
  assert.deepEqual(named.caveats, ['SU42.asc does not say what it holds: taken as a DEM because the task names it; check that it is']);
  assert.equal(localizeNote(named.caveats![0], 'zh'), 'SU42.asc 未说明其内容：因任务点名而视作 DEM，请确认');
  assert.equal(executability(manifest('slope'), { items: [s2, tile] }, { task: 'slope of the terrain' }).ready, false);
  // A scene is not taken as elevation on a name: it has bands that say what they are.
  assert.equal(executability(manifest('slope'), { items: [s2, tile] }, { task: 'slope of s2_scene.tif' }).ready, false);
});

test('readiness: data the task speaks of without naming the file comes first ("the DEM", "post-fire", years)', () => {
  const dem: DataItem = { path: 'dem.tif', type: 'raster', roles: ['dem'], bands: [{ index: 1, role: 'dem', description: 'elevation' }], ...UTM50, grid: grid(10, 600) };
  const scene = (name: string): DataItem => ({ ...s2, path: name });
  const items = [s2, scene('fire_post.tif'), scene('fire_pre.tif'), scene('urban_2018.tif'), scene('urban_2024.tif'), dem];
  const image = (id: string, task: string) => executability(manifest(id), { items, task }).args.image;
  assert.equal(image('raster_stats', 'give me the percentiles and histogram of elevation across the DEM'), 'dem.tif');
  assert.equal(image('raster_stats', 'histogram of the scene'), 's2_scene.tif');
  assert.equal(image('nbr', 'normalized burn ratio of the post-fire scene'), 'fire_post.tif');
  assert.equal(image('ndbi', 'how much has the town grown between 2018 and 2024?'), 'urban_2018.tif');
  // The first thing spoken of is the one worked on.
  assert.equal(image('raster_stats', 'put the DEM on the same grid as the Sentinel scene'), 'dem.tif');
  const cva = executability(manifest('change_vector_analysis'), { items, task: 'what changed between the 2018 and 2024 images?' });
  assert.deepEqual([cva.args.before, cva.args.after], ['urban_2018.tif', 'urban_2024.tif']);
  // A pair keeps its time order even when only one date is spoken of ("火后": after the fire).
  const dnbr = executability(manifest('dnbr'), { items, task: '火后哪些陡坡烧得最严重' });
  assert.deepEqual([dnbr.args.pre, dnbr.args.post], ['fire_pre.tif', 'fire_post.tif']);
  assert.ok(executability(manifest('nbr'), { items, task: 'burn ratio of the post-fire scene' }).notes.some((n) => n.includes('fire_post.tif (the task\'s "burn", "post-fire")')));
});

test('an input that reads values is not ready on a scene when the task asks for an indicator the scene does not hold', () => {
  const zonal = manifest('zonal_stats');
  const clip = manifest('clip_to_vector');
  const district: DataItem = { ...fields, path: 'districts.shp' };
  const ask = (m: ToolManifest, task: string, items: DataItem[]) => executability(m, { items, task });
  // Mean NDVI per district over a raw Landsat scene: band 1 (blue) is not NDVI.
  const onScene = ask(zonal, 'mean NDVI per district', [s2, district]);
  assert.equal(onScene.ready, false);
  assert.deepEqual(onScene.missing, ['image']);
  assert.match(onScene.notes.join(' | '), /needs the task's NDVI for image — s2_scene\.tif holds sensor bands, not NDVI: compute it first/);
  // With the NDVI raster at hand it is that one, and ready.
  const withNdvi = ask(zonal, 'mean NDVI per district', [s2, { ...s2, path: 'ndvi_2024.tif', bands: [{ index: 1, description: 'NDVI' }], guess: undefined }, district]);
  assert.equal(withNdvi.ready, true, withNdvi.notes.join(' | '));
  assert.equal(withNdvi.args.image, 'ndvi_2024.tif');
  // A task naming no indicator keeps the scene (mean reflectance per district is a fair ask).
  assert.equal(ask(zonal, 'mean value per district of the scene', [s2, district]).ready, true);
  // Tools that work on the whole scene (clipping it before NDVI) are not held back.
  assert.equal(ask(clip, 'clip the scene to the districts, then NDVI', [s2, district]).ready, true);
  // An elevation model is not the slope or the NDVI the task asks about either (a workspace of a
  // DEM and fields only: before, zonal statistics was ready on the DEM for "mean slope per district").
  const dem: DataItem = { path: 'dem_laea.tif', type: 'raster' };
  const onDem = ask(zonal, 'mean slope per district', [dem, district]);
  assert.equal(onDem.ready, false);
  assert.match(onDem.notes.join(' | '), /needs the task's SLOPE for image — dem_laea\.tif holds elevation, not SLOPE: compute it first/);
  assert.ok(ask(manifest('threshold'), 'threshold the NDVI at 0.3', [dem]).missing.includes('image'));
  // Asked about the elevation itself, the DEM is the input.
  const elev = ask(zonal, 'mean elevation per district', [dem, district]);
  assert.equal(elev.ready, true, elev.notes.join(' | '));
  assert.equal(elev.args.image, 'dem_laea.tif');
  // The slope tool itself takes the DEM for a slope task.
  assert.equal(ask(manifest('slope'), 'mean slope per district', [dem, district]).ready, true);
});

test('readiness: a Landsat scene delivered a file per band is one scene; NDVI is ready on its folder, not on one band file', needGdal(), async () => {
  const dir = tmpDir('gw-bandproduct-');
  try {
    await writeSampleWorkspace(dir);
    const scene = 'LC09_L2SP_123032_20240612_20240613_02_T1';
    fs.mkdirSync(path.join(dir, scene));
    for (const b of [3, 4, 5]) {
      const r = spawnSync('gdal_translate', ['-q', '-b', String(b), path.join(dir, 'thermal_landsat.tif'), path.join(dir, scene, `${scene}_SR_B${b}.TIF`)], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
    }
    const data = await scanDataFolder(dir);
    const product = data.items.find((i) => i.product);
    assert.ok(product, 'the band files form a product item');
    assert.equal(product.path, scene, 'the folder holds only this product: the item is the folder');
    assert.deepEqual(product.product?.files, Object.fromEntries([['green', 3], ['red', 4], ['nir', 5]].map(([r, b]) => [r, path.join(scene, `${scene}_SR_B${b}.TIF`)])));
    const r = executability(manifest('ndvi'), { items: data.items.filter((i) => i.path !== 's2_scene.tif' && i.path !== 'thermal_landsat.tif'), task: 'NDVI of the Landsat scene' });
    assert.equal(r.ready, true, r.notes.join('; '));
    assert.deepEqual(r.args, { image: scene }, 'no band numbers: each band is its own file');
    assert.match(r.notes.join('; '), /found in LC09_L2SP_123032_20240612_20240613_02_T1 .*files SR_B4, SR_B5/);
    // A tool that takes one raster file is not offered the folder.
    const c = executability(manifest('raster_stats'), { items: [product] });
    assert.equal(c.ready, false);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a service tool is ready on local files; one that is sent a path rather than the file says only a service on this machine can read it', () => {
  const data: DataContext = { items: [s2, fields] } as DataContext;
  const inputs: ToolManifest['inputs'] = [{ name: 'scene', type: 'raster', required: true }, { name: 'zones', type: 'vector', required: true }];
  const json: ToolManifest = { id: 'zonal_ndvi', description: 'zonal NDVI', inputs, runner: { type: 'http', method: 'POST', url: 'https://eo.example.org:8443/v1/zonal', body: 'json' } };
  const r = executability(json, data);
  assert.equal(r.ready, true);
  assert.deepEqual(r.caveats, [
    'the service at eo.example.org:8443 is sent the path of s2_scene.tif, not the file: only a service on this machine can read it',
    'the service at eo.example.org:8443 is sent the path of fields.geojson, not the file: only a service on this machine can read it',
  ]);
  assert.equal(localizeNote(r.caveats![1], 'zh'), '发送给 eo.example.org:8443 服务的是 fields.geojson 的路径而不是文件本身：只有本机上的服务能读取它');
  // An upload field is sent the file itself: nothing to say about it.
  const upload = executability({ ...json, runner: { ...json.runner!, body: 'multipart', files: ['scene'] } as ToolManifest['runner'] }, data);
  assert.deepEqual(upload.caveats, ['the service at eo.example.org:8443 is sent the path of fields.geojson, not the file: only a service on this machine can read it']);
  // No address (catalog-only): not ready, and no caveat about sending.
  const bare = executability({ ...json, runner: undefined }, data);
  assert.equal(bare.ready, false);
  assert.equal(bare.caveats, undefined);
});

test('a tool its OpenAPI document marks deprecated says so, with or without data at hand, in English and Chinese', () => {
  const m: ToolManifest = { id: 'surface_uhi_legacy', description: 'old UHI', deprecated: true, inputs: [{ name: 'scene', type: 'raster', required: true }], runner: { type: 'http', method: 'POST', url: 'http://localhost:8000/uhi', body: 'multipart', files: ['scene'] } };
  const want = 'surface_uhi_legacy is deprecated by its service: it is kept for old flows and has a replacement';
  assert.deepEqual(executability(m).caveats, [want]);
  const r = executability(m, { items: [s2] } as DataContext);
  assert.equal(r.ready, true);
  assert.deepEqual(r.caveats, [want]);
  assert.equal(localizeNote(want, 'zh'), 'surface_uhi_legacy 已被其服务弃用：仅为旧流程保留，另有替代工具');
});

test('an MCP server\'s tool is ready only where the workspace configures that server, and says which one it needs, in English and Chinese', () => {
  const m: ToolManifest = { id: 'band_stats', description: 'band statistics', inputs: [{ name: 'raster', type: 'raster', required: true }, { name: 'output_path', type: 'string', required: true, description: 'where to write the GeoTIFF' }], runner: { type: 'mcp', server: 'eo', tool: 'band_stats' } };
  // Configured: ready (where it writes is the runner's to choose, not the analyst's).
  assert.equal(executability(m, { items: [s2], mcpServers: ['eo', 'hydromet'] }).ready, true);
  // Unknown (the command line's --data): judged on the data alone.
  assert.equal(executability(m, { items: [s2] }).ready, true);
  // Not configured here (a catalog file copied from another project): not runnable, and why.
  const r = executability(m, { items: [s2], mcpServers: ['hydromet'] });
  assert.equal(r.ready, false);
  assert.equal(r.runnable, false);
  const want = 'needs the MCP server "eo", which this workspace does not configure (.vscode/mcp.json)';
  assert.ok(r.notes.includes(want), r.notes.join(' | '));
  assert.equal(localizeNote(want, 'zh'), '需要 MCP 服务器“eo”，但此工作区没有配置它（.vscode/mcp.json）');
});
