/** Streaming raster statistics with a 3×3 spatial breakdown, so summaries can say where things are. */

export interface RasterStats {
  count: number; valid: number; nodata: number;
  mean: number | null; std: number | null; min: number | null; max: number | null;
  histogram: { min: number; max: number; counts: number[] } | null;
  percentiles: Record<string, number> | null;
  /** Row-major 3×3 cells (north-west … south-east): valid pixels and mean per cell. */
  grid: { valid: number[]; mean: (number | null)[] };
  /** True when histogram/percentiles come from a regular subsample (large rasters). */
  sampled: boolean;
}

export const CELL_NAMES = ['north-west', 'north', 'north-east', 'west', 'centre', 'east', 'south-west', 'south', 'south-east'];
const PCTS = [2, 5, 10, 25, 50, 75, 90, 95, 98];

/** Serializable state of a StatsAccumulator (see state/merge). */
export interface StatsState {
  width: number; height: number; step: number; count: number; valid: number; sum: number; sumSq: number;
  min: number; max: number; cellValid: number[]; cellSum: number[]; sample: Float32Array; sampleCell: Uint8Array;
}

/** Per-cell histograms of a byte block (9 × 256), filled over all its rows and folded once per add(). */
const byteHist = new Uint32Array(9 * 256);

/** Accumulates over blocks in any order; the subsample is positional, so results do not depend on block order. */
export class StatsAccumulator {
  readonly width: number; readonly height: number; readonly bins: number;
  private step: number;
  private count = 0; private valid = 0; private sum = 0; private sumSq = 0;
  private mn = Infinity; private mx = -Infinity;
  private cellValid = new Float64Array(9); private cellSum = new Float64Array(9);
  private sample: Float32Array; private sampleCell: Uint8Array; private n = 0;

  /** Values equal to `ignore` count as nodata (for blocks that already carry the output's fill value). */
  ignore: number | null = null;

  constructor(width: number, height: number, opts: { bins?: number; sampleLimit?: number; ignore?: number | null } = {}) {
    this.ignore = opts.ignore ?? null;
    this.width = width; this.height = height; this.bins = opts.bins ?? 32;
    const limit = opts.sampleLimit ?? 1_000_000;
    this.step = Math.max(1, Math.ceil(Math.sqrt((width * height) / limit)));
    const cap = Math.ceil(width / this.step) * Math.ceil(height / this.step);
    this.sample = new Float32Array(cap); this.sampleCell = new Uint8Array(cap);
  }

  /**
   * Adds a w×h block at (x, y). With `fillNaN` (the output's fill value, equal to `ignore`), NaN entries of
   * the block are replaced by it in the same pass, so the block is ready to encode; returns whether it did.
   */
  add(block: ArrayLike<number>, x: number, y: number, w: number, h: number, fillNaN?: number): boolean {
    this.cached = null;
    const step = this.step;
    const cx1 = Math.ceil(this.width / 3), cx2 = Math.ceil((2 * this.width) / 3);
    const cy1 = Math.ceil(this.height / 3), cy2 = Math.ceil((2 * this.height) / 3);
    this.count += w * h;
    let mn = this.mn, mx = this.mx;
    const fill = fillNaN !== undefined && block instanceof Float32Array && Math.fround(fillNaN) === this.ignore;
    const bytes = block instanceof Uint8Array;
    if (bytes) byteHist.fill(0);
    for (let r = 0; r < h; r++) {
      const gy = y + r;
      const rowCell = gy < cy1 ? 0 : gy < cy2 ? 3 : 6;
      const sampleRow = gy % step === 0;
      const base = r * w;
      // Split the row at the column-cell boundaries so the inner loops stay tight.
      let c = 0;
      while (c < w) {
        const gx = x + c;
        const colCell = gx < cx1 ? 0 : gx < cx2 ? 1 : 2;
        const end = Math.min(w, (colCell === 0 ? cx1 : colCell === 1 ? cx2 : this.width) - x);
        let cv = 0, cs = 0, sq = 0;
        const ig = this.ignore;
        if (bytes) {
          // Bytes (masks, classes, grey levels): one histogram per cell over the block's rows; the exact
          // integer sums come from them after the rows (foldByteHist).
          const off = (rowCell + colCell) * 256, b = block as Uint8Array;
          for (let i = base + c, e = base + end; i < e; i++) byteHist[off + b[i]]++;
        } else if (fill) {
          const b = block as Float32Array;
          for (let i = base + c, e = base + end; i < e; i++) {
            const v = b[i];
            if (v !== v) b[i] = fillNaN!;
            else if (v !== ig) { cv++; cs += v; sq += v * v; if (v < mn) mn = v; if (v > mx) mx = v; }
          }
        } else {
          for (let i = c; i < end; i++) {
            const v = block[base + i];
            if (v === v && v !== ig) { cv++; cs += v; sq += v * v; if (v < mn) mn = v; if (v > mx) mx = v; }
          }
        }
        const cell = rowCell + colCell;
        if (!bytes) { this.cellValid[cell] += cv; this.cellSum[cell] += cs; this.valid += cv; this.sum += cs; this.sumSq += sq; }
        if (sampleRow) {
          let first = c + ((step - ((x + c) % step)) % step);
          for (let i = first; i < end; i += step) {
            const v = block[base + i];
            if (v === v && v !== this.ignore && this.n < this.sample.length) { this.sample[this.n] = v; this.sampleCell[this.n++] = cell; }
          }
        }
        c = end;
      }
    }
    if (bytes) {
      const ig = this.ignore;
      for (let cell = 0; cell < 9; cell++) {
        let cv = 0, cs = 0, sq = 0;
        for (let v = 0, off = cell * 256; v < 256; v++) {
          const k = byteHist[off + v];
          if (!k || v === ig) continue;
          cv += k; cs += k * v; sq += k * v * v;
          if (v < mn) mn = v;
          if (v > mx) mx = v;
        }
        this.cellValid[cell] += cv; this.cellSum[cell] += cs; this.valid += cv; this.sum += cs; this.sumSq += sq;
      }
    }
    this.mn = mn; this.mx = mx;
    return fill;
  }

  /** Plain-data snapshot (to send from a worker thread and merge()). */
  state(): StatsState {
    return {
      width: this.width, height: this.height, step: this.step, count: this.count, valid: this.valid, sum: this.sum, sumSq: this.sumSq,
      min: this.mn, max: this.mx, cellValid: Array.from(this.cellValid), cellSum: Array.from(this.cellSum),
      sample: this.sample.slice(0, this.n), sampleCell: this.sampleCell.slice(0, this.n),
    };
  }

  /** Adds another accumulator's blocks (same raster size and options); results do not depend on the split. */
  merge(o: StatsState): void {
    if (o.width !== this.width || o.height !== this.height || o.step !== this.step) throw new Error(`stats merge: accumulators differ (${o.width}x${o.height}/${o.step} vs ${this.width}x${this.height}/${this.step})`);
    this.cached = null;
    this.count += o.count; this.valid += o.valid; this.sum += o.sum; this.sumSq += o.sumSq;
    if (o.min < this.mn) this.mn = o.min;
    if (o.max > this.mx) this.mx = o.max;
    for (let i = 0; i < 9; i++) { this.cellValid[i] += o.cellValid[i]; this.cellSum[i] += o.cellSum[i]; }
    const k = Math.min(o.sample.length, this.sample.length - this.n);
    this.sample.set(o.sample.subarray(0, k), this.n); this.sampleCell.set(o.sampleCell.subarray(0, k), this.n);
    this.n += k;
  }

  /** Fraction of valid (sampled) pixels where `pred` holds, and how those pixels split over the 3×3 cells. */
  where(pred: (v: number) => boolean): { fraction: number; cells: number[] } {
    const cells = new Array(9).fill(0);
    let hits = 0;
    for (let i = 0; i < this.n; i++) if (pred(this.sample[i])) { hits++; cells[this.sampleCell[i]]++; }
    return { fraction: this.n ? hits / this.n : 0, cells };
  }

  /** Valid sampled pixels per 3×3 cell (the denominator for where()). */
  sampleCells(): number[] {
    const cells = new Array(9).fill(0);
    for (let i = 0; i < this.n; i++) cells[this.sampleCell[i]]++;
    return cells;
  }

  private cached: RasterStats | null = null;

  result(): RasterStats {
    if (this.cached) return this.cached;
    const v = this.valid;
    const mean = v ? this.sum / v : null;
    const std = v ? Math.sqrt(Math.max(0, this.sumSq / v - (this.sum / v) ** 2)) : null;
    let histogram: RasterStats['histogram'] = null;
    let percentiles: RasterStats['percentiles'] = null;
    if (this.n) {
      const s = sortFloat32(this.sample.subarray(0, this.n));
      percentiles = {};
      for (const p of PCTS) {
        const pos = (p / 100) * (s.length - 1);
        const lo = Math.floor(pos), hi = Math.ceil(pos);
        percentiles[`p${p}`] = round(s[lo] + (s[hi] - s[lo]) * (pos - lo));
      }
      const hmin = this.mn, hmax = this.mx;
      const counts = new Array(this.bins).fill(0);
      const span = hmax - hmin;
      for (let i = 0; i < s.length; i++) {
        const b = span > 0 ? Math.min(this.bins - 1, Math.floor(((s[i] - hmin) / span) * this.bins)) : 0;
        counts[b]++;
      }
      histogram = { min: hmin, max: hmax, counts };
    }
    return this.cached = {
      count: this.count, valid: v, nodata: this.count - v,
      mean: mean === null ? null : round(mean), std: std === null ? null : round(std),
      min: v ? this.mn : null, max: v ? this.mx : null,
      histogram, percentiles,
      grid: { valid: Array.from(this.cellValid), mean: Array.from(this.cellSum, (s, i) => (this.cellValid[i] ? round(s / this.cellValid[i]) : null)) },
      sampled: this.step > 1,
    };
  }
}

/** LSD radix sort of float32 values (no NaN); V8's TypedArray sort is ~6x slower on 1M values. */
export function sortFloat32(src: Float32Array): Float32Array {
  const n = src.length;
  let keys = new Uint32Array(n);
  const bits = new Uint32Array(src.buffer, src.byteOffset, n);
  for (let i = 0; i < n; i++) { const u = bits[i]; keys[i] = u & 0x80000000 ? ~u >>> 0 : (u | 0x80000000) >>> 0; }
  let tmp = new Uint32Array(n);
  const count = new Uint32Array(2048);
  for (let shift = 0; shift < 32; shift += 11) {
    count.fill(0);
    for (let i = 0; i < n; i++) count[(keys[i] >>> shift) & 2047]++;
    let sum = 0;
    for (let b = 0; b < 2048; b++) { const c = count[b]; count[b] = sum; sum += c; }
    for (let i = 0; i < n; i++) { const k = keys[i]; tmp[count[(k >>> shift) & 2047]++] = k; }
    const t = keys; keys = tmp; tmp = t;
  }
  for (let i = 0; i < n; i++) { const k = keys[i]; keys[i] = k & 0x80000000 ? (k & 0x7fffffff) >>> 0 : ~k >>> 0; }
  return new Float32Array(keys.buffer);
}

export function round(v: number, digits = 6): number {
  if (!Number.isFinite(v)) return v;
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

/**
 * Where a set of pixels lies, from hit counts per 3×3 cell (row-major NW..SE) and optionally the
 * valid pixels per cell: "mostly in the south-east", "mostly in the northern third", or "spread across the scene".
 */
export function whereText(hits: number[], totals?: number[]): string {
  const total = hits.reduce((a, b) => a + b, 0);
  if (!total) return 'nowhere in the scene';
  // Weight by density when totals are known, so a cell full of nodata does not look empty of hits.
  const w = hits.map((h, i) => (totals && totals[i] ? h / totals[i] : totals ? 0 : h));
  const wsum = w.reduce((a, b) => a + b, 0) || 1;
  const share = w.map((x) => x / wsum);
  const best = share.indexOf(Math.max(...share));
  if (share[best] >= 0.4) return `mostly in the ${CELL_NAMES[best]}`;
  const rows = [0, 1, 2].map((r) => share[r * 3] + share[r * 3 + 1] + share[r * 3 + 2]);
  const cols = [0, 1, 2].map((c) => share[c] + share[c + 3] + share[c + 6]);
  const rb = rows.indexOf(Math.max(...rows)), cb = cols.indexOf(Math.max(...cols));
  if (rows[rb] >= 0.55 && rows[rb] >= cols[cb]) return `mostly in the ${['northern', 'middle', 'southern'][rb]} third`;
  if (cols[cb] >= 0.55) return `mostly in the ${['western', 'central', 'eastern'][cb]} third`;
  const order = share.map((v, i) => [v, i]).sort((a, b) => b[0] - a[0]);
  if (order[0][0] + order[1][0] >= 0.5) return `mostly in the ${CELL_NAMES[order[0][1]]} and the ${CELL_NAMES[order[1][1]]}`;
  if (share[4] >= 0.3) return 'concentrated around the centre';
  return 'spread across the scene';
}

/** Percent with at most one decimal, for summaries. */
export function pct(f: number): string {
  const p = f * 100;
  return p >= 10 || p === 0 ? `${Math.round(p)}%` : `${Math.round(p * 10) / 10}%`;
}

/** A compact number for summaries (3 significant digits). */
export function num(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return 'n/a';
  if (Math.abs(v) >= 1000) return String(Math.round(v));
  return String(Number(v.toPrecision(3)));
}
