// A scene without band descriptions in a cell: the run error says what to add in cell syntax
// ("add a line `nir: 4`", no --arg), and a quick fix (Ctrl+., Enter) adds the lines; then it runs.
'use strict';
const path = require('path');

const CELL = /ndvi as landsat/;

module.exports = {
  name: 'a scene without band descriptions: the error says "add a line `nir: 4`" and the quick fix adds it',
  setup(ws, lib) {
    lib.notebook(path.join(ws, 'bands.geonb'), 'vegetation in the Landsat 7 scene', ['ndvi as landsat\nimage: landsat/L7_ETMs.tif']);
  },
  async run({ page, openFile, runCell, outputTexts, cursorInCell, until, cellTexts, shot }) {
    await openFile(page, 'bands.geonb');
    if ((await runCell(page, CELL)) !== 'error') throw new Error('NDVI ran on a scene whose bands say nothing, without being told the bands');
    const text = await until('the error in the cell output', async () => { const t = await outputTexts(page); return /missing band role/.test(t) ? t : null; }, 30000);
    const line = text.split('\n').find((l) => /missing band role/.test(l)) ?? '';
    await shot('error');
    if (/--arg/.test(text)) throw new Error(`the cell error uses command-line syntax: "${line}"`);
    if (!text.includes('add a line `nir: 4`')) throw new Error(`the error does not say "add a line \`nir: 4\`": "${line}"`);
    // Quick fix by keyboard on the image line.
    await cursorInCell(page, CELL, 1);
    await page.keyboard.press('Control+Period');
    const title = await until('the quick fix in the action widget', () => page.evaluate(() => {
      const rows = [...document.querySelectorAll('.action-widget .monaco-list-row')];
      const fix = rows.find((r) => /nir: 4/.test(r.textContent));
      return fix ? { text: fix.textContent.trim(), focused: fix.classList.contains('focused') } : null;
    }), 15000);
    await shot('quick-fix');
    for (let i = 0; i < 5 && !(await page.evaluate(() => /nir: 4/.test(document.querySelector('.action-widget .monaco-list-row.focused')?.textContent ?? ''))); i++) await page.keyboard.press('Down');
    await page.keyboard.press('Enter');
    const fixed = await until('the cell with the band lines', async () => (await cellTexts(page)).find((t) => CELL.test(t) && /nir: 4/.test(t) && /red: 3/.test(t)), 15000);
    await page.keyboard.press('Escape');
    const state = await runCell(page, CELL);
    if (state !== 'ok') throw new Error(`the fixed cell does not run: ${(await outputTexts(page)).slice(0, 300)}`);
    return `error "${line.trim().slice(0, 110)}…"; quick fix "${title.text}" → ${JSON.stringify(fixed.trim())}; runs`;
  },
};
