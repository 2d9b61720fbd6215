// A batch cell in code-server: `image: scenes/*.tif` runs NDVI once per scene; the result shows a
// table with one row per scene and the first scene's map, the picker switches the map to another
// scene, and the saved notebook records every item with its own output folder. A second batch cell
// (zonal statistics per scene) has tables per item: the picker switches them too.
'use strict';
const fs = require('fs');
const path = require('path');

module.exports = {
  name: 'batch run: a glob cell runs once per scene, a table row each, the picker switches the map',
  setup(ws, lib) {
    fs.mkdirSync(path.join(ws, 'scenes'), { recursive: true });
    for (const [from, to] of [['fire_pre.tif', 'a_pre.tif'], ['fire_post.tif', 'b_post.tif'], ['s2_scene.tif', 'c_s2.tif']]) fs.copyFileSync(path.join(ws, from), path.join(ws, 'scenes', to));
    lib.notebook(path.join(ws, 'batch.geonb'), 'vegetation in every scene', ['ndvi\nimage: scenes/*.tif\nred: 3\nnir: 5', 'zonal_stats\nimage: scenes/*.tif\nzones: fields.geojson']);
  },
  async run({ page, ws, openFile, palette, until, resultFrame, inResult, revealInResult, shot }) {
    await openFile(page, 'batch.geonb');
    await page.click('.tabs-container .tab.active');
    await palette(page, 'GeoWeave: Run All Tool Cells');
    const found = await resultFrame(page, 'ndvi', { map: true, timeoutMs: 240000 });
    const first = await inResult(found, (el) => ({
      options: [...el.querySelectorAll('.gw-batch-pick option')].map((o) => o.textContent),
      rows: [...(el.querySelector('table.gw-table')?.querySelectorAll('tbody tr') ?? [])].map((r) => [...r.children].map((c) => c.textContent)),
      shown: el.querySelector('.gw-item-summary')?.textContent ?? '',
    }));
    if (first.options.join(',') !== 'a_pre,b_post,c_s2') throw new Error(`batch picker: ${JSON.stringify(first)}`);
    if (first.rows.length !== 3 || !first.rows.every((r) => r[0] && r[r.length - 1] === 'ok')) throw new Error(`batch table: ${JSON.stringify(first.rows)}`);
    if (!first.shown.startsWith('a_pre (scenes/a_pre.tif): Mean NDVI')) throw new Error(`first item shown: ${first.shown}`);
    await revealInResult(page, found, '.gw-batch');
    await shot('batch-first');
    // Pick the third scene: its summary and a newly drawn map.
    await inResult(found, (el) => { const s = el.querySelector('.gw-batch-pick'); s.value = '2'; s.dispatchEvent(new Event('change')); });
    await until('the map and histogram of c_s2', () => inResult(found, (el) => el.querySelector('.gw-item-summary')?.textContent.startsWith('c_s2 (scenes/c_s2.tif)')
      && !!el.querySelector('.gw-detail .gw-map[data-rendered]') && !!el.querySelector('.gw-detail .gw-histogram')), 60000);
    const layer = await inResult(found, (el) => [...el.querySelectorAll('.gw-layers label')].map((l) => l.textContent).join(' | '));
    if (!/c_s2_ndvi\.tif/.test(layer)) throw new Error(`the map does not show c_s2's output: ${layer}`);
    await shot('batch-third');
    // The zonal statistics batch: each item's table of zones comes with it.
    const zonal = await resultFrame(page, 'zonal_stats', { timeoutMs: 240000, scroll: 300 });
    const titles = () => inResult(zonal, (el) => [...el.querySelectorAll('.gw-item-tables h4')].map((h) => h.textContent));
    const before = await titles();
    if (!before.length || !before.every((t) => t.startsWith('a_pre: '))) throw new Error(`zonal tables of the first item: ${JSON.stringify(before)}`);
    const rowsOf = () => inResult(zonal, (el) => [...el.querySelectorAll('.gw-item-tables tbody tr')].slice(0, 3).map((r) => r.textContent).join(' | '));
    const firstRows = await rowsOf();
    await inResult(zonal, (el) => { const s = el.querySelector('.gw-batch-pick'); s.value = '1'; s.dispatchEvent(new Event('change')); });
    await until('the zonal table of b_post', async () => (await titles()).every((t) => t.startsWith('b_post: ')) && (await rowsOf()) !== firstRows, 30000);
    await revealInResult(page, zonal, '.gw-item-tables');
    await shot('batch-zonal-second');
    await page.click('.tabs-container .tab.active');
    await palette(page, 'File: Save');
    const run = await until('the batch saved', () => {
      const d = JSON.parse(fs.readFileSync(path.join(ws, 'batch.geonb'), 'utf8'));
      return d.cells.find((c) => c.metadata?.lastRun?.batch)?.metadata.lastRun;
    }, 60000);
    const items = run.batch.items;
    if (items.length !== 3 || !items.every((i) => i.ok && fs.existsSync(i.outputs.index.path) && path.basename(path.dirname(i.outputs.index.path)) === i.name)) throw new Error(`saved items: ${JSON.stringify(items)}`);
    return `${items.length} items: ${items.map((i) => i.name).join(', ')}`;
  },
};
