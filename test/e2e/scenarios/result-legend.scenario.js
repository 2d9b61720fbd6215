// The map's legends as the browser draws them, in light, dark and high contrast: an NDVI colorbar
// whose gradient is the ramp written into the output's .qml (its stops, and its pixels on screen),
// a palette land-cover map whose legend lists the classes present in the GeoTIFF colour table's
// RGB with the PAM sidecar's category names (a Chinese one among them, drawn with real glyphs),
// and every legend text at WCAG AA contrast (4.5:1) on the background it sits on.
'use strict';
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { screenPixels } = require('../support');
const { textContrasts } = require('../contrast');

const NOTEBOOK = 'legend.geonb';
const PALETTE_TIF = 'landcover_palette.tif';
const CELLS = ['ndvi as veg\nimage: s2_scene.tif', `area_by_class as cover\nimage: ${PALETTE_TIF}`];
const THEMES = [
  ['Default Light Modern', 'vscode-light'],
  ['Default Dark Modern', 'vscode-dark'],
  ['Default High Contrast', 'vscode-high-contrast'],
];
/** The colour table: [value, category name, RGB, present in the pixels]. Colours no field scheme
 *  uses, so only the file's own table can produce them; 30 is in the table but not in the raster. */
const CLASSES = [
  [10, 'Tree cover', [17, 119, 51], true],
  [20, 'Cropland', [221, 204, 119], true],
  [30, 'Grassland', [68, 170, 153], false],
  [50, 'Built-up', [136, 34, 85], true],
  [80, '水体', [51, 34, 136], true],
];
const PY = '/usr/bin/python3';

/** Writes the palette GeoTIFF (nodata 0 in the top rows) and its .aux.xml with GDAL. */
const MAKE = String.raw`
import sys, json
from osgeo import gdal, osr
import numpy as np
gdal.UseExceptions()
f, classes = sys.argv[1], json.loads(sys.argv[2])
W, H = 90, 60
ds = gdal.GetDriverByName('GTiff').Create(f, W, H, 1, gdal.GDT_Byte, ['COMPRESS=DEFLATE'])
ds.SetGeoTransform((500000, 30, 0, 4400000, 0, -30))
s = osr.SpatialReference(); s.ImportFromEPSG(32650); ds.SetProjection(s.ExportToWkt())
present = np.array([c[0] for c in classes if c[3]], dtype=np.uint8)
yy, xx = np.mgrid[0:H, 0:W]
a = present[(xx * len(present)) // W]
a[:4, :] = 0
b = ds.GetRasterBand(1)
b.WriteArray(a)
b.SetNoDataValue(0)
ct = gdal.ColorTable()
for v, n, c, p in classes: ct.SetColorEntry(v, tuple(c) + (255,))
b.SetColorTable(ct)
b.SetRasterColorInterpretation(gdal.GCI_PaletteIndex)
names = [''] * 256
for v, n, c, p in classes: names[v] = n
b.SetCategoryNames(names)
ds = None
`;

/** What GDAL reads back from the file: its table entries, category names and the values present. */
const READ = String.raw`
import sys, json
from osgeo import gdal
import numpy as np
gdal.UseExceptions()
ds = gdal.Open(sys.argv[1])  # kept: a band outlives its dataset only by crashing
b = ds.GetRasterBand(1)
ct = b.GetColorTable()
a = b.ReadAsArray()
nd = b.GetNoDataValue()
present = sorted(int(v) for v in np.unique(a) if v != nd)
print(json.dumps({'entries': {str(v): list(ct.GetColorEntry(v))[:3] for v in present}, 'names': b.GetCategoryNames(), 'present': present}))
`;

function python(code, args) {
  const r = spawnSync(PY, ['-c', code, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`python3 (GDAL) failed: ${r.stderr || r.stdout}`);
  return r.stdout;
}

const rgbOf = (css) => (css.match(/[\d.]+/g) ?? []).slice(0, 3).map(Number);
const hexRgb = (h) => [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16));
const far = (a, b, tol) => a.some((v, i) => Math.abs(v - b[i]) > tol);

/** The ramp of a pseudocolor .qml: [{ at (0..1 along the ramp), rgb }] from its items. */
function qmlRamp(qml) {
  const lo = Number(/classificationMin="([^"]+)"/.exec(qml)?.[1]);
  const hi = Number(/classificationMax="([^"]+)"/.exec(qml)?.[1]);
  const items = [...qml.matchAll(/<item [^>]*value="([^"]+)"[^>]*color="(#[0-9a-f]{6})"/gi)];
  if (!items.length || !(hi > lo)) throw new Error('the .qml has no pseudocolor ramp');
  return items.map(([, v, c]) => ({ at: (Number(v) - lo) / (hi - lo), rgb: hexRgb(c) }));
}

/** The ramp's colour at t (0..1), linear between its stops. */
function rampAt(ramp, t) {
  const i = Math.max(0, ramp.findIndex((s, k) => k + 1 < ramp.length && t <= ramp[k + 1].at));
  const a = ramp[i], b = ramp[Math.min(i + 1, ramp.length - 1)];
  const f = b.at > a.at ? (t - a.at) / (b.at - a.at) : 0;
  return a.rgb.map((v, k) => v + (b.rgb[k] - v) * f);
}

/** The colorbar of result `found`: its CSS gradient's stops, and its box on the page. */
async function colorbar(found) {
  const box = await (await found.frame.frameElement()).boundingBox();
  const bar = await found.frame.evaluate(({ index }) => {
    const b = document.querySelectorAll('#container .gw-result')[index].querySelector('.gw-legend .gw-colorbar');
    if (!b) return null;
    const r = b.getBoundingClientRect();
    return { image: getComputedStyle(b).backgroundImage, left: r.left + b.clientLeft, top: r.top + b.clientTop, width: b.clientWidth, height: b.clientHeight };
  }, { index: found.index });
  if (!bar) return null;
  // A stop without a position sits where CSS puts it: evenly spread (here, when none has one).
  const parts = [...bar.image.matchAll(/rgba?\(([^)]+)\)(?:\s+([\d.]+)%)?/g)];
  const stops = parts.map(([, c, p], i) => ({ at: p === undefined ? i / Math.max(1, parts.length - 1) : Number(p) / 100, rgb: c.split(/[ ,]+/).slice(0, 3).map(Number) }));
  return { ...bar, stops, page: { x: box.x + bar.left, y: box.y + bar.top } };
}

/** Problems of the colorbar against the .qml's ramp (its stops, then its pixels along the middle
 *  row) and the largest difference of a pixel from the ramp. */
async function checkColorbar(page, found, ramp) {
  const bar = await colorbar(found);
  if (!bar) return { problems: ['no colorbar in the NDVI legend'], worst: NaN };
  const problems = [];
  const same = bar.stops.length === ramp.length && bar.stops.every((s, i) => Math.abs(s.at - ramp[i].at) < 1e-3 && !far(s.rgb, ramp[i].rgb, 0));
  if (!same) problems.push(`colorbar stops ${JSON.stringify(bar.stops)} are not the .qml's ramp ${JSON.stringify(ramp)}`);
  const px = await screenPixels(page, found.frame, { x: Math.round(bar.page.x), y: Math.round(bar.page.y + bar.height / 2) - 1, width: Math.floor(bar.width), height: 3 });
  let worst = { d: 0 };
  for (let x = 1; x < px.width - 1; x++) {
    const t = (x + 0.5) / px.width;
    const want = rampAt(ramp, t);
    const got = [0, 1, 2].map((k) => (px.data[(px.width + x) * 4 + k]));
    const d = Math.max(...got.map((v, k) => Math.abs(v - want[k])));
    if (d > worst.d) worst = { d, t, got, want: want.map(Math.round) };
  }
  // Chromium interpolates the gradient per device pixel: a few units off the exact ramp at most.
  if (worst.d > 6) problems.push(`the colorbar on screen is rgb(${worst.got}) at ${(worst.t * 100).toFixed(1)}% where the ramp is rgb(${worst.want})`);
  return { problems, worst: worst.d };
}

/** Problems of the class legend against GDAL's table and names. */
async function checkClasses(found, gdal) {
  const items = await found.frame.evaluate(({ index }) => {
    const legend = document.querySelectorAll('#container .gw-result')[index].querySelector('.gw-legend');
    return [...legend.querySelectorAll('.gw-classes li')].map((li) => {
      const label = li.querySelector('span:not(.gw-swatch)');
      const range = document.createRange();
      range.selectNodeContents(label);
      const glyphs = range.getBoundingClientRect();
      // Ink of the first character against code points no font draws (unassigned, private use): a
      // missing glyph is drawn as the same box or not at all.
      const ink = (ch) => {
        const c = document.createElement('canvas');
        c.width = 40; c.height = 40;
        const ctx = c.getContext('2d');
        ctx.font = getComputedStyle(label).font;
        ctx.fillStyle = '#000';
        ctx.textBaseline = 'top';
        ctx.fillText(ch, 4, 4);
        return [...ctx.getImageData(0, 0, 40, 40).data].filter((_, i) => i % 4 === 3);
      };
      const mine = ink(label.textContent[0]), missing = ['\u0378', '\uE000'].map(ink);
      return {
        value: Number(li.dataset.value), label: label.textContent, swatch: getComputedStyle(li.querySelector('.gw-swatch')).backgroundColor,
        width: glyphs.width, height: glyphs.height, inked: mine.some((a) => a > 0), likeMissing: missing.some((m) => mine.every((a, i) => a === m[i])),
      };
    });
  }, { index: found.index });
  const problems = [];
  const values = items.map((i) => i.value);
  if (values.join() !== gdal.present.join()) problems.push(`the legend lists classes ${values.join(', ')}; the raster has ${gdal.present.join(', ')}`);
  for (const it of items) {
    const want = gdal.entries[String(it.value)];
    if (!want || far(rgbOf(it.swatch), want, 0)) problems.push(`class ${it.value}: swatch ${it.swatch}, the colour table has rgb(${want})`);
    if (it.label !== gdal.names[it.value]) problems.push(`class ${it.value}: named "${it.label}", the category name is "${gdal.names[it.value]}"`);
    if (!(it.width > 0 && it.height > 0)) problems.push(`class ${it.value}: the label "${it.label}" has an empty glyph box (${it.width}×${it.height})`);
    if (/[\u3400-\u9fff]/.test(it.label) && (!it.inked || it.likeMissing)) problems.push(`class ${it.value}: "${it.label}" is drawn ${it.inked ? 'as missing-glyph boxes' : 'without ink'}`);
  }
  return { problems, items };
}

/** Problems of legend text contrast; checks that the background the ratios use is the one on screen. */
async function checkContrast(page, found, where) {
  const opts = { selector: '#container .gw-result', index: found.index, within: '.gw-legend', bases: ['--vscode-notebook-outputContainerBackgroundColor', '--vscode-editor-background'] };
  const texts = await found.frame.evaluate(textContrasts, opts);
  const problems = texts.filter((t) => t.ratio < 4.5).map((t) => `${where}: "${t.text}" (.${t.cls}) ${t.ratio}:1, ${t.fg} on ${t.bg}`);
  if (!texts.length) problems.push(`${where}: no legend text found`);
  // The legend box's inner bottom-right corner is empty: the screen shows the background there.
  const box = await (await found.frame.frameElement()).boundingBox();
  const corner = await found.frame.evaluate(({ index }) => {
    const f = document.querySelectorAll('#container .gw-result')[index].querySelector('.gw-legend');
    const r = f.getBoundingClientRect();
    return { x: r.right - f.clientLeft - 3, y: r.bottom - f.clientTop - 3 };
  }, { index: found.index });
  const px = await screenPixels(page, found.frame, { x: Math.round(box.x + corner.x), y: Math.round(box.y + corner.y), width: 1, height: 1 });
  const screen = px.data.slice(0, 3);
  const legendBg = texts.find((t) => t.cls === '')?.bg ?? texts[0]?.bg;
  if (legendBg && far(screen, rgbOf(legendBg), 2)) problems.push(`${where}: the contrast was computed on ${legendBg}, the screen shows rgb(${screen}) behind the legend`);
  const min = texts.reduce((m, t) => (t.ratio < m.ratio ? t : m), { ratio: Infinity });
  return { problems, summary: `${texts.length} texts ≥ ${min.ratio}:1` };
}

module.exports = {
  name: 'result legends: colorbar equals the .qml ramp, palette classes in the table colours with category names (CJK), legend text ≥ 4.5:1, in light, dark and high contrast',
  setup(ws, lib) {
    python(MAKE, [path.join(ws, PALETTE_TIF), JSON.stringify(CLASSES)]);
    lib.notebook(path.join(ws, NOTEBOOK), 'vegetation and land cover', CELLS);
  },
  async run({ page, ws, palette, openFile, until, resultFrame, inResult, revealInResult, setUserSettings, shot }) {
    const gdal = JSON.parse(python(READ, [path.join(ws, PALETTE_TIF)]));
    if (!gdal.names?.some((n) => /[\u3400-\u9fff]/.test(n))) throw new Error(`the fixture has no Chinese category name: ${JSON.stringify(gdal.names?.filter(Boolean))}`);
    await openFile(page, NOTEBOOK);
    await page.click('.tabs-container .tab.active');
    await palette(page, 'GeoWeave: Run All Tool Cells');
    const veg = await resultFrame(page, 'ndvi', { map: true, timeoutMs: 180000 });
    const ndviTif = await inResult(veg, (el) => [...el.querySelectorAll('.gw-outputs li .gw-path')].map((p) => p.textContent).find((p) => /\.tif$/.test(p)));
    const qmlFile = ndviTif.replace(/\.tif$/, '.qml');
    if (!fs.existsSync(qmlFile)) throw new Error(`no style beside the NDVI output: ${qmlFile}`);
    const ramp = qmlRamp(fs.readFileSync(qmlFile, 'utf8'));
    await resultFrame(page, 'area_by_class', { map: true, timeoutMs: 180000, scroll: 400 });
    // Saved, so the results come back when the notebook is opened again in each theme.
    await page.click('.tabs-container .tab.active');
    await palette(page, 'File: Save');
    await page.waitForTimeout(1000);

    const problems = [];
    const lines = [];
    for (const [theme, kind] of THEMES) {
      const short = theme.replace('Default ', '');
      await setUserSettings(page, { 'workbench.colorTheme': theme });
      await openFile(page, NOTEBOOK);
      await page.waitForTimeout(1500);
      const v = await resultFrame(page, 'ndvi', { map: true, scroll: -400 });
      await until(`the output in the ${theme} theme`, () => v.frame.evaluate((k) => document.body.dataset.vscodeThemeKind === k, kind), 30000, 300);
      await revealInResult(page, v, '.gw-legend');
      const layer = await inResult(v, (el) => el.querySelector('.gw-legend').dataset.layer);
      if (!/^out:/.test(layer ?? '')) problems.push(`${short}: the NDVI legend explains ${layer}`);
      const bar = await checkColorbar(page, v, ramp);
      problems.push(...bar.problems.map((p) => `${short}: ${p}`));
      const cv = await checkContrast(page, v, `${short} colorbar legend`);
      problems.push(...cv.problems);
      await shot(`ndvi-legend-${kind}`);

      const c = await resultFrame(page, 'area_by_class', { map: true, scroll: 400 });
      await revealInResult(page, c, '.gw-legend');
      const classes = await checkClasses(c, gdal);
      problems.push(...classes.problems.map((p) => `${short}: ${p}`));
      const cc = await checkContrast(page, c, `${short} class legend`);
      problems.push(...cc.problems);
      await shot(`class-legend-${kind}`);
      const cjk = classes.items.find((i) => /[\u3400-\u9fff]/.test(i.label));
      lines.push(`${short}: colorbar ${ramp.length} stops, on screen within ${bar.worst} of the ramp, ${cv.summary}; classes ${classes.items.map((i) => `${i.value} ${i.label} ${i.swatch}`).join(', ')}${cjk ? ` (${cjk.label} ${cjk.width.toFixed(1)} px wide)` : ''}, ${cc.summary}`);
    }
    await setUserSettings(page, {});
    if (problems.length) throw new Error(problems.join(' | '));
    return lines.join('; ');
  },
};
