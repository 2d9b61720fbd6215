/** A result as the `.geonb` keeps it, so a reopened notebook shows it again: the view with its
 *  tables and charts, bounded in size, and a small PNG of the main raster output for when the
 *  output files are gone. */
import type { MapLayerSpec, ResultView } from '../../shared/result-protocol';
import { openRaster } from '../raster/io/dataset';
import { readPreview } from '../raster/tools/common';
import { encodePng } from '../raster/render/png';
import { classColors, colorize, colorizeRgb, labelsFromText, valueStats } from './palettes';

/** Size a saved view may take in the notebook file (JSON characters). */
export const MAX_SAVED_VIEW = 96_000;
/** Size of the saved PNG (base64 characters). */
export const MAX_PREVIEW = 48_000;
/** Rows a saved table keeps (the output file on disk has them all). */
export const SAVED_ROWS = 50;

/** A PNG data URL of the layer, at most `maxSide` pixels a side and MAX_PREVIEW characters. */
export async function previewPng(layer: MapLayerSpec, maxSide = 256): Promise<string | undefined> {
  const ds = await openRaster(layer.path);
  try {
    for (let side = maxSide; side >= 64; side = Math.floor(side * 0.7)) {
      const bands = layer.kind === 'rgb' ? layer.bands.slice(0, 3) : [layer.bands[0] ?? 1];
      const reads = [];
      for (const b of bands) reads.push(await readPreview(ds, Math.min(b, ds.bandCount), side));
      const { w, h } = reads[0];
      let rgba: Uint8ClampedArray;
      if (layer.kind === 'rgb') rgba = colorizeRgb(reads.map((r) => r.data), reads.map((r) => { const s = valueStats(r.data); return [s.p2, s.p98] as [number, number]; }));
      else {
        const s = valueStats(reads[0].data);
        let classes = layer.classes;
        if (!classes && (layer.kind === 'class' || layer.kind === 'mask')) {
          const values = [...new Set(Array.from(reads[0].data).filter((v) => v === v))].slice(0, 64);
          classes = classColors(values, labelsFromText(ds.bandDescriptions[0]) ?? {}, layer.kind);
        }
        rgba = colorize(reads[0].data, layer.kind, layer.range ?? [s.p2, s.p98], classes);
      }
      const url = `data:image/png;base64,${encodePng(new Uint8Array(rgba.buffer, rgba.byteOffset, rgba.byteLength), w, h).toString('base64')}`;
      if (url.length <= MAX_PREVIEW) return url;
    }
    return undefined;
  } finally {
    await ds.close();
  }
}

/** Lists in the statistics cut to SAVED_ROWS entries (the file on disk has them all). */
function trimStats(v: unknown, depth = 0): unknown {
  if (Array.isArray(v)) return v.slice(0, SAVED_ROWS).map((x) => trimStats(x, depth + 1));
  if (v && typeof v === 'object' && depth < 6) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, trimStats(x, depth + 1)]));
  return v;
}

/** The view cut to fit MAX_SAVED_VIEW: long tables first, then the preview, then the raw statistics. */
export function boundedView(view: ResultView): ResultView {
  const out: ResultView = {
    ...view,
    raw: trimStats(view.raw),
    tables: view.tables.map((t) => (t.rows.length > SAVED_ROWS
      ? { ...t, rows: t.rows.slice(0, SAVED_ROWS), ...(t.swatches ? { swatches: t.swatches.slice(0, SAVED_ROWS) } : {}), omitted: t.rows.length - SAVED_ROWS + (t.omitted ?? 0) }
      : t)),
  };
  const size = () => JSON.stringify(out).length;
  if (size() > MAX_SAVED_VIEW) out.tables = out.tables.map((t) => (t.rows.length > 10 ? { ...t, rows: t.rows.slice(0, 10), ...(t.swatches ? { swatches: t.swatches.slice(0, 10) } : {}), omitted: t.rows.length - 10 + (t.omitted ?? 0) } : t));
  if (size() > MAX_SAVED_VIEW) out.raw = { note: 'the raw result was too large to keep in the notebook; run the cell again to see it' };
  if (size() > MAX_SAVED_VIEW) delete out.preview;
  if (size() > MAX_SAVED_VIEW) return { ...out, tables: [], histogram: undefined, series: undefined };
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
  return view;
}
