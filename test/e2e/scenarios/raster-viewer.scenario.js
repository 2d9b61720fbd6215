// Rasters opened from the explorer: a GeoTIFF and a Sentinel-2 JPEG 2000 band open in GeoWeave's
// raster viewer, not as a binary file. Each shows raster_info's summary (the JP2 with its overviews),
// its band table and the file on the map; the pixel inspector on the JP2 shows what GDAL reads there.
// A file rewritten while open is shown again; a file that is not a raster says so, naming it.
'use strict';
const fs = require('fs');
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
    fs.writeFileSync(path.join(ws, 'notes_not_a_raster.tif'), 'field notes, typed into a file named .tif\n');
    execFileSync('gdal_translate', ['-q', '-srcwin', '0', '0', '300', '200', path.join(ws, 'dem.tif'), path.join(ws, 'rewritten.tif')]);
  },
  async run(t) {
    // Its files leave the workspace root afterwards: the explorer draws only the rows in view, and the
    // scenarios after this one open files further down the list.
    try { return await view(t); } finally {
      for (const f of [JP2, 'notes_not_a_raster.tif', 'rewritten.tif']) fs.rmSync(path.join(t.ws, f), { force: true });
      await t.page.keyboard.press('Escape');
      await t.palette(t.page, 'View: Close All Editors');
    }
  },
};

async function view({ page, ws, openFile, until, resultFrame, inResult, pointInResult, inFrames, shot }) {
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
    // The values' statistics: all pixels of these files, the JP2's mean as GDAL computes it.
    const stats = await inResult(found, (el) => {
      const box = [...el.querySelectorAll('.gw-tablebox')].find((b) => /^Band statistics/.test(b.querySelector('h4').textContent));
      return box ? { title: box.querySelector('h4').textContent, first: [...box.querySelectorAll('tbody tr')[0].children].map((td) => td.textContent) } : null;
    });
    if (!stats || !/^Band statistics: all \d+×\d+ pixels/.test(stats.title)) throw new Error(`${file}: no statistics table (${JSON.stringify(stats)})`);
    if (file === JP2) {
      const info = JSON.parse(execFileSync('gdalinfo', ['-json', '-stats', path.join(ws, JP2)], { encoding: 'utf8' }));
      fs.rmSync(path.join(ws, `${JP2}.aux.xml`), { force: true });
      const mean = info.bands[0].mean;
      if (Math.abs(Number(stats.first[4].replace(/[^\d.-]/g, '')) - mean) > Math.max(0.01, Math.abs(mean) * 1e-3)) throw new Error(`the viewer's mean ${stats.first[4]} is not GDAL's ${mean}`);
      seen.push(`statistics: mean ${stats.first[4]} (gdalinfo -stats ${mean.toFixed(3)})`);
    }
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
  // Rewritten while open (a cell run again over its output): the viewer reads it again.
  await openFile(page, 'rewritten.tif');
  const before = await resultFrame(page, 'raster_info', { map: true, timeoutMs: 60000 });
  const first = await inResult(before, (el) => el.querySelector('.gw-summary').textContent);
  if (!/^raster_info: 300×200 pixels/.test(first)) throw new Error(`rewritten.tif before: ${first}`);
  const tmp = path.join(ws, 'rewritten.tmp.tif');
  execFileSync('gdal_translate', ['-q', '-srcwin', '0', '0', '120', '90', path.join(ws, 'dem.tif'), tmp]);
  fs.renameSync(tmp, path.join(ws, 'rewritten.tif'));
  const after = await until('the viewer to show the rewritten file', async () => {
    const f = await resultFrame(page, 'raster_info', { map: true, timeoutMs: 5000 }).catch(() => null);
    const t = f && await inResult(f, (el) => el.querySelector('.gw-summary').textContent).catch(() => '');
    return t && /^raster_info: 120×90 pixels/.test(t) ? t : null;
  }, 30000, 500);
  seen.push(`rewritten while open: "${first.slice(13, 30)}" → "${after.slice(13, 29)}"`);
  // Not a raster: the viewer says why, naming the file.
  await openFile(page, 'notes_not_a_raster.tif');
  const err = await until('the viewer\'s error', async () => {
    const hit = await inFrames(page, '.gw-viewer-error');
    return hit ? hit.el.textContent() : null;
  }, 30000);
  if (!err.includes('notes_not_a_raster.tif') || !/not a TIFF/.test(err)) throw new Error(`the viewer's error for a text file: ${err}`);
  await shot('not-a-raster');
  seen.push(`a text file: "${err.slice(err.indexOf('notes_not'), err.indexOf('notes_not') + 70)}"`);
  return seen.join('; ');
}
