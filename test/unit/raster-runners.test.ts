/** Builtin runners for former catalog-only tools (sar_flood_threshold, ndvi_anomaly, median_composite), checked against numpy over GDAL-read arrays. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { runTool, getToolSpec } from '../../src/core/raster/engine';
import { loadCatalog } from '../../src/core/manifests/load';
import { executability } from '../../src/core/retrieval/executability';
import { writeRaster } from '../../src/core/raster/io/writer';
import { mulberry32 } from '../../src/core/raster/algorithms/prng';
import { gdalSkip, pyJson, PY_READ_BAND, tmpDir, gdalinfoJson } from '../helpers/raster-gdal';

const skip = gdalSkip('numpy/GDAL comparisons of the runner tools');

/** Python prelude: write(path, arrays, nodata, dtype) writes a GeoTIFF on a fixed EPSG:32633 10 m grid. */
const PY_WRITE = PY_READ_BAND + `
from osgeo import osr
def write(p, arrays, nodata=None, dtype=gdal.GDT_Float32, descs=None, tiled=False):
    h, w = arrays[0].shape
    opts = ['TILED=YES', 'BLOCKXSIZE=32', 'BLOCKYSIZE=32'] if tiled else []
    d = gdal.GetDriverByName('GTiff').Create(p, w, h, len(arrays), dtype, opts)
    d.SetGeoTransform((500000, 10, 0, 5200000, 0, -10))
    s = osr.SpatialReference(); s.ImportFromEPSG(32633); d.SetProjection(s.ExportToWkt())
    for i, a in enumerate(arrays):
        b = d.GetRasterBand(i + 1)
        if nodata is not None: b.SetNoDataValue(nodata)
        if descs: b.SetDescription(descs[i])
        b.WriteArray(a)
    d = None
`;

/** Asserts the output keeps the input's CRS and geotransform (read by gdalinfo). */
function assertGrid(out: string, w: number, h: number): void {
  const info = gdalinfoJson(out);
  assert.deepEqual(info.size, [w, h]);
  assert.deepEqual(info.geoTransform, [500000, 10, 0, 5200000, 0, -10]);
  assert.match(info.coordinateSystem.wkt, /ID\["EPSG",32633\]\]$/);
}

test('sar_flood_threshold: Otsu on linear backscatter equals numpy (dB = 10·log10, same 256-bin Otsu); a given dB threshold too', { skip }, async () => {
  const dir = tmpDir();
  const img = path.join(dir, 's1_vv.tif');
  // Bimodal scene: water ~ -20 dB (west), land ~ -8 dB (east), speckle; a few zero and nodata pixels.
  pyJson(PY_WRITE + `
rng = np.random.default_rng(7)
h, w = 90, 120
db = np.where(np.arange(w)[None, :] < 45, -20.0, -8.0) + rng.normal(0, 2.0, (h, w))
lin = (10 ** (db / 10)).astype(np.float32)
lin[0, :5] = 0
lin[5, 5:9] = -1
write(sys.argv[1], [lin], nodata=-1)
print('{}')
`, img);
  const r = await runTool('sar_flood_threshold', { image: img }, { outDir: path.join(dir, 'o') });
  assertGrid(r.outputs.mask.path, 120, 90);
  const ref = pyJson(PY_WRITE + `
lin, nd = read(sys.argv[1])
mask, mnd = read(sys.argv[2])
x = lin.astype(np.float64)
ok = (x != nd) & (x > 0)
db = np.full(x.shape, np.nan); db[ok] = 10 * np.log10(x[ok])
v = db[ok]
lo, hi = v.min(), v.max(); bins = 256
hist = np.bincount(np.minimum(np.floor((v - lo) * (bins / (hi - lo))).astype(int), bins - 1), minlength=bins).astype(np.float64)
width = (hi - lo) / bins; c = lo + (np.arange(bins) + 0.5) * width
w0 = np.cumsum(hist)[:-1]; s0 = np.cumsum(hist * c)[:-1]; w1 = hist.sum() - w0
with np.errstate(all='ignore'):
    between = np.where((w0 > 0) & (w1 > 0), w0 * w1 * (s0 / w0 - (hist @ c - s0) / w1) ** 2, -1)
t = lo + (int(np.argmax(between)) + 1) * width
exp = np.where(ok, (db < t).astype(np.uint8), 255)
gt = np.where(np.arange(x.shape[1])[None, :] < 45, 1, 0)
print(json.dumps({"t": t, "mismatch": int((exp != mask).sum()), "nd": mnd, "water": int((exp == 1).sum()),
  "truth_agree": float(((exp == gt) & ok).sum() / ok.sum()), "invalid": int((~ok).sum())}))
`, img, r.outputs.mask.path);
  assert.ok(Math.abs((r.stats.threshold_db as number) - ref.t) <= 1e-9 * Math.abs(ref.t), `threshold ${r.stats.threshold_db} vs numpy ${ref.t}`);
  assert.ok(ref.t > -17 && ref.t < -11, `Otsu lands between the modes: ${ref.t}`);
  assert.equal(ref.mismatch, 0, 'mask equals numpy (db < t) pixel for pixel');
  assert.equal(ref.nd, 255);
  assert.equal(ref.invalid, 9, '5 zero-power and 4 nodata pixels are nodata in the mask');
  assert.equal(r.stats.water_pixels, ref.water);
  assert.equal(r.stats.units, 'linear');
  assert.ok(ref.truth_agree > 0.98, `agreement with the true water half ${ref.truth_agree}`);
  assert.match(r.summary, /Otsu's threshold -1\d(\.\d+)? dB on linear backscatter converted to dB, \d+(\.\d+)?% of the valid pixels .* are open water, .*west/);

  // The same scene in dB with a fixed threshold: units detected from the negative values.
  const dbImg = path.join(dir, 's1_vv_db.tif');
  pyJson(PY_WRITE + `
lin, nd = read(sys.argv[1])
x = lin.astype(np.float64)
db = np.where((x != nd) & (x > 0), 10 * np.log10(np.where(x > 0, x, 1)), -9999).astype(np.float32)
write(sys.argv[2], [db], nodata=-9999)
print('{}')
`, img, dbImg);
  const g = await runTool('sar_flood_threshold', { image: dbImg, threshold_db: -15 }, { outDir: path.join(dir, 'o2') });
  const ref2 = pyJson(PY_WRITE + `
db, nd = read(sys.argv[1]); mask, _ = read(sys.argv[2])
exp = np.where(db != nd, (db.astype(np.float64) < -15).astype(np.uint8), 255)
print(json.dumps({"mismatch": int((exp != mask).sum()), "water": int((exp == 1).sum())}))
`, dbImg, g.outputs.mask.path);
  assert.equal(g.stats.units, 'db');
  assert.equal(g.stats.method, 'given');
  assert.equal(ref2.mismatch, 0);
  assert.equal(g.stats.water_pixels, ref2.water);
  await assert.rejects(runTool('sar_flood_threshold', { image: dbImg, threshold_db: 200 }, { outDir: path.join(dir, 'o3') }), /argument "threshold_db": 200 dB is outside/);
});

test('ndvi_anomaly: difference and z-score (sample std) equal numpy nanmean/nanstd(ddof=1) with nodata in target and baseline', { skip }, async () => {
  const dir = tmpDir();
  const files = pyJson(PY_WRITE + `
rng = np.random.default_rng(11)
h, w = 70, 50
out = []
for k in range(5):
    a = np.clip(0.6 + 0.1 * np.sin(np.arange(w) / 7.0)[None, :] + rng.normal(0, 0.05, (h, w)), -1, 1).astype(np.float32)
    a[rng.random((h, w)) < 0.1] = -9999
    if k == 0: a[10:20, 10:20] -= 0.3  # drought patch in the target
    if k == 0: a[10:20, 10:20][a[10:20, 10:20] < -1] = -9999
    p = sys.argv[1] + '/ndvi_%d.tif' % (2020 + k)
    write(p, [a], nodata=-9999, tiled=(k == 2))
    out.append(p)
print(json.dumps(out))
`, dir);
  const [target, ...baseline] = files as string[];
  const PY_ANOM = PY_WRITE + `
import warnings; warnings.simplefilter('ignore')
def arr(p):
    a, nd = read(p); a = a.astype(np.float64); a[a == np.float32(nd)] = np.nan; return a
t = arr(sys.argv[1]); base = np.stack([arr(p) for p in sys.argv[3:]])
n = np.sum(~np.isnan(base), axis=0)
mean = np.nanmean(base, axis=0)
mine, nd = read(sys.argv[2]); mine = mine.astype(np.float64); mine[mine == nd] = np.nan
`;
  const d = await runTool('ndvi_anomaly', { image: target, baseline }, { outDir: path.join(dir, 'd') });
  assertGrid(d.outputs.anomaly.path, 50, 70);
  const rd = pyJson(PY_ANOM + `
exp = t - mean
exp[n < 1] = np.nan
both = ~np.isnan(exp) & ~np.isnan(mine)
print(json.dumps({"max": float(np.abs(exp[both] - mine[both]).max()), "nan_mismatch": int((np.isnan(exp) != np.isnan(mine)).sum()),
  "valid": int(both.sum()), "mean": float(np.nanmean(exp)), "patch": float(np.nanmean(exp[10:20, 10:20]))}))
`, target, d.outputs.anomaly.path, ...baseline);
  assert.ok(rd.max <= 1e-6, `difference max abs error ${rd.max}`);
  assert.equal(rd.nan_mismatch, 0);
  assert.equal(d.stats.valid_pixels, rd.valid);
  assert.ok(Math.abs((d.stats.mean as number) - rd.mean) < 1e-5);
  assert.ok(rd.patch < -0.25, 'the drought patch shows as a negative anomaly');

  const z = await runTool('ndvi_anomaly', { image: target, baseline, method: 'zscore' }, { outDir: path.join(dir, 'z') });
  const rz = pyJson(PY_ANOM + `
sd = np.nanstd(base, axis=0, ddof=1)
with np.errstate(all='ignore'):
    exp = (t - mean) / sd
exp[(n < 2) | ~(sd > 0)] = np.nan
both = ~np.isnan(exp) & ~np.isnan(mine)
print(json.dumps({"maxrel": float((np.abs(exp[both] - mine[both]) / np.maximum(1, np.abs(exp[both]))).max()), "nan_mismatch": int((np.isnan(exp) != np.isnan(mine)).sum()),
  "valid": int(both.sum()), "below": int((exp[both] <= -1).sum())}))
`, target, z.outputs.anomaly.path, ...baseline);
  assert.ok(rz.maxrel <= 1e-5, `z-score max relative error ${rz.maxrel}`);
  assert.equal(rz.nan_mismatch, 0);
  assert.equal(z.stats.valid_pixels, rz.valid);
  assert.equal(z.stats.below_pixels, rz.below);
  assert.match(z.summary, /standardized anomaly averages .* σ; .* at or below −1σ/);
  await assert.rejects(runTool('ndvi_anomaly', { image: target, baseline: [baseline[0]], method: 'zscore' }, { outDir: path.join(dir, 'e') }), /argument "baseline": a z-score needs at least 2 baseline rasters/);
});

test('median_composite: equals numpy nanmedian over clear observations (masks, SCL QA band, nodata), globs, count output', { skip }, async () => {
  const dir = tmpDir();
  fs.mkdirSync(path.join(dir, 'scenes'));
  pyJson(PY_WRITE + `
rng = np.random.default_rng(3)
h, w, N = 40, 60, 6
for k in range(N):
    bands = [rng.integers(1, 3000, (h, w)).astype(np.uint16) for _ in range(3)]
    for b in bands: b[rng.random((h, w)) < 0.05] = 0
    scl = rng.choice(np.array([4, 5, 6, 3, 8, 9, 10, 0], np.uint16), size=(h, w), p=[.4, .2, .1, .06, .06, .06, .06, .06])
    scl[:, :3] = 8  # the west edge is always cloudy
    write(sys.argv[1] + '/scenes/s2_%02d.tif' % k, bands + [scl], nodata=0, dtype=gdal.GDT_UInt16, descs=['B04', 'B08', 'B11', 'SCL'])
    m = (rng.random((h, w)) < 0.2).astype(np.uint8); m[0, 0] = 255
    write(sys.argv[1] + '/scenes/mask_%02d.tif' % k, [m], nodata=255, dtype=gdal.GDT_Byte)
print('{}')
`, dir);
  const PY_MED = PY_WRITE + `
import glob, warnings; warnings.simplefilter('ignore')
scenes = sorted(glob.glob(sys.argv[1] + '/scenes/s2_*.tif')); masks = sorted(glob.glob(sys.argv[1] + '/scenes/mask_*.tif'))
use_masks = sys.argv[3] == '1'; use_qa = sys.argv[4] == '1'
comp = gdal.Open(sys.argv[2]); cnt = gdal.Open(sys.argv[5]).ReadAsArray()
res = {"max": 0.0, "nan_mismatch": 0}
for bi in range(3):
    stack = []
    for k, p in enumerate(scenes):
        d = gdal.Open(p); a = d.GetRasterBand(bi + 1).ReadAsArray().astype(np.float64); a[a == 0] = np.nan
        if use_qa:
            scl = d.GetRasterBand(4).ReadAsArray(); a[np.isin(scl, [0, 3, 8, 9, 10])] = np.nan
        if use_masks:
            m = gdal.Open(masks[k]).ReadAsArray(); a[m != 0] = np.nan
        stack.append(a)
    stack = np.stack(stack)
    exp = np.nanmedian(stack, axis=0).astype(np.float32)
    b = comp.GetRasterBand(bi + 1); mine = b.ReadAsArray().astype(np.float32); mine[mine == b.GetNoDataValue()] = np.nan
    both = ~np.isnan(exp) & ~np.isnan(mine)
    res["max"] = max(res["max"], float(np.abs(exp[both] - mine[both]).max()))
    res["nan_mismatch"] += int((np.isnan(exp) != np.isnan(mine)).sum())
    if bi == 0: res["count_mismatch"] = int((np.sum(~np.isnan(stack), axis=0) != cnt).sum()); res["empty"] = int(np.isnan(exp).sum())
res["bands"] = comp.RasterCount; res["descs"] = [comp.GetRasterBand(i + 1).GetDescription() for i in range(comp.RasterCount)]
print(json.dumps(res))
`;
  const m = await runTool('median_composite', { images: 'scenes/s2_*.tif', masks: 'scenes/mask_*.tif', qa: 'SCL' }, { outDir: path.join(dir, 'm'), cwd: dir });
  assertGrid(m.outputs.composite.path, 60, 40);
  const rm = pyJson(PY_MED, dir, m.outputs.composite.path, '1', '1', m.outputs.clear_count.path);
  assert.equal(rm.max, 0, 'composite equals float32(nanmedian) exactly');
  assert.equal(rm.nan_mismatch, 0);
  assert.equal(rm.count_mismatch, 0);
  assert.ok(rm.empty >= 40 * 3, 'the always-cloudy west edge has no composite value');
  assert.equal(rm.bands, 3, 'the SCL band is left out of the composite');
  assert.deepEqual(rm.descs, ['B04', 'B08', 'B11']);
  assert.equal(m.stats.qa_kind, 'scl');
  assert.match(m.summary, /Median of 6 scenes over 3 bands: .* after skipping \d+ flagged ones; .* west/);

  const plain = await runTool('median_composite', { images: ['scenes/s2_00.tif', 'scenes/s2_01.tif', 'scenes/s2_02.tif', 'scenes/s2_03.tif', 'scenes/s2_04.tif', 'scenes/s2_05.tif'], bands: '1,2,3' }, { outDir: path.join(dir, 'p'), cwd: dir });
  const rp = pyJson(PY_MED, dir, plain.outputs.composite.path, '0', '0', plain.outputs.clear_count.path);
  assert.equal(rp.max, 0);
  assert.equal(rp.nan_mismatch, 0);
  assert.equal(rp.count_mismatch, 0);

  await assert.rejects(runTool('median_composite', { images: 'scenes/s2_*.tif', masks: 'scenes/mask_00.tif' }, { outDir: path.join(dir, 'e'), cwd: dir }), /argument "masks" has 1 entries but "images" has 6/);
  await assert.rejects(runTool('median_composite', { images: 'scenes/none_*.tif' }, { outDir: path.join(dir, 'e'), cwd: dir }), /argument "images": ".*none_\*\.tif" matches no file/);
});

test('every manifest with a builtin runner names an engine tool, and its inputs are that tool\'s arguments', () => {
  const dir = path.resolve(__dirname, '../../../tool-manifests');
  const builtin = new Set<string>();
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.json') && !['fusion.json', 'schema.json', 'workflow.schema.json'].includes(x))) {
    const m = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
    if (m.runner?.type !== 'builtin') continue;
    builtin.add(m.id);
    const spec = getToolSpec(m.id);
    assert.ok(spec, `${f} declares a builtin runner but the engine has no tool "${m.id}"`);
    for (const inp of m.inputs ?? []) assert.ok(inp.name in spec!.params, `${f}: input "${inp.name}" is not an argument of the builtin ${m.id} (${Object.keys(spec!.params).join(', ')})`);
  }
  // The six former catalog-only tools run builtin, and readiness (what the panel and suggest show) calls them runnable.
  const catalog = loadCatalog({});
  for (const id of ['stac_search', 'median_composite', 'random_forest_classify', 'accuracy_assessment', 'sar_flood_threshold', 'ndvi_anomaly']) {
    assert.ok(builtin.has(id), `${id} runs builtin`);
    const m = catalog.tools.find((t) => t.manifest.id === id)!.manifest;
    const ex = executability(m);
    assert.equal(ex.runnable, true, `${id} is runnable`);
    assert.ok(!ex.notes.some((n) => /catalog only/.test(n)), `${id}: ${ex.notes.join('; ')}`);
  }
});

/** Python: confusion matrix and metrics of (ref, map) pairs with numpy (rows reference, columns map). */
const PY_METRICS = `
def metrics(ref, mp):
    classes = np.union1d(np.unique(ref), np.unique(mp))
    idx = {c: i for i, c in enumerate(classes)}
    cm = np.zeros((len(classes), len(classes)), np.int64)
    np.add.at(cm, (np.array([idx[v] for v in ref], int), np.array([idx[v] for v in mp], int)), 1)
    n = cm.sum(); po = np.trace(cm) / n; pe = (cm.sum(1) * cm.sum(0)).sum() / n ** 2
    with np.errstate(all='ignore'):
        prod = np.diag(cm) / cm.sum(1); user = np.diag(cm) / cm.sum(0)
    return {"classes": [float(c) for c in classes], "cm": cm.tolist(), "oa": float(po), "kappa": float((po - pe) / (1 - pe)),
            "prod": [None if np.isnan(v) else float(v) for v in prod], "user": [None if np.isnan(v) else float(v) for v in user], "n": int(n)}
`;

test('accuracy_assessment: confusion matrix, OA, producer\'s/user\'s accuracy and kappa equal numpy for a reference raster, lon/lat points and named polygons', { skip }, async () => {
  const dir = tmpDir();
  const ref = pyJson(PY_WRITE + PY_METRICS + `
rng = np.random.default_rng(5)
h, w = 60, 80
truth = np.ones((h, w), np.uint8); truth[:, 30:] = 2; truth[35:, 50:] = 3
mp = truth.copy()
flip = rng.random((h, w)) < 0.15
mp[flip] = rng.integers(1, 4, flip.sum())
mp[0:4, 0:6] = 0  # unclassified
write(sys.argv[1] + '/map.tif', [mp], nodata=0, dtype=gdal.GDT_Byte, descs=['classes: 1=water;2=forest;3=urban'])
ref = truth.copy(); ref[rng.random((h, w)) < 0.5] = 0
write(sys.argv[1] + '/ref.tif', [ref], nodata=0, dtype=gdal.GDT_Byte)
# Points: 150 pixel centres with jitter, written in lon/lat.
src = osr.SpatialReference(); src.ImportFromEPSG(32633); dst = osr.SpatialReference(); dst.ImportFromEPSG(4326)
src.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER); dst.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
ct = osr.CoordinateTransformation(src, dst)
cols = rng.integers(0, w, 150); rows = rng.integers(0, h, 150)
feats = []
for c, r in zip(cols, rows):
    X = 500000 + (c + 0.5 + rng.uniform(-0.3, 0.3)) * 10; Y = 5200000 - (r + 0.5 + rng.uniform(-0.3, 0.3)) * 10
    lon, lat, _ = ct.TransformPoint(X, Y)
    feats.append({"type": "Feature", "properties": {"cls": int(truth[r, c])}, "geometry": {"type": "Point", "coordinates": [lon, lat]}})
feats.append({"type": "Feature", "properties": {"cls": 1}, "geometry": {"type": "Point", "coordinates": [20.0, 10.0]}})  # far off the map
json.dump({"type": "FeatureCollection", "features": feats}, open(sys.argv[1] + '/points.geojson', 'w'))
# Polygons in UTM with class names, on pixel edges: (col0, row0, col1, row1, name).
boxes = [(2, 1, 20, 30, 'water'), (40, 5, 70, 25, 'forest'), (55, 40, 78, 58, 'Urban')]
pf = [{"type": "Feature", "properties": {"landcover": n}, "geometry": {"type": "Polygon", "coordinates": [[
    [500000 + c0 * 10, 5200000 - r0 * 10], [500000 + c1 * 10, 5200000 - r0 * 10], [500000 + c1 * 10, 5200000 - r1 * 10], [500000 + c0 * 10, 5200000 - r1 * 10], [500000 + c0 * 10, 5200000 - r0 * 10]]]}}
    for c0, r0, c1, r1, n in boxes]
json.dump({"type": "FeatureCollection", "crs": {"type": "name", "properties": {"name": "EPSG:32633"}}, "features": pf}, open(sys.argv[1] + '/polys.geojson', 'w'))
names = {'water': 1, 'forest': 2, 'urban': 3}
pref = np.concatenate([np.full((r1 - r0) * (c1 - c0), names[n.lower()]) for c0, r0, c1, r1, n in boxes])
pmap = np.concatenate([mp[r0:r1, c0:c1].ravel() for c0, r0, c1, r1, n in boxes])
ptref = truth[rows, cols]; ptmap = mp[rows, cols]
rr = ref[ref != 0]; rm = mp[ref != 0]
print(json.dumps({"raster": metrics(rr[rm != 0], rm[rm != 0]), "raster_uncl": int((rm == 0).sum()),
  "points": metrics(ptref[ptmap != 0], ptmap[ptmap != 0]), "points_uncl": int((ptmap == 0).sum()),
  "polys": metrics(pref[pmap != 0], pmap[pmap != 0]), "polys_uncl": int((pmap == 0).sum())}))
`, dir);
  const check = (r: Awaited<ReturnType<typeof runTool>>, exp: any, uncl: number, what: string) => {
    assert.deepEqual(r.stats.classes, exp.classes, `${what}: classes`);
    assert.deepEqual(r.stats.confusion_matrix, exp.cm, `${what}: confusion matrix`);
    assert.equal(r.stats.samples, exp.n, `${what}: samples`);
    assert.ok(Math.abs((r.stats.overall_accuracy as number) - exp.oa) < 1e-12, `${what}: OA ${r.stats.overall_accuracy} vs ${exp.oa}`);
    assert.ok(Math.abs((r.stats.kappa as number) - exp.kappa) < 1e-12, `${what}: kappa ${r.stats.kappa} vs ${exp.kappa}`);
    const per = r.stats.per_class as any[];
    per.forEach((p, k) => {
      assert.ok(exp.prod[k] === null ? p.producers_accuracy === null : Math.abs(p.producers_accuracy - exp.prod[k]) < 1e-12, `${what}: producer's ${k}`);
      assert.ok(exp.user[k] === null ? p.users_accuracy === null : Math.abs(p.users_accuracy - exp.user[k]) < 1e-12, `${what}: user's ${k}`);
    });
    assert.equal(r.stats.unclassified_samples, uncl, `${what}: unclassified`);
    const csv = fs.readFileSync(r.outputs.report.path, 'utf8').trim().split('\n');
    assert.equal(csv[0], ['reference', ...exp.classes.map((c: number) => `map_${c}`), 'total', 'producers_accuracy'].join(','));
    assert.equal(csv.length, exp.classes.length + 3);
  };
  const o = (n: string) => ({ outDir: path.join(dir, n), cwd: dir });
  const rr = await runTool('accuracy_assessment', { image: 'map.tif', reference: 'ref.tif' }, o('r'));
  check(rr, ref.raster, ref.raster_uncl, 'raster');
  assert.ok((rr.stats.overall_accuracy as number) > 0.85 && (rr.stats.overall_accuracy as number) < 0.95);
  assert.match(rr.summary, /Against \d+ reference pixels the map is \d+(\.\d+)?% correct \(kappa 0\.\d+\); the weakest class is \d \((water|forest|urban)\)/);
  const rp = await runTool('accuracy_assessment', { image: 'map.tif', reference: 'points.geojson', class_field: 'cls' }, o('p'));
  check(rp, ref.points, ref.points_uncl, 'points');
  assert.equal(rp.stats.outside_samples, 1);
  assert.equal(rp.stats.reference_kind, 'points');
  // The same points as a Shapefile (UTM, .prj) and a GeoPackage (lon/lat): the same matrix.
  execFileSync('ogr2ogr', ['-t_srs', 'EPSG:32633', path.join(dir, 'points.shp'), path.join(dir, 'points.geojson')]);
  execFileSync('ogr2ogr', ['-nln', 'samples', path.join(dir, 'points.gpkg'), path.join(dir, 'points.geojson')]);
  for (const f of ['points.shp', 'points.gpkg#samples']) {
    const r = await runTool('accuracy_assessment', { image: 'map.tif', reference: f, class_field: 'cls' }, o(f.replace(/\W/g, '_')));
    check(r, ref.points, ref.points_uncl, f);
  }
  const rg = await runTool('accuracy_assessment', { image: 'map.tif', reference: 'polys.geojson', class_field: 'landcover' }, o('g'));
  check(rg, ref.polys, ref.polys_uncl, 'polygons');
  await assert.rejects(runTool('accuracy_assessment', { image: 'map.tif', reference: 'polys.geojson', class_field: 'Landcover' }, o('e')), /argument "class_field": .*polys\.geojson has no attribute "Landcover"; did you mean "landcover"\?/);
  await assert.rejects(runTool('accuracy_assessment', { image: 'map.tif', reference: 'polys.geojson' }, o('e')), /argument "class_field" is required with reference points or polygons/);
});

test('the new runners stop on abort (mid-stack, mid-forest, mid-strip) and leave no files', async () => {
  const dir = tmpDir();
  const w = 300, h = 1100, geo = { epsg: 32633, geoTransform: [500000, 10, 0, 5200000, 0, -10] as [number, number, number, number, number, number], geographic: false };
  const rand = mulberry32(2);
  const files: string[] = [];
  for (let k = 0; k < 4; k++) {
    const bands = [0, 1, 2].map(() => Float32Array.from({ length: w * h }, () => rand()));
    const f = path.join(dir, `s${k}.tif`);
    await writeRaster(f, { width: w, height: h, bands: 3, dtype: 'float32', geo, nodata: -9999 }, bands);
    files.push(f);
  }
  const classes = path.join(dir, 'classes.tif');
  await writeRaster(classes, { width: w, height: h, bands: 1, dtype: 'uint8', geo, nodata: 0 }, [Uint8Array.from({ length: w * h }, () => 1 + Math.floor(rand() * 3))]);
  fs.writeFileSync(path.join(dir, 'train.geojson'), JSON.stringify({
    type: 'FeatureCollection', crs: { type: 'name', properties: { name: 'EPSG:32633' } },
    features: [[0, 1], [1500, 2]].map(([x, c]) => ({ type: 'Feature', properties: { c }, geometry: { type: 'Polygon', coordinates: [[[500000 + x, 5200000], [501000 + x, 5200000], [501000 + x, 5199000], [500000 + x, 5199000], [500000 + x, 5200000]]] } })),
  }));
  for (const [tool, args] of [
    ['median_composite', { images: files }],
    ['ndvi_anomaly', { image: files[0], baseline: files.slice(1) }],
    ['sar_flood_threshold', { image: files[0] }],
    ['random_forest_classify', { image: files[0], training: path.join(dir, 'train.geojson'), class_field: 'c', n_trees: 50 }],
    ['accuracy_assessment', { image: classes, reference: classes }],
  ] as [string, Record<string, unknown>][]) {
    const od = path.join(dir, `abort-${tool}`);
    const ac = new AbortController();
    let calls = 0;
    await assert.rejects(runTool(tool, args, { outDir: od, signal: ac.signal, onProgress: () => { if (++calls === 2) ac.abort(); } }), /abort/i, tool);
    assert.ok(calls >= 2 && calls < 6, `${tool}: stopped soon after the abort (${calls} progress calls)`);
    assert.deepEqual(fs.existsSync(od) ? fs.readdirSync(od) : [], [], `${tool}: no partial output`);
  }
  // A continuous raster is not a class map: refused instead of a million-class matrix.
  await assert.rejects(runTool('accuracy_assessment', { image: files[0], reference: classes }, { outDir: path.join(dir, 'cont') }), /argument "image": .*s0\.tif holds more than 1000 distinct classes; give a class map/);
});
