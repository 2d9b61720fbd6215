/**
 * ERDAS Imagine (.img, HFA) rasters read as GDAL 3.6's HFA driver reads them, on files GDAL writes
 * at test time: every sample type (u1/u2/u4 through f64), uncompressed and run-length compressed
 * (COMPRESSED=YES), in the .img or a spill file (USE_SPILL=YES); every band whole and in windows
 * equals ReadAsArray; geotransform, nodata and descriptions equal GDAL's; CRSs of every projection
 * read (lon/lat, UTM north and south, Albers, LCC, TM, polar stereographic, Mercator, LAEA and custom
 * parameters) give the same lon/lat as GDAL/osr for the same pixels; the colour table and class
 * names of an NLCD-like layer and a raster attribute table. ENVI `.img` + `.hdr` pairs still open
 * as ENVI. Damaged files are refused naming the file and what is wrong, and a window reads only the
 * blocks it touches.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { openRaster, type RasterDataset } from '../../src/core/raster/io/dataset';
import { HfaDataset } from '../../src/core/raster/io/hfa';
import { EnviDataset } from '../../src/core/raster/io/envi';
import { LONLAT, crsOfGeo, transformer } from '../../src/core/raster/crs/crs';
import { RASTER_FILE } from '../../src/core/raster/raster-files';
import { scanDataFolder } from '../../src/core/data/scan';
import { gdalWindows, needGdal, py, tmpDir } from '../helpers/raster-gdal';

const skip = needGdal();
type Window = [number, number, number, number];

/** Sample files of every type, compressed and not, 150×97 in 2 bands (runs and noise, across block edges). */
function makeTypes(dir: string): void {
  py(String.raw`
import os, numpy as np
from osgeo import gdal, osr
gdal.UseExceptions()
os.chdir(${JSON.stringify(dir)})
rng = np.random.default_rng(7)
s = osr.SpatialReference(); s.ImportFromEPSG(32633)
W, H = 150, 97
def data(dt, b):
    a = rng.integers(0, 200, (H, W)).astype('f8')
    a[:, 40:90] = 17 + b
    a[60:, :] = np.repeat(rng.integers(0, 200, (1, W)), H - 60, 0)
    if dt in ('Int16', 'Int32', 'Float32', 'Float64'): a -= 100
    if dt in ('UInt16', 'Int16'): a *= 150
    if dt in ('UInt32', 'Int32'): a *= 9000001
    if dt in ('Float32', 'Float64'): a = a * 1.37 + 0.25
    return a
for dt in ['Byte', 'Int8', 'UInt16', 'Int16', 'UInt32', 'Int32', 'Float32', 'Float64']:
    m = gdal.GetDriverByName('MEM').Create('', W, H, 2, gdal.GDT_Byte if dt == 'Int8' else gdal.GetDataTypeByName(dt))
    m.SetGeoTransform((500000, 30, 0, 4600000, 0, -30)); m.SetProjection(s.ExportToWkt())
    for b in range(2): m.GetRasterBand(b + 1).WriteArray(data(dt, b))
    m.GetRasterBand(1).SetNoDataValue(17)
    for comp in ['NO', 'YES']:
        gdal.Translate('%s_%s.img' % (dt.lower(), 'rle' if comp == 'YES' else 'raw'), m, format='HFA', creationOptions=(['PIXELTYPE=SIGNEDBYTE'] if dt == 'Int8' else []) + ['COMPRESSED=' + comp])
for bits in (1, 2, 4):
    m = gdal.GetDriverByName('MEM').Create('', 133, 70, 1, gdal.GDT_Byte)
    m.GetRasterBand(1).WriteArray(rng.integers(0, 2 ** bits, (70, 133)))
    m.SetGeoTransform((10, 0.01, 0, 50, 0, -0.01)); m.SetProjection(osr.SRS_WKT_WGS84_LAT_LONG)
    for comp in ('NO', 'YES'):
        gdal.Translate('u%d_%s.img' % (bits, comp.lower()), m, format='HFA', creationOptions=['NBITS=%d' % bits, 'COMPRESSED=' + comp])
m = gdal.GetDriverByName('MEM').Create('', 130, 90, 3, gdal.GDT_Int16)
for i in range(3): m.GetRasterBand(i + 1).WriteArray(rng.integers(-3000, 3000, (90, 130)))
m.SetGeoTransform((300000, 10, 0, 5000000, 0, -10)); s.ImportFromEPSG(32733); m.SetProjection(s.ExportToWkt())
gdal.Translate('spill.img', m, format='HFA', creationOptions=['USE_SPILL=YES'])
`);
}

/** An HFA file GDAL writes from arrays: `expr` is numpy over `i` (the flat index, rows × columns) and `b` (the band, from 0). */
function writeHfa(file: string, o: { w: number; h: number; bands: number; type: string; expr: string; gt: number[]; srs?: string; options: string[]; then?: string }): void {
  py(`
import numpy as np
from osgeo import gdal
gdal.UseExceptions()
m = gdal.GetDriverByName('MEM').Create('', ${o.w}, ${o.h}, ${o.bands}, gdal.GDT_${o.type})
i = np.arange(${o.w * o.h}).reshape(${o.h}, ${o.w})
for b in range(${o.bands}): m.GetRasterBand(b + 1).WriteArray(${o.expr})
m.SetGeoTransform(${JSON.stringify(o.gt)})
${o.srs ? `m.SetProjection('${o.srs}')` : ''}
gdal.Translate(${JSON.stringify(file)}, m, format='HFA', creationOptions=${JSON.stringify(o.options)})
${o.then ?? ''}`);
}

/** What GDAL says of a file: size, bands, geotransform, nodata and description of each band. */
function gdalMeta(file: string): { size: [number, number, number]; gt: number[]; nodata: (number | null)[]; desc: string[] } {
  return JSON.parse(py(`
import json
from osgeo import gdal
d = gdal.Open(${JSON.stringify(file)}); bs = [d.GetRasterBand(i + 1) for i in range(d.RasterCount)]
print(json.dumps({'size': [d.RasterXSize, d.RasterYSize, d.RasterCount], 'gt': list(d.GetGeoTransform()), 'nodata': [b.GetNoDataValue() for b in bs], 'desc': [b.GetDescription() for b in bs]}))`));
}

/** Windows of every band equal GDAL's (GDAL 3.6 reads s8 as Byte: its values are compared as int8). */
async function sameSamples(ds: RasterDataset, file: string, windows: Window[], what: string): Promise<number> {
  const reads: [number, Window][] = [];
  for (let b = 1; b <= ds.bandCount; b++) for (const w of windows) reads.push([b, w]);
  const want = gdalWindows(file, reads);
  for (let i = 0; i < reads.length; i++) {
    const [b, w] = reads[i];
    const got = Array.from(await ds.readWindowRaw(b, ...w));
    const ref = Array.from(want[i], (v) => (ds.dtype === 'int8' ? (v << 24) >> 24 : v));
    assert.equal(got.length, ref.length, `${what} band ${b} window ${w}`);
    const bad = got.findIndex((v, k) => !Object.is(v, ref[k]));
    assert.equal(bad, -1, `${what} band ${b} window ${w}: sample ${bad} is ${got[bad]}, GDAL reads ${ref[bad]}`);
  }
  return reads.length;
}

test('every sample type, uncompressed and run-length compressed, and a spill file: samples, geotransform, nodata and descriptions equal GDAL', { ...skip, timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-hfa-');
  makeTypes(dir);
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.img')).sort();
  assert.equal(files.length, 23);
  const dtypes = new Set<string>();
  for (const f of files) {
    const file = path.join(dir, f);
    const ds = await openRaster(file);
    try {
      assert.ok(ds instanceof HfaDataset, f);
      dtypes.add(ds.dtype);
      const g = gdalMeta(file);
      assert.deepEqual([ds.width, ds.height, ds.bandCount], g.size, f);
      assert.deepEqual(ds.geo.geoTransform, g.gt, `${f} geotransform`);
      assert.deepEqual(ds.bandDescriptions, g.desc, `${f} descriptions`);
      assert.equal(ds.nodata, g.nodata[0], `${f} nodata`);
      const W = ds.width, H = ds.height;
      await sameSamples(ds, file, [[0, 0, W, H], [63, 63, 2, 2], [5, H - 30, W - 20, 20], [W - 1, H - 1, 1, 1], [64, 0, 64, H]], f);
    } finally {
      await ds.close();
    }
  }
  assert.deepEqual([...dtypes].sort(), ['float32', 'float64', 'int16', 'int32', 'int8', 'uint16', 'uint32', 'uint8']);
  // The compressed files are run-length coded (smaller), and the spill file holds the samples.
  for (const t of ['byte', 'int16', 'uint32']) assert.ok(fs.statSync(path.join(dir, `${t}_rle.img`)).size < fs.statSync(path.join(dir, `${t}_raw.img`)).size * 0.95, t);
  assert.ok(fs.statSync(path.join(dir, 'spill.img')).size < 20000 && fs.existsSync(path.join(dir, 'spill.ige')));
  // readWindow: nodata (17 in band 1) as NaN.
  const ds = await openRaster(path.join(dir, 'byte_rle.img'));
  const raw = await ds.readWindowRaw(1, 40, 0, 5, 1), f = await ds.readWindow(1, 40, 0, 5, 1);
  assert.deepEqual(Array.from(raw), [17, 17, 17, 17, 17]);
  assert.ok(Array.from(f).every(Number.isNaN));
  await ds.close();
  // Without its spill file the layer is refused saying where its blocks are.
  fs.renameSync(path.join(dir, 'spill.ige'), path.join(dir, 'moved.ige'));
  const sp = await openRaster(path.join(dir, 'spill.img'));
  await assert.rejects(() => sp.readWindowRaw(1, 0, 0, 10, 10), /spill\.img: layer Layer_1: its blocks are in the spill file "spill\.ige", which is not beside it/);
  await sp.close();
});

/** One small raster per CRS, written by GDAL with the geotransform given. */
const CRSS: [string, string, number[]][] = [
  ['geo_wgs84', 'EPSG:4326', [10, 0.01, 0, 50, 0, -0.01]],
  ['geo_nad83', 'EPSG:4269', [-100, 0.01, 0, 40, 0, -0.01]],
  ['utm33n', 'EPSG:32633', [500000, 30, 0, 4600000, 0, -30]],
  ['utm19s', 'EPSG:32719', [300000, 30, 0, 6300000, 0, -30]],
  ['nad83_utm15', 'EPSG:26915', [400000, 30, 0, 4500000, 0, -30]],
  ['conus_albers', 'EPSG:5070', [-2000000, 30, 0, 3000000, 0, -30]],
  ['laea_europe', 'EPSG:3035', [4000000, 100, 0, 3000000, 0, -100]],
  ['lambert93', 'EPSG:2154', [650000, 25, 0, 6860000, 0, -25]],
  // GDAL writes OSGB36's datum without its shift and reads it back so (towgs84 0): not EPSG:27700 any more.
  ['british_grid', 'EPSG:27700', [400000, 50, 0, 300000, 0, -50]],
  ['antarctic_ps', 'EPSG:3031', [-500000, 1000, 0, 500000, 0, -1000]],
  ['arctic_ps', 'EPSG:3413', [-500000, 1000, 0, 500000, 0, -1000]],
  ['world_mercator', 'EPSG:3395', [1000000, 500, 0, 6000000, 0, -500]],
  ['custom_lcc', '+proj=lcc +lat_1=33 +lat_2=45 +lat_0=39 +lon_0=-96 +x_0=100000 +y_0=200000 +datum=WGS84 +units=m', [0, 30, 0, 400000, 0, -30]],
  ['custom_tm', '+proj=tmerc +lat_0=0 +lon_0=21 +k=0.9999 +x_0=500000 +y_0=0 +ellps=GRS80 +towgs84=0,0,0,0,0,0,0 +units=m', [480000, 10, 0, 5500000, 0, -10]],
  ['custom_laea', '+proj=laea +lat_0=45 +lon_0=-100 +x_0=0 +y_0=0 +datum=WGS84 +units=m', [-100000, 100, 0, 100000, 0, -100]],
  ['modis_sinusoidal', '+proj=sinu +lon_0=0 +x_0=0 +y_0=0 +R=6371007.181 +units=m', [-7783653.637667, 463.312716528, 0, 5559752.598333, 0, -463.312716528]],
  ['custom_eqc', '+proj=eqc +lat_ts=30 +lat_0=0 +lon_0=10 +x_0=0 +y_0=0 +datum=WGS84 +units=m', [1000000, 1000, 0, 5000000, 0, -1000]],
];

test('CRSs of every projection read give the same lon/lat as GDAL/osr for the same pixels; the geotransform is GDAL\'s', { ...skip, timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-hfa-crs-');
  const pixels = [[0.5, 0.5], [39.5, 0.5], [20, 15], [0.5, 29.5], [39.5, 29.5]];
  const ref = JSON.parse(py(`
import os, json, numpy as np
from osgeo import gdal, osr
gdal.UseExceptions()
os.chdir(${JSON.stringify(dir)})
out = {}
wgs = osr.SpatialReference(); wgs.ImportFromEPSG(4326); wgs.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
for name, crs, gt in ${JSON.stringify(CRSS)}:
    s = osr.SpatialReference(); s.SetFromUserInput(crs)
    d = gdal.GetDriverByName('HFA').Create(name + '.img', 40, 30, 1, gdal.GDT_Byte)
    d.SetProjection(s.ExportToWkt()); d.SetGeoTransform(gt); d.GetRasterBand(1).Fill(1); d = None
    d = gdal.Open(name + '.img'); g = d.GetGeoTransform(); srs = d.GetSpatialRef(); srs.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    ct = osr.CoordinateTransformation(srs, wgs)
    pts = []
    for px, py_ in ${JSON.stringify(pixels)}:
        x, y = g[0] + px * g[1] + py_ * g[2], g[3] + px * g[4] + py_ * g[5]
        lon, lat, _ = ct.TransformPoint(x, y)
        pts.append([x, y, lon, lat])
    out[name] = {'gt': list(g), 'pts': pts, 'epsg': srs.GetAuthorityCode(None)}
print(json.dumps(out))`));
  for (const [name, , gt] of CRSS) {
    const file = path.join(dir, `${name}.img`);
    const ds = await openRaster(file);
    try {
      assert.deepEqual(ds.warnings, undefined, name);
      assert.deepEqual(ds.geo.geoTransform, ref[name].gt, `${name} geotransform`);
      assert.deepEqual(ds.geo.geoTransform, gt, `${name} geotransform as written`);
      const crs = crsOfGeo(ds.geo, file);
      assert.ok(crs, `${name} has a CRS`);
      const t = transformer(crs!, LONLAT);
      for (const [x, y, lon, lat] of ref[name].pts as number[][]) {
        const [ln, lt] = t.forward(x, y);
        // A millionth of a degree (~0.1 m).
        const tol = 1e-6;
        assert.ok(Math.abs(ln - lon) < tol && Math.abs(lt - lat) < tol, `${name}: (${x}, ${y}) is ${ln}, ${lt} here and ${lon}, ${lat} in GDAL`);
      }
      const code = /^EPSG:(\d+)$/.exec(CRSS.find((c) => c[0] === name)![1]);
      if (code && name !== 'british_grid') assert.equal(ds.geo.epsg, Number(code[1]), `${name}: EPSG code`);
      else assert.ok(ds.geo.keys && ds.geo.epsg === undefined, `${name}: custom parameters carried as GeoTIFF keys`);
    } finally {
      await ds.close();
    }
  }
});

test('an NLCD-like class layer: colour table and category names as GDAL gives them; a raster attribute table\'s colours and Class_Names', { ...skip, timeout: 120_000 }, async () => {
  const dir = tmpDir('gw-hfa-ct-');
  const ref = JSON.parse(py(String.raw`
import os, json, numpy as np
from osgeo import gdal, osr
gdal.UseExceptions()
os.chdir(${JSON.stringify(dir)})
rng = np.random.default_rng(3)
s = osr.SpatialReference(); s.ImportFromEPSG(5070)
d = gdal.GetDriverByName('HFA').Create('nlcd.img', 300, 200, 1, gdal.GDT_Byte, ['COMPRESSED=YES'])
d.SetProjection(s.ExportToWkt()); d.SetGeoTransform((-2000000, 30, 0, 3000000, 0, -30))
classes = [11, 21, 22, 41, 42, 52, 71, 81, 82, 90, 95]
a = np.array(classes)[rng.integers(0, len(classes), (20, 30))].repeat(10, 0).repeat(10, 1).astype('u1')
a[:15, :25] = 0
b = d.GetRasterBand(1); b.WriteArray(a); b.SetNoDataValue(0)
ct = gdal.ColorTable()
for i in range(256): ct.SetColorEntry(i, (0, 0, 0, 255))
for v, c in [(11, (70, 107, 159)), (21, (222, 197, 197)), (41, (104, 171, 95)), (82, (171, 108, 40)), (95, (112, 163, 186)), (90, (186, 216, 235)), (1, (1, 2, 3)), (2, (254, 128, 127))]:
    ct.SetColorEntry(v, c + (255,))
b.SetColorTable(ct)
names = [''] * 256
for v, n in [(11, 'Open Water'), (21, 'Developed, Open Space'), (41, 'Deciduous Forest'), (82, 'Cultivated Crops'), (95, 'Emergent Herbaceous Wetlands')]: names[v] = n
b.SetCategoryNames(names)
d = None
d = gdal.GetDriverByName('HFA').Create('classes.img', 120, 80, 1, gdal.GDT_Byte)
d.SetProjection(s.ExportToWkt()); d.SetGeoTransform((-1000000, 30, 0, 2000000, 0, -30))
d.GetRasterBand(1).WriteArray(rng.integers(0, 6, (80, 120)))
rat = gdal.RasterAttributeTable()
rat.CreateColumn('Class_Names', gdal.GFT_String, gdal.GFU_Name)
for c, u in [('Red', gdal.GFU_Red), ('Green', gdal.GFU_Green), ('Blue', gdal.GFU_Blue), ('Opacity', gdal.GFU_Alpha)]: rat.CreateColumn(c, gdal.GFT_Integer, u)
rat.SetRowCount(6)
for i, (n, c) in enumerate([('Unclassified', (0, 0, 0)), ('Water', (0, 0, 255)), ('Forest', (0, 128, 0)), ('Urban', (255, 0, 0)), ('Crops é', (200, 200, 0)), ('', (10, 20, 30))]):
    rat.SetValueAsString(i, 0, n)
    for k in range(3): rat.SetValueAsInt(i, 1 + k, c[k])
    rat.SetValueAsInt(i, 4, 255)
d.GetRasterBand(1).SetDefaultRAT(rat)
d = None
out = {}
for f in ('nlcd.img', 'classes.img'):
    ds = gdal.Open(f); b = ds.GetRasterBand(1); ct = b.GetColorTable(); rat = b.GetDefaultRAT()
    cols = [rat.GetNameOfCol(i) for i in range(rat.GetColumnCount())] if rat else []
    col = cols.index('Class_Names') if 'Class_Names' in cols else -1
    out[f] = {'ct': [list(ct.GetColorEntry(i))[:3] for i in range(ct.GetCount())], 'names': b.GetCategoryNames(),
              'rat': [rat.GetValueAsString(i, col) for i in range(rat.GetRowCount())] if col >= 0 else None}
print(json.dumps(out))`));
  const nlcd = await openRaster(path.join(dir, 'nlcd.img'));
  const classes = await openRaster(path.join(dir, 'classes.img'));
  try {
    for (const [ds, f] of [[nlcd, 'nlcd.img'], [classes, 'classes.img']] as const) {
      const want = ref[f].ct as number[][];
      assert.equal(ds.colorTable?.count, want.length, `${f} colour count`);
      assert.deepEqual(Array.from(ds.colorTable!.rgb), want.flat(), `${f} colours`);
    }
    assert.equal(ref['nlcd.img'].ct[2][0], 254);
    assert.deepEqual(nlcd.categoryNames?.[0], ref['nlcd.img'].names);
    assert.equal(nlcd.categoryNames?.[0]?.[95], 'Emergent Herbaceous Wetlands');
    assert.equal(nlcd.nodata, 0);
    assert.equal(ref['classes.img'].names, null);
    assert.deepEqual(classes.categoryNames?.[0], ref['classes.img'].rat);
    assert.deepEqual(classes.categoryNames?.[0]?.slice(0, 5), ['Unclassified', 'Water', 'Forest', 'Urban', 'Crops é']);
    await sameSamples(nlcd, path.join(dir, 'nlcd.img'), [[0, 0, 300, 200], [240, 140, 60, 60]], 'nlcd');
  } finally {
    await nlcd.close(); await classes.close();
  }
});

test('overviews in the .img (gdaladdo) and in a .rrd beside it (HFA_USE_RRD) equal GDAL\'s GetOverview samples, placed on their coarser grids', { ...skip, timeout: 120_000 }, async () => {
  const dir = tmpDir('gw-hfa-ov-');
  for (const [name, rrd] of [['ov.img', false], ['rrd.img', true]] as const) {
    const file = path.join(dir, name);
    writeHfa(file, {
      w: 700, h: 500, bands: 2, type: 'Int16', expr: '(i * (b + 7) % 5000 - 2500).astype("i2")', gt: [500000, 10, 0, 4600000, 0, -10], srs: 'EPSG:32633', options: ['COMPRESSED=YES'],
      then: `gdal.SetConfigOption('HFA_USE_RRD', '${rrd ? 'YES' : 'NO'}')\nd = gdal.Open(${JSON.stringify(file)}, gdal.GA_Update); d.BuildOverviews('AVERAGE', [2, 4]); d = None`,
    });
    assert.equal(fs.existsSync(path.join(dir, 'rrd.rrd')), rrd, `${name}: overviews ${rrd ? 'in' : 'not in'} a .rrd`);
    const ref = JSON.parse(py(`
import json
from osgeo import gdal
d = gdal.Open(${JSON.stringify(file)}); b = d.GetRasterBand(2)
print(json.dumps([[o.XSize, o.YSize, o.ReadAsArray(3, 5, 40, 30).flatten().tolist()] for o in [b.GetOverview(i) for i in range(b.GetOverviewCount())]]))`));
    assert.equal(ref.length, 2);
    const ds = await openRaster(file);
    try {
      const ovs = await ds.overviews!();
      assert.deepEqual(ovs.map((o) => [o.width, o.height]), ref.map((r: number[]) => [r[0], r[1]]), name);
      for (let i = 0; i < ovs.length; i++) {
        assert.deepEqual(Array.from(await ovs[i].readWindowRaw(2, 3, 5, 40, 30)), ref[i][2], `${name} overview ${i}`);
        assert.equal(ovs[i].geo.epsg, 32633);
        assert.deepEqual(ovs[i].geo.geoTransform, [500000, 10 * 700 / ovs[i].width, 0, 4600000, 0, -10 * 500 / ovs[i].height]);
      }
      assert.equal(await ds.overviews!(), await ds.overviews!());
    } finally {
      await ds.close();
    }
  }
  // Without its .rrd the raster reads as before, with no overviews.
  fs.rmSync(path.join(dir, 'rrd.rrd'));
  const bare = await openRaster(path.join(dir, 'rrd.img'));
  assert.deepEqual(await bare.overviews!(), []);
  await bare.close();
});

test('ENVI .img beside its .hdr still opens as ENVI; .img counts as a raster file; complex layers are refused naming the type', { ...skip, timeout: 120_000 }, async () => {
  const dir = tmpDir('gw-hfa-envi-');
  py(`
import os
from osgeo import gdal
gdal.UseExceptions()
os.chdir(${JSON.stringify(dir)})
m = gdal.GetDriverByName('MEM').Create('', 20, 10, 1, gdal.GDT_Int16); m.GetRasterBand(1).Fill(5)
gdal.Translate('scene.img', m, format='ENVI')
m = gdal.GetDriverByName('MEM').Create('', 10, 10, 1, gdal.GDT_CFloat32)
gdal.Translate('complex.img', m, format='HFA')
m = gdal.GetDriverByName('MEM').Create('', 30, 20, 1, gdal.GDT_Byte); m.SetGeoTransform((500000, 30, 0, 4600000, 0, -30))
gdal.Translate('land.img', m, format='HFA')`);
  const envi = await openRaster(path.join(dir, 'scene.img'));
  assert.ok(envi instanceof EnviDataset);
  assert.deepEqual(Array.from(await envi.readWindowRaw(1, 0, 0, 3, 1)), [5, 5, 5]);
  await envi.close();
  assert.ok(RASTER_FILE.test('nlcd_2019.img') && RASTER_FILE.test('SCENE.IMG'));
  // The workspace scan lists the ERDAS file, and the ENVI raster once, as its header; the complex one as unreadable.
  const scan = await scanDataFolder(dir);
  assert.deepEqual(scan.items.map((i) => i.path).sort(), ['land.img', 'scene.hdr']);
  assert.deepEqual(scan.unreadable?.map((u) => u.path), ['complex.img']);
  await assert.rejects(() => openRaster(path.join(dir, 'complex.img')), /complex\.img: layer Layer_1 holds complex c64 samples, which GeoWeave does not read/);
});

/** A copy of `src` with `edit` applied to its bytes. */
function edited(src: string, name: string, edit: (b: Buffer) => Buffer | void): string {
  const b = Buffer.from(fs.readFileSync(src));
  const out = path.join(path.dirname(src), name);
  fs.writeFileSync(out, edit(b) ?? b);
  return out;
}

/** The offset of a node's Ehfa_Entry by its name (the name field starts 24 bytes in). */
function entryAt(b: Buffer, name: string): number {
  const at = b.indexOf(Buffer.from(`${name}\0`, 'latin1'));
  assert.ok(at > 24, `node ${name} found`);
  return at - 24;
}

test('damaged files are refused naming the file and what is wrong; a window reads only the blocks it touches; reads can be cancelled', { ...skip, timeout: 120_000 }, async () => {
  const dir = tmpDir('gw-hfa-bad-');
  const src = path.join(dir, 'src.img');
  writeHfa(src, { w: 256, h: 256, bands: 1, type: 'UInt16', expr: '(i // 7 % 3001).astype("u2")', gt: [0, 1, 0, 0, 0, -1], options: ['COMPRESSED=YES'] });
  const size = fs.statSync(src).size;
  const dictAt = fs.readFileSync(src).indexOf('{1:lversion');
  const cases: [string, (b: Buffer) => Buffer | void, RegExp][] = [
    ['cut.img', (b) => b.subarray(0, Math.floor(size / 2)), /cut\.img: .*(past the end of the file|cut short)/],
    ['header.img', (b) => b.subarray(0, 30), /header\.img: .*past the end of the file/],
    ['dict.img', (b) => { b.write('{1:lversion,1:Q', dictAt, 'latin1'); }, /dict\.img: its data dictionary is damaged: "Q" is not a field type/],
    ['root.img', (b) => { b.writeUInt32LE(size + 1000, b.readUInt32LE(16) + 8); }, /root\.img: the node at offset \d+ .*past the end of the file/],
    ['width.img', (b) => { const l = entryAt(b, 'Layer_1'); b.writeInt32LE(1 << 30, b.readUInt32LE(l + 16)); }, /width\.img: layer Layer_1 is 1073741824×256; GeoWeave reads sides of 1–131072/],
    ['block.img', (b) => { const l = entryAt(b, 'Layer_1'); b.writeInt32LE(1 << 20, b.readUInt32LE(l + 16) + 12); }, /block\.img: layer Layer_1 has 1048576×64 blocks/],
    ['loop.img', (b) => { const l = entryAt(b, 'Layer_1'); b.writeUInt32LE(l, l); }, /loop\.img: its node tree loops back/],
  ];
  for (const [name, edit, want] of cases) {
    const f = edited(src, name, edit);
    await assert.rejects(async () => {
      const ds = await openRaster(f);
      try { await ds.readWindowRaw(1, 0, 0, 256, 256); } finally { await ds.close(); }
    }, (e: Error) => want.test(e.message) && e.message.startsWith(f), name);
  }
  // Block 15 (the last) sent past the end of the file: the first block still reads; the whole band says which block.
  const far = edited(src, 'far.img', (b) => {
    const dms = entryAt(b, 'RasterDMS');
    const data = b.readUInt32LE(dms + 16);
    // Edms_State: 3 longs and an enum (14 bytes), the blockinfo count and pointer (8), then 14 bytes a block (offset 2 bytes in).
    b.writeUInt32LE(size + 5000, data + 14 + 8 + 15 * 14 + 2);
  });
  const ds = await openRaster(far);
  const want = gdalWindows(src, [[1, [0, 0, 64, 64]]])[0];
  assert.deepEqual(Array.from(await ds.readWindowRaw(1, 0, 0, 64, 64)), Array.from(want));
  await assert.rejects(() => ds.readWindowRaw(1, 0, 0, 256, 256), /far\.img: blocks 15–15 of layer Layer_1 \(\d+ bytes at offset \d+\) lies past the end of the file/);
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(() => ds.readWindowRaw(1, 0, 0, 256, 256, ac.signal), (e: Error) => e.name === 'AbortError');
  await ds.close();
  await assert.rejects(() => ds.readWindowRaw(1, 0, 0, 1, 1), /dataset is closed/);
  // A dictionary without Eprj_MapInfo (ERDAS leaves out types it takes as known): GDAL's default definition places it.
  const untyped = await openRaster(edited(src, 'untyped.img', (b) => { const at = b.indexOf('}Eprj_MapInfo,'); b.write('}Eprj_MapInfX,', at, 'latin1'); }));
  assert.deepEqual(untyped.geo.geoTransform, [0, 1, 0, 0, 0, -1]);
  assert.equal(untyped.geo.ungeoreferenced, undefined);
  await untyped.close();
  // A damaged Map_Info (its data cut to 4 bytes) leaves the samples readable, placed nowhere, with a warning saying why.
  const mi = await openRaster(edited(src, 'mapinfo.img', (b) => { b.writeInt32LE(4, entryAt(b, 'Map_Info') + 20); }));
  assert.ok(mi.geo.ungeoreferenced, 'placed nowhere');
  assert.match(mi.warnings?.join('\n') ?? '', /mapinfo\.img: node Layer_1\/Map_Info: Eprj_MapInfo\.\w+ needs \d+ bytes at \d+, past the end of its node \(4\); it is ignored/);
  assert.deepEqual(Array.from(await mi.readWindowRaw(1, 0, 0, 64, 64)), Array.from(want));
  await mi.close();
  // A run-length block whose runs point past its end.
  const rle = edited(src, 'rle.img', (b) => {
    const dms = entryAt(b, 'RasterDMS');
    const first = b.readUInt32LE(b.readUInt32LE(dms + 16) + 14 + 8 + 2);
    b.writeInt32LE(1 << 28, first + 4);
  });
  const r = await openRaster(rle);
  await assert.rejects(() => r.readWindowRaw(1, 0, 0, 10, 10), /rle\.img: block 0 of layer Layer_1: a compressed block's 268435456 values run past its \d+ bytes/);
  await r.close();
  assert.ok(execFileSync('gdalinfo', [src], { encoding: 'utf8' }).includes('HFA'));
});
