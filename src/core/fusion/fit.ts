/**
 * Fitting the fusion weights: coordinate ascent on ranking metrics over score parts computed out of
 * fold (each query's parts come from a model that never saw its flow). Pure: it sees only matrices
 * of parts and which candidates are relevant, never a catalog or a tool id.
 *
 * The objective is what the product is judged on: forward recall and completeness at 10 and 20,
 * next-step hit@1 and hit@3, each plus half the reciprocal rank of the first relevant tool (the
 * panel shows the first candidate first; it also breaks ties between weightings that place the
 * same tools in the top K). A move must gain at least one query's worth, so a
 * handful of flows cannot drag the weights about; with too few queries the prior stays.
 */

/** One query's candidates: per part, a column of values (candidates in a fixed order). */
export interface FitQuery {
  /** Column per part, each of length `n`. */
  cols: Float32Array[];
  n: number;
  /** Indices of the relevant candidates (forward: the gold tools; next: the true next tool). */
  relevant: number[];
  /** Relevant items that are not among the candidates at all (always misses). */
  absent: number;
  /** Tie order of the candidates (as the product sorts equal scores: by id). */
  order: Int32Array;
  /** The flow the query came from (a held-out split keeps a flow's queries together). */
  group?: string;
}

export type FitKind = 'forward' | 'next';

export interface FitOptions {
  /** Rounds of coordinate ascent over all parts (it stops earlier when a round changes nothing). */
  rounds?: number;
  /** Parts (by index) the fit may move; the others keep their prior. */
  free?: number[];
  signal?: AbortSignal;
  /** Bootstrap resamples whose fits are averaged with the fit on all queries (0: that fit alone). */
  bags?: number;
}

export interface FitResult {
  weights: number[];
  before: number;
  after: number;
  /** The metrics at the fitted weights, for reports. */
  metrics: Record<string, number>;
  metricsBefore: Record<string, number>;
}

/**
 * Rank (0-based) of candidate `i` under the scores `s + delta · c` (`c` may be undefined when
 * `delta` is 0): those above it, ties broken by `order`. The moved scores are computed on the fly,
 * as the same double expression a copy would hold, so the ranking is the same without the copy.
 *
 * `byScore` lists the candidates by `s`, highest first, and `reach` bounds what the move adds to
 * any candidate (`delta` times the column's largest value, or its smallest when `delta` < 0). The
 * scan stops at the first candidate that cannot reach candidate `i` even with that bound: every
 * later one has a lower `s`, and rounding is monotone, so the count is exactly the full scan's while
 * a relevant tool near the top costs a few comparisons instead of one per candidate.
 */
function rankOf(s: Float64Array, byScore: Int32Array, c: Float32Array | undefined, delta: number, reach: number, q: FitQuery, i: number): number {
  const o = q.order[i];
  let r = 0;
  if (!delta || !c) {
    const v0 = s[i];
    for (let k = 0; k < q.n; k++) {
      const j = byScore[k];
      const v = s[j];
      if (v < v0) break;
      if (v > v0 || (v === v0 && j !== i && q.order[j] < o)) r++;
    }
    return r;
  }
  const v0 = s[i] + delta * c[i];
  for (let k = 0; k < q.n; k++) {
    const j = byScore[k];
    if (s[j] + reach < v0) break;
    const v = s[j] + delta * c[j];
    if (v > v0 || (v === v0 && j !== i && q.order[j] < o)) r++;
  }
  return r;
}

const FWD_KEYS = ['RR', 'R@10', 'R@20', 'COMP@10', 'COMP@20'] as const;
const NEXT_KEYS = ['hit@1', 'hit@3', 'RR'] as const;

/**
 * Adds one query's metrics to `acc` (slots as FWD_KEYS / NEXT_KEYS), from the ranks of its relevant
 * candidates (in the order of `q.relevant`).
 */
function addMetrics(kind: FitKind, q: FitQuery, ranks: ArrayLike<number>, acc: Float64Array): void {
  if (kind === 'forward') {
    const total = q.relevant.length + q.absent;
    let first = Infinity;
    let in10 = 0;
    let in20 = 0;
    for (let k = 0; k < q.relevant.length; k++) {
      const r = ranks[k];
      if (r < first) first = r;
      if (r < 10) in10++;
      if (r < 20) in20++;
    }
    acc[0] += first === Infinity ? 0 : 1 / (first + 1);
    acc[1] += in10 / total;
    acc[2] += in20 / total;
    acc[3] += in10 === total ? 1 : 0;
    acc[4] += in20 === total ? 1 : 0;
    return;
  }
  const r = q.relevant.length ? ranks[0] : Infinity;
  acc[0] += r < 1 ? 1 : 0;
  acc[1] += r < 3 ? 1 : 0;
  acc[2] += r === Infinity ? 0 : 1 / (r + 1);
}

export function objective(kind: FitKind, m: Record<string, number>): number {
  return kind === 'forward'
    ? m['R@10'] + m['COMP@10'] + 0.5 * (m['R@20'] + m['COMP@20'] + m.RR)
    : m['hit@1'] + m['hit@3'] + 0.5 * m.RR;
}

class Scorer {
  readonly scores: Float64Array[];
  /** Per query, the candidates by stored score, highest first (re-sorted when a move is applied). */
  private readonly byScore: Int32Array[];
  /** Per query, each part's largest and smallest value over the candidates. */
  private readonly colMax: Float64Array[];
  private readonly colMin: Float64Array[];
  /** Per query, the rank of each relevant candidate under the stored scores (kept up to date by `apply`). */
  private readonly ranks: Int32Array[];
  /** Per part (filled when first moved), per query, the candidates whose value of the part is not 0. */
  private readonly nonzero: (Int32Array[] | undefined)[] = [];
  private readonly moved: Int32Array;

  constructor(private readonly qs: FitQuery[], w: number[]) {
    this.scores = qs.map((q) => {
      const s = new Float64Array(q.n);
      q.cols.forEach((c, f) => { if (w[f]) for (let i = 0; i < q.n; i++) s[i] += w[f] * c[i]; });
      return s;
    });
    this.byScore = qs.map((q, qi) => sortedByScore(this.scores[qi], q.n));
    this.colMax = qs.map((q) => Float64Array.from(q.cols, (c) => { let m = -Infinity; for (let i = 0; i < q.n; i++) if (c[i] > m) m = c[i]; return m; }));
    this.colMin = qs.map((q) => Float64Array.from(q.cols, (c) => { let m = Infinity; for (let i = 0; i < q.n; i++) if (c[i] < m) m = c[i]; return m; }));
    this.ranks = qs.map((q) => new Int32Array(q.relevant.length));
    this.rerank();
    this.moved = new Int32Array(Math.max(0, ...qs.map((q) => q.relevant.length)));
  }

  /**
   * Mean metrics with part `f`'s weight moved by `delta` (the stored scores stay as they are).
   *
   * Most parts say nothing of most candidates (the part is 0 for them), and a move changes the
   * scores of only the others. So a query where the part is 0 throughout keeps its stored ranks, and
   * a relevant candidate the part is 0 for keeps its score: its rank changes only by the candidates
   * the part speaks for, counted before and after the move with the same comparisons a full scan
   * makes (the counts, and so the metrics and the fitted weights, are exactly the scan's). Only a
   * relevant candidate that the part moves itself is ranked by scanning. The metrics are added in
   * query order either way, so the sums are the same to the last bit.
   */
  evaluate(kind: FitKind, f: number, delta: number): Record<string, number> {
    const keys = kind === 'forward' ? FWD_KEYS : NEXT_KEYS;
    const acc = new Float64Array(keys.length);
    const nonzero = delta ? this.nonzeroOf(f) : undefined;
    for (let qi = 0; qi < this.qs.length; qi++) {
      const q = this.qs[qi];
      const nz = nonzero?.[qi];
      if (!nz?.length) { addMetrics(kind, q, this.ranks[qi], acc); continue; }
      const s = this.scores[qi];
      const c = q.cols[f];
      const base = this.ranks[qi];
      for (let k = 0; k < q.relevant.length; k++) {
        const i = q.relevant[k];
        if (c[i] !== 0) {
          const reach = delta * (delta > 0 ? this.colMax[qi][f] : this.colMin[qi][f]);
          this.moved[k] = rankOf(s, this.byScore[qi], c, delta, reach, q, i);
          continue;
        }
        const v0 = s[i];
        const o = q.order[i];
        let r = base[k];
        for (let m = 0; m < nz.length; m++) {
          const j = nz[m];
          const was = s[j];
          if (was > v0 || (was === v0 && q.order[j] < o)) r--;
          const v = was + delta * c[j];
          if (v > v0 || (v === v0 && q.order[j] < o)) r++;
        }
        this.moved[k] = r;
      }
      addMetrics(kind, q, this.moved, acc);
    }
    const out: Record<string, number> = {};
    keys.forEach((k, i) => { out[k] = this.qs.length ? acc[i] / this.qs.length : 0; });
    return out;
  }

  apply(f: number, delta: number): void {
    this.qs.forEach((q, qi) => {
      const s = this.scores[qi];
      const c = q.cols[f];
      for (let i = 0; i < q.n; i++) s[i] += delta * c[i];
      resort(this.byScore[qi], s);
    });
    this.rerank();
  }

  private rerank(): void {
    this.qs.forEach((q, qi) => q.relevant.forEach((i, k) => { this.ranks[qi][k] = rankOf(this.scores[qi], this.byScore[qi], undefined, 0, 0, q, i); }));
  }

  private nonzeroOf(f: number): Int32Array[] {
    return (this.nonzero[f] ??= this.qs.map((q) => {
      const c = q.cols[f];
      const out: number[] = [];
      for (let i = 0; i < q.n; i++) if (c[i] !== 0) out.push(i);
      return Int32Array.from(out);
    }));
  }
}

/**
 * The query with only the fields a fit reads, all of one shape. Queries that carry more (the next
 * steps carry their flow's id) made every loop here polymorphic: the next-step fit of 1000 flows
 * took 27 s instead of 12.
 */
function alike(q: FitQuery): FitQuery {
  return { cols: q.cols, n: q.n, relevant: q.relevant, absent: q.absent, order: q.order };
}

/** Candidates by score, highest first; a NaN score (never above anything) goes last. */
function sortedByScore(s: Float64Array, n: number): Int32Array {
  return Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => before(s, a, b));
}

function before(s: Float64Array, a: number, b: number): number {
  const x = s[a];
  const y = s[b];
  if (x !== x) return y !== y ? 0 : 1;
  if (y !== y) return -1;
  return y - x;
}

/** Restores the order after one part's weight moved: insertion sort, linear when little changed. */
function resort(order: Int32Array, s: Float64Array): void {
  for (let k = 1; k < order.length; k++) {
    const j = order[k];
    let m = k - 1;
    while (m >= 0 && before(s, order[m], j) > 0) { order[m + 1] = order[m]; m--; }
    order[m + 1] = j;
  }
}

/** Values tried for a weight now at `w`: scaled, nudged, and a coarse grid when it is 0. */
function trials(w: number): number[] {
  const out = new Set<number>([0]);
  if (w > 0) for (const m of [0.25, 0.5, 0.7, 1.4, 2, 4]) out.add(w * m);
  for (const v of [0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 3.2]) out.add(v);
  out.delete(w);
  return [...out].map((v) => Math.round(v * 10000) / 10000).sort((a, b) => a - b);
}

/** A part that is the same for every candidate of every query cannot change a ranking. */
function varies(qs: FitQuery[], f: number): boolean {
  for (const q of qs) {
    const c = q.cols[f];
    for (let i = 1; i < q.n; i++) if (c[i] !== c[0]) return true;
  }
  return false;
}

/** Bootstrap fits to run: the queries, where each starts, which parts move, and one resample (query indices) per fit. */
export interface BagJob { kind: FitKind; qs: FitQuery[]; start: number[]; free: number[]; rounds?: number; samples: Int32Array[] }
/** Runs some of a fit's bootstrap fits elsewhere (another thread): their normalised weights, in order, or undefined to run them here. */
export type BagRunner = (job: BagJob) => Promise<number[][] | undefined>;
/** The ascent from the surrogate's optimum (a `BagJob` whose `start` is the prior and which has no resamples). */
export interface SurrogateFit { start: number[]; weights: number[]; after: number; metrics: Record<string, number> }
/** Runs the surrogate and the ascent from its optimum elsewhere (another thread), or gives undefined to run them here. */
export type SurrogateRunner = (job: BagJob) => Promise<SurrogateFit | undefined>;

/** What both fits share before their bootstrap fits; `done` when there are none to run. */
interface Prepared { qs: FitQuery[]; free: number[]; fromPrior: FitResult; best: FitResult; start: number[]; bags: number; done?: FitResult }

/**
 * Fits the weights two ways and keeps the better: coordinate ascent from the prior, and coordinate
 * ascent from the optimum of a smooth surrogate (listwise logistic: the softmax of the scores
 * should put its mass on the relevant candidates). Coordinate ascent alone stops at the first
 * weighting no single move improves; the surrogate's optimum starts it where parts trade off.
 */
export function fitWeights(kind: FitKind, given: FitQuery[], prior: number[], opts: FitOptions = {}): FitResult {
  const p = prepare(kind, given, prior, opts);
  if (p.done) return p.done;
  return averaged(kind, p, bagFits({ kind, qs: p.qs, start: p.start, free: p.free, rounds: opts.rounds, samples: bagSamples(p.qs.length, p.bags) }, opts.signal));
}

/**
 * `fitWeights`, with the second half of its bootstrap fits run by `elsewhere` (another thread)
 * while this one runs the first half. The resamples are the same and the fits are averaged in the
 * same order, so the weights are exactly `fitWeights`'s.
 */
export async function fitWeightsAsync(kind: FitKind, given: FitQuery[], prior: number[], opts: FitOptions & { elsewhere?: BagRunner; surrogateElsewhere?: SurrogateRunner } = {}): Promise<FitResult> {
  const qs = given.map(alike);
  const free = freeParts(qs, prior, opts);
  // The two ascents are independent: the surrogate's runs elsewhere while this thread climbs from the prior.
  const other = opts.surrogateElsewhere && free.length ? opts.surrogateElsewhere({ kind, qs, start: prior, free, rounds: opts.rounds, samples: [] }) : undefined;
  const fromPrior = ascend(kind, qs, prior, free, opts);
  const surrogate = (other && (await other)) ?? surrogateFit({ kind, qs, start: prior, free, rounds: opts.rounds, samples: [] }, opts.signal);
  const p = prepared(kind, qs, prior, free, fromPrior, surrogate, opts);
  if (p.done) return p.done;
  const samples = bagSamples(p.qs.length, p.bags);
  const job = (part: Int32Array[]): BagJob => ({ kind, qs: p.qs, start: p.start, free: p.free, rounds: opts.rounds, samples: part });
  const half = Math.ceil(samples.length / 2);
  const there = opts.elsewhere && samples.length > 1 ? opts.elsewhere(job(samples.slice(half))) : undefined;
  const here = bagFits(job(there ? samples.slice(0, half) : samples), opts.signal);
  if (!there) return averaged(kind, p, here);
  const rest = (await there) ?? bagFits(job(samples.slice(half)), opts.signal);
  return averaged(kind, p, [...here, ...rest]);
}

function prepare(kind: FitKind, given: FitQuery[], prior: number[], opts: FitOptions): Prepared {
  const qs = given.map(alike);
  const free = freeParts(qs, prior, opts);
  const fromPrior = ascend(kind, qs, prior, free, opts);
  return prepared(kind, qs, prior, free, fromPrior, surrogateFit({ kind, qs, start: prior, free, rounds: opts.rounds, samples: [] }, opts.signal), opts);
}

/** The parts a fit moves: those it may (`free`, all by default) that vary somewhere. */
function freeParts(qs: FitQuery[], prior: number[], opts: FitOptions): number[] {
  return (opts.free ?? prior.map((_, i) => i)).filter((f) => varies(qs, f));
}

/** The better of the two ascents (the surrogate's must gain a query's worth), and where the bootstrap fits start. */
function prepared(kind: FitKind, qs: FitQuery[], prior: number[], free: number[], fromPrior: FitResult, s: SurrogateFit, opts: FitOptions): Prepared {
  const fromSurrogate = s.after > fromPrior.after + 1 / Math.max(1, qs.length);
  const best: FitResult = fromSurrogate ? { weights: s.weights, before: fromPrior.before, after: s.after, metrics: s.metrics, metricsBefore: fromPrior.metricsBefore } : fromPrior;
  const bags = Math.max(0, Math.floor(opts.bags ?? BAGS));
  const start = fromSurrogate ? s.start : prior;
  const done = !bags || !free.length ? { ...best, before: fromPrior.before, metricsBefore: fromPrior.metricsBefore } : undefined;
  return { qs, free, fromPrior, best, start, bags, done };
}

/**
 * The surrogate's optimum and the ascent from it (see `fitWeights`); exported for the thread that
 * runs it beside the ascent from the prior.
 */
export function surrogateFit(job: BagJob, signal?: AbortSignal): SurrogateFit {
  const start = listwiseLogistic(job.qs, job.start, job.free, signal);
  const r = ascend(job.kind, job.qs, start, job.free, { rounds: job.rounds, signal });
  return { start, weights: r.weights, after: r.after, metrics: r.metrics };
}

/**
 * Coordinate ascent stops at the first weighting no single move improves, and which one it finds
 * can turn on a handful of queries: one more tool in a catalog moved a fit to weights that lost
 * 15 of 332 held-out steps. Averaging the fits of bootstrap resamples of the queries (bagging)
 * keeps what they agree on. Each fit is normalised to the same free-weight sum before averaging
 * (a ranking does not change with scale), starting where the whole-set fit started.
 */
function averaged(kind: FitKind, p: Prepared, bagged: number[][]): FitResult {
  const { qs, free, best, fromPrior } = p;
  const sum = normalised(best.weights, free);
  for (const w of bagged) for (const f of free) sum[f] += w[f];
  const total = free.reduce((a, f) => a + best.weights[f], 0) || 1;
  const weights = best.weights.map((v, i) => (free.includes(i) ? Math.round((sum[i] / (bagged.length + 1)) * total * 10000) / 10000 : v));
  const metrics = new Scorer(qs, weights).evaluate(kind, 0, 0);
  return { weights, before: fromPrior.before, after: objective(kind, metrics), metrics, metricsBefore: fromPrior.metricsBefore };
}

/** The weights scaled so the free ones sum to 1. */
function normalised(w: number[], free: number[]): number[] {
  const s = free.reduce((a, f) => a + w[f], 0) || 1;
  return w.map((v, i) => (free.includes(i) ? v / s : v));
}

/** The bootstrap resamples of `n` queries (indices), `bags` of them, the same for the same `n`. */
export function bagSamples(n: number, bags: number): Int32Array[] {
  const rand = lcg(0x5eed + n);
  return Array.from({ length: bags }, () => Int32Array.from({ length: n }, () => Math.floor(rand() * n)));
}

/** The bootstrap fits of a job, each normalised (see `averaged`). */
export function bagFits(job: BagJob, signal?: AbortSignal): number[][] {
  return job.samples.map((idx) => normalised(ascend(job.kind, Array.from(idx, (i) => job.qs[i]), job.start, job.free, { rounds: job.rounds, signal }).weights, job.free));
}

/** The metrics of a weighting with part `f`'s weight moved by `delta`, as coordinate ascent reads them when it tries the move (exported for tests). */
export function metricsMoved(kind: FitKind, qs: FitQuery[], weights: number[], f: number, delta: number): Record<string, number> {
  return new Scorer(qs.map(alike), weights).evaluate(kind, f, delta);
}

/** The metrics of a weighting on some queries (for reports). */
export function metricsOf(kind: FitKind, qs: FitQuery[], weights: number[]): Record<string, number> {
  return new Scorer(qs.map(alike), weights).evaluate(kind, 0, 0);
}

/** Bootstrap fits averaged into the result (see fitWeights). */
const BAGS = 8;

/** A small deterministic generator (the fit must give the same weights on the same data). */
function lcg(seed: number): () => number {
  let x = seed >>> 0;
  return () => { x = (Math.imul(x, 1664525) + 1013904223) >>> 0; return x / 4294967296; };
}

function ascend(kind: FitKind, qs: FitQuery[], start: number[], free: number[], opts: FitOptions): FitResult {
  const w = [...start];
  const scorer = new Scorer(qs, w);
  const metricsBefore = scorer.evaluate(kind, 0, 0);
  let best = objective(kind, metricsBefore);
  const before = best;
  const minGain = 1 / Math.max(1, qs.length);
  // Moves applied so far, and how many there had been when each part was last tried and stayed: a
  // part tried since the last move, at the weight it has, would find what it found then.
  let moves = 0;
  const stayedAt = new Map<number, number>();
  for (let round = 0; round < (opts.rounds ?? 6); round++) {
    let moved = false;
    for (const f of free) {
      opts.signal?.throwIfAborted();
      if (stayedAt.get(f) === moves) continue;
      let bestV = w[f];
      let bestObj = best;
      for (const v of trials(w[f])) {
        const o = objective(kind, scorer.evaluate(kind, f, v - w[f]));
        if (o > bestObj + minGain || (o > bestObj && bestObj > best)) { bestObj = o; bestV = v; }
      }
      if (bestV !== w[f]) {
        scorer.apply(f, bestV - w[f]);
        w[f] = bestV;
        best = bestObj;
        moved = true;
        moves++;
      } else stayedAt.set(f, moves);
    }
    if (!moved) break;
  }
  return { weights: w, before, after: best, metrics: scorer.evaluate(kind, 0, 0), metricsBefore };
}

/**
 * Minimises the listwise logistic loss −Σ log softmax(scores)[relevant] (averaged over a query's
 * relevant candidates) by projected gradient descent, weights kept ≥ 0; the fixed parts keep their
 * prior. The result is rescaled so its largest free weight equals the prior's largest.
 */
const SURROGATE_QUERIES = 1200;

function listwiseLogistic(qs: FitQuery[], prior: number[], free: number[], signal?: AbortSignal): number[] {
  const F = prior.length;
  const w = [...prior];
  // A start point needs no more than a sample: every n-th query, at most SURROGATE_QUERIES of them.
  const all = qs.filter((q) => q.relevant.length);
  const stride = Math.max(1, Math.ceil(all.length / SURROGATE_QUERIES));
  const useful = all.filter((_, i) => i % stride === 0).map((q) => sparseQuery(q, w, free));
  if (!useful.length || !free.length) return w;
  const first = Math.min(...free);
  const m = new Float64Array(F);
  const v = new Float64Array(F);
  const grad = new Float64Array(F);
  const s = new Float64Array(Math.max(...useful.map((q) => q.n)));
  const rate = 0.08;
  for (let it = 1; it <= 150; it++) {
    if (it % 25 === 0) signal?.throwIfAborted();
    grad.fill(0);
    for (const q of useful) {
      const n = q.n;
      s.set(q.fixed);
      for (let f = first; f < F; f++) {
        const wf = w[f];
        if (!wf) continue;
        const idx = q.idx[f - first];
        const val = q.val[f - first];
        for (let k = 0; k < idx.length; k++) s[idx[k]] += wf * val[k];
      }
      let mx = -Infinity;
      for (let i = 0; i < n; i++) if (s[i] > mx) mx = s[i];
      let z = 0;
      for (let i = 0; i < n; i++) { s[i] = Math.exp(s[i] - mx); z += s[i]; }
      for (let j = 0; j < free.length; j++) {
        const f = free[j];
        const idx = q.idx[f - first];
        const val = q.val[f - first];
        let e = 0;
        for (let k = 0; k < idx.length; k++) e += s[idx[k]] * val[k];
        grad[f] += e / z - q.relevantMean[j];
      }
    }
    // Adam steps on the mean gradient, projected onto w ≥ 0.
    for (const f of free) {
      const g = grad[f] / useful.length;
      m[f] = 0.9 * m[f] + 0.1 * g;
      v[f] = 0.999 * v[f] + 0.001 * g * g;
      const mh = m[f] / (1 - Math.pow(0.9, it));
      const vh = v[f] / (1 - Math.pow(0.999, it));
      w[f] = Math.max(0, w[f] - (rate * mh) / (Math.sqrt(vh) + 1e-8));
    }
  }
  const top = Math.max(...free.map((f) => w[f]));
  const priorTop = Math.max(...free.map((f) => prior[f]), 1);
  if (top > 0) for (const f of free) w[f] = Math.round((w[f] * priorTop) / top * 10000) / 10000;
  return w;
}

/**
 * A query as the surrogate reads it, 150 times over: the score of the parts before the first free
 * one (their weights never move, so it is summed once), and each later part's nonzero values with
 * their candidates (a part is 0 for most candidates; adding 0 changes no sum). The sums are added in
 * the same order as over the full columns, so the surrogate is the same to the last bit.
 */
interface SparseQuery { n: number; fixed: Float64Array; idx: Int32Array[]; val: Float64Array[]; relevantMean: Float64Array }

function sparseQuery(q: FitQuery, w: number[], free: number[]): SparseQuery {
  const first = free.length ? Math.min(...free) : q.cols.length;
  const fixed = new Float64Array(q.n);
  for (let f = 0; f < first; f++) if (w[f]) { const c = q.cols[f]; for (let i = 0; i < q.n; i++) fixed[i] += w[f] * c[i]; }
  const idx: Int32Array[] = [];
  const val: Float64Array[] = [];
  for (let f = first; f < q.cols.length; f++) {
    const c = q.cols[f];
    const at: number[] = [];
    for (let i = 0; i < q.n; i++) if (c[i] !== 0) at.push(i);
    idx.push(Int32Array.from(at));
    val.push(Float64Array.from(at, (i) => c[i]));
  }
  const relevantMean = Float64Array.from(free, (f) => {
    let r = 0;
    for (const i of q.relevant) r += q.cols[f][i];
    return r / q.relevant.length;
  });
  return { n: q.n, fixed, idx, val, relevantMean };
}
