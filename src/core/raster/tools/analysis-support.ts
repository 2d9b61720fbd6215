/** Shared plumbing for the analysis tools (strip streaming, grid checks, outputs, CSV, "where" words). */
import type { RasterDataset, GeoInfo } from '../io/dataset';
import { writeRaster, GeoTiffWriter } from '../io/writer';
import { resolveBands, closeResolved, readResolved, ResolvedBand, roleFromDescription } from '../bands';
import { openRaster } from '../io/dataset';
import { renderQuicklook, QuicklookOptions } from '../quicklook';
import { whereText } from '../stats';
import type { RasterArg, ToolContext } from './types';
import type { GeoTransform } from '../algorithms/vectorize';
import { rowPixelAreas } from '../algorithms/area';
import { groundRowAreas } from './ground-area';
import { finiteRange, histogram, otsuFromHistogram, OtsuResult } from '../algorithms/otsu';
import { outPath as commonOutPath, requireMapGrid } from './common';
import { writeFileAtomicSync } from '../io/atomic-file';

export function checkAbort(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
}

function prefixArg(e: unknown, arg: string): Error {
  const msg = e instanceof Error ? e.message : String(e);
  if (msg.startsWith('argument') || msg.includes(`"${arg}"`)) return e instanceof Error ? e : new Error(msg);
  return new Error(`argument "${arg}": ${msg}`);
}

/** Throws naming both files, both grids and the align tool when two rasters are not on the same grid (size, CRS, transform). */
export function assertSameGrid(a: RasterDataset, aArg: string, b: RasterDataset, bArg: string): void {
  // Loaded here: the grid check pulls in the CRS code (proj4), which single-input runs never need.
  const msg = (require('./grid-check') as typeof import('./grid-check')).gridMismatch(a, aArg, b, bArg);
  if (msg) throw new Error(msg);
}

/** The grid's geotransform, for work in map units (a raster without one is refused, see requireMapGrid). */
export function gt(ds: RasterDataset, tool: string): GeoTransform {
  requireMapGrid(ds, tool);
  return ds.geo.geoTransform as GeoTransform;
}

/** Tools with several outputs name files after the output, the others after the tool. */
const MULTI_OUTPUT = new Set(['change_difference', 'change_vector_analysis']);

/** Output path "<input stem>_<tool or output>.<ext>" in outDir (the engine-wide convention of common.ts). */
export function outPath(ctx: ToolContext, tool: string, output: string, ext: string): string {
  return commonOutPath(ctx, MULTI_OUTPUT.has(tool) ? output : tool, ext);
}

export type OutType = 'float32' | 'uint8' | 'uint16' | 'int16' | 'int32';

export async function writeBand(
  file: string, like: RasterDataset, data: ArrayLike<number>, dtype: OutType, nodata: number | null, description: string,
): Promise<string> {
  const geo: GeoInfo = { ...like.geo };
  await writeRaster(file, { width: like.width, height: like.height, bands: 1, dtype, geo, nodata, descriptions: [description] }, [data]);
  return file;
}

export async function quicklook(file: string, data: ArrayLike<number>, w: number, h: number, opts: QuicklookOptions): Promise<string> {
  const f32 = data instanceof Float32Array ? data : Float32Array.from(data as ArrayLike<number>);
  await renderQuicklook(file, f32, w, h, opts);
  return file;
}

/** Byte class/mask array → float with nodata as NaN (for quicklooks). */
export function maskedFloat(data: ArrayLike<number>, nodata: number): Float32Array {
  const out = new Float32Array(data.length);
  for (let i = 0; i < data.length; i++) out[i] = data[i] === nodata ? NaN : data[i];
  return out;
}

function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  const s = String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Writes rows as CSV through an exclusive temporary file and a rename. */
export function writeCsv(file: string, columns: string[], rows: Record<string, unknown>[]): string {
  const text = [columns.join(','), ...rows.map((r) => columns.map((c) => csvCell(r[c])).join(','))].join('\n') + '\n';
  writeFileAtomicSync(file, text);
  return file;
}

export function writeJson(file: string, value: unknown): string {
  writeFileAtomicSync(file, JSON.stringify(value));
  return file;
}

/** "mostly in the north-west" for the pixels where hit(i) holds, relative to the valid pixels. */
export function whereOf(w: number, h: number, hit: (i: number) => boolean, valid: (i: number) => boolean): string {
  const hits = new Array(9).fill(0), totals = new Array(9).fill(0);
  const cx1 = Math.ceil(w / 3), cx2 = Math.ceil((2 * w) / 3), cy1 = Math.ceil(h / 3), cy2 = Math.ceil((2 * h) / 3);
  for (let y = 0; y < h; y++) {
    const rc = y < cy1 ? 0 : y < cy2 ? 3 : 6;
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (!valid(i)) continue;
      const c = rc + (x < cx1 ? 0 : x < cx2 ? 1 : 2);
      totals[c]++;
      if (hit(i)) hits[c]++;
    }
  }
  return whereText(hits, totals);
}

/** Per-pixel-row areas (m²) of a dataset's grid. */
export function rowAreas(ds: RasterDataset, tool: string): Float64Array {
  const g = gt(ds, tool);
  return ds.geo.geographic ? rowPixelAreas(g, ds.height, true) : groundRowAreas(ds);
}

/** Human area: ha below 100 km², else km². */
export function areaText(m2: number): string {
  const ha = m2 / 10000;
  if (ha < 10) return `${Number(ha.toPrecision(2))} ha`;
  if (ha < 10000) return `${Math.round(ha)} ha`;
  return `${Math.round(ha / 100)} km²`;
}

/** Mean of finite values. */
export function finiteMean(a: ArrayLike<number>): { mean: number; count: number; min: number; max: number } {
  let s = 0, n = 0, mn = Infinity, mx = -Infinity;
  for (let i = 0; i < a.length; i++) {
    const v = a[i];
    if (v === v && v !== Infinity && v !== -Infinity) { s += v; n++; if (v < mn) mn = v; if (v > mx) mx = v; }
  }
  return { mean: n ? s / n : NaN, count: n, min: n ? mn : NaN, max: n ? mx : NaN };
}

/** Parses "code=label;code=label" from a band description (our class outputs write one). */
export function labelsFromDescription(desc: string | null | undefined): Record<number, string> | undefined {
  if (!desc) return undefined;
  const body = desc.includes(':') ? desc.slice(desc.indexOf(':') + 1) : desc;
  const out: Record<number, string> = {};
  let n = 0;
  for (const part of body.split(';')) {
    const m = /^\s*(-?\d+)\s*=\s*(.+?)\s*$/.exec(part);
    if (m) { out[Number(m[1])] = m[2]; n++; }
  }
  return n ? out : undefined;
}

export function labelsDescription(prefix: string, labels: Record<number, string>): string {
  return `${prefix}: ${Object.entries(labels).map(([k, v]) => `${k}=${v}`).join(';')}`;
}

/**
 * A mask's band description: what its 1s and 0s mean ("mask: 0=ndvi ≥ 0.3;1=ndvi < 0.3"), so that
 * area_by_class, the legend and the data scan (the word "mask") read it back from the file alone.
 */
export function maskDescription(prefix: string, labels: MaskLabels): string {
  return labelsDescription(prefix, { 0: labels.no, 1: labels.yes });
}

/** What a mask's 1 (yes) and 0 (no) stand for. */
export interface MaskLabels { yes: string; no: string }

export function sig(v: number, digits = 3): number {
  return Number.isFinite(v) ? Number(v.toPrecision(digits)) : v;
}

/** One single-band output of a strip-streamed tool. */
export interface StripOutput { path: string; dtype: OutType; nodata: number | null; description: string }

/**
 * Processes the grid of `like` in strips of one writer tile row: reads each input strip (plus `halo`
 * rows above/below for window operators), calls compute(inputs, y0, rows, top) for the output strips (w×rows each), writes them tile by tile. Memory
 * stays at a few strips whatever the raster size; on error or abort every output is removed.
 */
export async function streamStrips(
  ctx: ToolContext, like: RasterDataset, inputs: ResolvedBand[], outs: StripOutput[],
  compute: (ins: Float32Array[], y0: number, rows: number, top: number) => ArrayLike<number>[],
  halo = 0,
): Promise<void> {
  const { width: w, height: h } = like;
  const writers: GeoTiffWriter[] = [];
  try {
    for (const o of outs) {
      writers.push(await GeoTiffWriter.create(o.path, {
        width: w, height: h, bands: 1, dtype: o.dtype, geo: { ...like.geo }, nodata: o.nodata, descriptions: [o.description],
      }));
    }
    const tile = writers[0].tile;
    for (let by = 0; by < writers[0].tilesDown; by++) {
      checkAbort(ctx.signal);
      const y0 = by * tile, rows = Math.min(tile, h - y0);
      // With a halo, inputs carry up to `halo` extra rows above and below (fewer at the raster edges).
      const top = Math.min(halo, y0), bottom = Math.min(halo, h - y0 - rows);
      const ins: Float32Array[] = [];
      for (const b of inputs) ins.push(await readResolved(b, 0, y0 - top, w, rows + top + bottom, ctx.signal));
      const strips = compute(ins, y0, rows, top);
      for (let k = 0; k < writers.length; k++) {
        const wr = writers[k], strip = strips[k];
        for (let bx = 0; bx < wr.tilesAcross; bx++) {
          const x0 = bx * tile, bw = Math.min(tile, w - x0);
          const block = new Float64Array(bw * rows);
          for (let y = 0; y < rows; y++) for (let x = 0; x < bw; x++) block[y * bw + x] = strip[y * w + x0 + x];
          await wr.writeBlock(bx, by, [block]);
        }
      }
      ctx.progress((by + 1) / writers[0].tilesDown);
    }
    for (const wr of writers) await wr.finish();
  } catch (e) {
    await Promise.all(writers.map((wr) => wr.abort().catch(() => undefined)));
    throw e;
  }
}

/**
 * The bands a multi-band classifier reads (k-means, random forest): `bands` (1-based indices or role
 * names), by default every band of `image` except a QA/SCL band; resolved as roles `band1`,
 * `band2`… in that order. `arg` names the image argument in errors. Close with `closeResolved`.
 */
export async function featureBands(
  ctx: ToolContext, arg: string, image: string, bands: string[] = [],
): Promise<{ resolved: Record<string, ResolvedBand>; inputs: ResolvedBand[]; bandList: string[] }> {
  let bandList = bands;
  if (bandList.length === 0) {
    const ds = await openRaster(image, { signal: ctx.signal });
    bandList = ds.bandDescriptions.map((d, i) => (roleFromDescription(d) === 'qa' ? '' : String(i + 1))).filter(Boolean);
    await ds.close();
  }
  const roles = bandList.map((_, i) => `band${i + 1}`);
  const resolved = await resolveRoles(ctx, arg, image, roles, Object.fromEntries(roles.map((r, i) => [r, bandList[i]])));
  return { resolved, inputs: roles.map((r) => resolved[r]), bandList };
}

/**
 * Resolves roles on the raster argument `arg` (its validated value `image`) without reading, for
 * streamed tools; `roleArgs` holds band arguments and `sensor`. Close with closeResolved.
 */
export async function resolveRoles(
  ctx: ToolContext, arg: string, image: RasterArg, roles: string[], roleArgs: Record<string, unknown> = {},
): Promise<Record<string, ResolvedBand>> {
  try {
    return await resolveBands(image, roles, roleArgs, { cwd: ctx.cwd, signal: ctx.signal });
  } catch (e) {
    throw prefixArg(e, arg);
  }
}

export { closeResolved };

/** 3×3 "where" counts accumulated strip by strip. */
export class WhereCounter {
  readonly hits = new Array(9).fill(0);
  readonly totals = new Array(9).fill(0);
  constructor(readonly w: number, readonly h: number) {}
  add(y0: number, rows: number, hit: (i: number) => boolean, valid: (i: number) => boolean): void {
    const { w, h } = this;
    const cx1 = Math.ceil(w / 3), cx2 = Math.ceil((2 * w) / 3), cy1 = Math.ceil(h / 3), cy2 = Math.ceil((2 * h) / 3);
    for (let r = 0; r < rows; r++) {
      const y = y0 + r;
      const rc = y < cy1 ? 0 : y < cy2 ? 3 : 6;
      for (let x = 0; x < w; x++) {
        const i = r * w + x;
        if (!valid(i)) continue;
        const c = rc + (x < cx1 ? 0 : x < cx2 ? 1 : 2);
        this.totals[c]++;
        if (hit(i)) this.hits[c]++;
      }
    }
  }
  text(): string { return whereText(this.hits, this.totals); }
}

/** Nearest-neighbour decimated copy (long side ≤ 768) gathered strip by strip, for quicklooks of streamed outputs. */
export class Preview {
  readonly f: number; readonly pw: number; readonly ph: number; readonly data: Float32Array;
  constructor(readonly w: number, h: number, maxSide = 768) {
    this.f = Math.max(1, Math.ceil(Math.max(w, h) / maxSide));
    this.pw = Math.ceil(w / this.f); this.ph = Math.ceil(h / this.f);
    this.data = new Float32Array(this.pw * this.ph).fill(NaN);
  }
  add(strip: ArrayLike<number>, y0: number, rows: number, nodata?: number): void {
    const { f, w, pw } = this;
    for (let r = 0; r < rows; r++) {
      const y = y0 + r;
      if (y % f) continue;
      const py = y / f;
      for (let px = 0; px < pw; px++) {
        const v = strip[r * w + px * f];
        this.data[py * pw + px] = v === nodata ? NaN : v;
      }
    }
  }
}

/** Read-only pass over inputs in strips (for statistics needed before writing, e.g. an Otsu histogram). */
export async function scanStrips(ctx: ToolContext, like: RasterDataset, inputs: ResolvedBand[], visit: (ins: Float32Array[], y0: number, rows: number) => void): Promise<void> {
  const { width: w, height: h } = like;
  const rows = 512;
  for (let y0 = 0; y0 < h; y0 += rows) {
    checkAbort(ctx.signal);
    const n = Math.min(rows, h - y0);
    const ins: Float32Array[] = [];
    for (const b of inputs) ins.push(await readResolved(b, 0, y0, w, n, ctx.signal));
    visit(ins, y0, n);
  }
}

/** Otsu threshold of a derived quantity computed strip by strip (two read passes: range, then histogram). */
export async function streamedOtsu(
  ctx: ToolContext, like: RasterDataset, inputs: ResolvedBand[], derive: (ins: Float32Array[]) => ArrayLike<number>, bins = 256,
): Promise<OtsuResult> {
  let min = Infinity, max = -Infinity;
  await scanStrips(ctx, like, inputs, (ins) => {
    const r = finiteRange(derive(ins));
    if (r.count) { if (r.min < min) min = r.min; if (r.max > max) max = r.max; }
  });
  if (!(max >= min)) return { threshold: NaN, min: NaN, max: NaN, validCount: 0, separability: 0 };
  const hist = new Float64Array(bins);
  await scanStrips(ctx, like, inputs, (ins) => { histogram(derive(ins), min, max, bins, hist); });
  return otsuFromHistogram(hist, min, max);
}
