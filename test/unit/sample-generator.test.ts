/** `geoweave sample`: deterministic bytes, GDAL-readable with the promised CRS/bands, realistic content. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { writeSampleWorkspace, SAMPLE_FILES } from '../../src/core/raster/sample/generate';
import { main } from '../../src/cli/main';
import { gdalSkip, PY } from '../helpers/raster-gdal';

const skip = gdalSkip('GDAL checks of the sample');

let root = '';
let a = '', b = '';
before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-sample-'));
  a = path.join(root, 'a');
  b = path.join(root, 'b');
  await writeSampleWorkspace(a);
});
after(() => { if (root) fs.rmSync(root, { recursive: true, force: true }); });

test('the CLI writes exactly the documented files, byte-identical on every run', async () => {
  const lines: string[] = [];
  const code = await main(['sample', b], { out: (t) => lines.push(t), err: (t) => lines.push(t) });
  assert.equal(code, 0, lines.join('\n'));
  assert.deepEqual(fs.readdirSync(b).sort(), [...SAMPLE_FILES].sort());
  for (const f of SAMPLE_FILES) {
    assert.ok(fs.readFileSync(path.join(a, f)).equals(fs.readFileSync(path.join(b, f))), `${f} differs between runs`);
  }
  const readme = fs.readFileSync(path.join(b, 'README.md'), 'utf8');
  for (const f of SAMPLE_FILES.filter((x) => x !== 'README.md')) assert.ok(readme.includes(f), `README describes ${f}`);
});

test('gdalinfo: EPSG:32650, 10 m, 8 uint16 bands with descriptions, nodata 0; the Landsat scene at 30 m in C2 L2 naming; DEM float32 nodata -9999', { skip }, () => {
  const info = JSON.parse(spawnSync('gdalinfo', ['-json', path.join(a, 's2_scene.tif')], { encoding: 'utf8' }).stdout);
  assert.deepEqual(info.size, [600, 600]);
  assert.match(info.coordinateSystem.wkt, /ID\["EPSG",32650\]\]$/);
  assert.deepEqual(info.geoTransform, [500000, 10, 0, 4430000, 0, -10]);
  assert.deepEqual(info.bands.map((x: any) => x.description), ['blue', 'green', 'red', 'rededge', 'nir', 'swir1', 'swir2', 'scl']);
  assert.ok(info.bands.every((x: any) => x.type === 'UInt16' && x.noDataValue === 0));
  for (const f of ['fire_pre.tif', 'fire_post.tif', 'urban_2018.tif', 'urban_2024.tif']) {
    const i = JSON.parse(spawnSync('gdalinfo', ['-json', path.join(a, f)], { encoding: 'utf8' }).stdout);
    assert.deepEqual(i.bands.map((x: any) => x.description), ['blue', 'green', 'red', 'rededge', 'nir', 'swir1', 'swir2'], f);
    assert.deepEqual(i.geoTransform, info.geoTransform, f);
  }
  const ls = JSON.parse(spawnSync('gdalinfo', ['-json', path.join(a, 'thermal_landsat.tif')], { encoding: 'utf8' }).stdout);
  assert.deepEqual(ls.size, [200, 200]);
  assert.deepEqual(ls.geoTransform, [500000, 30, 0, 4430000, 0, -30], 'same area at 30 m');
  assert.match(ls.coordinateSystem.wkt, /ID\["EPSG",32650\]\]$/);
  assert.deepEqual(ls.bands.map((x: any) => x.description), ['SR_B1', 'SR_B2', 'SR_B3', 'SR_B4', 'SR_B5', 'SR_B6', 'SR_B7', 'ST_B10', 'QA_PIXEL']);
  assert.ok(ls.bands.every((x: any) => x.type === 'UInt16' && x.noDataValue === 0 && x.scale === undefined && x.offset === undefined), 'C2 L2 DNs, scaling left to the reader (as USGS files)');
  const dem = JSON.parse(spawnSync('gdalinfo', ['-json', path.join(a, 'dem.tif')], { encoding: 'utf8' }).stdout);
  assert.equal(dem.bands[0].type, 'Float32');
  assert.equal(dem.bands[0].noDataValue, -9999);
  assert.match(dem.coordinateSystem.wkt, /ID\["EPSG",32650\]\]$/);
});

test('content is realistic: water, vegetation, town, clouds, burn scar, growth, fields on cropland', { skip }, () => {
  const script = `
import sys, json, numpy as np
from osgeo import gdal
d = sys.argv[1]
s2 = gdal.Open(d + '/s2_scene.tif'); S = s2.ReadAsArray().astype(np.float64)
blue, green, red, re, nir, sw1, sw2, scl = S
valid = scl > 0
clear = valid & np.isin(scl, [4, 5, 6])
ndvi = np.where(nir + red > 0, (nir - red) / np.maximum(nir + red, 1), np.nan)
mndwi = np.where(green + sw1 > 0, (green - sw1) / np.maximum(green + sw1, 1), np.nan)
ndbi = np.where(sw1 + nir > 0, (sw1 - nir) / np.maximum(sw1 + nir, 1), np.nan)
water = scl == 6
pre = gdal.Open(d + '/fire_pre.tif').ReadAsArray().astype(np.float64)
post = gdal.Open(d + '/fire_post.tif').ReadAsArray().astype(np.float64)
nbr = lambda a: (a[4] - a[6]) / (a[4] + a[6])
dnbr = nbr(pre) - nbr(post)
u18 = gdal.Open(d + '/urban_2018.tif').ReadAsArray().astype(np.float64)
u24 = gdal.Open(d + '/urban_2024.tif').ReadAsArray().astype(np.float64)
nd = lambda a: (a[5] - a[4]) / (a[5] + a[4])
dem = gdal.Open(d + '/dem.tif').ReadAsArray()
print(json.dumps({
  "water_frac": float(water.mean()), "water_mndwi": float(np.nanmedian(mndwi[water])), "water_nir": float(np.median(nir[water])),
  "veg_frac": float(((ndvi > 0.6) & clear).sum() / clear.sum()),
  "built_frac": float(((ndbi > 0.05) & clear).sum() / clear.sum()),
  "scl_classes": sorted(int(v) for v in np.unique(scl)),
  "cloud_frac": float(np.isin(scl, [8, 9, 10]).mean()), "shadow_frac": float((scl == 3).mean()),
  "cloud_blue": float(np.median(blue[scl == 9])), "clear_blue": float(np.median(blue[clear])),
  "nodata_frac": float((~valid).mean()),
  "burn_high": float((dnbr >= 0.66).mean()), "burn_any": float((dnbr >= 0.1).mean()), "unburned_med": float(np.median(dnbr[dnbr < 0.1])),
  "growth": float(((nd(u24) - nd(u18)) > 0.1).mean()),
  "dem_min": float(dem.min()), "dem_max": float(dem.max()),
}))
`;
  const r = spawnSync(PY, ['-c', script, a], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.ok(s.water_frac > 0.02 && s.water_frac < 0.15, `water ${s.water_frac}`);
  assert.ok(s.water_mndwi > 0.3 && s.water_nir < 400, `water spectra ${s.water_mndwi} ${s.water_nir}`);
  assert.ok(s.veg_frac > 0.2, `vegetation ${s.veg_frac}`);
  assert.ok(s.built_frac > 0.03 && s.built_frac < 0.3, `built-up/bare ${s.built_frac}`);
  for (const c of [0, 3, 4, 5, 6, 8, 9]) assert.ok(s.scl_classes.includes(c), `SCL class ${c}`);
  assert.ok(s.cloud_frac > 0.02 && s.cloud_frac < 0.2, `clouds ${s.cloud_frac}`);
  assert.ok(s.shadow_frac > 0.005, `shadows ${s.shadow_frac}`);
  assert.ok(s.cloud_blue > 3 * s.clear_blue, 'clouds are bright');
  assert.ok(s.nodata_frac > 0 && s.nodata_frac < 0.01);
  assert.ok(s.burn_any > 0.03 && s.burn_high > 0.002, `burn ${s.burn_any} ${s.burn_high}`);
  assert.ok(Math.abs(s.unburned_med) < 0.05);
  assert.ok(s.growth > 0.01 && s.growth < 0.1, `growth ${s.growth}`);
  assert.ok(s.dem_min > 0 && s.dem_max - s.dem_min > 200);
});

test('thermal_landsat.tif: C2 L2 encoding, a plausible summer thermal field, QA_PIXEL flags consistent with the Sentinel-2 scene', { skip }, () => {
  const script = `
import sys, json, numpy as np
from osgeo import gdal
d = sys.argv[1]
L = gdal.Open(d + '/thermal_landsat.tif').ReadAsArray().astype(np.int64)
qa = L[8]
fill = (qa & 1) == 1
sr = L[:7] * 0.0000275 - 0.2
st = L[7] * 0.00341802 + 149.0 - 273.15
flag = lambda b: ((qa >> b) & 1) == 1
cloud, shadow, water = flag(3), flag(4), flag(7)
clear = ~fill & ((qa & 0b11110) == 0)
ndvi = (sr[4] - sr[3]) / (sr[4] + sr[3])
land = clear & ~water
# The Sentinel-2 SCL aggregated to the 30 m grid (majority of the 3 x 3 block).
s2 = gdal.Open(d + '/s2_scene.tif')  # keep the dataset referenced while its band is read
scl = s2.GetRasterBand(8).ReadAsArray().reshape(200, 3, 200, 3).transpose(0, 2, 1, 3).reshape(200, 200, 9)
s2water = (scl == 6).sum(-1) >= 5
s2cloud = np.isin(scl, [8, 9]).sum(-1) >= 5
veg, town = land & (ndvi > 0.7), land & (ndvi < 0.25)
town_ne = np.zeros_like(land); town_ne[25:75, 125:170] = True
print(json.dumps({
  "fill": int(fill.sum()), "fill_dn0": bool((L[:8][:, fill] == 0).all()), "valid_dn0": int((L[:8][:, ~fill] == 0).sum()),
  "sr_range": [float(sr[:, ~fill].min()), float(sr[:, ~fill].max())],
  "st_clear": [float(st[clear].min()), float(np.median(st[clear])), float(st[clear].max())],
  "water_st": float(np.median(st[water & clear])), "veg_st": float(np.median(st[veg])), "bare_st": float(np.median(st[town])),
  "town_st": float(np.median(st[land & town_ne])), "cloud_st": float(np.median(st[cloud])), "shadow_st": float(np.median(st[shadow & ~water])),
  "corr": float(np.corrcoef(ndvi[land], st[land])[0, 1]),
  "water_agree": float((water[~fill] == s2water[~fill]).mean()), "cloud_agree": float((cloud[s2cloud & ~fill]).mean()),
  "cloud_frac": float(cloud[~fill].mean()), "shadow_frac": float(shadow[~fill].mean()),
  "values": sorted(int(v) for v in np.unique(qa)),
}))
`;
  const r = spawnSync(PY, ['-c', script, a], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const s = JSON.parse(r.stdout);
  assert.ok(s.fill > 0 && s.fill < 200 && s.fill_dn0 && s.valid_dn0 === 0, `fill ${s.fill}: DN 0 only where QA_PIXEL says fill`);
  assert.ok(s.sr_range[0] >= 0 && s.sr_range[1] < 0.8, `reflectance ${s.sr_range}`);
  assert.ok(s.st_clear[0] > 15 && s.st_clear[2] < 50 && s.st_clear[1] > 25 && s.st_clear[1] < 38, `clear-sky LST ${s.st_clear} °C`);
  assert.ok(s.water_st < s.veg_st - 1 && s.veg_st < s.bare_st - 5 && s.town_st > s.veg_st + 5, `water ${s.water_st} < forest/crops ${s.veg_st} < bare/built ${s.bare_st}, town ${s.town_st}`);
  assert.ok(s.cloud_st < s.water_st - 5, `cloud tops ${s.cloud_st} °C are cold`);
  assert.ok(s.shadow_st < s.st_clear[1], `cloud shadow ${s.shadow_st} °C is cooler than the median`);
  assert.ok(s.corr < -0.6, `LST falls with NDVI (r = ${s.corr})`);
  assert.ok(s.water_agree > 0.97 && s.cloud_agree > 0.9, `features line up with s2_scene.tif (water ${s.water_agree}, clouds ${s.cloud_agree})`);
  assert.ok(s.cloud_frac > 0.01 && s.cloud_frac < 0.2 && s.shadow_frac > 0.002, `clouds ${s.cloud_frac}, shadows ${s.shadow_frac}`);
  // Standard C2 QA_PIXEL codes: fill, dilated, clear land, clear water, medium/high cloud, shadow, cirrus.
  for (const v of [1, 21762, 21824, 21952, 22024, 22280, 23888, 54596]) assert.ok(s.values.includes(v), `QA_PIXEL value ${v}`);
});

test('fields.geojson: 8-15 polygons in EPSG:32650 with id and crop, lying on cropland', async () => {
  const doc = JSON.parse(fs.readFileSync(path.join(a, 'fields.geojson'), 'utf8'));
  assert.equal(doc.crs.properties.name, 'urn:ogc:def:crs:EPSG::32650');
  assert.ok(doc.features.length >= 8 && doc.features.length <= 15);
  for (const f of doc.features) {
    assert.equal(typeof f.properties.id, 'number');
    assert.equal(typeof f.properties.crop, 'string');
    const ring = f.geometry.coordinates[0];
    assert.deepEqual(ring[0], ring[ring.length - 1]);
    for (const [x, y] of ring) assert.ok(x >= 500000 && x <= 506000 && y >= 4424000 && y <= 4430000);
  }
  // Field NDVI: mean inside each field is vegetation-like except fallow.
  const { runTool } = await import('../../src/core/raster/engine');
  const out = path.join(root, 'out');
  await runTool('ndvi', { image: 's2_scene.tif' }, { outDir: out, cwd: a });
  const ndvi = fs.readdirSync(out).find((f) => f.endsWith('.tif'))!;
  const z = await runTool('zonal_stats', { image: path.join(out, ndvi), zones: 'fields.geojson' }, { outDir: out, cwd: a });
  const rows = z.stats.table as any[];
  for (const r of rows) {
    if (r.crop === 'fallow') assert.ok(r.mean < 0.45, `fallow field ${r.id} NDVI ${r.mean}`);
    else assert.ok(r.mean > 0.3, `field ${r.id} (${r.crop}) NDVI ${r.mean}`);
    assert.ok(r.count > 500, `field ${r.id} has ${r.count} pixels`);
  }
});
