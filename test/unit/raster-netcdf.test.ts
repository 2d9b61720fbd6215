/**
 * NetCDF classic files (CDF-1, CDF-2; CDF-5 against CDF-1) read as GDAL's netCDF driver reads one
 * variable: a record variable of 5 time steps on a latitude/longitude grid rising from the south
 * (ERA5 as the old CDS delivered it: short values with scale_factor/add_offset and _FillValue),
 * written byte by byte, and a projected grid with its CRS in the grid mapping's WKT, written by
 * GDAL. Size, bands, nodata, scale/offset, geotransform, CRS and samples of several windows equal
 * GDAL's; values read as tools read them (scaled, fill left out, north up); the scan lists a
 * NetCDF-4 file beside them (read as raster-netcdf4.test.ts checks); one variable of a file of
 * two (`two_bands.nc#Band2`) equals GDAL's NETCDF:"two_bands.nc":Band2 and a tool runs on it; the
 * file without a variable named, an unknown variable, one cut short and one with a damaged header
 * are refused saying what to do.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openRaster } from '../../src/core/raster/io/dataset';
import { cfTime } from '../../src/core/raster/io/cf-grid';
import { runTool } from '../../src/core/raster/engine';
import { stemOf } from '../../src/core/raster/tools/common';
import { scanDataFolder } from '../../src/core/data/scan';
import { executability } from '../../src/core/retrieval/executability';
import type { ToolManifest } from '../../src/core/manifests/types';
import { gdalWindow, gdalinfoJson, needGdal, py, tmpDir } from '../helpers/raster-gdal';
import { writeEra5Like } from '../helpers/netcdf-writer';

const skip = needGdal();

test('NetCDF classic equals GDAL netCDF: record variable on a south-up lon/lat grid, scale/offset/fill; projected levels from GDAL', { ...skip, timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-nc-');
  writeEra5Like(path.join(dir, 'era5_t2m.nc'), 1);
  writeEra5Like(path.join(dir, 'era5_t2m_64bit.nc'), 2);
  writeEra5Like(path.join(dir, 'era5_t2m_cdf5.nc'), 5);
  py(String.raw`
import os
from osgeo import gdal, osr
import numpy as np
gdal.UseExceptions()
os.chdir(${JSON.stringify(dir)})
s = osr.SpatialReference(); s.ImportFromEPSG(32633)
m = gdal.GetDriverByName('MEM').Create('', 50, 35, 1, gdal.GDT_Float32)
m.SetGeoTransform((400000, 30, 0, 5000000, 0, -30)); m.SetProjection(s.ExportToWkt())
yy, xx = np.mgrid[0:35, 0:50]
a = (0.2 + 0.01 * xx - 0.005 * yy).astype(np.float32); a[5, 7] = -9999
m.GetRasterBand(1).WriteArray(a); m.GetRasterBand(1).SetNoDataValue(-9999)
gdal.Translate('ndvi_utm.nc', m, format='netCDF', creationOptions=['FORMAT=NC'])
gdal.Translate('ndvi_utm_nc4.nc', m, format='netCDF', creationOptions=['FORMAT=NC4'])
`);
  for (const name of ['era5_t2m.nc', 'era5_t2m_64bit.nc', 'ndvi_utm.nc']) {
    const file = path.join(dir, name);
    const info = gdalinfoJson(file);
    const ds = await openRaster(file);
    try {
      assert.deepEqual([ds.width, ds.height, ds.bandCount], [info.size[0], info.size[1], info.bands.length], name);
      assert.equal(ds.nodata, info.bands[0].noDataValue ?? null, `${name} nodata`);
      assert.equal(ds.scales[0], info.bands[0].scale ?? 1, `${name} scale`);
      assert.equal(ds.offsets[0], info.bands[0].offset ?? 0, `${name} offset`);
      ds.geo.geoTransform.forEach((v, i) => assert.ok(Math.abs(v - info.geoTransform[i]) < 1e-6, `${name} geotransform[${i}] ${v} vs GDAL ${info.geoTransform[i]}`));
      assert.equal(ds.geo.epsg, name.startsWith('ndvi') ? 32633 : 4326, `${name} CRS`);
      for (const band of [1, ds.bandCount]) {
        for (const [x, y, w, h] of [[0, 0, ds.width, ds.height], [5, 3, 11, 7], [ds.width - 1, ds.height - 1, 1, 1]]) {
          const ref = gdalWindow(file, band, [x, y, w, h]);
          const raw = await ds.readWindowRaw(band, x, y, w, h);
          let bad = 0;
          for (let i = 0; i < ref.length; i++) if (raw[i] !== ref[i] && !(Number.isNaN(raw[i]) && Number.isNaN(ref[i]))) bad++;
          assert.equal(bad, 0, `${name} band ${band} window ${x},${y} ${w}x${h}`);
        }
      }
    } finally {
      await ds.close();
    }
  }
  // Bands are named by their time (CF "hours since 1900-01-01"), as analysts look for them.
  const named = await openRaster(path.join(dir, 'era5_t2m.nc'));
  try {
    const want = JSON.parse(py(`
from datetime import datetime, timedelta
import json
print(json.dumps(['time=' + (datetime(1900, 1, 1) + timedelta(hours=1086000 + 6 * t)).strftime('%Y-%m-%dT%H:%M') for t in range(5)]))`));
    assert.deepEqual(named.bandDescriptions, want);
  } finally {
    await named.close();
  }
  assert.equal(cfTime(8766, 'days since 2000-01-01'), '2024-01-01');
  assert.equal(cfTime(90, 'minutes since 2024-07-01 00:00:00 UTC'), '2024-07-01T01:30');
  assert.equal(cfTime(3, 'months since 2000-01-01'), undefined, 'months have no fixed length');
  assert.equal(cfTime(10, 'days since 2000-01-01', '360_day'), undefined, 'another calendar');
  // CDF-5 (which this GDAL's netCDF library does not open) holds the same as the CDF-1 file.
  const [one, five] = await Promise.all([openRaster(path.join(dir, 'era5_t2m.nc')), openRaster(path.join(dir, 'era5_t2m_cdf5.nc'))]);
  try {
    assert.deepEqual([five.width, five.height, five.bandCount, five.dtype, five.nodata, five.scales[0], five.offsets[0], five.geo], [one.width, one.height, one.bandCount, one.dtype, one.nodata, one.scales[0], one.offsets[0], one.geo]);
    for (let b = 1; b <= one.bandCount; b++) assert.deepEqual(Array.from(await five.readWindowRaw(b, 0, 0, 40, 30)), Array.from(await one.readWindowRaw(b, 0, 0, 40, 30)), `CDF-5 band ${b}`);
  } finally {
    await one.close();
    await five.close();
  }
  // Values as tools read them: scale and offset applied, the fill left out, rows north up.
  const ds = await openRaster(path.join(dir, 'era5_t2m.nc'));
  try {
    const top = await ds.readWindow(3, 0, 0, 2, 1);
    assert.ok(Math.abs(top[0] - (270 + Math.round((15 - 0.3 * 29 + 4) / 0.0015) * 0.0015)) < 1e-3, `north-west corner of step 3: ${top[0]}`);
    const hole = await ds.readWindow(1, 3, 30 - 1 - 4, 1, 1);
    assert.ok(Number.isNaN(hole[0]), 'the _FillValue reads as no data');
  } finally {
    await ds.close();
  }
  // The scan lists the classic files, and the NetCDF-4 one too (raster-netcdf4.test.ts compares those with GDAL).
  const data = await scanDataFolder(dir);
  assert.ok(data.items.some((it) => it.path === 'era5_t2m.nc' && it.crs === 'EPSG:4326'));
  assert.ok(data.items.some((it) => it.path === 'ndvi_utm_nc4.nc' && it.crs === 'EPSG:32633'));
  assert.equal(data.unreadable, undefined);
  const stats = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../tool-manifests/raster_stats.json'), 'utf8')) as ToolManifest;
  const r = executability(stats, data, { task: 'monthly mean of ndvi_utm_nc4.nc' });
  assert.equal(r.args.image, 'ndvi_utm_nc4.nc', r.notes.join(' | '));
});

test('NetCDF files GeoWeave cannot take as one raster are refused saying what to do', { ...skip, timeout: 120_000 }, async () => {
  const dir = tmpDir('gw-nc-bad-');
  py(String.raw`
import os
from osgeo import gdal
import numpy as np
os.chdir(${JSON.stringify(dir)})
for n, bands in (('a.nc', 1), ('two_bands.nc', 2)):
    m = gdal.GetDriverByName('MEM').Create('', 8, 6, bands, gdal.GDT_Int16); m.SetGeoTransform((0, 1, 0, 6, 0, -1))
    for b in range(bands): m.GetRasterBand(b + 1).WriteArray((np.arange(48, dtype=np.int16) * (b + 1)).reshape(6, 8))
    gdal.Translate(n, m, format='netCDF', creationOptions=['FORMAT=NC'])
`);
  // GDAL writes the bands of a 2-D stack as variables Band1, Band2: one is named after a "#", as
  // GDAL's NETCDF:"file":variable, and reads as GDAL reads it; without one the error names them.
  await assert.rejects(openRaster(path.join(dir, 'two_bands.nc')), /two_bands\.nc: holds 2 gridded variables \(Band1, Band2\); name the one to read as two_bands\.nc#Band1/);
  await assert.rejects(openRaster(path.join(dir, 'two_bands.nc#Band3')), /two_bands\.nc: holds no gridded variable "Band3"; its gridded variables: Band1, Band2/);
  const second = await openRaster(path.join(dir, 'two_bands.nc#Band2'));
  try {
    const ref = gdalWindow(`NETCDF:"${path.join(dir, 'two_bands.nc')}":Band2`);
    assert.deepEqual(Array.from(await second.readWindowRaw(1, 0, 0, 8, 6)), Array.from(ref));
  } finally {
    await second.close();
  }
  const stats = await runTool('raster_stats', { image: 'two_bands.nc#Band2' }, { outDir: path.join(dir, 'out'), cwd: dir });
  assert.match(stats.summary, /^Mean band 1 47 /);
  assert.equal(stemOf('data/era5.nc#t2m'), 'era5_t2m', 'outputs are named after the file and the variable');
  // The run's provenance records the variable with its file's hash, so the run can be reproduced.
  const sha = py(`import hashlib; print(hashlib.sha256(open(${JSON.stringify(path.join(dir, 'two_bands.nc'))}, 'rb').read()).hexdigest())`).trim();
  assert.deepEqual(stats.provenance?.inputs.map((i) => [path.basename(i.path), i.sha256]), [['two_bands.nc#Band2', sha]]);
  // The scan lists each variable; a task naming the file gets its first, said so; naming the variable, that one.
  const data = await scanDataFolder(dir);
  assert.deepEqual(data.items.filter((it) => it.path.startsWith('two_bands.nc')).map((it) => it.path).sort(), ['two_bands.nc#Band1', 'two_bands.nc#Band2']);
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../tool-manifests/raster_stats.json'), 'utf8')) as ToolManifest;
  const byFile = executability(manifest, data, { task: 'histogram of two_bands.nc' });
  assert.equal(byFile.args.image, 'two_bands.nc#Band1', byFile.notes.join(' | '));
  assert.deepEqual(byFile.caveats, ['two_bands.nc holds Band1, Band2: Band1 is taken; name two_bands.nc#<variable> for another']);
  const byVariable = executability(manifest, data, { task: 'histogram of Band2 in two_bands.nc' });
  assert.equal(byVariable.args.image, 'two_bands.nc#Band2', byVariable.notes.join(' | '));
  assert.equal(byVariable.caveats, undefined);

  const whole = fs.readFileSync(path.join(dir, 'a.nc'));
  fs.writeFileSync(path.join(dir, 'cut.nc'), whole.subarray(0, whole.length - 40));
  const damaged = Buffer.from(whole); damaged.writeUInt32BE(7, 8);
  fs.writeFileSync(path.join(dir, 'damaged.nc'), damaged);
  await assert.rejects(openRaster(path.join(dir, 'cut.nc')), /cut\.nc: variable "Band1" runs to byte \d+ but the file has \d+; it is cut short/);
  await assert.rejects(openRaster(path.join(dir, 'damaged.nc')), /damaged\.nc: NetCDF header list tag 7 where 10 was expected/);
});
