/** What the compact result renderer shows, built from a tool result's JSON. The JSON comes from
 *  the notebook file, so nothing here trusts its shape: every field ends up a plain string that
 *  the renderer puts into the DOM with textContent. */

/** One statistic row; `full` is set when `value` was shortened. */
export interface ResultCardStat {
  key: string;
  value: string;
  full?: string;
}

/** The compact view of one tool result. */
export interface ResultCard {
  tool: string;
  summary: string;
  outputs: { name: string; path: string; type?: string }[];
  stats: ResultCardStat[];
}

/** Longest statistic value shown in the table; the full value is the cell's tooltip. */
export const STAT_VALUE_MAX = 240;

export function resultCard(data: unknown, maxValue = STAT_VALUE_MAX): ResultCard {
  const r = isRecord(data) ? data : {};
  const tool = typeof r.tool === 'string' && r.tool ? r.tool : 'tool';
  const summary = typeof r.summary === 'string' ? r.summary : '';
  const outputs: ResultCard['outputs'] = [];
  if (isRecord(r.outputs)) {
    for (const [name, o] of Object.entries(r.outputs)) {
      if (isRecord(o) && typeof o.path === 'string') outputs.push({ name, path: o.path, ...(typeof o.type === 'string' ? { type: o.type } : {}) });
      else if (typeof o === 'string') outputs.push({ name, path: o });
    }
  }
  const stats: ResultCardStat[] = [];
  if (isRecord(r.stats)) {
    for (const [key, v] of Object.entries(r.stats)) {
      const text = statText(v);
      stats.push(text.length > maxValue ? { key, value: text.slice(0, maxValue - 1) + '…', full: text } : { key, value: text });
    }
  }
  return { tool, summary, outputs, stats };
}

/** Numbers to six significant digits, strings as they are, everything else as compact JSON
 *  (numbers inside rounded the same way, so long float tails do not crowd the table). */
export function statText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return roundNumber(v);
  if (v === undefined) return '';
  const json = JSON.stringify(v, (_k, x) => (typeof x === 'number' && Number.isFinite(x) && !Number.isInteger(x) ? Number(x.toPrecision(6)) : x));
  return json ?? String(v);
}

function roundNumber(v: number): string {
  if (!Number.isFinite(v) || Number.isInteger(v)) return String(v);
  return String(Number(v.toPrecision(6)));
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}
