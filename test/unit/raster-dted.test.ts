/**
 * DTED tiles (`.dt0`–`.dt2`, as USGS EarthExplorer offers SRTM) read as GDAL's DTED driver reads
 * them: samples of several windows (columns on disk, rows asked for), nodata −32767, the half-sample
 * origin and EPSG:4326, north and south, east and west; a file holding only some of its columns and
 * one with a negative written in two's complement read as GDAL reads them; slope over a tile equals
 * slope over GDAL's GeoTIFF copy; the scan calls it a DEM; damaged files are refused saying why.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openRaster } from '../../src/core/raster/io/dataset';
import { runTool } from '../../src/core/raster/engine';
import { scanDataFolder } from '../../src/core/data/scan';
import { gdalWindow, gdalinfoJson, needGdal, py, tmpDir } from '../helpers/raster-gdal';

const skip = needGdal();

function makeTiles(dir: string): void {
  py(String.raw`
import os
from osgeo import gdal, osr
import numpy as np
gdal.UseExceptions()
os.chdir(${JSON.stringify(dir)})
s = osr.SpatialReference(); s.ImportFromEPSG(4326)
def tile(name, lon, lat, n, seed):
    m = gdal.GetDriverByName('MEM').Create('', n, n, 1, gdal.GDT_Int16)
    m.SetGeoTransform((lon - 0.5 / (n - 1), 1 / (n - 1), 0, lat + 1 + 0.5 / (n - 1), 0, -1 / (n - 1))); m.SetProjection(s.ExportToWkt())
    yy, xx = np.mgrid[0:n, 0:n]
    a = (900 + 700 * np.sin(xx / (40.0 + seed)) * np.cos(yy / 55.0) + yy * 0.3 - 1200 * (seed % 2)).astype(np.int16)
    a[n // 3:n // 3 + 9, n // 2:n // 2 + 14] = -32767
    m.GetRasterBand(1).WriteArray(a); m.GetRasterBand(1).SetNoDataValue(-32767)
    gdal.Translate(name, m, format='DTED')
    d = gdal.Open(name); gdal.Translate(name + '_copy.tif', d, format='GTiff'); d = None
tile('n46_e007_3arc_v2.dt1', 7, 46, 1201, 0)
tile('s03_w061.dt0', -61, -3, 121, 1)
`);
  // A producer's tile holding only columns 10–60 of 121 (record block counts 0–50), and a negative
  // written in two's complement (−1000 as 0xFC18), from the level-0 tile.
  const src = fs.readFileSync(path.join(dir, 's03_w061.dt0'));
  const dataAt = 80 + 648 + 2700, col = 12 + 2 * 121;
  const cols: Buffer[] = [];
  for (let c = 10; c <= 60; c++) {
    const rec = Buffer.from(src.subarray(dataAt + c * col, dataAt + (c + 1) * col));
    rec.writeUInt16BE(c - 10, 2);
    cols.push(rec);
  }
  cols[5].writeUInt16BE(0xfc18, 8 + 2 * 40);
  fs.writeFileSync(path.join(dir, 'partial.dt0'), Buffer.concat([src.subarray(0, dataAt), ...cols]));
}

test('DTED tiles equal GDAL DTED: samples, nodata, geotransform, CRS; partial files and two\'s complement; slope equals slope on the GeoTIFF copy', { ...skip, timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-dted-');
  makeTiles(dir);
  for (const name of ['n46_e007_3arc_v2.dt1', 's03_w061.dt0', 'partial.dt0']) {
    const file = path.join(dir, name);
    const ds = await openRaster(file);
    try {
      const info = gdalinfoJson(file);
      assert.deepEqual([ds.width, ds.height, ds.dtype, ds.nodata], [info.size[0], info.size[1], 'int16', -32767], name);
      assert.equal(info.bands[0].noDataValue, -32767);
      ds.geo.geoTransform.forEach((v, i) => assert.ok(Math.abs(v - info.geoTransform[i]) < 1e-12, `${name} geotransform[${i}] ${v} vs GDAL ${info.geoTransform[i]}`));
      assert.equal(ds.geo.epsg, 4326);
      const W = ds.width, H = ds.height;
      for (const [x, y, w, h] of [[0, 0, W, H], [7, 11, 50, 23], [W - 1, H - 1, 1, 1], [3, H - 30, W - 3, 30]]) {
        const ref = gdalWindow(file, 1, [x, y, w, h]);
        const raw = await ds.readWindowRaw(1, x, y, w, h);
        let bad = 0;
        for (let i = 0; i < ref.length; i++) if (raw[i] !== ref[i]) bad++;
        assert.equal(bad, 0, `${name} window ${x},${y} ${w}x${h}`);
      }
      if (name === 'partial.dt0') {
        assert.match(ds.warnings?.[0] ?? '', /holds 51 of its 121 columns; the others read as nodata/);
        assert.equal((await ds.readWindowRaw(1, 15, 121 - 1 - 40, 1, 1))[0], -1000, 'two\'s complement negative');
      }
    } finally {
      await ds.close();
    }
  }
  const a = await runTool('slope', { dem: 'n46_e007_3arc_v2.dt1' }, { outDir: path.join(dir, 'out-dted'), cwd: dir });
  const b = await runTool('slope', { dem: 'n46_e007_3arc_v2.dt1_copy.tif' }, { outDir: path.join(dir, 'out-tif'), cwd: dir });
  const diff = py(`
from osgeo import gdal
import numpy as np
a = gdal.Open(${JSON.stringify(a.outputs.slope.path)}); b = gdal.Open(${JSON.stringify(b.outputs.slope.path)})
x = a.ReadAsArray(); y = b.ReadAsArray()
print(float(np.nanmax(np.abs(x - y))) if (np.isnan(x) == np.isnan(y)).all() else 'nan-mismatch')`).trim();
  assert.equal(diff, '0.0');
  const data = await scanDataFolder(dir);
  for (const name of ['n46_e007_3arc_v2.dt1', 's03_w061.dt0']) {
    const item = data.items.find((it) => it.path === name);
    assert.deepEqual([item?.crs, item?.roles], ['EPSG:4326', ['dem']], name);
  }
});

test('damaged DTED files are refused naming the file and what is wrong', async () => {
  const dir = tmpDir('gw-dted-bad-');
  const uhl = (over: Record<number, string> = {}) => {
    const b = Buffer.alloc(80, 0x20);
    b.write('UHL1', 0, 'latin1');
    b.write('0070000E', 4, 'latin1'); b.write('0460000N', 12, 'latin1');
    b.write('0300', 20, 'latin1'); b.write('0300', 24, 'latin1'); b.write('0121', 47, 'latin1'); b.write('0121', 51, 'latin1');
    for (const [at, text] of Object.entries(over)) b.write(text, Number(at), 'latin1');
    return b;
  };
  const dsi = Buffer.alloc(648, 0x20); dsi.write('DSI', 0, 'latin1'); dsi.write('WGS84', 144, 'latin1');
  const acc = Buffer.alloc(2700, 0x20); acc.write('ACC', 0, 'latin1');
  const cases: [string, Buffer, RegExp][] = [
    ['noheader.dt1', Buffer.from('not a dted file at all, just text that is long enough to read'), /noheader\.dt1: not a DTED file \(no UHL record/],
    ['nodsi.dt1', Buffer.concat([uhl(), Buffer.alloc(3348, 0x20)]), /nodsi\.dt1: a DTED file without its DSI or ACC record/],
    ['badsize.dt1', Buffer.concat([uhl({ 47: 'ABCD' }), dsi, acc]), /badsize\.dt1: the UHL record's number of longitude lines is "ABCD", not a number/],
    ['nodata.dt1', Buffer.concat([uhl(), dsi, acc]), /nodata\.dt1: a DTED file with no elevation columns after its headers/],
    ['nosentinel.dt1', Buffer.concat([uhl(), dsi, acc, Buffer.alloc(121 * (12 + 242), 0x11)]), /nosentinel\.dt1: none of its 121 elevation records starts with DTED's sentinel byte/],
  ];
  for (const [name, bytes, want] of cases) {
    fs.writeFileSync(path.join(dir, name), bytes);
    await assert.rejects(openRaster(path.join(dir, name)), want, name);
  }
});
