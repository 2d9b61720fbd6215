// Results of a vegetation notebook in code-server: the NDVI histogram as a chart with its marks, the
// vectorize output drawn over its mask, two threshold cells on one index keeping two files (the
// earlier cell's reference still reads its own), and after saving, closing and reopening, the
// results shown again (map included, the files still being there).
'use strict';
const fs = require('fs');
const path = require('path');

const CELLS = [
  'ndvi as veg\nimage: s2_scene.tif',
  'threshold\nimage: $veg.index\nop: gt\nvalue: 0.3',
  'area_by_class as low_area\nimage: $threshold.mask',
  'threshold\nimage: $veg.index\nop: gt\nvalue: 0.6',
  'vectorize_mask as patches\nimage: $threshold.mask',
];

module.exports = {
  name: 'result outputs: histogram chart, vectorize drawn, two threshold cells keep two files, a reopened notebook shows its results',
  setup(ws, lib) {
    lib.notebook(path.join(ws, 'veg-results.geonb'), 'where is the dense vegetation?', CELLS);
  },
  async run({ page, ws, palette, reloadWindow, openFile, until, resultFrame, inResult, revealInResult, shot }) {
    await openFile(page, 'veg-results.geonb');
    await page.click('.tabs-container .tab.active');
    await palette(page, 'GeoWeave: Run All Tool Cells');
    const file = path.join(ws, 'veg-results.geonb');

    // Histogram with the bare (< 0.2) and dense (> 0.6) limits the summary speaks of.
    const ndvi = await resultFrame(page, 'ndvi', { map: true, timeoutMs: 180000 });
    await revealInResult(page, ndvi, '.gw-histogram');
    const hist = await inResult(ndvi, (el) => {
      const h = el.querySelector('.gw-histogram');
      return h ? { bins: Number(h.dataset.bins), bars: h.querySelectorAll('rect.gw-bar').length, marks: [...h.querySelectorAll('.gw-mark')].map((m) => m.textContent) } : null;
    });
    if (!hist || hist.bars < 8 || hist.bars !== hist.bins) throw new Error(`no histogram chart: ${JSON.stringify(hist)}`);
    if (!hist.marks.some((m) => /0\.2/.test(m)) || !hist.marks.some((m) => /0\.6/.test(m))) throw new Error(`the histogram does not mark 0.2 and 0.6: ${hist.marks.join(', ')}`);
    const kpis = await inResult(ndvi, (el) => [...el.querySelectorAll('.gw-kpi .gw-label')].map((x) => x.textContent));
    for (const k of ['Mean', 'Median', 'P5', 'P95', 'Valid']) if (!kpis.includes(k)) throw new Error(`the key statistics lack ${k}: ${kpis.join(', ')}`);
    await shot('ndvi-histogram');

    // The vectorize output drawn over the mask it came from.
    const vec = await resultFrame(page, 'vectorize_mask', { map: true, timeoutMs: 180000, scroll: 400 });
    await revealInResult(page, vec, '.gw-map');
    const drawn = await until('the polygons on the map', () => inResult(vec, (el) => {
      const m = el.querySelector('.gw-map');
      const counts = JSON.parse(m.dataset.vectors || '{}');
      const toggle = el.querySelector('.gw-layers input[data-layer="out:polygons"]');
      return counts['out:polygons'] > 0 && toggle?.checked ? { features: counts['out:polygons'], layers: [...el.querySelectorAll('.gw-layers input')].map((i) => i.dataset.layer) } : null;
    }), 60000, 500);
    await shot('vectorize-drawn');

    // Two threshold cells: two files, each cell's record points at its own; the area table read the first.
    await page.click('.tabs-container .tab.active');
    await palette(page, 'File: Save');
    const nb = await until('the notebook saved with five runs', () => {
      const d = JSON.parse(fs.readFileSync(file, 'utf8'));
      return d.cells.filter((c) => c.metadata?.lastRun?.ok).length === 5 ? d : null;
    }, 60000);
    const runs = nb.cells.map((c) => c.metadata?.lastRun);
    const low = runs[1].outputs.mask.path, high = runs[3].outputs.mask.path;
    if (low === high) throw new Error(`both threshold cells wrote ${low}`);
    if (!fs.existsSync(low) || !fs.existsSync(high)) throw new Error(`a threshold output is missing: ${low} ${fs.existsSync(low)}, ${high} ${fs.existsSync(high)}`);
    const lowArgs = runs[2].view?.raw?.arguments?.image;
    if (lowArgs !== low) throw new Error(`area_by_class read ${lowArgs}, not the first threshold's ${low}`);
    const vecArgs = runs[4].view?.raw?.arguments?.image;
    if (vecArgs !== high) throw new Error(`vectorize_mask read ${vecArgs}, not the second threshold's ${high}`);
    const lowShare = runs[1].view.keyStats.find((k) => k.label === 'In the mask')?.value, highShare = runs[3].view.keyStats.find((k) => k.label === 'In the mask')?.value;
    if (!(lowShare > highShare)) throw new Error(`mask shares ${lowShare}% (> 0.3) and ${highShare}% (> 0.6)`);
    const text = fs.readFileSync(file, 'utf8');
    if (text.length > 600000) throw new Error(`the notebook file is ${text.length} characters with its saved results`);

    // Close, reload the window (the notebook is read from its file again) and reopen: the results
    // come back, the map from the files still there.
    await reloadWindow(page);
    await openFile(page, 'veg-results.geonb');
    const again = await resultFrame(page, 'ndvi', { map: true, timeoutMs: 60000, scroll: -400 });
    const restored = await inResult(again, (el) => ({ note: el.querySelector(':scope > .gw-note')?.textContent ?? '', hist: !!el.querySelector('.gw-histogram'), kpis: el.querySelectorAll('.gw-kpi').length }));
    if (!/Saved result of the run at/.test(restored.note) || !restored.hist || restored.kpis < 4) throw new Error(`the reopened ndvi cell shows ${JSON.stringify(restored)}`);
    await revealInResult(page, again, '.gw-map');
    await shot('reopened');
    return `histogram ${hist.bins} bins, marks ${hist.marks.join(' | ')}; vectorize: ${drawn.features} polygons drawn (layers ${drawn.layers.join(', ')}); threshold files ${path.relative(ws, low)} (${lowShare.toFixed(1)}%) and ${path.relative(ws, high)} (${highShare.toFixed(1)}%); notebook ${text.length} characters; reopened: "${restored.note}", map and histogram back`;
  },
};
