/** Turns a tool result into what the cell shows: the numbers analysts read first, every tabular
 *  output as a sorted table with units, the histogram with its marks, a time series as a line, and
 *  the map's layers. Pure data in, pure data out (src/shared/result-protocol.ts). */
import { provenanceLine } from '../raster/provenance';
import type { ToolRunResult, OutputRef } from '../raster/types';
import type { HistogramView, KeyStat, LayerKind, MapLayerSpec, MapSpec, MapVectorSpec, ResultView, SeriesView, TableColumn, TableView } from '../../shared/result-protocol';
import { RESULT_VIEW_VERSION } from '../../shared/result-protocol';
import { classColors } from './palettes';
import * as path from 'node:path';
import { argSummary } from '../notebook/result-view';
import { RASTER_FILE } from '../raster/raster-files';

/** Rows a table shows before "Show all". */
export const VISIBLE_ROWS = 10;

/** What the caller knows beyond the result: output units (from the tool's manifest). */
export interface ViewContext {
  /** Unit per output name, e.g. { slope: 'degrees' }. */
  units?: Record<string, string>;
  /** Folder relative input paths are resolved against (the workspace folder). */
  cwd?: string;
}

export function resultView(result: ToolRunResult, args: Record<string, unknown>, ctx: ViewContext = {}): ResultView {
  const stats = (result.stats && typeof result.stats === 'object' ? result.stats : {}) as Record<string, unknown>;
  const main = mainRaster(result.outputs);
  const unit = main ? cleanUnit(ctx.units?.[main[0]]) : undefined;
  const tables = tablesOf(stats, unit);
  // Provenance is kept once, in the run record; the card shows it as one line.
  const { provenance, ...rest } = result;
  const view: ResultView = {
    view: 'result',
    version: RESULT_VIEW_VERSION,
    tool: result.tool,
    summary: result.summary,
    keyStats: keyStats(stats, unit),
    tables,
    outputs: Object.entries(result.outputs).map(([name, o]) => ({ name, path: o.path, type: o.type })),
    args: argSummary(args),
    raw: { ...rest, arguments: args },
    ...(provenance ? { provenance: provenanceLine(provenance) } : {}),
  };
  const histogram = histogramOf(stats, args, result.outputs, unit);
  if (histogram) view.histogram = histogram;
  const series = seriesOf(stats, unit);
  if (series) view.series = series;
  const map = mapSpec(result, args, ctx);
  if (map) view.map = map;
  return view;
}

/** The main raster output: the first that is a GeoTIFF. */
export function mainRaster(outputs: Record<string, OutputRef>): [string, OutputRef] | undefined {
  return Object.entries(outputs).find(([, o]) => o.type === 'raster' && /\.tiff?$/i.test(o.path));
}

/** A manifest unit that says what a value is ("NDVI, -1..1" → "NDVI"); mask descriptions are not units. */
function cleanUnit(u: string | undefined): string | undefined {
  if (!u || /=|GeoJSON|CSV/i.test(u)) return undefined;
  return u.split(',')[0].trim() || undefined;
}

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** Mean, median, p5/p95 and the valid share, with the unit; a mask's share and area instead of a mean. */
export function keyStats(stats: Record<string, unknown>, unit?: string): KeyStat[] {
  const out: KeyStat[] = [];
  const p = (stats.percentiles ?? {}) as Record<string, unknown>;
  const isMask = num(stats.mask_fraction);
  if (isMask) {
    out.push({ label: 'In the mask', value: stats.mask_fraction as number * 100, unit: '%' });
    const ha = num(stats.mask_area_ha) ? stats.mask_area_ha as number : num(stats.mask_m2) ? (stats.mask_m2 as number) / 1e4 : undefined;
    if (ha !== undefined) out.push({ label: 'Mask area', value: ha, unit: 'ha' });
    if (num(stats.threshold)) out.push({ label: 'Threshold', value: stats.threshold as number, unit });
  } else {
    if (num(stats.mean)) out.push({ label: 'Mean', value: stats.mean as number, unit });
    if (num(p.p50)) out.push({ label: 'Median', value: p.p50 as number, unit });
    if (num(p.p5)) out.push({ label: 'P5', value: p.p5 as number, unit });
    if (num(p.p95)) out.push({ label: 'P95', value: p.p95 as number, unit });
    if (!num(p.p95) && num(stats.p90)) out.push({ label: 'P90', value: stats.p90 as number, unit });
    if (!num(p.p5) && num(stats.min) && num(stats.max)) {
      out.push({ label: 'Min', value: stats.min as number, unit });
      out.push({ label: 'Max', value: stats.max as number, unit });
    }
  }
  if (num(stats.count) && num(stats.valid) && (stats.count as number) > 0) out.push({ label: 'Valid', value: (100 * (stats.valid as number)) / (stats.count as number), unit: '%' });
  // Areas a tool reports at the top level (burned area, total area, the severe part).
  for (const [k, v] of Object.entries(stats)) {
    if (!num(v) || /^(mask_|count$|valid$|mean$|min$|max$|std$|p\d+$|threshold$)/.test(k)) continue;
    const area = /_(m2|ha)$/.exec(k);
    if (area) {
      const base = k.slice(0, -area[0].length);
      if (area[1] === 'm2' && num(stats[`${base}_ha`])) continue;
      out.push({ label: sentence(base), value: area[1] === 'm2' ? v / 1e4 : v, unit: 'ha' });
    } else if (/(fraction|share)$/.test(k) && v >= 0 && v <= 1) {
      out.push({ label: sentence(k.replace(/_?(fraction|share)$/, '')), value: v * 100, unit: '%' });
    }
  }
  return out.slice(0, 10);
}

function sentence(key: string): string {
  const s = key.replace(/_/g, ' ').replace(/\bm2\b/, 'm²').trim();
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Column label and unit from a key: m2 → m², ha, km2 → km², percent → %, area_ha → area (ha). */
function column(key: string, sample: unknown, unit?: string): TableColumn {
  const numeric = typeof sample === 'number';
  const units: [RegExp, string][] = [[/(^|_)m2$/, 'm²'], [/(^|_)km2$/, 'km²'], [/(^|_)ha$/, 'ha'], [/^percent$|_percent$|^share$/, '%']];
  for (const [re, u] of units) {
    if (re.test(key)) {
      const base = key.replace(re, '').replace(/_$/, '');
      return { key, label: base ? sentence(base) : u === '%' ? 'Share' : 'Area', unit: u, numeric };
    }
  }
  const valueCol = /^(mean|min|max|median|std|p\d+)$/.test(key);
  return { key, label: sentence(key), numeric, ...(valueCol && unit && key !== 'sum' ? { unit } : {}) };
}

/** Every list of records in the statistics becomes a table; class tables get swatches in their field's colours. */
export function tablesOf(stats: Record<string, unknown>, unit?: string): TableView[] {
  const out: TableView[] = [];
  for (const [key, v] of Object.entries(stats)) {
    if (!Array.isArray(v) || !v.length || !v.every((r) => r && typeof r === 'object' && !Array.isArray(r))) continue;
    const rows = v as Record<string, unknown>[];
    let keys = [...new Set(rows.flatMap((r) => Object.keys(r)))].filter((k) => rows.some((r) => isCell(r[k])));
    // One area unit is enough: hectares when present.
    if (keys.includes('ha')) keys = keys.filter((k) => k !== 'm2' && k !== 'km2');
    if (keys.includes('area_ha')) keys = keys.filter((k) => k !== 'm2');
    // Paths of inputs are in the card, not in every row; a class's own colour is its swatch.
    const ownColors = keys.includes('color') && rows.every((r) => r.color === undefined || (typeof r.color === 'string' && /^#[0-9a-f]{6}$/i.test(r.color)));
    keys = keys.filter((k) => !(k === 'image' || k === 'file' || (ownColors && k === 'color')));
    const codeKey = ['code', 'class', 'value'].find((k) => keys.includes(k) && rows.every((r) => typeof r[k] === 'number'));
    const labelKey = keys.includes('label') && rows.some((r) => typeof r.label === 'string' && r.label) ? 'label' : undefined;
    // A labelled class reads by its label first; an internal code next to it says nothing more.
    if (labelKey) keys = ['label', ...keys.filter((k) => k !== 'label' && k !== 'code')];
    const columns = keys.map((k) => column(k, rows.find((r) => r[k] !== null && r[k] !== undefined)?.[k], unit));
    const areaKey = ['ha', 'area_ha', 'm2', 'km2', 'pixels', 'count'].find((k) => keys.includes(k));
    let sorted = rows;
    let sortedBy: TableView['sortedBy'];
    const isSeries = keys.includes('date') || keys.includes('year');
    if (areaKey && !isSeries) {
      sorted = [...rows].sort((a, b) => (Number(b[areaKey]) || 0) - (Number(a[areaKey]) || 0));
      sortedBy = { key: areaKey, descending: true };
    }
    const table: TableView = {
      title: tableTitle(key),
      columns,
      rows: sorted.map((r) => keys.map((k) => cellValue(r[k]))),
      visible: VISIBLE_ROWS,
      ...(sortedBy ? { sortedBy } : {}),
    };
    if (codeKey) {
      const labels: Record<string, string> = {};
      for (const r of rows) if (labelKey && typeof r[labelKey] === 'string') labels[String(r[codeKey])] = r[labelKey] as string;
      const colors = new Map(classColors(rows.map((r) => r[codeKey] as number), labels).map((c) => [c.value, c.color]));
      table.swatches = sorted.map((r) => (ownColors && typeof r.color === 'string' ? r.color : colors.get(r[codeKey] as number) ?? null));
    }
    out.push(table);
  }
  return out;
}

function isCell(v: unknown): boolean {
  return v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean';
}

function cellValue(v: unknown): string | number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  return typeof v === 'string' ? v : null;
}

function tableTitle(key: string): string {
  if (key === 'classes') return 'Classes';
  if (key === 'table') return 'Table';
  return sentence(key);
}

/** The histogram with what splits it: a threshold, the bare/dense limits a summary speaks of, class breaks. */
export function histogramOf(stats: Record<string, unknown>, args: Record<string, unknown>, outputs: Record<string, OutputRef>, unit?: string): HistogramView | undefined {
  const h = stats.histogram as { min?: unknown; max?: unknown; counts?: unknown } | undefined;
  if (!h || !num(h.min) || !num(h.max) || !Array.isArray(h.counts) || !h.counts.every(num)) return undefined;
  const marks: HistogramView['marks'] = [];
  if (num(stats.threshold)) marks.push({ value: stats.threshold as number, label: `threshold ${fmt(stats.threshold as number)}` });
  const mask = Object.values(outputs).some((o) => o.roles?.includes('mask'));
  if (mask && num(args.value)) marks.push({ value: args.value as number, label: `threshold ${fmt(args.value as number)}` });
  for (const k of Object.keys(stats)) {
    const m = /^fraction_(below|above)_(-?\d+(?:\.\d+)?)$/.exec(k);
    if (m) marks.push({ value: Number(m[2]), label: `${m[1]} ${m[2]}` });
  }
  if (Array.isArray(stats.classes)) {
    for (const c of stats.classes as Record<string, unknown>[]) if (c && num(c.lower)) marks.push({ value: c.lower as number, label: String(c.label ?? c.lower) });
  }
  // A mask's own histogram (0s and 1s) says nothing; its marks belong on the input's, which the caller may add.
  if (mask && (h.min as number) >= 0 && (h.max as number) <= 1 && (h.counts as number[]).filter((c) => c > 0).length <= 2) return undefined;
  return { title: 'Histogram', min: h.min as number, max: h.max as number, counts: h.counts as number[], ...(unit ? { unit } : {}), marks };
}

/** A time series (`series: [{date, mean}]`) as a line. */
export function seriesOf(stats: Record<string, unknown>, unit?: string): SeriesView | undefined {
  const s = stats.series;
  if (!Array.isArray(s) || s.length < 2) return undefined;
  const pts = (s as Record<string, unknown>[]).filter((p) => p && (typeof p.date === 'string' || num(p.year)) && num(p.mean));
  if (pts.length < 2) return undefined;
  return { title: 'Scene mean over time', x: pts.map((p) => (typeof p.date === 'string' ? p.date : String(p.year))), y: pts.map((p) => p.mean as number), ...(unit ? { unit } : {}), yLabel: 'mean' };
}

function fmt(v: number): string {
  return String(Number(v.toPrecision(4)));
}

/** How an output with these roles is coloured (as the quicklook does). */
export function layerKind(roles: string[] = []): LayerKind {
  if (roles.includes('mask')) return 'mask';
  if (roles.includes('class') || roles.includes('labels') || roles.includes('severity')) return 'class';
  if (roles.includes('hillshade')) return 'hillshade';
  if (roles.some((r) => ['difference', 'change', 'trend', 'dnbr'].includes(r))) return 'diverging';
  if (roles.includes('index')) return 'index';
  return 'continuous';
}

/** Raster and vector paths among the arguments: role maps and lists included. */
function inputFiles(args: Record<string, unknown>): { name: string; path: string; kind: 'raster' | 'vector' }[] {
  const out: { name: string; path: string; kind: 'raster' | 'vector' }[] = [];
  const add = (name: string, v: unknown) => {
    if (typeof v !== 'string') return;
    // GeoTIFFs and JPEG 2000 (a SAFE's band files): the map reads both.
    if (RASTER_FILE.test(v)) out.push({ name, path: v, kind: 'raster' });
    else if (/\.(geo)?json$/i.test(v)) out.push({ name, path: v, kind: 'vector' });
  };
  for (const [k, v] of Object.entries(args)) {
    if (Array.isArray(v)) v.forEach((x, i) => add(`${k} ${i + 1}`, x));
    else if (v && typeof v === 'object') { /* a {role: path} map: the bands of one scene, not layers */ }
    else add(k, v);
  }
  return out;
}

const base = (p: string) => p.split(/[\\/]/).pop() ?? p;

/** Input rasters the map lists (a long time series shows its first ones; its outputs always come). */
export const MAX_INPUT_LAYERS = 8;

/** The map: the cell's raster outputs over its raster inputs, vectors on top; the first two
 *  inputs are compared by the swipe when the cell has a before and an after. */
export function mapSpec(result: ToolRunResult, args: Record<string, unknown>, ctx: ViewContext = {}): MapSpec | undefined {
  const layers: MapLayerSpec[] = [];
  const vectors: MapVectorSpec[] = [];
  const seen = new Set<string>();
  const inputs = inputFiles(args).map((f) => ({ ...f, path: ctx.cwd && !/^[a-z][a-z0-9+.-]*:\/\//i.test(f.path) ? path.resolve(ctx.cwd, f.path) : f.path }));
  let rasterInputs = 0;
  for (const f of inputs) {
    if (seen.has(f.path) || (f.kind === 'raster' && rasterInputs >= MAX_INPUT_LAYERS)) continue;
    if (f.kind === 'raster') rasterInputs++;
    seen.add(f.path);
    if (f.kind === 'vector') vectors.push({ id: `in:${f.name}`, name: `${base(f.path)} (${f.name})`, path: f.path, role: 'input', color: '#00bcd4', visible: true });
    // The band argument, when there is one, is the band shown; multi-band scenes as natural colour (decided by the host's band roles).
    else layers.push({ id: `in:${f.name}`, name: `${base(f.path)} (${f.name})`, path: f.path, role: 'input', kind: 'continuous', bands: [typeof args.band === 'number' ? args.band : 1], visible: false, auto: true });
  }
  const outs = Object.entries(result.outputs);
  for (const [name, o] of outs) {
    if (seen.has(o.path)) continue;
    seen.add(o.path);
    if (o.type === 'raster' && /\.tiff?$/i.test(o.path)) {
      const kind = layerKind(o.roles);
      const unit = cleanUnit(ctx.units?.[name]);
      const layer: MapLayerSpec = { id: `out:${name}`, name: `${name} (${base(o.path)})`, path: o.path, role: 'output', kind, bands: [1], visible: true, ...(unit ? { unit } : {}) };
      if (kind === 'index' && !/temperature|lst/i.test(name)) layer.range = [-1, 1];
      layers.push(layer);
    } else if (o.type === 'vector' && /\.(geo)?json$/i.test(o.path)) {
      vectors.push({ id: `out:${name}`, name: `${name} (${base(o.path)})`, path: o.path, role: 'output', color: '#ff00ff', visible: true });
    }
  }
  if (!layers.length && !vectors.length) return undefined;
  // Without a raster output (vectorize, zonal statistics) the input raster is what the vectors lie on.
  if (!layers.some((l) => l.visible) && layers.length) layers[0].visible = true;
  const shownInputs = layers.filter((l) => l.role === 'input');
  const spec: MapSpec = { layers, vectors };
  if (shownInputs.length >= 2) spec.compare = [shownInputs[0].id, shownInputs[1].id];
  return spec;
}
