/**
 * Retrieval benchmark: suggest latency on the builtin catalog and on a crowded team catalog (566
 * tools), and the product's two-stage index
 * (the class and options ToolIndex uses) against an exact scan on synthetic catalogs of 1k and 10k
 * manifest-like tools embedded by the builtin embedder.
 * Also the fusion fit's time for a long history: 1000 flows of a long-pipeline team (the issue allows
 * a minute), beside the builtin practice fit measured in the same run.
 * Run with `npm run bench:retrieval` (`sweep`, `highrank`, `suggest` and `fit` select other runs).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { performance } from 'perf_hooks';
import { GeoWeave } from '../src/core/geoweave';
import { BuiltinEmbedder } from '../src/core/embed/builtin';
import { ExactIndex, topK } from '../src/core/index/exact';
import { TwoStageIndex, twoStageOptions } from '../src/core/index/two-stage';
import type { TwoStageOptions } from '../src/core/index/two-stage';
import type { HnswParams, Neighbor } from '../src/core/index/vector-index';
import type { ProjectionOptions } from '../src/core/index/projection';
import { loadCatalog } from '../src/core/manifests/load';
import { allTexts } from '../src/core/index/text';
import { mulberry32 as rng } from '../src/core/raster/algorithms/prng';
import { readTasks } from '../src/core/eval/tasks';
import { crowdedChecks, foreignChecks } from './foreign';

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

const V = {
  verb: ['compute', 'map', 'detect', 'estimate', 'classify', 'extract', 'quantify', 'monitor', 'derive', 'segment', 'mask', 'aggregate', 'interpolate', 'smooth', 'correct', 'export', 'compare', 'fuse'],
  index: ['NDVI', 'EVI', 'SAVI', 'NDWI', 'MNDWI', 'NDBI', 'NBR', 'NDMI', 'NDSI', 'NDCI', 'NDTI', 'GNDVI', 'MSAVI', 'LAI', 'albedo', 'LST', 'backscatter', 'coherence', 'brightness', 'wetness'],
  target: ['vegetation', 'cropland', 'forest', 'wetland', 'surface water', 'flood', 'burn scar', 'built-up area', 'snow cover', 'glacier', 'soil moisture', 'chlorophyll', 'turbidity', 'cloud', 'shadow', 'road network', 'coastline', 'mangrove', 'rice paddy', 'orchard', 'grassland', 'landslide', 'erosion', 'drought'],
  sensor: ['Sentinel-2', 'Landsat 8', 'Landsat 9', 'Sentinel-1 SAR', 'MODIS', 'PlanetScope', 'NAIP', 'SPOT', 'Gaofen-1', 'WorldView', 'a drone orthomosaic', 'a DEM', 'ASTER', 'VIIRS'],
  method: ['thresholding', 'random forest', 'k-means clustering', 'Otsu split', 'band ratio', 'spectral unmixing', 'time-series regression', 'change vector analysis', 'zonal statistics', 'morphological filtering', 'object-based segmentation', 'harmonic fitting', 'principal components', 'gradient boosting'],
  output: ['a float32 raster', 'a 1/0 mask', 'a class map', 'a CSV table', 'GeoJSON polygons', 'a per-pixel trend', 'a PNG quicklook', 'a cloud-optimised GeoTIFF', 'summary statistics', 'a probability map'],
  scenario: ['precision agriculture', 'wildfire response', 'flood emergency', 'urban planning', 'forest inventory', 'water quality screening', 'drought monitoring', 'coastal management', 'mining impact', 'insurance claims', 'biodiversity reporting', 'disaster damage'],
  region: ['field', 'watershed', 'city district', 'county', 'river basin', 'national park', 'farm', 'catchment', 'delta', 'plateau'],
};

function pick<T>(r: () => number, xs: T[]): T {
  return xs[Math.floor(r() * xs.length)];
}

function syntheticTool(r: () => number): string {
  const name = `${pick(r, V.index)} ${pick(r, V.target)} ${pick(r, V.method)}`;
  return [
    `${name}.`,
    `${pick(r, V.verb)}s ${pick(r, V.target)} from ${pick(r, V.sensor)} using ${pick(r, V.method)} on ${pick(r, V.index)} and returns ${pick(r, V.output)}.`,
    `Typical use: ${pick(r, V.scenario)} over a ${pick(r, V.region)}.`,
    `Tags: ${pick(r, V.target)}, ${pick(r, V.index)}, ${pick(r, V.scenario)}.`,
  ].join(' ');
}

function syntheticQuery(r: () => number): string {
  return `${pick(r, V.verb)} ${pick(r, V.target)} with ${pick(r, V.index)} from ${pick(r, V.sensor)} for ${pick(r, V.scenario)} in my ${pick(r, V.region)}`;
}

async function suggestLatency(): Promise<{ suggest: number; next: number }> {
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'geoweave-bench-'));
  const gw = await GeoWeave.open({ stateDir: state });
  const queries: string[] = [];
  for (const t of gw.tools) for (const e of t.manifest.examples ?? []) queries.push(e);
  const r = rng(7);
  const sample = Array.from({ length: 300 }, () => pick(r, queries));
  for (const q of sample.slice(0, 30)) await gw.forwardCandidates(q, { k: 10 }); // warm-up (JIT)
  // Measure cold queries too: clear the query-embedding cache by using distinct strings.
  const times: number[] = [];
  for (let i = 0; i < sample.length; i++) {
    const q = `${sample[i]} #${i}`;
    const t0 = performance.now();
    await gw.forwardCandidates(q, { k: 10 });
    times.push(performance.now() - t0);
  }
  console.log(`suggest on the builtin catalog (${gw.tools.length} tools, ${sample.length} queries, k=10)`);
  console.log(`  p50 ${pct(times, 50).toFixed(2)} ms   p99 ${pct(times, 99).toFixed(2)} ms   (target p50 <= 5 ms)`);
  // Next-step suggestions after one step (backward: six queries, the forward ranking, graph,
  // learned transitions and the similar-task cases of the shipped practice), on distinct tasks.
  const stepTimes: number[] = [];
  const firsts = ['ndvi', 'mndwi', 'dnbr', 'land_surface_temperature', 'slope', 'cloud_mask'];
  for (let i = 0; i < 120; i++) {
    const memory = { task: `${sample[i]} #n${i}`, windowSize: 5, trace: [{ tool: firsts[i % firsts.length], argSummary: '', resultSummary: '', outputs: [], ok: true, time: '' }] };
    const t0 = performance.now();
    await gw.complementarySuggestions(memory, { k: 10 });
    if (i >= 20) stepTimes.push(performance.now() - t0); // the first 20 warm up
  }
  console.log(`next-step suggestions after one step (${stepTimes.length} tasks, k=10, ${gw.stats().practiceTransitions} practice transitions)`);
  console.log(`  p50 ${pct(stepTimes, 50).toFixed(2)} ms   p99 ${pct(stepTimes, 99).toFixed(2)} ms`);
  // The builtin embedder alone, on a 30-word mixed English/Chinese query (was a timed unit test).
  const emb = new BuiltinEmbedder().fit(gw.tools.flatMap((t) => allTexts(t.manifest)));
  const q30 = 'compute the NDVI vegetation index for every crop field in the Sentinel-2 scene and summarise the mean value per parcel over the growing season then export a map of the 植被指数 trend';
  for (let i = 0; i < 200; i++) emb.embedOne(q30 + i);
  const e0 = performance.now();
  for (let i = 0; i < 2000; i++) emb.embedOne(q30 + i);
  console.log(`  builtin embedding of a 30-word query: ${((performance.now() - e0) / 2000).toFixed(3)} ms`);
  await gw.dispose();
  fs.rmSync(state, { recursive: true, force: true });
  return { suggest: pct(times, 50), next: pct(stepTimes, 50) };
}

/**
 * The same on a crowded team catalog: the flood-risk team's tools among every foreign catalog's
 * (566 tools, past WHOLE_CATALOG, so the forward ranking scores a candidate pool) with its 250
 * training flows learned, asked its test tasks; next steps after the first three steps of their
 * flows. Printed as ratios to the builtin catalog's p50 of the same run.
 */
async function crowdedLatency(ref: { suggest: number; next: number }): Promise<void> {
  const root = path.resolve(__dirname, '..', '..');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'geoweave-bench-crowded-'));
  const team = path.join(root, 'bench', 'foreign', 'floodrisk');
  const [check] = crowdedChecks(foreignChecks(path.join(root, 'bench', 'foreign')), dir).filter((c) => c.train === path.join(team, 'train.jsonl'));
  const gw = await GeoWeave.open({ noBuiltin: true, extraManifestDirs: [check.manifests], stateDir: path.join(dir, 'state'), learnedDir: path.join(dir, 'learned'), practice: false });
  const flows = readTasks(check.train);
  await gw.recordTrajectories(flows.map((t) => ({ task: t.query, tools: t.flow })));
  const tests = readTasks(check.test);
  for (const t of tests.slice(0, 30)) await gw.forwardCandidates(`${t.query} #w`, { k: 10 }); // warm-up (JIT)
  const times: number[] = [];
  for (const t of tests.slice(0, 300)) {
    const t0 = performance.now();
    await gw.forwardCandidates(t.query, { k: 10 });
    times.push(performance.now() - t0);
  }
  const stepTimes: number[] = [];
  for (const [i, t] of tests.slice(0, 120).entries()) {
    const trace = t.flow.slice(0, 3).map((tool) => ({ tool, argSummary: '', resultSummary: '', outputs: [], ok: true, time: '' }));
    const t0 = performance.now();
    await gw.complementarySuggestions({ task: t.query, windowSize: 5, trace }, { k: 10 });
    if (i >= 20) stepTimes.push(performance.now() - t0);
  }
  const s = pct(times, 50);
  const n = pct(stepTimes, 50);
  console.log(`suggest on a crowded team catalog (${gw.tools.length} tools, ${flows.length} flows learned, ${times.length} tasks, k=10)`);
  console.log(`  p50 ${s.toFixed(2)} ms (${(s / ref.suggest).toFixed(2)}x the builtin catalog's)   p99 ${pct(times, 99).toFixed(2)} ms`);
  console.log(`next-step suggestions after three steps (${stepTimes.length} tasks, k=10)`);
  console.log(`  p50 ${n.toFixed(2)} ms (${(n / ref.next).toFixed(2)}x the builtin catalog's)   p99 ${pct(stepTimes, 99).toFixed(2)} ms`);
  await gw.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * Fits the fusion on 1000 flows of the flood-risk team (10.9 steps each: its 750 training and test
 * flows, then the first 250 asked again, as a team's history repeats its pipelines), and on the
 * builtin catalog's 888 practice flows as the reference of the same run.
 */
async function fitTime(): Promise<void> {
  const root = path.resolve(__dirname, '..', '..');
  const fr = path.join(root, 'bench', 'foreign', 'floodrisk');
  const base = [...readTasks(path.join(fr, 'train.jsonl')), ...readTasks(path.join(fr, 'test.jsonl'))];
  const flows = [...base, ...base.slice(0, 1000 - base.length).map((t) => ({ ...t, id: `${t.id}-again` }))];
  const timed = async (opts: Omit<Parameters<typeof GeoWeave.open>[0], 'stateDir'>, tasks?: ReturnType<typeof readTasks>) => {
    const state = fs.mkdtempSync(path.join(os.tmpdir(), 'geoweave-bench-fit-'));
    const gw = await GeoWeave.open({ ...opts, stateDir: state, onProgress: () => undefined });
    try {
      const t0 = performance.now();
      const f = await gw.fitFusion(tasks ?? readTasks(path.join(root, 'tool-manifests', 'practice.jsonl')));
      return { s: (performance.now() - t0) / 1000, report: f.report };
    } finally {
      await gw.dispose();
      fs.rmSync(state, { recursive: true, force: true });
    }
  };
  const builtin = await timed({});
  const long = await timed({ noBuiltin: true, extraManifestDirs: [path.join(fr, 'manifests')], practice: false }, flows);
  const steps = flows.reduce((a, t) => a + t.flow.length - 1, 0);
  console.log(`fusion fit`);
  console.log(`  builtin practice (${builtin.report?.flows} flows, ${builtin.report?.steps} steps): ${builtin.s.toFixed(1)} s`);
  console.log(`  flood risk, ${flows.length} flows (${steps} steps, ${long.report?.steps} scored): ${long.s.toFixed(1)} s = ${(long.s / builtin.s).toFixed(2)}x the builtin fit, ${(long.s / 60).toFixed(2)} of the minute allowed`);
}

/** A catalog with the effective rank of real manifests: tools recombined from phrases of the builtin manifests, queried with the real task queries. */
function highRankCatalog(n: number): { texts: string[]; queries: string[] } {
  const r = rng(5);
  const texts0 = loadCatalog({}).tools.flatMap((t) => allTexts(t.manifest));
  const phrases = [...new Set(texts0.flatMap((s) => s.split(/[.;,，。]\s*/)).map((s) => s.trim()).filter((s) => s.length > 8))];
  const words = [...new Set(phrases.flatMap((p) => p.split(/\s+/)))];
  const texts = Array.from({ length: n }, () => {
    const ps = Array.from({ length: 3 + Math.floor(r() * 3) }, () => pick(r, phrases));
    return `${ps.join('. ')}. ${Array.from({ length: 4 }, () => pick(r, words)).join(' ')}`;
  });
  const queries = fs.readFileSync(path.join(__dirname, '..', '..', 'bench', 'tasks.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l).query as string);
  return { texts, queries };
}

/**
 * A second exact reference that exploits what the builtin embedder's query vectors are: mostly
 * zeros. It visits only the query's non-zeros in every row, so it is the strongest plain-JS exact
 * scan for these vectors (dense embedders get no such shortcut). Printed beside the dense scan.
 */
function sparseExactScan(matrix: Float32Array, labels: number[], d: number, q: Float32Array, k: number): Neighbor[] {
  const idx: number[] = [];
  const val: number[] = [];
  for (let j = 0; j < d; j++) if (q[j] !== 0) { idx.push(j); val.push(q[j]); }
  const scores = new Float32Array(labels.length);
  for (let i = 0; i < labels.length; i++) {
    const off = i * d;
    let s = 0;
    for (let j = 0; j < idx.length; j++) s += matrix[off + idx[j]] * val[j];
    scores[i] = s;
  }
  return topK(scores, labels, k);
}

interface Opts { hnsw?: Partial<HnswParams>; projection?: Partial<ProjectionOptions>; candidates?: number }

async function annVsExact(n: number, o: Opts, efs: number[], kind: 'synthetic' | 'highrank' = 'synthetic'): Promise<void> {
  let texts: string[];
  let queries: string[];
  if (kind === 'synthetic') {
    const r = rng(1000 + n);
    texts = Array.from({ length: n }, () => syntheticTool(r));
    queries = Array.from({ length: 300 }, () => syntheticQuery(r));
  } else {
    ({ texts, queries } = highRankCatalog(n));
  }
  const emb = new BuiltinEmbedder().fit(texts);
  let t0 = performance.now();
  const vecs = await emb.embed(texts);
  const qv = await emb.embed(queries);
  const embedMs = performance.now() - t0;
  const options: TwoStageOptions = twoStageOptions(o);
  t0 = performance.now();
  const index = TwoStageIndex.build(emb.dimension, vecs.map((vector, label) => ({ label, vector })), options);
  const buildMs = performance.now() - t0;
  const exact = new ExactIndex(emb.dimension, n);
  vecs.forEach((v, i) => exact.add(i, v));
  const truth = qv.map((q) => exact.search(q, 10));
  const matrix = new Float32Array(n * emb.dimension);
  vecs.forEach((v, i) => matrix.set(v, i * emb.dimension));
  const labels = vecs.map((_, i) => i);
  const p = index.projection;
  const stage = p ? `PCA ${emb.dimension} -> ${p.outDim} dims (keeps ${(p.energy * 100).toFixed(2)}% of the energy), ${options.candidates} candidates re-ranked exactly` : 'no projection (full-dimension graph)';
  console.log(`\n${kind} catalog: ${n} tools x ${emb.dimension} dims, ${qv.length} queries (embed ${(embedMs / 1000).toFixed(1)} s, index build ${(buildMs / 1000).toFixed(1)} s)`);
  console.log(`  index: ${stage}; HNSW M=${options.hnsw.M} efConstruction=${options.hnsw.efConstruction}`);
  const rows: { ef: number; speedup: number; sparseSpeedup: number; recall: number }[] = [];
  for (const ef of efs) {
    index.setEf(ef);
    for (const q of qv.slice(0, 20)) { exact.search(q, 10); index.search(q, 10); } // warm-up
    // Exact and the index alternate query by query, so machine load hits both alike.
    const tE: number[] = [];
    const tS: number[] = [];
    const tH: number[] = [];
    let hit = 0;
    qv.forEach((q, i) => {
      let s = performance.now();
      exact.search(q, 10);
      tE.push(performance.now() - s);
      s = performance.now();
      sparseExactScan(matrix, labels, emb.dimension, q, 10);
      tS.push(performance.now() - s);
      s = performance.now();
      const res = index.search(q, 10);
      tH.push(performance.now() - s);
      const ids = new Set(truth[i].map((x) => x.label));
      for (const x of res) if (ids.has(x.label)) hit++;
    });
    const recall = hit / (10 * qv.length);
    const speedup = pct(tE, 50) / pct(tH, 50);
    const sparseSpeedup = pct(tS, 50) / pct(tH, 50);
    rows.push({ ef, speedup, sparseSpeedup, recall });
    console.log(`  ef=${String(ef).padEnd(4)} index p50 ${pct(tH, 50).toFixed(3)} ms p99 ${pct(tH, 99).toFixed(3)} ms | exact p50 ${pct(tE, 50).toFixed(3)} ms | recall@10 ${recall.toFixed(4)} | ${speedup.toFixed(1)}x faster | sparse-query exact p50 ${pct(tS, 50).toFixed(3)} ms: ${sparseSpeedup.toFixed(1)}x`);
  }
  const product = rows.find((r) => r.ef === options.hnsw.ef);
  if (product) console.log(`  => product setting ef=${product.ef}: recall@10 ${product.recall.toFixed(4)}, ${product.speedup.toFixed(1)}x faster than the exact scan (targets at 10k: >= 0.98 and >= 20x); ${product.sparseSpeedup.toFixed(1)}x faster than the sparse-query exact scan`);
}

async function main(): Promise<void> {
  const only = process.argv[2];
  if (only === 'sweep') {
    for (const M of [16, 24, 32]) for (const efConstruction of [200, 400]) await annVsExact(10000, { hnsw: { M, efConstruction } }, [48, 64, 96, 128]);
    for (const candidates of [40, 160]) await annVsExact(10000, { candidates }, [48, 64, 96, 128]);
    await annVsExact(10000, { projection: { maxDim: 0 } }, [48, 64, 96, 128]); // the one-stage full-dimension graph, for comparison
    return;
  }
  if (only === 'highrank') {
    await annVsExact(10000, {}, [64, 96, 128]);
    await annVsExact(10000, {}, [64, 96, 128], 'highrank');
    return;
  }
  if (only === 'fit') return fitTime();
  await crowdedLatency(await suggestLatency());
  if (only === 'suggest') return;
  await fitTime();
  // The product's options (DEFAULT_TWO_STAGE, as ToolIndex uses them); efs around the default ef.
  const efs = [48, 64, 96, 128];
  await annVsExact(1000, {}, efs);
  await annVsExact(10000, {}, efs);
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
