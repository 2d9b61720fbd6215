/** Seeded k-means (k-means++ init, Lloyd iterations) fitted on a pixel sample, then applied to all pixels. */
import { mulberry32 } from './prng';

export interface KMeansOptions {
  k: number;
  seed: number;
  /** Pixels used for fitting (default 20 000). */
  sampleSize?: number;
  maxIter?: number;
  signal?: AbortSignal;
}

export interface KMeansModel {
  /** Cluster centres in the input units, ordered by ascending mean over the bands (class 1 = darkest). */
  centers: number[][];
  /** Per-band mean and standard deviation used to standardise features. */
  mean: number[];
  std: number[];
  iterations: number;
  sampleSize: number;
}

function isValid(bands: ArrayLike<number>[], i: number): boolean {
  for (const b of bands) { const v = b[i]; if (v !== v) return false; }
  return true;
}

/** Seeded reservoir sample of valid pixels (rows of band values), fed strip by strip. */
export class KMeansSampler {
  readonly X: Float64Array;
  private seen = 0;
  private rand: () => number;
  constructor(readonly nb: number, readonly want: number, seed: number) {
    this.X = new Float64Array(want * nb);
    this.rand = mulberry32(seed);
  }
  get size(): number { return Math.min(this.seen, this.want); }
  get validSeen(): number { return this.seen; }
  add(bands: ArrayLike<number>[]): void {
    const { nb, want, X } = this;
    const n = bands[0].length;
    for (let i = 0; i < n; i++) {
      if (!isValid(bands, i)) continue;
      const slot = this.seen < want ? this.seen : Math.floor(this.rand() * (this.seen + 1));
      this.seen++;
      if (slot >= want) continue;
      for (let b = 0; b < nb; b++) X[slot * nb + b] = bands[b][i];
    }
  }
}

export function fitKMeans(bands: ArrayLike<number>[], opts: KMeansOptions): KMeansModel {
  const sampler = new KMeansSampler(bands.length, opts.sampleSize ?? 20000, opts.seed);
  sampler.add(bands);
  return fitKMeansOnSample(sampler, opts);
}

/** Fits on a sample: standardises each band, k-means++ initialisation, Lloyd iterations. */
export function fitKMeansOnSample(sampler: KMeansSampler, opts: KMeansOptions): KMeansModel {
  const nb = sampler.nb, m = sampler.size;
  if (m < opts.k) throw new Error(`k-means needs at least k=${opts.k} valid pixels, found ${sampler.validSeen}`);
  const rand = mulberry32(opts.seed + 0x9e3779b9);
  const mean = new Array(nb).fill(0), std = new Array(nb).fill(0);
  for (let b = 0; b < nb; b++) {
    let sm = 0, ss = 0;
    for (let j = 0; j < m; j++) { const v = sampler.X[j * nb + b]; sm += v; ss += v * v; }
    mean[b] = sm / m;
    std[b] = Math.sqrt(Math.max(ss / m - mean[b] * mean[b], 0)) || 1;
  }
  const X = new Float64Array(m * nb);
  for (let j = 0; j < m; j++) for (let b = 0; b < nb; b++) X[j * nb + b] = (sampler.X[j * nb + b] - mean[b]) / std[b];

  const k = opts.k;
  const C = new Float64Array(k * nb);
  // k-means++ initialisation
  const first = Math.floor(rand() * m);
  for (let b = 0; b < nb; b++) C[b] = X[first * nb + b];
  const d2 = new Float64Array(m).fill(Infinity);
  for (let c = 1; c < k; c++) {
    let total = 0;
    for (let j = 0; j < m; j++) {
      let d = 0;
      for (let b = 0; b < nb; b++) { const t = X[j * nb + b] - C[(c - 1) * nb + b]; d += t * t; }
      if (d < d2[j]) d2[j] = d;
      total += d2[j];
    }
    let pick = m - 1;
    if (total > 0) {
      let r = rand() * total;
      for (let j = 0; j < m; j++) { r -= d2[j]; if (r <= 0) { pick = j; break; } }
    } else pick = Math.floor(rand() * m);
    for (let b = 0; b < nb; b++) C[c * nb + b] = X[pick * nb + b];
  }
  const assign = new Int32Array(m).fill(-1);
  const maxIter = opts.maxIter ?? 100;
  let iter = 0;
  for (; iter < maxIter; iter++) {
    if (opts.signal?.aborted) throw opts.signal.reason ?? new Error('aborted');
    let changed = 0;
    for (let j = 0; j < m; j++) {
      let best = 0, bestD = Infinity;
      for (let c = 0; c < k; c++) {
        let d = 0;
        for (let b = 0; b < nb; b++) { const t = X[j * nb + b] - C[c * nb + b]; d += t * t; }
        if (d < bestD) { bestD = d; best = c; }
      }
      if (assign[j] !== best) { assign[j] = best; changed++; }
    }
    const sums = new Float64Array(k * nb), counts = new Float64Array(k);
    for (let j = 0; j < m; j++) {
      const c = assign[j]; counts[c]++;
      for (let b = 0; b < nb; b++) sums[c * nb + b] += X[j * nb + b];
    }
    for (let c = 0; c < k; c++) {
      if (counts[c] === 0) continue; // empty cluster keeps its centre
      for (let b = 0; b < nb; b++) C[c * nb + b] = sums[c * nb + b] / counts[c];
    }
    if (changed === 0) break;
  }
  const centers: number[][] = [];
  for (let c = 0; c < k; c++) {
    const row: number[] = [];
    for (let b = 0; b < nb; b++) row.push(C[c * nb + b] * std[b] + mean[b]);
    centers.push(row);
  }
  const order = centers.map((row, c) => ({ c, key: row.reduce((s, v, b) => s + (v - mean[b]) / std[b], 0) }))
    .sort((a, b) => a.key - b.key || a.c - b.c);
  return { centers: order.map((o) => centers[o.c]), mean, std, iterations: iter + 1, sampleSize: m };
}

/** Class 1..k per pixel (nearest centre in standardised space); 0 where any band is NaN. */
export function assignKMeans(bands: ArrayLike<number>[], model: KMeansModel, out?: Uint8Array, signal?: AbortSignal): Uint8Array {
  const nb = bands.length, n = bands[0].length, k = model.centers.length;
  const Cs = model.centers.map((row) => row.map((v, b) => (v - model.mean[b]) / model.std[b]));
  const r = out ?? new Uint8Array(n);
  const x = new Float64Array(nb);
  for (let i = 0; i < n; i++) {
    if ((i & 0xffff) === 0 && signal?.aborted) throw signal.reason ?? new Error('aborted');
    let ok = true;
    for (let b = 0; b < nb; b++) { const v = bands[b][i]; if (v !== v) { ok = false; break; } x[b] = (v - model.mean[b]) / model.std[b]; }
    if (!ok) { r[i] = 0; continue; }
    let best = 0, bestD = Infinity;
    for (let c = 0; c < k; c++) {
      let d = 0;
      const cc = Cs[c];
      for (let b = 0; b < nb; b++) { const t = x[b] - cc[b]; d += t * t; }
      if (d < bestD) { bestD = d; best = c; }
    }
    r[i] = best + 1;
  }
  return r;
}
