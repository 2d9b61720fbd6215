/**
 * Two-stage nearest-neighbour index: HNSW over PCA-projected vectors proposes candidates, which
 * are re-ranked exactly against the full vectors. Catalogs too small or too high-rank for a
 * projection get plain full-dimension HNSW (then the HNSW scores are already exact).
 */
import * as fs from 'fs';
import { HnswIndex } from './hnsw';
import { DEFAULT_PROJECTION, fitPca, Projection } from './projection';
import type { ProjectionOptions } from './projection';
import type { HnswParams, Neighbor, VectorIndex } from './vector-index';
import { DEFAULT_HNSW } from './vector-index';
import { MAX_INDEX_FILE_BYTES, readRegularFile, writeFileAtomic } from './fs-util';
import { topK } from './exact';
import { VectorStore } from './vector-store';

/** Everything that shapes a two-stage index; `hnsw.ef` and `candidates` are query-time only. */
export interface TwoStageOptions {
  hnsw: HnswParams;
  projection: ProjectionOptions;
  /** Candidates fetched from the projected graph per query (at least 2k) before exact re-ranking. */
  candidates: number;
}

// Tuned with `node out/bench/retrieval.js sweep` on 10k synthetic tools (bench/README.md).
export const DEFAULT_TWO_STAGE: TwoStageOptions = { hnsw: { ...DEFAULT_HNSW }, projection: { ...DEFAULT_PROJECTION }, candidates: 80 };

export function twoStageOptions(o: { hnsw?: Partial<HnswParams>; projection?: Partial<ProjectionOptions>; candidates?: number } = {}): TwoStageOptions {
  return {
    hnsw: { ...DEFAULT_TWO_STAGE.hnsw, ...o.hnsw },
    projection: { ...DEFAULT_TWO_STAGE.projection, ...o.projection },
    candidates: o.candidates ?? DEFAULT_TWO_STAGE.candidates,
  };
}

/** What the projection was fitted on: decides when the catalog has drifted enough to refit. */
export interface FitInfo {
  /** Live vectors at fit time. */
  vectors: number;
  /** Labels >= this were added after the fit. */
  nextLabel: number;
}

/** Files of a saved two-stage index. */
export interface TwoStageFiles { graph: string; vectors: string; projection: string }

const VECTORS_MAGIC = 0x31565747; // "GWV1" little-endian

export class TwoStageIndex implements VectorIndex {
  private store: VectorStore;
  private readonly pbuf: Float64Array;
  private readonly nz: Int32Array;

  private constructor(
    readonly dimension: number,
    private readonly graph: HnswIndex,
    readonly projection: Projection | undefined,
    readonly options: TwoStageOptions,
    readonly fit: FitInfo,
    capacity: number,
  ) {
    this.store = new VectorStore(dimension, Math.max(16, capacity));
    this.pbuf = new Float64Array(projection?.outDim ?? 0);
    this.nz = new Int32Array(dimension);
  }

  /** Builds from scratch: fits the projection on `items` (when the catalog warrants one), then adds them. */
  static build(dimension: number, items: { label: number; vector: Float32Array }[], options: TwoStageOptions = DEFAULT_TWO_STAGE, capacity = items.length): TwoStageIndex {
    const projection = fitPca(items.map((i) => i.vector), dimension, options.projection);
    const cap = Math.max(capacity, items.length);
    const graph = HnswIndex.create(projection?.outDim ?? dimension, cap, { ...options.hnsw });
    const fit = { vectors: items.length, nextLabel: items.reduce((m, i) => Math.max(m, i.label + 1), 0) };
    const ix = new TwoStageIndex(dimension, graph, projection, options, fit, cap);
    for (const i of items) ix.add(i.label, i.vector);
    return ix;
  }

  /**
   * Loads a saved index. `labels` are the live labels recorded beside it; `projection` is the
   * fitted projection's shape from the fingerprint (undefined when the index has none). Throws when
   * any file is unreadable or inconsistent.
   */
  static load(files: TwoStageFiles, dimension: number, labels: number[], options: TwoStageOptions, fit: FitInfo, projection?: { dimension: number; energy: number }): TwoStageIndex {
    const proj = projection ? Projection.fromBuffer(readRegularFile(files.projection, MAX_INDEX_FILE_BYTES), dimension, projection.dimension, projection.energy) : undefined;
    const graph = HnswIndex.load(files.graph, proj?.outDim ?? dimension, labels, { ...options.hnsw });
    const buf = readRegularFile(files.vectors, MAX_INDEX_FILE_BYTES);
    if (buf.length < 16) throw new Error(`${files.vectors}: too short for a vectors file`);
    const head = new Uint32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + 16));
    const [magic, dim, count] = head;
    if (magic !== VECTORS_MAGIC) throw new Error(`${files.vectors}: not a GeoWeave vectors file`);
    if (dim !== dimension) throw new Error(`${files.vectors}: dimension ${dim} != ${dimension}`);
    if (buf.length !== 16 + count * 4 + count * dim * 4) throw new Error(`${files.vectors}: ${buf.length} bytes, expected ${16 + count * 4 * (1 + dim)} for ${count} vectors`);
    const body = new Uint8Array(buf.buffer, buf.byteOffset + 16, buf.length - 16).slice();
    const stored = new Uint32Array(body.buffer, 0, count);
    const rows = new Float32Array(body.buffer, count * 4, count * dim);
    const want = new Set(labels);
    if (count !== want.size || new Set(stored).size !== count || !Array.from(stored).every((l) => want.has(l))) throw new Error(`${files.vectors}: its labels do not match the index`);
    if (!rows.every(Number.isFinite)) throw new Error(`${files.vectors}: holds non-finite values`);
    const ix = new TwoStageIndex(dimension, graph, proj, options, { ...fit }, 0);
    ix.store = VectorStore.from(dimension, Array.from(stored), rows);
    return ix;
  }

  get size(): number { return this.store.size; }

  /** Dimension of the vectors the HNSW graph holds (the projected dimension when projected). */
  get graphDimension(): number { return this.projection?.outDim ?? this.dimension; }

  get params(): HnswParams { return this.graph.params; }

  setEf(ef: number): void { this.graph.setEf(ef); }

  add(label: number, v: Float32Array): void {
    if (v.length !== this.dimension) throw new Error(`vector has dimension ${v.length}, index expects ${this.dimension}`);
    if (this.store.has(label)) this.remove(label);
    this.graph.add(label, this.projection ? this.projected(v) : v);
    this.store.set(label, v);
  }

  remove(label: number): void {
    if (!this.store.has(label)) return;
    this.graph.remove(label);
    this.store.delete(label);
  }

  search(q: Float32Array, k: number): Neighbor[] {
    const kk = Math.min(k, this.size);
    if (kk <= 0) return [];
    if (!this.projection) return this.graph.search(q, kk);
    const p = this.projected(q);
    if (!p.some((x) => x !== 0)) return this.scan(q, kk); // q is orthogonal to the projection: nothing to navigate by
    const cands = this.graph.search(p, Math.min(this.size, Math.max(2 * kk, this.options.candidates)));
    // Exact re-ranking; text-embedding queries are sparse, so only their non-zeros are visited.
    const d = this.dimension;
    const nz = this.nz;
    let m = 0;
    for (let j = 0; j < d; j++) if (q[j] !== 0) nz[m++] = j;
    const data = this.store.data;
    for (const c of cands) {
      const off = this.store.row(c.label)! * d;
      let s = 0;
      for (let t = 0; t < m; t++) s += data[off + nz[t]] * q[nz[t]];
      c.score = s;
    }
    cands.sort((a, b) => b.score - a.score);
    return cands.length > kk ? cands.slice(0, kk) : cands;
  }

  /** Exact cosine of `q` with the stored vector of `label` (undefined when absent). */
  /** Exact dot products of every stored vector with a sparse query, with the labels in the same order. */
  scanSparse(idx: Int32Array, val: Float32Array): { labels: readonly number[]; dots: Float32Array } {
    return { labels: this.store.labels, dots: this.store.scanSparse(idx, val) };
  }

  dot(label: number, q: Float32Array): number | undefined {
    return this.store.dot(label, q);
  }

  /** A copy of the stored full vector of `label`. */
  vector(label: number): Float32Array | undefined {
    return this.store.view(label)?.slice();
  }

  labels(): number[] { return [...this.store.labels]; }

  /** All live entries (views into the store; copy before mutating the index). */
  entries(): { label: number; vector: Float32Array }[] {
    return this.store.labels.map((label) => ({ label, vector: this.store.view(label)! }));
  }

  /**
   * Why the projection decision no longer fits the catalog (undefined while it does): it has doubled
   * since the fit, or the vectors added since are poorly represented by the projection.
   */
  refitReason(): string | undefined {
    const o = this.options.projection;
    if (this.size >= o.minVectors && this.size >= 2 * this.fit.vectors) return `the catalog grew from ${this.fit.vectors} to ${this.size} vectors since the projection was fitted`;
    if (!this.projection) return undefined;
    let n = 0;
    let residual = 0;
    for (const l of this.store.labels) {
      if (l < this.fit.nextLabel) continue;
      n++;
      residual += this.projection.residual(this.store.view(l)!);
    }
    const allowed = 2 * (1 - o.energy);
    if (n >= Math.max(20, 0.02 * this.size) && residual / n > allowed) {
      return `${n} vectors added since the projection was fitted keep only ${((1 - residual / n) * 100).toFixed(1)}% of their energy in it`;
    }
    return undefined;
  }

  /** Writes the graph, the full vectors and the projection (each through a temp file and rename). */
  save(files: TwoStageFiles): void {
    this.graph.save(files.graph);
    const n = this.size;
    const d = this.dimension;
    const buf = Buffer.alloc(16 + n * 4 + n * d * 4);
    const head = new Uint32Array(4);
    head.set([VECTORS_MAGIC, d, n, 0]);
    Buffer.from(head.buffer).copy(buf, 0);
    Buffer.from(Uint32Array.from(this.store.labels).buffer).copy(buf, 16);
    Buffer.from(this.store.data.buffer, 0, n * d * 4).copy(buf, 16 + n * 4);
    writeFileAtomic(files.vectors, buf);
    if (this.projection) writeFileAtomic(files.projection, this.projection.toBuffer());
    else if (fs.existsSync(files.projection)) fs.rmSync(files.projection, { force: true });
  }

  private projected(v: Float32Array): number[] {
    const p = this.projection!.projectInto(v, this.pbuf);
    return Array.from(p);
  }

  private scan(q: Float32Array, k: number): Neighbor[] {
    return topK(this.store.scanDots(q), this.store.labels, k);
  }
}
