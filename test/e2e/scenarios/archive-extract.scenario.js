// A Sentinel-2 product still zipped as Copernicus Data Space delivers it (.SAFE.zip of JPEG 2000
// bands): a task naming it gets NDVI "not ready" with the archive named, GeoWeave offers to extract
// it, the offer's button extracts it beside the zip in the real extension host, and the same task
// on the extracted SAFE finds NDVI ready on it.
'use strict';
const path = require('path');
const fs = require('fs');
const { execFileSync } = require('child_process');

const SAFE = 'S2A_MSIL2A_20240707T103031_N0510_R108_T31TDF_20240707T141500.SAFE';
const DIR = 'zipped';
const NOTEBOOK = 'archive.geonb';

function makeZip(ws) {
  fs.mkdirSync(path.join(ws, DIR), { recursive: true });
  execFileSync('/usr/bin/python3', ['-c', `
import sys, os, zipfile, tempfile
from osgeo import gdal, osr
import numpy as np
out, safe = sys.argv[1], sys.argv[2]
tmp = tempfile.mkdtemp()
img = os.path.join(tmp, safe, 'GRANULE', 'L2A_T31TDF_A047000_20240707T103031', 'IMG_DATA', 'R10m')
os.makedirs(img)
for tok, seed in [('B02', 0), ('B03', 1), ('B04', 1), ('B08', 4)]:
  m = gdal.GetDriverByName('MEM').Create('', 300, 300, 1, gdal.GDT_UInt16)
  m.SetGeoTransform((399960, 10, 0, 4500000, 0, -10)); s = osr.SpatialReference(); s.ImportFromEPSG(32631); m.SetProjection(s.ExportToWkt())
  yy, xx = np.mgrid[0:300, 0:300]
  m.GetRasterBand(1).WriteArray((1000 + 700 * seed + 500 * np.sin(xx / 41.0) * np.cos(yy / 37.0)).astype(np.uint16))
  gdal.Translate(os.path.join(img, 'T31TDF_20240707T103031_%s_10m.jp2' % tok), m, format='JP2OpenJPEG', creationOptions=['REVERSIBLE=YES', 'QUALITY=100'])
open(os.path.join(tmp, safe, 'MTD_MSIL2A.xml'), 'w').write('<n1:Level-2A_User_Product/>')
with zipfile.ZipFile(os.path.join(out, safe + '.zip'), 'w', zipfile.ZIP_DEFLATED) as z:
  for root, _, files in os.walk(os.path.join(tmp, safe)):
      for f in sorted(files): z.write(os.path.join(root, f), os.path.relpath(os.path.join(root, f), tmp))
`, path.join(ws, DIR), SAFE]);
}

module.exports = {
  name: 'a zipped Sentinel-2 SAFE: readiness names the archive, the offer extracts it, NDVI is ready on the SAFE',
  // Its data and notebook exist only while it runs: the explorer draws only the rows in view, and
  // an archive in the workspace would change what other scenarios' readiness says.
  async run(t) {
    makeZip(t.ws);
    t.writeNotebook(path.join(t.ws, NOTEBOOK), '', ['# NDVI of a zipped Sentinel-2 product']);
    return t.withScenarioFiles(t, [DIR, NOTEBOOK], () => extract(t));
  },
};

async function extract({ page, session, ws, openFile, showPanel, describeTask, until, shot }) {
  await openFile(page, NOTEBOOK);
  // The workspace's file watcher has seen the data once the explorer shows its folder (the panel's
  // file list is refreshed by the same events), as it has for anyone who downloaded it before typing.
  await until(`the explorer to show ${DIR}/`, () => page.$(`.explorer-folders-view .monaco-list-row[aria-label^="${DIR}"]`), 20000);
  await page.waitForTimeout(1000);
  const panel = await showPanel(page);
  const before = await describeTask(page, panel, `Compute NDVI for ${SAFE}.zip`, session.userDir);
  const ndvi = before.find((c) => c.id === 'ndvi');
  if (!ndvi) throw new Error(`no NDVI candidate: ${before.map((c) => c.id).join(', ')}`);
  if (ndvi.ready) throw new Error(`NDVI is ready (${ndvi.readiness}) though its data is still zipped`);
  const said = `${ndvi.reason} ${ndvi.readiness}`;
  if (!said.includes(`${SAFE}.zip`) || !said.includes('extract it first')) throw new Error(`NDVI does not name the archive: "${said}"`);
  // The offer: a notification whose button extracts the archive.
  const toast = await until('the offer to extract the archive', async () => {
    for (const t of await page.$$('.notifications-toasts .notification-toast')) {
      if ((await t.textContent().catch(() => '')).includes('which GeoWeave reads once it is extracted')) return t;
    }
    return null;
  }, 30000);
  await shot('offer');
  await (await toast.$('a.monaco-button:has-text("Extract"), .monaco-button:has-text("Extract")')).click();
  const target = path.join(ws, DIR, SAFE);
  await until('the SAFE extracted beside the zip', async () => fs.existsSync(path.join(target, 'MTD_MSIL2A.xml')) || null, 60000);
  const left = fs.readdirSync(path.join(ws, DIR)).filter((n) => n.startsWith('.'));
  if (left.length) throw new Error(`temporary folders left: ${left.join(', ')}`);
  const after = await describeTask(page, panel, `Compute NDVI for ${SAFE}`, session.userDir);
  const ready = after.find((c) => c.id === 'ndvi');
  if (!ready?.ready || !ready.readiness.includes(`image=${SAFE}`)) throw new Error(`NDVI is "${ready?.readiness}" after extraction, not ready on the SAFE`);
  await shot('ready');
  return `before: "${said.slice(0, 160)}"; after: "${ready.readiness}"`;
}
