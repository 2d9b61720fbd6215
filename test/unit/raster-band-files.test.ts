/** Products delivered a file per band (Landsat C2 from EarthExplorer, Sentinel-2 granules and COGs), against numpy over GDAL-read arrays. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeSampleWorkspace } from '../../src/core/raster/sample/generate';
import { runTool } from '../../src/core/raster/engine';
import { bandFileOf, productInFolder, sentinel2Offset, siblingBandFiles } from '../../src/core/raster/band-files';
import { writeRaster } from '../../src/core/raster/io/writer';
import { cellErrorMessage } from '../../src/core/notebook/cell-errors';
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

test('a SAFE folder as image: the finest resolution that holds every band the tool needs, as for a band file (MNDWI from R20m, NDVI from R10m)', () => {
  const g = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-safe-folder-'));
  try {
    const files = { R10m: ['B02', 'B03', 'B04', 'B08'], R20m: ['B02', 'B03', 'B04', 'B8A', 'B11', 'B12', 'SCL'] };
    for (const [d, bands] of Object.entries(files)) {
      fs.mkdirSync(path.join(g, 'IMG_DATA', d), { recursive: true });
      for (const b of bands) fs.writeFileSync(path.join(g, 'IMG_DATA', d, `T33UUP_20240612T100031_${b}_${d.slice(1)}.tif`), '');
    }
    const rel = (r: Record<string, string>, role: string) => path.relative(path.join(g, 'IMG_DATA'), r[role]);
    const mndwi = productInFolder(path.join(g, 'IMG_DATA'), ['green', 'swir1']);
    assert.equal(rel(mndwi, 'green'), path.join('R20m', 'T33UUP_20240612T100031_B03_20m.tif'), 'green from R20m beside B11, not R10m on another grid');
    assert.equal(rel(mndwi, 'swir1'), path.join('R20m', 'T33UUP_20240612T100031_B11_20m.tif'));
    const ndvi = productInFolder(path.join(g, 'IMG_DATA'), ['red', 'nir']);
    assert.equal(rel(ndvi, 'red'), path.join('R10m', 'T33UUP_20240612T100031_B04_10m.tif'));
    assert.equal(rel(ndvi, 'nir'), path.join('R10m', 'T33UUP_20240612T100031_B08_10m.tif'));
  } finally {
    fs.rmSync(g, { recursive: true, force: true });
  }
});

/** A Sentinel-2 L2A band as GeoTIFF on a `res` m grid over the same 640 m square, values from `f(col, row)` in 10 m cells. */
async function s2Band(file: string, res: number, f: (c: number, r: number) => number): Promise<void> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const n = 640 / res, k = res / 10;
  const v = Uint16Array.from({ length: n * n }, (_, i) => f((i % n) * k, Math.floor(i / n) * k));
  await writeRaster(file, { width: n, height: n, bands: 1, dtype: 'uint16', geo: { geoTransform: [600000, res, 0, 5010240, 0, -res], epsg: 32632, geographic: false }, nodata: 0 }, [v]);
}

test('MNDWI on a SAFE-like folder runs at 20 m; a folder with green only at 10 m and SWIR1 only at 20 m says how to put them on one grid, in cell syntax and in Chinese', async () => {
  const g = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-s2-grids-'));
  // Water (green 1000, SWIR1 150) in the west half, soil (green 1500, SWIR1 3000) in the east: harmonised DNs (below 1000 occur).
  const green = (c: number) => (c < 32 ? 1000 : 1500), swir = (c: number) => (c < 32 ? 150 : 3000);
  try {
    const img = path.join(g, 'IMG_DATA');
    await s2Band(path.join(img, 'R10m', 'T32TNR_20240715T102559_B03_10m.tif'), 10, green);
    await s2Band(path.join(img, 'R20m', 'T32TNR_20240715T102559_B03_20m.tif'), 20, green);
    await s2Band(path.join(img, 'R20m', 'T32TNR_20240715T102559_B11_20m.tif'), 20, swir);
    const r = await runTool('mndwi', { image: img }, { outDir: path.join(g, 'o1'), cwd: g });
    const bands = r.stats.bands as Record<string, { file: string }>;
    assert.match(bands.green.file, /R20m.*_B03_20m\.tif$/);
    assert.ok(Math.abs((r.stats.mean as number) - ((1000 - 150) / 1150 + (1500 - 3000) / 4500) / 2) < 1e-3, `MNDWI mean of half water, half soil (${r.stats.mean})`);
    // A download of the 10 m bands and B11 only: refused before the run with what to do.
    const only = path.join(g, 'download');
    await s2Band(path.join(only, 'T32TNR_20240715T102559_B03_10m.tif'), 10, green);
    await s2Band(path.join(only, 'T32TNR_20240715T102559_B11_20m.tif'), 20, swir);
    const err = await runTool('mndwi', { image: only }, { outDir: path.join(g, 'o2'), cwd: g }).then(() => undefined, (e: Error) => e);
    assert.ok(err, 'MNDWI of 10 m green and 20 m SWIR1 is refused');
    const en = cellErrorMessage(err, 'en');
    assert.match(en, /band files of download are not on one grid \(green T32TNR_20240715T102559_B03_10m\.tif at 10 m, swir1 T32TNR_20240715T102559_B11_20m\.tif at 20 m\)/);
    assert.match(en, /align image=T32TNR_20240715T102559_B11_20m\.tif reference=T32TNR_20240715T102559_B03_10m\.tif/);
    assert.match(en, /a line `swir1: <T32TNR_20240715T102559_B11_20m\.tif aligned>` and a line `sensor: sentinel2_l2a`/);
    const zh = cellErrorMessage(err, 'zh');
    assert.match(zh, /download 的波段文件不在同一网格上/);
    assert.match(zh, /在单元格中加上 `green: .*`、`swir1: <T32TNR_20240715T102559_B11_20m\.tif aligned>`、`sensor: sentinel2_l2a`/);
    assert.doesNotMatch(zh, /not on one grid|put the product/);
    // Following that advice: B11 aligned (float DNs, a name that no longer says B11), and both bands as files.
    const al = await runTool('align', { image: path.join(only, 'T32TNR_20240715T102559_B11_20m.tif'), reference: path.join(only, 'T32TNR_20240715T102559_B03_10m.tif'), resampling: 'bilinear' }, { outDir: path.join(g, 'al'), cwd: g });
    const files = { green: path.join(only, 'T32TNR_20240715T102559_B03_10m.tif'), swir1: Object.values(al.outputs)[0].path };
    // Without the sensor line the aligned band would be read raw beside a green in reflectance: MNDWI −1 everywhere.
    const mixed = await runTool('mndwi', files, { outDir: path.join(g, 'o3'), cwd: g }).then(() => undefined, (e: Error) => e);
    assert.ok(mixed, 'a band scaled by its name beside raw DNs is refused, not computed');
    assert.match(cellErrorMessage(mixed, 'en'), /not in one unit: green \(T32TNR_20240715T102559_B03_10m\.tif\) is read as Sentinel-2 L2A reflectance by its file name, swir1 \(.*aligned\.tif\) as the raw values it holds.*add a line `sensor: sentinel2_l2a`/);
    assert.match(cellErrorMessage(mixed, 'zh'), /^各波段的单位不一致：green（T32TNR_20240715T102559_B03_10m\.tif）.*`sensor: sentinel2_l2a`/);
    const ok = await runTool('mndwi', { ...files, sensor: 'sentinel2_l2a' }, { outDir: path.join(g, 'o4'), cwd: g });
    assert.ok(Math.abs((ok.stats.mean as number) - ((1000 - 150) / 1150 + (1500 - 3000) / 4500) / 2) < 0.02, `MNDWI after the align step (${ok.stats.mean})`);
  } finally {
    fs.rmSync(g, { recursive: true, force: true });
  }
});
