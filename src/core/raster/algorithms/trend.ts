/** Per-pixel least-squares linear trend over a dated series (slope per year), NaN-aware. */

/** Decimal year of an ISO date (YYYY, YYYY-MM or YYYY-MM-DD). */
export function decimalYear(date: string): number {
  const m = /^(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?/.exec(date.trim());
  if (!m) throw new Error(`date "${date}" is not ISO (YYYY-MM-DD)`);
  const y = Number(m[1]), mo = m[2] ? Number(m[2]) : 1, d = m[3] ? Number(m[3]) : 1;
  if (mo < 1 || mo > 12 || d < 1 || d > 31) throw new Error(`date "${date}" is not a valid calendar date`);
  const start = Date.UTC(y, 0, 1), end = Date.UTC(y + 1, 0, 1);
  return y + (Date.UTC(y, mo - 1, d) - start) / (end - start);
}

/** Accumulates observations image by image: five float64 sums per pixel. */
export class TrendAccumulator {
  readonly n: Float64Array; readonly st: Float64Array; readonly sy: Float64Array; readonly stt: Float64Array; readonly sty: Float64Array;
  private t0 = NaN;
  constructor(readonly size: number) {
    this.n = new Float64Array(size); this.st = new Float64Array(size); this.sy = new Float64Array(size);
    this.stt = new Float64Array(size); this.sty = new Float64Array(size);
  }
  /** Adds one image observed at decimal year t. */
  add(values: ArrayLike<number>, t: number): void {
    if (this.t0 !== this.t0) this.t0 = t; // centre time for numerical stability
    const tt = t - this.t0;
    for (let i = 0; i < this.size; i++) {
      const v = values[i];
      if (v !== v) continue;
      this.n[i]++; this.st[i] += tt; this.sy[i] += v; this.stt[i] += tt * tt; this.sty[i] += tt * v;
    }
  }
  /** Slope per year; NaN where fewer than minObs observations or no spread in time. */
  slope(minObs = 2): Float32Array {
    const out = new Float32Array(this.size);
    for (let i = 0; i < this.size; i++) {
      const n = this.n[i];
      const den = n * this.stt[i] - this.st[i] * this.st[i];
      out[i] = n < minObs || !(Math.abs(den) > 1e-12) ? NaN : (n * this.sty[i] - this.st[i] * this.sy[i]) / den;
    }
    return out;
  }
}

/** Convenience for small series held in memory. */
export function linearTrend(series: ArrayLike<number>[], years: number[], minObs = 2): Float32Array {
  const acc = new TrendAccumulator(series[0].length);
  series.forEach((s, k) => acc.add(s, years[k]));
  return acc.slope(minObs);
}
