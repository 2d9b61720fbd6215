/** Small DOM helpers. Strings from results go into the DOM as text, never as markup. */

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number> = {}, text?: string): SVGElementTagNameMap[K] {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A number as analysts read it: four significant digits, integers grouped. */
/**
 * A map coordinate as an analyst reads it off: projected metres to the decimetre (601,234.5, not
 * 601,000; 5,007,104.6, not 5.01e+6), degrees to six decimals (about 0.1 m).
 */
export function formatCoordinate(v: number, units?: string): string {
  if (!Number.isFinite(v)) return '—';
  return units === 'degrees' ? v.toFixed(6) : v.toLocaleString('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
}

export function formatNumber(v: unknown, unit?: string): string {
  if (typeof v !== 'number') return v === null || v === undefined ? '—' : String(v);
  if (!Number.isFinite(v)) return '—';
  const s = Number.isInteger(v) && Math.abs(v) < 1e15
    ? v.toLocaleString('en-US')
    : Math.abs(v) >= 1e6 || (Math.abs(v) < 1e-3 && v !== 0) ? v.toPrecision(3) : Number(v.toPrecision(4)).toLocaleString('en-US', { maximumFractionDigits: 6 });
  return unit === '%' ? `${s}%` : s;
}
