/**
 * GRIB files read as GDAL 3.6's GRIB driver reads them. GRIB2 fixtures are written by GDAL itself
 * (gdal_translate -of GRIB, every DATA_ENCODING, spatial differencing orders 0–2, NBITS), then
 * relabelled with ecCodes (TMP at 2 m on ECMWF's sphere); bitmaps, GRIB1 (ERA5's 2T of table 128,
 * NCEP's TMP), east-to-west and south-to-north scanning are written by ecCodes. Each is compared
 * with GDAL: every sample of every band and windows, geotransform (0–360° grids cut at 180°), nodata,
 * band descriptions and GRIB_* metadata, CRS; Lambert conformal, polar stereographic and Mercator grids
 * placed and projected as GDAL does. Grids GeoWeave does not place are refused by name.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openRaster, RasterError } from '../../src/core/raster/io/dataset';
import type { GribDataset } from '../../src/core/raster/io/grib';
import { crsOfGeo } from '../../src/core/raster/crs/crs';
import { RASTER_FILE } from '../../src/core/raster/raster-files';
import proj4 from 'proj4';
import { gdalWindows, needGdalAndEccodes, py, runTool, readF64, tmpDir } from '../helpers/raster-gdal';

/** ecCodes writes the GRIB1, bitmap and relabelled files: skipped without it, except in CI. */
const skip = needGdalAndEccodes();
const grib = runTool;

let dir = '';
/** Writes the fixtures once: GDAL's encodings, ecCodes' relabelling, bitmaps and GRIB1. */
function fixtures(): string {
  if (dir) return dir;
  dir = tmpDir('gw-grib-');
  py(String.raw`
import os
from osgeo import gdal
import numpy as np
gdal.UseExceptions()
gdal.PushErrorHandler('CPLQuietErrorHandler')
os.chdir(${JSON.stringify(dir)})
rng = np.random.default_rng(7)
def mem(w, h, n, gt, seed):
    d = gdal.GetDriverByName('MEM').Create('', w, h, n, gdal.GDT_Float32)
    d.SetGeoTransform(gt); d.SetProjection('EPSG:4326')
    yy, xx = np.mgrid[0:h, 0:w]
    for b in range(n):
        a = 285 + 25 * np.cos(np.radians(90 - yy * abs(gt[5]))) * np.sin(xx / 9.0 + b) + rng.normal(0, 0.7, (h, w)) + 3 * b + seed
        d.GetRasterBand(b + 1).WriteArray(a.astype('f4'))
    return d
# A global 1° grid from 0° east (ERA5's and GFS's layout), two fields.
g = mem(360, 181, 2, [-0.5, 1, 0, 90.5, 0, -1], 0)
for enc in ['SIMPLE_PACKING', 'IEEE_FLOATING_POINT', 'PNG', 'JPEG2000']:
    gdal.Translate('global_%s.grib2' % enc.lower(), g, format='GRIB', creationOptions=['DATA_ENCODING=' + enc])
for o in [0, 1, 2]:
    gdal.Translate('global_complex%d.grib2' % o, g, format='GRIB', creationOptions=['DATA_ENCODING=COMPLEX_PACKING', 'SPATIAL_DIFFERENCING_ORDER=%d' % o])
gdal.Translate('global_nbits12.grib2', g, format='GRIB', creationOptions=['DATA_ENCODING=SIMPLE_PACKING', 'NBITS=12'])
gdal.Translate('global_nbits24.grib2', g, format='GRIB', creationOptions=['DATA_ENCODING=COMPLEX_PACKING', 'NBITS=24', 'SPATIAL_DIFFERENCING_ORDER=2'])
# Bit widths from 8 to 32 (PNG as 8/16/24/32-bit pixels; JPEG 2000 up to 16, what the WebAssembly decoder gives).
w = mem(50, 40, 1, [0, 1, 0, 40, 0, -1], 0); w.GetRasterBand(1).WriteArray(np.random.default_rng(3).normal(0, 1000, (40, 50)).astype('f4'))
for enc, widths in [('SIMPLE_PACKING', [8, 20, 32]), ('COMPLEX_PACKING', [8, 16, 24]), ('PNG', [8, 16, 24, 32]), ('JPEG2000', [8, 16])]:
    for nb in widths:
        gdal.Translate('nbits_%s_%d.grib2' % (enc.lower(), nb), w, format='GRIB', creationOptions=['DATA_ENCODING=' + enc, 'NBITS=%d' % nb, 'SPATIAL_DIFFERENCING_ORDER=1'])
# Constant fields, which each packing writes in its own short way (complex packing: no groups).
c = mem(30, 20, 1, [-180, 12, 0, 90, 0, -9], 0); c.GetRasterBand(1).Fill(3.7)
for enc in ['SIMPLE_PACKING', 'COMPLEX_PACKING', 'PNG', 'JPEG2000']:
    gdal.Translate('constant_%s.grib2' % enc.lower(), c, format='GRIB', creationOptions=['DATA_ENCODING=' + enc, 'SPATIAL_DIFFERENCING_ORDER=2'])
# A regional grid east of 180° (200°–299.5° as stored): moved west by 360°.
r = mem(200, 90, 1, [199.75, 0.5, 0, 60.25, 0, -0.5], 5)
gdal.Translate('east.grib2', r, format='GRIB', creationOptions=['DATA_ENCODING=SIMPLE_PACKING'])
# Missing values of complex packing (GDAL's nodata the primary missing value).
m = mem(120, 60, 1, [-30, 0.5, 0, 70, 0, -0.5], 9)
a = m.GetRasterBand(1).ReadAsArray(); a[10:25, 30:70] = -9999; a[40:, :15] = -9999
m.GetRasterBand(1).WriteArray(a); m.GetRasterBand(1).SetNoDataValue(-9999)
for o in [1, 2]:
    gdal.Translate('missing_complex%d.grib2' % o, m, format='GRIB', creationOptions=['DATA_ENCODING=COMPLEX_PACKING', 'SPATIAL_DIFFERENCING_ORDER=%d' % o])
# Projected grids: Lambert conformal with one and two standard parallels (HRRR's 3.30), polar stereographic (3.20), Mercator (3.10).
for name, proj in [('lambert1', '+proj=lcc +lat_0=38.5 +lon_0=-97.5 +lat_1=38.5 +lat_2=38.5'), ('lambert2', '+proj=lcc +lat_0=25 +lon_0=-95 +lat_1=25 +lat_2=45'),
                   ('polar', '+proj=stere +lat_0=90 +lat_ts=60 +lon_0=-105'), ('mercator', '+proj=merc +lat_ts=20 +lon_0=0')]:
    l = mem(80, 60, 1, [-2000000, 3000, 0, 1500000, 0, -3000], 2)
    l.SetProjection(proj + ' +R=6371229 +units=m')
    gdal.Translate(name + '.grib2', l, format='GRIB', creationOptions=['DATA_ENCODING=COMPLEX_PACKING', 'SPATIAL_DIFFERENCING_ORDER=2'])
`);
  const at = (f: string) => path.join(dir, f);
  // TMP at 2 m from ECMWF, on the 6371229 m sphere (GRIB2 shape 6, as ERA5 and GFS): converted to °C as GDAL does.
  grib('grib_set', '-s', 'discipline=0,parameterCategory=0,parameterNumber=0,typeOfFirstFixedSurface=103,scaleFactorOfFirstFixedSurface=0,scaledValueOfFirstFixedSurface=2,dataDate=20240105,dataTime=1200,indicatorOfUnitOfTimeRange=1,forecastTime=6,centre=98,shapeOfTheEarth=6', at('global_simple_packing.grib2'), at('t2m.grib2'));
  // Mean sea level pressure as complex packing, and the same field as GRIB1 from NCEP and as ERA5's 2T (table 128).
  grib('grib_set', '-s', 'discipline=0,parameterCategory=3,parameterNumber=1,typeOfFirstFixedSurface=101,centre=7', at('global_complex2.grib2'), at('prmsl.grib2'));
  grib('grib_set', '-s', 'edition=1', at('t2m.grib2'), at('era5_2t.grib1'));
  grib('grib_set', '-s', 'centre=7,table2Version=2,indicatorOfParameter=11', at('era5_2t.grib1'), at('tmp.grib1'));
  // Bitmaps (GRIB2 and GRIB1), written by ecCodes from a field with a hole; then scanned east to west, and south to north.
  const vals: number[] = [];
  for (let j = 0; j < 19; j++) for (let i = 0; i < 24; i++) vals.push(j >= 4 && j <= 8 && i >= 5 && i <= 12 ? -999 : 280 + i * 0.5 - j * 1.25 + ((i * 7 + j * 3) % 5) * 0.1);
  fs.writeFileSync(at('bitmap.rules'), `set Ni=24; set Nj=19; set latitudeOfFirstGridPointInDegrees=90; set longitudeOfFirstGridPointInDegrees=0;
set latitudeOfLastGridPointInDegrees=0; set longitudeOfLastGridPointInDegrees=345; set iDirectionIncrementInDegrees=15; set jDirectionIncrementInDegrees=5;
set bitsPerValue=16; set missingValue=-999; set bitmapPresent=1; set values={${vals.join(',')}}; write;\n`);
  grib('grib_filter', '-o', at('bitmap.grib2'), at('bitmap.rules'), '/usr/share/eccodes/samples/GRIB2.tmpl');
  grib('grib_filter', '-o', at('bitmap.grib1'), at('bitmap.rules'), '/usr/share/eccodes/samples/GRIB1.tmpl');
  grib('grib_set', '-s', 'swapScanningX=1', at('bitmap.grib2'), at('east_to_west.grib2'));
  grib('grib_set', '-s', 'swapScanningY=1', at('bitmap.grib2'), at('south_to_north.grib2'));
  // A 6-hour total precipitation (template 4.8, as GFS's APCP): GDAL names it APCP06.
  grib('grib_set', '-s', 'productDefinitionTemplateNumber=8,discipline=0,parameterCategory=1,parameterNumber=8,typeOfFirstFixedSurface=1,indicatorOfUnitOfTimeRange=1,forecastTime=6,lengthOfTimeRange=6,typeOfStatisticalProcessing=1', at('bitmap.grib2'), at('apcp.grib2'));
  // Messages on two grids: the global pair, then the small bitmap field.
  fs.writeFileSync(at('two_grids.grib2'), Buffer.concat([fs.readFileSync(at('t2m.grib2')), fs.readFileSync(at('bitmap.grib2'))]));
  // A WMO bulletin header before the first message (as GTS feeds deliver them).
  fs.writeFileSync(at('wmo_header.grib2'), Buffer.concat([Buffer.from('\x01\r\r\n123\r\r\nHRPA00 KWBC 051200\r\r\n', 'latin1'), fs.readFileSync(at('bitmap.grib2'))]));
  // A regular Gaussian grid (template 3.40) and a rotated lon/lat grid (3.1) from ecCodes' samples.
  fs.copyFileSync('/usr/share/eccodes/samples/gg_sfc_grib2.tmpl', at('gaussian.grib2'));
  fs.copyFileSync('/usr/share/eccodes/samples/rotated_ll_sfc_grib2.tmpl', at('rotated.grib2'));
  fs.copyFileSync('/usr/share/eccodes/samples/ccsds_grib2.tmpl', at('ccsds.grib2'));
  return dir;
}

interface GdalBands { gt: number[]; n: number; nodata: (number | null)[]; desc: string[]; md: Record<string, string>[]; wkt: string; files: string[] }

/** What GDAL says of a file: geotransform, bands, nodata, descriptions, metadata, CRS; every band's samples as float64 dumps. */
function gdalBands(file: string): { info: GdalBands; values: Float64Array[] } {
  const info = JSON.parse(py(`
import json, tempfile
from osgeo import gdal
gdal.PushErrorHandler('CPLQuietErrorHandler')
d = gdal.Open(${JSON.stringify(file)}); files = []
for i in range(d.RasterCount):
    f = tempfile.mktemp(); d.GetRasterBand(i + 1).ReadAsArray().astype('f8').tofile(f); files.append(f)
b = [d.GetRasterBand(i + 1) for i in range(d.RasterCount)]
print(json.dumps({'gt': d.GetGeoTransform(), 'n': d.RasterCount, 'nodata': [x.GetNoDataValue() for x in b], 'desc': [x.GetDescription() for x in b],
  'md': [x.GetMetadata() for x in b], 'wkt': d.GetProjection(), 'files': files}))`)) as GdalBands;
  const values = info.files.map((f) => { const a = readF64(f); fs.rmSync(f); return a; });
  return { info, values };
}

/** Opens `name` with GeoWeave and checks it against GDAL; returns the dataset (open) and GDAL's facts. */
async function sameAsGdal(name: string, gdalExtraBands = 0): Promise<{ ds: GribDataset; info: GdalBands }> {
  const file = path.join(fixtures(), name);
  const { info, values } = gdalBands(file);
  info.n -= gdalExtraBands;
  const ds = await openRaster(file) as GribDataset;
  assert.equal(ds.bandCount, info.n, `${name}: band count`);
  // Projected grids: the first point projected by proj4 here, by PROJ in GDAL (the same to a micrometre).
  ds.geo.geoTransform.forEach((v, i) => assert.ok(Math.abs(v - info.gt[i]) < 1e-6, `${name}: geotransform ${ds.geo.geoTransform} vs GDAL's ${info.gt}`));
  assert.equal(ds.dtype, 'float64');
  assert.equal(ds.nodata, info.nodata[0], `${name}: nodata`);
  for (let b = 0; b < info.n; b++) {
    assert.equal(ds.bandDescriptions[b], info.desc[b], `${name} band ${b + 1}: description`);
    for (const [k, v] of Object.entries(info.md[b])) {
      if (k === 'GRIB_PDS_TEMPLATE_ASSEMBLED_VALUES') continue; // degrib's own reassembly of section 4, not read here
      assert.equal(ds.bandMetadata[b][k], v, `${name} band ${b + 1}: ${k}`);
    }
    const got = await ds.readWindowRaw(b + 1, 0, 0, ds.width, ds.height);
    // GDAL's samples exactly: the same float32 steps as g2clib.
    assert.deepEqual(Array.from(got), Array.from(values[b]), `${name} band ${b + 1}: samples`);
  }
  return { ds, info };
}

test('GRIB2 written by GDAL in every encoding reads as GDAL reads it: all samples, geotransform, descriptions, metadata; bit widths 8 to 32; constant fields', { ...skip, timeout: 300_000 }, async () => {
  const names = ['simple_packing', 'ieee_floating_point', 'png', 'jpeg2000', 'complex0', 'complex1', 'complex2', 'nbits12', 'nbits24'].map((e) => `global_${e}.grib2`);
  for (const name of names) {
    const { ds } = await sameAsGdal(name);
    assert.equal(ds.width, 360); assert.equal(ds.height, 181);
    // 0–360° cut at 180° as GDAL 3.6: the corner half a degree west of −180°.
    assert.deepEqual(ds.geo.geoTransform, [-180.5, 1, 0, 90.5, 0, -1]);
    await ds.close();
  }
  const widths = fs.readdirSync(fixtures()).filter((f) => f.startsWith('nbits_'));
  assert.equal(widths.length, 12);
  for (const name of widths) await (await sameAsGdal(name)).ds.close();
  for (const enc of ['simple_packing', 'complex_packing', 'png', 'jpeg2000']) {
    const { ds } = await sameAsGdal(`constant_${enc}.grib2`);
    assert.equal((await ds.readWindowRaw(1, 29, 19, 1, 1))[0], Math.fround(3.7));
    await ds.close();
  }
});

test('windows equal GDAL\'s windows, and a band read window by window is decoded once', { ...skip, timeout: 300_000 }, async () => {
  const file = path.join(fixtures(), 'global_complex2.grib2');
  const wins: [number, [number, number, number, number]][] = [[1, [0, 0, 17, 9]], [2, [170, 80, 25, 30]], [1, [359, 180, 1, 1]], [2, [300, 3, 60, 170]], [1, [178, 0, 4, 181]]];
  const ref = gdalWindows(file, wins);
  const ds = await openRaster(file) as GribDataset;
  for (const [k, [b, [x, y, w, h]]] of wins.entries()) assert.deepEqual(Array.from(await ds.readWindowRaw(b, x, y, w, h)), Array.from(ref[k]), `window ${k}`);
  // Strips of band 1: the decoded field is kept (two bands cached, 360×181 doubles each).
  for (let y = 0; y < 181; y += 20) await ds.readWindow(1, 0, y, 360, Math.min(20, 181 - y));
  assert.deepEqual(ds.tileCacheUse(), { tiles: 2, bytes: 2 * 360 * 181 * 8 });
  // A cancelled read stops before decoding.
  const ctl = new AbortController(); ctl.abort(new Error('stop'));
  const fresh = await openRaster(file) as GribDataset;
  await assert.rejects(fresh.readWindow(2, 0, 0, 10, 10, ctl.signal), /stop/);
  await fresh.close();
  await ds.close();
  await assert.rejects(ds.readWindow(1, 0, 0, 1, 1), /closed/);
});

test('TMP at 2 m on the 6371229 m sphere: °C, "2[m] HTGL" and GRIB_* as GDAL, CRS the sphere; mean sea level pressure in complex packing', { ...skip, timeout: 300_000 }, async () => {
  const { ds, info } = await sameAsGdal('t2m.grib2');
  assert.equal(ds.bandDescriptions[0], '2[m] HTGL="Specified height level above ground"');
  assert.equal(ds.bandMetadata[0].GRIB_ELEMENT, 'TMP');
  assert.equal(ds.bandMetadata[0].GRIB_SHORT_NAME, '2-HTGL');
  assert.equal(ds.bandMetadata[0].GRIB_UNIT, '[C]');
  assert.equal(ds.bandMetadata[0].GRIB_VALID_TIME, String(Date.UTC(2024, 0, 5, 18) / 1000));
  assert.match(info.wkt, /SPHEROID\["Sphere",6371229,0\]/);
  const crs = crsOfGeo(ds.geo, 't2m.grib2')!;
  assert.ok(crs.geographic);
  assert.match(crs.def, /\+a=6371229 \+b=6371229|\+R=6371229/, crs.def);
  await ds.close();
  const p = await sameAsGdal('prmsl.grib2');
  assert.equal(p.ds.bandMetadata[0].GRIB_ELEMENT, 'PRMSL');
  assert.equal(p.ds.bandDescriptions[0], '0[-] MSL="Mean sea level"');
  await p.ds.close();
  // GDAL's own WGS 84 files (shape 5) are EPSG:4326.
  const w = await openRaster(path.join(fixtures(), 'global_png.grib2'));
  assert.equal(w.geo.epsg, 4326);
  await w.close();
});

test('bitmaps and missing values: nodata as GDAL (9999 under a bitmap, the missing value of complex packing); scanning either way', { ...skip, timeout: 300_000 }, async () => {
  for (const name of ['bitmap.grib2', 'east_to_west.grib2', 'south_to_north.grib2', 'wmo_header.grib2', 'apcp.grib2']) {
    const { ds } = await sameAsGdal(name);
    assert.equal(ds.nodata, 9999);
    const v = await ds.readWindow(1, 0, 0, ds.width, ds.height);
    assert.equal(v.filter(Number.isNaN).length, 5 * 8, `${name}: the hole reads as nodata`);
    await ds.close();
  }
  for (const name of ['missing_complex1.grib2', 'missing_complex2.grib2']) {
    const { ds } = await sameAsGdal(name);
    assert.equal(ds.nodata, -9999);
    const v = await ds.readWindow(1, 0, 0, ds.width, ds.height);
    assert.equal(v.filter(Number.isNaN).length, 15 * 40 + 20 * 15);
    await ds.close();
  }
  const a = await openRaster(path.join(fixtures(), 'apcp.grib2')) as GribDataset;
  assert.equal(a.bandMetadata[0].GRIB_ELEMENT, 'APCP06');
  await a.close();
  const { ds } = await sameAsGdal('east.grib2');
  assert.deepEqual(ds.geo.geoTransform, [-160.25, 0.5, 0, 60.25, 0, -0.5]); // 200° east stored: moved west by 360°
  await ds.close();
});

test('GRIB1 (ecCodes): NCEP TMP and ERA5 2T (table 128), bitmap; samples, descriptions, metadata, the 6367470 m sphere as GDAL', { ...skip, timeout: 300_000 }, async () => {
  const t = await sameAsGdal('tmp.grib1');
  assert.equal(t.ds.bandDescriptions[0], '2[m] HTGL (Specified height level above ground)');
  assert.equal(t.ds.bandMetadata[0].GRIB_ELEMENT, 'TMP');
  await t.ds.close();
  const e = await sameAsGdal('era5_2t.grib1');
  assert.equal(e.ds.bandMetadata[0].GRIB_ELEMENT, '2T');
  assert.equal(e.ds.bandCount, 2);
  await e.ds.close();
  const b = await sameAsGdal('bitmap.grib1');
  assert.equal(b.ds.nodata, 9999);
  assert.match(crsOfGeo(b.ds.geo, 'bitmap.grib1')!.def, /6367470/);
  await b.ds.close();
});

test('messages on two grids: the first grid\'s bands as GDAL reads them, and a warning naming the others (which GDAL crops onto the first grid)', { ...skip, timeout: 300_000 }, async () => {
  const { ds } = await sameAsGdal('two_grids.grib2', 1);
  assert.equal(ds.bandCount, 2);
  assert.match(ds.warnings!.join('\n'), /messages 3 are on another grid than message 1 .*grib_copy/);
  await ds.close();
});

test('Lambert conformal (1 and 2 parallels), polar stereographic and Mercator grids: samples and placement as GDAL, the CRS projecting as GDAL\'s', { ...skip, timeout: 300_000 }, async () => {
  for (const name of ['lambert1.grib2', 'lambert2.grib2', 'polar.grib2', 'mercator.grib2']) {
    const { ds } = await sameAsGdal(name);
    const crs = crsOfGeo(ds.geo, name)!;
    assert.ok(crs && !crs.geographic, `${name}: a projected CRS`);
    // Pixel centres to lon/lat, by GDAL's CRS (PROJ) and by ours (proj4 from the GeoTIFF keys it carries).
    const g = ds.geo.geoTransform, pts = [[0.5, 0.5], [79.5, 59.5], [40, 30]].map(([c, r]) => [g[0] + c * g[1], g[3] + r * g[5]]);
    const ref = JSON.parse(py(`
import json
from osgeo import gdal, osr
d = gdal.Open(${JSON.stringify(path.join(fixtures(), name))}); s = d.GetSpatialRef(); ll = s.CloneGeogCS()
s.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER); ll.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
t = osr.CoordinateTransformation(s, ll)
print(json.dumps([t.TransformPoint(x, y)[:2] for x, y in ${JSON.stringify(pts)}]))`)) as number[][];
    const ours = pts.map((p) => proj4(crs.def).inverse(p));
    ours.forEach((p, i) => assert.ok(Math.abs(p[0] - ref[i][0]) < 1e-7 && Math.abs(p[1] - ref[i][1]) < 1e-7, `${name}: ${p} vs GDAL's ${ref[i]}`));
    await ds.close();
  }
});

test('grids GeoWeave does not place are refused naming their template and a route; damaged files say what is wrong', { ...skip, timeout: 300_000 }, async () => {
  const d = fixtures();
  await assert.rejects(openRaster(path.join(d, 'gaussian.grib2')), (e: Error) => e instanceof RasterError && /gaussian\.grib2: message 1 is on grid template 3\.40 \(Gaussian lat\/lon\).*gdalwarp -t_srs EPSG:4326.*cdo remapbil/.test(e.message));
  await assert.rejects(openRaster(path.join(d, 'rotated.grib2')), (e: Error) => e instanceof RasterError && /template 3\.1 \(rotated lon\/lat\).*gdalwarp/.test(e.message));
  await assert.rejects(openRaster(path.join(d, 'ccsds.grib2')), (e: Error) => e instanceof RasterError && /data representation template 5\.42 \(CCSDS.*grib_set -r -s packingType=grid_simple/.test(e.message));
  const good = fs.readFileSync(path.join(d, 'global_complex1.grib2'));
  const cases: [string, Buffer, RegExp][] = [
    ['cut.grib2', good.subarray(0, 3000), /message 1 claims \d+ bytes, and 3000 are left/],
    ['nogrib.grib2', Buffer.from('not a grib file at all, just text'), /not a GRIB file/],
    ['edition.grib2', Buffer.concat([Buffer.from('GRIB\0\0\0\x03'), Buffer.alloc(30)]), /not a GRIB file|edition 3/],
  ];
  // A section 5 claiming 40 bits per value; a grid of 4 billion points.
  const s5 = good.indexOf(Buffer.from([0, 0, 0, 49, 5]));
  const wide = Buffer.from(good); wide[s5 + 19] = 40;
  cases.push(['wide.grib2', wide, /packs values in 40 bits; GRIB packs at most 32/]);
  const huge = Buffer.from(good); huge.writeUInt32BE(0xffffff00, 16 + 21 + 30); huge.writeUInt32BE(0xffffff00, 16 + 21 + 34);
  cases.push(['huge.grib2', huge, /grid; GeoWeave reads grids up to/]);
  for (const [name, bytes, re] of cases) {
    fs.writeFileSync(path.join(d, name), bytes);
    await assert.rejects(openRaster(path.join(d, name)), (e: Error) => e instanceof RasterError && e.message.includes(name) && re.test(e.message), name);
  }
  // Damaged packed data fails on read, naming the band and message.
  const body = Buffer.from(good); body.writeUInt32BE(3, s5 + 31); // three groups for 65160 values
  fs.writeFileSync(path.join(d, 'groups.grib2'), body);
  const ds = await openRaster(path.join(d, 'groups.grib2'));
  await assert.rejects(ds.readWindow(1, 0, 0, 5, 5), (e: Error) => e instanceof RasterError && /groups\.grib2: band 1 \(message 1\): section 7: its groups hold \d+ values, section 5 says 65160/.test(e.message));
  await ds.close();
});

test('.grib, .grib2, .grb and .grb2 are raster files', () => {
  for (const f of ['era5.grib', 'gfs.t00z.pgrb2.0p25.f000.grib2', 'x.GRB', 'hrrr.grb2']) assert.ok(RASTER_FILE.test(f), f);
  assert.ok(!RASTER_FILE.test('notes.grib.txt'));
});
