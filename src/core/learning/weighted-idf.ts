/**
 * Inverse document frequency over past tasks weighed as the learned models weigh them. A shipped
 * practice of 888 flows read beside a team's 20 counts for a few steps' worth (`priorWeight`), but
 * counted one by one its words set the idf and made every domain word "seen before": the parts for
 * words no past task used fell silent for the team's new words.
 */

/** Weighted document frequency below which a word counts as never seen (a quarter of one flow's worth). */
export const KNOWN_DF = 0.25;

/** idf = log(1 + total weight / weighted df) for every word at or above KNOWN_DF. */
export function weightedIdf(docs: Iterable<{ terms: string[]; w: number }>): Map<string, number> {
  const df = new Map<string, number>();
  let total = 0;
  for (const d of docs) {
    if (!(d.w > 0)) continue;
    total += d.w;
    for (const t of new Set(d.terms)) df.set(t, (df.get(t) ?? 0) + d.w);
  }
  const idf = new Map<string, number>();
  for (const [t, n] of df) if (n >= KNOWN_DF) idf.set(t, Math.log(1 + total / n));
  return idf;
}
