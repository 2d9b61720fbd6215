/**
 * Fusion fitted to the data at hand. The weights of the score parts are fitted on the flows a
 * catalog comes with (a team's practice or training flows, and what its analysts ran), by k-fold
 * coordinate ascent: first the forward weights, then, with those in place (the next-step task
 * signal is the forward ranking), the next-step weights. With too few flows the hand-set weights
 * stay: they are the prior a fit starts from and falls back to.
 */
import type { RetrievalContext, Weights } from '../retrieval/context';
import type { EvalTask } from '../eval/tasks';
import { cvFolds } from '../eval/cv';
import { FORWARD_SIGNALS, NEXT_SIGNALS, FITTED_FORWARD, FITTED_NEXT } from '../retrieval/signals';
import { fitWeights, FitResult } from './fit';
import { forwardQueries, graphOf, nextQueries } from './collect';

/** Fewer flows than this leave the prior weights in place. */
export const MIN_FIT_FLOWS = 10;
const FOLDS = 5;

export interface FusionReport {
  flows: number;
  steps: number;
  folds: number;
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
  const flows = tasks.filter((t) => (t.flow.length ? t.flow : t.gold).length);
  if (flows.length < MIN_FIT_FLOWS) return { weights: {}, reason: `${flows.length} flows (a fit needs at least ${MIN_FIT_FLOWS})` };
  const t0 = Date.now();
  const k = Math.min(opts.folds ?? FOLDS, flows.length);
  const folds = cvFolds(flows, k);
  const graphs = folds.map((_, f) => graphOf(folds.filter((__, j) => j !== f).flat()));
  const w = { ...prior };
  const progress = (from: number, span: number, what: string) => (done: number, total: number) => opts.onProgress?.(from + (span * done) / Math.max(1, total), what);

  const fq = await forwardQueries(ctx, folds, graphs, w, { signal: opts.signal, onProgress: progress(0, 0.3, 'scoring tasks out of fold') });
  const fwd = fit('forward', fq, FORWARD_SIGNALS, FITTED_FORWARD, w, opts.signal);
  FORWARD_SIGNALS.forEach((n, i) => { (w as unknown as Record<string, number>)[n] = fwd.weights[i]; });

  const nq = await nextQueries(ctx, folds, graphs, w, { signal: opts.signal, onProgress: progress(0.3, 0.65, 'scoring next steps out of fold') });
  const nxt = fit('next', nq, NEXT_SIGNALS, FITTED_NEXT, w, opts.signal);
  NEXT_SIGNALS.forEach((n, i) => { (w as unknown as Record<string, number>)[n] = nxt.weights[i]; });
  opts.onProgress?.(1, 'fitted');

  const weights: Partial<Weights> = {};
  for (const n of [...FITTED_FORWARD, ...FITTED_NEXT]) (weights as Record<string, number>)[n] = (w as unknown as Record<string, number>)[n];
  return {
    weights,
    report: {
      flows: flows.length,
      steps: nq.length,
      folds: k,
      forward: { before: round(fwd.metricsBefore), after: round(fwd.metrics) },
      next: { before: round(nxt.metricsBefore), after: round(nxt.metrics) },
      seconds: Math.round((Date.now() - t0) / 100) / 10,
    },
  };
}

/**
 * Fits one stage, then scales the fitted weights so they sum to what the prior's did: a ranking does
 * not change with the scale, but the parts a fit cannot see (readiness on the data at hand, the
 * LLM's hints) keep the weight they had relative to the rest.
 */
function fit(kind: 'forward' | 'next', qs: Parameters<typeof fitWeights>[1], names: readonly string[], fitted: readonly string[], w: Weights, signal?: AbortSignal): FitResult {
  const prior = names.map((n) => (w as unknown as Record<string, number>)[n]);
  const free = names.map((n, i) => (fitted.includes(n) ? i : -1)).filter((i) => i >= 0);
  const r = fitWeights(kind, qs, prior, { free, signal });
  const sum = (ws: number[]) => free.reduce((a, i) => a + ws[i], 0);
  const scale = sum(r.weights) > 0 ? sum(prior) / sum(r.weights) : 1;
  return { ...r, weights: r.weights.map((v, i) => (free.includes(i) ? Math.round(v * scale * 10000) / 10000 : v)) };
}
