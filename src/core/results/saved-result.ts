/** A result as the `.geonb` keeps it, so a reopened notebook shows it again: the view with its
 *  tables and charts, bounded in size (its small PNG comes from preview-png.ts). */
import type { ResultView, TableView } from '../../shared/result-protocol';

/** Size a saved view may take in the notebook file (JSON characters). */
export const MAX_SAVED_VIEW = 96_000;
/** Rows a saved table keeps (the output file on disk has them all). */
export const SAVED_ROWS = 50;

/** Lists in the statistics cut to SAVED_ROWS entries (the file on disk has them all). */
function trimStats(v: unknown, depth = 0): unknown {
  if (Array.isArray(v)) return v.slice(0, SAVED_ROWS).map((x) => trimStats(x, depth + 1));
  if (v && typeof v === 'object' && depth < 6) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, trimStats(x, depth + 1)]));
  return v;
}

/** The view cut to fit MAX_SAVED_VIEW: long tables first, then the preview, then the raw statistics. */
function cutRows(t: TableView, n: number): TableView {
  return t.rows.length > n ? { ...t, rows: t.rows.slice(0, n), ...(t.swatches ? { swatches: t.swatches.slice(0, n) } : {}), omitted: t.rows.length - n + (t.omitted ?? 0) } : t;
}

export function boundedView(view: ResultView): ResultView {
  const out: ResultView = {
    ...view,
    raw: trimStats(view.raw),
    tables: view.tables.map((t) => cutRows(t, SAVED_ROWS)),
    ...(view.batch ? { batch: { ...view.batch, details: view.batch.details.map((d) => (d.tables ? { ...d, tables: d.tables.map((t) => cutRows(t, SAVED_ROWS)) } : d)) } } : {}),
  };
  const size = () => JSON.stringify(out).length;
  // A batch: the maps and numbers of a few items, then of the one shown (the table keeps every row up to SAVED_ROWS).
  if (out.batch && size() > MAX_SAVED_VIEW) out.batch = { ...out.batch, details: out.batch.details.slice(0, 5), shown: Math.min(out.batch.shown, 4) };
  if (out.batch && size() > MAX_SAVED_VIEW) out.batch = { ...out.batch, details: out.batch.details.slice(out.batch.shown, out.batch.shown + 1), shown: 0 };
  if (size() > MAX_SAVED_VIEW) {
    out.tables = out.tables.map((t) => cutRows(t, 10));
    if (out.batch) out.batch = { ...out.batch, details: out.batch.details.map((d) => (d.tables ? { ...d, tables: d.tables.map((t) => cutRows(t, 10)) } : d)) };
  }
  if (size() > MAX_SAVED_VIEW) out.raw = { note: 'the raw result was too large to keep in the notebook; run the cell again to see it' };
  if (size() > MAX_SAVED_VIEW) delete out.preview;
  if (size() > MAX_SAVED_VIEW) return { ...out, tables: [], histogram: undefined, series: undefined, ...(out.batch ? { batch: { ...out.batch, details: out.batch.details.map((d) => ({ ...d, tables: [] })) } } : {}) };
  return out;
}

const PNG_URL = /^data:image\/png;base64,[A-Za-z0-9+/]+=*$/;

/** A saved view read back from a notebook file, or undefined when it is not one. The renderer shows
 *  every string as text; map paths are checked by the host before anything is read. */
export function viewFromSaved(v: unknown, time: string): ResultView | undefined {
  const r = v as ResultView;
  if (!r || typeof r !== 'object' || r.view !== 'result' || typeof r.tool !== 'string' || typeof r.summary !== 'string') return undefined;
  if (JSON.stringify(r).length > MAX_SAVED_VIEW * 2) return undefined;
  const view: ResultView = { ...r, keyStats: Array.isArray(r.keyStats) ? r.keyStats : [], tables: Array.isArray(r.tables) ? r.tables : [], outputs: Array.isArray(r.outputs) ? r.outputs : [], args: typeof r.args === 'string' ? r.args : '', restored: time };
  if (typeof view.preview !== 'string' || !PNG_URL.test(view.preview)) delete view.preview;
  if (typeof view.provenance !== 'string') delete view.provenance;
  if (typeof view.toolName !== 'string') delete view.toolName;
  return view;
}
