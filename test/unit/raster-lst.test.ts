/** land_surface_temperature, cloud_mask and NDVI on the sample's Landsat C2 L2 scene, against numpy over GDAL-read arrays. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { writeSampleWorkspace } from '../../src/core/raster/sample/generate';
import { runTool } from '../../src/core/raster/engine';
import { scanDataFolder } from '../../src/core/data/scan';
import { executability } from '../../src/core/retrieval/executability';
import type { ToolManifest } from '../../src/core/manifests/types';
import { gdalSkip, pyJson, PY_READ_BAND, sameRasterButArgs } from '../helpers/raster-gdal';

const skip = gdalSkip('the Landsat LST checks');
const READ = PY_READ_BAND;
const SCENE = 'thermal_landsat.tif';

let dir = '';
const scene = () => path.join(dir, SCENE);
const out = (name: string) => path.join(dir, 'out', name);
const run = (id: string, args: Record<string, unknown>, name: string) => runTool(id, args, { outDir: out(name), cwd: dir });

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-lst-'));
  await writeSampleWorkspace(dir);
});
after(() => { if (dir) fs.rmSync(dir, { recursive: true, force: true }); });

/** 3×3 cells (row-major, north-west first) named by a whereText phrase. */
function cellsOf(phrase: string): number[] {
  const cell = ['north-west', 'north', 'north-east', 'west', 'centre', 'east', 'south-west', 'south', 'south-east'];
  const third = phrase.match(/the (northern|middle|southern|western|central|eastern) third/);
  if (third) {
    const k = ['northern', 'middle', 'southern', 'western', 'central', 'eastern'].indexOf(third[1]);
    return k < 3 ? [k * 3, k * 3 + 1, k * 3 + 2] : [k - 3, k, k + 3];
  }
  const named = [...phrase.matchAll(/the ([a-z-]+)(?= and|$|,|\.)/g)].map((m) => cell.indexOf(m[1])).filter((i) => i >= 0);
  if (named.length) return named;
  throw new Error(`no region in "${phrase}"`);
}

test('LST of Landsat C2 L2 ST_B10 is DN × 0.00341802 + 149 − 273.15 (no second emissivity correction), the same with or without the sensor preset', { skip }, async () => {
  const byName = await run('land_surface_temperature', { image: SCENE }, 'lst-name');
  const byPreset = await run('land_surface_temperature', { image: SCENE, sensor: 'landsat89_c2l2' }, 'lst-preset');
  // The arguments readiness pre-fills for this file (band indices, no sensor).
  const byIndex = await run('land_surface_temperature', { image: SCENE, thermal: 8, red: 4, nir: 5 }, 'lst-index');
  const file = byName.outputs.lst.path;
  const q = pyJson(READ + `
st, snd = read(sys.argv[1], 8); qa, _ = read(sys.argv[1], 9)
mine, mnd = read(sys.argv[2])
st = st.astype(np.float64); qa = qa.astype(np.int64)
fill = st == snd
ref = st * 0.00341802 + 149.0 - 273.15
clear = ~fill & ((qa & 0b11110) == 0)
c = ref[clear]
hot, cool = c >= np.percentile(c, 90), c <= np.percentile(c, 10)
H, W = ref.shape
cy = np.minimum(np.arange(H) * 3 // H, 2)[:, None] * np.ones((1, W), int)
cx = np.ones((H, 1), int) * np.minimum(np.arange(W) * 3 // W, 2)[None, :]
cell = (cy * 3 + cx)[clear]
dens = lambda sel: [float(sel[cell == k].mean()) for k in range(9)]
print(json.dumps({
  "max": float(np.abs(mine[~fill].astype(np.float64) - ref[~fill]).max()),
  "fill_is_nodata": bool((mine[fill] == mnd).all()), "fill": int(fill.sum()), "mnd": mnd,
  "mean_clear": float(c.mean()), "p10": float(np.percentile(c, 10)), "p90": float(np.percentile(c, 90)),
  "min_clear": float(c.min()), "max_clear": float(c.max()), "cloudy": float(1 - clear.sum() / (~fill).sum()),
  "hot": dens(hot), "cool": dens(cool),
  "eps_bias": float(np.median(ref[clear] - ((ref[clear] + 273.15) / (1 + (10.895e-6 * (ref[clear] + 273.15) / 1.438e-2) * np.log(0.99)) - 273.15))),
}))
`, scene(), file);
  assert.ok(q.max <= 1e-4, `LST differs from DN × 0.00341802 + 149 − 273.15 by up to ${q.max} °C`);
  assert.ok(q.fill > 0 && q.fill_is_nodata && q.mnd === -9999, 'ST_B10 fill (DN 0) is nodata -9999 in the output');
  // Correcting ST again (ε ≈ 0.99) would shift it by ~0.7 K: far outside the tolerance above.
  assert.ok(Math.abs(q.eps_bias) > 0.5, `a second emissivity correction would be visible (${q.eps_bias} K)`);
  for (const other of [byPreset, byIndex]) {
    // The files differ only in the arguments their provenance records.
    assert.ok(sameRasterButArgs(other.outputs.lst.path, file), 'band names, the landsat89_c2l2 preset and band indices give the same data');
  }

  const info = JSON.parse(spawnSync('gdalinfo', ['-json', file], { encoding: 'utf8' }).stdout);
  assert.deepEqual(info.size, [200, 200]);
  assert.deepEqual(info.geoTransform, [500000, 30, 0, 4430000, 0, -30]);
  assert.match(info.coordinateSystem.wkt, /ID\["EPSG",32650\]\]$/);
  assert.equal(info.bands.length, 1);
  assert.equal(info.bands[0].type, 'Float32');
  assert.equal(info.bands[0].noDataValue, -9999);
  assert.match(info.bands[0].description, /lst/);

  // Figures over QA-clear pixels; the summary says what the input was and where it is hottest and coolest.
  const s = byName.stats as Record<string, any>;
  assert.equal(s.input, 'surface temperature (Landsat C2 L2 ST)');
  assert.equal(s.qa_band, 9);
  assert.ok(Math.abs(s.mean_c - q.mean_clear) < 1e-3, `mean ${s.mean_c} vs numpy ${q.mean_clear}`);
  assert.ok(Math.abs(s.min_c - q.min_clear) < 1e-4 && Math.abs(s.max_c - q.max_clear) < 1e-4, 'min/max over clear pixels');
  assert.ok(Math.abs(s.p10_c - q.p10) < 0.05 && Math.abs(s.p90_c - q.p90) < 0.05, `p10/p90 ${s.p10_c}/${s.p90_c} vs ${q.p10}/${q.p90}`);
  assert.ok(Math.abs(s.cloudy_fraction - q.cloudy) < 1e-9, `cloudy fraction ${s.cloudy_fraction} vs ${q.cloudy}`);
  assert.ok(q.min_clear > 15 && q.max_clear < 50 && q.mean_clear > 25 && q.mean_clear < 40, 'a plausible summer scene');
  const sum = byName.summary;
  assert.match(sum, /^Land surface temperature averages \d+\.\d °C over the 9\d% of the scene that QA_PIXEL marks clear \(\d+\.\d to \d+\.\d °C\)/);
  assert.match(sum, /ST_B10 \(band 8\) is Landsat C2 L2 surface temperature, already emissivity-corrected by USGS: converted from kelvin to °C only, not corrected again/);
  assert.match(sum, /\d+(\.\d)?% flagged cloud, cloud shadow or cirrus in QA_PIXEL \(band 9\)/);
  const m = sum.match(/hottest 10% \(≥ [\d.]+ °C\) (?:are )?([^,]+), the coolest 10% \(≤ [\d.]+ °C\) ([^.]+)\./);
  assert.ok(m, sum);
  // The named regions are where numpy finds the hottest / coolest decile densest.
  for (const [phrase, dens] of [[m[1], q.hot], [m[2], q.cool]] as [string, number[]][]) {
    const named = cellsOf(phrase);
    const inside = named.reduce((a, k) => a + dens[k], 0) / named.length;
    const rest = dens.filter((_, k) => !named.includes(k));
    assert.ok(inside > Math.max(...rest) * 0.8 && inside > 2 * (rest.reduce((a, b) => a + b, 0) / rest.length), `"${phrase}" vs numpy densities ${dens.map((d) => d.toFixed(2))}`);
  }
  // The town (north-east) is hot, the lake and forested hills (west, south-west) cool.
  assert.ok(q.hot[2] > 0.2 && q.cool[2] < 0.02, `north-east: hot ${q.hot[2]}, cool ${q.cool[2]}`);
  assert.ok(q.cool[6] > 0.2 && q.hot[6] < 0.05, `south-west: hot ${q.hot[6]}, cool ${q.cool[6]}`);
});

test('a brightness-temperature band gets the REFERENCE NDVI-emissivity correction, with SR_B4/SR_B5 scaled by their C2 L2 names', { skip }, async () => {
  // A float32 kelvin band named as brightness temperature, red/NIR from the Landsat scene via a {role: path} mapping.
  pyJson(READ + `
src = gdal.Open(sys.argv[1])
st = src.GetRasterBand(8).ReadAsArray().astype(np.float64)
bt = np.where(st == 0, -9999, st * 0.00341802 + 149.0 - 1.0).astype(np.float32)
d = gdal.GetDriverByName('GTiff').Create(sys.argv[2], src.RasterXSize, src.RasterYSize, 1, gdal.GDT_Float32)
d.SetGeoTransform(src.GetGeoTransform()); d.SetProjection(src.GetProjection())
b = d.GetRasterBand(1); b.SetNoDataValue(-9999); b.SetDescription('brightness temperature'); b.WriteArray(bt)
d = None
print('{}')
`, scene(), path.join(dir, 'bt.tif'));
  const r = await run('land_surface_temperature', { image: { thermal: 'bt.tif', red: SCENE, nir: SCENE }, red: 4, nir: 5 }, 'lst-bt');
  const q = pyJson(READ + `
bt, bnd = read(sys.argv[1]); red, rnd = read(sys.argv[2], 4); nir, _ = read(sys.argv[2], 5)
ok = (bt != bnd) & (red != rnd) & (nir != rnd)
bt = bt.astype(np.float64)
red = red.astype(np.float64) * 0.0000275 - 0.2; nir = nir.astype(np.float64) * 0.0000275 - 0.2
ndvi = (nir - red) / (nir + red)
pv = np.clip((ndvi - 0.2) / (0.5 - 0.2), 0, 1) ** 2
eps = 0.004 * pv + 0.986
lst = bt / (1 + (10.895e-6 * bt / 1.438e-2) * np.log(eps)) - 273.15
mine, mnd = read(sys.argv[3])
print(json.dumps({"max": float(np.abs(mine[ok] - lst[ok]).max()), "nodata": bool((mine[~ok] == mnd).all()), "n": int(ok.sum()),
  "shift": float(np.median(lst[ok] - (bt[ok] - 273.15)))}))
`, path.join(dir, 'bt.tif'), scene(), r.outputs.lst.path);
  assert.ok(q.max <= 1e-4, `LST from brightness temperature differs from numpy by up to ${q.max} °C`);
  assert.ok(q.nodata && q.n > 39000);
  assert.ok(q.shift > 0.5 && q.shift < 1.2, `emissivity correction warms BT by ${q.shift} K`);
  assert.equal(r.stats.input, 'brightness temperature');
  assert.match(r.summary, /band 1\) was taken as brightness temperature and corrected with NDVI-based emissivity/);
  assert.equal(r.stats.qa_band, undefined, 'no QA_PIXEL in bt.tif: figures over every valid pixel');
});

test('cloud_mask on QA_PIXEL matches numpy bit tests (bits 1-4 set = 1, fill bit 0 = nodata), by name and with the preset', { skip }, async () => {
  const a = await run('cloud_mask', { image: SCENE, sensor: 'landsat89_c2l2' }, 'cm-preset');
  const b = await run('cloud_mask', { image: SCENE }, 'cm-name');
  const q = pyJson(READ + `
qa, _ = read(sys.argv[1], 9); qa = qa.astype(np.int64)
ref = np.where((qa & 1) == 1, 255, np.where((qa & 0b11110) != 0, 1, 0))
out = {}
for k, p in (("preset", sys.argv[2]), ("name", sys.argv[3])):
    m, nd = read(p)
    out[k] = {"mismatch": int((m.astype(np.int64) != ref).sum()), "nd": nd}
bits = {str(b): int(((qa >> b) & 1).sum()) for b in range(8)}
out.update({"cloudy": int((ref == 1).sum()), "valid": int((ref != 255).sum()), "bits": bits,
  "water_clear": int((((qa >> 7) & 1) == 1).sum())})
print(json.dumps(out))
`, scene(), a.outputs.mask.path, b.outputs.mask.path);
  assert.equal(q.preset.mismatch, 0, 'sensor=landsat89_c2l2');
  assert.equal(q.name.mismatch, 0, 'QA_PIXEL by band name');
  assert.equal(q.preset.nd, 255);
  assert.equal(a.stats.sensor, 'landsat89_c2l2');
  assert.equal(b.stats.sensor, 'landsat89_c2l2');
  assert.equal(a.stats.qa_band, 9);
  // Every flag the scene promises is present.
  for (const bit of ['0', '1', '2', '3', '4', '6', '7']) assert.ok(q.bits[bit] > 0, `QA_PIXEL bit ${bit} is used`);
  const frac = q.cloudy / q.valid;
  assert.ok(frac > 0.02 && frac < 0.2, `cloud/shadow/cirrus fraction ${frac}`);
});

test('NDVI through the landsat89_c2l2 preset (and by SR_B4/SR_B5 names alone) applies the C2 L2 offset, as numpy', { skip }, async () => {
  const a = await run('ndvi', { image: SCENE, sensor: 'landsat89_c2l2' }, 'ndvi-preset');
  const b = await run('ndvi', { image: SCENE }, 'ndvi-name');
  // Float bands keeping the USGS names hold converted reflectance already: not scaled a second time.
  pyJson(READ + `
src = gdal.Open(sys.argv[1])
d = gdal.GetDriverByName('GTiff').Create(sys.argv[2], src.RasterXSize, src.RasterYSize, 2, gdal.GDT_Float32)
d.SetGeoTransform(src.GetGeoTransform()); d.SetProjection(src.GetProjection())
for k, band in ((1, 4), (2, 5)):
    dn = src.GetRasterBand(band).ReadAsArray().astype(np.float64)
    o = d.GetRasterBand(k); o.SetNoDataValue(-9999); o.SetDescription('SR_B%d' % band)
    o.WriteArray(np.where(dn == 0, -9999, dn * 0.0000275 - 0.2).astype(np.float32))
d = None
print('{}')
`, scene(), path.join(dir, 'sr_float.tif'));
  const c = await run('ndvi', { image: 'sr_float.tif' }, 'ndvi-float');
  const q = pyJson(READ + `
red, nd = read(sys.argv[1], 4); nir, _ = read(sys.argv[1], 5)
ok = (red != nd) & (nir != nd)
r = red.astype(np.float64) * 0.0000275 - 0.2; n = nir.astype(np.float64) * 0.0000275 - 0.2
ref = (n - r) / (n + r)
res = {}
for k, p in (("preset", sys.argv[2]), ("name", sys.argv[3]), ("float", sys.argv[4])):
    m, mnd = read(p)
    res[k] = {"max": float(np.abs(m[ok] - ref[ok]).max()), "nodata": bool((m[~ok] == mnd).all() if mnd is not None else np.isnan(m[~ok]).all())}
raw = (nir.astype(np.float64) - red) / (nir.astype(np.float64) + red)
res["offset_matters"] = float(np.abs(raw[ok] - ref[ok]).max())
res["veg"] = float((ref[ok] > 0.6).mean())
print(json.dumps(res))
`, scene(), a.outputs.index.path, b.outputs.index.path, c.outputs.index.path);
  for (const k of ['preset', 'name', 'float']) {
    assert.ok(q[k].max <= 1e-6, `${k}: NDVI max abs diff ${q[k].max}`);
    assert.ok(q[k].nodata, `${k}: fill stays nodata`);
  }
  assert.ok(q.offset_matters > 0.05, 'ignoring the −0.2 offset would be visible');
  assert.ok(q.veg > 0.15, `vegetated share ${q.veg}`);
  const bands = a.stats.bands as Record<string, { band: number; how: string }>;
  assert.equal(bands.red.band, 4);
  assert.equal(bands.nir.band, 5);
  assert.match((b.stats.bands as any).red.how, /0\.0000275.*SR_B4/);
});

test('the data scan gives the Landsat scene its band roles, so LST is ready on it while NDVI still defaults to the Sentinel-2 scene', async () => {
  const ctx = await scanDataFolder(dir);
  const item = ctx.items.find((it) => it.path === SCENE);
  assert.ok(item, 'thermal_landsat.tif is scanned');
  assert.deepEqual(item!.bands!.map((b) => b.role ?? null), [null, 'blue', 'green', 'red', 'nir', 'swir1', 'swir2', 'thermal', 'qa']);
  assert.equal(item!.crs, 'EPSG:32650');
  const manifest = (id: string) => JSON.parse(fs.readFileSync(path.join(__dirname, '../../../tool-manifests', `${id}.json`), 'utf8')) as ToolManifest;
  const lst = executability(manifest('land_surface_temperature'), ctx);
  assert.equal(lst.ready, true, lst.notes.join('; '));
  assert.deepEqual(lst.args, { image: SCENE, thermal: 8, red: 4, nir: 5 });
  assert.equal(executability(manifest('ndvi'), ctx).args.image, 's2_scene.tif');
});
