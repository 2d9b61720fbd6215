/**
 * What evaluation ranks with: the product (GeoWeave in a retrieval mode) or a simple learned
 * baseline. Both answer the same two questions, so every table can print them side by side.
 */
import type { GeoWeave } from '../geoweave';
import type { RetrievalMode } from '../retrieval/context';
import { memoryFromFlow } from './memory-from-flow';

export interface Ranker {
  readonly name: string;
  /** Tools for a task, best first; undefined when the ranker has no forward answer (transition counts). */
  forward?(query: string, k: number): Promise<{ ids: string[]; workflow?: string }>;
  /** Tools for the step after `done`, best first. A tool already run may come again where a ranker predicts it (teams reproject twice). */
  next(query: string, done: string[], k: number): Promise<string[]>;
}

/** GeoWeave itself, in one of its retrieval modes ("full" is the product). */
export function geoweaveRanker(gw: GeoWeave, mode: RetrievalMode): Ranker {
  return {
    name: mode,
    async forward(query, k) {
      const res = await gw.forwardCandidates(query, { k, mode });
      return { ids: res.candidates.map((c) => c.id), workflow: res.workflow?.id };
    },
    async next(query, done, k) {
      // As the product ranks them: a tool already run is pushed down by the `done` part, not removed.
      const r = await gw.complementarySuggestions(memoryFromFlow(gw, query, done), { k, mode });
      return r.ranked.map((s) => s.id);
    },
  };
}
