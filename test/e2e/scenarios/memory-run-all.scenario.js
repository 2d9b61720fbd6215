// Run All twice leaves one timeline: re-running a cell replaces its own step, and the timeline follows
// the notebook's cells, not the history of clicks.
'use strict';
const path = require('path');

const CELLS = ['ndvi as veg\nimage: s2_scene.tif', 'slope as terrain\ndem: dem.tif', 'raster_stats as heights\nimage: dem.tif'];

module.exports = {
  name: 'Run All twice leaves one memory timeline; re-running a cell replaces its step',
  setup(ws, lib) {
    lib.notebook(path.join(ws, 'run-all.geonb'), 'vegetation and terrain', CELLS);
  },
  async run({ page, session, openFile, palette, showPanel, until, runCell, extensionLog, shot }) {
    await openFile(page, 'run-all.geonb');
    const timeline = (panel) => panel.$$eval('#memory li.step', (lis) => lis.map((li) => li.querySelector('code')?.textContent ?? ''));
    // Cells below a quicklook are not rendered (the list is virtual): count the runs in the extension log.
    const runs = () => (extensionLog(session.userDir).match(/\] ran (ndvi|slope|raster_stats) in /g) ?? []).length;
    const runAll = async (expected) => {
      await page.click('.tabs-container .tab.active');
      await palette(page, 'GeoWeave: Run All Tool Cells');
      await until(`${expected} runs in the extension log`, () => runs() >= expected, 180000, 500);
      await page.waitForTimeout(1500);
    };
    const before = runs();
    await runAll(before + 3);
    let panel = await showPanel(page);
    const first = await until('three steps in the timeline', async () => { const t = await timeline(panel); return t.length >= 3 ? t : null; }, 60000);
    await runAll(before + 6);
    panel = await showPanel(page);
    const second = await timeline(panel);
    await shot('after-second-run-all');
    const expected = ['1. ndvi', '2. slope', '3. raster_stats'];
    if (JSON.stringify(second) !== JSON.stringify(expected)) throw new Error(`after Run All twice the timeline is ${JSON.stringify(second)} (after the first: ${JSON.stringify(first)})`);
    // The first cell alone: its step is replaced, in its place.
    await runCell(page, /as veg/);
    await until('the re-run in the log', () => runs() >= before + 7, 60000);
    await page.waitForTimeout(1500);
    panel = await showPanel(page);
    const third = await timeline(panel);
    if (JSON.stringify(third) !== JSON.stringify(expected)) throw new Error(`after re-running the first cell the timeline is ${JSON.stringify(third)}`);
    return `after Run All ×2 and the first cell again: ${third.join(', ')}`;
  },
};
