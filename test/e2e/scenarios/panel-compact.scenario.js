// The panel is compact and readable: at least five candidates visible in a 900 px tall panel, no
// horizontal scrollbar from a long file name, and no bare score: the score parts are shown on demand.
'use strict';
const fs = require('fs');
const path = require('path');

const LONG = 'LE07_L1TP_204033_20000723_20200918_02_T1_surface_reflectance_stack_no_band_descriptions.tif';

module.exports = {
  name: 'compact panel: five candidates in 900 px, no horizontal scrollbar for long paths, scores explained',
  setup(ws, lib) {
    fs.mkdirSync(path.join(ws, 'landsat', 'archive', 'path204_row033', '2000'), { recursive: true });
    fs.copyFileSync(path.join(ws, 'landsat', 'L7_ETMs.tif'), path.join(ws, 'landsat', 'archive', 'path204_row033', '2000', LONG));
    lib.notebook(path.join(ws, 'compact.geonb'), '', ['# compact panel']);
  },
  async run({ page, session, openFile, showPanel, describeTask, until, shot }) {
    await openFile(page, 'compact.geonb');
    let panel = await showPanel(page);
    // Size the window so that the panel itself is 900 px tall.
    const frameHeight = async () => (await (await panel.frameElement()).boundingBox()).height;
    const vp = page.viewportSize();
    await page.setViewportSize({ width: vp.width, height: Math.round(vp.height + 900 - (await frameHeight())) });
    await page.waitForTimeout(1000);
    panel = await showPanel(page);
    const height = Math.round(await frameHeight());
    await describeTask(page, panel, `NDVI and mean per field for ${LONG}`, session.userDir);
    await panel.evaluate(() => { document.scrollingElement.scrollTop = 0; });
    await page.waitForTimeout(500);
    const view = await panel.evaluate(() => {
      const h = window.innerHeight;
      const items = [...document.querySelectorAll('#forward-list li.suggestion')].map((li) => li.getBoundingClientRect());
      const scores = [...document.querySelectorAll('li.suggestion .score')];
      return {
        visible: items.filter((r) => r.top >= 0 && r.bottom <= h).length,
        heights: items.map((r) => Math.round(r.height)),
        scrollWidth: document.scrollingElement.scrollWidth,
        clientWidth: document.scrollingElement.clientWidth,
        bareScores: scores.filter((s) => s.checkVisibility()).length,
        explained: document.querySelectorAll('li.suggestion details.why').length,
        items: items.length,
      };
    });
    await shot('panel-900');
    if (height < 895) throw new Error(`the panel is ${height} px tall, not 900`);
    if (view.visible < 5) throw new Error(`${view.visible} candidates fully visible in a ${height} px panel (heights ${view.heights.join(', ')} px)`);
    if (view.scrollWidth > view.clientWidth) throw new Error(`horizontal scrollbar: content ${view.scrollWidth} px in ${view.clientWidth} px`);
    if (view.bareScores) throw new Error(`${view.bareScores} bare scores on screen, unexplained`);
    if (view.explained < view.items) throw new Error(`${view.items - view.explained} candidates without a score explanation`);
    // Opening the explanation shows what the score is made of.
    await panel.click('#forward-list li.suggestion:first-child details.why summary');
    const why = await until('the score parts', () => panel.evaluate(() => {
      const d = document.querySelector('#forward-list li.suggestion details.why');
      return d.open ? d.querySelector('.parts').textContent : null;
    }), 5000);
    if (!/^Score \d+\.\d{3} from: .*\b(match|graph|learned|readiness)/.test(why.trim())) throw new Error(`the explanation does not list the score parts: "${why}"`);
    await shot('score-parts');
    await page.setViewportSize(vp);
    return `${view.visible} of ${view.items} candidates visible in a ${height} px panel (heights ${view.heights.join(', ')} px); width ${view.scrollWidth}/${view.clientWidth} px; first explained: "${why.trim().slice(0, 120)}…"`;
  },
};
