/**
 * ESRI ASCII grids (`.asc`, as OS Terrain 50, OpenTopography and hydrological models deliver them)
 * read as GDAL's AAIGrid driver reads them: Int32 or Float32 by what the numbers look like, corner
 * and centre origins, cellsize or dx/dy, NODATA_value, rows wrapped over lines at will, CRLF, the CRS
 * from a .prj beside the grid. Samples of several windows equal GDAL's; a slope over the grid equals
 * the slope over GDAL's GeoTIFF copy of it; the scan calls a grid named as a DEM one, so slope is
 * ready on it; grids cut short or with a broken header are refused saying what is wrong.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openRaster } from '../../src/core/raster/io/dataset';
import { runTool } from '../../src/core/raster/engine';
import { scanDataFolder } from '../../src/core/data/scan';
import { executability } from '../../src/core/retrieval/executability';
import type { ToolManifest } from '../../src/core/manifests/types';
import { gdalWindow, gdalinfoJson, needGdal, py, tmpDir } from '../helpers/raster-gdal';

const skip = needGdal();
const UTM31 = 'PROJCS["WGS_1984_UTM_Zone_31N",GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",500000.0],PARAMETER["False_Northing",0.0],PARAMETER["Central_Meridian",3.0],PARAMETER["Scale_Factor",0.9996],PARAMETER["Latitude_Of_Origin",0.0],UNIT["Meter",1.0]]';

/** Grids written by hand the ways writers differ; returns their names. */
function writeGrids(dir: string): string[] {
  const rows = (w: number, h: number, f: (x: number, y: number) => string, perLine = w) => {
    const out: string[] = [];
    for (let y = 0; y < h; y++) {
      const v = Array.from({ length: w }, (_, x) => f(x, y));
      for (let i = 0; i < v.length; i += perLine) out.push(v.slice(i, i + perLine).join(' '));
    }
    return out;
  };
  const elev = (x: number, y: number) => 200 + 40 * Math.sin(x / 17) * Math.cos(y / 23) + 0.3 * y;
  // Integers, corner origin, a nodata hole, lines of 7 values whatever the row width (values wrap).
  fs.writeFileSync(path.join(dir, 'dem_terrain.asc'), ['ncols 123', 'nrows 97', 'xllcorner 430000', 'yllcorner 4560000', 'cellsize 25', 'NODATA_value -9999',
    ...rows(123, 97, (x, y) => (x > 40 && x < 50 && y > 10 && y < 14 ? '-9999' : String(Math.round(elev(x, y)))), 7)].join('\n') + '\n');
  fs.writeFileSync(path.join(dir, 'dem_terrain.prj'), UTM31);
  // Floats with exponents, centre origin, dx/dy, CRLF, upper-case keywords, no nodata.
  fs.writeFileSync(path.join(dir, 'model_out.asc'), ['NCOLS 64', 'NROWS 40', 'XLLCENTER -3.5', 'YLLCENTER 51.25', 'DX 0.01', 'DY 0.005',
    ...rows(64, 40, (x, y) => (elev(x, y) / 1e3).toExponential(6))].join('\r\n') + '\r\n');
  // An integer grid whose nodata value has a decimal point: Float32, as GDAL makes it.
  fs.writeFileSync(path.join(dir, 'classes.asc'), ['ncols 30', 'nrows 20', 'xllcorner 0', 'yllcorner 0', 'cellsize 1', 'NODATA_value -1.0',
    ...rows(30, 20, (x, y) => String((x + y) % 5 === 0 ? -1 : (x * y) % 7))].join('\n'));
  return ['dem_terrain.asc', 'model_out.asc', 'classes.asc'];
}

test('ASCII grids equal GDAL AAIGrid: type, size, geotransform, nodata, CRS and samples of several windows', { ...skip, timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-asc-');
  for (const name of writeGrids(dir)) {
    const file = path.join(dir, name);
    const info = gdalinfoJson(file);
    const ds = await openRaster(file);
    try {
      const gdalType = { Int32: 'int32', Float32: 'float32', Float64: 'float64' }[info.bands[0].type as string];
      assert.deepEqual([ds.width, ds.height, ds.bandCount, ds.dtype], [info.size[0], info.size[1], 1, gdalType], name);
      assert.equal(ds.nodata, info.bands[0].noDataValue ?? null, `${name} nodata`);
      ds.geo.geoTransform.forEach((v, i) => assert.ok(Math.abs(v - info.geoTransform[i]) < 1e-9, `${name} geotransform[${i}] ${v} vs GDAL ${info.geoTransform[i]}`));
      if (name === 'dem_terrain.asc') assert.equal(ds.geo.epsg, 32631);
      for (const [x, y, w, h] of [[0, 0, ds.width, ds.height], [3, 5, 20, 9], [ds.width - 1, ds.height - 1, 1, 1], [11, 2, ds.width - 11, 7]]) {
        const ref = gdalWindow(file, 1, [x, y, w, h]);
        const raw = await ds.readWindowRaw(1, x, y, w, h);
        let bad = 0;
        for (let i = 0; i < ref.length; i++) if (raw[i] !== ref[i]) bad++;
        assert.equal(bad, 0, `${name} window ${x},${y} ${w}x${h}: first ${Array.from(raw).slice(0, 4)} vs ${Array.from(ref.slice(0, 4))}`);
      }
    } finally {
      await ds.close();
    }
  }
  // A terrain tool over the grid equals the same tool over GDAL's GeoTIFF copy.
  py(`from osgeo import gdal; gdal.Translate(${JSON.stringify(path.join(dir, 'dem_terrain_copy.tif'))}, gdal.Open(${JSON.stringify(path.join(dir, 'dem_terrain.asc'))}))`);
  const a = await runTool('slope', { dem: 'dem_terrain.asc' }, { outDir: path.join(dir, 'out-asc'), cwd: dir });
  const b = await runTool('slope', { dem: 'dem_terrain_copy.tif' }, { outDir: path.join(dir, 'out-tif'), cwd: dir });
  assert.equal(path.basename(a.outputs.slope.path), 'dem_terrain_slope.tif');
  const diff = Number(py(`
from osgeo import gdal
import numpy as np
a = gdal.Open(${JSON.stringify(a.outputs.slope.path)}).ReadAsArray(); b = gdal.Open(${JSON.stringify(b.outputs.slope.path)}).ReadAsArray()
print(float(np.nanmax(np.abs(a - b))) if np.isnan(a).sum() == np.isnan(b).sum() else 'nan-mismatch')`).trim());
  assert.equal(diff, 0);
  // The scan lists it as a DEM (by its name) with its CRS, so slope is ready on it.
  const data = await scanDataFolder(dir);
  const item = data.items.find((it) => it.path === 'dem_terrain.asc');
  assert.ok(item, data.items.map((it) => it.path).join(', '));
  assert.equal(item.crs, 'EPSG:32631');
  assert.deepEqual(item.roles, ['dem']);
  const slope = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../tool-manifests/slope.json'), 'utf8')) as ToolManifest;
  const r = executability(slope, { items: [item] }, { task: 'slope of dem_terrain.asc' });
  assert.equal(r.ready, true, r.notes.join(' | '));
});

test('ASCII grids cut short, without a size or a cell size, or with a bad nodata value are refused naming the file and the fix', async () => {
  const dir = tmpDir('gw-asc-bad-');
  const cases: [string, string, RegExp][] = [
    ['short.asc', 'ncols 4\nnrows 3\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2 3 4\n5 6 7 8\n9 10\n', /short\.asc: the grid holds 10 values where its header's 4 columns × 3 rows need 12/],
    ['nosize.asc', 'ncols 4\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2 3 4\n', /nosize\.asc: the header's nrows is missing/],
    ['nocell.asc', 'ncols 2\nnrows 1\nxllcorner 0\nyllcorner 0\n1 2\n', /nocell\.asc: the header gives no cell size/],
    ['badnd.asc', 'ncols 2\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 1\nNODATA_value none\n1 2\n', /badnd\.asc: the header's NODATA_value is "none", not a number/],
    ['huge.asc', 'ncols 99999999\nnrows 1\nxllcorner 0\nyllcorner 0\ncellsize 1\n1 2\n', /huge\.asc: the header's ncols is "99999999"/],
  ];
  for (const [name, text, want] of cases) {
    fs.writeFileSync(path.join(dir, name), text);
    await assert.rejects(openRaster(path.join(dir, name)), want, name);
  }
});
