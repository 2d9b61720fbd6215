// A raster whose geotransform rotates its grid (rotation terms, as some aerial and older products
// carry) opened in the raster viewer: the map is in the raster's CRS with the grid drawn turned, not
// laid north-up, and the pixel inspector's coordinates and value are where GDAL puts that pixel; the
// coordinates read to the decimetre (5,009,123.4, not 5.01e+6).
'use strict';
const fs = require('fs');
const path = require('path');
const { execFileSync, spawnSync } = require('child_process');

const FILE = 'rotated_grid.tif';

module.exports = {
  name: 'raster viewer: a rotated grid is drawn turned in its CRS, and the inspector reads the pixel GDAL puts there',
  setup(ws) {
    execFileSync('/usr/bin/python3', ['-c', `
import sys, math
from osgeo import gdal, osr
import numpy as np
n = 300; a = math.radians(20)
d = gdal.GetDriverByName('GTiff').Create(sys.argv[1], n, n, 1, gdal.GDT_Float32)
d.SetGeoTransform((600000, 10 * math.cos(a), -10 * math.sin(a), 5010000, -10 * math.sin(a), -10 * math.cos(a)))
s = osr.SpatialReference(); s.ImportFromEPSG(32632); d.SetProjection(s.ExportToWkt())
yy, xx = np.mgrid[0:n, 0:n]
d.GetRasterBand(1).WriteArray((xx + 1000 * yy).astype(np.float32))
d = None
`, path.join(ws, FILE)]);
  },
  async run({ page, ws, openFile, until, resultFrame, inResult, pointInResult, shot }) {
    try {
      await openFile(page, FILE);
      const found = await resultFrame(page, 'raster_info', { map: true, timeoutMs: 90000 });
      const projection = await inResult(found, (el) => el.querySelector('.gw-map').dataset.projection);
      if (projection !== 'EPSG:32632') throw new Error(`the map is in ${projection}, not the raster's EPSG:32632`);
      await shot('rotated');
      const seen = [];
      for (const [fx, fy] of [[0.5, 0.5], [0.47, 0.42], [0.53, 0.58]]) {
        await inResult(found, (el) => { const i = el.querySelector('.gw-inspector'); if (i) delete i.dataset.values; });
        const p = await pointInResult(found, '.gw-map', fx, fy);
        await page.mouse.move(p.x - 5, p.y - 5);
        await page.mouse.move(p.x, p.y, { steps: 3 });
        const read = await until('the inspector to show a value', () => inResult(found, (el) => {
          const i = el.querySelector('.gw-inspector');
          return i.dataset.values ? { text: i.textContent, col: Number(i.dataset.col), row: Number(i.dataset.row), value: JSON.parse(i.dataset.values)[0] } : null;
        }), 15000, 300);
        const xy = /x ([\d,.]+)\s+y ([\d,.]+)/.exec(read.text);
        if (!xy || /e\+/.test(read.text)) throw new Error(`the inspector's coordinates do not read as metres: ${read.text}`);
        const [x, y] = [xy[1], xy[2]].map((v) => Number(v.replace(/,/g, '')));
        // GDAL's pixel at the map coordinate the inspector names (its full geotransform, rotation included).
        const gdal = spawnSync('gdallocationinfo', ['-geoloc', '-valonly', path.join(ws, FILE), String(x), String(y)], { encoding: 'utf8' });
        const want = Number(gdal.stdout.trim());
        if (gdal.status !== 0 || !Number.isFinite(want)) throw new Error(`gdallocationinfo at ${x}, ${y}: ${gdal.stderr || gdal.stdout}`);
        // The value encodes its pixel: col + 1000 row. One pixel of slack for a point on a pixel edge.
        const [wc, wr] = [want % 1000, Math.floor(want / 1000)];
        if (Math.abs(wc - read.col) > 1 || Math.abs(wr - read.row) > 1 || read.value !== read.col + 1000 * read.row) {
          throw new Error(`at x ${x}, y ${y} the inspector reads col ${read.col}, row ${read.row} = ${read.value}; GDAL's pixel there is col ${wc}, row ${wr}`);
        }
        seen.push(`x ${xy[1]} y ${xy[2]}: col ${read.col} row ${read.row} (GDAL ${wc}, ${wr})`);
      }
      return seen.join('; ');
    } finally {
      fs.rmSync(path.join(ws, FILE), { force: true });
      await page.keyboard.press('Escape');
      await page.keyboard.press('Escape');
    }
  },
};
