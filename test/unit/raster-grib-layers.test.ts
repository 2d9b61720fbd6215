/**
 * A GRIB file's messages listed as layers (io/grib-layers.ts): ELEMENT where unique, else
 * ELEMENT:LEVEL, else the band number; every listed name opens the field GDAL 3.6 calls band N (its
 * samples and GRIB_* metadata equal GDAL's band N; a field on another grid than the first, which
 * GDAL crops onto the first grid, equals GDAL's read of that message copied to a file of its own).
 * The scan and the raster view list them like NetCDF variables; a damaged file is unreadable with
 * its reason, and a file of thousands of fields lists its first MAX_LISTED quickly, with a warning.
 * Fixtures: a small grid written by GDAL, relabelled and concatenated with ecCodes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openRaster } from '../../src/core/raster/io/dataset';
import type { GribDataset } from '../../src/core/raster/io/grib';
import type { GribField } from '../../src/core/raster/io/grib2-sections';
import { gribLayerNames, MAX_LISTED } from '../../src/core/raster/io/grib-layers';
import { selectField } from '../../src/core/raster/io/grib-select';
import { gridLayers } from '../../src/core/raster/io/layers';
import { listsLayers } from '../../src/core/raster/raster-files';
import { scanDataFolder } from '../../src/core/data/scan';
import { rasterFileView } from '../../src/core/results/raster-view';
import { needGdalAndEccodes, py, readF64, runTool, tmpDir } from '../helpers/raster-gdal';

const skip = needGdalAndEccodes();

let dir = '';
const at = (f: string) => path.join(dir, f);
const cat = (out: string, parts: string[]) => fs.writeFileSync(at(out), Buffer.concat(parts.map((f) => fs.readFileSync(at(f)))));

/**
 * era5.grib: GRIB1 2T, MSL (unique elements). gfs.grib2: TMP at 2 m, at 850 and 500 hPa, PRMSL
 * (TMP repeated at distinct levels). repeated.grib2: TMP at 2 m twice (forecast hours 6 and 7,
 * alike in element and level), PRMSL. mixed.grib2: gfs.grib2 then RH on a 12×7 grid of its own. other-first.grib2:
 * PRMSL, then RH on another grid (the whole file is one band). cut.grib2: gfs.grib2 cut inside its
 * third message.
 */
function fixtures(): string {
  if (dir) return dir;
  dir = tmpDir('gw-griblayers-');
  py(String.raw`
from osgeo import gdal
import numpy as np
gdal.UseExceptions()
rng = np.random.default_rng(11)
d = gdal.GetDriverByName('MEM').Create('', 72, 37, 1, gdal.GDT_Float32)
d.SetGeoTransform([-2.5, 5, 0, 92.5, 0, -5]); d.SetProjection('EPSG:4326')
d.GetRasterBand(1).WriteArray((285 + rng.normal(0, 5, (37, 72))).astype('f4'))
gdal.Translate('one.grib2', d, format='GRIB', creationOptions=['DATA_ENCODING=SIMPLE_PACKING'])`, dir);
  const set = (keys: string, from: string, to: string) => runTool('grib_set', '-s', keys, at(from), at(to));
  const tmp = 'discipline=0,parameterCategory=0,parameterNumber=0,dataDate=20240105,dataTime=1200,indicatorOfUnitOfTimeRange=1';
  set(`${tmp},typeOfFirstFixedSurface=103,scaleFactorOfFirstFixedSurface=0,scaledValueOfFirstFixedSurface=2,forecastTime=6`, 'one.grib2', 't2m.grib2');
  set(`${tmp},typeOfFirstFixedSurface=103,scaleFactorOfFirstFixedSurface=0,scaledValueOfFirstFixedSurface=2,forecastTime=7`, 'one.grib2', 't2m-b.grib2');
  set(`${tmp},typeOfFirstFixedSurface=100,scaleFactorOfFirstFixedSurface=0,scaledValueOfFirstFixedSurface=85000,forecastTime=0`, 'one.grib2', 't850.grib2');
  set(`${tmp},typeOfFirstFixedSurface=100,scaleFactorOfFirstFixedSurface=0,scaledValueOfFirstFixedSurface=50000,forecastTime=0`, 'one.grib2', 't500.grib2');
  set('discipline=0,parameterCategory=3,parameterNumber=1,typeOfFirstFixedSurface=101,dataDate=20240105,dataTime=1200,forecastTime=12,centre=7', 'one.grib2', 'prmsl.grib2');
  const vals = Array.from({ length: 84 }, (_, i) => 20 + i * 0.75 - (i % 12) * 0.3);
  fs.writeFileSync(at('small.rules'), `set Ni=12; set Nj=7; set latitudeOfFirstGridPointInDegrees=60; set longitudeOfFirstGridPointInDegrees=0;
set latitudeOfLastGridPointInDegrees=0; set longitudeOfLastGridPointInDegrees=110; set iDirectionIncrementInDegrees=10; set jDirectionIncrementInDegrees=10;
set bitsPerValue=16; set discipline=0; set parameterCategory=1; set parameterNumber=1; set values={${vals.join(',')}}; write;\n`);
  runTool('grib_filter', '-o', at('small.grib2'), at('small.rules'), '/usr/share/eccodes/samples/GRIB2.tmpl');
  cat('gfs.grib2', ['t2m.grib2', 't850.grib2', 't500.grib2', 'prmsl.grib2']);
  cat('repeated.grib2', ['t2m.grib2', 't2m-b.grib2', 'prmsl.grib2']);
  cat('mixed.grib2', ['gfs.grib2', 'small.grib2']);
  cat('other-first.grib2', ['prmsl.grib2', 'small.grib2']);
  // ERA5 as CDS delivers it: GRIB1, ECMWF's table 128 (2T, then MSL).
  set('edition=1', 't2m.grib2', 'e1.grib1');
  set('centre=98,table2Version=128,indicatorOfParameter=167,indicatorOfTypeOfLevel=1', 'e1.grib1', '2t.grib1');
  set('centre=98,table2Version=128,indicatorOfParameter=151,indicatorOfTypeOfLevel=1', 'e1.grib1', 'msl.grib1');
  cat('era5.grib', ['2t.grib1', 'msl.grib1']);
  const gfs = fs.readFileSync(at('gfs.grib2'));
  const third = fs.readFileSync(at('t2m.grib2')).length + fs.readFileSync(at('t850.grib2')).length;
  fs.writeFileSync(at('cut.grib2'), gfs.subarray(0, third + 40));
  return dir;
}

interface GdalField { element: string; level: string; valid: string; w: number; h: number; values: Float64Array }

/**
 * GDAL's bands of `file` (GRIB_ELEMENT, GRIB_SHORT_NAME, GRIB_VALID_TIME, grid, samples), and for
 * each the samples GDAL reads from message N copied to a file of its own (grib_copy -w count=N),
 * the reference for a message GDAL crops onto the first grid.
 */
function gdalFields(file: string): { band: GdalField; own: GdalField }[] {
  const n = Number(py(`from osgeo import gdal\nprint(gdal.Open(${JSON.stringify(file)}).RasterCount)`).trim());
  const own = (i: number) => { const f = `${file}.${i}.grib2`; runTool('grib_copy', '-w', `count=${i}`, file, f); return f; };
  const read = (name: string, b: number): GdalField => {
    const r = JSON.parse(py(`
import json, tempfile
from osgeo import gdal
gdal.PushErrorHandler('CPLQuietErrorHandler')
d = gdal.Open(${JSON.stringify(name)}); b = d.GetRasterBand(${b}); m = b.GetMetadata()
f = tempfile.mktemp(); b.ReadAsArray().astype('f8').tofile(f)
print(json.dumps({'element': m['GRIB_ELEMENT'], 'level': m['GRIB_SHORT_NAME'], 'valid': m['GRIB_VALID_TIME'], 'w': d.RasterXSize, 'h': d.RasterYSize, 'file': f}))`));
    const values = readF64(r.file); fs.rmSync(r.file);
    return { ...r, values };
  };
  return Array.from({ length: n }, (_, i) => ({ band: read(file, i + 1), own: read(own(i + 1), 1) }));
}

/** Every name listed for `file` opens the field GDAL calls band N: same GRIB_* identity, same samples. */
async function roundTrips(file: string, names: string[]): Promise<void> {
  const gdal = gdalFields(file);
  assert.equal(names.length, gdal.length, `${file}: one name per GDAL band`);
  for (const [i, name] of names.entries()) {
    const ds = await openRaster(`${file}#${name}`) as GribDataset;
    try {
      const g = gdal[i], md = ds.bandMetadata[0];
      assert.deepEqual([md.GRIB_ELEMENT, md.GRIB_SHORT_NAME, md.GRIB_VALID_TIME], [g.band.element, g.band.level, g.band.valid], `#${name}: GDAL's band ${i + 1}`);
      // On the first grid GDAL's band N is the message; on another it is cropped, and the message read alone is the reference.
      const ref = ds.width === g.band.w && ds.height === g.band.h ? g.band : g.own;
      assert.deepEqual([ds.width, ds.height], [ref.w, ref.h], `#${name}: grid`);
      assert.deepEqual(Array.from(await ds.readWindowRaw(1, 0, 0, ds.width, ds.height)), Array.from(ref.values), `#${name}: samples of GDAL's band ${i + 1}`);
    } finally { await ds.close(); }
  }
}

test('GRIB messages are listed by element, element:level or band number, and each name opens GDAL\'s band N', { ...skip, timeout: 300_000 }, async () => {
  fixtures();
  const cases: [string, string[]][] = [
    ['era5.grib', ['2T', 'MSL']],
    ['gfs.grib2', ['TMP:2-HTGL', 'TMP:85000-ISBL', 'TMP:50000-ISBL', 'PRMSL']],
    ['repeated.grib2', ['1', '2', 'PRMSL']],
    ['mixed.grib2', ['TMP:2-HTGL', 'TMP:85000-ISBL', 'TMP:50000-ISBL', 'PRMSL', 'RH']],
    ['other-first.grib2', ['PRMSL', 'RH']],
  ];
  for (const [f, want] of cases) {
    const names = await gridLayers(at(f));
    assert.deepEqual(names, want, f);
    await roundTrips(at(f), names);
  }
  // Told by its bytes, not its name: a GRIB file under another extension lists its messages too.
  fs.copyFileSync(at('era5.grib'), at('era5.bin'));
  assert.deepEqual(await gridLayers(at('era5.bin')), ['2T', 'MSL']);
  // A WMO bulletin header before the first message, as GDAL allows.
  fs.writeFileSync(at('wmo.grib2'), Buffer.concat([Buffer.from('\x01\r\r\n123\r\r\nHTXA50 KWBC 050000\r\r\n', 'latin1'), fs.readFileSync(at('gfs.grib2'))]));
  assert.deepEqual(await gridLayers(at('wmo.grib2')), ['TMP:2-HTGL', 'TMP:85000-ISBL', 'TMP:50000-ISBL', 'PRMSL']);
});

test('a GRIB file rewritten in place is listed and opened anew, not from the field lists kept of it', { ...skip, timeout: 120_000 }, async () => {
  fixtures();
  const f = at('rewritten.grib2');
  cat('rewritten.grib2', ['t2m.grib2', 'prmsl.grib2']);
  assert.deepEqual(await gridLayers(f), ['TMP', 'PRMSL']);
  const level = async () => { const ds = await openRaster(`${f}#TMP`) as GribDataset; try { return ds.bandMetadata[0].GRIB_SHORT_NAME; } finally { await ds.close(); } };
  assert.equal(await level(), '2-HTGL');
  // The same size, other headers (850 hPa): a list kept by path alone would open the 2 m field's offsets and names.
  cat('rewritten.grib2', ['t850.grib2', 'prmsl.grib2']);
  assert.equal(fs.statSync(f).size, fs.statSync(at('t2m.grib2')).size + fs.statSync(at('prmsl.grib2')).size);
  assert.equal(await level(), '85000-ISBL');
  // Another file altogether: GRIB1 as ERA5 comes.
  fs.copyFileSync(at('era5.grib'), f);
  assert.deepEqual(await gridLayers(f), ['2T', 'MSL']);
  await roundTrips(f, ['2T', 'MSL']);
});

test('a damaged GRIB file fails listing naming the file and why', { ...skip, timeout: 120_000 }, async () => {
  fixtures();
  await assert.rejects(gridLayers(at('cut.grib2')), (e: Error) => e.message.startsWith(`${at('cut.grib2')}: message 3 claims`) && /cut short or damaged/.test(e.message));
});

/** A field with just what naming reads. */
const field = (element: string, level: string): GribField => ({ metadata: { GRIB_ELEMENT: element, GRIB_SHORT_NAME: level } } as unknown as GribField);

test('listed names follow the selector\'s rules: case-blind elements, an element spelled like element:level, digits, # and spaces', () => {
  const fields = [
    field('2T', '2-HTGL'), field('2t', '0-SFC'), // one element without case: by level
    field('TMP', '2-HTGL'), field('TMP', '2-htgl'), // element and level alike without case: numbers
    // The first's element:level is the third's element (matched first): a number; the third is its element.
    field('UGRD', '10-HTGL'), field('UGRD', '0-SFC'), field('UGRD:10-HTGL', '0-SFC'),
    field('123', '0-SFC'), // digits alone are a band number: element and level
    field('A#B', '0-SFC'), field(' PAD', '0-SFC'), // not carried by file#name: numbers
    field('var0_1_5', '0-SFC'), // GDAL's name for a parameter it has no table entry for
  ];
  const names = gribLayerNames(fields);
  assert.deepEqual(names, ['2T:2-HTGL', '2t:0-SFC', '3', '4', '5', 'UGRD:0-SFC', 'UGRD:10-HTGL', '123:0-SFC', '9', '10', 'var0_1_5']);
  // Each opens its own field by selectField, what file#name runs.
  names.forEach((n, i) => assert.equal(selectField(fields, n, 'x.grib2'), i + 1, `#${n}`));
});

test('the scan and the raster view list GRIB messages like NetCDF variables; a damaged GRIB is unreadable with its reason', { ...skip, timeout: 300_000 }, async () => {
  fixtures();
  const scanDir = tmpDir('gw-griblayers-scan-');
  for (const f of ['era5.grib', 'gfs.grib2', 'other-first.grib2', 'cut.grib2']) fs.copyFileSync(at(f), path.join(scanDir, f));
  const warnings: string[] = [];
  const data = await scanDataFolder(scanDir, (m) => warnings.push(m));
  assert.deepEqual(data.items.map((it) => it.path).sort(), [
    'era5.grib', 'era5.grib#2T', 'era5.grib#MSL',
    'gfs.grib2', 'gfs.grib2#PRMSL', 'gfs.grib2#TMP:2-HTGL', 'gfs.grib2#TMP:50000-ISBL', 'gfs.grib2#TMP:85000-ISBL',
    // Its first grid holds one band: the file opens as PRMSL; RH, on another grid, is listed too.
    'other-first.grib2', 'other-first.grib2#PRMSL', 'other-first.grib2#RH',
  ].sort());
  const rh = data.items.find((it) => it.path === 'other-first.grib2#RH')!;
  assert.deepEqual([rh.grid?.width, rh.grid?.height], [12, 7], 'RH on its own 12×7 grid');
  assert.equal(data.items.find((it) => it.path === 'gfs.grib2')!.bands?.length, 4);
  // A 2 m temperature's description says "Specified height level above ground": no DEM for all that.
  const t2m = data.items.find((it) => it.path === 'gfs.grib2#TMP:2-HTGL')!;
  assert.match(t2m.bands?.[0].description ?? '', /height level above ground/);
  assert.deepEqual([t2m.roles, t2m.bands?.[0].role], [undefined, undefined]);
  assert.deepEqual(data.unreadable?.map((u) => u.path), ['cut.grib2']);
  assert.match(data.unreadable![0].reason, /message 3 claims \d+ bytes.*cut short or damaged/);
  assert.ok(warnings.some((w) => w.includes('cut.grib2')), warnings.join('\n'));
  assert.ok(listsLayers('x.grib2', 1) && !listsLayers('x.nc', 1) && listsLayers('x.nc', 2) && !listsLayers('x.tif', undefined));

  // The raster view: the whole file (its first grid's messages), the messages listed as a cell names them.
  const view = await rasterFileView(at('mixed.grib2'));
  assert.match(view.summary, /^mixed\.grib2 holds 5 layers; shown: the whole file \(the messages on its first grid, one band each\)\. Name another as mixed\.grib2#<layer>/);
  assert.deepEqual(view.tables[0].rows, [['whole file', 'mixed.grib2'], ...['TMP:2-HTGL', 'TMP:85000-ISBL', 'TMP:50000-ISBL', 'PRMSL', 'RH'].map((l) => [l, `mixed.grib2#${l}`])]);
  // A first grid of one band: shown is its first message.
  const first = await rasterFileView(at('other-first.grib2'));
  assert.match(first.summary, /^other-first\.grib2 holds 2 layers; shown: PRMSL\./);
});

test('a GRIB file of thousands of fields lists its first MAX_LISTED from headers, quickly, with a warning naming the file', { ...skip, timeout: 300_000 }, async () => {
  fixtures();
  const big = at('many.grib2');
  const gfs = fs.readFileSync(at('gfs.grib2'));
  const copies = 1500; // 6000 fields
  fs.writeFileSync(big, Buffer.concat(Array.from({ length: copies }, () => gfs)));
  const warnings: string[] = [];
  const t0 = process.hrtime.bigint();
  const names = await gridLayers(big, (m) => warnings.push(m));
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  console.log(`listing ${copies * 4} GRIB fields (${(fs.statSync(big).size / 1e6).toFixed(1)} MB) took ${ms.toFixed(0)} ms`);
  assert.equal(names.length, MAX_LISTED);
  // Every field's element and level repeats 1500 times: band numbers.
  assert.deepEqual(names.slice(0, 3), ['1', '2', '3']);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], new RegExp(`^${big.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: holds 6000 GRIB fields; the first ${MAX_LISTED} are listed\\. Name another by its band number \\(many\\.grib2#${MAX_LISTED + 1} … many\\.grib2#6000`));
  // Linear in the fields (~0.2 ms each here); a quadratic listing takes minutes. Loose for a loaded CI machine.
  assert.ok(ms < 15_000, `listing took ${ms} ms`);
});
