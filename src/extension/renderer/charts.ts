/** The histogram with its threshold or class breaks marked, and a line chart for time series (SVG). */
import type { HistogramView, SeriesView } from '../../shared/result-protocol';
import { el, svg, formatNumber } from './dom';
import { fill, resultStrings, term, type ResultStrings } from '../../shared/result-strings';

const W = 380, H = 170, L = 44, R = 10, T = 22, B = 30;

export function renderHistogram(h: HistogramView, S: ResultStrings = resultStrings('en'), lang?: 'en' | 'zh'): HTMLElement {
  const title = term(h.title, lang);
  const box = el('div', 'gw-histogram');
  box.dataset.bins = String(h.counts.length);
  const s = svg('svg', { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': `${title}${h.unit ? ` (${h.unit})` : ''}` });
  s.appendChild(svg('text', { x: L, y: 13 }, `${title}${h.unit ? ` (${h.unit})` : ''}`));
  const max = Math.max(1, ...h.counts);
  const pw = W - L - R, ph = H - T - B;
  const bw = pw / h.counts.length;
  h.counts.forEach((c, i) => {
    const bh = (c / max) * ph;
    const r = svg('rect', { class: 'gw-bar', x: L + i * bw + 0.5, y: T + ph - bh, width: Math.max(0.5, bw - 1), height: bh });
    const lo = h.min + ((h.max - h.min) * i) / h.counts.length, hi = h.min + ((h.max - h.min) * (i + 1)) / h.counts.length;
    r.appendChild(svg('title', {}, fill(S.binPixels, formatNumber(lo), formatNumber(hi), formatNumber(c))));
    s.appendChild(r);
  });
  s.appendChild(svg('line', { class: 'gw-axis', x1: L, y1: T + ph, x2: W - R, y2: T + ph }));
  s.appendChild(svg('line', { class: 'gw-axis', x1: L, y1: T, x2: L, y2: T + ph }));
  s.appendChild(svg('text', { x: L, y: H - 14 }, formatNumber(h.min)));
  s.appendChild(svg('text', { x: W - R, y: H - 14, 'text-anchor': 'end' }, formatNumber(h.max)));
  s.appendChild(svg('text', { x: L - 4, y: T + 8, 'text-anchor': 'end' }, formatNumber(max)));
  s.appendChild(svg('text', { x: L - 4, y: T + ph, 'text-anchor': 'end' }, '0'));
  const span = h.max - h.min || 1;
  h.marks.filter((m) => m.value >= h.min && m.value <= h.max).forEach((m, i) => {
    const x = L + ((m.value - h.min) / span) * pw;
    const g = svg('g', { class: 'gw-mark', 'data-value': m.value });
    g.appendChild(svg('line', { x1: x, y1: T - 4, x2: x, y2: T + ph }));
    // "below 0.2", "above 0.6", "threshold 0.35" from the view model; class labels stay as they are.
    const mk = /^(below|above|threshold) (\S+)$/.exec(m.label);
    g.appendChild(svg('text', { x: x + 3, y: T + 10 + (i % 3) * 12 }, mk ? fill(S[mk[1] as 'below' | 'above' | 'threshold'], mk[2]) : m.label));
    s.appendChild(g);
  });
  box.appendChild(s);
  return box;
}

export function renderSeries(sr: SeriesView, lang?: 'en' | 'zh'): HTMLElement {
  const title = term(sr.title, lang);
  const box = el('div', 'gw-series');
  box.dataset.points = String(sr.y.length);
  const s = svg('svg', { width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': title });
  s.appendChild(svg('text', { x: L, y: 13 }, `${title}${sr.unit ? ` (${sr.unit})` : ''}`));
  const lo = Math.min(...sr.y), hi = Math.max(...sr.y);
  const pad = (hi - lo) * 0.1 || Math.abs(hi) * 0.1 || 1;
  const y0 = lo - pad, y1 = hi + pad;
  const pw = W - L - R, ph = H - T - B;
  const px = (i: number) => L + (sr.y.length === 1 ? pw / 2 : (i / (sr.y.length - 1)) * pw);
  const py = (v: number) => T + ph - ((v - y0) / (y1 - y0)) * ph;
  s.appendChild(svg('line', { class: 'gw-axis', x1: L, y1: T + ph, x2: W - R, y2: T + ph }));
  s.appendChild(svg('line', { class: 'gw-axis', x1: L, y1: T, x2: L, y2: T + ph }));
  s.appendChild(svg('text', { x: L - 4, y: T + 8, 'text-anchor': 'end' }, formatNumber(y1)));
  s.appendChild(svg('text', { x: L - 4, y: T + ph, 'text-anchor': 'end' }, formatNumber(y0)));
  s.appendChild(svg('polyline', { class: 'gw-line', points: sr.y.map((v, i) => `${px(i)},${py(v)}`).join(' ') }));
  sr.y.forEach((v, i) => {
    const c = svg('circle', { class: 'gw-point', cx: px(i), cy: py(v), r: 3 });
    c.appendChild(svg('title', {}, `${sr.x[i]}: ${formatNumber(v)}`));
    s.appendChild(c);
    if (sr.y.length <= 8 || i === 0 || i === sr.y.length - 1) s.appendChild(svg('text', { x: px(i), y: H - 14, 'text-anchor': i === 0 ? 'start' : i === sr.y.length - 1 ? 'end' : 'middle' }, sr.x[i]));
  });
  box.appendChild(s);
  return box;
}
