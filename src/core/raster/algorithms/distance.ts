/** Exact Euclidean distance transform (Felzenszwalb & Huttenlocher 2012) with anisotropic pixel sizes. */

/** Squared distance transform of a sampled function f along one line, sample spacing `s`. */
export function dt1d(f: Float64Array, n: number, s: number, d: Float64Array, v: Int32Array, z: Float64Array): void {
  let k = 0;
  v[0] = 0; z[0] = -Infinity; z[1] = Infinity;
  const s2 = s * s;
  // Skip leading infinite samples: the parabola intersection needs finite values.
  let first = -1;
  for (let q = 0; q < n; q++) if (f[q] < Infinity) { first = q; break; }
  if (first < 0) { d.fill(Infinity, 0, n); return; }
  v[0] = first;
  for (let q = first + 1; q < n; q++) {
    if (f[q] === Infinity) continue;
    for (;;) {
      const p = v[k];
      const sPos = ((f[q] + s2 * q * q) - (f[p] + s2 * p * p)) / (2 * s2 * (q - p));
      if (sPos <= z[k]) { k--; if (k < 0) { k = 0; v[0] = q; z[0] = -Infinity; break; } continue; }
      k++; v[k] = q; z[k] = sPos; z[k + 1] = Infinity;
      break;
    }
  }
  k = 0;
  for (let q = 0; q < n; q++) {
    while (z[k + 1] < q) k++;
    const p = v[k];
    d[q] = s2 * (q - p) * (q - p) + f[p];
  }
}

/**
 * Distance in map units (e.g. metres) from every pixel centre to the nearest pixel with feature[i] === 1.
 * Returns +Infinity everywhere when there is no feature pixel.
 */
export function distanceTransform(feature: Uint8Array, w: number, h: number, xres: number, yres: number, signal?: AbortSignal): Float32Array {
  const n = Math.max(w, h);
  const f = new Float64Array(n), d = new Float64Array(n), z = new Float64Array(n + 1);
  const v = new Int32Array(n);
  const tmp = new Float64Array(w * h);
  for (let x = 0; x < w; x++) {
    if ((x & 63) === 0 && signal?.aborted) throw signal.reason ?? new Error('aborted');
    for (let y = 0; y < h; y++) f[y] = feature[y * w + x] === 1 ? 0 : Infinity;
    dt1d(f, h, Math.abs(yres), d, v, z);
    for (let y = 0; y < h; y++) tmp[y * w + x] = d[y];
  }
  const out = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    if ((y & 63) === 0 && signal?.aborted) throw signal.reason ?? new Error('aborted');
    for (let x = 0; x < w; x++) f[x] = tmp[y * w + x];
    dt1d(f, w, Math.abs(xres), d, v, z);
    for (let x = 0; x < w; x++) out[y * w + x] = Math.sqrt(d[x]);
  }
  return out;
}

/**
 * The column pass of distanceTransform for strip rows y0..y0+rows-1 (squared map distances along
 * columns), from the strip's feature mask and, per column, the nearest feature row above the strip
 * (`above`, -1 = none) and at or below its end (`below`, -1 = none; updated to the strip's topmost
 * feature so strips can be processed bottom-up). Equal to the whole-column result. Written into `into`
 * (its first w × rows values) when given.
 */
export function columnPassStrip(feature: Uint8Array, w: number, y0: number, rows: number, above: Int32Array, below: Int32Array, yres: number, into?: Float64Array): Float64Array {
  const s = Math.abs(yres), s2 = s * s;
  const g = into && into.length >= w * rows ? into.subarray(0, w * rows) : new Float64Array(w * rows);
  // Row-major (the columns side by side): going down the columns one at a time read the mask and wrote g
  // a cache line per pixel, about 3x slower. First the nearest feature row at or above each pixel...
  if (upScratch.length < w * rows) upScratch = new Int32Array(w * rows);
  const up = upScratch;
  const last = Int32Array.from(above);
  for (let r = 0; r < rows; r++) {
    const o = r * w, y = y0 + r;
    for (let x = 0; x < w; x++) { if (feature[o + x] === 1) last[x] = y; up[o + x] = last[x]; }
  }
  // ...then, bottom-up, the nearest at or below, and the nearer of the two.
  for (let r = rows - 1; r >= 0; r--) {
    const o = r * w, q = y0 + r;
    for (let x = 0; x < w; x++) {
      let next = below[x];
      if (feature[o + x] === 1) below[x] = next = q;
      const p = up[o + x];
      const da = p >= 0 ? s2 * (q - p) * (q - p) : Infinity;
      const db = next >= 0 ? s2 * (q - next) * (q - next) : Infinity;
      g[o + x] = da < db ? da : db;
    }
  }
  return g;
}

let upScratch = new Int32Array(0);

/** The row pass of distanceTransform on `rows` rows of column-pass output: distances (square roots) as float32 (into `into` when given). */
export function rowPassStrip(g: Float64Array, w: number, rows: number, xres: number, into?: Float32Array): Float32Array {
  const d = new Float64Array(w), z = new Float64Array(w + 1), v = new Int32Array(w);
  const out = into && into.length >= w * rows ? into.subarray(0, w * rows) : new Float32Array(w * rows);
  for (let r = 0; r < rows; r++) {
    // The row of g is read in place (dt1d only reads f).
    dt1d(g.subarray(r * w, r * w + w), w, Math.abs(xres), d, v, z);
    for (let x = 0, o = r * w; x < w; x++) out[o + x] = Math.sqrt(d[x]);
  }
  return out;
}
