/**
 * Packed row-major store of labelled vectors: one Float32Array, swap-remove, amortised growth.
 * Rows are dense (0..size-1), so scans run over one contiguous buffer.
 */
export class VectorStore {
  private buf: Float32Array;
  /** The same values column by column (dimension-major), built for sparse scans and dropped on change. */
  private cols: Float32Array | undefined;
  private rowLabels: number[] = [];
  private readonly rowOf = new Map<number, number>();

  constructor(readonly dimension: number, capacity = 1024) {
    this.buf = new Float32Array(dimension * Math.max(1, capacity));
  }

  /** Wraps rows read from disk (`rows.length` = labels.length × dimension). */
  static from(dimension: number, labels: number[], rows: Float32Array): VectorStore {
    if (rows.length !== labels.length * dimension) throw new Error(`${rows.length} values for ${labels.length} vectors of dimension ${dimension}`);
    const s = new VectorStore(dimension, labels.length);
    s.buf.set(rows);
    s.rowLabels = [...labels];
    s.rowLabels.forEach((l, i) => s.rowOf.set(l, i));
    return s;
  }

  get size(): number { return this.rowLabels.length; }

  /** The packed rows (only the first size × dimension values are live; the buffer may be replaced on add). */
  get data(): Float32Array { return this.buf; }

  /** Label of each row, in row order (do not mutate). */
  get labels(): readonly number[] { return this.rowLabels; }

  has(label: number): boolean { return this.rowOf.has(label); }

  /** Row index of `label`, or undefined. */
  row(label: number): number | undefined { return this.rowOf.get(label); }

  /** Adds or replaces the vector of `label`. */
  set(label: number, v: Float32Array): void {
    this.cols = undefined;
    if (v.length !== this.dimension) throw new Error(`vector has dimension ${v.length}, index expects ${this.dimension}`);
    if (this.rowOf.has(label)) this.delete(label);
    const i = this.rowLabels.length;
    if ((i + 1) * this.dimension > this.buf.length) {
      const bigger = new Float32Array(Math.ceil(this.buf.length * 1.5) + this.dimension * 16);
      bigger.set(this.buf);
      this.buf = bigger;
    }
    this.buf.set(v, i * this.dimension);
    this.rowLabels.push(label);
    this.rowOf.set(label, i);
  }

  /** Removes `label` (the last row moves into its place); false when absent. */
  delete(label: number): boolean {
    this.cols = undefined;
    const i = this.rowOf.get(label);
    if (i === undefined) return false;
    const last = this.rowLabels.length - 1;
    const d = this.dimension;
    if (i !== last) {
      this.buf.copyWithin(i * d, last * d, (last + 1) * d);
      this.rowLabels[i] = this.rowLabels[last];
      this.rowOf.set(this.rowLabels[i], i);
    }
    this.rowLabels.pop();
    this.rowOf.delete(label);
    return true;
  }

  /** A view of the vector of `label` (valid until the next add or delete). */
  view(label: number): Float32Array | undefined {
    const i = this.rowOf.get(label);
    return i === undefined ? undefined : this.buf.subarray(i * this.dimension, (i + 1) * this.dimension);
  }

  /** Dot product of `q` with the vector of `label` (undefined when absent). */
  dot(label: number, q: Float32Array): number | undefined {
    const i = this.rowOf.get(label);
    return i === undefined ? undefined : dotAt(this.buf, i * this.dimension, q, this.dimension);
  }

  /**
   * All rows' dot products with a sparse query (its non-zero positions and values), in row order.
   * Reads the column of each non-zero position: contiguous memory, a few dozen columns for a text query.
   */
  scanSparse(idx: Int32Array, val: Float32Array): Float32Array {
    const n = this.rowLabels.length;
    const d = this.dimension;
    if (!this.cols) {
      const c = new Float32Array(n * d);
      for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) c[j * n + i] = this.buf[i * d + j];
      this.cols = c;
    }
    const cols = this.cols;
    const out = new Float32Array(n);
    for (let j = 0; j < idx.length; j++) {
      const off = idx[j] * n;
      const v = val[j];
      for (let i = 0; i < n; i++) out[i] += cols[off + i] * v;
    }
    return out;
  }

  /** All rows' dot products with `q`, in row order. */
  scanDots(q: Float32Array): Float32Array {
    const n = this.rowLabels.length;
    const d = this.dimension;
    const out = new Float32Array(n);
    for (let i = 0; i < n; i++) out[i] = dotAt(this.buf, i * d, q, d);
    return out;
  }
}

/** Kept as a small monomorphic function: V8 optimises it best (about 1.4x over an inlined loop). */
export function dotAt(data: Float32Array, off: number, q: Float32Array, d: number): number {
  let s = 0;
  for (let j = 0; j < d; j++) s += data[off + j] * q[j];
  return s;
}
