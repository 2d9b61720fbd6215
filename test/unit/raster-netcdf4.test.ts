/**
 * NetCDF-4 (HDF5) files read as GDAL's netCDF driver reads one variable, through h5wasm, with the
 * CF reading shared with NetCDF classic (cf-grid.ts). Fixtures are made by GDAL at test time: the
 * ERA5-like classic file of netcdf-writer.ts converted by gdalmdimtranslate (a time dimension,
 * latitude rising from the south, int16 packed with scale_factor/add_offset/_FillValue, deflate +
 * shuffle); a file of several variables written through GDAL's multidimensional API (float32 in
 * 1×10×16 chunks, an int16 without _FillValue, a projected variable in the group PRODUCT with its
 * grid mapping); a projected grid from gdal_translate. Size, bands, nodata, scale/offset,
 * geotransform, CRS, band names and windows that cross chunk edges equal GDAL's; values as tools read
 * them (scaled, fill left out) equal GDAL's scaled values. The scan lists one item per variable and
 * says why the others cannot be read; a Sentinel-5P-like swath (2-D latitude/longitude, classic and
 * NetCDF-4), a file cut short, a damaged one and an HDF5 file without georeferencing are refused
 * naming the file, the variable and what to do.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { openRaster } from '../../src/core/raster/io/dataset';
import { Hdf5File, loadH5wasm } from '../../src/core/raster/io/netcdf4';
import { netcdfGridVariables } from '../../src/core/raster/io/netcdf';
import { runTool } from '../../src/core/raster/engine';
import { stemOf } from '../../src/core/raster/tools/common';
import { scanDataFolder } from '../../src/core/data/scan';
import { executability } from '../../src/core/retrieval/executability';
import type { ToolManifest } from '../../src/core/manifests/types';
import { needGdal, py, pyJson, tmpDir } from '../helpers/raster-gdal';
import { writeEra5Like } from '../helpers/netcdf-writer';

const skip = needGdal();

/** GDAL's multidimensional API writes the fixtures a NetCDF-4 writer would (argv[1]: the folder). */
const MAKE_FIXTURES = String.raw`
import os, sys
from osgeo import gdal, osr
import numpy as np
gdal.UseExceptions()
os.chdir(sys.argv[1])
F64 = gdal.ExtendedDataType.Create(gdal.GDT_Float64)
STR = gdal.ExtendedDataType.CreateString()
def text(obj, k, v):
    a = obj.CreateAttribute(k, [], STR); a.Write(v)
def num(obj, k, v):
    a = obj.CreateAttribute(k, [1], F64); a.Write(v)
def coord(g, name, dim, vals, units):
    a = g.CreateMDArray(name, [dim], F64); a.Write(np.array(vals, dtype='f8')); text(a, 'units', units); return a

ds = gdal.GetDriverByName('netCDF').CreateMultiDimensional('multi.nc', options=['FORMAT=NC4'])
rg = ds.GetRootGroup()
T, H, W = 4, 25, 37
t = rg.CreateDimension('time', None, None, T)
y = rg.CreateDimension('lat', None, None, H)
x = rg.CreateDimension('lon', None, None, W)
text(coord(rg, 'time', t, [0, 6, 12, 18], 'hours since 2024-07-01 00:00:00'), 'calendar', 'gregorian')
coord(rg, 'lat', y, [60 - 0.5 * i for i in range(H)], 'degrees_north')
coord(rg, 'lon', x, [-10 + 0.5 * i for i in range(W)], 'degrees_east')
tt, yy, xx = np.mgrid[0:T, 0:H, 0:W]
t2m = rg.CreateMDArray('t2m', [t, y, x], gdal.ExtendedDataType.Create(gdal.GDT_Float32), ['COMPRESS=DEFLATE', 'BLOCKSIZE=1,10,16'])
t2m.SetNoDataValueDouble(-999.0)
a = (280 + 0.1 * xx - 0.2 * yy + tt).astype('f4'); a[1, 3, 5] = -999
t2m.Write(a); text(t2m, 'units', 'K')
sp = rg.CreateMDArray('sp', [t, y, x], gdal.ExtendedDataType.Create(gdal.GDT_Int16), ['COMPRESS=DEFLATE'])
sp.Write((xx * 100 + yy * 7 - tt * 3 - 5000).astype('i2'))
num(sp, 'scale_factor', 0.25); num(sp, 'add_offset', 90000.0); text(sp, 'units', 'Pa')
g = rg.CreateGroup('PRODUCT')
gy = g.CreateDimension('y', None, None, 18); gx = g.CreateDimension('x', None, None, 22)
coord(g, 'y', gy, [5000000 - 30 * i - 15 for i in range(18)], 'm')
coord(g, 'x', gx, [400000 + 30 * i + 15 for i in range(22)], 'm')
q = g.CreateMDArray('ndvi', [gy, gx], gdal.ExtendedDataType.Create(gdal.GDT_Float32), ['COMPRESS=DEFLATE', 'BLOCKSIZE=8,8'])
q.SetNoDataValueDouble(-1.0)
srs = osr.SpatialReference(); srs.ImportFromEPSG(32633); q.SetSpatialRef(srs)
gyy, gxx = np.mgrid[0:18, 0:22]
nd = (0.01 * gxx - 0.02 * gyy + 0.3).astype('f4'); nd[2, 4] = -1
q.Write(nd)
del ds

# A swath as Sentinel-5P stores it (2-D latitude/longitude in PRODUCT), and the same without a group in a classic file.
for name, fmt, group in (('s5p_like.nc', 'NC4', True), ('swath_classic.nc', 'NC', False)):
    ds = gdal.GetDriverByName('netCDF').CreateMultiDimensional(name, options=['FORMAT=' + fmt])
    rg = ds.GetRootGroup(); g = rg.CreateGroup('PRODUCT') if group else rg
    s = g.CreateDimension('scanline', None, None, 20); p = g.CreateDimension('ground_pixel', None, None, 30)
    ss, pp = np.mgrid[0:20, 0:30]
    for v, units, std, vals in (('latitude', 'degrees_north', 'latitude', 40 + 0.05 * ss + 0.01 * pp), ('longitude', 'degrees_east', 'longitude', 10 + 0.07 * pp - 0.01 * ss)):
        arr = g.CreateMDArray(v, [s, p], gdal.ExtendedDataType.Create(gdal.GDT_Float32)); arr.Write(vals.astype('f4')); text(arr, 'units', units); text(arr, 'standard_name', std)
    no2 = g.CreateMDArray('nitrogendioxide_tropospheric_column', [s, p], gdal.ExtendedDataType.Create(gdal.GDT_Float32))
    no2.Write((1e-5 * (ss + pp)).astype('f4')); text(no2, 'coordinates', 'longitude latitude')
    del ds

# A projected grid as gdal_translate writes NetCDF-4.
s = osr.SpatialReference(); s.ImportFromEPSG(32633)
m = gdal.GetDriverByName('MEM').Create('', 50, 35, 1, gdal.GDT_Float32)
m.SetGeoTransform((400000, 30, 0, 5000000, 0, -30)); m.SetProjection(s.ExportToWkt())
yy, xx = np.mgrid[0:35, 0:50]
a = (0.2 + 0.01 * xx - 0.005 * yy).astype(np.float32); a[5, 7] = -9999
m.GetRasterBand(1).WriteArray(a); m.GetRasterBand(1).SetNoDataValue(-9999)
gdal.Translate('ndvi_utm_nc4.nc', m, format='netCDF', creationOptions=['FORMAT=NC4', 'COMPRESS=DEFLATE'])
`;

/** GDAL's reading of one dataset name: size, per band nodata/scale/offset/time and raw samples, the geotransform and EPSG code. */
const GDAL_READ = String.raw`
import sys, json
from datetime import datetime, timedelta
from osgeo import gdal, osr
import numpy as np
d = gdal.Open(sys.argv[1])
srs = d.GetSpatialRef()
epsg = None
if srs is not None:
    srs.AutoIdentifyEPSG(); epsg = srs.GetAuthorityCode(None)
bands = []
for i in range(1, d.RasterCount + 1):
    b = d.GetRasterBand(i)
    a = b.ReadAsArray().astype('f8')
    nd = b.GetNoDataValue()
    scaled = a * (b.GetScale() or 1.0) + (b.GetOffset() or 0.0)
    if nd is not None:
        scaled[a == (np.float32(nd) if b.DataType == gdal.GDT_Float32 else nd)] = np.nan
    bands.append({'nodata': nd, 'scale': b.GetScale(), 'offset': b.GetOffset(), 'time': b.GetMetadataItem('NETCDF_DIM_time'),
                  'raw': [None if np.isnan(v) else v for v in a.ravel().tolist()], 'scaled': [None if np.isnan(v) else v for v in scaled.ravel().tolist()]})
units = d.GetMetadataItem('time#units')
print(json.dumps({'size': [d.RasterXSize, d.RasterYSize], 'gt': d.GetGeoTransform(), 'epsg': int(epsg) if epsg else None, 'units': units, 'bands': bands}))
`;

const makeFixtures = (dir: string) => pyJson(`${MAKE_FIXTURES}\nimport json; print(json.dumps(True))`, dir);

/** Hours since a date ("1900-01-01", "2024-07-01 00:00:00") as the reader names a band of a sub-daily series. */
function timeLabel(hours: number, since: string): string {
  const [day, time = '00:00:00'] = since.trim().split(/[ T]/);
  return new Date(Date.parse(`${day}T${time}Z`) + hours * 3.6e6).toISOString().slice(0, 16);
}

test('NetCDF-4 equals GDAL netCDF: packed ERA5-like time series, several chunked variables, a projected variable in a group', { ...skip, timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-nc4-');
  writeEra5Like(path.join(dir, 'era5_classic.nc'), 1);
  execFileSync('gdalmdimtranslate', ['-q', '-of', 'netCDF', '-co', 'FORMAT=NC4', '-co', 'ARRAY:COMPRESS=DEFLATE', 'era5_classic.nc', 'era5_t2m.nc'], { cwd: dir });
  makeFixtures(dir);
  // The fixtures are what the test claims: HDF5 files, chunked and compressed with deflate after shuffle.
  const h5 = await loadH5wasm();
  const f = new h5.File(path.join(dir, 'multi.nc'), 'r');
  const t2m = f.get('t2m') as unknown as { metadata: { chunks: number[] }; filters: { id: number }[] };
  assert.deepEqual([t2m.metadata.chunks, t2m.filters.map((x) => x.id)], [[1, 10, 16], [2, 1]]);
  f.close();
  assert.deepEqual(await netcdfGridVariables(path.join(dir, 'multi.nc')), ['t2m', 'sp', 'PRODUCT/ndvi']);

  const cases: { ours: string; gdal: string; epsg: number; dtype: string }[] = [
    { ours: 'era5_t2m.nc', gdal: 'era5_t2m.nc', epsg: 4326, dtype: 'int16' },
    { ours: 'multi.nc#t2m', gdal: 'NETCDF:"multi.nc":t2m', epsg: 4326, dtype: 'float32' },
    { ours: 'multi.nc#sp', gdal: 'NETCDF:"multi.nc":sp', epsg: 4326, dtype: 'int16' },
    { ours: 'multi.nc#PRODUCT/ndvi', gdal: 'NETCDF:"multi.nc":/PRODUCT/ndvi', epsg: 32633, dtype: 'float32' },
    { ours: 'ndvi_utm_nc4.nc', gdal: 'ndvi_utm_nc4.nc', epsg: 32633, dtype: 'float32' },
  ];
  let maxScaledDiff = 0;
  for (const c of cases) {
    const ref = JSON.parse(execFileSync('/usr/bin/python3', ['-c', GDAL_READ, c.gdal], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 26 }));
    const ds = await openRaster(path.join(dir, c.ours));
    try {
      assert.deepEqual([ds.width, ds.height, ds.bandCount, ds.dtype], [...ref.size, ref.bands.length, c.dtype], c.ours);
      // GDAL gives a longitude/latitude grid without a grid mapping no CRS; GeoWeave takes it as EPSG:4326, as for classic files.
      assert.equal(ds.geo.epsg, ref.epsg ?? 4326, `${c.ours} CRS`);
      assert.equal(ds.geo.epsg, c.epsg, `${c.ours} CRS`);
      ds.geo.geoTransform.forEach((v, i) => assert.ok(Math.abs(v - ref.gt[i]) < 1e-6, `${c.ours} geotransform[${i}] ${v} vs GDAL ${ref.gt[i]}`));
      for (let b = 1; b <= ds.bandCount; b++) {
        const r = ref.bands[b - 1];
        assert.equal(ds.nodata, r.nodata, `${c.ours} band ${b} nodata`);
        assert.equal(ds.scales[b - 1], r.scale ?? 1, `${c.ours} scale`);
        assert.equal(ds.offsets[b - 1], r.offset ?? 0, `${c.ours} offset`);
        if (r.time !== null) assert.equal(ds.bandDescriptions[b - 1], `time=${timeLabel(Number(r.time), ref.units.replace(/^hours since /, ''))}`, `${c.ours} band ${b} name`);
        // Windows across chunk edges (10 rows, 16 columns in multi.nc#t2m), and one pixel in the last corner.
        for (const [x, y, w, h] of [[0, 0, ds.width, ds.height], [5, 3, 14, 9], [15, 9, 3, 2], [ds.width - 1, ds.height - 1, 1, 1]]) {
          const raw = await ds.readWindowRaw(b, x, y, w, h);
          const scaled = await ds.readWindow(b, x, y, w, h);
          let bad = 0;
          for (let row = 0; row < h; row++) {
            for (let col = 0; col < w; col++) {
              const i = (y + row) * ds.width + x + col, k = row * w + col;
              if (raw[k] !== r.raw[i]) bad++;
              const want = r.scaled[i];
              if (want === null ? !Number.isNaN(scaled[k]) : Number.isNaN(scaled[k])) bad++;
              else if (want !== null) maxScaledDiff = Math.max(maxScaledDiff, Math.abs(scaled[k] - want) / Math.max(1, Math.abs(want)));
            }
          }
          assert.equal(bad, 0, `${c.ours} band ${b} window ${x},${y} ${w}x${h}`);
        }
      }
    } finally {
      await ds.close();
    }
  }
  // Values as tools read them are float32: within float32's precision of GDAL's float64 scaling.
  assert.ok(maxScaledDiff < 1e-7, `scaled values differ from GDAL's by up to ${maxScaledDiff} (relative)`);
  console.log(`NetCDF-4 vs GDAL: raw samples equal; scaled values within ${maxScaledDiff.toExponential(2)} (relative)`);

  // A window asks HDF5 for its hyperslab only (one time step, the window's rows and columns; rows
  // counted from the south in the file that stores them so), not the variable.
  const asked: [number[], number[]][] = [];
  const read = Hdf5File.prototype.read;
  Hdf5File.prototype.read = function (this: Hdf5File, v, start, count, signal) { asked.push([start, count]); return read.call(this, v, start, count, signal); };
  try {
    for (const name of ['multi.nc#t2m', 'era5_t2m.nc']) {
      const ds = await openRaster(path.join(dir, name));
      await ds.readWindowRaw(2, 5, 3, 14, 9);
      await ds.close();
    }
  } finally {
    Hdf5File.prototype.read = read;
  }
  assert.deepEqual(asked, [[[1, 3, 5], [1, 9, 14]], [[1, 30 - 3 - 9, 5], [1, 9, 14]]]);

  // The same as .h5 and .nc4: read by what the file is, not its name.
  fs.copyFileSync(path.join(dir, 'multi.nc'), path.join(dir, 'multi.h5'));
  fs.copyFileSync(path.join(dir, 'era5_t2m.nc'), path.join(dir, 'era5_t2m.nc4'));
  const [a, b] = [await openRaster(path.join(dir, 'multi.h5#PRODUCT/ndvi')), await openRaster(path.join(dir, 'era5_t2m.nc4'))];
  assert.deepEqual([a.width, a.height, a.geo.epsg, b.bandCount], [22, 18, 32633, 5]);
  await a.close(); await b.close();
});

test('NetCDF-4 in the scan, readiness and tools: one item per variable, the ones that cannot be read said why', { ...skip, timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-nc4-scan-');
  makeFixtures(dir);
  const whole = fs.readFileSync(path.join(dir, 'multi.nc'));
  fs.writeFileSync(path.join(dir, 'cut.nc'), whole.subarray(0, Math.floor(whole.length * 0.6)));
  const data = await scanDataFolder(dir);
  const items = new Map(data.items.map((it) => [it.path, it]));
  assert.deepEqual(['multi.nc#t2m', 'multi.nc#sp', 'multi.nc#PRODUCT/ndvi', 'ndvi_utm_nc4.nc'].map((p) => items.get(p)?.crs), ['EPSG:4326', 'EPSG:4326', 'EPSG:32633', 'EPSG:32633']);
  const why = new Map((data.unreadable ?? []).map((u) => [u.path, u.reason]));
  assert.match(why.get('s5p_like.nc') ?? '', /^variable "PRODUCT\/nitrogendioxide_tropospheric_column" is on a curvilinear grid .* gdalwarp -geoloc -t_srs EPSG:4326 NETCDF:".*s5p_like\.nc":\/PRODUCT\/nitrogendioxide_tropospheric_column s5p_like_nitrogendioxide_tropospheric_column\.tif$/);
  assert.match(why.get('cut.nc') ?? '', /^the file is cut short \(\d+ of its \d+ bytes are there\); download it again$/);
  const stats = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../tool-manifests/raster_stats.json'), 'utf8')) as ToolManifest;
  const r = executability(stats, data, { task: 'mean NO2 over s5p_like.nc' });
  assert.equal(r.ready, false);
  assert.match(r.notes.join(' | '), /s5p_like\.nc, which the task names, cannot be read: variable "PRODUCT\/nitrogendioxide_tropospheric_column" is on a curvilinear grid/);
  const byVariable = executability(stats, data, { task: 'histogram of ndvi in multi.nc' });
  assert.equal(byVariable.args.image, 'multi.nc#PRODUCT/ndvi', byVariable.notes.join(' | '));

  // A tool on a group's variable: outputs named after the file, group and variable; the mean equals numpy's over GDAL's reading.
  const run = await runTool('raster_stats', { image: 'multi.nc#PRODUCT/ndvi' }, { outDir: path.join(dir, 'out'), cwd: dir });
  const mean = Number(py(`
from osgeo import gdal
import numpy as np
a = gdal.Open('NETCDF:"${path.join(dir, 'multi.nc')}":/PRODUCT/ndvi').ReadAsArray().astype('f8')
print(a[a != -1].mean())`));
  const ours = Number(/^Mean band 1 (-?[\d.]+)/.exec(run.summary)?.[1]);
  assert.ok(Math.abs(ours - mean) < 5e-3, `${run.summary} vs numpy ${mean}`);
  assert.equal(stemOf('data/s5p.nc#PRODUCT/ch4'), 's5p_PRODUCT_ch4');
});

test('NetCDF-4 and HDF5 files GeoWeave cannot read as rasters are refused naming the file, the variable and what to do', { ...skip, timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-nc4-bad-');
  makeFixtures(dir);
  const file = (n: string) => path.join(dir, n);
  // Curvilinear grids, NetCDF-4 in a group and classic alike: the variable named, the resampling to run.
  await assert.rejects(openRaster(file('s5p_like.nc#PRODUCT/nitrogendioxide_tropospheric_column')), (e: Error) => e.message.startsWith(`${file('s5p_like.nc')}: variable "PRODUCT/nitrogendioxide_tropospheric_column" is on a curvilinear grid (placed by the 2-D variables "PRODUCT/latitude" and "PRODUCT/longitude"`) && /gdalwarp -geoloc/.test(e.message));
  await assert.rejects(openRaster(file('swath_classic.nc')), (e: Error) => e.message.startsWith(`${file('swath_classic.nc')}: variable "nitrogendioxide_tropospheric_column" is on a curvilinear grid`) && /gdalwarp -geoloc -t_srs EPSG:4326 NETCDF:"[^"]+swath_classic\.nc":nitrogendioxide_tropospheric_column swath_classic_nitrogendioxide_tropospheric_column\.tif$/.test(e.message));
  assert.deepEqual(await netcdfGridVariables(file('s5p_like.nc')), []);
  // Several variables, none named; one that is not there.
  await assert.rejects(openRaster(file('multi.nc')), new RegExp(`multi\\.nc: holds 3 gridded variables \\(t2m, sp, PRODUCT/ndvi\\); name the one to read as multi\\.nc#t2m`));
  await assert.rejects(openRaster(file('multi.nc#ndvi')), /multi\.nc: holds no gridded variable "ndvi"; its gridded variables: t2m, sp, PRODUCT\/ndvi \(name one as multi\.nc#t2m\)/);
  // Cut short, and the superblock damaged.
  const whole = fs.readFileSync(file('multi.nc'));
  fs.writeFileSync(file('cut.nc'), whole.subarray(0, Math.floor(whole.length * 0.6)));
  await assert.rejects(openRaster(file('cut.nc#t2m')), new RegExp(`${file('cut.nc').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: the file is cut short \\(${Math.floor(whole.length * 0.6)} of its ${whole.length} bytes are there\\); download it again$`));
  const damaged = Buffer.from(whole); damaged.fill(0xff, 8, 40);
  fs.writeFileSync(file('damaged.nc'), damaged);
  await assert.rejects(openRaster(file('damaged.nc')), /damaged\.nc: HDF5 cannot open it \(.+\); the file is damaged: download it again/);
  // An HDF5 file that is not NetCDF-4: arrays without dimension scales have no place on the map.
  const h5 = await loadH5wasm() as any;
  const w = new h5.File(file('plain.h5'), 'w');
  w.create_group('science');
  w.get('science').create_dataset({ name: 'radiance', data: new Float32Array(12 * 9).map((_, i) => i), shape: [12, 9], chunks: [4, 9], compression: 'gzip' });
  w.close();
  await assert.rejects(openRaster(file('plain.h5')), (e: Error) => e.message.startsWith(`${file('plain.h5')}: dataset "science/radiance" has no georeferencing GeoWeave reads (no dimension scales or CF coordinate variables give its grid)`)
    && e.message.includes(`gdal_translate HDF5:"${file('plain.h5')}"://science/radiance radiance.tif`));
  assert.deepEqual(await netcdfGridVariables(file('plain.h5')), []);
});
