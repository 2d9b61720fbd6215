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
import { fitWeightsAsync, FitQuery, FitResult, metricsOf, objective, type BagRunner, type SurrogateRunner } from './fit';
import { bagThread, surrogateThread } from './bag-thread';
import { asFlows, forwardQueries, graphOf, graphOfFlows, nextQueries } from './collect';
import { parseQuery } from '../retrieval/query';
import { createHash } from 'crypto';
import { fitTrees, queryRows, type TreeModel } from './trees';
import { canTrainAhead, StepModelPool } from '../learning/step-model-pool';
import type { IntentionGraph } from '../learning/intention-graph';

/**
 * Fewer flows than this leave the prior weights in place: one flow has no other to be held out
 * against. Two are enough to beat the prior, which was set by hand for rich manifests and short
 * flows: over 4 random draws of 4 flows from each foreign team, a fit gave R@10 0.331–0.419 and
 * next hit@1 0.098–0.394 where the prior gave 0.270–0.381 and 0.072–0.191 (flood risk below knn
 * and transitions on every column). It was 10 until 2026-12-04.
 */
export const MIN_FIT_FLOWS = 2;
/**
 * Fewer next steps than this (consecutive pairs in the flows) leave the prior's next-step weights
 * in place while the forward ones are fitted. A few short flows give a handful of steps that a fit
 * learns by heart: 4 random practice flows on the builtin catalog (7 steps) fitted out-of-fold
 * hit@3 0.714 → 1.000 and lost 0.09 hit@1 and 0.11 hit@3 on `tasks.jsonl` against the prior. Four
 * flows of a long-flow team have 30 to 40 steps, and their fit beats the prior by far. 20 is
 * about what the old 10-flow floor gave the builtin catalog's short flows.
 */
export const MIN_FIT_STEPS = 20;
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
/**
 * Recurring tasks, simulated. A team's flows may hold one flow per pipeline (a few-shot team's 20
 * flows, one per kind of job): out of fold no held-out task then finds a past task like it, and a
 * fit learns that similar past tasks say little (forest carbon with 20 flows: the similar-task part
 * at 0.16 against the transitions' 1.87, next hit@1 under the kNN baseline's). In use the same
 * pipelines are asked for again in other words, and there those parts decide. So each fold also
 * lends its flows that no other flow resembles to its own training flows, under a paraphrase (about
 * half their words, the flow kept), and scores them again: extra queries on which every ordinary
 * part is fitted, at most this share of the flows. A team whose pipelines already recur in its
 * flows (each has a sibling) gets few: its folds show recurrence as it is.
 */
const TWIN_SHARE = 0.25;
/**
 * Fewer flows without a sibling than this share, and none is lent: the folds already show how
 * pipelines recur, a handful of extra queries would not move the fit, and each fold that lends
 * trains its learned models once more (2.7 s per fold for 600 flood-risk flows).
 */
const MIN_LENT = 0.05;

export interface FusionReport {
  flows: number;
  steps: number;
  folds: number;
  /** The simulated new tools: how many a fold hid in all, and the held-out tasks and steps that asked for them (extra queries). */
  newTools: { hidden: number; tasks: number; steps: number };
  /** The simulated recurring tasks: flows lent under a paraphrase to their own fold, and their extra queries (absent in fits before procedure 2). */
  recurring?: { flows: number; steps: number };
  /** Next steps in the flows, when more than `steps` (the fit sampled every n-th; absent otherwise). */
  stepsTotal?: number;
  /** Why the next-step weights stayed the prior's (too few steps), when they did. */
  nextPrior?: string;
  /** Out-of-fold metrics at the prior weights and at the fitted ones. */
  forward: { before: Record<string, number>; after: Record<string, number> };
  next: { before: Record<string, number>; after: Record<string, number> };
  /** The reranking trees: how many were kept, and hit@1 + hit@3 + ½ MRR on the held-out flows without and with them (absent: too few steps to fit any). */
  trees?: { trees: number; before: number; after: number; heldSteps: number; seconds: number };
  seconds: number;
}

export interface Fusion {
  /** The fitted weights (only the parts a fit may change); empty when the prior stays. */
  weights: Partial<Weights>;
  /** Trees that rerank the best next steps, when they beat the weights alone on held-out flows. */
  trees?: TreeModel;
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
  const pool = canTrainAhead() ? new StepModelPool() : undefined;
  try {
    return await fitWith(ctx, tasks, prior, opts, pool);
  } finally {
    pool?.close();
  }
}

async function fitWith(ctx: RetrievalContext, tasks: EvalTask[], prior: Weights, opts: FitFusionOptions, pool: StepModelPool | undefined): Promise<Fusion> {
  const flows = tasks.filter((t) => flowOf(t).length);
  if (flows.length < MIN_FIT_FLOWS) return { weights: {}, reason: `${flows.length} flow${flows.length === 1 ? '' : 's'} (a fit needs at least ${MIN_FIT_FLOWS})` };
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
  // The shares of simulated queries are of the queries the fit scores (a long history is sampled).
  const asked = sampleTasks(flows, MAX_TASKS);
  const askedSteps = Math.min(steps, MAX_STEPS);
  const coldTasks = every(folds.map((fold, f) => fold.filter((t) => t.gold.some((g) => hidden[f].has(g))).map((t) => ({ ...t, gold: t.gold.filter((g) => hidden[f].has(g)) }))), COLD_SHARE * asked.size);
  const coldSteps = new Map<EvalTask, Set<number>>();
  const eligible = folds.map((fold, f) => fold.flatMap((t) => t.flow.flatMap((x, i) => (i > 0 && hidden[f].has(x) ? [{ t, i }] : []))));
  for (const { t, i } of every(eligible, COLD_SHARE * askedSteps).flat()) (coldSteps.get(t) ?? coldSteps.set(t, new Set()).get(t)!).add(i);

  const alone = withoutSibling(flows);
  const lend = alone.size >= MIN_LENT * flows.length;
  const twins = every(folds.map((fold) => fold.filter((t) => lend && alone.has(t))), TWIN_SHARE * asked.size);
  const twinGraphs = rest.map((r, f) => !twins[f].length ? graphs[f] : graphOfFlows([...asFlows(r), ...twins[f].map((t) => ({ terms: paraphrase(t, f), tools: flowOf(t) }))]));

  // The surrogate's ascent and half of each stage's bootstrap fits run on the second core.
  const threads = { elsewhere: bagThread(opts.signal), surrogateElsewhere: surrogateThread(opts.signal) };
  // The tool classifiers and next-step models of every fold, trained on the second core while the
  // tasks are scored: the classifiers first (the forward stage asks for them at once).
  const unique = (gs: IntentionGraph[]) => gs.filter((g, i, all) => all.indexOf(g) === i);
  const twinned = twinGraphs.filter((_, f) => twins[f].length);
  const classified = unique([...graphs, ...twinned, ...coldGraphs.filter((_, f) => coldTasks[f].length || folds[f].some((t) => coldSteps.has(t)))]);
  const stepped = unique([...graphs, ...twinned, ...coldGraphs.filter((_, f) => folds[f].some((t) => coldSteps.has(t)))]);
  const versions = { classifier: new Map<IntentionGraph, number>(), next: new Map<IntentionGraph, number>() };
  if (pool) {
    for (const g of classified) { const { flows: cf, version } = g.classifierFlows(); versions.classifier.set(g, version); pool.aheadClassifier(g, cf); }
    if (steps >= MIN_FIT_STEPS) for (const g of stepped) { const { flows: sf, version } = g.stepFlows(); versions.next.set(g, version); pool.ahead(g, sf); }
  }
  const readyForward = async (g: IntentionGraph) => { const c = await pool?.takeClassifier(g); if (c) g.adoptClassifier(c, versions.classifier.get(g)!); };
  const ready = async (g: IntentionGraph) => {
    await readyForward(g);
    const m = await pool?.take(g);
    if (m) g.adoptNextModel(m, versions.next.get(g)!);
  };

  const fq = await forwardQueries(ctx, folds.map((fold) => fold.filter((t) => asked.has(t))), graphs, w, { signal: opts.signal, ready: readyForward, onProgress: progress(0, 0.2, 'scoring tasks out of fold') });
  const ordinaryTasks = fq.length;
  fq.push(...(await forwardQueries(ctx, twins, twinGraphs, w, { signal: opts.signal, ready: readyForward, onProgress: progress(0.2, 0.05, 'scoring recurring tasks') })));
  const plainTasks = fq.length;
  fq.push(...(await forwardQueries(ctx, coldTasks, coldGraphs, w, { signal: opts.signal, ready: readyForward, onProgress: progress(0.25, 0.05, 'scoring new tools out of fold') })));
  const fwd = await fit('forward', fq, ordinaryTasks, plainTasks, FORWARD_SIGNALS, FITTED_FORWARD, w, threads, opts.signal);
  FORWARD_SIGNALS.forEach((n, i) => { (w as unknown as Record<string, number>)[n] = fwd.weights[i]; });

  const sampled = sampleSteps(flows, MAX_STEPS);
  const nq: FitQuery[] = await nextQueries(ctx, folds, graphs, w, { signal: opts.signal, steps: sampled, ready, onProgress: progress(0.3, 0.5, 'scoring next steps out of fold') });
  const ordinary = nq.length;
  nq.push(...(await nextQueries(ctx, twins, twinGraphs, w, { signal: opts.signal, ready, onProgress: progress(0.8, 0.1, 'scoring recurring steps') })));
  const plain = nq.length;
  nq.push(...(await nextQueries(ctx, folds, coldGraphs, w, { signal: opts.signal, steps: (t, i) => !!coldSteps.get(t)?.has(i), ready, onProgress: progress(0.9, 0.05, 'scoring new tools as next steps') })));
  const nxt = await fit('next', nq, ordinary, plain, NEXT_SIGNALS, FITTED_NEXT, w, threads, opts.signal);
  const fitNext = steps >= MIN_FIT_STEPS;
  if (fitNext) NEXT_SIGNALS.forEach((n, i) => { (w as unknown as Record<string, number>)[n] = nxt.weights[i]; });
  const trees = fitNext && ordinary >= MIN_TREE_STEPS ? reranker(nq.slice(0, plain), nxt.weights, opts.signal) : undefined;
  opts.onProgress?.(1, 'fitted');

  const weights: Partial<Weights> = {};
  for (const n of [...FITTED_FORWARD, ...(fitNext ? FITTED_NEXT : [])]) (weights as Record<string, number>)[n] = (w as unknown as Record<string, number>)[n];
  return {
    weights,
    ...(trees?.model ? { trees: trees.model } : {}),
    report: {
      flows: flows.length,
      steps: ordinary,
      ...(ordinary < steps ? { stepsTotal: steps } : {}),
      folds: k,
      recurring: { flows: twins.reduce((a, f) => a + f.length, 0), steps: plain - ordinary },
      newTools: { hidden: hidden.reduce((a, h) => a + h.size, 0), tasks: coldTasks.reduce((a, f) => a + f.length, 0), steps: nq.length - plain },
      forward: { before: round(fwd.metricsBefore), after: round(fwd.metrics) },
      ...(fitNext ? {} : { nextPrior: `${steps} next step${steps === 1 ? '' : 's'}, a next-step fit needs ${MIN_FIT_STEPS}` }),
      next: { before: round(nxt.metricsBefore), after: round(fitNext ? nxt.metrics : nxt.metricsBefore) },
      ...(trees ? { trees: { trees: trees.trees, before: r4(trees.before), after: r4(trees.after), heldSteps: trees.heldSteps, seconds: trees.seconds } } : {}),
      seconds: Math.round((Date.now() - t0) / 100) / 10,
    },
  };
}

/**
 * Fewer ordinary next steps than this and no trees are fitted: a held-out fifth of a few hundred
 * steps cannot tell a better reranker from a lucky one (coastal's 20 flows: +0.20 hit@1 on 54
 * held-out steps, +0.005 on the test flows; geohazards' 20: −0.011). Teams of 250 flows have
 * 1300–2600, the builtin practice 1883.
 */
const MIN_TREE_STEPS = 1000;
/** Steps the trees train on at most (every n-th beyond): boosting costs in proportion, and a fit has a minute. */
const MAX_TREE_STEPS = 2000;

/**
 * Fits the reranking trees on the next-step queries out of fold (the flows as they are and the
 * recurring ones lent; not the simulated new tools, which set only their own parts) with the fitted
 * weights in place: a fifth of the flows, chosen by a hash of the flow, is held out to say how many
 * trees help, and none are kept when none help.
 */
function reranker(qs: FitQuery[], weights: number[], signal?: AbortSignal): ReturnType<typeof fitTrees> & { heldSteps: number; seconds: number } {
  const t0 = Date.now();
  const heldOut = (q: FitQuery) => createHash('sha256').update(`trees\u0000${q.group ?? ''}`).digest().readUInt32BE(0) % 5 === 0;
  const held = qs.filter(heldOut).map((q) => queryRows(q, weights));
  const rest = qs.filter((q) => !heldOut(q));
  const stride = Math.max(1, Math.ceil(rest.length / MAX_TREE_STEPS));
  const train = rest.filter((_, i) => i % stride === 0).map((q) => queryRows(q, weights)).filter((r) => r.any);
  const fit = fitTrees(train, held, [...NEXT_SIGNALS], { signal });
  return { ...fit, heldSteps: held.length, seconds: Math.round((Date.now() - t0) / 100) / 10 };
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

/**
 * Next-step queries a fit scores at most. Scoring a step and fitting on it both cost in proportion,
 * and a team with long flows has many: 750 flood-risk flows of 10.9 steps took 104 s to fit, where
 * the issue allows a minute for 1000 flows. Beyond this many, every n-th step is taken (in the
 * flows' order, so the sample is deterministic and spread over every kind of flow); 3000 steps are
 * more than a fit of 23 weights needs (the builtin catalog's 888 flows have 1883).
 */
const MAX_STEPS = 3000;

/** Forward queries (tasks) a fit scores at most, for the same reason: a team that has run 10000 flows. */
const MAX_TASKS = 3000;

/** The tasks the fit scores forward: all, or every n-th beyond `max` (in the flows' order). */
export function sampleTasks(flows: EvalTask[], max: number): Set<EvalTask> {
  const stride = Math.ceil(flows.length / max);
  return new Set(flows.filter((_, i) => stride <= 1 || i % stride === 0));
}

/** Which steps (flow, index of the step predicted) the fit scores: all, or every n-th beyond `max`. */
export function sampleSteps(flows: EvalTask[], max: number): (t: EvalTask, i: number) => boolean {
  const total = flows.reduce((a, t) => a + Math.max(0, t.flow.length - 1), 0);
  const stride = Math.ceil(total / max);
  if (stride <= 1) return () => true;
  const kept = new Map<EvalTask, Set<number>>();
  let n = 0;
  for (const t of flows) for (let i = 1; i < t.flow.length; i++) if (n++ % stride === 0) (kept.get(t) ?? kept.set(t, new Set()).get(t)!).add(i);
  return (t, i) => !!kept.get(t)?.has(i);
}

/** How alike two flows must be (Jaccard of their tools) to count as the same pipeline asked again. */
const SIBLING = 0.5;

/**
 * The flows no other flow resembles: where a held-out task never finds its pipeline among the other
 * folds. Flows that have a sibling already show the fit what a recurring pipeline looks like.
 */
function withoutSibling(flows: EvalTask[]): Set<EvalTask> {
  const sets = flows.map((t) => new Set(flowOf(t)));
  const alone = new Set<EvalTask>();
  sets.forEach((a, i) => {
    const sibling = sets.some((b, j) => {
      if (j === i) return false;
      let both = 0;
      for (const x of a) if (b.has(x)) both++;
      return both / (a.size + b.size - both) >= SIBLING;
    });
    if (!sibling) alone.add(flows[i]);
  });
  return alone;
}

/** A deterministic hash of a fold and a task or term, for choosing without a random generator. */
function twinKey(f: number, s: string): number {
  return createHash('sha256').update(`${f}\u0001${s}`).digest().readUInt32BE(0);
}

/** A task in other words: about half its terms, chosen by hash (at least one kept). */
function paraphrase(t: EvalTask, f: number): string[] {
  const terms = parseQuery(t.query).terms;
  const kept = terms.filter((x) => twinKey(f, `${t.id}\u0000${x}`) % 2 === 0);
  return kept.length ? kept : terms.slice(0, 1);
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
async function fit(kind: 'forward' | 'next', qs: FitQuery[], ordinary: number, plainEnd: number, names: readonly string[], fitted: readonly string[], w: Weights, threads: { elsewhere?: BagRunner; surrogateElsewhere?: SurrogateRunner }, signal?: AbortSignal): Promise<FitResult> {
  const prior = names.map((n) => (w as unknown as Record<string, number>)[n]);
  const free = names.map((n, i) => (fitted.includes(n) ? i : -1)).filter((i) => i >= 0);
  const plain = qs.slice(0, ordinary);
  const a = await fitWeightsAsync(kind, qs.slice(0, plainEnd), prior, { free: free.filter((i) => !COLD_PARTS.includes(names[i])), signal, ...threads });
  const cold = free.filter((i) => COLD_PARTS.includes(names[i]));
  const fitted2 = cold.length && qs.length > plainEnd ? (await fitWeightsAsync(kind, qs, a.weights, { free: cold, signal, ...threads })).weights : a.weights;
  const sum = (ws: number[]) => free.reduce((acc, i) => acc + ws[i], 0);
  const scale = sum(fitted2) > 0 ? sum(prior) / sum(fitted2) : 1;
  const weights = fitted2.map((v, i) => (free.includes(i) ? Math.round(v * scale * 10000) / 10000 : v));
  const metrics = metricsOf(kind, plain, weights);
  const metricsBefore = metricsOf(kind, plain, prior);
  return { weights, before: objective(kind, metricsBefore), metricsBefore, metrics, after: objective(kind, metrics) };
}
