/**
 * One GRIB message by `file#N`, `file#ELEMENT` or `file#ELEMENT:LEVEL` (io/grib-select.ts), checked
 * against GDAL 3.6: the one band's samples, description and GRIB_* metadata equal GDAL's band N; a
 * message on another grid than the first reads on its own grid as GDAL reads it from a file of its
 * own. raster_info's band table carries the GRIB_* items gdalinfo -json lists. Fixtures: a small
 * grid written by GDAL, relabelled and concatenated with ecCodes (GRIB2), and ERA5-like GRIB1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openRaster, RasterError } from '../../src/core/raster/io/dataset';
import type { GribDataset } from '../../src/core/raster/io/grib';
import { fileLayer, RASTER_FILE } from '../../src/core/raster/raster-files';
import { rasterInfoTool } from '../../src/core/raster/tools/info-tools';
import { gdalinfoJson, needGdalAndEccodes, py, runTool, readF64, tmpDir } from '../helpers/raster-gdal';

/** ecCodes writes the GRIB1, bitmap and relabelled files: skipped without it, except in CI. */
const skip = needGdalAndEccodes();
const run = runTool;

let dir = '';
/**
 * mixed.grib2: bands 1–2 TMP at 2 m (ECMWF), 3 PRMSL at mean sea level (NCEP), 4 TMP at 850 hPa, all
 * on a 72×37 5° grid; 5 RH on a 12×7 grid of its own (ecCodes' sample). era5.grib: GRIB1 2T and MSL.
 */
function fixtures(): string {
  if (dir) return dir;
  dir = tmpDir('gw-gribsel-');
  py(String.raw`
from osgeo import gdal
import numpy as np
gdal.UseExceptions()
rng = np.random.default_rng(5)
d = gdal.GetDriverByName('MEM').Create('', 72, 37, 2, gdal.GDT_Float32)
d.SetGeoTransform([-2.5, 5, 0, 92.5, 0, -5]); d.SetProjection('EPSG:4326')
for b in range(2): d.GetRasterBand(b + 1).WriteArray((285 + rng.normal(0, 5, (37, 72)) + 10 * b).astype('f4'))
gdal.Translate('base.grib2', d, format='GRIB', creationOptions=['DATA_ENCODING=SIMPLE_PACKING'])`, dir);
  const at = (f: string) => path.join(dir, f);
  run('grib_set', '-s', 'discipline=0,parameterCategory=0,parameterNumber=0,typeOfFirstFixedSurface=103,scaleFactorOfFirstFixedSurface=0,scaledValueOfFirstFixedSurface=2,dataDate=20240105,dataTime=1200,indicatorOfUnitOfTimeRange=1,forecastTime=6,centre=98', at('base.grib2'), at('t2m.grib2'));
  run('grib_copy', '-w', 'count=1', at('base.grib2'), at('one.grib2'));
  run('grib_set', '-s', 'discipline=0,parameterCategory=3,parameterNumber=1,typeOfFirstFixedSurface=101,dataDate=20240105,dataTime=1200,forecastTime=12,centre=7', at('one.grib2'), at('prmsl.grib2'));
  run('grib_set', '-s', 'discipline=0,parameterCategory=0,parameterNumber=0,typeOfFirstFixedSurface=100,scaleFactorOfFirstFixedSurface=0,scaledValueOfFirstFixedSurface=85000,dataDate=20240106,dataTime=0000,forecastTime=0', at('one.grib2'), at('t850.grib2'));
  const vals = Array.from({ length: 84 }, (_, i) => 20 + i * 0.75 - (i % 12) * 0.3);
  fs.writeFileSync(at('small.rules'), `set Ni=12; set Nj=7; set latitudeOfFirstGridPointInDegrees=60; set longitudeOfFirstGridPointInDegrees=0;
set latitudeOfLastGridPointInDegrees=0; set longitudeOfLastGridPointInDegrees=110; set iDirectionIncrementInDegrees=10; set jDirectionIncrementInDegrees=10;
set bitsPerValue=16; set discipline=0; set parameterCategory=1; set parameterNumber=1; set values={${vals.join(',')}}; write;\n`);
  run('grib_filter', '-o', at('small.grib2'), at('small.rules'), '/usr/share/eccodes/samples/GRIB2.tmpl');
  fs.writeFileSync(at('mixed.grib2'), Buffer.concat(['t2m', 'prmsl', 't850', 'small'].map((f) => fs.readFileSync(at(`${f}.grib2`)))));
  // ERA5 as CDS delivers it: GRIB1, ECMWF's table 128 (2T, then MSL).
  run('grib_copy', '-w', 'count=1', at('t2m.grib2'), at('t2m1.grib2'));
  run('grib_set', '-s', 'edition=1', at('t2m1.grib2'), at('e1.grib1'));
  run('grib_set', '-s', 'centre=98,table2Version=128,indicatorOfParameter=167,indicatorOfTypeOfLevel=1', at('e1.grib1'), at('2t.grib1'));
  run('grib_set', '-s', 'centre=98,table2Version=128,indicatorOfParameter=151,indicatorOfTypeOfLevel=1', at('e1.grib1'), at('msl.grib1'));
  fs.writeFileSync(at('era5.grib'), Buffer.concat([fs.readFileSync(at('2t.grib1')), fs.readFileSync(at('msl.grib1'))]));
  return dir;
}

interface GdalBand { gt: number[]; w: number; h: number; desc: string; md: Record<string, string>; nodata: number | null; values: Float64Array }

/** GDAL's band `band` of `file`: grid, description, metadata, nodata, every sample (float64). */
function gdalBand(file: string, band: number): GdalBand {
  const r = JSON.parse(py(`
import json, tempfile
from osgeo import gdal
gdal.PushErrorHandler('CPLQuietErrorHandler')
d = gdal.Open(${JSON.stringify(file)}); b = d.GetRasterBand(${band})
f = tempfile.mktemp(); b.ReadAsArray().astype('f8').tofile(f)
print(json.dumps({'gt': d.GetGeoTransform(), 'w': d.RasterXSize, 'h': d.RasterYSize, 'desc': b.GetDescription(), 'md': b.GetMetadata(), 'nodata': b.GetNoDataValue(), 'file': f}))`));
  const values = readF64(r.file); fs.rmSync(r.file);
  return { ...r, values };
}

/** `name` (file#selector) opens one band equal to GDAL's band `band` of `ref` (the file, or another GDAL reads the message from). */
async function sameAsGdalBand(name: string, ref: string, band: number): Promise<void> {
  const g = gdalBand(ref, band);
  const ds = await openRaster(name) as GribDataset;
  try {
    assert.equal(ds.source, name, `${name}: source keeps file#selector`);
    assert.equal(ds.bandCount, 1, `${name}: one band`);
    assert.deepEqual([ds.width, ds.height], [g.w, g.h], `${name}: size`);
    ds.geo.geoTransform.forEach((v, i) => assert.ok(Math.abs(v - g.gt[i]) < 1e-9, `${name}: geotransform ${ds.geo.geoTransform} vs GDAL's ${g.gt}`));
    assert.equal(ds.bandDescriptions[0], g.desc, `${name}: description`);
    assert.equal(ds.nodata, g.nodata, `${name}: nodata`);
    for (const [k, v] of Object.entries(g.md)) if (k !== 'GRIB_PDS_TEMPLATE_ASSEMBLED_VALUES') assert.equal(ds.bandMetadata[0][k], v, `${name}: ${k}`);
    assert.deepEqual(Array.from(await ds.readWindowRaw(1, 0, 0, ds.width, ds.height)), Array.from(g.values), `${name}: samples`);
  } finally { await ds.close(); }
}

test('file.grib2#N, #ELEMENT and #ELEMENT:LEVEL open one message as GDAL\'s band N; a message on another grid reads on its own grid', { ...skip, timeout: 300_000 }, async () => {
  const mixed = path.join(fixtures(), 'mixed.grib2');
  // The whole file: GDAL lists 5 bands (the fifth cropped onto the first grid); GeoWeave the first grid's 4.
  const all = await openRaster(mixed);
  assert.equal(all.bandCount, 4);
  assert.match(all.warnings!.join('\n'), /messages 5 are on another grid .*open one by its band number, as mixed\.grib2#5/);
  await all.close();
  for (const n of [1, 2, 3, 4]) await sameAsGdalBand(`${mixed}#${n}`, mixed, n);
  await sameAsGdalBand(`${mixed}#PRMSL`, mixed, 3);
  await sameAsGdalBand(`${mixed}#prmsl`, mixed, 3);
  await sameAsGdalBand(`${mixed}#TMP:85000-ISBL`, mixed, 4);
  await sameAsGdalBand(`${mixed}#tmp:85000-isbl`, mixed, 4);
  await sameAsGdalBand(`${mixed}#RH`, path.join(fixtures(), 'small.grib2'), 1);
  await sameAsGdalBand(`${mixed}#5`, path.join(fixtures(), 'small.grib2'), 1);
  // GRIB1 as ERA5 comes: GDAL's elements 2T and MSL; ecCodes' short name 2t.
  const era5 = path.join(fixtures(), 'era5.grib');
  await sameAsGdalBand(`${era5}#2t`, era5, 1);
  await sameAsGdalBand(`${era5}#MSL`, era5, 2);
  await sameAsGdalBand(`${era5}#2`, era5, 2);
  // Relative to cwd, as notebooks name files; reopened by its source (what the pixel pipeline does).
  const rel = await openRaster('mixed.grib2#3', { cwd: fixtures() });
  assert.equal(rel.source, `${mixed}#3`);
  const again = await openRaster(rel.source);
  assert.deepEqual(Array.from(await again.readWindowRaw(1, 0, 0, 72, 37)), Array.from(await rel.readWindowRaw(1, 0, 0, 72, 37)));
  await rel.close(); await again.close();
});

test('a selector matching no message or several says so naming the file and listing the messages', { ...skip, timeout: 300_000 }, async () => {
  const mixed = path.join(fixtures(), 'mixed.grib2');
  const fails = async (sel: string, re: RegExp) => {
    await assert.rejects(openRaster(`${mixed}#${sel}`), (e: Error) => {
      assert.ok(e instanceof RasterError, `#${sel}: a RasterError`);
      assert.ok(e.message.startsWith(`${mixed}: `), `#${sel}: names the file: ${e.message}`);
      assert.match(e.message, re, `#${sel}`);
      return true;
    });
  };
  const list = '1 TMP 2-HTGL valid 2024-01-05T18:00:00Z, 2 TMP 2-HTGL valid 2024-01-05T18:00:00Z, 3 PRMSL 0-MSL valid 2024-01-05T12:12:00Z, 4 TMP 85000-ISBL valid 2024-01-06T00:00:00Z, 5 RH 0-SFC valid 2007-03-23T12:00:00Z';
  const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  await fails('TMP', new RegExp(`"#TMP" matches 3 messages: 1 TMP 2-HTGL valid 2024-01-05T18:00:00Z, 2 TMP 2-HTGL valid 2024-01-05T18:00:00Z, 4 TMP 85000-ISBL valid 2024-01-06T00:00:00Z; name one by its band number, as mixed\\.grib2#1$`));
  await fails('TMP:2-HTGL', /"#TMP:2-HTGL" matches 2 messages: 1 TMP .*, 2 TMP .*; name one by its band number, as mixed\.grib2#1$/);
  await fails('UGRD', new RegExp(`no message is "#UGRD" .*; its 5 messages: ${esc(list)}; name one as mixed\\.grib2#1 or mixed\\.grib2#PRMSL$`));
  await fails('6', new RegExp(`"#6" names band 6, and the file holds 5 \\(numbered 1\\.\\.5 as GDAL numbers them\\): ${esc(list)}; name one as`));
  await fails('0', /"#0" names band 0, and the file holds 5/);
  await fails('99999999999999999999', /"#99999999999999999999" names band 99999999999999999999, and the file holds 5/);
  for (const odd of ['-1', '1e3', ' ', 'TMP:', ':2-HTGL']) await fails(odd, /no message is "#.*" \(by band number.*\); its 5 messages: 1 TMP/);
  // The listing is capped: 30 copies of one message.
  const many = path.join(fixtures(), 'many.grib2');
  fs.writeFileSync(many, Buffer.concat(Array(30).fill(fs.readFileSync(path.join(fixtures(), 'prmsl.grib2')))));
  await assert.rejects(openRaster(`${many}#PRMSL`), (e: Error) => e.message.startsWith(`${many}: "#PRMSL" matches 30 messages: 1 PRMSL`) && /20 PRMSL 0-MSL valid [^,]*, and 10 more \(grib_ls or gdalinfo lists them all\); name one by its band number, as many\.grib2#1$/.test(e.message));
  // A TIFF named as if it were GRIB: a GRIB selector on a file of another kind.
  const tif = path.join(fixtures(), 'x.tif');
  py(`from osgeo import gdal\ngdal.GetDriverByName('GTiff').Create(${JSON.stringify(tif)}, 4, 4, 1)`);
  fs.copyFileSync(tif, path.join(fixtures(), 'fake.grib2'));
  await assert.rejects(openRaster(`${path.join(fixtures(), 'fake.grib2')}#1`), /fake\.grib2: "#1" names a variable of a NetCDF or HDF file or a GRIB message, and this is not one of those \(it is a TIFF\)/);
});

test('raster_info lists each band\'s GRIB_* metadata as gdalinfo -json does, with reference and valid times as dates', { ...skip, timeout: 300_000 }, async () => {
  const d = fixtures();
  const info = gdalinfoJson(path.join(d, 'mixed.grib2'));
  const keys = ['GRIB_ELEMENT', 'GRIB_SHORT_NAME', 'GRIB_COMMENT', 'GRIB_UNIT', 'GRIB_REF_TIME', 'GRIB_VALID_TIME', 'GRIB_FORECAST_SECONDS'];
  const ctx = (image: string) => ({ args: { image: path.join(d, image) }, outDir: d, cwd: d, signal: new AbortController().signal, progress: () => undefined });
  const whole = await rasterInfoTool.run(ctx('mixed.grib2') as any);
  const bands = (whole.stats as any).bands as Record<string, unknown>[];
  assert.equal(bands.length, 4);
  for (const [i, b] of bands.entries()) {
    const md = info.bands[i].metadata[''] as Record<string, string>;
    for (const k of keys) assert.equal(b[k], md[k], `band ${i + 1}: ${k}`);
    assert.equal(b.description, info.bands[i].description);
    assert.equal(b.reference_time, new Date(Number(md.GRIB_REF_TIME) * 1000).toISOString().replace('.000Z', 'Z'));
  }
  assert.deepEqual([bands[3].GRIB_ELEMENT, bands[3].GRIB_SHORT_NAME, bands[3].GRIB_UNIT, bands[3].valid_time], ['TMP', '85000-ISBL', '[C]', '2024-01-06T00:00:00Z']);
  const one = await rasterInfoTool.run(ctx('mixed.grib2#3') as any);
  const b3 = (one.stats as any).bands as Record<string, unknown>[];
  assert.equal(b3.length, 1);
  for (const k of keys) assert.equal(b3[0][k], info.bands[2].metadata[''][k], `#3: ${k}`);
  assert.equal(b3[0].GRIB_COMMENT, 'Pressure reduced to MSL [Pa]');
});

test('file.grib2#N is a raster path, and its file is the GRIB file', () => {
  for (const p of ['gfs.t00z.pgrb2.0p25.f000.grib2#5', 'era5.grib#2t', 'hrrr.grb2#TMP:2-HTGL', 'x.GRB#1']) {
    assert.ok(RASTER_FILE.test(p), p);
    assert.equal(fileLayer(p)?.file, p.split('#')[0]);
    assert.equal(fileLayer(p)?.variable, p.split('#')[1]);
  }
  assert.ok(!RASTER_FILE.test('era5.grib#'));
});
