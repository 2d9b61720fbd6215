import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fitWeights, FitQuery } from '../../src/core/fusion/fit';
import { mulberry32 } from '../../src/core/raster/algorithms/prng';

/** Queries of `n` candidates with three parts: an informative one, a noisy copy of it, and noise. */
function synthetic(count: number, seed: number): FitQuery[] {
  const r = mulberry32(seed);
  const qs: FitQuery[] = [];
  for (let q = 0; q < count; q++) {
    const n = 20;
    const target = Math.floor(r() * n);
    const good = Float32Array.from({ length: n }, (_, i) => (i === target ? 0.6 : 0) + r() * 0.5);
    const weak = Float32Array.from({ length: n }, (_, i) => (i === target ? 0.3 : 0) + r());
    const noise = Float32Array.from({ length: n }, () => r());
    qs.push({ cols: [noise, weak, good], n, relevant: [target], absent: 0, order: Int32Array.from({ length: n }, (_, i) => i) });
  }
  return qs;
}

test('fit: weight moves to the informative part and the objective improves on the queries it was fitted on', () => {
  const qs = synthetic(400, 7);
  const r = fitWeights('next', qs, [1, 0, 0]);
  assert.ok(r.after > r.before, `${r.before} → ${r.after}`);
  assert.ok(r.metrics['hit@1'] > r.metricsBefore['hit@1'] + 0.3, JSON.stringify([r.metricsBefore, r.metrics]));
  assert.ok(r.weights[2] > r.weights[0], `good ${r.weights[2]} vs noise ${r.weights[0]}`);
  // and it generalises: the fitted weights rank fresh queries of the same kind better than the prior
  const fresh = synthetic(400, 8);
  const at = (w: number[]) => fitWeights('next', fresh, w, { free: [] }).metrics['hit@1'];
  assert.ok(at(r.weights) > at([1, 0, 0]) + 0.3);
});

test('fit: fixed parts keep their prior; a part that never varies is left alone; deterministic', () => {
  const qs = synthetic(200, 3);
  for (const q of qs) q.cols.push(new Float32Array(q.n).fill(1));
  const r = fitWeights('next', qs, [1, 0, 0, 0.5], { free: [1, 2, 3] });
  assert.equal(r.weights[0], 1, 'not free');
  assert.equal(r.weights[3], 0.5, 'constant part');
  assert.deepEqual(fitWeights('next', qs, [1, 0, 0, 0.5], { free: [1, 2, 3] }).weights, r.weights);
});

test('fit: forward metrics count gold tools missing from the candidates as misses', () => {
  const q: FitQuery = { cols: [Float32Array.from([3, 2, 1])], n: 3, relevant: [0, 1], absent: 1, order: Int32Array.from([0, 1, 2]) };
  const r = fitWeights('forward', [q], [1], { free: [] });
  assert.equal(r.metrics['R@10'], 2 / 3);
  assert.equal(r.metrics['COMP@10'], 0);
});

test('fit: equal scores are ranked by id order, as the product sorts them', () => {
  const q: FitQuery = { cols: [Float32Array.from([1, 1, 1])], n: 3, relevant: [2], absent: 0, order: Int32Array.from([2, 1, 0]) };
  assert.equal(fitWeights('next', [q], [1], { free: [] }).metrics['hit@1'], 1, 'the relevant one sorts first');
});
