// Reasons name only meaningful phrases in the analyst's words (no Chinese character pairs across
// words, no stems, no stop words), and next-step suggestions call a product what it is: after an
// NDVI and a slope from the DEM, the slope is "your slope", not "your NDVI slope", and a scene
// correction (dark-object subtraction) is not offered as what follows it.
'use strict';
const path = require('path');

const ZH = '各地的植被长势怎么样，哪些地方的林地被指出现退化';
const NOISE = /(?<!植)被指|各地|景影|\bimageri\b|\bimag\b|matches how\b|"how"/;

module.exports = {
  name: 'reasons without fragments or stems; suggestion labels from what the product is',
  setup(ws, lib) {
    lib.notebook(path.join(ws, 'labels.geonb'), 'vegetation on the steep slopes above the village', ['ndvi as veg\nimage: s2_scene.tif', 'slope as terrain\ndem: dem.tif']);
  },
  async run({ page, session, openFile, palette, showPanel, describeTask, until, extensionLog, shot }) {
    let panel = await showPanel(page);
    const list = await describeTask(page, panel, ZH, session.userDir);
    const noisy = list.filter((c) => NOISE.test(c.reason));
    if (noisy.length) throw new Error(`reasons with fragments: ${noisy.map((c) => `${c.id}: "${c.reason}"`).join('; ')}`);
    await openFile(page, 'labels.geonb');
    // Both cells at once (the second is below the first one's map, out of view): count the runs in the log.
    const runs = () => (extensionLog(session.userDir).match(/\] ran (ndvi|slope) in /g) ?? []).length;
    const before = runs();
    await page.click('.tabs-container .tab.active');
    await palette(page, 'GeoWeave: Run All Tool Cells');
    await until('the NDVI and slope runs in the extension log', () => runs() >= before + 2, 180000, 500);
    panel = await showPanel(page);
    const reasons = await until('next steps after the slope', async () => {
      const steps = await panel.$$eval('#memory li.step', (lis) => lis.length);
      const rs = await panel.$$eval('#complementary li.suggestion .reason', (els) => els.map((e) => e.textContent ?? ''));
      return steps >= 2 && rs.length ? rs : null;
    }, 60000);
    await shot('next-after-slope');
    const wrong = reasons.filter((r) => /NDVI slope/i.test(r));
    if (wrong.length) throw new Error(`the slope is labelled as an NDVI product: ${wrong.join(' | ')}`);
    if (!reasons.some((r) => /your slope\b/.test(r))) throw new Error(`no suggestion speaks of "your slope": ${reasons.join(' | ')}`);
    // What a step can follow: a scene correction is no next step for a slope raster.
    const ids = await panel.$$eval('#complementary li.suggestion', (lis) => lis.map((li) => li.getAttribute('data-tool')));
    if (ids.includes('dos_atmospheric_correction')) throw new Error(`dark-object subtraction suggested after slope: ${ids.join(', ')}`);
    return `${list.length} candidates for the Chinese task, none with fragments ("${list[0].reason.slice(0, 80)}"); after slope: "${reasons.find((r) => /your slope/.test(r)).slice(0, 90)}"`;
  },
};
