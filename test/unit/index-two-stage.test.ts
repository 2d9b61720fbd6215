import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { fitPca, symmetricEigen } from '../../src/core/index/projection';
import { TwoStageIndex, twoStageOptions } from '../../src/core/index/two-stage';
import { ExactIndex } from '../../src/core/index/exact';
import { ToolIndex, FINGERPRINT_FILE, PROJECTION_FILE, VECTORS_FILE } from '../../src/core/index/tool-index';
import { BuiltinEmbedder } from '../../src/core/embed/builtin';
import type { Embedder } from '../../src/core/embed/types';
import { loadCatalog } from '../../src/core/manifests/load';
import { mulberry32 } from '../../src/core/raster/algorithms/prng';
import { logSink, tmpDir, writeJson } from '../fixtures/helpers';

const W = {
  verb: ['compute', 'map', 'detect', 'estimate', 'classify', 'extract', 'monitor', 'segment', 'mask', 'smooth'],
  index: ['NDVI', 'EVI', 'SAVI', 'NDWI', 'NBR', 'NDBI', 'LST', 'albedo', 'coherence', 'wetness'],
  target: ['vegetation', 'cropland', 'forest', 'wetland', 'flood', 'burn scar', 'snow cover', 'glacier', 'turbidity', 'landslide', 'drought', 'mangrove'],
  sensor: ['Sentinel-2', 'Landsat 8', 'MODIS', 'PlanetScope', 'a DEM', 'VIIRS'],
  method: ['thresholding', 'random forest', 'k-means clustering', 'band ratio', 'zonal statistics', 'harmonic fitting'],
  scenario: ['precision agriculture', 'wildfire response', 'flood emergency', 'urban planning', 'coastal management'],
};

/** Manifest-like texts from a small vocabulary: a low-rank catalog, like a large family of related tools. */
function texts(n: number, seed: number): string[] {
  const r = mulberry32(seed);
  const p = (xs: string[]) => xs[Math.floor(r() * xs.length)];
  return Array.from({ length: n }, () => `${p(W.index)} ${p(W.target)} ${p(W.method)}. ${p(W.verb)}s ${p(W.target)} from ${p(W.sensor)} using ${p(W.method)} for ${p(W.scenario)}.`);
}

function queries(n: number, seed: number): string[] {
  const r = mulberry32(seed);
  const p = (xs: string[]) => xs[Math.floor(r() * xs.length)];
  return Array.from({ length: n }, () => `${p(W.verb)} ${p(W.target)} with ${p(W.index)} from ${p(W.sensor)} in my field`);
}

/** Nonsense words: vocabulary no projection fitted on `texts` has seen. */
function novelTexts(n: number, seed: number): string[] {
  const r = mulberry32(seed);
  const word = () => Array.from({ length: 5 + Math.floor(r() * 4) }, () => 'bcdfghjklmnpqrstvwxz'[Math.floor(r() * 20)] + 'aeiou'[Math.floor(r() * 5)]).join('');
  return Array.from({ length: n }, () => Array.from({ length: 12 }, word).join(' '));
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, v, i) => s + v * b[i], 0);

test('symmetricEigen: A v = lambda v with orthonormal vectors, values ascending', () => {
  const n = 40;
  const r = mulberry32(3);
  const A = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = i; j < n; j++) A[i * n + j] = A[j * n + i] = r() - 0.5;
  const A0 = A.slice();
  const { values, vectors } = symmetricEigen(A, n);
  for (let c = 0; c < n; c++) {
    if (c) assert.ok(values[c - 1] <= values[c]);
    const v = vectors.subarray(c * n, (c + 1) * n);
    for (let i = 0; i < n; i++) {
      let av = 0;
      for (let j = 0; j < n; j++) av += A0[i * n + j] * v[j];
      assert.ok(Math.abs(av - values[c] * v[i]) < 1e-10, `A v != lambda v for pair ${c}`);
    }
    const w = vectors.subarray(((c + 1) % n) * n, (((c + 1) % n) + 1) * n);
    assert.ok(Math.abs(v.reduce((s, x) => s + x * x, 0) - 1) < 1e-10);
    assert.ok(Math.abs(v.reduce((s, x, i) => s + x * w[i], 0)) < 1e-10);
  }
});

test('fitPca keeps the requested energy on low-rank data, is deterministic, and declines high-rank data', () => {
  const d = 256;
  const r = mulberry32(11);
  const basis = Array.from({ length: 30 }, () => Float32Array.from({ length: d }, () => r() - 0.5));
  const low = Array.from({ length: 600 }, () => {
    const v = new Float32Array(d);
    for (const b of basis) { const c = r() - 0.5; for (let j = 0; j < d; j++) v[j] += c * b[j]; }
    for (let j = 0; j < d; j++) v[j] += 0.002 * (r() - 0.5);
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  });
  const opts = { minVectors: 100, energy: 0.99, maxDim: 64, step: 16, maxFitVectors: 1000 };
  const p = fitPca(low, d, opts)!;
  assert.ok(p, 'a rank-30 catalog gets a projection');
  assert.equal(p.outDim, 32); // 30 components hold everything; the next multiple of 16
  assert.ok(p.energy >= 0.99);
  // orthonormal columns
  for (const [a, b] of [[0, 0], [0, 1], [5, 31], [31, 31]]) {
    let s = 0;
    for (let j = 0; j < d; j++) s += p.basis[j * 32 + a] * p.basis[j * 32 + b];
    assert.ok(Math.abs(s - (a === b ? 1 : 0)) < 1e-4, `columns ${a},${b}: ${s}`);
  }
  assert.ok(low.slice(0, 20).every((v) => p.residual(v) < 0.01));
  assert.equal(fitPca(low, d, opts)!.sha256, p.sha256, 'same input, same projection');
  const iid = Array.from({ length: 600 }, () => Float32Array.from({ length: d }, () => r() - 0.5));
  assert.equal(fitPca(iid, d, opts), undefined, 'full-rank data keeps the full dimension');
  assert.equal(fitPca(low.slice(0, 99), d, opts), undefined, 'too few vectors');
});

test('two-stage search matches the exact scan (recall@10, exact scores) and survives save/load with deletes', async () => {
  const emb = new BuiltinEmbedder();
  const vecs = await emb.embed(texts(1500, 1));
  const qv = await emb.embed(queries(60, 2));
  const options = twoStageOptions({ projection: { minVectors: 500 } });
  const ix = TwoStageIndex.build(emb.dimension, vecs.map((vector, label) => ({ label, vector })), options);
  assert.ok(ix.projection, 'a 1500-vector low-rank catalog is projected');
  assert.ok(ix.graphDimension <= 256 && ix.graphDimension < emb.dimension);
  const ex = new ExactIndex(emb.dimension, 16);
  vecs.forEach((v, i) => ex.add(i, v));
  let hit = 0;
  for (const q of qv) {
    const truth = ex.search(q, 10);
    const res = ix.search(q, 10);
    assert.equal(res.length, 10);
    const ids = new Set(truth.map((x) => x.label));
    for (const x of res) {
      if (ids.has(x.label)) hit++;
      assert.ok(Math.abs(x.score - dot(vecs[x.label], q)) < 1e-5, 'scores are exact cosines');
    }
    for (let i = 1; i < res.length; i++) assert.ok(res[i - 1].score >= res[i].score);
  }
  assert.ok(hit / (10 * qv.length) >= 0.98, `recall@10 ${hit / (10 * qv.length)}`);
  for (let i = 0; i < 300; i++) { ix.remove(i); ex.remove(i); }
  ix.add(5000, vecs[0]);
  ex.add(5000, vecs[0]);
  const dir = tmpDir();
  const files = { graph: path.join(dir, 'g'), vectors: path.join(dir, 'v'), projection: path.join(dir, 'p') };
  ix.save(files);
  const back = TwoStageIndex.load(files, emb.dimension, ix.labels(), options, ix.fit, { dimension: ix.projection!.outDim, energy: ix.projection!.energy });
  assert.equal(back.size, 1201);
  assert.equal(back.projection!.sha256, ix.projection!.sha256);
  for (const q of qv.slice(0, 10)) {
    const res = back.search(q, 10);
    assert.ok(res.every((x) => x.label >= 300), 'deleted labels never come back');
    assert.deepEqual(res.map((x) => x.label), ix.search(q, 10).map((x) => x.label));
    assert.equal(res[0].label === 5000 ? 0 : res[0].label, ex.search(q, 1)[0].label === 5000 ? 0 : ex.search(q, 1)[0].label);
  }
  assert.deepEqual(back.vector(5000), vecs[0]);
  assert.throws(() => TwoStageIndex.load(files, emb.dimension, [...ix.labels(), 99999], options, ix.fit, { dimension: ix.projection!.outDim, energy: ix.projection!.energy }), /missing from the index file/);
});

test('a small catalog keeps the full-dimension graph (exact HNSW scores, no projection)', async () => {
  const emb = new BuiltinEmbedder();
  const vecs = await emb.embed(texts(200, 4));
  const ix = TwoStageIndex.build(emb.dimension, vecs.map((vector, label) => ({ label, vector })));
  assert.equal(ix.projection, undefined);
  assert.equal(ix.graphDimension, emb.dimension);
  const [q] = await emb.embed(['map flood with NDWI']);
  const res = ix.search(q, 5);
  assert.ok(Math.abs(res[0].score - dot(vecs[res[0].label], q)) < 1e-5);
});

function counting(): Embedder & { texts: number } {
  const inner = new BuiltinEmbedder();
  const e = { id: 'builtin:v1', dimension: inner.dimension, texts: 0, embed: async (t: string[]) => { e.texts += t.length; return inner.embed(t); } };
  return e;
}

function writeTools(dir: string, descriptions: string[], prefix: string): void {
  descriptions.forEach((description, i) => writeJson(path.join(dir, `${prefix}${i}.json`), { id: `${prefix}${i}`, description }));
}

test('ToolIndex: the projection persists with the index, is checked by the fingerprint, and is refitted on drift', async () => {
  const dir = tmpDir();
  const state = tmpDir();
  writeTools(dir, texts(700, 5), 'gen_');
  const load = () => loadCatalog({ noBuiltin: true, extraDirs: [dir] }).tools;
  // Unique tool ids add one rare token per tool, so this catalog keeps ~95% of its energy in a projection.
  const opts = { stateDir: state, projection: { minVectors: 300, energy: 0.9 }, params: { ef: 80 } };
  const { index } = await ToolIndex.open(load(), { ...opts, embedder: counting() });
  assert.ok(index.graphDimension < 1024, 'projected');
  const fp = JSON.parse(fs.readFileSync(path.join(state, FINGERPRINT_FILE), 'utf8'));
  assert.equal(fp.formatVersion, 2);
  assert.equal(fp.projection.method, 'pca');
  assert.equal(fp.projection.dimension, index.graphDimension);
  assert.equal(fp.projectionOptions.minVectors, 300);
  assert.ok(fs.existsSync(path.join(state, PROJECTION_FILE)) && fs.existsSync(path.join(state, VECTORS_FILE)));
  const emb = counting();
  const [q] = await emb.embed(['detect flood with NDWI from Sentinel-2']);
  const before = [...index.search(q, 10)];

  // round trip: no re-embedding, same projection, same results
  const emb2 = counting();
  const again = await ToolIndex.open(load(), { ...opts, embedder: emb2 });
  assert.equal(again.update.rebuilt, false);
  assert.equal(emb2.texts, 0);
  assert.equal(again.index.graphDimension, index.graphDimension);
  assert.deepEqual([...again.index.search(q, 10)], before);
  assert.equal(again.index.score(q, before[0][0]), before[0][1]);

  // other projection options: rebuild
  const sink = logSink();
  const other = await ToolIndex.open(load(), { ...opts, projection: { minVectors: 300, energy: 0.85 }, embedder: counting(), log: sink.log });
  assert.equal(other.update.rebuilt, true);
  assert.ok(sink.warnings().some((w) => /projection parameters changed/.test(w)), sink.warnings().join('\n'));
  const fp2 = JSON.parse(fs.readFileSync(path.join(state, FINGERPRINT_FILE), 'utf8'));
  assert.equal(fp2.projectionOptions.energy, 0.85);

  // a tampered projection file: rebuild
  fs.appendFileSync(path.join(state, PROJECTION_FILE), Buffer.alloc(8));
  const sink3 = logSink();
  const r3 = await ToolIndex.open(load(), { ...opts, embedder: counting(), log: sink3.log });
  assert.equal(r3.update.rebuilt, true);
  assert.ok(sink3.warnings().some((w) => /projection parameters changed|projection file corrupt/.test(w)), sink3.warnings().join('\n'));
  const r4 = await ToolIndex.open(load(), { ...opts, embedder: counting() });
  assert.equal(r4.update.rebuilt, false);
  fs.appendFileSync(path.join(state, PROJECTION_FILE), Buffer.alloc(8));
  const sink4 = logSink();
  const r5 = await ToolIndex.open(load(), { ...opts, embedder: counting(), log: sink4.log });
  assert.equal(r5.update.rebuilt, true);
  assert.ok(sink4.warnings().some((w) => /projection file corrupt/.test(w)), sink4.warnings().join('\n'));

  // drift: many tools with vocabulary the projection never saw trigger a refit from stored vectors
  writeTools(dir, novelTexts(80, 6), 'novel_');
  const emb6 = counting();
  const r6 = await ToolIndex.open(load(), { ...opts, embedder: emb6 });
  assert.equal(r6.update.rebuilt, false);
  assert.equal(r6.update.added.length, 80);
  assert.equal(emb6.texts, 80, 'only the new tools are embedded');
  assert.match(r6.update.refit ?? '', /added since the projection was fitted/);
  const fp6 = JSON.parse(fs.readFileSync(path.join(state, FINGERPRINT_FILE), 'utf8'));
  assert.equal(fp6.fit.vectors, 780);
  const novel = fs.readFileSync(path.join(dir, 'novel_3.json'), 'utf8');
  const [qn] = await emb.embed([JSON.parse(novel).description]);
  assert.equal([...r6.index.search(qn, 1).keys()][0], 'novel_3');
});
