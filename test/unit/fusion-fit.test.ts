import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bagFits, fitWeights, fitWeightsAsync, FitQuery, metricsMoved, surrogateFit, type BagRunner, type SurrogateRunner } from '../../src/core/fusion/fit';
import { packJob, unpackJob } from '../../src/core/fusion/bag-pack';
import { bagThread, surrogateThread } from '../../src/core/fusion/bag-thread';
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

/** Metrics by sorting every candidate under the moved weights (the definition the fast paths must equal). */
function bruteMetrics(kind: 'forward' | 'next', qs: FitQuery[], w: number[], f: number, delta: number): Record<string, number> {
  const acc = kind === 'forward' ? [0, 0, 0, 0, 0] : [0, 0, 0];
  for (const q of qs) {
    const s = Array.from({ length: q.n }, (_, i) => q.cols.reduce((a, c, g) => a + w[g] * c[i], 0));
    const moved = s.map((v, i) => v + delta * q.cols[f][i]);
    const rank = (i: number) => moved.filter((v, j) => j !== i && (v > moved[i] || (v === moved[i] && q.order[j] < q.order[i]))).length;
    const ranks = q.relevant.map(rank);
    if (kind === 'next') {
      const r = ranks.length ? ranks[0] : Infinity;
      acc[0] += r < 1 ? 1 : 0; acc[1] += r < 3 ? 1 : 0; acc[2] += r === Infinity ? 0 : 1 / (r + 1);
    } else {
      const total = q.relevant.length + q.absent;
      const first = Math.min(...ranks);
      const in10 = ranks.filter((r) => r < 10).length;
      const in20 = ranks.filter((r) => r < 20).length;
      acc[0] += first === Infinity ? 0 : 1 / (first + 1); acc[1] += in10 / total; acc[2] += in20 / total;
      acc[3] += in10 === total ? 1 : 0; acc[4] += in20 === total ? 1 : 0;
    }
  }
  const keys = kind === 'forward' ? ['RR', 'R@10', 'R@20', 'COMP@10', 'COMP@20'] : ['hit@1', 'hit@3', 'RR'];
  return Object.fromEntries(keys.map((k, i) => [k, acc[i] / qs.length]));
}

test('fit: a tried move is scored as a full sort scores it, for sparse parts, ties and relevant candidates the part moves or not', () => {
  const r = mulberry32(11);
  // Values on a coarse grid (many ties) and mostly 0 (most parts speak for few candidates).
  const value = (zeros: number) => (r() < zeros ? 0 : Math.round(r() * 4) / 4);
  for (const kind of ['next', 'forward'] as const) {
    const qs: FitQuery[] = Array.from({ length: 300 }, () => {
      const n = 5 + Math.floor(r() * 40);
      const cols = [0.1, 0.6, 0.9, 0.97].map((zeros) => Float32Array.from({ length: n }, () => value(zeros)));
      const relevant = kind === 'next' ? [Math.floor(r() * n)] : [...new Set([Math.floor(r() * n), Math.floor(r() * n)])];
      const order = Int32Array.from({ length: n }, (_, i) => i).sort(() => r() - 0.5);
      return { cols, n, relevant, absent: kind === 'forward' && r() < 0.2 ? 1 : 0, order };
    });
    const w = [1, 0.5, 0.25, 0];
    for (const f of [0, 1, 2, 3]) {
      for (const delta of [-0.25, 0.1, 0.75, 3.2]) {
        const got = metricsMoved(kind, qs, w, f, delta);
        const want = bruteMetrics(kind, qs, w, f, delta);
        for (const k of Object.keys(want)) assert.ok(Math.abs(got[k] - want[k]) < 1e-12, `${kind} part ${f} move ${delta} ${k}: ${got[k]} against ${want[k]}`);
      }
    }
  }
});

test('fit: bootstrap fits run elsewhere (packed for another thread) give the weights of the fit that runs them all; a runner that gives none leaves them to the fit', async () => {
  const qs = synthetic(300, 5);
  for (const q of qs) q.cols.push(Float32Array.from({ length: q.n }, (_, i) => (i % 3 === 0 ? 0 : (i * 7919) % 13 / 13)));
  const prior = [1, 0.2, 0, 0.1];
  const whole = fitWeights('next', qs, prior);
  let asked = 0;
  const packed: BagRunner = async (job) => { asked += job.samples.length; const { packed: p } = packJob(job); return bagFits(unpackJob(p)); };
  assert.deepEqual((await fitWeightsAsync('next', qs, prior, { elsewhere: packed })).weights, whole.weights);
  assert.equal(asked, 4, 'half of the 8 bootstrap fits');
  assert.deepEqual((await fitWeightsAsync('next', qs, prior, { elsewhere: async () => undefined })).weights, whole.weights);
  const thread = bagThread();
  if (thread) assert.deepEqual((await fitWeightsAsync('next', qs, prior, { elsewhere: thread })).weights, whole.weights, 'on a real thread');
});

test('fit: the surrogate and the ascent from it run elsewhere (packed for another thread) give the weights of the fit that runs both here, with and without bootstrap fits', async () => {
  const qs = synthetic(300, 7);
  // A sparse part, and a prior whose free parts start after a fixed one (the surrogate sums the parts before the first free one once).
  for (const q of qs) q.cols.push(Float32Array.from({ length: q.n }, (_, i) => (i % 4 === 1 ? (i * 7919) % 11 / 11 : 0)));
  const prior = [1, 0.2, 0, 0.1];
  for (const free of [undefined, [1, 2, 3], [3]]) {
    for (const bags of [0, 8]) {
      const whole = fitWeights('next', qs, prior, { free, bags });
      let asked = 0;
      const packed: SurrogateRunner = async (job) => { asked++; const { packed: p } = packJob(job, 'surrogate'); return surrogateFit(unpackJob(p)); };
      assert.deepEqual((await fitWeightsAsync('next', qs, prior, { free, bags, surrogateElsewhere: packed })).weights, whole.weights, `free ${free} bags ${bags}`);
      assert.equal(asked, 1);
      assert.deepEqual((await fitWeightsAsync('next', qs, prior, { free, bags, surrogateElsewhere: async () => undefined })).weights, whole.weights, 'a runner that gives none leaves it to the fit');
      const thread = surrogateThread();
      if (thread) assert.deepEqual((await fitWeightsAsync('next', qs, prior, { free, bags, surrogateElsewhere: thread, elsewhere: bagThread() })).weights, whole.weights, 'on real threads');
    }
  }
});
