/**
 * MODIS and VIIRS quality fields as cloud/quality masks through cloud_mask (src/core/raster/land-qa.ts):
 * a MOD13Q1-like tile's pixel reliability and VI Quality (rules cloud, cloud_snow, strict), an MCD43A4-like tile's
 * mandatory quality, a VNP09GA-like file's SurfReflect_QF1_1 + QF2_1 (read as one mask from either
 * name), a VNP09H1-like file's SurfReflect_State_500m, each written at test time by the HDF-EOS
 * libraries. Each mask is compared with numpy's computation of the same bit rule on the values GDAL
 * reads (written independently below, from the user guides' tables); fill is nodata. An explicit
 * sensor wins over the field name; a QA field of an unknown product is refused naming the file and
 * what to pass.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { runTool } from '../../src/core/raster/engine';
import { localizeSummary } from '../../src/core/results/summary-language';
import { landQaField } from '../../src/core/raster/land-qa';
import { gdalSkip, pyJson, tmpDir } from '../helpers/raster-gdal';
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

const W = 80, H = 60;
const UL: [number, number] = [1111950.519667, 5559752.598333], LR: [number, number] = [2223901.039333, 4447802.078667];
const MOD13_GRID = 'MODIS_Grid_16DAY_250m_500m_VI', MCD43_GRID = 'MOD_Grid_BRDF', VNP_1KM = 'VNP_Grid_1km_2D';

/**
 * numpy's mask for one rule from GDAL's reading of the QA field(s): argv = rule kind, rule, output
 * mask, then the QA subdataset name(s). Prints mismatches, ones and valid pixels, and whether the
 * mask is nodata exactly where the rule says there is no value.
 */
const PY_RULE = `
import sys, json, numpy as np
from osgeo import gdal
kind, rule, out = sys.argv[1], sys.argv[2], sys.argv[3]
keep = []
def read(n):
    d = gdal.Open(n); keep.append(d); b = d.GetRasterBand(1); a = b.ReadAsArray().astype(np.int64)
    nd = b.GetNoDataValue()
    if nd is None:
        # GDAL's HDF5 driver leaves an HDF-EOS5 field's _FillValue in the metadata, not as nodata.
        md = {**d.GetMetadata(), **b.GetMetadata()}
        nd = next((float(v) for k, v in md.items() if k.endswith('_FillValue')), None)
    return a, (a != nd) if nd is not None else np.ones(a.shape, bool)
if kind == 'state':
    a, valid = read(sys.argv[4]); st = a & 3; cir = (a >> 8) & 3
    ref = (st == 1) | (st == 2) | ((a & 4) != 0) | (cir >= 2) | ((a & 1024) != 0)
    if rule != 'cloud': ref |= ((a & 4096) != 0) | ((a & 32768) != 0)
    if rule == 'strict': ref |= (cir == 1) | ((a & 8192) != 0)
elif kind == 'reliability':
    a, valid = read(sys.argv[4]); valid &= (a >= 0) & (a <= 3)
    ref = np.isin(a, {'cloud': [3], 'cloud_snow': [2, 3], 'strict': [1, 2, 3]}[rule])
elif kind == 'viq':
    a, valid = read(sys.argv[4]); modland = a & 3; valid &= modland != 3
    ref = (modland == 2) | ((a & 1024) != 0) | ((a & 32768) != 0)
    if rule != 'cloud': ref |= (a & 16384) != 0
    if rule == 'strict': ref |= (modland == 1) | ((a & 256) != 0) | (((a >> 6) & 3) == 3)
elif kind == 'mcd43':
    a, valid = read(sys.argv[4]); valid &= (a == 0) | (a == 1); ref = a == 1
elif kind == 'viirs':
    q1, v1 = read(sys.argv[4]); q2, v2 = read(sys.argv[5]); valid = v1 & v2
    conf = (q1 >> 2) & 3
    ref = (conf >= (1 if rule == 'strict' else 2)) | ((q2 & 8) != 0) | ((q2 & 64) != 0) | ((q2 & 128) != 0)
    if rule != 'cloud': ref |= (q2 & 32) != 0
elif kind == 'qf1':
    q1, valid = read(sys.argv[4]); ref = ((q1 >> 2) & 3) >= 2
od = gdal.Open(out); ob = od.GetRasterBand(1); m = ob.ReadAsArray()
ref = ref.astype(np.int64)
print(json.dumps({"bad": int((m[valid] != ref[valid]).sum()), "ones": int(ref[valid].sum()), "n": int(valid.sum()),
  "nodataOk": bool((m[~valid] == ob.GetNoDataValue()).all()), "nnodata": int((~valid).sum())}))
`;

/** Runs cloud_mask and compares its mask with PY_RULE; returns the run and numpy's counts. */
async function maskVsNumpy(dir: string, image: string, args: Record<string, unknown>, kind: string, rule: string, qa: string[], out: string) {
  const run = await runTool('cloud_mask', { image, ...args }, { outDir: path.join(dir, out), cwd: dir });
  const d = pyJson(PY_RULE, kind, rule, run.outputs.mask.path, ...qa);
  assert.equal(d.bad, 0, `${image} rule ${rule}: the mask equals numpy over GDAL (${d.ones} flagged of ${d.n})`);
  assert.ok(d.ones > 50 && d.ones < d.n - 50, `${image} rule ${rule}: both classes present (${d.ones} of ${d.n}): the comparison can fail`);
  assert.ok(d.nodataOk, `${image}: nodata exactly where the QA has no value`);
  return { run, d };
}

test('QA fields by name: MOD09/VNP09H1 state, MOD13 pixel reliability (not VNP13\'s), MCD43 mandatory quality, VIIRS QF1/QF2; other fields none', () => {
  const k = (s: string) => landQaField(s)?.kind;
  assert.equal(k('MOD09A1.hdf#sur_refl_state_500m'), 'modis_state');
  assert.equal(k('MOD09GA.hdf#state_1km_1'), 'modis_state');
  assert.equal(k('VNP09H1.A2023001.h18v04.002.h5#SurfReflect_State_500m'), 'modis_state');
  assert.equal(k('MOD13Q1.hdf#250m 16 days pixel reliability'), 'mod13_reliability');
  assert.equal(k('MOD13A2.hdf#1 km 16 days pixel reliability'), 'mod13_reliability');
  assert.equal(k('MOD13A3.hdf#1 km monthly pixel reliability'), 'mod13_reliability');
  assert.equal(k('VNP13A2.A2023001.h18v04.002.h5#1 km 16 days pixel reliability'), undefined, 'VNP13 reliability is another scale');
  assert.equal(k('MCD43A4.hdf#BRDF_Albedo_Band_Mandatory_Quality_Band4'), 'mcd43_quality');
  assert.deepEqual(landQaField('VNP09GA.h5#SurfReflect_QF2_1'), { kind: 'viirs_qf', field: 'SurfReflect_QF2_1', qf: 2 });
  assert.deepEqual(landQaField('VNP09GA.h5#VNP_Grid_1km_2D/SurfReflect_QF1_1')?.qf, 1);
  assert.equal(k('MOD13Q1.hdf#250m 16 days VI Quality'), 'mod13_vi_quality');
  assert.equal(k('VNP13A1.h5#500 m 16 days VI Quality'), undefined, 'VNP13 VI Quality bits differ');
  for (const other of ['MOD11A1.hdf#QC_Day', 'VNP09GA.h5#SurfReflect_QF7_1', 'MCD43A4.hdf#Nadir_Reflectance_Band1', 'MOD09A1.hdf', 'MCD43A2.hdf#BRDF_Albedo_Quality']) {
    assert.equal(k(other), undefined, other);
  }
});

/** A MOD13Q1-like tile: pixel reliability (int8, fill −1, valid 0..3) with every class, and the red reflectance beside it. */
function mod13Spec(file: string): { file: string; grids: EosGridSpec[] } {
  const f = (name: string, type: string, fill: number, expr: string, attrs: EosFieldSpec['attrs']): EosFieldSpec => ({ name: `250m 16 days ${name}`, dims: 'YDim,XDim', type, shape: [H, W], tile: [30, 40], comp: 4, fill, expr, attrs: { long_name: `250m 16 days ${name}`, ...attrs } });
  return {
    file,
    grids: [{
      name: MOD13_GRID, xdim: W, ydim: H, ul: UL, lr: LR, proj: 'SNSOID', sphere: -1, params: [6371007.181],
      fields: [
        f('NDVI', 'int16', -3000, '(i * 7919) % 12000 - 2000', { units: 'NDVI', valid_range: ['int16', [-2000, 10000]], scale_factor: ['float64', [10000]] }),
        // MODLAND QA 00/01/10/11, adjacent cloud, mixed clouds, snow, shadow and aerosol bits at different rates, and fill.
        f('VI Quality', 'uint16', 65535, 'np.where(i % 97 == 3, 65535, np.where(i % 5 == 0, 2, np.where(i % 7 == 0, 1, np.where(i % 29 == 0, 3, 0))) + ((i // 3) % 4) * 64 + (i % 11 == 0) * 256 + (i % 13 == 0) * 1024 + (i % 17 == 0) * 16384 + (i % 19 == 0) * 32768 + (i % 23 == 0) * 4)', { units: 'bits', valid_range: ['uint16', [0, 65534]] }),
        // Every class, in an order that is not the flat index's, and some fill.
        f('pixel reliability', 'int8', -1, 'np.where(i % 41 == 5, -1, (i * 7 + i // 80) % 4)', { units: 'rank', valid_range: ['int8', [0, 3]] }),
      ],
    }],
  };
}

test('cloud_mask on MOD13Q1 "250m 16 days pixel reliability" (cloudy 3 by default, snow/ice with rule cloud_snow, marginal too with strict) and "250m 16 days VI Quality" bits; equal to numpy over GDAL; the rule in stats and summary (zh too)', { skip: skipWhy('the MOD13 reliability test', hdf4LibsMissing), timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-landqa-mod13-');
  const name = 'MOD13Q1.A2023001.h18v04.061.2023020010101.hdf';
  const file = path.join(dir, name);
  writeHdf4(mod13Spec(file));
  const eos = `HDF4_EOS:EOS_GRID:"${file}":${MOD13_GRID}:250m 16 days pixel reliability`;
  const counts: number[] = [];
  for (const rule of ['cloud', 'cloud_snow', 'strict']) {
    const { run, d } = await maskVsNumpy(dir, `${name}#250m 16 days pixel reliability`, rule === 'cloud' ? {} : { rule }, 'reliability', rule, [eos], `o-${rule}`);
    assert.equal(run.stats.sensor, 'mod13_reliability');
    assert.equal(run.stats.rule, rule);
    assert.ok(d.nnodata > 50, `the fill −1 is nodata (${d.nnodata} pixels)`);
    counts.push(d.ones);
    if (rule === 'cloud') {
      assert.match(run.summary, /of valid pixels are cloudy \(MOD13 pixel reliability 3, snow\/ice 2 and marginal 1 kept as 0\)/);
      assert.match(localizeSummary(run, 'zh').text, /的有效像元为云覆盖 \(MOD13 pixel reliability 3/);
    }
    if (rule === 'strict') assert.match(run.summary, /are not good quality \(MOD13 pixel reliability 1 marginal, 2 snow\/ice or 3 cloudy, rule strict\)/);
    console.log(`MOD13 pixel reliability rule ${rule}: ${d.ones} of ${d.n} flagged, 0 mismatches against numpy over GDAL, ${d.nnodata} fill pixels nodata`);
  }
  assert.ok(counts[0] < counts[1] && counts[1] < counts[2], `each rule flags more: ${counts}`);
  // The VI Quality bits, by the same rules.
  const viq = `HDF4_EOS:EOS_GRID:"${file}":${MOD13_GRID}:250m 16 days VI Quality`;
  const vCounts: number[] = [];
  for (const rule of ['cloud', 'cloud_snow', 'strict']) {
    const { run, d } = await maskVsNumpy(dir, `${name}#250m 16 days VI Quality`, rule === 'cloud' ? {} : { rule }, 'viq', rule, [viq], `v-${rule}`);
    assert.deepEqual([run.stats.sensor, run.stats.rule], ['mod13_vi_quality', rule]);
    assert.ok(d.nnodata > 100, `fill and MODLAND 11 (not produced) are nodata (${d.nnodata})`);
    vCounts.push(d.ones);
    if (rule === 'cloud') assert.match(localizeSummary(run, 'zh').text, /为云或云影 \(MOD13 VI Quality/);
    console.log(`MOD13 VI Quality rule ${rule}: ${d.ones} of ${d.n} flagged, 0 mismatches against numpy over GDAL, ${d.nnodata} nodata`);
  }
  assert.ok(vCounts[0] < vCounts[1] && vCounts[1] < vCounts[2], `each rule flags more: ${vCounts}`);
  // An explicit sensor wins over the name: its preset is checked (and here does not fit), no reliability mask is made.
  await assert.rejects(runTool('cloud_mask', { image: `${name}#250m 16 days pixel reliability`, sensor: 'landsat89_c2l2' }, { outDir: path.join(dir, 'ls'), cwd: dir }),
    /\(sensor=landsat89_c2l2\) does not fit .*MOD13Q1\.A2023001.*pixel reliability/);
});

/** An MCD43A4-like tile: the mandatory quality fields (uint8, fill 255: 0, 1 and fill) beside two reflectance fields. */
function mcd43Spec(file: string): { file: string; grids: EosGridSpec[] } {
  return {
    file,
    grids: [{
      name: MCD43_GRID, xdim: W, ydim: H, ul: UL, lr: LR, proj: 'SNSOID', sphere: -1, params: [6371007.181],
      fields: [
        ...[1, 2].map((b): EosFieldSpec => ({
          name: `BRDF_Albedo_Band_Mandatory_Quality_Band${b}`, dims: 'YDim,XDim', type: 'uint8', shape: [H, W], tile: [30, 40], comp: 4, fill: 255,
          expr: `np.where(i % ${40 + b} == 0, 255, ((i * ${3 + b}) // 7) % 2)`, attrs: { long_name: `BRDF_Albedo_Band_Mandatory_Quality_Band${b}`, units: 'concatenated flags', valid_range: ['uint8', [0, 254]] },
        })),
        ...[1, 2].map((b): EosFieldSpec => ({
          name: `Nadir_Reflectance_Band${b}`, dims: 'YDim,XDim', type: 'int16', shape: [H, W], tile: [30, 40], comp: 4, fill: 32767, expr: `300 + (i * ${37 + b}) % 2500`,
          attrs: { long_name: `Nadir_Reflectance_Band${b}`, units: 'reflectance, no units', valid_range: ['int16', [0, 32766]], scale_factor: ['float64', [0.0001]], add_offset: ['float64', [0]] },
        })),
      ],
    }],
  };
}

test('cloud_mask on MCD43A4 BRDF_Albedo_Band_Mandatory_Quality_Band2: 1 = magnitude inversion, 0 = full inversion, 255 nodata; equal to numpy over GDAL; a rule is refused', { skip: skipWhy('the MCD43A4 quality test', hdf4LibsMissing), timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-landqa-mcd43-');
  const name = 'MCD43A4.A2023001.h18v04.061.2023010041530.hdf';
  const file = path.join(dir, name);
  writeHdf4(mcd43Spec(file));
  const field = 'BRDF_Albedo_Band_Mandatory_Quality_Band2';
  const { run, d } = await maskVsNumpy(dir, `${name}#${field}`, {}, 'mcd43', 'cloud', [`HDF4_EOS:EOS_GRID:"${file}":${MCD43_GRID}:${field}`], 'o');
  assert.deepEqual([run.stats.sensor, run.stats.qa_field, run.stats.rule], ['mcd43_quality', field, undefined]);
  assert.ok(d.nnodata > 50, `fill 255 is nodata (${d.nnodata})`);
  assert.match(run.summary, /are magnitude inversion, lower quality \(MCD43 mandatory quality 1, 0 is full BRDF inversion\)/);
  assert.match(localizeSummary(run, 'zh').text, /为量级反演（质量较低）/);
  console.log(`MCD43A4 mandatory quality: ${d.ones} of ${d.n} magnitude inversions, 0 mismatches against numpy over GDAL`);
  await assert.rejects(runTool('cloud_mask', { image: `${name}#${field}`, rule: 'strict' }, { outDir: path.join(dir, 'r'), cwd: dir }),
    /argument "rule" \(strict\) does not apply to .*MCD43A4\.A2023001\.h18v04\.061\.2023010041530\.hdf#BRDF_Albedo_Band_Mandatory_Quality_Band2: MCD43 mandatory quality has one rule/);
});

/** A VNP09GA-like file: QF1_1/QF2_1 (uint8, every bit pattern) on the 1 km grid; `qfs` picks which are written. */
function vnp09gaSpec(file: string, qfs = [1, 2]) {
  const qf = (n: number, expr: string): He5FieldSpec => ({ name: `SurfReflect_QF${n}_1`, dims: 'YDim,XDim', type: 'uint8', shape: [H, W], tile: [H / 2, W / 2], deflate: 4, expr, attrs: { long_name: `Surface reflectance quality flags ${n}` } });
  return {
    file,
    grids: [{
      name: VNP_1KM, xdim: W, ydim: H, ul: UL, lr: LR, proj: 'SNSOID' as const, sphere: -1, params: [6371007.181],
      fields: [
        { name: 'SurfReflect_M5_1', dims: 'YDim,XDim', type: 'int16', shape: [H, W], tile: [H / 2, W / 2], deflate: 4, fill: -28672, expr: '300 + (i * 11) % 3000', attrs: { long_name: 'M5', scale_factor: ['float64', [0.0001]], add_offset: ['float64', [0]] } } as He5FieldSpec,
        // QF2: shadow, cirrus and snow bits set on about a fifth of the pixels each, so QF1 decides most.
        ...(qfs.includes(1) ? [qf(1, '(i * 37 + i // 80) % 256')] : []),
        ...(qfs.includes(2) ? [qf(2, '((i * 13) % 5 == 0) * 8 + ((i * 7) % 9 == 0) * 64 + ((i * 3) % 11 == 0) * 128 + ((i * 17) % 6 == 0) * 32 + (i % 3)')] : []),
      ],
    }],
  };
}

test('cloud_mask on VNP09GA SurfReflect_QF1_1 or SurfReflect_QF2_1: QF1 cloud confidence with QF2 shadow and thin cirrus as one mask, rules adding snow and probably clear; equal to numpy over GDAL', { skip: skipWhy('the VIIRS QF test', he5LibMissing), timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-landqa-vnp09ga-');
  const name = 'VNP09GA.A2023001.h18v04.002.2023002093412.h5';
  const file = path.join(dir, name);
  writeHe5(vnp09gaSpec(file));
  const h5 = (f: string) => `HDF5:"${file}"://HDFEOS/GRIDS/${VNP_1KM}/Data_Fields/${f}`;
  const qa = [h5('SurfReflect_QF1_1'), h5('SurfReflect_QF2_1')];
  const counts: number[] = [];
  for (const rule of ['cloud', 'cloud_snow', 'strict']) {
    const { run, d } = await maskVsNumpy(dir, `${name}#SurfReflect_QF1_1`, rule === 'cloud' ? {} : { rule }, 'viirs', rule, qa, `o-${rule}`);
    assert.deepEqual([run.stats.sensor, run.stats.rule, run.stats.qa_fields], ['viirs_qf', rule, ['SurfReflect_QF1_1', 'SurfReflect_QF2_1']]);
    counts.push(d.ones);
    console.log(`VNP09GA QF1+QF2 rule ${rule}: ${d.ones} of ${d.n} flagged, 0 mismatches against numpy over GDAL`);
  }
  assert.ok(counts[0] < counts[1] && counts[1] < counts[2], `each rule flags more: ${counts}`);
  // Named by QF2, the same mask.
  const { run: by2 } = await maskVsNumpy(dir, `${name}#SurfReflect_QF2_1`, {}, 'viirs', 'cloud', qa, 'o-qf2');
  assert.deepEqual(by2.stats.qa_fields, ['SurfReflect_QF2_1', 'SurfReflect_QF1_1']);
  assert.match(by2.summary, /are cloud, cloud shadow or cirrus \(VIIRS QF1 cloud confidence probably or confidently cloudy \+ QF2 cloud shadow, thin cirrus\)/);
  assert.match(localizeSummary(by2, 'zh').text, /为云、云影或卷云 \(VIIRS/);

  // A file without QF2: the mask is QF1's alone, and says so.
  const only = path.join(dir, 'VNP09GA.A2023002.h18v04.002.2023003093412.h5');
  writeHe5(vnp09gaSpec(only, [1]));
  const { run: one } = await maskVsNumpy(dir, `${only}#SurfReflect_QF1_1`, {}, 'qf1', 'cloud', [`HDF5:"${only}"://HDFEOS/GRIDS/${VNP_1KM}/Data_Fields/SurfReflect_QF1_1`], 'o-one');
  assert.deepEqual(one.stats.qa_fields, ['SurfReflect_QF1_1']);
  assert.match(String(one.stats.note), /has no SurfReflect_QF2_1: the mask is from SurfReflect_QF1_1 alone/);
  assert.match(one.summary, /are cloud \(VIIRS QF1 cloud confidence probably or confidently cloudy\)/);
});

test('cloud_mask on a VNP09H1-like SurfReflect_State_500m reads the MOD09 state bits; equal to numpy over GDAL', { skip: skipWhy('the VNP09H1 state test', he5LibMissing), timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-landqa-vnp09h1-');
  const name = 'VNP09H1.A2023001.h18v04.002.2023010093412.h5';
  const file = path.join(dir, name);
  writeHe5({
    file,
    grids: [{
      name: 'VIIRS_Grid_500m_2D', xdim: W, ydim: H, ul: UL, lr: LR, proj: 'SNSOID', sphere: -1, params: [6371007.181],
      fields: [{ name: 'SurfReflect_State_500m', type: 'uint16', dims: 'YDim,XDim', shape: [H, W], tile: [H / 2, W / 2], deflate: 4, fill: 65535, expr: 'np.where(i % 97 == 1, 65535, (i % 5 == 0) * 1 + (i % 23 == 0) * 2 + (i % 7 == 0) * 4 + ((i * 5) % 8) * 8 + (i % 3 == 0) * ((i // 3) % 4) * 256 + (i % 11 == 0) * 1024 + (i % 13 == 0) * 4096 + (i % 17 == 0) * 8192 + (i % 19 == 0) * 32768)', attrs: { long_name: '500m State flags' } }],
    }],
  });
  for (const rule of ['cloud', 'cloud_snow', 'strict']) {
    const { run, d } = await maskVsNumpy(dir, `${name}#SurfReflect_State_500m`, rule === 'cloud' ? {} : { rule }, 'state', rule, [`HDF5:"${file}"://HDFEOS/GRIDS/VIIRS_Grid_500m_2D/Data_Fields/SurfReflect_State_500m`], `o-${rule}`);
    assert.equal(run.stats.sensor, 'modis_state');
    assert.ok(d.nnodata > 10, 'fill 65535 is nodata');
    console.log(`VNP09H1 state rule ${rule}: ${d.ones} of ${d.n} flagged, 0 mismatches against numpy over GDAL`);
  }
});

test('a QA field of an unknown product is refused naming the file and what to pass; a rule on SCL/QA_PIXEL is refused', { skip: skipWhy('the QA refusal test', hdf4LibsMissing), timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-landqa-refuse-');
  const name = 'MOD11A1.A2023001.h18v04.061.2023002093412.hdf';
  const file = path.join(dir, name);
  writeHdf4({ file, grids: [{ name: 'MODIS_Grid_Daily_1km_LST', xdim: W, ydim: H, ul: UL, lr: LR, proj: 'SNSOID', sphere: -1, params: [6371007.181], fields: [{ name: 'QC_Day', dims: 'YDim,XDim', type: 'uint8', shape: [H, W], expr: 'i % 256', attrs: { long_name: 'Quality control for daytime LST and emissivity' } }] }] });
  await assert.rejects(runTool('cloud_mask', { image: `${name}#QC_Day` }, { outDir: path.join(dir, 'o'), cwd: dir }), (e: Error) => {
    assert.match(e.message, /cloud_mask: cannot tell how to read QA band 1 of .*MOD11A1\.A2023001\.h18v04\.061\.2023002093412\.hdf#QC_Day; pass --arg sensor=sentinel2_l2a \(SCL\) or --arg sensor=landsat89_c2l2 \(QA_PIXEL\); a MODIS\/VIIRS quality field is read by name: .*pixel reliability.*SurfReflect_QF1_1/);
    return true;
  });
  await assert.rejects(runTool('cloud_mask', { image: `${name}#QC_Day`, rule: 'cloud_snow' }, { outDir: path.join(dir, 'o2'), cwd: dir }),
    /argument "rule" applies to MODIS\/VIIRS quality fields named after # .*not to band 1 of .*MOD11A1.*#QC_Day/);
});
