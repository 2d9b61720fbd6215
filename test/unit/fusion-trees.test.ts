import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkTreeModel, fitTrees, queryRows, treeAdjust, TREE_TOP } from '../../src/core/fusion/trees';
import type { FitQuery } from '../../src/core/fusion/fit';
import { mulberry32 } from '../../src/core/raster/algorithms/prng';

/**
 * Queries a weighted sum cannot rank: two parts each point at a candidate, and a third, the same
 * for every candidate of a query (as "the last tool's transitions are peaked" is), says which of
 * the two to trust. With weights 1, 1, 0 the right one is first about half the time.
 */
function switching(count: number, seed: number): FitQuery[] {
  const r = mulberry32(seed);
  return Array.from({ length: count }, () => {
    const n = 30;
    const a = Math.floor(r() * n);
    let b = Math.floor(r() * n);
    if (b === a) b = (b + 1) % n;
    const trustA = r() < 0.5;
    const A = Float32Array.from({ length: n }, (_, i) => (i === a ? 0.9 : r() * 0.6));
    const B = Float32Array.from({ length: n }, (_, i) => (i === b ? 0.9 : r() * 0.6));
    const C = new Float32Array(n).fill(trustA ? 1 : 0);
    return { cols: [A, B, C], n, relevant: [trustA ? a : b], absent: 0, order: Int32Array.from({ length: n }, (_, i) => i), group: String(r()) };
  });
}

/** Share of queries whose right candidate is first, by the weighted sum, and by it plus a model's correction. */
function hit1(qs: FitQuery[], weights: number[], model?: Parameters<typeof treeAdjust>[0]): number {
  let hits = 0;
  for (const q of qs) {
    const rows = queryRows(q, weights, TREE_TOP);
    const cols = q.cols.map(() => new Float64Array(rows.s0.length));
    // The rows' own columns: the parts of the kept candidates, in the kept order.
    rows.X.slice(0, q.cols.length).forEach((c, f) => cols[f].set(c));
    const adj = model ? treeAdjust(model, cols, rows.s0) : new Float64Array(rows.s0.length);
    let best = 0;
    for (let i = 1; i < rows.s0.length; i++) if (rows.s0[i] + adj[i] > rows.s0[best] + adj[best]) best = i;
    hits += rows.rel[best];
  }
  return hits / qs.length;
}

test('trees: learn what a weighted sum cannot (which part to trust, from a part that is the same for every candidate), and it holds on fresh queries', () => {
  const w = [1, 1, 0];
  const train = switching(1500, 1).map((q) => queryRows(q, w));
  const held = switching(300, 2).map((q) => queryRows(q, w));
  const fit = fitTrees(train, held, ['A', 'B', 'C']);
  assert.ok(fit.model, 'trees kept');
  assert.ok(fit.trees >= 5 && fit.trees <= 100, String(fit.trees));
  assert.ok(fit.after > fit.before + 0.3, `${fit.before} → ${fit.after}`);
  const fresh = switching(500, 3);
  const before = hit1(fresh, w);
  const after = hit1(fresh, w, fit.model);
  assert.ok(before > 0.3 && before < 0.7, `the sum alone is right about half the time: ${before}`);
  assert.ok(after > 0.9, `with the trees: ${after}`);
});

test('trees: none are kept on parts that say nothing beyond the weighted sum; the fit is deterministic; a stored model is checked', () => {
  const noise = (count: number, seed: number): FitQuery[] => {
    const r = mulberry32(seed);
    return Array.from({ length: count }, () => {
      const n = 25;
      const t = Math.floor(r() * n);
      const good = Float32Array.from({ length: n }, (_, i) => (i === t ? 0.4 : 0) + r() * 0.6);
      return { cols: [good, Float32Array.from({ length: n }, () => r())], n, relevant: [t], absent: 0, order: Int32Array.from({ length: n }, (_, i) => i) };
    });
  };
  const w = [1, 0];
  const fit = fitTrees(noise(1200, 4).map((q) => queryRows(q, w)), noise(300, 5).map((q) => queryRows(q, w)), ['good', 'noise']);
  assert.equal(fit.model, undefined, `the weighted sum is already the best ranking here (${fit.before} → ${fit.after}, ${fit.trees} trees)`);

  const w2 = [1, 1, 0];
  const a = fitTrees(switching(600, 6).map((q) => queryRows(q, w2)), switching(150, 7).map((q) => queryRows(q, w2)), ['A', 'B', 'C']);
  const b = fitTrees(switching(600, 6).map((q) => queryRows(q, w2)), switching(150, 7).map((q) => queryRows(q, w2)), ['A', 'B', 'C']);
  assert.deepEqual(a.model, b.model);
  // As stored and read back (JSON), the same corrections.
  const back = checkTreeModel(JSON.parse(JSON.stringify(a.model)), 'fusion.json: "trees"');
  const q = queryRows(switching(1, 8)[0], w2);
  const cols = q.X.slice(0, 3);
  assert.deepEqual(Array.from(treeAdjust(back, cols, q.s0)), Array.from(treeAdjust(a.model!, cols, q.s0)));

  assert.throws(() => checkTreeModel({ ...a.model, depth: 0 }, 'f.json: "trees"'), /f\.json: "trees": "depth" must be a whole number/);
  const bad = JSON.parse(JSON.stringify(a.model));
  bad.trees[0].f[0] = 99;
  assert.throws(() => checkTreeModel(bad, 'f.json: "trees"'), /"trees\[0\]" must have 7 splits \(feature −1…8/);
  bad.trees[0].f[0] = 0;
  bad.trees[0].leaf[2] = null;
  assert.throws(() => checkTreeModel(bad, 'f.json: "trees"'), /finite leaf values/);
});

test('trees: the shipped fit of the builtin catalog carries them; a next step shows what they added, and its score is the weighted sum plus that', async () => {
  const { GeoWeave } = await import('../../src/core/geoweave');
  const { createMemory, addStep } = await import('../../src/core/memory/memory');
  const { tmpDir } = await import('../fixtures/helpers');
  const m = createMemory('how badly did the fire burn the forest, in hectares per severity class?');
  addStep(m, { tool: 'dnbr', argSummary: '', resultSummary: 'dNBR mean 0.31', outputs: [{ name: 'dnbr', type: 'raster', path: 'dnbr.tif', roles: ['dnbr', 'index'] }], ok: true, time: '2026-01-01T00:00:00Z' });
  const withTrees = await GeoWeave.open({ stateDir: tmpDir() });
  const without = await GeoWeave.open({ stateDir: tmpDir(), trees: false });
  try {
    assert.ok(withTrees.fusionStatus().state?.trees?.trees.length, 'tool-manifests/fusion.json has trees');
    const a = await withTrees.complementarySuggestions(m, { k: 20 });
    const b = await without.complementarySuggestions(m, { k: 30 });
    const moved = a.ranked.filter((s) => s.parts.rerank);
    assert.ok(moved.length >= 5, `the best candidates carry the trees' correction (${moved.length})`);
    assert.ok(b.ranked.every((s) => s.parts.rerank === undefined));
    for (const s of moved) {
      const plain = b.ranked.find((x) => x.id === s.id)!;
      assert.ok(Math.abs(s.score - s.parts.rerank - plain.score) < 2e-3, `${s.id}: ${s.score} = ${plain.score} + ${s.parts.rerank}`);
    }
  } finally {
    await Promise.all([withTrees.dispose(), without.dispose()]);
  }
});
