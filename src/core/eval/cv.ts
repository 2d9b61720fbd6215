/**
 * K-fold cross-validation over a training task file: learn from k−1 folds in a fresh learned state,
 * evaluate on the held-out fold. Design decisions are made on these numbers, never on the test file.
 */
import type { Ranker } from './ranker';
import type { EvalTask } from './tasks';
import { DEFAULT_KS, evaluate, EvalReport, StepRecord } from './evaluate';
import { mulberry32 } from '../raster/algorithms/prng';

/** The category label of an id like "tr-fire-07" ("fire"); ids without one share a single stratum. */
export function stratumOf(id: string): string {
  const m = /^[a-z]+-(.+)-\d+$/i.exec(id);
  return m ? m[1] : '';
}

/**
 * Deterministic stratified folds: tasks sorted by id within each category (then shuffled by
 * `seed` when it is not 0, for repeated CV) and dealt round-robin, the deal continuing across
 * categories so fold sizes differ by at most one. Every task is in exactly one fold; the result
 * does not depend on the order of the input.
 */
export function cvFolds(tasks: EvalTask[], k: number, seed = 0): EvalTask[][] {
  if (!Number.isInteger(k) || k < 2) throw new Error(`cross-validation needs at least 2 folds, got ${k}`);
  if (tasks.length < k) throw new Error(`cross-validation with ${k} folds needs at least ${k} tasks, got ${tasks.length}`);
  const byStratum = new Map<string, EvalTask[]>();
  for (const t of tasks) {
    const s = stratumOf(t.id);
    (byStratum.get(s) ?? byStratum.set(s, []).get(s)!).push(t);
  }
  const folds: EvalTask[][] = Array.from({ length: k }, () => []);
  let next = 0;
  const rand = seed ? mulberry32(seed) : undefined;
  for (const s of [...byStratum.keys()].sort()) {
    const group = byStratum.get(s)!.sort((a, b) => a.id.localeCompare(b.id));
    if (rand) {
      for (let i = group.length - 1; i > 0; i--) {
        const j = Math.floor(rand() * (i + 1));
        [group[i], group[j]] = [group[j], group[i]];
      }
    }
    for (const t of group) {
      folds[next].push(t);
      next = (next + 1) % k;
    }
  }
  return folds;
}

export interface CvReport {
  folds: { train: number; test: number; steps: number; report: EvalReport }[];
  /** Mean over folds of each metric. */
  mean: { forward: Record<string, number>; next: Record<string, number> };
  /** Next-step hits pooled over every held-out step (folds weighted by their step counts). */
  pooled: Record<string, number>;
}

/** A ranker trained on one fold's training tasks, and how to release it. */
export interface FoldRanker { ranker: Ranker; dispose?: () => Promise<void> }

/**
 * Runs k-fold CV: `train(tasks)` builds a ranker from the other folds' tasks only (for GeoWeave, a
 * fresh learned state with no shipped practice), which is then evaluated on the held-out fold.
 */
export async function crossValidate(train: (tasks: EvalTask[]) => Promise<FoldRanker>, tasks: EvalTask[], k: number, opts: { ks?: number[]; signal?: AbortSignal; steps?: StepRecord[]; seed?: number } = {}): Promise<CvReport> {
  const ks = opts.ks ?? DEFAULT_KS;
  const folds = cvFolds(tasks, k, opts.seed ?? 0);
  const out: CvReport['folds'] = [];
  const pooledHits = new Map<string, number>();
  let pooledSteps = 0;
  for (let f = 0; f < k; f++) {
    const test = folds[f];
    const rest = folds.filter((_, j) => j !== f).flat();
    const { ranker, dispose } = await train(rest);
    try {
      const steps: StepRecord[] = [];
      const report = await evaluate(ranker, test, { ks, signal: opts.signal, steps });
      opts.steps?.push(...steps);
      out.push({ train: rest.length, test: test.length, steps: steps.length, report });
      pooledSteps += steps.length;
      for (const kk of ks) pooledHits.set(`hit@${kk}`, (pooledHits.get(`hit@${kk}`) ?? 0) + (report.next[`hit@${kk}`] ?? 0) * steps.length);
    } finally {
      await dispose?.();
    }
  }
  const r4 = (x: number) => Math.round(x * 10000) / 10000;
  const avg = (pick: (r: EvalReport) => Record<string, number>) => {
    const o: Record<string, number> = {};
    for (const key of Object.keys(pick(out[0].report))) o[key] = r4(out.reduce((a, f) => a + pick(f.report)[key], 0) / out.length);
    return o;
  };
  const pooled: Record<string, number> = {};
  for (const [key, v] of pooledHits) pooled[key] = r4(pooledSteps ? v / pooledSteps : 0);
  return { folds: out, mean: { forward: avg((r) => r.forward), next: avg((r) => r.next) }, pooled };
}
