/** Random forest: CART/Gini properties by hand, and random_forest_classify on a separable scene checked with numpy over GDAL-read arrays. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { trainForest, predictForest, predictTree } from '../../src/core/raster/algorithms/random-forest';
import { mulberry32 } from '../../src/core/raster/algorithms/prng';
import { runTool } from '../../src/core/raster/engine';
import { gdalSkip, pyJson, PY_READ_BAND, tmpDir } from '../helpers/raster-gdal';

const skip = gdalSkip('numpy/GDAL comparisons of random_forest_classify');

/** n samples of F uniform features with labels from `label`. */
function data(n: number, F: number, seed: number, label: (x: number[]) => number): { X: Float32Array[]; y: Int32Array } {
  const r = mulberry32(seed);
  const X = Array.from({ length: F }, () => new Float32Array(n));
  const y = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const x = X.map((c) => (c[i] = Math.fround(r())));
    y[i] = label(x);
  }
  return { X, y };
}

test('a Gini split sits at the midpoint between the classes; a single unbootstrapped deep tree reproduces its (random) training labels', () => {
  const X = [Float32Array.from([1, 2, 3, 10, 11, 12])];
  const y = Int32Array.from([0, 0, 0, 1, 1, 1]);
  const f = trainForest(X, y, 2, { nTrees: 1, bootstrap: false, seed: 1 });
  assert.equal(f.trees[0].feature[0], 0);
  assert.equal(f.trees[0].threshold[0], 6.5);
  assert.equal(f.trees[0].feature.length, 3, 'one split, two pure leaves');
  // Labels that are pure noise: only memorising every sample gets them all.
  const r = mulberry32(9);
  const d = data(600, 4, 2, () => Math.floor(r() * 4));
  const one = trainForest(d.X, d.y, 4, { nTrees: 1, bootstrap: false, mtry: 4, seed: 3 });
  const pred = predictForest(one, d.X, 600);
  assert.deepEqual([...pred], [...d.y]);
  // Also with mtry = 1: features that cannot split are skipped for others, so leaves still end pure.
  const one1 = trainForest(d.X, d.y, 4, { nTrees: 1, bootstrap: false, mtry: 1, seed: 4 });
  assert.deepEqual([...predictForest(one1, d.X, 600)], [...d.y]);
  // max_depth 1 is a stump: three nodes.
  assert.equal(trainForest(d.X, d.y, 4, { nTrees: 1, bootstrap: false, maxDepth: 1, seed: 1 }).trees[0].feature.length, 3);
});

test('the forest predicts the majority vote of its trees (ties to the lowest class); a seed makes it deterministic; OOB accuracy is high on separable data', () => {
  const label = (x: number[]) => (x[0] + 0.3 * x[1] > 0.8 ? 2 : x[2] > 0.5 ? 1 : 0);
  const d = data(800, 5, 5, label);
  const f = trainForest(d.X, d.y, 3, { nTrees: 25, seed: 7 });
  const test_ = data(2000, 5, 6, label);
  const pred = predictForest(f, test_.X, 2000);
  let ties = 0, right = 0;
  for (let i = 0; i < 2000; i++) {
    const votes = [0, 0, 0];
    for (const t of f.trees) votes[predictTree(t, (k) => test_.X[k][i])]++;
    const max = Math.max(...votes);
    if (votes.filter((v) => v === max).length > 1) ties++;
    assert.equal(pred[i], votes.indexOf(max), `sample ${i}: votes ${votes}`);
    if (pred[i] === test_.y[i]) right++;
  }
  assert.ok(right / 2000 > 0.95, `held-out accuracy ${right / 2000}`);
  assert.ok(f.oobAccuracy! > 0.93 && f.oobSamples > 780, `OOB ${f.oobAccuracy} over ${f.oobSamples}`);
  assert.equal(f.mtry, 2, '⌊√5⌋ features per split');
  const g = trainForest(d.X, d.y, 3, { nTrees: 25, seed: 7 });
  assert.deepEqual(g.trees.map((t) => [...t.threshold]), f.trees.map((t) => [...t.threshold]));
  const h = trainForest(d.X, d.y, 3, { nTrees: 25, seed: 8 });
  assert.notDeepEqual(h.trees.map((t) => [...t.threshold]), f.trees.map((t) => [...t.threshold]));
  void ties;
  // A tie by hand: two one-leaf trees voting 2 and 1 give class 1.
  const leaf = (c: number) => ({ feature: Int32Array.of(-1), threshold: Float64Array.of(0), left: Int32Array.of(-1), right: Int32Array.of(-1), value: Int32Array.of(c) });
  const tie = predictForest({ trees: [leaf(2), leaf(1)], nFeatures: 1, nClasses: 3, mtry: 1, oobAccuracy: null, oobSamples: 0 }, [Float32Array.of(0)], 1);
  assert.equal(tie[0], 1);
  const ab = new AbortController(); ab.abort();
  assert.throws(() => trainForest(d.X, d.y, 3, { nTrees: 5, seed: 1, signal: ab.signal }));
});

test('random_forest_classify: ≥ 97% agreement with the true classes of a separable scene (numpy), training pixels from a Shapefile, deterministic with a seed', { skip }, async () => {
  const dir = tmpDir();
  pyJson(PY_READ_BAND + `
from osgeo import osr
rng = np.random.default_rng(21)
h, w = 90, 120
truth = np.ones((h, w), np.uint8)
yy, xx = np.mgrid[0:h, 0:w]
truth[(xx - 80) ** 2 + (yy - 30) ** 2 < 25 ** 2] = 2
truth[yy > 65] = 3
means = {1: [0.05, 0.08, 0.04, 0.30], 2: [0.03, 0.06, 0.03, 0.45], 3: [0.10, 0.12, 0.14, 0.18]}
bands = np.zeros((4, h, w), np.float32)
for c, m in means.items():
    for b in range(4):
        bands[b][truth == c] = m[b] + rng.normal(0, 0.012, (truth == c).sum())
bands[:, 0, 0:7] = -9999
d = gdal.GetDriverByName('GTiff').Create(sys.argv[1] + '/scene.tif', w, h, 4, gdal.GDT_Float32)
d.SetGeoTransform((500000, 10, 0, 5200000, 0, -10)); s = osr.SpatialReference(); s.ImportFromEPSG(32633); d.SetProjection(s.ExportToWkt())
for b in range(4):
    d.GetRasterBand(b + 1).SetNoDataValue(-9999); d.GetRasterBand(b + 1).SetDescription(['blue', 'green', 'red', 'nir'][b]); d.GetRasterBand(b + 1).WriteArray(bands[b])
d = None
truthds = gdal.GetDriverByName('GTiff').Create(sys.argv[1] + '/truth.tif', w, h, 1, gdal.GDT_Byte)
truthds.SetGeoTransform((500000, 10, 0, 5200000, 0, -10)); truthds.SetProjection(s.ExportToWkt()); truthds.GetRasterBand(1).WriteArray(truth); truthds = None
def box(c0, r0, c1, r1, name):
    X0, X1, Y0, Y1 = 500000 + c0 * 10, 500000 + c1 * 10, 5200000 - r0 * 10, 5200000 - r1 * 10
    return {"type": "Feature", "properties": {"cover": name}, "geometry": {"type": "Polygon", "coordinates": [[[X0, Y0], [X1, Y0], [X1, Y1], [X0, Y1], [X0, Y0]]]}}
feats = [box(5, 5, 25, 25, 'grass'), box(20, 40, 40, 55, 'grass'), box(72, 22, 88, 38, 'forest'), box(10, 72, 40, 85, 'urban'), box(90, 70, 115, 88, 'urban')]
json.dump({"type": "FeatureCollection", "crs": {"type": "name", "properties": {"name": "EPSG:32633"}}, "features": feats}, open(sys.argv[1] + '/train.geojson', 'w'))
print('{}')
`, dir);
  execFileSync('ogr2ogr', [path.join(dir, 'train.shp'), path.join(dir, 'train.geojson')]);
  const o = (n: string) => ({ outDir: path.join(dir, n), cwd: dir });
  const a = await runTool('random_forest_classify', { image: 'scene.tif', training: 'train.shp', class_field: 'cover', n_trees: 30, seed: 4 }, o('a'));
  const b = await runTool('random_forest_classify', { image: 'scene.tif', training: 'train.shp', class_field: 'cover', n_trees: 30, seed: 4 }, o('b'));
  const r = pyJson(PY_READ_BAND + `
a, nd = read(sys.argv[1]); b, _ = read(sys.argv[2]); truth, _ = read(sys.argv[3])
ds = gdal.Open(sys.argv[1]); desc = ds.GetRasterBand(1).GetDescription()
code = {'forest': 1, 'grass': 2, 'urban': 3}  # names numbered alphabetically
want = np.select([truth == 1, truth == 2, truth == 3], [code['grass'], code['forest'], code['urban']])
valid = a != 0
print(json.dumps({"agree": float((a[valid] == want[valid]).mean()), "same": bool((a == b).all()), "nodata": nd, "zeros": int((a == 0).sum()),
  "zeros_where": int((a[0, 0:7] == 0).sum()), "desc": desc, "counts": {str(c): int((a == c).sum()) for c in (1, 2, 3)}}))
`, a.outputs.classes.path, b.outputs.classes.path, path.join(dir, 'truth.tif'));
  assert.ok(r.agree >= 0.97, `agreement with the true classes ${r.agree}`);
  assert.equal(r.same, true, 'the same seed gives the same map');
  assert.equal(r.nodata, 0);
  assert.equal(r.zeros, 7, 'only the 7 nodata pixels are unclassified');
  assert.equal(r.zeros_where, 7);
  assert.equal(r.desc, 'classes: 1=forest;2=grass;3=urban');
  const table = a.stats.classes as any[];
  for (const row of table) assert.equal(row.pixels, r.counts[String(row.class)], `class ${row.class} pixel count`);
  assert.ok((a.stats.oob_accuracy as number) > 0.97, `OOB ${a.stats.oob_accuracy}`);
  assert.equal(a.stats.mtry, 2);
  assert.match(a.summary, /A random forest of 30 trees over 4 bands, trained on \d+ pixels of 3 classes \(out-of-bag accuracy \d+(\.\d+)?%\), maps grass \(2\) as the largest class/);
  // Chained: accuracy_assessment of the map against reference polygons named like the classes.
  const acc = await runTool('accuracy_assessment', { image: a.outputs.classes.path, reference: 'train.geojson', class_field: 'cover' }, o('acc'));
  assert.ok((acc.stats.overall_accuracy as number) > 0.99);
  await assert.rejects(runTool('random_forest_classify', { image: 'scene.tif', training: 'train.shp', class_field: 'kind' }, o('e')), /argument "class_field": .*train\.shp has no attribute "kind"/);
});
