/**
 * Simple learned baselines, printed beside the product in every evaluation table. They read only
 * the training flows (no manifests, no text of the tools), so a catalog's bare manifests cannot
 * hurt them: the product has to beat them on the evidence the catalog actually has.
 *
 * - `transitions`: last tool → next tool counts (no forward answer).
 * - `knn`: the 10 training tasks most similar to the query (tf-idf cosine over its words) vote
 *   for their flows' tools; the next step adds the transition counts to what followed the last
 *   tool in those flows.
 */
import type { Ranker } from './ranker';
import { flowOf, type EvalTask } from './tasks';
import { tokenize } from '../embed/tokenize';

type Counts = Map<string, number>;

const add = (m: Counts, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);

/** Best first; ties by how often the tool was run at all, then by id (deterministic). */
function rank(scores: Counts, popular: Counts, exclude: Set<string>, k: number): string[] {
  return [...new Set([...scores.keys(), ...popular.keys()])]
    .filter((id) => !exclude.has(id))
    .sort((a, b) => (scores.get(b) ?? 0) - (scores.get(a) ?? 0) || (popular.get(b) ?? 0) - (popular.get(a) ?? 0) || a.localeCompare(b))
    .slice(0, k);
}

/** Counts of what followed each tool, and of how many flows ran each tool. */
function transitionCounts(train: EvalTask[]): { next: Map<string, Counts>; popular: Counts } {
  const next = new Map<string, Counts>();
  const popular: Counts = new Map();
  for (const t of train) {
    const f = flowOf(t);
    for (const id of new Set(f)) add(popular, id, 1);
    for (let i = 0; i + 1 < f.length; i++) add(next.get(f[i]) ?? next.set(f[i], new Map()).get(f[i])!, f[i + 1], 1);
  }
  return { next, popular };
}

/** Share of each tool among what followed `last` (empty when `last` was never seen). */
function transitionShare(next: Map<string, Counts>, last: string | undefined): Counts {
  const row = last ? next.get(last) : undefined;
  const out: Counts = new Map();
  if (!row) return out;
  let n = 0;
  for (const v of row.values()) n += v;
  for (const [id, v] of row) out.set(id, v / n);
  return out;
}

export function transitionsBaseline(train: EvalTask[]): Ranker {
  const { next, popular } = transitionCounts(train);
  return {
    name: 'transitions',
    async next(_query, done, k) {
      return rank(transitionShare(next, done[done.length - 1]), popular, new Set(done), k);
    },
  };
}

export function knnBaseline(train: EvalTask[], neighbours = 10): Ranker {
  const { next, popular } = transitionCounts(train);
  const docs = train.map((t) => ({ terms: new Set(tokenize(t.query)), flow: flowOf(t) }));
  const df: Counts = new Map();
  for (const d of docs) for (const w of d.terms) add(df, w, 1);
  const idf = (w: string) => Math.log(1 + docs.length / (df.get(w) ?? docs.length));
  const norms = docs.map((d) => Math.sqrt([...d.terms].reduce((s, w) => s + idf(w) ** 2, 0)));
  const similar = (query: string) => {
    const q = new Set(tokenize(query).filter((w) => df.has(w)));
    const qn = Math.sqrt([...q].reduce((s, w) => s + idf(w) ** 2, 0));
    if (!qn) return [];
    return docs
      .map((d, i) => ({ d, sim: norms[i] ? [...d.terms].reduce((s, w) => s + (q.has(w) ? idf(w) ** 2 : 0), 0) / (qn * norms[i]) : 0 }))
      .filter((x) => x.sim > 0)
      .sort((a, b) => b.sim - a.sim)
      .slice(0, neighbours);
  };
  return {
    name: 'knn',
    async forward(query, k) {
      const votes: Counts = new Map();
      for (const { d, sim } of similar(query)) for (const id of new Set(d.flow)) add(votes, id, sim);
      return { ids: rank(votes, popular, new Set(), k) };
    },
    async next(query, done, k) {
      const last = done[done.length - 1];
      const scores = transitionShare(next, last);
      const votes: Counts = new Map();
      let total = 0;
      for (const { d, sim } of similar(query)) {
        const at = d.flow.lastIndexOf(last);
        if (at < 0 || at + 1 >= d.flow.length) continue;
        add(votes, d.flow[at + 1], sim);
        total += sim;
      }
      for (const [id, v] of votes) add(scores, id, v / total);
      return rank(scores, popular, new Set(done), k);
    },
  };
}
