/**
 * Random forest classifier (Breiman 2001): CART trees grown on bootstrap samples with the Gini
 * impurity, `mtry` features drawn per split (default ⌊√F⌋), thresholds at midpoints between
 * consecutive distinct values (as scikit-learn), prediction by majority vote of the trees (ties to
 * the lowest class). A seeded PRNG (mulberry32) makes a fit deterministic.
 *
 * Growing uses per-feature presorted slot orders partitioned stably at each split, so a level costs
 * O(F·n) rather than a sort per node. When none of the drawn features can split a node (all constant
 * there) the remaining features are tried, as scikit-learn does, so fully grown trees end in pure
 * leaves unless two samples share every feature value but not the class.
 */
import { mulberry32 } from './prng';

export interface ForestOptions {
  nTrees: number;
  /** Features tried per split; default ⌊√F⌋ (at least 1). */
  mtry?: number;
  /** 0 = grow until pure. */
  maxDepth?: number;
  minSamplesLeaf?: number;
  bootstrap?: boolean;
  seed: number;
  signal?: AbortSignal;
  onTree?: (done: number) => void;
}

/** One tree in flat arrays: node k splits on feature[k] at threshold[k] (x ≤ t goes left), or is a leaf (feature −1) of class value[k]. */
export interface Tree { feature: Int32Array; threshold: Float64Array; left: Int32Array; right: Int32Array; value: Int32Array }

export interface Forest {
  trees: Tree[];
  nFeatures: number;
  nClasses: number;
  mtry: number;
  /** Out-of-bag accuracy (samples never in a tree's bootstrap voted on by those trees); null without bootstrap. */
  oobAccuracy: number | null;
  oobSamples: number;
}

/** Class index a tree gives the feature vector `x(f)`. */
export function predictTree(t: Tree, x: (f: number) => number): number {
  let k = 0;
  while (t.feature[k] >= 0) k = x(t.feature[k]) <= t.threshold[k] ? t.left[k] : t.right[k];
  return t.value[k];
}

/** Majority vote (ties to the lowest class index) of the trees for each of n samples given by columns X[f]. */
export function predictForest(forest: Forest, X: ArrayLike<number>[], n: number, signal?: AbortSignal): Int32Array {
  const out = new Int32Array(n);
  const votes = new Int32Array(forest.nClasses);
  for (let i = 0; i < n; i++) {
    if ((i & 0xffff) === 0 && signal?.aborted) throw signal.reason instanceof Error ? signal.reason : new Error('aborted');
    votes.fill(0);
    for (const t of forest.trees) {
      let k = 0;
      while (t.feature[k] >= 0) k = X[t.feature[k]][i] <= t.threshold[k] ? t.left[k] : t.right[k];
      votes[t.value[k]]++;
    }
    let best = 0;
    for (let c = 1; c < votes.length; c++) if (votes[c] > votes[best]) best = c;
    out[i] = best;
  }
  return out;
}

/** Fits a forest on columns X[f] (length n, finite) and class indices y (0..nClasses−1). */
export function trainForest(X: ArrayLike<number>[], y: Int32Array, nClasses: number, o: ForestOptions): Forest {
  const F = X.length, n = y.length;
  if (n === 0) throw new Error('no training samples');
  const mtry = Math.max(1, Math.min(F, o.mtry ?? Math.floor(Math.sqrt(F))));
  const rand = mulberry32(o.seed);
  const trees: Tree[] = [];
  const oobVotes = o.bootstrap === false ? null : new Int32Array(n * nClasses);
  // Global presort of the sample ids by each feature.
  const sorted = X.map((col) => Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => col[a] - col[b] || a - b));
  for (let t = 0; t < o.nTrees; t++) {
    if (o.signal?.aborted) throw o.signal.reason instanceof Error ? o.signal.reason : new Error('aborted');
    // Slots 0..n-1 hold the (bootstrap) sample ids.
    const sample = new Int32Array(n);
    const inBag = new Uint8Array(n);
    if (o.bootstrap === false) for (let i = 0; i < n; i++) sample[i] = i;
    else for (let i = 0; i < n; i++) { sample[i] = Math.floor(rand() * n); inBag[sample[i]] = 1; }
    const tree = growTree(X, y, nClasses, sample, sorted, mtry, o.maxDepth ?? 0, o.minSamplesLeaf ?? 1, rand);
    trees.push(tree);
    if (oobVotes) for (let i = 0; i < n; i++) if (!inBag[i]) oobVotes[i * nClasses + predictTree(tree, (f) => X[f][i])]++;
    o.onTree?.(t + 1);
  }
  let oobAccuracy: number | null = null, oobSamples = 0;
  if (oobVotes) {
    let right = 0;
    for (let i = 0; i < n; i++) {
      let best = -1, bestV = 0;
      for (let c = 0; c < nClasses; c++) if (oobVotes[i * nClasses + c] > bestV) { bestV = oobVotes[i * nClasses + c]; best = c; }
      if (best < 0) continue;
      oobSamples++;
      if (best === y[i]) right++;
    }
    oobAccuracy = oobSamples ? right / oobSamples : null;
  }
  return { trees, nFeatures: F, nClasses, mtry, oobAccuracy, oobSamples };
}

function growTree(
  X: ArrayLike<number>[], y: Int32Array, K: number, sample: Int32Array, sorted: Int32Array[],
  mtry: number, maxDepth: number, minLeaf: number, rand: () => number,
): Tree {
  const F = X.length, n = sample.length;
  // Per feature: slots ordered by that feature's value (expanding the global presort by multiplicity).
  const slotsOf: number[][] = Array.from({ length: n }, () => []);
  for (let s = 0; s < n; s++) slotsOf[sample[s]].push(s);
  const order = sorted.map((ids) => {
    const o = new Int32Array(n);
    let p = 0;
    for (const id of ids) for (const s of slotsOf[id]) o[p++] = s;
    return o;
  });
  const tmp = new Int32Array(n);
  const goesLeft = new Uint8Array(n);
  const feature: number[] = [], threshold: number[] = [], left: number[] = [], right: number[] = [], value: number[] = [];
  const counts = new Float64Array(K), lc = new Float64Array(K);
  const feats = Int32Array.from({ length: F }, (_, i) => i);
  const node = (): number => { feature.push(-1); threshold.push(0); left.push(-1); right.push(-1); value.push(0); return feature.length - 1; };
  // Explicit stack: (node, start, end, depth) over slot ranges shared by every order[f].
  const stack: [number, number, number, number][] = [[node(), 0, n, 0]];
  while (stack.length) {
    const [k, a, b, depth] = stack.pop()!;
    const m = b - a;
    counts.fill(0);
    const o0 = order[0];
    for (let i = a; i < b; i++) counts[y[sample[o0[i]]]]++;
    let major = 0;
    for (let c = 1; c < K; c++) if (counts[c] > counts[major]) major = c;
    value[k] = major;
    if (counts[major] === m || m < 2 * minLeaf || (maxDepth > 0 && depth >= maxDepth)) continue;
    // Best split over mtry random features (then the rest, if none of those can split).
    let bestScore = -Infinity, bestF = -1, bestT = 0;
    for (let i = 0; i < F; i++) { const j = i + Math.floor(rand() * (F - i)); const t = feats[i]; feats[i] = feats[j]; feats[j] = t; }
    for (let fi = 0; fi < F; fi++) {
      if (fi >= mtry && bestF >= 0) break;
      const f = feats[fi], col = X[f], ord = order[f];
      lc.fill(0);
      let sumL = 0, sumR = 0;
      for (let c = 0; c < K; c++) sumR += counts[c] * counts[c];
      for (let i = a; i < b - 1; i++) {
        const cls = y[sample[ord[i]]];
        const nl = i - a + 1, nr = m - nl;
        // Move one sample left: update Σ l_c² and Σ r_c² incrementally.
        sumL += 2 * lc[cls] + 1; lc[cls]++;
        const rc = counts[cls] - lc[cls];
        sumR -= 2 * rc + 1;
        const v0 = col[sample[ord[i]]], v1 = col[sample[ord[i + 1]]];
        if (v0 === v1 || nl < minLeaf || nr < minLeaf) continue;
        const score = sumL / nl + sumR / nr; // maximising this minimises the weighted Gini impurity
        if (score > bestScore) { bestScore = score; bestF = f; bestT = (v0 + v1) / 2; if (bestT === v1) bestT = v0; }
      }
    }
    if (bestF < 0) continue; // every feature is constant here: a leaf
    const col = X[bestF];
    for (let i = a; i < b; i++) { const s = order[bestF][i]; goesLeft[s] = col[sample[s]] <= bestT ? 1 : 0; }
    let mid = a;
    for (let f = 0; f < F; f++) {
      const ord = order[f];
      let l = a, r = 0;
      for (let i = a; i < b; i++) { const s = ord[i]; if (goesLeft[s]) ord[l++] = s; else tmp[r++] = s; }
      for (let i = 0; i < r; i++) ord[l + i] = tmp[i];
      mid = l;
    }
    feature[k] = bestF; threshold[k] = bestT;
    const L = node(), R = node();
    left[k] = L; right[k] = R;
    stack.push([R, mid, b, depth + 1], [L, a, mid, depth + 1]);
  }
  return { feature: Int32Array.from(feature), threshold: Float64Array.from(threshold), left: Int32Array.from(left), right: Int32Array.from(right), value: Int32Array.from(value) };
}
