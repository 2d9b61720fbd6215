// GeoWeave: Export Notebook from the command palette: pick "Shell script", accept the proposed file
// name in the save dialog, and the script is there with the cell's geoweave run call.
'use strict';
const fs = require('fs');
const path = require('path');

module.exports = {
  name: 'Export Notebook writes the cells as a shell script',
  setup(ws, lib) {
    lib.notebook(path.join(ws, 'export-me.geonb'), 'vegetation vigour', ['ndvi\nimage: s2_scene.tif\nred: 3\nnir: 5']);
  },
  async run({ page, ws, openFile, palette, until, shot }) {
    const target = path.join(ws, 'export-me.sh');
    fs.rmSync(target, { force: true });
    await openFile(page, 'export-me.geonb');
    await page.click('.tabs-container .tab.active');
    await palette(page, 'GeoWeave: Export Notebook');
    const input = '.quick-input-widget .quick-input-box input';
    await until('the format pick', async () => (await page.$$eval('.quick-input-widget .quick-input-list .monaco-list-row', (rows) => rows.map((r) => r.textContent))).some((t) => t.includes('Shell script')), 30000);
    await page.keyboard.type('Shell script', { delay: 10 });
    await page.keyboard.press('Enter');
    // code-server's save dialog is a quick input prefilled with the proposed path.
    await until('the save dialog with export-me.sh', async () => /export-me\.sh$/.test(await page.$eval(input, (el) => el.value).catch(() => '')), 30000);
    await shot('save-dialog');
    await page.keyboard.press('Enter');
    const text = await until('export-me.sh written', () => (fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : null), 30000);
    if (!text.includes('set -euo pipefail') || !text.includes('geoweave run ndvi --arg image=s2_scene.tif --arg red=3 --arg nir=5 --out "$OUT"/export-me/ndvi-')) {
      throw new Error(`unexpected script:\n${text}`);
    }
    return `${text.split('\n').length} lines`;
  },
};
