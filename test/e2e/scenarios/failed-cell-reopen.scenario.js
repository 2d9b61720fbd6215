// A cell whose run failed, saved and reopened: the notebook file keeps the error it ended with
// (`lastError`, the message as shown, no run record), and the reopened cell shows that error again,
// as Jupyter keeps an error output. Running it again after a fix drops the error from the file.
'use strict';
const fs = require('fs');
const path = require('path');

const CELL = /slope as terrain/;

module.exports = {
  name: 'a failed cell, saved and reopened, shows its error again; a later good run drops it from the file',
  setup(ws, lib) {
    lib.notebook(path.join(ws, 'failed.geonb'), 'slope of the valley', ['slope as terrain\ndem: no_such_dem.tif']);
  },
  async run({ page, ws, palette, reloadWindow, openFile, runCell, outputTexts, until, shot }) {
    const file = path.join(ws, 'failed.geonb');
    await openFile(page, 'failed.geonb');
    if ((await runCell(page, CELL)) !== 'error') throw new Error('slope ran on a DEM that is not there');
    const shown = await until('the error in the cell output', async () => { const t = await outputTexts(page); return /no_such_dem\.tif/.test(t) ? t : null; }, 30000);
    const line = shown.split('\n').find((l) => /no_such_dem\.tif/.test(l)) ?? '';
    await page.click('.tabs-container .tab.active');
    await palette(page, 'File: Save');
    const saved = await until('the notebook saved with the failure', () => {
      const d = JSON.parse(fs.readFileSync(file, 'utf8'));
      return d.cells[0]?.metadata?.lastError ? d.cells[0].metadata : null;
    }, 30000);
    if (saved.lastRun) throw new Error('a failed cell kept a run record');
    if (!/no_such_dem\.tif/.test(saved.lastError.message)) throw new Error(`the saved error does not name the file: ${JSON.stringify(saved.lastError)}`);

    await reloadWindow(page);
    await openFile(page, 'failed.geonb');
    const again = await until('the error shown again after reopening', async () => { const t = await outputTexts(page); return /no_such_dem\.tif/.test(t) ? t : null; }, 60000);
    await shot('reopened-error');

    // Fixed and run again: the file keeps the run, and no longer the error.
    fs.copyFileSync(path.join(ws, 'dem.tif'), path.join(ws, 'no_such_dem.tif'));
    if ((await runCell(page, CELL)) !== 'ok') throw new Error(`the cell does not run once the DEM is there: ${(await outputTexts(page)).slice(0, 300)}`);
    await page.click('.tabs-container .tab.active');
    await palette(page, 'File: Save');
    await until('the notebook saved with the run and without the error', () => {
      const m = JSON.parse(fs.readFileSync(file, 'utf8')).cells[0]?.metadata;
      return m?.lastRun?.ok && !m.lastError ? m : null;
    }, 30000);
    return `error "${line.trim().slice(0, 100)}"; saved as lastError; shown again after reopening (${again.split('\n').filter((l) => /no_such_dem/.test(l)).length} line); a good run replaced it`;
  },
};
