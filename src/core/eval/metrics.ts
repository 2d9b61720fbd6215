/** Ranking metrics: recall, nDCG and completeness at K, and hit at K. */

export function recallAt(ranked: string[], gold: string[], k: number): number {
  if (!gold.length) return 0;
  const top = new Set(ranked.slice(0, k));
  return gold.filter((g) => top.has(g)).length / gold.length;
}

export function ndcgAt(ranked: string[], gold: string[], k: number): number {
  const g = new Set(gold);
  let dcg = 0;
  ranked.slice(0, k).forEach((id, i) => { if (g.has(id)) dcg += 1 / Math.log2(i + 2); });
  let idcg = 0;
  for (let i = 0; i < Math.min(k, g.size); i++) idcg += 1 / Math.log2(i + 2);
  return idcg ? dcg / idcg : 0;
}

export function completeAt(ranked: string[], gold: string[], k: number): number {
  return recallAt(ranked, gold, k) === 1 ? 1 : 0;
}

export function hitAt(ranked: string[], target: string, k: number): number {
  return ranked.slice(0, k).includes(target) ? 1 : 0;
}

export function mean(xs: number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0;
}
