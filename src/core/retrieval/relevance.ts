/** Text relevance of tools to one query: dense (HNSW, soft-pooled over each tool's texts) fused with BM25. */
import type { RetrievalContext, RetrievalMode } from './context';
import { embedQuery } from './context';

/** Near the median best dense score of the practice tasks (0.27 soft-pooled; it was 0.42 max-pooled with floor 0.4). */
const DENSE_FLOOR = 0.25;
export const LEXICAL_FLOOR = 12;

export interface Relevance {
  dense: number;
  lexical: number;
  /** Fused and normalised to about 0..1. */
  base: number;
  matched: string[];
}

/**
 * Scores a candidate pool (dense neighbours ∪ lexical hits, `pool` of each). Dense scores are
 * divided by the best dense score and BM25 by the best BM25 score, then mixed by the weights.
 */
export async function relevance(ctx: RetrievalContext, text: string, terms: string[], mode: RetrievalMode, pool: number, signal?: AbortSignal): Promise<Map<string, Relevance>> {
  const useDense = mode !== 'bm25';
  const useLex = mode !== 'dense';
  const out = new Map<string, Relevance>();
  let dense = new Map<string, number>();
  let q: Float32Array | undefined;
  if (useDense) {
    q = await embedQuery(ctx, text, signal);
    dense = pool >= ctx.tools.size ? ctx.index.scoreAll(q) : ctx.index.search(q, pool);
  }
  // In full mode a tool's text match is weighed by its folder's reach before the best match is
  // taken: a folder the team's flows never run can neither win the text parts nor set their scale.
  const reach = mode === 'full' ? ctx.reach?.() : undefined;
  const reached = (id: string) => reach?.get(id) ?? 1;
  const hits = useLex ? ctx.bm25.search(terms, pool) : [];
  const lex = reach?.size ? hits.map((h) => ({ ...h, score: h.score * reached(h.id) })) : hits;
  const ids = new Set<string>([...dense.keys(), ...lex.map((h) => h.id)]);
  const lexBy = new Map(lex.map((h) => [h.id, h]));
  if (q) for (const id of ids) if (!dense.has(id)) dense.set(id, ctx.index.score(q, id));
  if (reach?.size) for (const [id, v] of dense) dense.set(id, v * reached(id));
  // Scores are relative to the best candidate, but never to a weak best: floors near the median
  // best score of real tasks keep junk queries ("x", "hello") from looking like perfect matches.
  const dMax = Math.max(DENSE_FLOOR, ...dense.values());
  const lMax = Math.max(LEXICAL_FLOOR, ...lex.map((h) => h.score));
  const { weights: w } = ctx;
  for (const id of ids) {
    if (!ctx.tools.has(id)) continue;
    const d = Math.max(0, dense.get(id) ?? 0) / dMax;
    const h = lexBy.get(id);
    const l = h ? h.score / lMax : 0;
    // The mix's proportions only (a fit may weigh text low against learned evidence; both zero → even).
    const wd = w.dense + w.lexical > 0 ? w.dense / (w.dense + w.lexical) : 0.5;
    const base = mode === 'bm25' ? l : mode === 'dense' ? d : wd * d + (1 - wd) * l;
    out.set(id, { dense: d, lexical: l, base, matched: h?.matched ?? [] });
  }
  return out;
}
