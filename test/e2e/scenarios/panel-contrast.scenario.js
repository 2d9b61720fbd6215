// Every text in the panel reaches WCAG AA contrast (4.5:1), computed from the colours the browser
// renders, in the light, dark and both high-contrast themes; with candidates (ready, not ready, a
// guess), suggestions, the memory timeline and opened score details on screen.
'use strict';
const path = require('path');

const THEMES = ['Default Light Modern', 'Default Dark Modern', 'Default High Contrast', 'Default High Contrast Light'];

/** In the webview: [{ text, ratio, fg, bg }] for every visible text of the panel. */
function measure() {
  const parse = (c) => {
    const m = /rgba?\(([^)]+)\)/.exec(c);
    if (!m) return null;
    const [r, g, b, a = 1] = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return { r, g, b, a };
  };
  const over = (top, under) => ({ r: top.r * top.a + under.r * (1 - top.a), g: top.g * top.a + under.g * (1 - top.a), b: top.b * top.a + under.b * (1 - top.a), a: 1 });
  const lum = ({ r, g, b }) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const css = getComputedStyle(document.documentElement);
  const base = parse(css.getPropertyValue('--vscode-sideBar-background').trim().replace(/^#(..)(..)(..)(..)?$/, (_, r, g, b, a) => `rgba(${parseInt(r, 16)},${parseInt(g, 16)},${parseInt(b, 16)},${a ? parseInt(a, 16) / 255 : 1})`))
    ?? parse(getComputedStyle(document.body).backgroundColor) ?? { r: 255, g: 255, b: 255, a: 1 };
  const background = (el) => {
    const layers = [];
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c.a > 0) layers.push(c);
      if (c && c.a >= 1) break;
    }
    let bg = base.a >= 1 ? base : { ...base, a: 1 };
    for (const l of layers.reverse()) bg = over(l, bg);
    return bg;
  };
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    const own = [...el.childNodes].filter((n) => n.nodeType === 3 && n.textContent.trim()).map((n) => n.textContent.trim()).join(' ');
    if (!own || el.closest('[aria-hidden="true"], .sr-only, [hidden]') || !el.checkVisibility()) continue;
    // Disabled controls are exempt from WCAG contrast (1.4.3); nothing else is.
    if (el.closest('button:disabled')) continue;
    const style = getComputedStyle(el);
    const bg = background(el);
    const fg = over({ ...parse(style.color), a: parse(style.color).a * Number(style.opacity) }, bg);
    const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
    out.push({ text: own.slice(0, 40), cls: el.className, ratio: Math.round(((hi + 0.05) / (lo + 0.05)) * 100) / 100, fg: style.color, bg: `rgb(${Math.round(bg.r)},${Math.round(bg.g)},${Math.round(bg.b)})` });
  }
  return out;
}

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
      const found = await panel.evaluate(measure);
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
