/** Runs forward and next-step evaluation of a GeoWeave instance over labelled tasks. */
import type { GeoWeave } from '../geoweave';
import type { RetrievalMode } from '../retrieval/context';
import type { MemoryState } from '../memory/types';
import { outputsFromManifest } from '../retrieval/backward';
import type { EvalTask } from './tasks';
import { completeAt, hitAt, mean, ndcgAt, recallAt } from './metrics';

export interface EvalReport {
  tasks: number;
  tools: number;
  forward: Record<string, number>;
  next: Record<string, number>;
  /** Tasks whose flow holds 3+ steps of a workflow template: how many get that template offered (another one: `other`). */
  workflows?: { fitting: number; offered: number; other: number };
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

/** Memory after running `flow` (outputs as the manifests declare them; no result summaries). */
export function memoryFromFlow(gw: GeoWeave, task: string, flow: string[], resultSummary = ''): MemoryState {
  return {
    task,
    windowSize: 5,
    trace: flow.map((tool, i) => ({
      tool,
      argSummary: '',
      resultSummary: i === flow.length - 1 ? resultSummary : '',
      outputs: outputsFromManifest(gw.getTool(tool)).map((o) => ({ ...o, path: `${tool}.${o.name}` })),
      ok: true,
      time: new Date(0).toISOString(),
    })),
  };
}

export async function evaluate(gw: GeoWeave, tasks: EvalTask[], ks: number[] = DEFAULT_KS, mode: RetrievalMode = 'full', signal?: AbortSignal, steps?: StepRecord[]): Promise<EvalReport> {
  const kMax = Math.max(...ks);
  const rec = new Map<number, number[]>(ks.map((k) => [k, []]));
  const ndcg = new Map<number, number[]>(ks.map((k) => [k, []]));
  const comp = new Map<number, number[]>(ks.map((k) => [k, []]));
  const hits = new Map<number, number[]>(ks.map((k) => [k, []]));
  const wf = { fitting: 0, offered: 0, other: 0 };
  for (const t of tasks) {
    signal?.throwIfAborted();
    const res = await gw.forwardCandidates(t.query, { k: kMax, mode });
    const ranked = res.candidates.map((c) => c.id);
    const fits = gw.workflows.find((w) => t.flow.filter((x) => w.steps.includes(x)).length >= 3);
    if (fits) {
      wf.fitting++;
      if (res.workflow?.id === fits.id) wf.offered++;
      else if (res.workflow) wf.other++;
    }
    for (const k of ks) {
      rec.get(k)!.push(recallAt(ranked, t.gold, k));
      ndcg.get(k)!.push(ndcgAt(ranked, t.gold, k));
      comp.get(k)!.push(completeAt(ranked, t.gold, k));
    }
    for (let i = 1; i < t.flow.length; i++) {
      const done = t.flow.slice(0, i);
      const mem = memoryFromFlow(gw, t.query, done);
      const r = await gw.complementarySuggestions(mem, { k: kMax + done.length, mode });
      const doneSet = new Set(done);
      const next = r.ranked.map((s) => s.id).filter((id) => !doneSet.has(id));
      for (const k of ks) hits.get(k)!.push(hitAt(next, t.flow[i], k));
      steps?.push({ task: t.id, query: t.query, done, target: t.flow[i], rank: next.indexOf(t.flow[i]) + 1, top: next.slice(0, 5) });
    }
  }
  const r4 = (x: number) => Math.round(x * 10000) / 10000;
  const forward: Record<string, number> = {};
  for (const k of ks) forward[`R@${k}`] = r4(mean(rec.get(k)!));
  for (const k of ks) forward[`nDCG@${k}`] = r4(mean(ndcg.get(k)!));
  for (const k of ks) forward[`COMP@${k}`] = r4(mean(comp.get(k)!));
  const next: Record<string, number> = {};
  for (const k of ks) next[`hit@${k}`] = r4(mean(hits.get(k)!));
  return { tasks: tasks.length, tools: gw.tools.length, forward, next, ...(mode === 'full' ? { workflows: wf } : {}) };
}
