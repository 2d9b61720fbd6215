/**
 * The separable warp (resample of a north-up grid by a factor, kernel widened) against the point-by-point
 * kernel it replaces: the same values bit for bit, with nodata holes, NaN, edges and odd factors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SeparableKernel, separableRow, warpPoints, SourceWindow } from '../../src/core/raster/algorithms/warp';

function source(w: number, h: number, seed: number): Float32Array {
  const a = new Float32Array(w * h);
  let s = seed;
  for (let i = 0; i < a.length; i++) { s = (s * 1103515245 + 12345) >>> 0; a[i] = Math.fround(100 + 40 * Math.sin(i % w / 7) + (s % 1000) / 50); }
  // Holes: nodata (-9999) and NaN, in the middle and on the edges.
  for (let y = 10; y < 15; y++) for (let x = 20; x < 29; x++) a[y * w + x] = -9999;
  for (let y = 0; y < 3; y++) for (let x = 0; x < 4; x++) a[y * w + x] = NaN;
  for (let y = h - 2; y < h; y++) a[y * w + w - 1] = -9999;
  a[7 * w + 33] = NaN;
  return a;
}

test('separable warp rows equal warpPoints (general kernel) bit for bit', () => {
  const w = 61, h = 47;
  const raw = source(w, h, 5);
  const asF64 = Float64Array.from(raw, (v) => (v === -9999 ? NaN : v));
  const s: SourceWindow = { data: asF64, x0: 0, y0: 0, w, h, fullW: w, fullH: h };
  for (const method of ['bilinear', 'cubic'] as const) {
    for (const [fx, fy] of [[2, 2], [3, 3], [1.5, 1.5], [2.5, 1.7], [2, 0.5], [0.6, 1.9]]) {
      const W = Math.max(1, Math.round(w / fx)), H = Math.max(1, Math.round(h / fy));
      const sx = w / W, sy = h / H;
      const xScale = W / w, yScale = H / h;
      if (xScale >= 0.95 && yScale >= 0.95) continue;
      const xs = Float64Array.from({ length: W }, (_, x) => (x + 0.5) * sx);
      const k = new SeparableKernel(xs, w, h, method, xScale, yScale);
      const cw = k.hi - k.lo;
      const rows = Array.from({ length: h }, (_, y) => {
        const hh = new Float64Array(W), hw = new Float64Array(W), ok = new Uint8Array(W);
        k.hRow(raw, y * w + k.lo, -9999, hh, hw, ok);
        // Without the zero-weight end taps (no ±Infinity here): the same sums, bit for bit.
        const th = new Float64Array(W), thw = new Float64Array(W), tok = new Uint8Array(W);
        k.hRow(raw, y * w + k.lo, -9999, th, thw, tok, false);
        for (let x = 0; x < W; x++) if (ok[x]) assert.ok(Object.is(th[x], hh[x]) && Object.is(thw[x], hw[x]), `trimmed row sums at ${x},${y}`);
        return { hh, hw, ok };
      });
      assert.ok(cw > 0);
      const wy = new Float64Array(k.maxRowTaps), acc = new Float64Array(W), accW = new Float64Array(W);
      const out = new Float32Array(W);
      for (let y = 0; y < H; y++) {
        const syv = (y + 0.5) * sy;
        const coords = new Float64Array(2 * W);
        for (let x = 0; x < W; x++) { coords[2 * x] = xs[x]; coords[2 * x + 1] = syv; }
        const want = warpPoints(s, coords, W, { method, xScale, yScale });
        const t = k.rowTaps(syv, wy)!;
        const hs = [], hws = [];
        for (let j = 0; j < t.n; j++) { hs.push(rows[t.first + j].hh); hws.push(rows[t.first + j].hw); }
        separableRow(hs, hws, wy, t.n, rows[t.centre].ok, acc, accW, out, 0);
        const trimmed = new Float32Array(W);
        separableRow(hs.slice(t.skip, t.skip + t.kept), hws.slice(t.skip, t.skip + t.kept), wy.subarray(t.skip, t.skip + t.kept), t.kept, rows[t.centre].ok, new Float64Array(W), new Float64Array(W), trimmed, 0);
        for (let x = 0; x < W; x++) assert.ok(Object.is(trimmed[x], out[x]) || (Number.isNaN(trimmed[x]) && Number.isNaN(out[x])), `trimmed vertical taps at ${x},${y}`);
        for (let x = 0; x < W; x++) {
          const a = out[x], b = Math.fround(want[x]);
          assert.ok(Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b)), `${method} ×${fx},${fy} at ${x},${y}: ${a} vs ${b}`);
        }
      }
    }
  }
});

test('a row with ±Infinity is found (the separable warp then keeps the zero-weight taps: ∞·0 is NaN)', () => {
  assert.equal(SeparableKernel.hasInfinity(new Float32Array([1, NaN, -9999, 3])), false);
  assert.equal(SeparableKernel.hasInfinity(new Float32Array([1, NaN, Infinity])), true);
  assert.equal(SeparableKernel.hasInfinity(new Float32Array([-Infinity, 0])), true);
});
