/**
 * MODIS and VIIRS surface-reflectance files read whole as one multi-band scene
 * (io/reflectance-scene.ts): a MOD09A1-like HDF4 tile (sur_refl_b01…b07 int16, scale 0.0001, fill
 * −28672, valid_range −100 16000, with QA and state fields) and a VNP09GA-like HDF-EOS5 file (I bands
 * on a 500 m grid, M bands on a 1 km grid), an MCD43A4-like NBAR tile (Nadir_Reflectance_Band1…7
 * beside the quality fields that are not stacked) and a MOD13Q1-like tile (red, NIR, blue and MIR
 * reflectance, scale_factor 10000 as a divisor, beside NDVI, EVI, quality and angles), written at
 * test time by the HDF-EOS libraries. Band roles
 * come from the MODIS/VIIRS band table; NDVI from the whole file equals numpy's NDVI of GDAL's
 * reading of the b01/b02 subdatasets (fill masked, scale applied); the scan lists the scene beside
 * its fields and readiness finds red and NIR in it; a damaged or incomplete file is refused naming
 * the file and what to do.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { RasterError, openRaster } from '../../src/core/raster/io/dataset';
import { runTool } from '../../src/core/raster/engine';
import { scanDataFolder } from '../../src/core/data/scan';
import { executability } from '../../src/core/retrieval/executability';
import { rasterFileView } from '../../src/core/results/raster-view';
import { localizeSummary } from '../../src/core/results/summary-language';
import { reflectanceBand } from '../../src/core/raster/reflectance-bands';
import { sceneFields } from '../../src/core/raster/io/reflectance-scene';
import { Hdf4File } from '../../src/core/raster/io/hdf4-file';
import type { ToolManifest } from '../../src/core/manifests/types';
import * as fs from 'node:fs';
import { gdalSkip, py, pyJson, tmpDir } from '../helpers/raster-gdal';
import { type EosFieldSpec, type EosGridSpec, hdf4LibsMissing, writeHdf4 } from '../helpers/hdf4-writer';
import { type He5FieldSpec, he5LibMissing, writeHe5 } from '../helpers/he5-writer';

function skipWhy(what: string, libs: () => string | null): string | false {
  const gdal = gdalSkip(what);
  if (gdal) return gdal;
  const missing = libs();
  if (!missing) return false;
  if (process.env.CI) throw new Error(`HDF-EOS library required in CI: ${missing}`);
  return `${missing}: skipping ${what}`;
}

const MOD09_GRID = 'MOD_Grid_500m_Surface_Reflectance';
const W = 80, H = 60;
/** A reflectance field as MOD09 writes it: int16 DN, scale 0.0001, fill −28672, valid range −100..16000. */
function surRefl(band: number, expr: string, over: Partial<EosFieldSpec> = {}): EosFieldSpec {
  return {
    name: `sur_refl_b0${band}`, dims: 'YDim,XDim', type: 'int16', shape: [H, W], tile: [30, 40], comp: 4, fill: -28672, expr,
    attrs: {
      long_name: `Surface_reflectance_for_band_${band}`, units: 'reflectance', valid_range: ['int16', [-100, 16000]],
      scale_factor: ['float64', [0.0001]], scale_factor_err: ['float64', [0]], add_offset: ['float64', [0]], add_offset_err: ['float64', [0]], calibrated_nt: ['int32', [5]],
    },
    ...over,
  };
}
/**
 * Red and NIR with fill holes where a clear tile has them, values a vegetated scene has, and some
 * outside valid_range (−150 in red, 20000 in NIR: not measurements, which GDAL's HDF4 reading passes on).
 */
const RED = 'np.where(i % 53 == 7, -28672, np.where(i % 89 == 11, -150, 300 + (i * 37) % 2500))';
const NIR = 'np.where(i % 61 == 3, -28672, np.where(i % 83 == 5, 20000, 1500 + (i * 91) % 5000))';

/** A MOD09A1-like h18v04 tile (MODIS's sphere), small; `bands` picks the reflectance fields written. */
function mod09Spec(file: string, bands = [1, 2, 3, 4, 5, 6, 7], tweak: (f: EosFieldSpec) => EosFieldSpec = (f) => f): { file: string; grids: EosGridSpec[] } {
  const exprs: Record<number, string> = { 1: RED, 2: NIR, 3: '200 + (i * 13) % 900', 4: '400 + (i * 17) % 1200', 5: '2000 + (i * 19) % 3000', 6: '1000 + (i * 23) % 3000', 7: '500 + (i * 29) % 2500' };
  return {
    file,
    grids: [{
      name: MOD09_GRID, xdim: W, ydim: H, ul: [1111950.519667, 5559752.598333], lr: [2223901.039333, 4447802.078667],
      proj: 'SNSOID', sphere: -1, params: [6371007.181], dims: { YDim2: H / 2, XDim2: W / 2 },
      fields: [
        ...bands.map((b) => tweak(surRefl(b, exprs[b]))),
        { name: 'sur_refl_qc_500m', dims: 'YDim,XDim', type: 'uint32', shape: [H, W], tile: [30, 40], comp: 4, fill: 787410671, expr: '(i * 2654435761) % 4294967296', attrs: { long_name: '500m Reflectance Band Quality', units: 'bit field' } },
        { name: 'sur_refl_state_500m', dims: 'YDim,XDim', type: 'uint16', shape: [H, W], tile: [30, 40], comp: 4, fill: 65535, expr: 'np.where(i % 97 == 1, 65535, (i * 7) % 4096)', attrs: { long_name: '500m State flags', units: 'bit field' } },
      ],
    }],
  };
}

const manifest = (id: string) => JSON.parse(fs.readFileSync(path.join(__dirname, '../../../tool-manifests', `${id}.json`), 'utf8')) as ToolManifest;

/**
 * numpy's NDVI of GDAL's reading of the red and NIR subdatasets (fill and values outside valid_range
 * masked, DN × scale) against our output: max |diff|, pixels compared, nodata agreement, and how many
 * values outside the valid range GDAL passed on (a check that the masking is tested).
 */
const PY_NDVI = `
import sys, json, re, numpy as np
from osgeo import gdal
keep = []
def scale(d, b):
    # GDAL's HDF4 driver reports scale_factor as the band's scale; its HDF5 driver only as metadata.
    if b.GetScale() not in (None, 1.0): return b.GetScale()
    md = {**d.GetMetadata(), **b.GetMetadata()}
    return float(next(v for k, v in md.items() if k.endswith('scale_factor')))
def valid_range(d, b):
    md = {**d.GetMetadata(), **b.GetMetadata()}
    return [float(x) for x in re.findall(r'-?\\d+', next(v for k, v in md.items() if k.endswith('valid_range')))]
outside = 0
def band(name):
    global outside
    d = gdal.Open(name); keep.append(d); b = d.GetRasterBand(1); a = b.ReadAsArray().astype(np.float64)
    lo, hi = valid_range(d, b); fill = a == b.GetNoDataValue()
    outside += int(((a < lo) | (a > hi))[~fill].sum())
    return a * scale(d, b), ~fill & (a >= lo) & (a <= hi), scale(d, b)
red, rok, s = band(sys.argv[1]); nir, nok, _ = band(sys.argv[2])
od = gdal.Open(sys.argv[3]); keep.append(od); o = od.GetRasterBand(1); out = o.ReadAsArray().astype(np.float64)
valid = rok & nok & (nir + red != 0)
ours = out != o.GetNoDataValue() if o.GetNoDataValue() is not None else ~np.isnan(out)
ref = (nir - red) / (nir + red)
print(json.dumps({"max": float(np.abs(ref[valid] - out[valid]).max()), "n": int(valid.sum()), "sameMask": bool((ours == valid).all()), "scale": s, "outside": outside}))
`;

test('the MODIS and VIIRS band tables: MOD09 and VNP09 field names give their band and role, others none', () => {
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7].map((b) => reflectanceBand(`sur_refl_b0${b}`)?.role ?? null), ['red', 'nir', 'blue', 'green', null, 'swir1', 'swir2']);
  assert.deepEqual(reflectanceBand('sur_refl_b02_1'), { sensor: 'MODIS', band: 'b2', nm: [841, 876], role: 'nir' });
  assert.equal(reflectanceBand('SurfReflect_I1')?.role, 'red');
  assert.equal(reflectanceBand('SurfReflect_M7_1')?.role, 'nir');
  assert.equal(reflectanceBand('SurfReflect_M6'), undefined, 'M6 is not a land band of VNP09');
  for (const other of ['sur_refl_qc_500m', 'sur_refl_state_500m', 'sur_refl_b08', '250m 16 days NDVI', 'SurfReflect_QF1']) assert.equal(reflectanceBand(other), undefined, other);
  // The grid with red and NIR at the finest pixel is the scene; a named grid is that grid's; no reflectance grid, no scene.
  const f = (id: string, grid: string, xdim: number) => ({ id, field: id, grid, xdim, ydim: xdim });
  const vnp = [f('SurfReflect_M5', '1km', 10), f('SurfReflect_M7', '1km', 10), f('SurfReflect_M4', '1km', 10), f('SurfReflect_I2', '500m', 20), f('SurfReflect_I1', '500m', 20)];
  assert.deepEqual(sceneFields(vnp)?.bands.map((b) => b.field), ['SurfReflect_I1', 'SurfReflect_I2']);
  assert.deepEqual(sceneFields(vnp, '1km')?.bands.map((b) => b.field), ['SurfReflect_M4', 'SurfReflect_M5', 'SurfReflect_M7']);
  assert.equal(sceneFields(vnp, 'nogrid'), undefined);
  assert.equal(sceneFields([f('250m 16 days NDVI', 'VI', 10), f('sur_refl_b01', 'VI', 10)]), undefined, 'one reflectance field is no scene');
});

test('a MOD09A1-like file given whole is one scene of its seven reflectance fields: roles, scale, fill, units; NDVI equals numpy over GDAL', { skip: skipWhy('the MODIS scene test', hdf4LibsMissing), timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-modis-scene-');
  const name = 'MOD09A1.A2023001.h18v04.061.2023010023357.hdf';
  const file = path.join(dir, name);
  writeHdf4(mod09Spec(file));
  const ds = await openRaster(file);
  try {
    assert.equal(ds.bandCount, 7);
    assert.deepEqual([ds.width, ds.height, ds.dtype, ds.nodata], [W, H, 'int16', -28672]);
    assert.deepEqual(ds.bandDescriptions, [1, 2, 3, 4, 5, 6, 7].map((b) => `sur_refl_b0${b}`));
    assert.deepEqual(ds.bandRoles, ['red', 'nir', 'blue', 'green', null, 'swir1', 'swir2']);
    assert.deepEqual(ds.scales, new Array(7).fill(0.0001), 'reflectance = DN × 0.0001, as CF and MODIS say');
    assert.equal(ds.warnings, undefined, 'a scale below 1 is a factor: nothing to warn about');
    // Band 2 is the NIR field itself, fill as NaN.
    const b2 = await ds.readWindow(2, 0, 0, W, 1);
    const one = await openRaster(`${file}#sur_refl_b02`);
    assert.deepEqual([...b2], [...await one.readWindow(1, 0, 0, W, 1)]);
    await one.close();
    assert.ok(Number.isNaN(b2[3]) && Math.abs(b2[0] - 0.15) < 1e-6, `fill is NaN, DN 1500 is 0.15: ${b2.slice(0, 4)}`);
    // DN 20000 is outside valid_range −100…16000: NaN where computed with; the raw read keeps it, as GDAL gives it.
    assert.ok(Number.isNaN(b2[5]), `DN 20000 (reflectance 2.0) is no measurement: ${b2[5]}`);
    assert.equal((await ds.readWindowRaw(2, 0, 0, W, 1))[5], 20000);
    assert.deepEqual(ds.units, new Array(7).fill('reflectance'));
  } finally { await ds.close(); }

  // raster_info names the roles from the band table.
  const info = await runTool('raster_info', { image: file }, { outDir: path.join(dir, 'info'), cwd: dir });
  assert.match(info.summary, /Band roles from the product's band table: red=1, nir=2, blue=3, green=4, swir1=6, swir2=7\. Units: reflectance\./);
  assert.equal((info.stats.bands as { units?: string }[])[1].units, 'reflectance');
  assert.match(localizeSummary(info, 'zh').text, /根据产品波段表识别的波段角色：red=1, nir=2, .*单位：reflectance。$/);

  // NDVI from the whole file equals numpy's over GDAL's reading of the two subdatasets.
  const run = await runTool('ndvi', { image: name }, { outDir: path.join(dir, 'out'), cwd: dir });
  assert.match(JSON.stringify(run.stats), /sur_refl_b01 \(the product's band table\)/);
  const out = Object.values(run.outputs).find((o) => o.type === 'raster')!.path;
  const eos = (field: string) => `HDF4_EOS:EOS_GRID:"${file}":${MOD09_GRID}:${field}`;
  const d = pyJson(PY_NDVI, eos('sur_refl_b01'), eos('sur_refl_b02'), out);
  assert.equal(d.scale, 0.0001, 'GDAL reads the same scale');
  assert.ok(d.n > 4000 && d.max < 1e-6, `NDVI equals numpy over GDAL (max |diff| ${d.max} over ${d.n} pixels)`);
  assert.ok(d.sameMask, 'nodata exactly where either band is fill or outside valid_range');
  assert.ok(d.outside > 50, `GDAL passes ${d.outside} values outside valid_range on: the masking is tested`);
  console.log(`MODIS scene NDVI vs GDAL+numpy: max |diff| ${d.max} over ${d.n} pixels`);

  // The scan lists the scene (the file itself) besides its fields; readiness finds red and NIR in it.
  const data = await scanDataFolder(dir);
  const paths = data.items.map((it) => it.path);
  assert.ok(paths.includes(name) && paths.includes(`${name}#sur_refl_b01`) && paths.includes(`${name}#sur_refl_state_500m`), paths.join(', '));
  const scene = data.items.find((it) => it.path === name)!;
  assert.deepEqual(scene.bands?.map((b) => b.role ?? null), ['red', 'nir', 'blue', 'green', null, 'swir1', 'swir2']);
  const ready = executability(manifest('ndvi'), { items: data.items.filter((it) => !it.path.startsWith('out')) });
  assert.equal(ready.ready, true, ready.notes.join(' | '));
  assert.deepEqual(ready.args, { image: name, red: 1, nir: 2 });
  assert.ok(ready.notes.some((n) => /red, NIR — found in MOD09A1\.A2023001\.h18v04\.061\.2023010023357\.hdf bands 1, 2/.test(n)), ready.notes.join(' | '));
  // A task naming the file gets the scene, not one of its fields.
  const named = executability(manifest('ndvi'), { items: data.items.filter((it) => !it.path.startsWith('out')) }, { task: `NDVI of ${name}` });
  assert.deepEqual([named.ready, named.args.image], [true, name], named.notes.join(' | '));
  // band_math takes the scene's bands by number, reflectance scaled: (b2 − b1)/(b2 + b1) is the same NDVI.
  const bm = await runTool('band_math', { image: name, expression: '(b2 - b1) / (b2 + b1)' }, { outDir: path.join(dir, 'bm'), cwd: dir });
  const same = pyJson(`
import sys, json, numpy as np
from osgeo import gdal
a = gdal.Open(sys.argv[1]).ReadAsArray().astype(np.float64); b = gdal.Open(sys.argv[2]).ReadAsArray().astype(np.float64)
ok = np.isfinite(a) & (a > -2) & np.isfinite(b) & (b > -2)
print(json.dumps({"max": float(np.abs(a[ok] - b[ok]).max()), "n": int(ok.sum())}))`, out, Object.values(bm.outputs)[0].path);
  assert.ok(same.n > 4000 && same.max < 1e-6, `band_math equals ndvi: ${JSON.stringify(same)}`);
  // Opened from the explorer, the file shows its scene, with units, and lists its layers.
  const view = await rasterFileView(file);
  assert.match(view.summary, /holds 9 layers; shown: its reflectance scene/);
  assert.deepEqual(view.tables[0].rows.slice(0, 2), [['reflectance scene', name], ['sur_refl_b01', `${name}#sur_refl_b01`]]);
  const statsTable = view.tables.find((t) => /^Band statistics/.test(t.title))!;
  assert.deepEqual(statsTable.rows.map((r) => r[2]), new Array(7).fill('reflectance'), 'the Units column');
  // The fields stay readable one at a time, also where the pixel pipeline reopens its inputs by name
  // (the file alone would be the scene, whose band 1 is red: reflectance below 0.3 everywhere here).
  const field = await openRaster(`${file}#sur_refl_b07`);
  assert.equal(field.bandCount, 1);
  await field.close();
  const nirHigh = await runTool('threshold', { image: `${name}#sur_refl_b02`, op: 'gt', value: 0.3 }, { outDir: path.join(dir, 'th'), cwd: dir });
  const mask = await openRaster(Object.values(nirHigh.outputs)[0].path);
  const m = await mask.readWindowRaw(1, 0, 0, W, H);
  await mask.close();
  const ones = Array.from(m).filter((v) => v === 1).length;
  assert.ok(ones > W * H / 3, `NIR > 0.3 in ${ones} pixels: the field was read, not the scene's band 1`);
  const byGrid = await openRaster(`${file}#${MOD09_GRID}`);
  assert.equal(byGrid.bandCount, 7);
  await byGrid.close();
});

test('a MOD09-like file missing sur_refl_b02, or with a field of another size, is refused naming the file and what to do', { skip: skipWhy('the MODIS scene refusal test', hdf4LibsMissing), timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-modis-bad-');
  const noNir = path.join(dir, 'MOD09A1.A2023009.h18v04.061.hdf');
  writeHdf4(mod09Spec(noNir, [1, 3, 4, 5, 6, 7]));
  await assert.rejects(runTool('ndvi', { image: noNir }, { outDir: path.join(dir, 'o1'), cwd: dir }), (e: Error) => {
    assert.ok(e instanceof RasterError, `${e.name}: ${e.message}`);
    assert.match(e.message, /MOD09A1\.A2023009\.h18v04\.061\.hdf: no band of the reflectance scene on grid "MOD_Grid_500m_Surface_Reflectance" is nir \(it holds sur_refl_b01 \(red\), .*\); the file holds no nir band .*use a complete product file, or give the band from another file as a mapping/);
    return true;
  });
  // NDWI needs green and NIR too: the same file is still a scene for what it holds (green, SWIR).
  const mndwi = await runTool('mndwi', { image: noNir }, { outDir: path.join(dir, 'o2'), cwd: dir }).catch((e: Error) => e);
  assert.ok(!(mndwi instanceof Error), `MNDWI (green, SWIR1) runs on the scene: ${(mndwi as Error).message}`);

  const odd = path.join(dir, 'MOD09A1.A2023017.h18v04.061.hdf');
  writeHdf4(mod09Spec(odd, undefined, (f) => (f.name === 'sur_refl_b02' ? { ...f, dims: 'YDim2,XDim2', shape: [H / 2, W / 2], tile: undefined, comp: 0 } : f)));
  await assert.rejects(openRaster(odd), (e: Error) => {
    assert.ok(e instanceof RasterError);
    assert.match(e.message, /MOD09A1\.A2023017\.h18v04\.061\.hdf: its reflectance fields on grid "MOD_Grid_500m_Surface_Reflectance" cannot be read as one scene: field "sur_refl_b02" is 40×30 but its grid .* is 80×60; the file is damaged; read its fields one at a time \(MOD09A1\.A2023017\.h18v04\.061\.hdf#sur_refl_b01\), or download the file again/);
    return true;
  });
});

/**
 * Counts the HDF4 parses (each starts by opening the file and reading its DD blocks) and the closes
 * of their handles while `run` runs.
 */
async function countParses(run: () => Promise<void>): Promise<{ opens: number; closes: number }> {
  const open = Hdf4File.open, close = Hdf4File.prototype.close;
  const n = { opens: 0, closes: 0 };
  Hdf4File.open = async (...a: Parameters<typeof open>) => { n.opens++; return open.apply(Hdf4File, a); };
  Hdf4File.prototype.close = async function (this: Hdf4File) { n.closes++; return close.call(this); };
  try { await run(); } finally { Hdf4File.open = open; Hdf4File.prototype.close = close; }
  return n;
}

test('a MOD09A1-like scene parses its file once for all seven fields and closes it once; its samples are GDAL\'s, field by field', { skip: skipWhy('the MODIS scene parse test', hdf4LibsMissing), timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-modis-once-');
  const file = path.join(dir, 'MOD09A1.A2023033.h18v04.061.hdf');
  writeHdf4(mod09Spec(file));
  const raws: number[][] = [];
  let bands = 0;
  const whole = await countParses(async () => {
    const ds = await openRaster(file);
    try {
      bands = ds.bandCount;
      for (let b = 1; b <= ds.bandCount; b++) raws.push(Array.from(await ds.readWindowRaw(b, 0, 0, W, H)));
    } finally { await ds.close(); }
    // Closed, the scene reads nothing (its fields' shared handle is gone with it).
    await assert.rejects(ds.readWindowRaw(1, 0, 0, 1, 1));
  });
  assert.equal(bands, 7);
  assert.deepEqual(whole, { opens: 1, closes: 1 }, 'one parse and one handle for the whole scene, closed with it');
  const byGrid = await countParses(async () => { const ds = await openRaster(`${file}#${MOD09_GRID}`); assert.equal(ds.bandCount, 7); await ds.close(); });
  assert.deepEqual(byGrid, { opens: 1, closes: 1 }, 'the scene named by its grid');
  const oneField = await countParses(async () => { const ds = await openRaster(`${file}#sur_refl_b05`); assert.equal(ds.bandCount, 1); await ds.close(); });
  assert.deepEqual(oneField, { opens: 1, closes: 1 }, 'one field');
  const ref = pyJson(`
import sys, json
from osgeo import gdal
print(json.dumps([gdal.Open(f'HDF4_EOS:EOS_GRID:"{sys.argv[1]}":${MOD09_GRID}:sur_refl_b0{b}').ReadAsArray().flatten().tolist() for b in range(1, 8)]))`, file);
  raws.forEach((r, k) => assert.deepEqual(r, ref[k], `band ${k + 1} equals GDAL's sur_refl_b0${k + 1}`));

  // A scene that fails (a field on another size) still parsed once and closed its handle.
  const odd = path.join(dir, 'MOD09A1.A2023041.h18v04.061.hdf');
  writeHdf4(mod09Spec(odd, undefined, (f) => (f.name === 'sur_refl_b03' ? { ...f, dims: 'YDim2,XDim2', shape: [H / 2, W / 2], tile: undefined, comp: 0 } : f)));
  const failed = await countParses(async () => {
    await assert.rejects(openRaster(odd), /MOD09A1\.A2023041\.h18v04\.061\.hdf: its reflectance fields on grid "MOD_Grid_500m_Surface_Reflectance" cannot be read as one scene: field "sur_refl_b03" is 40×30/);
  });
  assert.deepEqual(failed, { opens: 1, closes: 1 }, 'a failed scene closes its one handle');
});

/** A VNP09GA-like file: I1-I3 on the 500 m grid, M bands on the 1 km grid (VIIRS's sinusoidal h18v04). */
function vnp09Spec(file: string) {
  const field = (name: string, expr: string, w: number, h: number): He5FieldSpec => ({
    name, dims: 'YDim,XDim', type: 'int16', shape: [h, w], tile: [h / 2, w / 2], deflate: 4, fill: -28672, expr,
    attrs: { long_name: name, units: 'reflectance', valid_range: ['int16', [-100, 16000]], scale_factor: ['float64', [0.0001]], add_offset: ['float64', [0]] },
  });
  const ul: [number, number] = [1111950.519667, 5559752.598333], lr: [number, number] = [2223901.039333, 4447802.078667];
  return {
    file,
    grids: [
      { name: 'VNP_Grid_1km_2D', xdim: W / 2, ydim: H / 2, ul, lr, proj: 'SNSOID' as const, sphere: -1, params: [6371007.181], fields: ['M3', 'M4', 'M5', 'M7', 'M10', 'M11'].map((m, k) => field(`SurfReflect_${m}_1`, `300 + (i * ${11 + k}) % 3000`, W / 2, H / 2)) },
      {
        name: 'VNP_Grid_500m_2D', xdim: W, ydim: H, ul, lr, proj: 'SNSOID' as const, sphere: -1, params: [6371007.181],
        fields: [field('SurfReflect_I1_1', RED, W, H), field('SurfReflect_I2_1', NIR, W, H), field('SurfReflect_I3_1', '900 + (i * 7) % 2000', W, H)],
      },
    ],
  };
}

test('a VNP09GA-like file given whole is the scene of its 500 m I bands; its 1 km M bands are the scene named by their grid; NDVI equals numpy over GDAL', { skip: skipWhy('the VIIRS scene test', he5LibMissing), timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-viirs-scene-');
  const name = 'VNP09GA.A2023001.h18v04.002.h5';
  const file = path.join(dir, name);
  writeHe5(vnp09Spec(file));
  const ds = await openRaster(file);
  try {
    assert.deepEqual(ds.bandDescriptions, ['SurfReflect_I1_1', 'SurfReflect_I2_1', 'SurfReflect_I3_1']);
    assert.deepEqual(ds.bandRoles, ['red', 'nir', 'swir1']);
    assert.deepEqual([ds.width, ds.height, ds.nodata, ds.scales[0]], [W, H, -28672, 0.0001]);
  } finally { await ds.close(); }
  const m = await openRaster(`${file}#VNP_Grid_1km_2D`);
  try {
    assert.deepEqual(m.bandRoles, ['blue', 'green', 'red', 'nir', 'swir1', 'swir2']);
    assert.equal(m.width, W / 2);
  } finally { await m.close(); }
  const run = await runTool('ndvi', { image: file }, { outDir: path.join(dir, 'out'), cwd: dir });
  const out = Object.values(run.outputs).find((o) => o.type === 'raster')!.path;
  const h5 = (field: string) => `HDF5:"${file}"://HDFEOS/GRIDS/VNP_Grid_500m_2D/Data_Fields/${field}`;
  const d = pyJson(PY_NDVI, h5('SurfReflect_I1_1'), h5('SurfReflect_I2_1'), out);
  assert.ok(d.n > 4000 && d.max < 1e-6 && d.sameMask && d.outside > 50, `VIIRS NDVI equals numpy over GDAL (max |diff| ${d.max} over ${d.n} pixels)`);
  console.log(`VIIRS scene NDVI vs GDAL+numpy: max |diff| ${d.max} over ${d.n} pixels`);
  // Green is on the 1 km grid: the error says which grid's scene to name.
  await assert.rejects(runTool('ndwi', { image: file }, { outDir: path.join(dir, 'o2'), cwd: dir }), /no band of the reflectance scene on grid "VNP_Grid_500m_2D" is green .*its green band, VIIRS M4 \(545–565 nm\), is on grid "VNP_Grid_1km_2D", another pixel size: name that grid's scene as VNP09GA\.A2023001\.h18v04\.002\.h5#VNP_Grid_1km_2D/);
  const ndwi = await runTool('ndwi', { image: `${file}#VNP_Grid_1km_2D` }, { outDir: path.join(dir, 'o3'), cwd: dir });
  assert.ok(Object.values(ndwi.outputs).length > 0);
});

test('a NetCDF variable\'s valid_range reads as GDAL\'s netCDF driver reads it (values outside are the fill), its units carried; tools reopen the variable named', { skip: gdalSkip('the NetCDF valid_range test'), timeout: 120_000 }, async () => {
  const dir = tmpDir('gw-valid-range-');
  const file = path.join(dir, 'lst.nc');
  // Written through GDAL's multidimensional API: int16 kelvin × 0.02 with valid_range 7500…32767 (packed), as MOD11 LST is.
  py(`
from osgeo import gdal
import numpy as np
ds = gdal.GetDriverByName('netCDF').CreateMultiDimensional(${JSON.stringify(file)})
rg = ds.GetRootGroup()
dy = rg.CreateDimension('lat', None, None, 20); dx = rg.CreateDimension('lon', None, None, 30)
i16 = gdal.ExtendedDataType.Create(gdal.GDT_Int16); f64 = gdal.ExtendedDataType.Create(gdal.GDT_Float64)
for name, dim, vals, u in [('lat', dy, 49.975 - 0.05 * np.arange(20), 'degrees_north'), ('lon', dx, 10.025 + 0.05 * np.arange(30), 'degrees_east')]:
    c = rg.CreateMDArray(name, [dim], f64); c.Write(vals)
    a = c.CreateAttribute('units', [], gdal.ExtendedDataType.CreateString()); a.Write(u); del a, c
v = rg.CreateMDArray('LST', [dy, dx], i16)
for k, t, val in [('valid_range', i16, [7500, 16000]), ('_FillValue', i16, 0)]:
    a = v.CreateAttribute(k, [2] if isinstance(val, list) else [], t); a.Write(val); del a
for k, val in [('units', 'K'), ('long_name', 'Land surface temperature')]:
    a = v.CreateAttribute(k, [], gdal.ExtendedDataType.CreateString()); a.Write(val); del a
a = v.CreateAttribute('scale_factor', [], gdal.ExtendedDataType.Create(gdal.GDT_Float64)); a.Write(0.02); del a
i = np.arange(600)
v.Write(np.where(i % 37 == 1, 0, np.where(i % 23 == 2, 20000, np.where(i % 29 == 4, 7000, 13000 + i))).astype('int16').reshape(20, 30))
q = rg.CreateMDArray('QC', [dy, dx], i16); q.Write(np.zeros((20, 30), dtype='int16'))
del v, q, dx, dy, rg, ds`);
  const ref = pyJson(`
import sys, json
from osgeo import gdal
d = gdal.Open(sys.argv[1]); b = d.GetRasterBand(1)
print(json.dumps({"raw": b.ReadAsArray().flatten().tolist(), "nodata": b.GetNoDataValue(), "units": b.GetUnitType()}))`, `NETCDF:"${file}":LST`);
  const ds = await openRaster(`${file}#LST`);
  try {
    const raw = Array.from(await ds.readWindowRaw(1, 0, 0, 30, 20));
    assert.deepEqual(raw, ref.raw, 'raw samples equal GDAL\'s netCDF reading: outside valid_range → the fill');
    assert.ok(raw.filter((v) => v === 0).length > ref.raw.length / 37 + 20, 'GDAL did set values outside the range to the fill: the check can fail');
    assert.equal(ds.nodata, ref.nodata);
    assert.deepEqual(ds.units, [ref.units]);
    const f = await ds.readWindow(1, 0, 0, 30, 20);
    assert.ok(Number.isNaN(f[2]) && Number.isNaN(f[4]) && Math.abs(f[0] - 260) < 1e-3, `${f.slice(0, 5)}`);
  } finally { await ds.close(); }
  // Through the pixel pipeline, which reopens its inputs by name: the variable named, not the file's first.
  const warm = await runTool('threshold', { image: `${file}#LST`, op: 'gt', value: 200 }, { outDir: path.join(dir, 'th'), cwd: dir });
  const mask = await openRaster(warm.outputs.mask.path);
  const ones = Array.from(await mask.readWindowRaw(1, 0, 0, 30, 20)).filter((v) => v === 1).length;
  await mask.close();
  assert.equal(ones, ref.raw.filter((v: number) => v !== ref.nodata).length, 'every valid LST above 200 K, fill and out-of-range values nodata');
});

test('cloud_mask over a MOD09 state field (#sur_refl_state_500m) flags cloudy or mixed, shadow, average or high cirrus and the internal cloud flag, equal to numpy over GDAL; apply_mask takes it to the scene', { skip: skipWhy('the MODIS state QA test', hdf4LibsMissing), timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-modis-qa-');
  const name = 'MOD09A1.A2023025.h18v04.061.hdf';
  const file = path.join(dir, name);
  writeHdf4(mod09Spec(file));
  const run = await runTool('cloud_mask', { image: `${name}#sur_refl_state_500m` }, { outDir: path.join(dir, 'qa'), cwd: dir });
  assert.equal(run.stats.sensor, 'modis_state');
  const out = run.outputs.mask.path;
  const d = pyJson(`
import sys, json, numpy as np
from osgeo import gdal
s = gdal.Open(sys.argv[1]); a = s.GetRasterBand(1).ReadAsArray().astype(np.int64)
o = gdal.Open(sys.argv[2]); ob = o.GetRasterBand(1); m = ob.ReadAsArray()
fill = a == 65535; st = a & 3; cir = (a >> 8) & 3
ref = ((st == 1) | (st == 2) | ((a & 4) != 0) | (cir >= 2) | ((a & 1024) != 0)).astype(np.int64)
valid = ~fill
print(json.dumps({"bad": int((m[valid] != ref[valid]).sum()), "cloudy": int(ref[valid].sum()), "n": int(valid.sum()), "fillIsNodata": bool((m[fill] == ob.GetNoDataValue()).all()), "nfill": int(fill.sum())}))`, `HDF4_EOS:EOS_GRID:"${file}":${MOD09_GRID}:sur_refl_state_500m`, out);
  assert.equal(d.bad, 0, `cloud mask equals numpy over GDAL's state field (${d.cloudy} cloudy of ${d.n})`);
  assert.ok(d.cloudy > 100 && d.cloudy < d.n - 100, `both classes present: ${d.cloudy} of ${d.n}`);
  assert.ok(d.nfill > 10 && d.fillIsNodata, 'the state fill is nodata in the mask');
  // The mask applies to the scene (invert: keep the clear pixels): every band cleared where cloudy.
  const masked = await runTool('apply_mask', { image: name, mask: out, invert: true }, { outDir: path.join(dir, 'am'), cwd: dir });
  const m = await openRaster(Object.values(masked.outputs)[0].path);
  try {
    assert.equal(m.bandCount, 7);
    const nir = await m.readWindow(2, 0, 0, W, H);
    const gone = Array.from(nir).filter((v) => Number.isNaN(v)).length;
    assert.ok(gone >= d.cloudy && gone < W * H, `${gone} NIR pixels masked, ${d.cloudy} cloudy`);
  } finally { await m.close(); }
});

test('the band table: MCD43A4\'s Nadir_Reflectance_Band1…7 are MODIS bands 1-7, its quality fields none; MOD13\'s red, NIR, blue and MIR reflectance are bands 1, 2, 3, 7 on a MODIS grid only', () => {
  assert.deepEqual([1, 2, 3, 4, 5, 6, 7].map((b) => reflectanceBand(`Nadir_Reflectance_Band${b}`)?.role ?? null), ['red', 'nir', 'blue', 'green', null, 'swir1', 'swir2']);
  assert.deepEqual(reflectanceBand('Nadir_Reflectance_Band2'), reflectanceBand('sur_refl_b02'), 'the same MODIS band as MOD09\'s');
  for (const q of ['BRDF_Albedo_Band_Mandatory_Quality_Band1', 'BRDF_Albedo_Band_Mandatory_Quality_Band7', 'Nadir_Reflectance_Band8']) assert.equal(reflectanceBand(q), undefined, q);
  const G = 'MODIS_Grid_16DAY_250m_500m_VI';
  assert.deepEqual(['red', 'NIR', 'blue', 'MIR'].map((w) => reflectanceBand(`250m 16 days ${w} reflectance`, G)?.band), ['b1', 'b2', 'b3', 'b7']);
  assert.deepEqual(['red', 'NIR', 'blue', 'MIR'].map((w) => reflectanceBand(`250m 16 days ${w} reflectance`, G)?.role), ['red', 'nir', 'blue', 'swir2']);
  assert.equal(reflectanceBand('1 km 16 days NIR reflectance', 'MODIS_Grid_16DAY_1km_VI')?.role, 'nir', 'MOD13A2');
  assert.equal(reflectanceBand('500m 16 days MIR reflectance', 'MODIS_Grid_16DAY_500m_VI')?.nm[0], 2105, 'MOD13A1: MIR is band 7');
  assert.equal(reflectanceBand('1 km monthly red reflectance', 'MOD_Grid_monthly_1km_VI')?.role, 'red', 'MOD13A3');
  for (const other of ['250m 16 days NDVI', '250m 16 days EVI', '250m 16 days VI Quality', '250m 16 days view zenith angle', '250m 16 days composite day of the year', '250m 16 days pixel reliability']) assert.equal(reflectanceBand(other, G), undefined, other);
  // VIIRS's VNP13 uses the same words for other bands: not MODIS bands, so no scene from the words alone.
  assert.equal(reflectanceBand('500 m 16 days red reflectance', 'VIIRS_Grid_16Day_VI_500m'), undefined);
  assert.equal(reflectanceBand('250m 16 days red reflectance'), undefined, 'no grid, no claim');
});

/**
 * An MCD43A4-like (NBAR, collection 6.1) h18v04 tile: MOD_Grid_BRDF with the seven mandatory
 * quality fields (uint8, fill 255) before the seven Nadir_Reflectance fields (int16, scale 0.0001,
 * fill 32767, valid_range 0..32766), as the product lists them.
 */
const MCD43_GRID = 'MOD_Grid_BRDF';
function mcd43Spec(file: string): { file: string; grids: EosGridSpec[] } {
  const exprs: Record<number, string> = {
    1: 'np.where(i % 53 == 7, 32767, np.where(i % 89 == 11, -150, 300 + (i * 37) % 2500))',
    2: 'np.where(i % 61 == 3, 32767, np.where(i % 83 == 5, -20, 1500 + (i * 91) % 5000))',
    3: '200 + (i * 13) % 900', 4: '400 + (i * 17) % 1200', 5: '2000 + (i * 19) % 3000', 6: '1000 + (i * 23) % 3000', 7: '500 + (i * 29) % 2500',
  };
  const b7 = [1, 2, 3, 4, 5, 6, 7];
  return {
    file,
    grids: [{
      name: MCD43_GRID, xdim: W, ydim: H, ul: [1111950.519667, 5559752.598333], lr: [2223901.039333, 4447802.078667], proj: 'SNSOID', sphere: -1, params: [6371007.181],
      fields: [
        ...b7.map((b): EosFieldSpec => ({
          name: `BRDF_Albedo_Band_Mandatory_Quality_Band${b}`, dims: 'YDim,XDim', type: 'uint8', shape: [H, W], tile: [30, 40], comp: 4, fill: 255, expr: `np.where(i % ${40 + b} == 0, 255, (i + ${b}) % 2)`,
          attrs: { long_name: `BRDF_Albedo_Band_Mandatory_Quality_Band${b}`, units: 'concatenated flags', valid_range: ['uint8', [0, 254]] },
        })),
        ...b7.map((b): EosFieldSpec => ({
          name: `Nadir_Reflectance_Band${b}`, dims: 'YDim,XDim', type: 'int16', shape: [H, W], tile: [30, 40], comp: 4, fill: 32767, expr: exprs[b],
          attrs: {
            long_name: `Nadir_Reflectance_Band${b}`, units: 'reflectance, no units', valid_range: ['int16', [0, 32766]],
            scale_factor: ['float64', [0.0001]], scale_factor_err: ['float64', [0]], add_offset: ['float64', [0]], add_offset_err: ['float64', [0]], calibrated_nt: ['int32', [5]],
          },
        })),
      ],
    }],
  };
}

test('an MCD43A4-like file given whole is one 7-band scene of its Nadir_Reflectance fields, quality fields not stacked; its samples and NDVI equal GDAL\'s; the scan lists it and ndvi is ready', { skip: skipWhy('the MCD43A4 scene test', hdf4LibsMissing), timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-mcd43-scene-');
  const name = 'MCD43A4.A2023001.h18v04.061.2023010041530.hdf';
  const file = path.join(dir, name);
  writeHdf4(mcd43Spec(file));
  const eos = (field: string) => `HDF4_EOS:EOS_GRID:"${file}":${MCD43_GRID}:${field}`;
  const ref = pyJson(`
import sys, json
from osgeo import gdal
print(json.dumps([gdal.Open(sys.argv[1] + str(b)).ReadAsArray().flatten().tolist() for b in range(1, 8)]))`, eos('Nadir_Reflectance_Band'));
  const ds = await openRaster(file);
  try {
    assert.equal(ds.bandCount, 7);
    assert.deepEqual(ds.bandDescriptions, [1, 2, 3, 4, 5, 6, 7].map((b) => `Nadir_Reflectance_Band${b}`), 'the quality fields are not stacked');
    assert.deepEqual(ds.bandRoles, ['red', 'nir', 'blue', 'green', null, 'swir1', 'swir2']);
    assert.deepEqual([ds.width, ds.height, ds.dtype, ds.nodata], [W, H, 'int16', 32767]);
    assert.deepEqual(ds.scales, new Array(7).fill(0.0001));
    assert.equal(ds.warnings, undefined);
    for (let b = 1; b <= 7; b++) assert.deepEqual(Array.from(await ds.readWindowRaw(b, 0, 0, W, H)), ref[b - 1], `band ${b} equals GDAL's Nadir_Reflectance_Band${b}`);
    const nir = await ds.readWindow(2, 0, 0, W, 1);
    assert.ok(Number.isNaN(nir[3]) && Number.isNaN(nir[5]) && Math.abs(nir[0] - 0.15) < 1e-6, `fill and DN −20 (below valid_range 0) are NaN, DN 1500 is 0.15: ${nir.slice(0, 6)}`);
  } finally { await ds.close(); }

  const run = await runTool('ndvi', { image: name }, { outDir: path.join(dir, 'out'), cwd: dir });
  const out = Object.values(run.outputs).find((o) => o.type === 'raster')!.path;
  const d = pyJson(PY_NDVI, eos('Nadir_Reflectance_Band1'), eos('Nadir_Reflectance_Band2'), out);
  assert.equal(d.scale, 0.0001, 'GDAL reads the same scale');
  assert.ok(d.n > 4000 && d.max < 1e-6, `NDVI equals numpy over GDAL (max |diff| ${d.max} over ${d.n} pixels)`);
  assert.ok(d.sameMask, 'nodata exactly where either band is fill or outside valid_range');
  assert.ok(d.outside > 50, `GDAL passes ${d.outside} values outside valid_range on: the masking is tested`);
  console.log(`MCD43A4 scene NDVI vs GDAL+numpy: max |diff| ${d.max} over ${d.n} pixels, ${d.outside} out-of-range values masked`);

  const data = await scanDataFolder(dir);
  const paths = data.items.map((it) => it.path);
  assert.ok(paths.includes(name) && paths.includes(`${name}#Nadir_Reflectance_Band1`) && paths.includes(`${name}#BRDF_Albedo_Band_Mandatory_Quality_Band1`), paths.join(', '));
  assert.deepEqual(data.items.find((it) => it.path === name)!.bands?.map((b) => b.role ?? null), ['red', 'nir', 'blue', 'green', null, 'swir1', 'swir2']);
  const ready = executability(manifest('ndvi'), { items: data.items.filter((it) => !it.path.startsWith('out')) });
  assert.equal(ready.ready, true, ready.notes.join(' | '));
  assert.deepEqual(ready.args, { image: name, red: 1, nir: 2 });
  // A quality field stays readable by name.
  const q = await openRaster(`${file}#BRDF_Albedo_Band_Mandatory_Quality_Band2`);
  assert.deepEqual([q.bandCount, q.dtype, q.nodata], [1, 'uint8', 255]);
  await q.close();
});

/**
 * A MOD13Q1-like tile: MODIS_Grid_16DAY_250m_500m_VI with the product's twelve fields in its order;
 * the four reflectance fields int16, fill −1000, valid_range 0..10000 and scale_factor 10000 (MODIS's
 * divisor: reflectance = DN / 10000, as for its NDVI), with fill holes and values outside the range.
 */
const MOD13_GRID = 'MODIS_Grid_16DAY_250m_500m_VI';
function mod13Spec(file: string): { file: string; grids: EosGridSpec[] } {
  const f = (name: string, type: string, fill: number, expr: string, attrs: EosFieldSpec['attrs']): EosFieldSpec => ({ name: `250m 16 days ${name}`, dims: 'YDim,XDim', type, shape: [H, W], tile: [30, 40], comp: 4, fill, expr, attrs: { long_name: `250m 16 days ${name}`, ...attrs } });
  const scaled = (units: string, lo: number, hi: number) => ({ units, valid_range: ['int16', [lo, hi]] as [string, number[]], scale_factor: ['float64', [10000]] as [string, number[]], scale_factor_err: ['float64', [0]] as [string, number[]], add_offset: ['float64', [0]] as [string, number[]], add_offset_err: ['float64', [0]] as [string, number[]], calibrated_nt: ['int32', [5]] as [string, number[]] });
  return {
    file,
    grids: [{
      name: MOD13_GRID, xdim: W, ydim: H, ul: [1111950.519667, 5559752.598333], lr: [2223901.039333, 4447802.078667], proj: 'SNSOID', sphere: -1, params: [6371007.181],
      fields: [
        f('NDVI', 'int16', -3000, '(i * 7919) % 12000 - 2000', scaled('NDVI', -2000, 10000)),
        f('EVI', 'int16', -3000, '(i * 7907) % 12000 - 2000', scaled('EVI', -2000, 10000)),
        f('VI Quality', 'uint16', 65535, '(i * 2654435761) % 65536', { units: 'bits', valid_range: ['uint16', [0, 65534]] }),
        f('red reflectance', 'int16', -1000, 'np.where(i % 53 == 7, -1000, np.where(i % 89 == 11, 12000, 300 + (i * 37) % 2500))', scaled('reflectance', 0, 10000)),
        f('NIR reflectance', 'int16', -1000, 'np.where(i % 61 == 3, -1000, np.where(i % 83 == 5, -50, 1500 + (i * 91) % 5000))', scaled('reflectance', 0, 10000)),
        f('blue reflectance', 'int16', -1000, '200 + (i * 13) % 900', scaled('reflectance', 0, 10000)),
        f('MIR reflectance', 'int16', -1000, '500 + (i * 29) % 2500', scaled('reflectance', 0, 10000)),
        f('view zenith angle', 'int16', -10000, '(i * 3) % 6000', scaled('degrees', -9000, 9000)),
        f('sun zenith angle', 'int16', -10000, '(i * 5) % 6000', scaled('degrees', -9000, 9000)),
        f('relative azimuth angle', 'int16', -4000, '(i * 7) % 3600', scaled('degrees', -3600, 3600)),
        f('composite day of the year', 'int16', -1, '1 + i % 16', { units: 'Julian day of year', valid_range: ['int16', [1, 366]] }),
        f('pixel reliability', 'int8', -1, '(i % 5) - 1', { units: 'rank', valid_range: ['int8', [0, 3]] }),
      ],
    }],
  };
}

test('a MOD13Q1-like file given whole is the 4-band scene of its red, NIR, blue and MIR reflectance (bands 1, 2, 3, 7), not its NDVI, EVI, quality or angles; reflectance = DN / 10000; NDVI equals numpy over GDAL', { skip: skipWhy('the MOD13 scene test', hdf4LibsMissing), timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-mod13-scene-');
  const name = 'MOD13Q1.A2023001.h18v04.061.2023020010101.hdf';
  const file = path.join(dir, name);
  writeHdf4(mod13Spec(file));
  const eos = (w: string) => `HDF4_EOS:EOS_GRID:"${file}":${MOD13_GRID}:250m 16 days ${w}`;
  const words = ['red reflectance', 'NIR reflectance', 'blue reflectance', 'MIR reflectance'];
  const ref = pyJson(`
import sys, json
from osgeo import gdal
out = []
for n in sys.argv[1:]:
    d = gdal.Open(n); b = d.GetRasterBand(1); out.append({"raw": b.ReadAsArray().flatten().tolist(), "scale": b.GetScale(), "nodata": b.GetNoDataValue()})
print(json.dumps(out))`, ...words.map(eos));
  const ds = await openRaster(file);
  try {
    assert.equal(ds.bandCount, 4);
    assert.deepEqual(ds.bandDescriptions, words.map((w) => `250m 16 days ${w}`));
    assert.deepEqual(ds.bandRoles, ['red', 'nir', 'blue', 'swir2']);
    assert.deepEqual([ds.width, ds.height, ds.dtype, ds.nodata], [W, H, 'int16', -1000]);
    // GDAL reports scale 10000 (DN × 10000); MODIS means DN / 10000, as the reader reads MOD13's NDVI.
    assert.deepEqual(ref.map((r: { scale: number }) => r.scale), [10000, 10000, 10000, 10000]);
    assert.deepEqual(ds.scales, new Array(4).fill(1 / 10000));
    assert.match(ds.warnings?.join(' ') ?? '', /250m 16 days red reflectance: scale_factor is 10000, read as MODIS documents it: value = DN \/ 10000/);
    for (let b = 1; b <= 4; b++) {
      assert.deepEqual(Array.from(await ds.readWindowRaw(b, 0, 0, W, H)), ref[b - 1].raw, `band ${b} equals GDAL's ${words[b - 1]}`);
    }
    const red = await ds.readWindow(1, 0, 0, W, H);
    let maxDiff = 0, masked = 0;
    ref[0].raw.forEach((dn: number, k: number) => {
      if (dn === -1000 || dn < 0 || dn > 10000) { if (Number.isNaN(red[k])) masked++; return; }
      maxDiff = Math.max(maxDiff, Math.abs(red[k] - dn / 10000));
    });
    assert.ok(maxDiff < 1e-7, `red = GDAL's DN / 10000 (max |diff| ${maxDiff})`);
    assert.equal(masked, ref[0].raw.filter((dn: number) => dn === -1000 || dn > 10000).length, 'fill and DN 12000 (above valid_range) are NaN');
    console.log(`MOD13Q1 scene red vs GDAL's DN / 10000: max |diff| ${maxDiff}, ${masked} fill or out-of-range pixels NaN`);
  } finally { await ds.close(); }

  const run = await runTool('ndvi', { image: name }, { outDir: path.join(dir, 'out'), cwd: dir });
  const out = Object.values(run.outputs).find((o) => o.type === 'raster')!.path;
  // PY_NDVI multiplies by GDAL's scale (10000): NDVI is a ratio, the same under DN × s or DN / s.
  const d = pyJson(PY_NDVI, eos('red reflectance'), eos('NIR reflectance'), out);
  assert.ok(d.n > 4000 && d.max < 1e-6, `NDVI equals numpy over GDAL (max |diff| ${d.max} over ${d.n} pixels)`);
  assert.ok(d.sameMask, 'nodata exactly where either band is fill or outside valid_range');
  assert.ok(d.outside > 50, `GDAL passes ${d.outside} values outside valid_range on: the masking is tested`);
  console.log(`MOD13Q1 scene NDVI vs GDAL+numpy: max |diff| ${d.max} over ${d.n} pixels, ${d.outside} out-of-range values masked`);

  // EVI takes reflectance (its constants assume 0..1): it equals numpy's over GDAL's DN / 10000, so the divisor is applied, not GDAL's × 10000.
  const evi = await runTool('evi', { image: name }, { outDir: path.join(dir, 'evi'), cwd: dir });
  const e = pyJson(`
import sys, json, numpy as np
from osgeo import gdal
keep = []
def refl(n):
    d = gdal.Open(n); keep.append(d); a = d.GetRasterBand(1).ReadAsArray().astype(np.float64)
    return a / 10000, (a >= 0) & (a <= 10000)
(r, rok), (n, nok), (b, bok) = refl(sys.argv[1]), refl(sys.argv[2]), refl(sys.argv[3])
od = gdal.Open(sys.argv[4]); out = od.GetRasterBand(1).ReadAsArray().astype(np.float64); nd = od.GetRasterBand(1).GetNoDataValue()
ref = 2.5 * (n - r) / (n + 6 * r - 7.5 * b + 1)
ok = rok & nok & bok & np.isfinite(out) & (out != nd if nd is not None else True)
print(json.dumps({"max": float(np.abs(ref[ok] - out[ok]).max()), "n": int(ok.sum()), "valid": int((rok & nok & bok).sum())}))`, eos('red reflectance'), eos('NIR reflectance'), eos('blue reflectance'), Object.values(evi.outputs).find((o) => o.type === 'raster')!.path);
  assert.ok(e.n > 4000 && e.n === e.valid && e.max < 1e-5, `EVI equals numpy over GDAL's DN / 10000: ${JSON.stringify(e)}`);
  console.log(`MOD13Q1 scene EVI vs GDAL DN/10000 + numpy: max |diff| ${e.max} over ${e.n} pixels`);

  // Green is not in MOD13 at all: the refusal says so and where to take it.
  await assert.rejects(runTool('ndwi', { image: name }, { outDir: path.join(dir, 'o2'), cwd: dir }), (e: Error) => {
    assert.match(e.message, /MOD13Q1\.A2023001\.h18v04\.061\.2023020010101\.hdf: no band of the reflectance scene on grid "MODIS_Grid_16DAY_250m_500m_VI" is green .*MOD13\/MYD13 keeps only red, NIR, blue and MIR reflectance .*take green from a MOD09A1 file of the same tile and period/);
    return true;
  });
  // The file's own NDVI stays one field by name.
  const own = await openRaster(`${file}#250m 16 days NDVI`);
  assert.equal(own.bandCount, 1);
  await own.close();

  const data = await scanDataFolder(dir);
  const paths = data.items.map((it) => it.path);
  assert.ok(paths.includes(name) && paths.includes(`${name}#250m 16 days NDVI`) && paths.includes(`${name}#250m 16 days MIR reflectance`), paths.join(', '));
  assert.deepEqual(data.items.find((it) => it.path === name)!.bands?.map((b) => b.role ?? null), ['red', 'nir', 'blue', 'swir2']);
  const ready = executability(manifest('ndvi'), { items: data.items.filter((it) => !/^(out|o2|evi)\//.test(it.path)) });
  assert.equal(ready.ready, true, ready.notes.join(' | '));
  assert.deepEqual(ready.args, { image: name, red: 1, nir: 2 });
});
