/** Exact cosine scan over a packed matrix: the reference for recall and the benchmark baseline. */
import type { Neighbor, VectorIndex } from './vector-index';
import { VectorStore } from './vector-store';

export class ExactIndex implements VectorIndex {
  private readonly store: VectorStore;

  constructor(readonly dimension: number, capacity = 1024) {
    this.store = new VectorStore(dimension, capacity);
  }

  get size(): number { return this.store.size; }

  add(label: number, v: Float32Array): void { this.store.set(label, v); }

  remove(label: number): void { this.store.delete(label); }

  search(q: Float32Array, k: number): Neighbor[] {
    return topK(this.store.scanDots(q), this.store.labels, k);
  }
}

/** The k best (label, score) pairs, best first. */
export function topK(scores: Float32Array, labels: readonly number[], k: number): Neighbor[] {
  const kk = Math.min(k, scores.length);
  // Small k: keep a sorted buffer instead of sorting all n scores.
  const best: Neighbor[] = [];
  for (let i = 0; i < scores.length; i++) {
    const s = scores[i];
    if (best.length === kk && s <= best[kk - 1].score) continue;
    let pos = best.length;
    while (pos > 0 && best[pos - 1].score < s) pos--;
    best.splice(pos, 0, { label: labels[i], score: s });
    if (best.length > kk) best.pop();
  }
  return best;
}
