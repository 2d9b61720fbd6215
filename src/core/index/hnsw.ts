/** hnswlib-node HierarchicalNSW in cosine space, with resize, deletes and safe persistence. */
import * as fs from 'fs';
import { HierarchicalNSW } from 'hnswlib-node';
import type { HnswParams, Neighbor, VectorIndex } from './vector-index';
import { DEFAULT_HNSW } from './vector-index';
import { MAX_INDEX_FILE_BYTES, readRegularFile, tempPathFor } from './fs-util';
import { hnswFileProblem } from './hnsw-file';

export class HnswIndex implements VectorIndex {
  private index: HierarchicalNSW;
  private live = new Set<number>();
  /** The ef hnswlib currently has, tracked here to spare two native calls per query. */
  private currentEf: number;

  private constructor(readonly dimension: number, readonly params: HnswParams, index: HierarchicalNSW) {
    this.index = index;
    this.currentEf = params.ef;
  }

  static create(dimension: number, capacity: number, params: Partial<HnswParams> = {}): HnswIndex {
    const p = { ...DEFAULT_HNSW, ...params };
    const index = new HierarchicalNSW('cosine', dimension);
    index.initIndex(Math.max(16, capacity), p.M, p.efConstruction, p.seed, true);
    index.setEf(p.ef);
    return new HnswIndex(dimension, p, index);
  }

  /**
   * Loads a saved index; `labels` are the live labels recorded beside it. The file is checked
   * structurally first (see hnsw-file.ts), so a damaged or forged file throws here instead of
   * crashing the process inside the addon.
   */
  static load(file: string, dimension: number, labels: number[], params: Partial<HnswParams> = {}): HnswIndex {
    const p = { ...DEFAULT_HNSW, ...params };
    const before = fs.statSync(file);
    const problem = hnswFileProblem(readRegularFile(file, MAX_INDEX_FILE_BYTES), { dimension, M: p.M, efConstruction: p.efConstruction, labels });
    if (problem) throw new Error(`${file}: not a usable index (${problem})`);
    const index = new HierarchicalNSW('cosine', dimension);
    index.readIndexSync(file, true);
    const after = fs.statSync(file);
    if (after.ino !== before.ino || after.size !== before.size || after.mtimeMs !== before.mtimeMs) {
      throw new Error(`${file} changed while it was being read`);
    }
    index.setEf(p.ef); // ef is not persisted by hnswlib
    const h = new HnswIndex(dimension, p, index);
    for (const l of labels) h.live.add(l);
    return h;
  }

  get size(): number { return this.live.size; }

  setEf(ef: number): void {
    this.params.ef = ef;
    this.index.setEf(ef);
    this.currentEf = ef;
  }

  add(label: number, v: Float32Array | number[]): void {
    if (v.length !== this.dimension) throw new Error(`vector has dimension ${v.length}, index expects ${this.dimension}`);
    if (this.live.has(label)) this.remove(label);
    if (this.index.getCurrentCount() + 1 > this.index.getMaxElements()) {
      // Deleted slots still count; grow geometrically so adds stay amortised O(1).
      this.index.resizeIndex(Math.ceil(this.index.getMaxElements() * 1.5) + 16);
    }
    this.index.addPoint(Array.isArray(v) ? v : Array.from(v), label, true);
    this.live.add(label);
  }

  remove(label: number): void {
    if (!this.live.has(label)) return;
    this.index.markDelete(label);
    this.live.delete(label);
  }

  /** `q` may be a plain array already (hnswlib-node copies it element by element either way). */
  search(q: Float32Array | number[], k: number): Neighbor[] {
    const kk = Math.min(k, this.live.size);
    if (kk <= 0) return [];
    const ef = Math.max(kk, this.params.ef);
    if (this.currentEf !== ef) {
      this.index.setEf(ef);
      this.currentEf = ef;
    }
    const r = this.index.searchKnn(Array.isArray(q) ? q : Array.from(q), kk);
    const out: Neighbor[] = new Array(r.neighbors.length);
    for (let i = 0; i < out.length; i++) out[i] = { label: r.neighbors[i], score: 1 - r.distances[i] };
    return out;
  }

  /** The stored (normalised) vector of a live label. */
  vector(label: number): Float32Array {
    return Float32Array.from(this.index.getPoint(label));
  }

  labels(): number[] {
    return [...this.live];
  }

  /**
   * Writes to `file` through a temp file and rename. The temp file is created exclusively under a
   * random name first, so the addon never writes through a symlink planted in the folder.
   */
  save(file: string): void {
    const tmp = tempPathFor(file);
    try {
      fs.closeSync(fs.openSync(tmp, 'wx', 0o644));
      this.index.writeIndexSync(tmp);
      // The addon does not report failed writes (a full disk leaves a short file): check before renaming.
      const problem = hnswFileProblem(fs.readFileSync(tmp), { dimension: this.dimension, M: this.params.M, efConstruction: this.params.efConstruction, labels: [...this.live] });
      if (problem) throw new Error(`writing the index failed (${problem}); is the disk full?`);
      fs.renameSync(tmp, file);
    } catch (e) {
      fs.rmSync(tmp, { force: true });
      throw e;
    }
  }
}
