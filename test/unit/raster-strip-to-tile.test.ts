import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stripToTile } from '../../src/core/raster/io/encode';

/** The float32 fast path (row copy, then NaN → fill) gives what the per-pixel path gives for other strip types. */
test('stripToTile: a Float32Array strip gives the same float32 tile as a Float64Array or plain array strip (NaN → fill, edges padded)', () => {
  const w = 37, rows = 9, tile = 16;
  let s = 3;
  const r = () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
  const vals = Array.from({ length: w * rows }, () => (r() < 0.2 ? NaN : r() * 200 - 100));
  for (const [x0, bw] of [[0, 16], [16, 16], [32, 5]]) {
    for (const h of [rows, 4]) {
      const want = Array.from(stripToTile(vals, w, x0, bw, h, tile, 'float32', -9999) as Float32Array);
      const from64 = Array.from(stripToTile(Float64Array.from(vals), w, x0, bw, h, tile, 'float32', -9999) as Float32Array);
      const from32 = Array.from(stripToTile(Float32Array.from(vals), w, x0, bw, h, tile, 'float32', -9999) as Float32Array);
      assert.deepEqual(from64, want, `Float64Array strip at ${x0}, ${h} rows`);
      assert.deepEqual(from32, want, `Float32Array strip at ${x0}, ${h} rows`);
      assert.ok(!from32.some((v) => Number.isNaN(v)), 'no NaN left');
      assert.equal(from32[tile * tile - 1], -9999, 'padding is the fill');
    }
  }
});
