/**
 * Fusion fitted to the data at hand. The weights of the score parts are fitted on the flows a
 * catalog comes with (a team's practice or training flows, and what its analysts ran), by k-fold
 * coordinate ascent: first the forward weights, then, with those in place (the next-step task
 * signal is the forward ranking), the next-step weights. With too few flows the hand-set weights
 * stay: they are the prior a fit starts from and falls back to.
 */
import type { RetrievalContext, Weights } from '../retrieval/context';
import { flowOf, type EvalTask } from '../eval/tasks';
import { cvFolds } from '../eval/cv';
import { FORWARD_SIGNALS, NEXT_SIGNALS, FITTED_FORWARD, FITTED_NEXT } from '../retrieval/signals';
import { fitWeights, FitQuery, FitResult, metricsOf, objective } from './fit';
import { forwardQueries, graphOf, nextQueries } from './collect';
import { createHash } from 'crypto';

/** Fewer flows than this leave the prior weights in place. */
export const MIN_FIT_FLOWS = 10;
const FOLDS = 5;
/**
 * New tools, simulated: each fold hides some of its tools from the other folds, leaving out their
 * flows that ran one (no past task asked for a new tool, so the words that name it are new too), and
 * the held-out tasks and steps that need a hidden tool become extra queries. Without them no fold
 * holds a tool without history (a catalog's tools are all in its flows), so a fit could not weigh
 * the parts that speak for the tools a team adds (coldStart, coldNext). Tools are hidden in hash
 * order while the flows left out stay within this share of the other folds' flows, and the hidden
 * tools within this share of the fold's …
 */
const HIDE = 1 / 8;
/** … which are at most this share of the ordinary queries … */
const COLD_SHARE = 0.1;
/** … and set only the weights of these parts: the rest are fitted on the ordinary queries alone. */
const COLD_PARTS = ['coldStart', 'coldNext'];

export interface FusionReport {
  flows: number;
  steps: number;
  folds: number;
  /** The simulated new tools: how many a fold hid in all, and the held-out tasks and steps that asked for them (extra queries). */
  newTools: { hidden: number; tasks: number; steps: number };
  /** Out-of-fold metrics at the prior weights and at the fitted ones. */
  forward: { before: Record<string, number>; after: Record<string, number> };
  next: { before: Record<string, number>; after: Record<string, number> };
  seconds: number;
}

export interface Fusion {
  /** The fitted weights (only the parts a fit may change); empty when the prior stays. */
  weights: Partial<Weights>;
  report?: FusionReport;
  /** Why the prior stayed, when it did. */
  reason?: string;
}

export interface FitFusionOptions {
  folds?: number;
  signal?: AbortSignal;
  onProgress?: (fraction: number, message: string) => void;
}

const r4 = (x: number) => Math.round(x * 10000) / 10000;
const round = (m: Record<string, number>) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, r4(v)]));

export async function fitFusion(ctx: RetrievalContext, tasks: EvalTask[], prior: Weights, opts: FitFusionOptions = {}): Promise<Fusion> {
  const flows = tasks.filter((t) => flowOf(t).length);
  if (flows.length < MIN_FIT_FLOWS) return { weights: {}, reason: `${flows.length} flows (a fit needs at least ${MIN_FIT_FLOWS})` };
  const t0 = Date.now();
  const k = Math.min(opts.folds ?? FOLDS, flows.length);
  const folds = cvFolds(flows, k);
  const graphs = folds.map((_, f) => graphOf(folds.filter((__, j) => j !== f).flat()));
  const w = { ...prior };
  const progress = (from: number, span: number, what: string) => (done: number, total: number) => opts.onProgress?.(from + (span * done) / Math.max(1, total), what);

  const rest = folds.map((_, f) => folds.filter((__, j) => j !== f).flat());
  const hidden = folds.map((fold, f) => hiddenTools(fold, rest[f], f));
  const coldGraphs = rest.map((r, f) => graphOf(r.filter((t) => !uses(t, hidden[f]))));
  const steps = flows.reduce((a, t) => a + Math.max(0, t.flow.length - 1), 0);
  const coldTasks = every(folds.map((fold, f) => fold.filter((t) => t.gold.some((g) => hidden[f].has(g))).map((t) => ({ ...t, gold: t.gold.filter((g) => hidden[f].has(g)) }))), COLD_SHARE * flows.length);
  const coldSteps = new Map<EvalTask, Set<number>>();
  const eligible = folds.map((fold, f) => fold.flatMap((t) => t.flow.flatMap((x, i) => (i > 0 && hidden[f].has(x) ? [{ t, i }] : []))));
  for (const { t, i } of every(eligible, COLD_SHARE * steps).flat()) (coldSteps.get(t) ?? coldSteps.set(t, new Set()).get(t)!).add(i);

  const fq = await forwardQueries(ctx, folds, graphs, w, { signal: opts.signal, onProgress: progress(0, 0.25, 'scoring tasks out of fold') });
  const ordinaryTasks = fq.length;
  fq.push(...(await forwardQueries(ctx, coldTasks, coldGraphs, w, { signal: opts.signal, onProgress: progress(0.25, 0.05, 'scoring new tools out of fold') })));
  const fwd = fit('forward', fq, ordinaryTasks, FORWARD_SIGNALS, FITTED_FORWARD, w, opts.signal);
  FORWARD_SIGNALS.forEach((n, i) => { (w as unknown as Record<string, number>)[n] = fwd.weights[i]; });

  const nq: FitQuery[] = await nextQueries(ctx, folds, graphs, w, { signal: opts.signal, onProgress: progress(0.3, 0.6, 'scoring next steps out of fold') });
  const ordinary = nq.length;
  nq.push(...(await nextQueries(ctx, folds, coldGraphs, w, { signal: opts.signal, steps: (t, i) => !!coldSteps.get(t)?.has(i), onProgress: progress(0.9, 0.05, 'scoring new tools as next steps') })));
  const nxt = fit('next', nq, ordinary, NEXT_SIGNALS, FITTED_NEXT, w, opts.signal);
  NEXT_SIGNALS.forEach((n, i) => { (w as unknown as Record<string, number>)[n] = nxt.weights[i]; });
  opts.onProgress?.(1, 'fitted');

  const weights: Partial<Weights> = {};
  for (const n of [...FITTED_FORWARD, ...FITTED_NEXT]) (weights as Record<string, number>)[n] = (w as unknown as Record<string, number>)[n];
  return {
    weights,
    report: {
      flows: flows.length,
      steps: ordinary,
      folds: k,
      newTools: { hidden: hidden.reduce((a, h) => a + h.size, 0), tasks: coldTasks.reduce((a, f) => a + f.length, 0), steps: nq.length - ordinary },
      forward: { before: round(fwd.metricsBefore), after: round(fwd.metrics) },
      next: { before: round(nxt.metricsBefore), after: round(nxt.metrics) },
      seconds: Math.round((Date.now() - t0) / 100) / 10,
    },
  };
}

/** A fold's tools to hide, in the order of a hash of fold and id (deterministic), within the HIDE shares. */
function hiddenTools(fold: EvalTask[], rest: EvalTask[], f: number): Set<string> {
  const tools = [...new Set(fold.flatMap(flowOf))];
  const key = (id: string) => createHash('sha256').update(`${f}\u0000${id}`).digest('hex');
  const hidden = new Set<string>();
  const left = new Set<EvalTask>();
  for (const id of tools.sort((a, b) => key(a).localeCompare(key(b)) || a.localeCompare(b))) {
    if (hidden.size + 1 > tools.length * HIDE) break;
    const more = rest.filter((t) => !left.has(t) && flowOf(t).includes(id));
    if (left.size + more.length > rest.length * HIDE) continue;
    hidden.add(id);
    for (const t of more) left.add(t);
  }
  return hidden;
}

const uses = (t: EvalTask, hidden: Set<string>) => flowOf(t).some((x) => hidden.has(x));

/** Every n-th item across the groups (kept in their groups), so that at most about `cap` remain. */
function every<T>(groups: T[][], cap: number): T[][] {
  const total = groups.reduce((a, g) => a + g.length, 0);
  const stride = Math.max(1, Math.ceil(total / Math.max(1, cap)));
  let n = 0;
  return groups.map((g) => g.filter(() => n++ % stride === 0));
}

/**
 * Fits one stage in two steps: the weights of the ordinary parts on the first `ordinary` queries
 * (the flows as they are, the new-tool parts at their prior), then the new-tool parts on all of
 * them (the simulated new tools too), the rest held. Then it scales the fitted weights so they sum
 * to what the prior's did: a ranking does not change with the scale, but the parts a fit cannot see
 * (readiness on the data at hand, the LLM's hints) keep the weight they had relative to the rest.
 * The metrics reported are the ordinary queries'.
 */
function fit(kind: 'forward' | 'next', qs: FitQuery[], ordinary: number, names: readonly string[], fitted: readonly string[], w: Weights, signal?: AbortSignal): FitResult {
  const prior = names.map((n) => (w as unknown as Record<string, number>)[n]);
  const free = names.map((n, i) => (fitted.includes(n) ? i : -1)).filter((i) => i >= 0);
  const plain = qs.slice(0, ordinary);
  const a = fitWeights(kind, plain, prior, { free: free.filter((i) => !COLD_PARTS.includes(names[i])), signal });
  const cold = free.filter((i) => COLD_PARTS.includes(names[i]));
  const fitted2 = cold.length && qs.length > ordinary ? fitWeights(kind, qs, a.weights, { free: cold, signal }).weights : a.weights;
  const sum = (ws: number[]) => free.reduce((acc, i) => acc + ws[i], 0);
  const scale = sum(fitted2) > 0 ? sum(prior) / sum(fitted2) : 1;
  const weights = fitted2.map((v, i) => (free.includes(i) ? Math.round(v * scale * 10000) / 10000 : v));
  const metrics = metricsOf(kind, plain, weights);
  return { weights, before: a.before, metricsBefore: a.metricsBefore, metrics, after: objective(kind, metrics) };
}
