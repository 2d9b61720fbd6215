/** Zonal statistics over class zones or polygons rasterised by pixel-centre-in-polygon (even-odd, so holes are excluded). */
import type { GeoTransform, Ring } from './vectorize';

export interface ZoneStats { count: number; sum: number; mean: number; min: number; max: number; std: number; pixels: number }

export class ZoneAccumulator {
  n = 0; pixels = 0; sum = 0; sumSq = 0; min = Infinity; max = -Infinity;
  private shift = NaN; // shifted sums keep the variance accurate
  add(v: number): void {
    this.pixels++;
    if (v !== v) return;
    if (this.shift !== this.shift) this.shift = v;
    const d = v - this.shift;
    this.n++; this.sum += d; this.sumSq += d * d;
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
  }
  result(): ZoneStats {
    const n = this.n;
    if (n === 0) return { count: 0, sum: 0, mean: NaN, min: NaN, max: NaN, std: NaN, pixels: this.pixels };
    const meanD = this.sum / n;
    return {
      count: n,
      sum: this.sum + n * this.shift,
      mean: meanD + this.shift,
      min: this.min,
      max: this.max,
      std: Math.sqrt(Math.max(this.sumSq / n - meanD * meanD, 0)),
      pixels: this.pixels,
    };
  }
}

/** Per zone value (finite, nonzero) of `zones`: statistics of `values` (population std; NaN values count only in pixels). */
export function zonalByClass(values: ArrayLike<number>, zones: ArrayLike<number>, acc = new Map<number, ZoneAccumulator>()): Map<number, ZoneAccumulator> {
  for (let i = 0; i < values.length; i++) {
    const z = zones[i];
    if (z !== z || z === 0) continue;
    let a = acc.get(z);
    if (!a) { a = new ZoneAccumulator(); acc.set(z, a); }
    a.add(values[i]);
  }
  return acc;
}

/** Inverse of a (possibly rotated) geotransform: map → pixel coordinates. */
export function invertGeoTransform(gt: GeoTransform): (X: number, Y: number) => [number, number] {
  const det = gt[1] * gt[5] - gt[2] * gt[4];
  if (det === 0) throw new Error('geotransform is not invertible');
  return (X, Y) => {
    const dx = X - gt[0], dy = Y - gt[3];
    return [(gt[5] * dx - gt[2] * dy) / det, (-gt[4] * dx + gt[1] * dy) / det];
  };
}

/**
 * Calls visit(index) for each pixel whose centre lies inside the polygon (rings in map coordinates; any
 * number of polygons' rings may be passed together: even-odd fill). Scanline in pixel space.
 */
export function rasterizePolygon(rings: Ring[], gt: GeoTransform, w: number, h: number, visit: (i: number) => void): void {
  rasterizeRows(preparePolygon(rings, gt, h), w, 0, h, (y, x) => visit(y * w + x));
}

/** A polygon in pixel space, ready to be rasterised a strip at a time. */
export interface PreparedPolygon { segs: Float64Array; yStart: number; yEnd: number }

/** Pixel-space edges and the rows (yStart..yEnd, inclusive; empty when yEnd < yStart) whose centres the polygon can cover. */
export function preparePolygon(rings: Ring[], gt: GeoTransform, h: number): PreparedPolygon {
  const inv = invertGeoTransform(gt);
  const segs: number[] = [];
  let minY = Infinity, maxY = -Infinity;
  for (const ring of rings) {
    const px = ring.map(([X, Y]) => inv(X, Y));
    for (let k = 0; k < px.length; k++) {
      const [x0, y0] = px[k], [x1, y1] = px[(k + 1) % px.length];
      // Horizontal edges bound no crossing; GDAL still fills one lying on a row of pixel centres
      // when it runs right to left (the bottom edge of a ring wound as GeoJSON's outer rings
      // usually are), and only then: kept to be filled alike (rasterizeRows).
      if (y0 === y1 && !(x0 > x1 && Number.isInteger(y0 - 0.5))) continue;
      segs.push(x0, y0, x1, y1);
      minY = Math.min(minY, y0, y1); maxY = Math.max(maxY, y0, y1);
    }
  }
  return { segs: Float64Array.from(segs), yStart: Math.max(0, Math.ceil(minY - 0.5)), yEnd: Math.min(h - 1, Math.floor(maxY - 0.5)) };
}

/**
 * rasterizePolygon restricted to image rows y0..y1-1: visit(y, x) for each covered pixel, in the same
 * order (rows down, spans left to right) and with the same half-open rules.
 */
export function rasterizeRows(p: PreparedPolygon, w: number, y0: number, y1: number, visit: (y: number, x: number) => void): void {
  rasterizeRowSpans(p, w, y0, y1, (y, a, b) => { for (let x = a; x <= b; x++) visit(y, x); });
}

/**
 * rasterizeRows by runs: span(y, a, b) for each run of covered pixels a..b of row y (the same pixels in
 * the same order), for callers that fill whole runs (a per-pixel callback costs ~10 ns a pixel).
 */
export function rasterizeRowSpans(p: PreparedPolygon, w: number, y0: number, y1: number, span: (y: number, a: number, b: number) => void): void {
  const { segs } = p;
  const { order, first } = edgeTable(p);
  // Crossings in a typed array: its numeric sort is several times faster than Array#sort with a
  // comparator, which matters for rings whose edges cross a row many times.
  let xs = new Float64Array(64);
  let nx = 0;
  const spans: number[] = [];
  // Active edges: those whose rows began at or above y (an edge table, so a ring of 500 000 vertices
  // costs its crossings, not rows × edges); an edge leaves once its last row is passed.
  const active: number[] = [];
  const yFrom = Math.max(y0, p.yStart);
  let next = 0;
  while (next < order.length && first[order[next]] < yFrom) {
    const e = order[next++];
    if (last(segs, e) >= yFrom) active.push(e);
  }
  for (let y = yFrom; y <= Math.min(y1 - 1, p.yEnd); y++) {
    const cy = y + 0.5;
    nx = 0;
    spans.length = 0;
    while (next < order.length && first[order[next]] <= y) active.push(order[next++]);
    let keep = 0;
    for (let i = 0; i < active.length; i++) {
      const e = active[i];
      if (last(segs, e) < y) continue;
      active[keep++] = e;
      const s = e * 4;
      const sy0 = segs[s + 1], sy1 = segs[s + 3];
      if ((sy0 <= cy && cy < sy1) || (sy1 <= cy && cy < sy0)) {
        const sx0 = segs[s], sx1 = segs[s + 2];
        if (nx === xs.length) { const grown = new Float64Array(xs.length * 2); grown.set(xs); xs = grown; }
        xs[nx++] = sx0 + (cy - sy0) * (sx1 - sx0) / (sy1 - sy0);
      } else if (sy0 === cy && sy1 === cy) {
        // A right-to-left horizontal edge on this row of centres (preparePolygon keeps only those)
        // is filled on its own, as GDAL does.
        spans.push(Math.floor(Math.min(segs[s], segs[s + 2]) + 0.5), Math.floor(Math.max(segs[s], segs[s + 2]) + 0.5) - 1);
      }
    }
    active.length = keep;
    const sorted = xs.subarray(0, nx).sort();
    // A pixel is inside when its centre lies in (xs[k], xs[k+1]]: GDAL's rasterizer rounds each
    // crossing with floor(x + 0.5), so a centre exactly on a left edge is out, on a right edge in.
    for (let k = 0; k + 1 < nx; k += 2) spans.push(Math.floor(sorted[k] + 0.5), Math.floor(sorted[k + 1] + 0.5) - 1);
    visitSpans(spans, w, y, span);
  }
}

/** The first row whose centre an edge can meet (rows y with y + 0.5 in [min y, max y]). */
function firstRow(segs: Float64Array, e: number): number {
  return Math.ceil(Math.min(segs[e * 4 + 1], segs[e * 4 + 3]) - 0.5);
}

/** The last such row. */
function last(segs: Float64Array, e: number): number {
  return Math.floor(Math.max(segs[e * 4 + 1], segs[e * 4 + 3]) - 0.5);
}

const EDGE_TABLES = new WeakMap<PreparedPolygon, { order: Int32Array; first: Int32Array }>();

/** Edges sorted by their first row, built once per prepared polygon (strips reuse it). */
function edgeTable(p: PreparedPolygon): { order: Int32Array; first: Int32Array } {
  let t = EDGE_TABLES.get(p);
  if (!t) {
    const n = p.segs.length / 4;
    const first = new Int32Array(n);
    for (let e = 0; e < n; e++) first[e] = Math.max(-2147483648, Math.min(2147483647, firstRow(p.segs, e)));
    const order = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => first[a] - first[b] || a - b);
    t = { order, first };
    EDGE_TABLES.set(p, t);
  }
  return t;
}

/** Visits the union of the row's spans [a, b] (pairs in `spans`) as runs, each pixel once, clipped to 0..w-1. */
function visitSpans(spans: number[], w: number, y: number, span: (y: number, a: number, b: number) => void): void {
  if (spans.length === 2) {
    const a = Math.max(0, spans[0]), b = Math.min(w - 1, spans[1]);
    if (a <= b) span(y, a, b);
    return;
  }
  const order: number[] = [];
  let inOrder = true;
  for (let i = 0; i < spans.length; i += 2) {
    if (spans[i] > spans[i + 1]) continue;
    if (order.length && spans[order[order.length - 1]] > spans[i]) inOrder = false;
    order.push(i);
  }
  // The crossings' spans come sorted; only a horizontal edge's span (pushed first) can be out of order.
  if (!inOrder) order.sort((i, j) => spans[i] - spans[j]);
  let next = 0;
  for (const i of order) {
    const a = Math.max(next, spans[i], 0), b = Math.min(spans[i + 1], w - 1);
    if (a <= b) span(y, a, b);
    next = Math.max(next, spans[i + 1] + 1);
  }
}
