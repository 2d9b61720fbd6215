/** Turns an engine result into what a cell shows and what memory keeps. */
import type { MemoryStep, StepOutput } from '../memory/types';
import type { ToolRunResult } from '../raster/types';
import type { CellRunRecord } from './types';
import { RESULT_HEADINGS, type SummaryLanguage } from '../results/summary-language';

/** Summary paragraph plus a two-column table of the statistics (nested values flattened); the
 *  output paths are left to the result card beside it. */
export function resultMarkdown(result: ToolRunResult, lang: SummaryLanguage = 'en', toolName?: string): string {
  const rows = flattenStats(result.stats);
  // A Chinese summary names the tool as its catalog does in Chinese (name_zh), the id beside it.
  const name = toolName && toolName !== result.tool ? `${escapeMd(toolName)}** (${result.tool})` : `${result.tool}**`;
  const lines = [`**${name}: ${escapeMd(result.summary)}`];
  if (rows.length) {
    const h = RESULT_HEADINGS[lang];
    lines.push('', `| ${h.statistic} | ${h.value} |`, '|---|---|');
    for (const [k, v] of rows) lines.push(`| ${escapeMd(k)} | ${escapeMd(v)} |`);
  }
  return lines.join('\n');
}

function escapeMd(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** `[key, text]` rows; objects are flattened with dotted keys to depth 2, long lists shortened. */
export function flattenStats(stats: Record<string, unknown>, prefix = '', depth = 0): [string, string][] {
  const rows: [string, string][] = [];
  for (const [k, v] of Object.entries(stats ?? {})) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === 'object' && !Array.isArray(v) && depth < 1) rows.push(...flattenStats(v as Record<string, unknown>, key, depth + 1));
    else rows.push([key, formatStat(v)]);
  }
  return rows;
}

function formatStat(v: unknown): string {
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(6)));
  if (Array.isArray(v) && v.length && v.every((x) => x && typeof x === 'object' && !Array.isArray(x))) {
    // Row lists (per zone, per class) are in the JSON result; the table names their shape.
    const cols = Object.keys(v[0] as object);
    return `${v.length} rows (${cols.slice(0, 6).join(', ')}${cols.length > 6 ? ', …' : ''}); see the JSON result`;
  }
  if (Array.isArray(v)) {
    const shown = v.slice(0, 8).map((x) => (typeof x === 'number' ? formatStat(x) : JSON.stringify(x)));
    return `[${shown.join(', ')}${v.length > 8 ? `, … (${v.length} values)` : ''}]`;
  }
  if (typeof v === 'string') return v;
  const s = JSON.stringify(v);
  return s && s.length > 120 ? s.slice(0, 117) + '…' : String(s);
}

/** "image=s2_scene.tif, sensor=sentinel2_l2a" with file paths shortened to their base name. */
export function argSummary(args: Record<string, unknown>): string {
  return Object.entries(args).map(([k, v]) => `${k}=${shortValue(v)}`).join(', ');
}

function shortValue(v: unknown): string {
  if (typeof v === 'string') return v.includes('/') ? v.slice(v.lastIndexOf('/') + 1) : v;
  if (Array.isArray(v)) return `[${v.map(shortValue).join(', ')}]`;
  if (v && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${k}: ${shortValue(x)}`).join(', ')}}`;
  return String(v);
}

export function runRecord(result: ToolRunResult, time: string): CellRunRecord {
  const outputs: CellRunRecord['outputs'] = {};
  for (const [name, o] of Object.entries(result.outputs)) outputs[name] = { path: o.path, type: o.type, ...(o.roles ? { roles: o.roles } : {}) };
  return { ok: true, tool: result.tool, summary: result.summary, outputs, ...(result.quicklook ? { quicklook: result.quicklook } : {}), time, ...(result.provenance ? { provenance: result.provenance } : {}) };
}

export function memoryStep(tool: string, args: Record<string, unknown>, result: ToolRunResult | undefined, error: string | undefined, time: string): MemoryStep {
  const outputs: StepOutput[] = Object.entries(result?.outputs ?? {}).map(([name, o]) => ({ name, type: o.type, path: o.path, ...(o.roles ? { roles: o.roles } : {}) }));
  return { tool, argSummary: argSummary(args), resultSummary: result ? result.summary : `failed: ${error ?? 'unknown error'}`, outputs, ok: !!result, time };
}
