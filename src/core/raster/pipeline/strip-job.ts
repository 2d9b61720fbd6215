/** One output tile row of a strip run: read every input band's window in one pass, run the kernel, stats, encode. Used by workers and inline. */
import { encodeTile, interleavedStripToTile, OutDType, stripToTile } from '../io/encode';
import { tick, tock } from '../io/stage-times';
import type { StatsAccumulator } from '../stats';
import type { DatasetCache, InputRef, PreviewPiece } from './tile-job';
import { inputWindow, runStripKernel, StripKernelSpec, Tallies } from './strip-kernels';
import type { DatasetDescriptor, RasterDataset } from '../io/dataset';
import { CTORS, type TypedArray } from '../io/samples';

export interface StripJobSpec {
  inputs: InputRef[];
  kernel: StripKernelSpec;
  /** Input grid (of the first input; every input is on it). */
  inWidth: number; inHeight: number;
  /** Output grid, tile size, type, band count and the value written for NaN / padding. */
  width: number; height: number; tile: number; bands: number;
  outDtype: OutDType; fill: number; zlevel: number;
  /** Output nodata (null: none), as statistics and the preview see it. */
  nodata: number | null;
  /** Preview decimation factor (every f-th pixel of band 1); 0 = none. */
  previewStep: number;
  /** Pixel-interleaved output (clip of a pixel-interleaved input of every band, in order, same type). */
  interleaved?: boolean;
  described?: Record<string, DatasetDescriptor>;
}

export interface StripResult { by: number; encoded: Uint8Array[][]; preview: PreviewPiece | null; tallies: Tallies | null }

/**
 * Tile rows of the window [y, y + h) that the next window reads again beyond the rows it carries over
 * (`nextNew`: its first row not in this window; Infinity when there is none), times the blocks of a tile row.
 */
function sharedTiles(ds: RasterDataset, x: number, y: number, w: number, h: number, nextNew: number, bands: number): number {
  if (!Number.isFinite(nextNew)) return 0;
  const across = Math.floor((x + w - 1) / ds.blockWidth) - Math.floor(x / ds.blockWidth) + 1;
  const rows = Math.max(0, Math.floor((y + h - 1) / ds.blockHeight) - Math.floor(nextNew / ds.blockHeight) + 1);
  return across * rows * (ds.pixelInterleaved || ds.bandCount === 1 ? 1 : bands);
}

/**
 * The rows [y, y + h) of the reused window arrays of `source` (slots `${prefix}0..`) that the last window read
 * from it already holds, moved to the top: the overlap of consecutive windows of a halo kernel is not read again.
 */
function carryRows(cache: DatasetCache, source: string, key: string, prefix: string, slots: number, x: number, y: number, w: number, h: number, ctor: { new (n: number): TypedArray }): number {
  const prev = cache.windows.get(source);
  cache.windows.delete(source);
  if (!prev || prev.key !== key || prev.x !== x || prev.w !== w || !(prev.y < y && y < prev.y + prev.h && y + h >= prev.y + prev.h)) return 0;
  const carry = prev.y + prev.h - y;
  for (let k = 0; k < slots; k++) cache.array(`${prefix}${k}`, ctor, prev.h * w).copyWithin(0, (y - prev.y) * w, prev.h * w);
  return carry;
}

/**
 * Reads `refs` over one window into the thread's reused arrays: bands of the same file together (each tile
 * decoded once), rows the previous window already read carried over, only the blocks the next window needs
 * again kept in the tile cache; input scaling applied to floats. The arrays are valid until the next strip.
 */
async function readInputs(refs: InputRef[], cache: DatasetCache, x: number, y: number, w: number, h: number, raw: boolean, tileRows: number, nextNew: number, signal?: AbortSignal): Promise<ArrayLike<number>[]> {
  const out: ArrayLike<number>[] = new Array(refs.length);
  const bySource = new Map<string, number[]>();
  refs.forEach((r, i) => { const l = bySource.get(r.source) ?? []; l.push(i); bySource.set(r.source, l); });
  await Promise.all([...bySource.entries()].map(async ([source, idx]) => {
    const ds: RasterDataset = await cache.get(source);
    const bands = idx.map((i) => refs[i].band);
    let arrays: ArrayLike<number>[];
    let carry = 0;
    if (ds.readWindowsInto) {
      const need = sharedTiles(ds, x, y, w, h, nextNew, bands.length);
      ds.reserveTiles?.(need);
      const ctor = (raw ? CTORS[ds.dtype] : Float32Array) as { new (n: number): TypedArray };
      const key = `${raw ? 'raw' : 'f32'}:${bands.join(',')}:${idx.map((i) => `${refs[i].scale ?? 1}/${refs[i].offset ?? 0}`).join(',')}`;
      const prefix = `in:${source}:`;
      carry = carryRows(cache, source, key, prefix, bands.length, x, y, w, h, ctor);
      const bufs = bands.map((_, k) => cache.array(`${prefix}${k}`, ctor, w * h, carry * w));
      if (carry < h) await ds.readWindowsInto(bands, x, y + carry, w, h - carry, raw, bufs.map((b) => b.subarray(carry * w)), nextNew, signal);
      cache.windows.set(source, { key, x, y, w, h });
      ds.fitTileCache?.(need);
      arrays = bufs;
    } else {
      // Working set: the window's tiles of every band plus one more tile row (the next strip's halo or overlap).
      const across = Math.floor((x + w - 1) / ds.blockWidth) - Math.floor(x / ds.blockWidth) + 1;
      ds.reserveTiles?.(across * tileRows);
      arrays = ds.readWindows ? await ds.readWindows(bands, x, y, w, h, raw, signal)
        : await Promise.all(bands.map((b) => (raw ? ds.readWindowRaw(b, x, y, w, h, signal) : ds.readWindow(b, x, y, w, h, signal))));
    }
    idx.forEach((i, k) => {
      const a = arrays[k], r = refs[i];
      if (!raw && r.scale !== undefined && (r.scale !== 1 || (r.offset ?? 0) !== 0)) {
        // Carried rows were scaled when they were read.
        const s = r.scale, o = r.offset ?? 0, f = a as Float32Array;
        for (let j = carry * w; j < f.length; j++) f[j] = f[j] * s + o;
      }
      out[i] = a;
    });
  }));
  return out;
}

/** First row of the window of the strip after `by` that `win` does not hold (Infinity after the last strip). */
function nextNewRow(spec: StripJobSpec, by: number, win: { y: number; h: number }): number {
  const y1 = (by + 1) * spec.tile;
  if (y1 >= spec.height) return Infinity;
  if (spec.interleaved) { const k = spec.kernel as { r0: number }; return k.r0 + y1; }
  const next = inputWindow(spec.kernel, y1, Math.min(spec.tile, spec.height - y1), spec.inWidth, spec.inHeight, spec.width);
  return Math.max(next.y, win.y + win.h);
}

/** Computes and encodes output tile row `by`; band 1's stored values go into `stats`. */
export async function runStripJob(spec: StripJobSpec, by: number, cache: DatasetCache, stats: StatsAccumulator | null, signal?: AbortSignal): Promise<StripResult> {
  const y0 = by * spec.tile, rows = Math.min(spec.tile, spec.height - y0), w = spec.width;
  if (spec.interleaved) return runInterleavedClip(spec, by, y0, rows, cache, stats, signal);
  let t = tick();
  const win = inputWindow(spec.kernel, y0, rows, spec.inWidth, spec.inHeight, w);
  const first = await cache.get(spec.inputs[0].source);
  // Averages of small integers without nodata or scaling: the raw samples are the float values exactly, so
  // the window is read raw (half or a quarter of the bytes of a float32 copy, no conversion).
  if (!win.raw && spec.kernel.type === 'resample' && spec.kernel.method === 'average' && rawIsExact(first, spec.inputs)) win.raw = true;
  const tileRows = Math.floor((win.y + win.h - 1) / first.blockHeight) - Math.floor(win.y / first.blockHeight) + 1;
  const ins = await readInputs(spec.inputs, cache, win.x, win.y, win.w, win.h, win.raw, tileRows, nextNewRow(spec, by, win), signal);
  t = tock('window', t);
  const { outs, tallies } = runStripKernel(spec.kernel, ins, win, y0, rows, w, spec.height, (slot, ctor, n) => cache.array(`out:${slot}`, ctor, n));
  t = tock('compute', t);
  const nd = spec.nodata;
  const band1 = outs[0];
  if (stats) {
    // As the values are stored: float32 (integer samples are exact), nodata ignored.
    // 16-bit samples are exact as they are (no float copy); others are copied with the typed-array constructor
    // (Float32Array.from went through the iterator protocol: ~60 ms per 6 Mpx of a clip's band 1).
    let f: ArrayLike<number>;
    if (band1 instanceof Float32Array || band1 instanceof Uint16Array || band1 instanceof Int16Array) f = band1;
    else { const c = cache.array('stats', Float32Array, w * rows); c.set(band1 as ArrayLike<number>); f = c; }
    stats.add(f, 0, y0, w, rows);
  }
  const preview = spec.previewStep ? previewPiece(band1, y0, w, rows, spec.previewStep, nd) : null;
  t = tock('stats', t);
  const encoded: Uint8Array[][] = [];
  const across = Math.ceil(w / spec.tile);
  for (let b = 0; b < outs.length; b++) {
    const row: Uint8Array[] = [];
    for (let bx = 0; bx < across; bx++) {
      const x0 = bx * spec.tile, bw = Math.min(spec.tile, w - x0);
      const tileArr = stripToTile(outs[b], w, x0, bw, rows, spec.tile, spec.outDtype, spec.fill);
      const e = encodeTile(tileArr, spec.tile, spec.outDtype, spec.zlevel);
      row.push(new Uint8Array(e.buffer, e.byteOffset, e.byteLength));
    }
    encoded.push(row);
  }
  return { by, encoded, preview, tallies };
}

/**
 * A clip written pixel-interleaved from a pixel-interleaved input: each tile row of the window is copied whole
 * (every band at once) into the output tile, which is predicted and deflated once for all bands, as
 * gdal_translate does; band 1 is picked out for the statistics and the preview.
 */
async function runInterleavedClip(spec: StripJobSpec, by: number, y0: number, rows: number, cache: DatasetCache, stats: StatsAccumulator | null, signal?: AbortSignal): Promise<StripResult> {
  const k = spec.kernel, w = spec.width, S = spec.bands;
  if (k.type !== 'clip') throw new Error(`a ${k.type} strip is not written pixel-interleaved`);
  let t = tick();
  const ds = await cache.get(spec.inputs[0].source);
  if (!ds.readInterleaved || !ds.pixelInterleaved || ds.bandCount !== S) throw new Error(`${ds.source}: not a pixel-interleaved ${S}-band input`);
  // Strips do not overlap: only the tile row the next strip starts in is kept, the others are decoded into a scratch.
  const nextNew = nextNewRow(spec, by, { y: k.r0 + y0, h: rows });
  const need = sharedTiles(ds, k.c0, k.r0 + y0, w, rows, nextNew, S);
  ds.reserveTiles?.(need);
  const ctor = CTORS[ds.dtype] as { new (n: number): TypedArray };
  const data = await ds.readInterleaved(k.c0, k.r0 + y0, w, rows, signal, { into: cache.array('interleaved', ctor, w * rows * S), keepFromY: nextNew });
  ds.fitTileCache?.(need);
  t = tock('window', t);
  const band1 = firstSample(data, S, w * rows, cache.array('band1', ctor, w * rows));
  if (stats) stats.add(band1 instanceof Uint16Array || band1 instanceof Int16Array ? band1 : new Float32Array(band1), 0, y0, w, rows);
  const preview = spec.previewStep ? previewPiece(band1, y0, w, rows, spec.previewStep, spec.nodata) : null;
  t = tock('stats', t);
  const row: Uint8Array[] = [];
  for (let bx = 0, n = Math.ceil(w / spec.tile); bx < n; bx++) {
    const x0 = bx * spec.tile, bw = Math.min(spec.tile, w - x0);
    const e = encodeTile(interleavedStripToTile(data, w, x0, bw, rows, spec.tile, S, spec.outDtype, spec.fill), spec.tile, spec.outDtype, spec.zlevel, S);
    row.push(new Uint8Array(e.buffer, e.byteOffset, e.byteLength));
  }
  return { by, encoded: [row], preview, tallies: null };
}

/** The first of every `stride` samples (band 1 of a pixel-interleaved strip), in the strip's own type. */
function firstSample<T extends TypedArray>(data: T, stride: number, n: number, into?: T): T {
  const out = into && into.length === n ? into : new (data.constructor as { new (n: number): T })(n);
  if (data instanceof Uint16Array) {
    const o = out as unknown as Uint16Array;
    for (let i = 0, j = 0; i < n; i++, j += stride) o[i] = data[j];
  } else for (let i = 0, j = 0; i < n; i++, j += stride) out[i] = data[j];
  return out;
}

const EXACT_IN_FLOAT32 = new Set(['uint8', 'int8', 'uint16', 'int16']);

/** Whether readWindow of every input would give the raw samples unchanged (no nodata, scale or offset; exact in float32). */
function rawIsExact(ds: RasterDataset, refs: InputRef[]): boolean {
  if (!EXACT_IN_FLOAT32.has(ds.dtype) || !(ds.nodata === null || Number.isNaN(ds.nodata))) return false;
  return refs.every((r) => r.source === ds.source && (ds.scales[r.band - 1] ?? 1) === 1 && (ds.offsets[r.band - 1] ?? 0) === 0
    && (r.scale === undefined || (r.scale === 1 && (r.offset ?? 0) === 0)));
}

/** Every f-th pixel of rows y0.. of a w-wide strip (positions multiple of f), nodata → NaN. */
function previewPiece(v: ArrayLike<number>, y0: number, w: number, h: number, f: number, nodata: number | null): PreviewPiece | null {
  const py0 = Math.ceil(y0 / f), pw = Math.ceil(w / f);
  const ph = Math.max(0, Math.ceil((y0 + h) / f) - py0);
  if (!ph) return null;
  const data = new Float32Array(pw * ph);
  const nd = nodata === null ? NaN : nodata;
  for (let j = 0; j < ph; j++) {
    const row = ((py0 + j) * f - y0) * w;
    for (let i = 0; i < pw; i++) { const a = v[row + i * f]; data[j * pw + i] = a === nd ? NaN : a; }
  }
  return { px0: 0, py0, pw, ph, data };
}

/** Values statistics skip besides NaN: the output's nodata. */
export function statsIgnore(s: StripJobSpec): number | null {
  return s.nodata === null || Number.isNaN(s.nodata) ? null : s.nodata;
}
