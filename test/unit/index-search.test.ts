import { VectorStore } from '../../src/core/index/vector-store';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HnswIndex } from '../../src/core/index/hnsw';
import { ExactIndex } from '../../src/core/index/exact';
import { Bm25Index } from '../../src/core/index/bm25';
import { BuiltinEmbedder } from '../../src/core/embed/builtin';
import { loadCatalog } from '../../src/core/manifests/load';
import { fixtureCatalog, tmpDir } from '../fixtures/helpers';
import * as path from 'path';

function lowRank(n: number, d: number, seed: number): Float32Array[] {
  let s = seed;
  const r = () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648) - 0.5;
  const basis = Array.from({ length: 12 }, () => Float32Array.from({ length: d }, r));
  return Array.from({ length: n }, () => {
    const v = new Float32Array(d);
    for (const b of basis) { const c = r(); for (let j = 0; j < d; j++) v[j] += c * b[j]; }
    for (let j = 0; j < d; j++) v[j] += 0.05 * r();
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  });
}

test('HNSW agrees with the exact scan (recall@10 >= 0.95) and survives save/load with deletes', () => {
  const d = 32;
  const data = lowRank(2000, d, 7);
  const queries = lowRank(50, d, 99);
  const h = HnswIndex.create(d, 100); // grows by resizing
  const e = new ExactIndex(d, 10);
  data.forEach((v, i) => { h.add(i, v); e.add(i, v); });
  let hit = 0;
  for (const q of queries) {
    const truth = new Set(e.search(q, 10).map((x) => x.label));
    for (const x of h.search(q, 10)) if (truth.has(x.label)) hit++;
  }
  assert.ok(hit / 500 >= 0.95, `recall ${hit / 500}`);
  for (let i = 0; i < 100; i++) { h.remove(i); e.remove(i); }
  const file = path.join(tmpDir(), 'x.hnsw');
  h.save(file);
  const back = HnswIndex.load(file, d, h.labels());
  assert.equal(back.size, 1900);
  const res = back.search(queries[0], 10);
  assert.ok(res.every((x) => x.label >= 100), 'deleted labels never come back');
  assert.deepEqual(e.search(queries[0], 1)[0].label, res[0].label);
  assert.ok(Math.abs(res[0].score - e.search(queries[0], 1)[0].score) < 1e-4);
});

test('asking for more neighbours than exist returns what exists', () => {
  const h = HnswIndex.create(4, 10);
  h.add(1, Float32Array.from([1, 0, 0, 0]));
  h.add(2, Float32Array.from([0, 1, 0, 0]));
  assert.equal(h.search(Float32Array.from([1, 0, 0, 0]), 10).length, 2);
  assert.deepEqual(HnswIndex.create(4, 10).search(Float32Array.from([1, 0, 0, 0]), 5), []);
});

test('BM25 ranks by weighted fields, handles Chinese and concept synonyms', () => {
  const tools = loadCatalog({ noBuiltin: true, extraDirs: [fixtureCatalog] }).tools.map((t) => t.manifest);
  const bm = new Bm25Index(tools);
  assert.equal(bm.search('slope of the terrain')[0].id, 'slope');
  assert.equal(bm.search('计算坡度')[0].id, 'slope');
  assert.equal(bm.search('greenness of crops')[0].id, 'ndvi'); // via the vegetation-index concept
  assert.equal(bm.search('hectares')[0].id, 'area_by_class');
  bm.remove('slope');
  assert.ok(!bm.search('slope of the terrain').some((h) => h.id === 'slope'));
  assert.deepEqual(bm.search('zzzz qqqq'), []);
});

test('the builtin embedder puts tool texts near their tasks', async () => {
  const e = new BuiltinEmbedder();
  const [a, b, c] = await e.embed(['Slope in degrees from a digital elevation model', 'how steep is the terrain', 'mask clouds']);
  const dot = (x: Float32Array, y: Float32Array) => x.reduce((s, v, i) => s + v * y[i], 0);
  assert.ok(dot(a, b) > dot(a, c));
});

test('vector store: replace, swap-remove and growth keep every label on its own vector', () => {
  const d = 5;
  const s = new VectorStore(d, 1);
  const vec = (x: number) => Float32Array.from({ length: d }, (_, j) => x * 10 + j);
  for (let i = 0; i < 40; i++) s.set(i, vec(i));
  s.set(7, vec(70));
  for (let i = 0; i < 40; i += 3) assert.equal(s.delete(i), true);
  assert.equal(s.delete(3), false, 'already gone');
  const live = [...s.labels].sort((a, b) => a - b);
  assert.deepEqual(live, Array.from({ length: 40 }, (_, i) => i).filter((i) => i % 3 !== 0));
  const q = Float32Array.from({ length: d }, (_, j) => (j === 0 ? 1 : 0));
  for (const l of live) {
    const want = l === 7 ? 700 : l * 10;
    assert.equal(s.view(l)![0], want, `label ${l}`);
    assert.equal(s.dot(l, q), want);
  }
  const dots = s.scanDots(q);
  s.labels.forEach((l, row) => { assert.equal(dots[row], l === 7 ? 700 : l * 10); assert.equal(s.row(l), row); });
  assert.throws(() => s.set(99, new Float32Array(3)), /dimension 3, index expects 5/);
});
