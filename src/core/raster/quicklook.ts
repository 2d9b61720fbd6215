/** PNG quicklooks: a colormap suited to the quantity, a title and a legend. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { encodePng } from './render/png';
import { drawText, textWidth } from './render/font';
import { num, sortFloat32 } from './stats';
import { writeFileAtomic } from './io/atomic-file';
import { classColors, parseHex } from '../results/palettes';
import { type ColorTable, tableColor, usedValues } from './io/color-table';

export type QuicklookKind = 'index' | 'diverging' | 'class' | 'mask' | 'continuous' | 'hillshade';
export interface QuicklookOptions {
  kind: QuicklookKind; labels?: Record<number, string>; title?: string; unit?: string; range?: [number, number];
  /**
   * The raster's own colour table (a palette TIFF): the image is drawn as classes in its colours
   * whatever `kind` says, the legend lists the classes present, named from `categoryNames` (else
   * `labels`, else the value), and the palette handed to the `.qml` also has the table's other used entries.
   */
  colorTable?: ColorTable;
  /** Category names of the band (index = value), from the PAM sidecar. */
  categoryNames?: readonly string[] | null;
  /** The band's nodata value: no legend or style entry (it is transparent). */
  nodata?: number | null;
  /** Values known to be in the whole raster (the preview may miss some): with a colour table, the style lists them too. */
  present?: readonly number[];
}

export type RGB = [number, number, number];
const RAMPS: Record<string, RGB[]> = {
  index: [[165, 0, 38], [244, 109, 67], [254, 224, 139], [217, 239, 139], [102, 189, 99], [0, 104, 55]],
  diverging: [[33, 102, 172], [146, 197, 222], [247, 247, 247], [244, 165, 130], [178, 24, 43]],
  continuous: [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]],
  hillshade: [[0, 0, 0], [255, 255, 255]],
};
const CLASS_COLORS: RGB[] = [
  [31, 119, 180], [255, 127, 14], [44, 160, 44], [214, 39, 40], [148, 103, 189], [140, 86, 75],
  [227, 119, 194], [127, 127, 127], [188, 189, 34], [23, 190, 207], [174, 199, 232], [255, 187, 120],
];

function ramp(stops: RGB[], t: number): RGB {
  const x = (t === t ? Math.max(0, Math.min(1, t)) : 0) * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(x)); const f = x - i;
  const a = stops[i], b = stops[i + 1];
  return [Math.round(a[0] + (b[0] - a[0]) * f), Math.round(a[1] + (b[1] - a[1]) * f), Math.round(a[2] + (b[2] - a[2]) * f)];
}

function percentileRange(data: Float32Array): [number, number] {
  const step = Math.max(1, Math.floor(data.length / 200_000));
  const buf = new Float32Array(Math.ceil(data.length / step));
  let n = 0;
  for (let i = 0; i < data.length; i += step) { const v = data[i]; if (v === v && Number.isFinite(v)) buf[n++] = v; }
  if (!n) return [0, 1];
  // Radix sort: the comparator sort of up to 200k numbers cost more than the rest of the quicklook.
  const s = sortFloat32(buf.subarray(0, n));
  const lo = s[Math.floor(0.02 * (s.length - 1))], hi = s[Math.ceil(0.98 * (s.length - 1))];
  return lo === hi ? widen(lo) : [lo, hi];
}

/** A range around a constant value that stays wider than zero even where ±0.5 is below the value's precision (|v| ≳ 1e16). */
function widen(v: number): [number, number] {
  const pad = Math.max(0.5, Math.abs(v) * 2 ** -20);
  return [v - pad, v + pad];
}

/** The colour range actually used: finite and increasing whatever the data or the caller gave. */
function usableRange(r: [number, number]): [number, number] {
  let [lo, hi] = r;
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) { lo = Number.isFinite(lo) ? lo : Number.isFinite(hi) ? hi : 0; hi = lo; }
  if (hi < lo) [lo, hi] = [hi, lo];
  if (!(hi - lo > 0) || !Number.isFinite(hi - lo)) return hi - lo > 0 ? [lo / 2, hi / 2] : widen((lo + hi) / 2);
  return [lo, hi];
}

/** The legend a raster brings itself for `band`: its colour table (band 1 of a palette TIFF), its category
 *  names and nodata, as QuicklookOptions; {} when it has neither table nor names. */
export function ownLegend(ds: { bandCount: number; nodata: number | null; colorTable?: ColorTable; categoryNames?: (string[] | null)[] }, band = 1): Pick<QuicklookOptions, 'colorTable' | 'categoryNames' | 'nodata'> {
  const names = ds.categoryNames?.[band - 1];
  const table = band === 1 && ds.bandCount === 1 ? ds.colorTable : undefined;
  if (!table && !names) return {};
  return { ...(table ? { colorTable: table } : {}), ...(names ? { categoryNames: names } : {}), nodata: ds.nodata };
}

/** Renders `data` (w×h, NaN = transparent) to a PNG with a legend; writes via temp file + rename. */
export async function renderQuicklook(outPath: string, data: Float32Array, width: number, height: number, opts: QuicklookOptions): Promise<QuicklookPalette> {
  const maxSide = 768;
  const f = Math.max(width / maxSide, height / maxSide, 1);
  const iw = Math.max(1, Math.round(width / f)), ih = Math.max(1, Math.round(height / f));
  const table = opts.colorTable;
  const kind: QuicklookKind = table ? 'class' : opts.kind;
  const named = (v: number): string | undefined => (Number.isInteger(v) && v >= 0 ? opts.categoryNames?.[v] || undefined : undefined) ?? opts.labels?.[v];
  let range: [number, number];
  if (opts.range) range = opts.range;
  else if (kind === 'index') range = [-1, 1];
  else if (kind === 'hillshade') range = [0, 255];
  else if (kind === 'diverging') { const [a, b] = percentileRange(data); const m = Math.max(Math.abs(a), Math.abs(b)) || 1; range = [-m, m]; }
  else range = percentileRange(data);
  range = usableRange(range);

  const classes = new Map<number, RGB>();
  const colorOf = (v: number): RGB => {
    if (kind === 'mask') return v ? [220, 50, 32] : [70, 70, 70];
    if (kind === 'class') {
      let c = classes.get(v);
      if (!c) { c = (table && tableColor(table, v)) || CLASS_COLORS[classes.size % CLASS_COLORS.length]; classes.set(v, c); }
      return c;
    }
    return ramp(RAMPS[kind], (v - range[0]) / (range[1] - range[0]));
  };
  // Assign class colours in sorted order so the same classes always get the same colours.
  if (kind === 'class') {
    const seen = new Set<number>();
    const step = Math.max(1, Math.floor(data.length / 500_000));
    for (let i = 0; i < data.length && seen.size < 64; i += step) if (data[i] === data[i]) seen.add(data[i]);
    // With a colour table the legend is the classes present (a 16-bit table has 65536 entries).
    if (!table) for (const k of Object.keys(opts.labels ?? {})) seen.add(Number(k));
    const sorted = [...seen].sort((a, b) => a - b);
    // Labelled classes in their field's colours (burn severity, land cover, change), as on the map.
    if (opts.labels && !table) for (const c of classColors(sorted, Object.fromEntries(Object.entries(opts.labels).map(([k, v]) => [k, String(v)])))) classes.set(c.value, parseHex(c.color));
    sorted.forEach((v) => colorOf(v));
  }

  const titleH = opts.title ? 16 : 0;
  const legendItems = kind === 'class' || kind === 'mask'
    ? (kind === 'mask' ? [0, 1] : [...classes.keys()].slice(0, 24))
    : [];
  const cw = Math.max(iw, 320);
  const legendRows = legendItems.length ? Math.ceil(legendItems.length / Math.max(1, Math.floor(cw / 150))) : 0;
  const legendH = legendItems.length ? 8 + legendRows * 14 : 34;
  const ch = titleH + ih + legendH;
  const rgba = new Uint8Array(cw * ch * 4).fill(255);
  if (opts.title) drawText(rgba, cw, ch, 4, 4, opts.title.slice(0, Math.floor((cw - 8) / 6)), [20, 20, 20]);

  paint(rgba, cw, titleH, { width, height, iw, ih, f }, (i) => { const v = data[i]; return v !== v ? undefined : colorOf(v); });

  const ly = titleH + ih + 6;
  if (legendItems.length) {
    const perRow = Math.max(1, Math.floor(cw / 150));
    legendItems.forEach((v, i) => {
      const lx = 4 + (i % perRow) * 150, y0 = ly + Math.floor(i / perRow) * 14;
      const c = colorOf(v);
      for (let yy = 0; yy < 9; yy++) for (let xx = 0; xx < 12; xx++) {
        const o = ((y0 + yy) * cw + lx + xx) * 4;
        if (o + 3 < rgba.length) { rgba[o] = c[0]; rgba[o + 1] = c[1]; rgba[o + 2] = c[2]; rgba[o + 3] = 255; }
      }
      const label = named(v) ?? (kind === 'mask' ? (v ? 'MASK' : 'OTHER') : `CLASS ${num(v)}`);
      drawText(rgba, cw, ch, lx + 16, y0 + 1, `${label}`.slice(0, 22), [20, 20, 20]);
    });
  } else if (!RAMPS[kind]) {
    // Classes or a mask without a single valid pixel: nothing to explain.
    drawText(rgba, cw, ch, 4, ly + 2, 'NO DATA', [20, 20, 20]);
  } else {
    const bw = Math.min(256, cw - 16), bx = Math.floor((cw - bw) / 2);
    for (let xx = 0; xx < bw; xx++) {
      const c = ramp(RAMPS[kind], xx / (bw - 1));
      for (let yy = 0; yy < 10; yy++) {
        const o = ((ly + yy) * cw + bx + xx) * 4;
        rgba[o] = c[0]; rgba[o + 1] = c[1]; rgba[o + 2] = c[2]; rgba[o + 3] = 255;
      }
    }
    const unit = opts.unit ? ` ${opts.unit}` : '';
    const lo = num(range[0]) + unit, hi = num(range[1]) + unit, mid = num((range[0] + range[1]) / 2);
    drawText(rgba, cw, ch, bx, ly + 14, lo, [20, 20, 20]);
    drawText(rgba, cw, ch, bx + Math.floor(bw / 2 - textWidth(mid) / 2), ly + 14, mid, [20, 20, 20]);
    drawText(rgba, cw, ch, bx + bw - textWidth(hi), ly + 14, hi, [20, 20, 20]);
  }

  const png = encodePng(rgba, cw, ch);
  await fs.promises.mkdir(path.dirname(outPath), { recursive: true });
  await writeFileAtomic(outPath, png);
  const entry = (v: number) => ({ value: v, color: colorOf(v), label: named(v) ?? (kind === 'mask' ? (v ? 'mask' : 'other') : `class ${num(v)}`) });
  const palette: QuicklookPalette = kind === 'class' || kind === 'mask'
    ? { kind, range, classes: (kind === 'mask' ? [0, 1] : [...classes.keys()]).map(entry) }
    : { kind, range, stops: RAMPS[kind] };
  if (table) {
    // The style also colours classes the preview's pixels missed: every used entry of the table.
    const shown = new Set(classes.keys());
    const extra = usedValues(table, [...shown, ...(opts.present ?? [])], opts.categoryNames, opts.nodata).filter((v) => !shown.has(v)).map((v) => ({ value: v, color: tableColor(table, v)!, label: named(v) ?? `class ${num(v)}` }));
    palette.classes = palette.classes!.filter((c) => c.value !== opts.nodata);
    if (extra.length) palette.extra = extra;
  }
  rememberPalette(outPath, palette);
  return palette;
}

/** The image's pixels on the canvas, centred below the title: `colour(i)` of the source pixel each
 *  canvas pixel falls on (nearest), transparent where it gives none. */
function paint(rgba: Uint8Array, cw: number, top: number, g: { width: number; height: number; iw: number; ih: number; f: number }, colour: (i: number) => RGB | undefined): void {
  const ox = Math.floor((cw - g.iw) / 2);
  for (let y = 0; y < g.ih; y++) {
    const sy = Math.min(g.height - 1, Math.floor((y + 0.5) * g.f));
    for (let x = 0; x < g.iw; x++) {
      const sx = Math.min(g.width - 1, Math.floor((x + 0.5) * g.f));
      const c = colour(sy * g.width + sx);
      const o = ((top + y) * cw + ox + x) * 4;
      if (!c) { rgba[o] = 235; rgba[o + 1] = 235; rgba[o + 2] = 235; rgba[o + 3] = 0; continue; }
      rgba[o] = c[0]; rgba[o + 1] = c[1]; rgba[o + 2] = c[2]; rgba[o + 3] = 255;
    }
  }
}

/** One colour of an RGB quicklook: a band's preview, stretched from `min` (0) to `max` (255). */
export interface RgbChannel { band: number; data: Float32Array; min: number; max: number }

/** `v` stretched linearly from `min` to `max` onto 0–255, truncated and clamped, as QGIS's
 *  StretchToMinimumMaximum enhancement computes it: the PNG then shows what the `.qml` shows. */
export function stretchByte(v: number, min: number, max: number): number {
  const s = Math.trunc(((v - min) / (max - min)) * 255);
  return s < 0 ? 0 : s > 255 ? 255 : s;
}

/**
 * A colour composite quicklook of three bands (`width`×`height` previews, NaN = nodata): each band
 * stretched over its own range, a pixel transparent where any band has no value (as QGIS's
 * multiband colour renderer leaves it), and a legend naming the bands and their ranges.
 */
export async function renderRgbQuicklook(outPath: string, rgb: [RgbChannel, RgbChannel, RgbChannel], width: number, height: number, opts: { title?: string } = {}): Promise<void> {
  const maxSide = 768;
  const f = Math.max(width / maxSide, height / maxSide, 1);
  const iw = Math.max(1, Math.round(width / f)), ih = Math.max(1, Math.round(height / f));
  const titleH = opts.title ? 16 : 0, legendH = 34;
  const cw = Math.max(iw, 320), ch = titleH + ih + legendH;
  const rgba = new Uint8Array(cw * ch * 4).fill(255);
  if (opts.title) drawText(rgba, cw, ch, 4, 4, opts.title.slice(0, Math.floor((cw - 8) / 6)), [20, 20, 20]);
  const [r, g, b] = rgb;
  paint(rgba, cw, titleH, { width, height, iw, ih, f }, (i) => {
    const vr = r.data[i], vg = g.data[i], vb = b.data[i];
    if (vr !== vr || vg !== vg || vb !== vb) return undefined;
    return [stretchByte(vr, r.min, r.max), stretchByte(vg, g.min, g.max), stretchByte(vb, b.min, b.max)];
  });
  const ly = titleH + ih + 6, fit = (t: string) => t.slice(0, Math.floor((cw - 8) / 6));
  drawText(rgba, cw, ch, 4, ly, fit(`RGB = BANDS ${r.band}, ${g.band}, ${b.band} (EACH 2-98 %)`), [20, 20, 20]);
  drawText(rgba, cw, ch, 4, ly + 12, fit(rgb.map((c, i) => `${'RGB'[i]} ${num(c.min)}..${num(c.max)}`).join('  ')), [20, 20, 20]);
  await fs.promises.mkdir(path.dirname(outPath), { recursive: true });
  await writeFileAtomic(outPath, encodePng(rgba, cw, ch));
}

/** The colours a quicklook used: a ramp stretched over `range`, or one colour per class value. */
export interface QuicklookPalette {
  kind: QuicklookKind;
  range: [number, number];
  stops?: RGB[];
  classes?: { value: number; color: RGB; label: string }[];
  /** Classes of the raster's colour table not in the quicklook (missed by its pixels): the `.qml` lists them too. */
  extra?: { value: number; color: RGB; label: string }[];
}

/** Palettes of the quicklooks written lately, by PNG path: the engine writes a QGIS style with the same colours. */
const palettes = new Map<string, QuicklookPalette>();

function rememberPalette(png: string, p: QuicklookPalette): void {
  palettes.set(path.resolve(png), p);
  if (palettes.size > 256) palettes.delete(palettes.keys().next().value as string);
}

/** The palette the quicklook at `png` was drawn with (once: it is forgotten as it is taken). */
export function takePalette(png: string): QuicklookPalette | undefined {
  const key = path.resolve(png);
  const p = palettes.get(key);
  palettes.delete(key);
  return p;
}
