// Editor help in tool cells: "did you mean slope?" and "did you mean z_factor" come with quick fixes
// applied by keyboard (Ctrl+., Enter); a numeric argument is not offered a table reference; the same
// input under another tool's name (image for slope's dem) is accepted and runs.
'use strict';
const path = require('path');

module.exports = {
  name: 'editor help: quick fixes for slope and z_factor by keyboard, no table reference for a number, image as an alias of dem',
  setup(ws, lib) {
    lib.notebook(path.join(ws, 'editor-help.geonb'), 'steep terrain per field', [
      'slpe as typo\ndem: dem.tif',
      'slope as steep\ndem: dem.tif\nzfactor: 2',
      'zonal_stats as per_field\nimage: dem.tif\nzones: fields.geojson\n# then join $per_field.table to the fields',
      'threshold as high\nimage: dem.tif\nop: gt\nvalue: ',
      'slope as alias\nimage: dem.tif',
    ]);
  },
  async run({ page, openFile, cursorInCell, until, cellTexts, runCell, outputTexts, shot }) {
    await openFile(page, 'editor-help.geonb');
    const quickFix = async (cell, line, want) => {
      await cursorInCell(page, cell, line);
      await page.waitForTimeout(800); // diagnostics are computed after a short pause
      await page.keyboard.press('Control+Period');
      const rows = await until(`"${want}" among the quick fixes`, async () => {
        const r = await page.$$eval('.action-widget .monaco-list-row', (els) => els.map((e) => ({ text: e.textContent.trim(), focused: e.classList.contains('focused') })));
        return r.some((x) => x.text.includes(want)) ? r : null;
      }, 15000);
      for (let i = 0; i < 5 && !(await page.evaluate((w) => (document.querySelector('.action-widget .monaco-list-row.focused')?.textContent ?? '').includes(w), want)); i++) await page.keyboard.press('Down');
      await page.keyboard.press('Enter');
      await page.waitForTimeout(500);
      return rows.map((r) => r.text);
    };
    const fix1 = await quickFix(/as typo/, 0, 'Change to "slope"');
    await until('the tool fixed to slope', async () => (await cellTexts(page)).some((t) => /^slope as typo/.test(t.trim())), 10000);
    const fix2 = await quickFix(/as steep/, 2, 'Change to "z_factor"');
    await until('zfactor fixed to z_factor', async () => (await cellTexts(page)).some((t) => /as steep/.test(t) && /^z_factor: 2$/m.test(t)), 10000);
    await shot('fixed');
    // Completion on a numeric value: no table reference (the word appears in a comment above).
    await page.keyboard.press('Escape');
    await cursorInCell(page, /as high/, 3);
    await page.keyboard.press('Control+Space');
    await page.waitForTimeout(2500);
    const offered = await page.$$eval('.suggest-widget.visible .monaco-list-row', (rows) => rows.map((r) => r.getAttribute('aria-label') || r.textContent)).catch(() => []);
    await shot('value-completion');
    await page.keyboard.press('Escape');
    const refs = offered.filter((l) => /\$\w+\.\w+|per_field|table/.test(l));
    if (refs.length) throw new Error(`the numeric "value" is offered ${refs.join(', ')}`);
    // image: for slope's dem runs.
    const state = await runCell(page, /as alias/);
    if (state !== 'ok') throw new Error(`slope with "image:" does not run: ${(await outputTexts(page)).split('\n').find((l) => /alias|image|argument/.test(l)) ?? ''}`);
    return `quick fixes: [${fix1.join(' | ')}] and [${fix2.join(' | ')}] applied by keyboard; value completion offers ${offered.length ? offered.slice(0, 3).join(', ') : 'nothing'}; "slope / image: dem.tif" ran`;
  },
};
