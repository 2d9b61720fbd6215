/** Products delivered a file per band (Landsat C2 from EarthExplorer, Sentinel-2 granules and COGs), against numpy over GDAL-read arrays. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeSampleWorkspace } from '../../src/core/raster/sample/generate';
import { runTool } from '../../src/core/raster/engine';
import { bandFileOf, sentinel2Offset, siblingBandFiles } from '../../src/core/raster/band-files';
import { gdalSkip, pyJson, PY_READ_BAND, PY_NDVI_SCALED as NDVI, splitBand as split } from '../helpers/raster-gdal';

const skip = gdalSkip('numpy/GDAL comparisons');
let dir = '';

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bandfiles-'));
  await writeSampleWorkspace(dir);
});
after(() => { if (dir) fs.rmSync(dir, { recursive: true, force: true }); });

test('band file names: Landsat C2 (8/9 and 4-7 numbering), Sentinel-2 granules and COGs; the S2 offset from baseline or date', () => {
  assert.deepEqual(bandFileOf('LC09_L2SP_123032_20240612_20240613_02_T1_SR_B5.TIF'), { product: 'lc09_l2sp_123032_20240612_20240613_02_t1_', token: 'SR_B5', role: 'nir', sensor: 'landsat89_c2l2' });
  assert.equal(bandFileOf('LE07_L2SP_123032_20020612_20200916_02_T1_SR_B4.TIF')?.role, 'nir', 'band 4 is NIR on Landsat 4-7');
  assert.equal(bandFileOf('LE07_L2SP_123032_20020612_20200916_02_T1_ST_B6.TIF')?.role, 'thermal');
  assert.equal(bandFileOf('T33UUP_20240612T100031_B04_10m.tif')?.role, 'red');
  assert.equal(bandFileOf('T33UUP_20240612T100031_B04_10m.tif')?.sensor, 'sentinel2_l2a');
  assert.equal(bandFileOf('B08.tif')?.role, 'nir');
  assert.equal(bandFileOf('T33UUP_20240612T100031_SCL_20m.tif')?.role, 'qa');
  assert.equal(bandFileOf('dem_B04_final.tif'), undefined);
  assert.equal(bandFileOf('s2_scene.tif'), undefined);
  assert.equal(sentinel2Offset('S2B_MSIL2A_20210612T100031_N0500_R122_T33UUP_20230101T000000.SAFE/T33UUP_20210612T100031_B04_10m.tif')?.offset, -1000, 'the baseline wins over the date (reprocessed collection)');
  assert.equal(sentinel2Offset('S2A_MSIL2A_20210612T100031_N0300_R122_T33UUP/B04.tif')?.offset, 0);
  assert.equal(sentinel2Offset('T33UUP_20211231T100031_B04_10m.tif')?.offset, 0);
  assert.equal(sentinel2Offset('T33UUP_20220612T100031_B04_10m.tif')?.offset, -1000);
  assert.equal(sentinel2Offset('B04.tif'), undefined);
  assert.equal(sentinel2Offset('S2B_33UUP_20240612_0_L2A/B04.tif')?.offset, -1000, 'an Earth Search item folder');
});

test('a SAFE granule: the finest resolution that holds every band a tool needs (NDVI at 10 m, NDMI from R20m B8A + B11)', () => {
  const g = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-safe-'));
  try {
    const files = { R10m: ['B02', 'B03', 'B04', 'B08'], R20m: ['B02', 'B03', 'B04', 'B05', 'B8A', 'B11', 'B12', 'SCL'], R60m: ['B01', 'B8A', 'B11'] };
    for (const [d, bands] of Object.entries(files)) {
      fs.mkdirSync(path.join(g, d));
      for (const b of bands) fs.writeFileSync(path.join(g, d, `T33UUP_20240612T100031_${b}_${d.slice(1)}.tif`), '');
    }
    const from = path.join(g, 'R10m', 'T33UUP_20240612T100031_B04_10m.tif');
    const base = (r: Record<string, string>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, path.relative(g, v)]));
    const ndvi = base(siblingBandFiles(from, ['red', 'nir']));
    assert.equal(ndvi.red, path.join('R10m', 'T33UUP_20240612T100031_B04_10m.tif'));
    assert.equal(ndvi.nir, path.join('R10m', 'T33UUP_20240612T100031_B08_10m.tif'));
    const ndmi = base(siblingBandFiles(from, ['nir', 'swir1']));
    assert.equal(ndmi.nir, path.join('R20m', 'T33UUP_20240612T100031_B8A_20m.tif'));
    assert.equal(ndmi.swir1, path.join('R20m', 'T33UUP_20240612T100031_B11_20m.tif'));
  } finally {
    fs.rmSync(g, { recursive: true, force: true });
  }
});

test('an L1C granule (every band at its own resolution, none named): NDMI takes B8A beside B11, NDVI the 10 m bands', () => {
  const g = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-l1c-'));
  try {
    for (const b of ['B01', 'B02', 'B03', 'B04', 'B05', 'B06', 'B07', 'B08', 'B8A', 'B09', 'B10', 'B11', 'B12']) fs.writeFileSync(path.join(g, `T33UUP_20240612T100031_${b}.jp2`), '');
    const from = path.join(g, 'T33UUP_20240612T100031_B04.jp2');
    const ndvi = siblingBandFiles(from, ['red', 'nir']);
    assert.deepEqual([path.basename(ndvi.red), path.basename(ndvi.nir)], ['T33UUP_20240612T100031_B04.jp2', 'T33UUP_20240612T100031_B08.jp2']);
    const ndmi = siblingBandFiles(from, ['nir', 'swir1']);
    assert.deepEqual([path.basename(ndmi.nir), path.basename(ndmi.swir1)], ['T33UUP_20240612T100031_B8A.jp2', 'T33UUP_20240612T100031_B11.jp2']);
  } finally {
    fs.rmSync(g, { recursive: true, force: true });
  }
});

test('Landsat C2 L2 delivered a file per band: NDVI from one band file, the folder, or red=/nir= files, scaled as C2 (numpy)', { skip }, async () => {
  const src = path.join(dir, 'thermal_landsat.tif');
  const scene = path.join(dir, 'LC09_L2SP_123032_20240612_20240613_02_T1');
  const stem = path.join(scene, 'LC09_L2SP_123032_20240612_20240613_02_T1_');
  split(src, 4, `${stem}SR_B4.TIF`);
  split(src, 5, `${stem}SR_B5.TIF`);
  split(src, 3, `${stem}SR_B3.TIF`);
  const runs = [
    await runTool('ndvi', { image: `${stem}SR_B4.TIF` }, { outDir: path.join(dir, 'o', 'one'), cwd: dir }),
    await runTool('ndvi', { image: scene }, { outDir: path.join(dir, 'o', 'folder'), cwd: dir }),
    await runTool('ndvi', { red: `${stem}SR_B4.TIF`, nir: `${stem}SR_B5.TIF` }, { outDir: path.join(dir, 'o', 'args'), cwd: dir }),
  ];
  for (const r of runs) {
    const out = Object.values(r.outputs)[0].path;
    const d = pyJson(NDVI, `${stem}SR_B4.TIF`, `${stem}SR_B5.TIF`, out, '0.0000275', '-0.2');
    assert.ok(d.n > 1000 && d.max < 1e-5, `NDVI equals numpy with C2 scaling (max diff ${d.max} over ${d.n} pixels)`);
    const bands = r.stats.bands as Record<string, { file: string; how: string }>;
    assert.match(bands.nir.file, /_SR_B5\.TIF$/);
    assert.match(bands.nir.how, /Landsat C2 L2 reflectance/);
  }
  // The QA band as its own file is read as QA_PIXEL by its name: cloud, shadow, cirrus and dilated-cloud bits 1-4 (numpy).
  split(src, 9, `${stem}QA_PIXEL.TIF`);
  const cm = await runTool('cloud_mask', { image: `${stem}QA_PIXEL.TIF` }, { outDir: path.join(dir, 'o', 'qa'), cwd: dir });
  const q = pyJson(PY_READ_BAND + `
qa, _ = read(sys.argv[1]); m, mnd = read(sys.argv[2])
ok = m != mnd
ref = ((qa.astype(np.int64) >> 1) & 0b1111) != 0
print(json.dumps({"diff": int((ref[ok] != (m[ok] == 1)).sum()), "n": int(ok.sum()), "set": int((m[ok] == 1).sum())}))
`, `${stem}QA_PIXEL.TIF`, cm.outputs.mask.path);
  assert.ok(q.n > 1000 && q.set > 0 && q.diff === 0, `cloud mask equals the QA bits (${q.diff} of ${q.n} differ, ${q.set} set)`);
  // A scene folder with a missing band says which file it looked for.
  fs.rmSync(`${stem}SR_B5.TIF`);
  await assert.rejects(runTool('ndvi', { image: `${stem}SR_B4.TIF` }, { outDir: path.join(dir, 'o', 'x'), cwd: dir }),
    /SR_B4 \(red\) of a Landsat 8\/9 .*no file of that product for nir/);
  // Files under a role and an image at once are refused with what to do.
  await assert.rejects(runTool('ndvi', { image: src, red: `${stem}SR_B4.TIF` }, { outDir: path.join(dir, 'o', 'y'), cwd: dir }),
    /give either one image with band numbers .* or every band as a file/);
});

test('Sentinel-2 band files: the BOA offset comes off for baseline 04.00 data and stays on for harmonised exports (numpy)', { skip }, async () => {
  const src = path.join(dir, 's2_scene.tif');
  // s2_scene.tif holds blue, green, red, rededge, nir, ...: red is band 3, NIR band 5.
  const withOffset = path.join(dir, 'GRANULE', 'IMG_DATA', 'R10m');
  split(src, 3, path.join(withOffset, 'T50TMK_20240612T030539_B04_10m.tif'), 1000);
  split(src, 5, path.join(withOffset, 'T50TMK_20240612T030539_B08_10m.tif'), 1000);
  const a = await runTool('ndvi', { image: withOffset }, { outDir: path.join(dir, 'o', 's2a'), cwd: dir });
  const d1 = pyJson(NDVI, path.join(withOffset, 'T50TMK_20240612T030539_B04_10m.tif'), path.join(withOffset, 'T50TMK_20240612T030539_B08_10m.tif'),
    Object.values(a.outputs)[0].path, '0.0001', '-0.1');
  assert.ok(d1.n > 1000 && d1.max < 1e-5, `NDVI of (DN − 1000)/10000 equals numpy (max diff ${d1.max})`);
  assert.match((a.stats.bands as Record<string, { how: string }>).red.how, /\(DN − 1000\)\/10000, sensed 20240612/);
  // The same names on data without the offset (an Earth Engine harmonised export): DN/10000, and said so.
  const harmonised = path.join(dir, 'gee');
  split(src, 3, path.join(harmonised, 'T50TMK_20240612T030539_B04.tif'));
  split(src, 5, path.join(harmonised, 'T50TMK_20240612T030539_B08.tif'));
  const b = await runTool('ndvi', { image: path.join(harmonised, 'T50TMK_20240612T030539_B08.tif') }, { outDir: path.join(dir, 'o', 's2b'), cwd: dir });
  const d2 = pyJson(NDVI, path.join(harmonised, 'T50TMK_20240612T030539_B04.tif'), path.join(harmonised, 'T50TMK_20240612T030539_B08.tif'),
    Object.values(b.outputs)[0].path, '0.0001', '0');
  assert.ok(d2.n > 1000 && d2.max < 1e-5, `NDVI of DN/10000 equals numpy (max diff ${d2.max})`);
  assert.match((b.stats.bands as Record<string, { how: string }>).red.how, /read as harmonised/);
});
