// Every text in the panel reaches WCAG AA contrast (4.5:1), computed from the colours the browser
// renders, in the light, dark and both high-contrast themes; with candidates (ready, not ready, a
// guess), suggestions, the memory timeline and opened score details on screen.
'use strict';
const path = require('path');
const { textContrasts } = require('../contrast');

const THEMES = ['Default Light Modern', 'Default Dark Modern', 'Default High Contrast', 'Default High Contrast Light'];

module.exports = {
  name: 'panel contrast: every text ≥ 4.5:1 in light, dark and high-contrast themes',
  setup(ws, lib) {
    lib.notebook(path.join(ws, 'contrast.geonb'), '', ['ndvi as veg\nimage: s2_scene.tif']);
  },
  async run({ page, session, openFile, runCell, showPanel, describeTask, setUserSettings, until, shot }) {
    await openFile(page, 'contrast.geonb');
    await runCell(page, /as veg/);
    let panel = await showPanel(page);
    await until('complementary suggestions', () => panel.$('#complementary li.suggestion'), 120000);
    await describeTask(page, panel, 'Compute NDVI for the Landsat scene L7_ETMs.tif and the mean per field', session.userDir);
    const lines = [];
    const failures = [];
    for (const theme of THEMES) {
      await setUserSettings(page, { 'workbench.colorTheme': theme });
      const short = theme.replace(/^Default /, '');
      const themeOf = () => panel.evaluate(() => `${document.body.getAttribute('data-vscode-theme-id')}|${document.body.getAttribute('data-vscode-theme-name')}`).catch(() => '');
      await until(`the panel in the ${theme} theme`, async () => (await themeOf()).split('|').some((x) => x === theme || x === short), 30000, 300);
      await page.waitForTimeout(800);
      // Open every score explanation so its text is measured too.
      await panel.evaluate(() => document.querySelectorAll('details.why').forEach((d) => { d.open = true; }));
      const found = await panel.evaluate(textContrasts, { bases: ['--vscode-sideBar-background'] });
      const bad = found.filter((f) => f.ratio < 4.5);
      const min = found.reduce((m, f) => (f.ratio < m.ratio ? f : m), { ratio: Infinity });
      lines.push(`${theme}: ${found.length} texts, lowest ${min.ratio}:1 ("${min.text}")`);
      if (bad.length) failures.push(`${theme}: ${bad.slice(0, 5).map((b) => `"${b.text}" (.${b.cls}) ${b.ratio}:1 ${b.fg} on ${b.bg}`).join('; ')}${bad.length > 5 ? ` and ${bad.length - 5} more` : ''}`);
      await panel.evaluate(() => document.querySelectorAll('details.why').forEach((d) => { d.open = false; }));
      await shot(theme.replace(/\s+/g, '-').toLowerCase());
    }
    await setUserSettings(page, {});
    if (failures.length) throw new Error(`below 4.5:1 — ${failures.join(' | ')}`);
    return lines.join('; ');
  },
};
