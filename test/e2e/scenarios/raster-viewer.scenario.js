// Rasters opened from the explorer: a GeoTIFF and a Sentinel-2 JPEG 2000 band open in GeoWeave's
// raster viewer, not as a binary file. Each shows raster_info's summary (the JP2 with its overviews),
// its band table and the file on the map; the pixel inspector on the JP2 shows what GDAL reads there.
'use strict';
const path = require('path');
const { execFileSync, spawnSync } = require('child_process');

const JP2 = 'T32TMS_20240705T101559_B08_10m.jp2';

module.exports = {
  name: 'raster viewer: a GeoTIFF and a JPEG 2000 band open from the explorer with their summary, bands and map',
  setup(ws) {
    execFileSync('/usr/bin/python3', ['-c', `
import sys
from osgeo import gdal, osr
import numpy as np
m = gdal.GetDriverByName('MEM').Create('', 2600, 2200, 1, gdal.GDT_UInt16)
m.SetGeoTransform((499980, 10, 0, 5100000, 0, -10)); s = osr.SpatialReference(); s.ImportFromEPSG(32632); m.SetProjection(s.ExportToWkt())
yy, xx = np.mgrid[0:2200, 0:2600]
m.GetRasterBand(1).WriteArray((2500 + 1500 * np.sin(xx / 90.0) * np.cos(yy / 70.0)).astype(np.uint16))
gdal.Translate(sys.argv[1], m, format='JP2OpenJPEG', creationOptions=['REVERSIBLE=YES', 'QUALITY=100', 'BLOCKXSIZE=512', 'BLOCKYSIZE=512', 'RESOLUTIONS=4'])
`, path.join(ws, JP2)]);
  },
  async run({ page, ws, openFile, until, resultFrame, inResult, pointInResult, shot }) {
    const seen = [];
    for (const [file, want] of [['s2_scene.tif', /pixels, \d+ uint16 bands/], [JP2, /2600×2200 pixels, 1 uint16 band at 10 m in EPSG:32632.*Overviews: 1300×1100, 650×550, 325×275\./]]) {
      await openFile(page, file);
      const found = await resultFrame(page, 'raster_info', { map: true, timeoutMs: 90000 });
      const summary = await inResult(found, (el) => el.querySelector('.gw-summary').textContent);
      if (!want.test(summary)) throw new Error(`${file}: the viewer says "${summary}"`);
      const layers = await inResult(found, (el) => [...el.querySelectorAll('.gw-layers input[data-layer]')].map((i) => `${i.dataset.layer}:${i.checked ? 'on' : 'off'}`));
      if (!layers.includes('in:image:on')) throw new Error(`${file}: the map's layers are ${layers.join(', ')}`);
      const bands = await inResult(found, (el) => el.querySelectorAll('.gw-table tbody tr').length);
      if (bands < 1) throw new Error(`${file}: no band table`);
      await shot(file.replace(/\W+/g, '-'));
      seen.push(`${file}: "${summary.slice(0, 70)}…", ${bands} band rows`);
      if (file !== JP2) continue;
      // The inspector on the JP2 shows the value GDAL reads at that pixel (full resolution).
      const probe = await pointInResult(found, '.gw-map', 0.4, 0.45);
      await page.mouse.move(probe.x - 5, probe.y - 5);
      await page.mouse.move(probe.x, probe.y, { steps: 3 });
      const read = await until('the inspector to show a value', () => inResult(found, (el) => {
        const i = el.querySelector('.gw-inspector');
        return i.dataset.values && i.dataset.layer === 'in:image' ? { col: Number(i.dataset.col), row: Number(i.dataset.row), value: JSON.parse(i.dataset.values)[0] } : null;
      }), 15000, 300);
      const gdal = spawnSync('gdallocationinfo', ['-valonly', path.join(ws, JP2), String(read.col), String(read.row)], { encoding: 'utf8' });
      if (gdal.status !== 0 || Number(gdal.stdout.trim()) !== read.value) throw new Error(`the inspector shows ${read.value} at col ${read.col}, row ${read.row}; GDAL reads ${gdal.stdout.trim() || gdal.stderr}`);
      seen.push(`inspector col ${read.col} row ${read.row} = ${read.value} (GDAL the same)`);
    }
    return seen.join('; ');
  },
};
