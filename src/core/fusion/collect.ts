/**
 * Score parts out of fold: the flows are split into k folds, and each fold's tasks are scored by a
 * retrieval context whose learned graph holds only the other folds' flows. The parts are what the
 * product would compute for a task it has not seen, which is what a fit must be judged on.
 */
import type { RetrievalContext, Weights } from '../retrieval/context';
import { flowOf, type EvalTask } from '../eval/tasks';
import { IntentionGraph } from '../learning/intention-graph';
import { parseQuery } from '../retrieval/query';
import { forwardScored } from '../retrieval/forward';
import { nextScored } from '../retrieval/backward';
import { FORWARD_SIGNALS, NEXT_SIGNALS } from '../retrieval/signals';
import { memoryFromFlow } from '../eval/memory-from-flow';
import type { FitQuery } from './fit';

/**
 * Candidates kept per query: the best this many under the current weights, plus the relevant ones,
 * plus (next steps) every tool already run. Without the last, the prior's `done` penalty put a tool
 * already run below the cut unless it was the right one, and any part that speaks only for tools
 * already run looked perfect out of fold (a repeat-rate part got 4.46, and geohazard's next hit@1
 * fell from 0.659 to 0.264).
 */
const KEEP = 60;

/** The learned graph of a set of flows (as the product's practice prior reads them). */
export function graphOf(tasks: EvalTask[]): IntentionGraph {
  return graphOfFlows(asFlows(tasks));
}

/** Tasks as the learned graph reads them: the task's terms and the flow's tools. */
export function asFlows(tasks: EvalTask[]): { terms: string[]; tools: string[] }[] {
  return tasks.map((t) => ({ terms: parseQuery(t.query).terms, tools: flowOf(t) }));
}

/** The learned graph of flows given as terms and tools. */
export function graphOfFlows(flows: { terms: string[]; tools: string[] }[]): IntentionGraph {
  const g = new IntentionGraph(undefined);
  g.setPrior(flows);
  return g;
}

/** A copy of `ctx` that learns only from `learned` and scores with `weights` alone (no reranking trees: they are fitted on these scores; the live context is left alone). */
export function foldContext(ctx: RetrievalContext, learned: IntentionGraph, weights: Weights): RetrievalContext {
  return { ...ctx, learned, weights, forwardCache: undefined, nextTrees: undefined };
}

function query(items: { id: string; parts: Record<string, number>; score: number }[], names: readonly string[], relevant: string[], ran: ReadonlySet<string> = new Set()): FitQuery {
  const top = items.slice(0, KEEP);
  for (const it of items.slice(KEEP)) if (relevant.includes(it.id) || ran.has(it.id)) top.push(it);
  const n = top.length;
  const cols = names.map((name) => Float32Array.from(top.map((it) => it.parts[name] ?? 0)));
  const byId = top.map((it, i) => ({ id: it.id, i })).sort((a, b) => a.id.localeCompare(b.id));
  const order = new Int32Array(n);
  byId.forEach((x, rank) => { order[x.i] = rank; });
  const rel = relevant.map((id) => top.findIndex((it) => it.id === id)).filter((i) => i >= 0);
  return { cols, n, relevant: rel, absent: relevant.length - rel.length, order };
}

export interface FoldOptions {
  signal?: AbortSignal;
  onProgress?: (done: number, total: number) => void;
  /** Which steps (flow, index of the step predicted) become queries; all by default. */
  steps?: (t: EvalTask, i: number) => boolean;
  /** Called before a fold's first query with its learned graph (to hand it models trained ahead). */
  ready?: (graph: IntentionGraph) => Promise<void>;
}

/** Lets the event loop run between queries (a fit in the extension host must not freeze it). */
const breathe = (n: number) => (n % 16 === 0 ? new Promise<void>((r) => setImmediate(r)) : Promise.resolve());

/** Forward parts of every task, each scored by its fold's context. */
export async function forwardQueries(ctx: RetrievalContext, folds: EvalTask[][], graphs: IntentionGraph[], weights: Weights, opts: FoldOptions = {}): Promise<FitQuery[]> {
  const out: FitQuery[] = [];
  const total = folds.reduce((a, f) => a + f.length, 0);
  for (let f = 0; f < folds.length; f++) {
    if (folds[f].length) await opts.ready?.(graphs[f]);
    const c = foldContext(ctx, graphs[f], weights);
    for (const t of folds[f]) {
      opts.signal?.throwIfAborted();
      const { scored } = await forwardScored(c, t.query, { mode: 'full', signal: opts.signal });
      out.push(query(scored, FORWARD_SIGNALS, t.gold));
      opts.onProgress?.(out.length, total);
      await breathe(out.length);
    }
  }
  return out;
}

/** Next-step parts of every step (i ≥ 1) of every flow, each scored by its fold's context (tools already run stay candidates: flows may repeat one). */
export async function nextQueries(ctx: RetrievalContext, folds: EvalTask[][], graphs: IntentionGraph[], weights: Weights, opts: FoldOptions = {}): Promise<FitQuery[]> {
  const out: FitQuery[] = [];
  const keep = opts.steps ?? (() => true);
  let total = 0;
  for (const f of folds) for (const t of f) for (let i = 1; i < t.flow.length; i++) if (keep(t, i)) total++;
  const tools = { getTool: (id: string) => ctx.tools.get(id) };
  for (let f = 0; f < folds.length; f++) {
    if (folds[f].some((t) => t.flow.some((_, i) => i > 0 && keep(t, i)))) await opts.ready?.(graphs[f]);
    const c = foldContext(ctx, graphs[f], weights);
    for (const t of folds[f]) {
      for (let i = 1; i < t.flow.length; i++) {
        if (!keep(t, i)) continue;
        opts.signal?.throwIfAborted();
        const done = t.flow.slice(0, i);
        const { scored } = await nextScored(c, memoryFromFlow(tools, t.query, done), { mode: 'full', k: 30, signal: opts.signal });
        out.push({ ...query(scored, NEXT_SIGNALS, [t.flow[i]], new Set(done)), group: t.id });
        opts.onProgress?.(out.length, total);
        await breathe(out.length);
      }
    }
  }
  return out;
}
