/**
 * A learned reranker over the next-step score parts: gradient-boosted regression trees (LambdaMART)
 * that start from the fitted linear fusion and correct it, on the best few candidates only. A weighted
 * sum gives each part one weight whatever the rest say; the trees can say "the transition counts
 * less when the flows of similar tasks disagree with it" or "a step still ahead by a wide margin is
 * the next one". Fitted out of fold like the weights, on flows only; a catalog with too few flows,
 * or whose held-out flows the trees do not help, keeps the linear fusion alone.
 *
 * Pure: it sees columns of part values and which candidate was right, never a tool id.
 */
import type { FitQuery } from './fit';

/** Candidates a model reranks: the best this many by the linear score (the panel shows 5–10). */
export const TREE_TOP = 20;
const DEPTH = 3;
const MAX_TREES = 100;
const RATE = 0.1;
/** L2 on leaf values and the least hessian a side of a split needs (guards splits on a handful of rows). */
const LAMBDA = 1;
const MIN_HESSIAN = 1;
/** Split thresholds per feature: quantiles of its values in the training rows. */
const BINS = 32;

export interface TreeModel {
  /** The parts the features are made of, in order; a model made for other parts is not used. */
  parts: string[];
  top: number;
  depth: number;
  /** Per tree: the split feature and threshold of each inner node (level order; feature −1 sends all left) and the leaf values. */
  trees: { f: number[]; v: number[]; leaf: number[] }[];
}

/**
 * The features of a query's candidates (the best `top` by the linear score `s0`, in that order): each
 * part, the linear score, each of these minus its best value among the candidates (how far behind
 * the leader a candidate is on it), and its rank. Returned column-wise.
 */
export function treeFeatures(cols: ArrayLike<number>[], s0: ArrayLike<number>): Float64Array[] {
  const m = s0.length;
  const out: Float64Array[] = [];
  const raw = [...cols, s0];
  for (const c of raw) out.push(Float64Array.from({ length: m }, (_, i) => c[i]));
  for (const c of raw) {
    let mx = -Infinity;
    for (let i = 0; i < m; i++) if (c[i] > mx) mx = c[i];
    out.push(Float64Array.from({ length: m }, (_, i) => c[i] - mx));
  }
  // s0 arrives best first, so the rank is the position.
  out.push(Float64Array.from({ length: m }, (_, i) => i));
  return out;
}

/** The trees' correction of each candidate's score (add it to the linear score). */
export function treeAdjust(model: TreeModel, cols: ArrayLike<number>[], s0: ArrayLike<number>): Float64Array {
  const X = treeFeatures(cols, s0);
  const adj = new Float64Array(s0.length);
  for (const t of model.trees) addTree(t, model.depth, X, adj);
  return adj;
}

/** A training query: the features of its best candidates, which one was right, and the flow it came from. */
interface Rows { X: Float64Array[]; s0: Float64Array; rel: Uint8Array }

/** The best `top` candidates of a fit query under `weights`, their linear scores and features (the right one kept if below). */
export function queryRows(q: FitQuery, weights: number[], top = TREE_TOP): Rows & { any: boolean } {
  const s = new Float64Array(q.n);
  q.cols.forEach((c, f) => { if (weights[f]) for (let i = 0; i < q.n; i++) s[i] += weights[f] * c[i]; });
  const idx = Array.from({ length: q.n }, (_, i) => i).sort((a, b) => s[b] - s[a] || q.order[a] - q.order[b]);
  const keep = idx.slice(0, top);
  const rel = new Set(q.relevant);
  const s0 = Float64Array.from(keep, (i) => s[i]);
  const cols = q.cols.map((c) => Float64Array.from(keep, (i) => c[i]));
  return { X: treeFeatures(cols, s0), s0, rel: Uint8Array.from(keep, (i) => (rel.has(i) ? 1 : 0)), any: keep.some((i) => rel.has(i)) };
}

/** hit@1 + hit@3 + ½ MRR over queries whose scores are given (the next-step objective of the fit). */
function objective(qs: Rows[], score: (k: number) => ArrayLike<number>): number {
  let total = 0;
  qs.forEach((q, k) => {
    const s = score(k);
    let rank = -1;
    for (let i = 0; i < q.rel.length; i++) if (q.rel[i]) {
      let r = 0;
      for (let j = 0; j < q.rel.length; j++) if (s[j] > s[i] || (s[j] === s[i] && j < i)) r++;
      if (rank < 0 || r < rank) rank = r;
    }
    if (rank >= 0) total += (rank < 1 ? 1 : 0) + (rank < 3 ? 1 : 0) + 0.5 / (rank + 1);
  });
  return total / Math.max(1, qs.length);
}

const disc = (r: number) => 1 / Math.log2(2 + r);

export interface TreeFit {
  model?: TreeModel;
  /** Held-out objective (hit@1 + hit@3 + ½ MRR) of the linear fusion and with the trees. */
  before: number;
  after: number;
  trees: number;
}

/**
 * Boosts trees on `train` (LambdaMART: pairwise logistic gradients weighted by the NDCG a swap would
 * change, Newton leaf values, histogram splits) and keeps as many as do best on `held` (none when
 * none beats the linear fusion there by at least one held-out query's worth).
 */
export function fitTrees(train: Rows[], held: Rows[], parts: string[], opts: { signal?: AbortSignal } = {}): TreeFit {
  const base = objective(held, (k) => held[k].s0);
  if (!train.length || !held.length) return { before: base, after: base, trees: 0 };
  const F = train[0].X.length;
  const off = new Int32Array(train.length + 1);
  train.forEach((q, k) => { off[k + 1] = off[k] + q.s0.length; });
  const N = off[train.length];
  // Thresholds: distinct quantiles of each feature's training values; a feature with one value has none.
  const col = (f: number) => { const a = new Float64Array(N); train.forEach((q, k) => a.set(q.X[f], off[k])); return a; };
  const thr: Float64Array[] = [];
  const bins: Uint8Array[] = [];
  for (let f = 0; f < F; f++) {
    const a = col(f);
    const sorted = Float64Array.from(a).sort();
    const t: number[] = [];
    for (let b = 1; b < BINS; b++) {
      const v = sorted[Math.floor((b * N) / BINS)];
      if (v < sorted[N - 1] && (!t.length || v > t[t.length - 1])) t.push(v);
    }
    // A split at threshold b sends values > t[b] right; so a value's bin is the number of thresholds below it.
    const th = Float64Array.from(t);
    thr.push(th);
    const bf = new Uint8Array(N);
    for (let i = 0; i < N; i++) { let lo = 0, hi = th.length; const v = a[i]; while (lo < hi) { const mid = (lo + hi) >> 1; if (v > th[mid]) lo = mid + 1; else hi = mid; } bf[i] = lo; }
    bins.push(bf);
  }
  const useful = Array.from({ length: F }, (_, f) => f).filter((f) => thr[f].length > 0);
  const score = new Float64Array(N);
  train.forEach((q, k) => score.set(q.s0, off[k]));
  const lam = new Float64Array(N), hes = new Float64Array(N);
  const node = new Int32Array(N);
  const trees: TreeModel['trees'] = [];
  const B = BINS + 1;
  for (let t = 0; t < MAX_TREES; t++) {
    opts.signal?.throwIfAborted();
    lam.fill(0); hes.fill(0);
    train.forEach((q, k) => {
      const o = off[k], m = q.s0.length;
      const idx = Array.from({ length: m }, (_, i) => i).sort((a, b) => score[o + b] - score[o + a] || a - b);
      const rk = new Int32Array(m);
      idx.forEach((i, r) => { rk[i] = r; });
      let nrel = 0;
      for (let i = 0; i < m; i++) nrel += q.rel[i];
      let idcg = 0;
      for (let r = 0; r < nrel; r++) idcg += disc(r);
      for (let i = 0; i < m; i++) if (q.rel[i]) for (let j = 0; j < m; j++) if (!q.rel[j]) {
        const dn = Math.abs(disc(rk[i]) - disc(rk[j])) / idcg;
        const rho = 1 / (1 + Math.exp(score[o + i] - score[o + j]));
        lam[o + i] += rho * dn; lam[o + j] -= rho * dn;
        const h = rho * (1 - rho) * dn;
        hes[o + i] += h; hes[o + j] += h;
      }
    });
    node.fill(0);
    const f: number[] = [], v: number[] = [];
    for (let d = 0, nodes = 1; d < DEPTH; d++, nodes *= 2) {
      const G = new Float64Array(nodes * F * B), H = new Float64Array(nodes * F * B);
      const Gt = new Float64Array(nodes), Ht = new Float64Array(nodes);
      for (let i = 0; i < N; i++) { Gt[node[i]] += lam[i]; Ht[node[i]] += hes[i]; }
      for (const g of useful) {
        const bf = bins[g];
        for (let i = 0; i < N; i++) { const p = (node[i] * F + g) * B + bf[i]; G[p] += lam[i]; H[p] += hes[i]; }
      }
      const split: { f: number; b: number }[] = [];
      for (let nd = 0; nd < nodes; nd++) {
        let best = { gain: 1e-9, f: -1, b: -1 };
        const gt = Gt[nd], ht = Ht[nd];
        for (const g of useful) {
          let gl = 0, hl = 0;
          for (let b = 0; b < thr[g].length; b++) {
            gl += G[(nd * F + g) * B + b]; hl += H[(nd * F + g) * B + b];
            const gr = gt - gl, hr = ht - hl;
            if (hl < MIN_HESSIAN || hr < MIN_HESSIAN) continue;
            const gain = (gl * gl) / (hl + LAMBDA) + (gr * gr) / (hr + LAMBDA) - (gt * gt) / (ht + LAMBDA);
            if (gain > best.gain) best = { gain, f: g, b };
          }
        }
        split.push(best);
        f.push(best.f);
        v.push(best.f >= 0 ? thr[best.f][best.b] : 0);
      }
      for (let i = 0; i < N; i++) { const s = split[node[i]]; node[i] = node[i] * 2 + (s.f >= 0 && bins[s.f][i] > s.b ? 1 : 0); }
    }
    const leaves = 1 << DEPTH;
    const Gl = new Float64Array(leaves), Hl = new Float64Array(leaves);
    for (let i = 0; i < N; i++) { Gl[node[i]] += lam[i]; Hl[node[i]] += hes[i]; }
    const leaf = Array.from(Gl, (g, i) => round6((RATE * g) / (Hl[i] + LAMBDA)));
    for (let i = 0; i < N; i++) score[i] += leaf[node[i]];
    trees.push({ f, v, leaf });
  }
  // As many trees as do best on the held-out flows.
  const model = (n: number): TreeModel => ({ parts, top: TREE_TOP, depth: DEPTH, trees: trees.slice(0, n) });
  const heldScore = held.map((q) => Float64Array.from(q.s0));
  let best = { n: 0, obj: base };
  for (let n = 1; n <= trees.length; n++) {
    held.forEach((q, k) => addTree(trees[n - 1], DEPTH, q.X, heldScore[k]));
    if (n % 5 === 0 || n === trees.length) {
      const obj = objective(held, (k) => heldScore[k]);
      if (obj > best.obj) best = { n, obj };
    }
  }
  const enough = best.obj - base >= 1 / held.length;
  return enough ? { model: model(best.n), before: base, after: best.obj, trees: best.n } : { before: base, after: base, trees: 0 };
}

/** Adds one tree's leaf value to each candidate's score (inner nodes in level order; feature −1 sends all left). */
function addTree(t: TreeModel['trees'][number], depth: number, X: Float64Array[], into: Float64Array): void {
  for (let i = 0; i < into.length; i++) {
    let nd = 0;
    for (let d = 0; d < depth; d++) {
      const at = (1 << d) - 1 + nd;
      nd = nd * 2 + (t.f[at] >= 0 && X[t.f[at]][i] > t.v[at] ? 1 : 0);
    }
    into[i] += t.leaf[nd];
  }
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** Checks a stored model's shape (a fusion file is read from disk); throws naming the field. */
export function checkTreeModel(o: unknown, where: string): TreeModel {
  const m = o as TreeModel;
  const fail = (what: string) => { throw new Error(`${where}: ${what}`); };
  if (!m || typeof m !== 'object') fail('must be an object');
  if (!Array.isArray(m.parts) || m.parts.some((p) => typeof p !== 'string')) fail('"parts" must be a list of part names');
  if (!Number.isInteger(m.top) || m.top < 1 || m.top > 1000) fail('"top" must be a whole number from 1 to 1000');
  if (!Number.isInteger(m.depth) || m.depth < 1 || m.depth > 8) fail('"depth" must be a whole number from 1 to 8');
  if (!Array.isArray(m.trees) || m.trees.length > 10000) fail('"trees" must be a list');
  const F = m.parts.length * 2 + 3;
  const inner = (1 << m.depth) - 1;
  m.trees.forEach((t, i) => {
    const ok = t && Array.isArray(t.f) && Array.isArray(t.v) && Array.isArray(t.leaf) && t.f.length === inner && t.v.length === inner && t.leaf.length === inner + 1
      && t.f.every((f) => Number.isInteger(f) && f >= -1 && f < F) && [...t.v, ...t.leaf].every((x) => typeof x === 'number' && Number.isFinite(x));
    if (!ok) fail(`"trees[${i}]" must have ${inner} splits (feature −1…${F - 1}, finite thresholds) and ${inner + 1} finite leaf values`);
  });
  return m;
}
