// WCAG 2 contrast of rendered text, from the colours the browser computed: shared by the scenarios
// that hold the panel and the result views to 4.5:1 in every theme.
'use strict';

/**
 * Runs in a page (`frame.evaluate(textContrasts, opts)`; it is self-contained for that): for every
 * visible text under the `index`-th match of `selector` (then `within` inside it), its contrast
 * against the background it is drawn on, as [{ text, cls, ratio, fg, bg }]. The background is the
 * element's ancestors' background colours composited over the first of the CSS variables `bases`
 * that is set (the colour the webview itself sits on), else the body's.
 */
function textContrasts({ selector = 'body', index = 0, within, bases = [] } = {}) {
  const parse = (c) => {
    const m = /rgba?\(([^)]+)\)/.exec(c);
    if (!m) return null;
    const [r, g, b, a = 1] = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return { r, g, b, a };
  };
  const hexToRgba = (v) => v.replace(/^#(..)(..)(..)(..)?$/, (_, r, g, b, a) => `rgba(${parseInt(r, 16)},${parseInt(g, 16)},${parseInt(b, 16)},${a ? parseInt(a, 16) / 255 : 1})`);
  const over = (top, under) => ({ r: top.r * top.a + under.r * (1 - top.a), g: top.g * top.a + under.g * (1 - top.a), b: top.b * top.a + under.b * (1 - top.a), a: 1 });
  const lum = ({ r, g, b }) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const css = getComputedStyle(document.documentElement);
  const base = bases.map((name) => parse(hexToRgba(css.getPropertyValue(name).trim()))).find((c) => c && c.a > 0)
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
  let scope = document.querySelectorAll(selector)[index];
  if (scope && within) scope = scope.querySelector(within);
  if (!scope) return [];
  const out = [];
  for (const el of [scope, ...scope.querySelectorAll('*')]) {
    const own = [...el.childNodes].filter((n) => n.nodeType === 3 && n.textContent.trim()).map((n) => n.textContent.trim()).join(' ');
    if (!own || el.closest('[aria-hidden="true"], .sr-only, [hidden]') || !el.checkVisibility()) continue;
    // Disabled controls are exempt from WCAG contrast (1.4.3); nothing else is.
    if (el.closest('button:disabled')) continue;
    const style = getComputedStyle(el);
    const bg = background(el);
    const fg = over({ ...parse(style.color), a: parse(style.color).a * Number(style.opacity) }, bg);
    const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
    out.push({ text: own.slice(0, 40), cls: String(el.className), ratio: Math.round(((hi + 0.05) / (lo + 0.05)) * 100) / 100, fg: style.color, bg: `rgb(${Math.round(bg.r)}, ${Math.round(bg.g)}, ${Math.round(bg.b)})` });
  }
  return out;
}

module.exports = { textContrasts };
