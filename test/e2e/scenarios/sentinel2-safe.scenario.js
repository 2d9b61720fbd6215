// A Sentinel-2 SAFE as downloaded (JPEG 2000 bands in GRANULE/…/IMG_DATA/R10m and R20m) in the
// workspace: the panel sees it as one scene named by its .SAFE folder, NDVI is ready on it, and the
// inserted cell runs on the .jp2 bands in the packaged extension (WebAssembly decoder and its threads).
'use strict';
const path = require('path');
const fs = require('fs');
const { execFileSync } = require('child_process');

const SAFE = 'S2B_MSIL2A_20240612T103021_N0510_R108_T31TDF_20240612T130000.SAFE';
const TASK = `Compute NDVI for ${SAFE}`;

module.exports = {
  name: 'a Sentinel-2 SAFE of JPEG 2000 bands: one scene in the panel, NDVI ready on it, the cell runs',
  setup(ws, lib) {
    const img = path.join(ws, 'downloads', SAFE, 'GRANULE', 'L2A_T31TDF_A038000_20240612T103021', 'IMG_DATA');
    for (const r of ['R10m', 'R20m']) fs.mkdirSync(path.join(img, r), { recursive: true });
    execFileSync('/usr/bin/python3', ['-c', `
import sys
from osgeo import gdal, osr
import numpy as np
img = sys.argv[1]
def band(p, n, res, seed):
    m = gdal.GetDriverByName('MEM').Create('', n, n, 1, gdal.GDT_UInt16)
    m.SetGeoTransform((399960, res, 0, 4500000, 0, -res)); s = osr.SpatialReference(); s.ImportFromEPSG(32631); m.SetProjection(s.ExportToWkt())
    yy, xx = np.mgrid[0:n, 0:n]
    m.GetRasterBand(1).WriteArray((1000 + 700 * seed + 500 * np.sin(xx / 41.0) * np.cos(yy / 37.0)).astype(np.uint16))
    gdal.Translate(p, m, format='JP2OpenJPEG', creationOptions=['REVERSIBLE=YES', 'QUALITY=100', 'BLOCKXSIZE=256', 'BLOCKYSIZE=256'])
for tok, seed in [('B02', 0), ('B03', 1), ('B04', 1), ('B08', 4)]:
    band('%s/R10m/T31TDF_20240612T103021_%s_10m.jp2' % (img, tok), 600, 10, seed)
for tok, seed in [('B05', 2), ('B11', 3), ('B12', 2)]:
    band('%s/R20m/T31TDF_20240612T103021_%s_20m.jp2' % (img, tok), 300, 20, seed)
`, img]);
    lib.notebook(path.join(ws, 'safe.geonb'), '', ['# NDVI of the downloaded Sentinel-2 product']);
  },
  async run({ page, session, openFile, showPanel, describeTask, until, cellTexts, cellState, outputTexts, shot }) {
    await openFile(page, 'safe.geonb');
    const panel = await showPanel(page);
    const list = await describeTask(page, panel, TASK, session.userDir);
    const ndvi = list.find((c) => c.id === 'ndvi');
    if (!ndvi) throw new Error(`no NDVI candidate: ${list.map((c) => c.id).join(', ')}`);
    await shot('candidates');
    if (!ndvi.ready || !ndvi.readiness.includes(`image=${SAFE}`)) throw new Error(`NDVI is "${ndvi.readiness}", not ready on the SAFE`);
    await panel.click('#forward-list li[data-tool="ndvi"] button.insert-run');
    const cell = await until('the inserted NDVI cell', async () => (await cellTexts(page)).find((t) => /^ndvi/.test(t.trim())), 60000);
    if (!cell.includes(`image: downloads/${SAFE}`)) throw new Error(`the cell does not name the SAFE: ${JSON.stringify(cell)}`);
    const state = await until('the NDVI cell to finish', async () => { const s = await cellState(page, /^ndvi/); return s === 'ok' || s === 'error' ? s : null; }, 120000);
    const text = await outputTexts(page);
    if (state !== 'ok') throw new Error(`the NDVI run on the SAFE failed: ${text.slice(0, 400)}`);
    const summary = text.split('\n').find((l) => /Mean NDVI/.test(l)) ?? '';
    if (!summary) throw new Error(`no NDVI summary: ${text.slice(0, 300)}`);
    return `ndvi: "${ndvi.readiness}"; cell ran: "${summary.trim().slice(0, 80)}"`;
  },
};
