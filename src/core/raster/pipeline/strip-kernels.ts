/**
 * Serializable strip kernels: one output tile row from input windows (with a halo where the kernel needs
 * one), plus the tool's per-strip tallies. The same code runs in worker threads and inline.
 */
import { aspectInto, hillshadeBytesInto, slopeInto, TerrainGrid } from '../algorithms/terrain';
import type { ClassScheme } from '../algorithms/reclassify';

export type StripKernelSpec =
  | { type: 'slope'; ewres: number; nsres: number; z: number }
  | { type: 'aspect'; ewres: number; nsres: number }
  | { type: 'hillshade'; ewres: number; nsres: number; z: number; azimuth: number; altitude: number }
  | { type: 'reclassify'; scheme: ClassScheme; rowAreas: Float64Array }
  | { type: 'clip'; c0: number; r0: number }
  | { type: 'resample'; method: 'nearest' | 'average'; fx: number; fy: number };

/** Input window for output rows y0..y0+rows-1; `top` = rows of halo above the first output row. */
export interface InputWindow { x: number; y: number; w: number; h: number; top: number; raw: boolean }

/** Per-strip tallies: numbers and number arrays, merged by adding (see addTallies). */
export type Tallies = Record<string, number | number[]>;

export function inputWindow(k: StripKernelSpec, y0: number, rows: number, inW: number, inH: number, outW: number): InputWindow {
  switch (k.type) {
    case 'slope': case 'aspect': case 'hillshade': {
      const top = Math.min(1, y0), bottom = Math.min(1, inH - y0 - rows);
      return { x: 0, y: y0 - top, w: inW, h: rows + top + bottom, top, raw: false };
    }
    case 'reclassify': return { x: 0, y: y0, w: inW, h: rows, top: 0, raw: false };
    case 'clip': return { x: k.c0, y: k.r0 + y0, w: outW, h: rows, top: 0, raw: true };
    case 'resample': {
      const sy0 = Math.floor(y0 * k.fy), sy1 = Math.min(inH, Math.max(sy0 + 1, Math.ceil((y0 + rows) * k.fy)));
      return { x: 0, y: sy0, w: inW, h: sy1 - sy0, top: 0, raw: k.method === 'nearest' };
    }
  }
}

/** Kernel output for one strip: `outs[b]` is band b's w×rows values (NaN or the nodata value where none). */
export interface StripOutput { outs: ArrayLike<number>[]; tallies: Tallies | null }

/** An array for a kernel output (slot: which one): new, or a thread's reused one (contents undefined). */
export type OutAlloc = <T extends Float32Array | Float64Array | Uint8Array>(slot: string, ctor: { new (n: number): T }, n: number) => T;

const fresh: OutAlloc = (_slot, ctor, n) => new ctor(n);

/**
 * Computes output rows y0..y0+rows-1 (w = output width, H = output height) from the input window's bands;
 * output arrays come from `alloc` (a strip's outputs are encoded before the next strip reuses them).
 */
export function runStripKernel(k: StripKernelSpec, ins: ArrayLike<number>[], win: InputWindow, y0: number, rows: number, w: number, H: number, alloc: OutAlloc = fresh): StripOutput {
  switch (k.type) {
    // Terrain kernels write the strip's rows straight into its output (NaN where no full 3×3 window).
    case 'slope': {
      const s = alloc('slope', Float32Array, rows * w).fill(NaN);
      slopeInto(f32(ins[0]), grid(k, win), k.z, s, { y0: win.top, y1: win.top + rows });
      let steep = 0, flat = 0;
      for (let i = 0; i < s.length; i++) { const v = s[i]; if (v > 25) steep++; else if (v < 2) flat++; }
      return { outs: [s], tallies: { steep, flat } };
    }
    case 'aspect': {
      const a = alloc('aspect', Float32Array, rows * w).fill(NaN);
      aspectInto(f32(ins[0]), grid(k, win), a, { y0: win.top, y1: win.top + rows });
      return { outs: [a], tallies: aspectTallies(a, y0, rows, w, H) };
    }
    case 'hillshade': {
      const b = alloc('hillshade', Uint8Array, rows * w).fill(0);
      hillshadeBytesInto(f32(ins[0]), grid(k, win), { azimuth: k.azimuth, altitude: k.altitude, zFactor: k.z }, b, { y0: win.top, y1: win.top + rows });
      return hillshadeTallies(b, y0, rows, w, H);
    }
    case 'reclassify': return reclassifyStrip(k, ins[0], y0, rows, w, H, alloc);
    case 'clip': return { outs: ins, tallies: null };
    case 'resample': return { outs: ins.map((src, b) => resampleBand(k, src, win, y0, rows, w, (ctor, n) => alloc(`resample${b}`, ctor, n))), tallies: null };
  }
}

function f32(a: ArrayLike<number>): Float32Array {
  return a instanceof Float32Array ? a : new Float32Array(a);
}

function grid(k: { ewres: number; nsres: number }, win: InputWindow): TerrainGrid {
  return { w: win.w, h: win.h, ewres: k.ewres, nsres: k.nsres };
}

/** Column and row bounds of the 3×3 "where" cells of a w×H grid. */
function cellBounds(w: number, H: number): [number, number, number, number] {
  return [Math.ceil(w / 3), Math.ceil((2 * w) / 3), Math.ceil(H / 3), Math.ceil((2 * H) / 3)];
}

function aspectTallies(a: Float32Array, y0: number, rows: number, w: number, H: number): Tallies {
  const [cx1, cx2, cy1, cy2] = cellBounds(w, H);
  const segs = [0, cx1, cx2, w];
  const counts = new Array(8).fill(0), cells = new Array(72).fill(0), validCells = new Array(9).fill(0);
  // Each row is split at the column cells' bounds, so the inner loop only bins (no per-pixel cell arithmetic).
  const local = new Int32Array(8);
  let valid = 0, nodata = 0;
  for (let r = 0; r < rows; r++) {
    const y = y0 + r, rc = y < cy1 ? 0 : y < cy2 ? 3 : 6;
    for (let k = 0; k < 3; k++) {
      if (segs[k + 1] <= segs[k]) continue;
      local.fill(0);
      let nd = 0;
      for (let i = r * w + segs[k], e = r * w + segs[k + 1]; i < e; i++) {
        const v = a[i];
        if (v !== v) { nd++; continue; }
        // floor(((v + 22.5) % 360) / 45) for v in [0, 360), without the slow floating-point modulo.
        const t = v + 22.5;
        local[t >= 360 ? 0 : (t / 45) | 0]++;
      }
      const cell = rc + k, n = segs[k + 1] - segs[k] - nd;
      nodata += nd; valid += n; validCells[cell] += n;
      for (let d = 0; d < 8; d++) { counts[d] += local[d]; cells[d * 9 + cell] += local[d]; }
    }
  }
  return { valid, nodata, counts, cells, validCells };
}

/** Tallies of a strip of hillshade bytes (0 = nodata): valid and dark (< 100) pixels, their sum, per "where" cell. */
function hillshadeTallies(out: Uint8Array, y0: number, rows: number, w: number, H: number): StripOutput {
  const [cx1, cx2, cy1, cy2] = cellBounds(w, H);
  const hits = new Array(9).fill(0), totals = new Array(9).fill(0);
  let valid = 0, dark = 0, sum = 0;
  const segs = [0, cx1, cx2, w];
  for (let r = 0; r < rows; r++) {
    const y = y0 + r, rc = y < cy1 ? 0 : y < cy2 ? 3 : 6;
    for (let sgi = 0; sgi < 3; sgi++) {
      let n = 0, dk = 0, s = 0;
      for (let i = r * w + segs[sgi], e = r * w + segs[sgi + 1]; i < e; i++) {
        const b = out[i];
        if (b === 0) continue;
        n++; s += b;
        if (b < 100) dk++;
      }
      valid += n; dark += dk; sum += s; totals[rc + sgi] += n; hits[rc + sgi] += dk;
    }
  }
  return { outs: [out], tallies: { valid, dark, sum, hits, totals } };
}

function reclassifyStrip(k: Extract<StripKernelSpec, { type: 'reclassify' }>, data: ArrayLike<number>, y0: number, rows: number, w: number, H: number, alloc: OutAlloc): StripOutput {
  // 0 (nodata) where a pixel is NaN.
  const classes = alloc('reclassify', Uint8Array, rows * w).fill(0);
  const n = k.scheme.classes.length;
  const lowers = Float64Array.from(k.scheme.classes, (c) => c.lower), uppers = Float64Array.from(k.scheme.classes, (c) => c.upper);
  const lastUpper = uppers[n - 1];
  const [cx1, cx2, cy1, cy2] = cellBounds(w, H);
  const pix = new Array(n + 1).fill(0), m2 = new Array(n + 1).fill(0), cells = new Array((n + 1) * 9).fill(0), validCells = new Array(9).fill(0);
  const rowPix = new Float64Array(n + 1), segPix = new Float64Array(n + 1);
  let valid = 0;
  const segs = [0, cx1, cx2, w];
  for (let r = 0; r < rows; r++) {
    const y = y0 + r, rc = y < cy1 ? 0 : y < cy2 ? 3 : 6;
    rowPix.fill(0);
    // The row in its three "where" cells, so the inner loop only classifies and counts.
    for (let sgi = 0; sgi < 3; sgi++) {
      const x0 = segs[sgi], x1 = segs[sgi + 1], cell = rc + sgi;
      if (x1 <= x0) continue;
      segPix.fill(0);
      let segValid = 0;
      for (let i = r * w + x0, e = r * w + x1; i < e; i++) {
        const v = data[i];
        if (v !== v) continue;
        segValid++;
        // Last lower edge <= v (binary search), as algorithms/reclassify.
        let lo = 0, hi = n - 1, c = -1;
        while (lo <= hi) { const mid = (lo + hi) >> 1; if (lowers[mid] <= v) { c = mid; lo = mid + 1; } else hi = mid - 1; }
        const code = c >= 0 && (v < uppers[c] || (c === n - 1 && v <= lastUpper)) ? c + 1 : 0;
        classes[i] = code;
        segPix[code]++;
      }
      valid += segValid; validCells[cell] += segValid;
      for (let c = 0; c <= n; c++) if (segPix[c]) { cells[c * 9 + cell] += segPix[c]; rowPix[c] += segPix[c]; }
    }
    // The row's area once per class (not once per pixel).
    const a = k.rowAreas[y];
    for (let c = 0; c <= n; c++) if (rowPix[c]) { pix[c] += rowPix[c]; m2[c] += rowPix[c] * a; }
  }
  return { outs: [classes], tallies: { valid, pix, m2, cells, validCells } };
}

function resampleBand(k: Extract<StripKernelSpec, { type: 'resample' }>, src: ArrayLike<number>, win: InputWindow, oy0: number, oh: number, W: number,
  alloc: <T extends Float32Array | Float64Array>(ctor: { new (n: number): T }, n: number) => T = (ctor, n) => new ctor(n)): Float64Array | Float32Array {
  const { fx, fy } = k;
  const inW = win.w, sy0 = win.y, sy1 = win.y + win.h;
  if (k.method === 'nearest') {
    // Every pixel is written.
    const res = alloc(Float64Array, W * oh);
    for (let y = 0; y < oh; y++) {
      const sy = Math.min(sy1 - 1, Math.floor((oy0 + y + 0.5) * fy)) - sy0;
      for (let x = 0; x < W; x++) res[y * W + x] = src[sy * inW + Math.min(inW - 1, Math.floor((x + 0.5) * fx))];
    }
    return res;
  }
  // The average goes to a float32 output: computed in double, stored as float32 (as the writer would).
  const res = alloc(Float32Array, W * oh);
  if (fx === 2 && fy === 2 && inW >= 2 * W) {
    if (src instanceof Float32Array) { averageBy2(src, inW, sy0, sy1, oy0, oh, W, res); return res; }
    if (src instanceof Uint16Array) { averageBy2(src, inW, sy0, sy1, oy0, oh, W, res); return res; }
    if (src instanceof Uint8Array || src instanceof Int16Array || src instanceof Int8Array) { averageBy2(src, inW, sy0, sy1, oy0, oh, W, res); return res; }
  }
  const xa = new Int32Array(W), xb = new Int32Array(W);
  for (let x = 0; x < W; x++) { xa[x] = Math.floor(x * fx); xb[x] = Math.min(inW, Math.max(xa[x] + 1, Math.ceil((x + 1) * fx))); }
  for (let y = 0; y < oh; y++) {
    const ya = Math.floor((oy0 + y) * fy) - sy0, yb = Math.min(sy1 - sy0, Math.max(ya + 1, Math.ceil((oy0 + y + 1) * fy) - sy0));
    for (let x = 0; x < W; x++) {
      const x0 = xa[x], x1 = xb[x];
      let s = 0, n = 0;
      for (let yy = ya; yy < yb; yy++) {
        const ro = yy * inW;
        for (let xx = x0; xx < x1; xx++) { const v = src[ro + xx]; if (v === v) { s += v; n++; } }
      }
      res[y * W + x] = n ? s / n : NaN;
    }
  }
  return res;
}

/**
 * The average of 2×2 blocks (the common factor 2), the same additions in the same order as the general loop
 * (row by row, left to right, NaN skipped), without its per-pixel bounds arrays and inner loops. Float32
 * windows, or raw integer windows whose samples are exactly their float values (see rawIsExact).
 */
function averageBy2(src: Float32Array | Uint16Array | Uint8Array | Int16Array | Int8Array, inW: number, sy0: number, sy1: number, oy0: number, oh: number, W: number, res: Float32Array): void {
  for (let y = 0; y < oh; y++) {
    const ya = 2 * (oy0 + y) - sy0;
    const r0 = ya * inW, o = y * W;
    if (ya + 2 > sy1 - sy0) {
      // A last input row alone (odd height).
      for (let x = 0; x < W; x++) {
        const a = src[r0 + 2 * x], b = src[r0 + 2 * x + 1];
        let s = 0, n = 0;
        if (a === a) { s += a; n++; }
        if (b === b) { s += b; n++; }
        res[o + x] = n ? s / n : NaN;
      }
      continue;
    }
    const r1 = r0 + inW;
    for (let x = 0; x < W; x++) {
      const i = 2 * x;
      const a = src[r0 + i], b = src[r0 + i + 1], c = src[r1 + i], d = src[r1 + i + 1];
      const t = a + b + c + d;
      if (t === t) { res[o + x] = (((a + b) + c) + d) / 4; continue; }
      let s = 0, n = 0;
      if (a === a) { s += a; n++; }
      if (b === b) { s += b; n++; }
      if (c === c) { s += c; n++; }
      if (d === d) { s += d; n++; }
      res[o + x] = n ? s / n : NaN;
    }
  }
}

/** Adds tallies `b` into `a` (same keys and array lengths). */
export function addTallies(a: Tallies | null, b: Tallies | null): Tallies | null {
  if (!b) return a;
  if (!a) return structuredClone(b);
  for (const [key, v] of Object.entries(b)) {
    const cur = a[key];
    if (typeof v === 'number') a[key] = (cur as number) + v;
    else { const arr = cur as number[]; for (let i = 0; i < v.length; i++) arr[i] += v[i]; }
  }
  return a;
}
