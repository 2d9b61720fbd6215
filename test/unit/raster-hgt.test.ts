/**
 * SRTM height files (`N46E007.hgt`, as NASA's SRTMGL1/SRTMGL3 zips hold them) read as GDAL's SRTMHGT
 * driver reads them: samples, voids as nodata, the half-sample origin and EPSG:4326, north and south,
 * east and west of Greenwich; a slope over the .hgt equals the slope over GDAL's GeoTIFF copy of it;
 * the scan calls it a DEM, so terrain tools are ready on it, also once extracted from its zip; files
 * of the wrong size or name are refused saying why.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openRaster } from '../../src/core/raster/io/dataset';
import { runTool } from '../../src/core/raster/engine';
import { scanDataFolder } from '../../src/core/data/scan';
import { executability } from '../../src/core/retrieval/executability';
import { extractArchive, describeArchive } from '../../src/core/data/archive/archive';
import type { ToolManifest } from '../../src/core/manifests/types';
import { gdalWindow, gdalinfoJson, needGdal, py, tmpDir } from '../helpers/raster-gdal';

const skip = needGdal();

function makeTiles(dir: string): void {
  py(String.raw`
import os, zipfile
from osgeo import gdal, osr
import numpy as np
gdal.UseExceptions()
os.chdir(${JSON.stringify(dir)})
s = osr.SpatialReference(); s.ImportFromEPSG(4326)
def tile(name, lon, lat, n, seed):
    m = gdal.GetDriverByName('MEM').Create('', n, n, 1, gdal.GDT_Int16)
    m.SetGeoTransform((lon - 0.5 / (n - 1), 1 / (n - 1), 0, lat + 1 + 0.5 / (n - 1), 0, -1 / (n - 1))); m.SetProjection(s.ExportToWkt())
    yy, xx = np.mgrid[0:n, 0:n]
    a = (1500 + 800 * np.sin(xx / (60.0 + seed)) * np.cos(yy / 70.0) + yy * 0.5 - 300 * seed).astype(np.int16)
    a[100:120, 200:260] = -32768
    m.GetRasterBand(1).WriteArray(a); m.GetRasterBand(1).SetNoDataValue(-32768)
    gdal.Translate(name, m, format='SRTMHGT')
    d = gdal.Open(name); gdal.Translate(name.replace('.hgt', '_copy.tif'), d, format='GTiff'); d = None
tile('N46E007.hgt', 7, 46, 1201, 0)
tile('S03W061.hgt', -61, -3, 1201, 3)
with zipfile.ZipFile('N46E007.SRTMGL3.hgt.zip', 'w', zipfile.ZIP_DEFLATED) as z: z.write('N46E007.hgt')
`);
}

test('.hgt tiles equal GDAL SRTMHGT: samples, voids, geotransform, CRS; slope equals slope on the GeoTIFF copy', { ...skip, timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-hgt-');
  makeTiles(dir);
  for (const name of ['N46E007.hgt', 'S03W061.hgt']) {
    const file = path.join(dir, name);
    const ds = await openRaster(file);
    try {
      const info = gdalinfoJson(file);
      assert.deepEqual([ds.width, ds.height, ds.dtype, ds.nodata], [1201, 1201, 'int16', -32768]);
      assert.equal(info.bands[0].noDataValue, -32768);
      ds.geo.geoTransform.forEach((v, i) => assert.ok(Math.abs(v - info.geoTransform[i]) < 1e-12, `${name} geotransform[${i}] ${v} vs GDAL ${info.geoTransform[i]}`));
      assert.equal(ds.geo.epsg, 4326);
      for (const [x, y, w, h] of [[0, 0, 1201, 1201], [190, 95, 80, 40], [1200, 1200, 1, 1], [7, 1100, 1194, 101]]) {
        const ref = gdalWindow(file, 1, [x, y, w, h]);
        const raw = await ds.readWindowRaw(1, x, y, w, h);
        const flt = await ds.readWindow(1, x, y, w, h);
        let bad = 0;
        for (let i = 0; i < ref.length; i++) {
          if (raw[i] !== ref[i]) bad++;
          if (ref[i] === -32768 ? !Number.isNaN(flt[i]) : flt[i] !== ref[i]) bad++;
        }
        assert.equal(bad, 0, `${name} window ${x},${y} ${w}x${h}`);
      }
    } finally {
      await ds.close();
    }
  }
  const a = await runTool('slope', { dem: 'N46E007.hgt' }, { outDir: path.join(dir, 'out-hgt'), cwd: dir });
  const b = await runTool('slope', { dem: 'N46E007_copy.tif' }, { outDir: path.join(dir, 'out-tif'), cwd: dir });
  assert.equal(path.basename(a.outputs.slope.path), 'N46E007_slope.tif');
  const same = py(`
from osgeo import gdal
import numpy as np
da = gdal.Open(${JSON.stringify(a.outputs.slope.path)}); db = gdal.Open(${JSON.stringify(b.outputs.slope.path)})
x = da.GetRasterBand(1).ReadAsArray(); y = db.GetRasterBand(1).ReadAsArray()
print(int(np.sum(~((x == y) | (np.isnan(x) & np.isnan(y))))), int(np.sum(~np.isnan(x))), da.GetGeoTransform() == db.GetGeoTransform())`).trim();
  assert.match(same, /^0 \d+ True$/, same);
  // The raster viewer opens it as it opens a GeoTIFF.
  const { rasterFileView } = await import('../../src/core/results/raster-view');
  const view = await rasterFileView(path.join(dir, 'N46E007.hgt'));
  assert.match(view.summary, /1201×1201 pixels, 1 int16 band at 0\.000833° in EPSG:4326/);
  assert.deepEqual(view.map?.layers.map((l) => l.path), [path.join(dir, 'N46E007.hgt')]);
  assert.ok(Number(same.split(' ')[1]) > 1_000_000, same);
});

test('a zipped .hgt: readiness names the zip; extracted, the tile sits beside it and slope is ready on it; bad .hgt files are refused saying why', { ...skip, timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-hgt-');
  makeTiles(dir);
  const ws = path.join(dir, 'ws');
  fs.mkdirSync(ws);
  fs.renameSync(path.join(dir, 'N46E007.SRTMGL3.hgt.zip'), path.join(ws, 'N46E007.SRTMGL3.hgt.zip'));
  const slope: ToolManifest = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../tool-manifests/slope.json'), 'utf8'));
  assert.equal((await describeArchive('N46E007.SRTMGL3.hgt.zip', ws)).holds, 'a raster (N46E007.hgt)');
  const before = executability(slope, await scanDataFolder(ws));
  assert.equal(before.ready, false);
  assert.ok(before.notes.some((n) => n.endsWith('N46E007.SRTMGL3.hgt.zip holds a raster (N46E007.hgt): extract it first')), before.notes.join('; '));
  const r = await extractArchive(path.join(ws, 'N46E007.SRTMGL3.hgt.zip'));
  assert.equal(r.target, path.join(ws, 'N46E007.hgt'));
  assert.deepEqual(fs.readdirSync(ws).sort(), ['N46E007.SRTMGL3.hgt.zip', 'N46E007.hgt']);
  const scan = await scanDataFolder(ws);
  assert.deepEqual(scan.items.map((i) => [i.path, i.roles]), [['N46E007.hgt', ['dem']]]);
  const after = executability(slope, scan);
  assert.equal(after.ready, true, after.notes.join('; '));
  assert.equal(after.args.dem, 'N46E007.hgt');

  fs.writeFileSync(path.join(dir, 'N10E010.hgt'), Buffer.alloc(1000));
  await assert.rejects(openRaster(path.join(dir, 'N10E010.hgt')), /N10E010\.hgt: not an SRTM height file \(1000 bytes/);
  fs.copyFileSync(path.join(dir, 'N46E007.hgt'), path.join(dir, 'tile.hgt'));
  await assert.rejects(openRaster(path.join(dir, 'tile.hgt')), /tile\.hgt: an SRTM height file says where it lies only by its name/);
  // Cut short after it was opened (a download still being written): the read says so.
  fs.copyFileSync(path.join(dir, 'N46E007.hgt'), path.join(dir, 'N47E007.hgt'));
  const open = await openRaster(path.join(dir, 'N47E007.hgt'));
  fs.truncateSync(path.join(dir, 'N47E007.hgt'), 1000);
  await assert.rejects(open.readWindow(1, 0, 600, 1201, 10), /N47E007\.hgt: the file ended while reading rows 600–609; it changed since it was opened/);
  await open.close();
  fs.copyFileSync(path.join(dir, 'N46E007.hgt'), path.join(dir, 'N95E007.hgt'));
  await assert.rejects(openRaster(path.join(dir, 'N95E007.hgt')), /N95E007\.hgt: its name puts the tile at 95°, 7°/);
});
