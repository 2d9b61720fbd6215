/** One output tile of a per-pixel run: read the input windows, apply the kernel, stats, encode. Used by workers and inline. */
import { DatasetDescriptor, openDescribed, openRaster, RasterDataset } from '../io/dataset';
import { encodeTile, toTile, OutDType } from '../io/encode';
import { tick, tock } from '../io/stage-times';
import type { StatsAccumulator } from '../stats';
import type { TypedArray } from '../io/samples';
import { applyKernel, fusedKernel, fusedThreshold, isFusable, KernelSpec } from './kernels';

/** One input band; scale/offset come from sensor presets (on top of the file's own). */
export interface InputRef { source: string; band: number; scale?: number; offset?: number }

export interface TileJobSpec {
  inputs: InputRef[];
  kernel: KernelSpec;
  width: number; height: number; tile: number;
  outDtype: OutDType; fill: number; zlevel: number;
  /** Preview decimation factor (every f-th pixel of the first output band). */
  previewStep?: number;
  /** Sources already parsed by the main thread: workers reopen them without geotiff.js. */
  described?: Record<string, DatasetDescriptor>;
}

/** Decimated first-band values of one tile: preview pixels (px0.., py0..), pw × ph, fill → NaN. */
export interface PreviewPiece { px0: number; py0: number; pw: number; ph: number; data: Float32Array }

export interface TileResult { tx: number; ty: number; encoded: Uint8Array[]; w: number; h: number; preview: PreviewPiece | null }

/** The last window read from a source by a strip run (its rows stay in the pooled arrays for the next window). */
export interface LastWindow { key: string; x: number; y: number; w: number; h: number }

/**
 * Per-thread cache of open datasets (each worker opens the files itself), and the strip runs' reused arrays:
 * one per slot (an input band's window, a kernel output), grown when too small, never shared by two strips at
 * once (a thread computes one strip at a time).
 */
export class DatasetCache {
  private open = new Map<string, Promise<RasterDataset>>();
  private settled: RasterDataset[] = [];
  private arrays = new Map<string, TypedArray>();
  readonly windows = new Map<string, LastWindow>();
  /** `n` elements of slot's reused array (a new one when it is missing, too small or of another type; `keep` elements are copied over). */
  array<T extends TypedArray>(slot: string, ctor: { new (n: number): T }, n: number, keep = 0): T {
    const cur = this.arrays.get(slot);
    if (cur instanceof ctor && cur.length >= n) return (cur.length === n ? cur : cur.subarray(0, n)) as T;
    const a = new ctor(n);
    if (keep && cur instanceof ctor) a.set(cur.subarray(0, keep) as never);
    this.arrays.set(slot, a);
    return a;
  }
  constructor(private described: Record<string, DatasetDescriptor> = {}) {}
  get(source: string): Promise<RasterDataset> {
    let p = this.open.get(source);
    if (!p) {
      const d = this.described[source];
      p = d ? new Promise<RasterDataset>((resolve) => resolve(openDescribed(d))) : openRaster(source);
      this.open.set(source, p);
      p.then((ds) => { this.settled.push(ds); }, () => undefined);
    }
    return p;
  }
  /** Bytes of decoded blocks cached by the datasets opened so far (for GEOWEAVE_MEMTRACE). */
  cachedBytes(): number {
    let n = 0;
    for (const d of this.settled) n += d.tileCacheUse?.().bytes ?? 0;
    return n;
  }
  async closeAll(): Promise<void> {
    this.settled = []; this.arrays.clear(); this.windows.clear();
    const all = [...this.open.values()]; this.open.clear();
    await Promise.all(all.map((p) => p.then((d) => d.close()).catch(() => undefined)));
  }
}

/** Computes and encodes tile (tx, ty); its values go into `stats` (as stored: NaN → fill, integers rounded). */
export async function runTileJob(spec: TileJobSpec, tx: number, ty: number, cache: DatasetCache, stats: StatsAccumulator, signal?: AbortSignal): Promise<TileResult> {
  const x = tx * spec.tile, y = ty * spec.tile;
  const w = Math.min(spec.tile, spec.width - x), h = Math.min(spec.tile, spec.height - y);
  let t = tick();
  let outs: Float32Array[] | null = null;
  if (isFusable(spec.kernel) && spec.inputs.length === 2) {
    // Straight from the decoded blocks when each input window lies in one block (aligned tiles).
    const blocks = await Promise.all(spec.inputs.map(async (r) => {
      const ds = await cache.get(r.source);
      return ds.blockWindow ? ds.blockWindow(r.band, x, y, w, h, signal) : null;
    }));
    t = tock('window', t);
    if (blocks[0] && blocks[1]) {
      // The values are consumed synchronously below (stats, preview, encode), so one buffer per thread serves every tile.
      if (scratch.length < w * h) scratch = new Float32Array(spec.tile * spec.tile);
      outs = [fusedKernel(spec.kernel, blocks[0], blocks[1], spec.inputs[0], spec.inputs[1], w, h, scratch.subarray(0, w * h))];
    }
  }
  let mask: Uint8Array | null = null;
  if (!outs && spec.kernel.type === 'threshold' && spec.outDtype === 'uint8' && spec.inputs.length === 1) {
    const r = spec.inputs[0];
    const ds = await cache.get(r.source);
    const block = ds.blockWindow ? await ds.blockWindow(r.band, x, y, w, h, signal) : null;
    t = tock('window', t);
    // A fresh array per tile: it becomes the tile that is encoded (and handed to the main thread).
    if (block) mask = fusedThreshold(spec.kernel, block, r, w, h, spec.fill);
  }
  if (mask) {
    t = tock('compute', t);
    stats.add(mask, x, y, w, h);
    const preview = spec.previewStep ? previewPiece(mask, x, y, w, h, spec.previewStep, spec.fill) : null;
    t = tock('stats', t);
    const tileArr = w === spec.tile && h === spec.tile ? mask : toTile(mask, w, h, spec.tile, 'uint8', spec.fill);
    const e = encodeTile(tileArr, spec.tile, 'uint8', spec.zlevel);
    return { tx, ty, encoded: [new Uint8Array(e.buffer, e.byteOffset, e.byteLength)], w, h, preview };
  }
  if (!outs) {
    const inputs = await Promise.all(spec.inputs.map(async (r) => {
      const ds = await cache.get(r.source);
      const a = await ds.readWindow(r.band, x, y, w, h, signal);
      if (r.scale !== undefined && (r.scale !== 1 || (r.offset ?? 0) !== 0)) {
        const s = r.scale, o = r.offset ?? 0;
        for (let i = 0; i < a.length; i++) a[i] = a[i] * s + o;
      }
      return a;
    }));
    t = tock('window', t);
    outs = applyKernel(spec.kernel, inputs);
  }
  t = tock('compute', t);
  const fill = spec.fill;
  const full = w === spec.tile && h === spec.tile;
  let values = outs[0];
  let filled = false;
  if (spec.outDtype !== 'float32') {
    // Stats must see the values as stored: rounded like the integer tile.
    values = values.slice();
    for (let i = 0; i < values.length; i++) { const v = values[i]; if (v === v) values[i] = Math.round(v); }
    stats.add(values, x, y, w, h);
  } else if (full) {
    // One pass: statistics, and NaN → fill in place so the array is the tile to encode.
    filled = stats.add(values, x, y, w, h, fill);
  } else {
    stats.add(values, x, y, w, h);
  }
  const preview = spec.previewStep ? previewPiece(values, x, y, w, h, spec.previewStep, fill) : null;
  tock('stats', t);
  const inPlace = spec.outDtype === 'float32' && full;
  // outs[0] already had NaN → fill in the stats pass when `filled`.
  const encoded = outs.map((o, b) => encodeTile(b === 0 && filled ? o : toTile(o, w, h, spec.tile, spec.outDtype, fill, inPlace), spec.tile, spec.outDtype, spec.zlevel));
  return { tx, ty, encoded: encoded.map((b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength)), w, h, preview };
}

let scratch = new Float32Array(0);

function previewPiece(v: ArrayLike<number>, x0: number, y0: number, w: number, h: number, f: number, fill: number): PreviewPiece | null {
  const px0 = Math.ceil(x0 / f), py0 = Math.ceil(y0 / f);
  const pw = Math.max(0, Math.ceil((x0 + w) / f) - px0), ph = Math.max(0, Math.ceil((y0 + h) / f) - py0);
  if (!pw || !ph) return null;
  const data = new Float32Array(pw * ph);
  for (let j = 0; j < ph; j++) {
    const row = ((py0 + j) * f - y0) * w - x0;
    for (let i = 0; i < pw; i++) { const a = v[row + (px0 + i) * f]; data[j * pw + i] = a === fill ? NaN : a; }
  }
  return { px0, py0, pw, ph, data };
}
