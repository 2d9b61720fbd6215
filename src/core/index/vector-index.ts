/** A nearest-neighbour index over L2-normalised vectors; scores are cosine similarities. */
export interface Neighbor { label: number; score: number }

export interface VectorIndex {
  readonly dimension: number;
  add(label: number, v: Float32Array): void;
  remove(label: number): void;
  search(q: Float32Array, k: number): Neighbor[];
  readonly size: number;
}

/** HNSW parameters; ef is a query-time setting (not saved by hnswlib). */
export interface HnswParams { M: number; efConstruction: number; ef: number; seed: number }

// M=32 / efConstruction=400: hashed sparse text vectors need a denser graph (bench: recall@10 0.99 at ef=96, 10k tools).
export const DEFAULT_HNSW: HnswParams = { M: 32, efConstruction: 400, ef: 96, seed: 42 };
