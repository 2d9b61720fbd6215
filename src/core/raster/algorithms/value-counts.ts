/**
 * Exact counts of distinct non-negative float32 values per 3×3 "where" cell, in an open-addressing table:
 * order statistics and "where are the values ≥ t" without a second pass over the data. Distances on a
 * grid take few distinct values (one per pixel offset), so the table stays small; past `maxDistinct` it
 * gives up (overflowed) and the caller falls back to another pass.
 */
export class ValueCounts {
  private keys: Uint32Array;
  private counts: Uint32Array; // 9 per slot
  private used: Uint8Array;
  private size = 0;
  private mask: number;
  private shift: number;
  overflowed = false;

  constructor(private readonly maxDistinct = 1 << 20, initial = 1 << 14) {
    this.keys = new Uint32Array(initial); this.counts = new Uint32Array(initial * 9); this.used = new Uint8Array(initial);
    this.mask = initial - 1; this.shift = 32 - Math.log2(initial);
  }

  get distinct(): number { return this.size; }

  /** Counts the float32 bit patterns `bits[from..to)` into `cell`. */
  add(bits: Uint32Array, from: number, to: number, cell: number): void {
    if (this.overflowed) return;
    let { keys, counts, used, mask, shift } = this;
    let prevKey = -1, prevSlot = -1;
    for (let i = from; i < to; i++) {
      const k = bits[i];
      if (k === prevKey) { counts[prevSlot * 9 + cell]++; continue; }
      // Multiplicative hash, high bits: round values (low mantissa bits zero) spread too.
      let s = Math.imul(k, 0x9e3779b1) >>> shift;
      while (used[s] && keys[s] !== k) s = (s + 1) & mask;
      if (!used[s]) {
        if ((this.size + 1) * 2 > keys.length) {
          if (this.size >= this.maxDistinct) { this.overflowed = true; return; }
          this.grow();
          ({ keys, counts, used, mask, shift } = this);
          s = Math.imul(k, 0x9e3779b1) >>> shift;
          while (used[s]) s = (s + 1) & mask;
        }
        used[s] = 1; keys[s] = k; this.size++;
      }
      counts[s * 9 + cell]++;
      prevKey = k; prevSlot = s;
    }
  }

  private grow(): void {
    const ok = this.keys, oc = this.counts, ou = this.used;
    const n = ok.length * 2;
    this.keys = new Uint32Array(n); this.counts = new Uint32Array(n * 9); this.used = new Uint8Array(n);
    this.mask = n - 1; this.shift = 32 - Math.log2(n);
    for (let s = 0; s < ok.length; s++) {
      if (!ou[s]) continue;
      let t = Math.imul(ok[s], 0x9e3779b1) >>> this.shift;
      while (this.used[t]) t = (t + 1) & this.mask;
      this.used[t] = 1; this.keys[t] = ok[s];
      this.counts.set(oc.subarray(s * 9, s * 9 + 9), t * 9);
    }
  }

  /** Distinct bit patterns in ascending order (the order of non-negative floats) with their total counts. */
  sorted(): { keys: Uint32Array; totals: Float64Array; slots: Int32Array } {
    const slots: number[] = [];
    for (let s = 0; s < this.keys.length; s++) if (this.used[s]) slots.push(s);
    slots.sort((a, b) => this.keys[a] - this.keys[b]);
    const keys = new Uint32Array(slots.length), totals = new Float64Array(slots.length);
    slots.forEach((s, j) => {
      keys[j] = this.keys[s];
      let t = 0; for (let c = 0; c < 9; c++) t += this.counts[s * 9 + c];
      totals[j] = t;
    });
    return { keys, totals, slots: Int32Array.from(slots) };
  }

  /** Bit pattern of the value at 0-based `rank` in ascending order. */
  static atRank(sorted: { keys: Uint32Array; totals: Float64Array }, rank: number): number {
    let c = 0;
    for (let j = 0; j < sorted.keys.length; j++) { c += sorted.totals[j]; if (c > rank) return sorted.keys[j]; }
    throw new Error('rank outside the counts');
  }

  /** Per-cell counts of values whose bit pattern is ≥ `key`. */
  cellsAtOrAbove(sorted: { keys: Uint32Array; slots: Int32Array }, key: number): number[] {
    const cells = new Array(9).fill(0);
    for (let j = 0; j < sorted.keys.length; j++) {
      if (sorted.keys[j] < key) continue;
      const s = sorted.slots[j];
      for (let c = 0; c < 9; c++) cells[c] += this.counts[s * 9 + c];
    }
    return cells;
  }
}
