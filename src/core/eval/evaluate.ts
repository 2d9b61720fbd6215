/** Runs forward and next-step evaluation of a ranker (GeoWeave in a mode, or a baseline) over labelled tasks. */
import type { WorkflowTemplate } from '../manifests/types';
import type { EvalTask } from './tasks';
import type { Ranker } from './ranker';
import { completeAt, hitAt, ndcgAt, recallAt } from './metrics';
import { bootstrapInterval, Share } from './bootstrap';

export { memoryFromFlow } from './memory-from-flow';

export interface EvalReport {
  tasks: number;
  /** Forward metrics; empty for a ranker without a forward answer. */
  forward: Record<string, number>;
  next: Record<string, number>;
  /** Tasks whose flow holds 3+ steps of a workflow template: how many get that template offered (another one: `other`). */
  workflows?: { fitting: number; offered: number; other: number };
  /** 95% bootstrap interval over tasks of every forward and next-step metric ("R@10", "hit@3"). */
  ci95?: Record<string, [number, number]>;
}

export const DEFAULT_KS = [1, 3, 5, 10, 20];

/** One next-step prediction, for error analysis: where the true next tool ranked (0 = not in the list). */
export interface StepRecord {
  task: string;
  query: string;
  done: string[];
  target: string;
  rank: number;
  top: string[];
}

export interface EvaluateOptions {
  ks?: number[];
  signal?: AbortSignal;
  /** Receives every next-step prediction (error analysis). */
  steps?: StepRecord[];
  /** Templates to count offers of (only for rankers that offer one). */
  workflows?: WorkflowTemplate[];
}

export async function evaluate(ranker: Ranker, tasks: EvalTask[], opts: EvaluateOptions = {}): Promise<EvalReport> {
  const ks = opts.ks ?? DEFAULT_KS;
  const kMax = Math.max(...ks);
  const wf = { fitting: 0, offered: 0, other: 0 };
  // Per task: each forward metric (over 1), and next-step hits over the task's steps. A metric is
  // the ratio of the sums; the bootstrap resamples the same shares by task.
  const shares = new Map<string, Share[]>();
  const share = (key: string, num: number, den: number) => (shares.get(key) ?? shares.set(key, []).get(key)!).push({ num, den });
  for (const t of tasks) {
    opts.signal?.throwIfAborted();
    if (ranker.forward) {
      const res = await ranker.forward(t.query, kMax);
      const fits = opts.workflows?.find((w) => t.flow.filter((x) => w.steps.includes(x)).length >= 3);
      if (fits) {
        wf.fitting++;
        if (res.workflow === fits.id) wf.offered++;
        else if (res.workflow) wf.other++;
      }
      for (const k of ks) {
        share(`R@${k}`, recallAt(res.ids, t.gold, k), 1);
        share(`nDCG@${k}`, ndcgAt(res.ids, t.gold, k), 1);
        share(`COMP@${k}`, completeAt(res.ids, t.gold, k), 1);
      }
    }
    const taskHits = new Map<number, number>(ks.map((k) => [k, 0]));
    for (let i = 1; i < t.flow.length; i++) {
      const done = t.flow.slice(0, i);
      const next = await ranker.next(t.query, done, kMax);
      for (const k of ks) taskHits.set(k, taskHits.get(k)! + hitAt(next, t.flow[i], k));
      opts.steps?.push({ task: t.id, query: t.query, done, target: t.flow[i], rank: next.indexOf(t.flow[i]) + 1, top: next.slice(0, 5) });
    }
    for (const k of ks) share(`hit@${k}`, taskHits.get(k)!, Math.max(0, t.flow.length - 1));
  }
  const r4 = (x: number) => Math.round(x * 10000) / 10000;
  const ratio = (key: string): number => {
    let num = 0;
    let den = 0;
    for (const g of shares.get(key) ?? []) { num += g.num; den += g.den; }
    return r4(den ? num / den : 0);
  };
  const forward: Record<string, number> = {};
  if (ranker.forward) for (const m of ['R', 'nDCG', 'COMP']) for (const k of ks) forward[`${m}@${k}`] = ratio(`${m}@${k}`);
  const next: Record<string, number> = {};
  for (const k of ks) next[`hit@${k}`] = ratio(`hit@${k}`);
  const ci95: Record<string, [number, number]> = {};
  for (const [key, g] of shares) ci95[key] = bootstrapInterval(g).map(r4) as [number, number];
  return { tasks: tasks.length, forward, next, ...(opts.workflows && wf.fitting ? { workflows: wf } : {}), ci95 };
}
