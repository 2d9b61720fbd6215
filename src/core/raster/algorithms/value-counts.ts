/**
 * Exact counts of distinct non-negative float32 values per 3×3 "where" cell, in an open-addressing table:
 * order statistics and "where are the values ≥ t" without a second pass over the data. Distances on a
 * grid take few distinct values (one per pixel offset), so the table stays small; past `maxDistinct` it
 * gives up (overflowed) and the caller falls back to another pass.
 */
export class ValueCounts {
  /**
   * One row of W words per slot: [used, key, count of cell 0 … 8]. Interleaved so that a pixel touches one
   * slot's words (about one cache line) instead of three arrays: with ~10^5 distinct distances the table
   * outgrows the cache and three misses per pixel made this ~12 ns a pixel (a tenth of distance_to).
   */
  private table: Uint32Array;
  private size = 0;
  private slotsN: number;
  private shift: number;
  overflowed = false;

  constructor(private readonly maxDistinct = 1 << 20, initial = 1 << 14) {
    this.table = new Uint32Array(initial * W);
    this.slotsN = initial; this.shift = 32 - Math.log2(initial);
  }

  get distinct(): number { return this.size; }

  /** Counts the float32 bit patterns `bits[from..to)` into `cell`. */
  add(bits: Uint32Array, from: number, to: number, cell: number): void {
    if (this.overflowed) return;
    let { table, shift } = this;
    let end = this.slotsN * W;
    let prevKey = -1, prevAt = -1;
    const c = 2 + cell;
    for (let i = from; i < to; i++) {
      const k = bits[i];
      if (k === prevKey) { table[prevAt + c]++; continue; }
      // Multiplicative hash, high bits: round values (low mantissa bits zero) spread too.
      let at = (Math.imul(k, 0x9e3779b1) >>> shift) * W;
      while (table[at] && table[at + 1] !== k) { at += W; if (at === end) at = 0; }
      if (!table[at]) {
        if ((this.size + 1) * 2 > this.slotsN) {
          if (this.size >= this.maxDistinct) { this.overflowed = true; return; }
          this.grow();
          ({ table, shift } = this);
          end = this.slotsN * W;
          at = (Math.imul(k, 0x9e3779b1) >>> shift) * W;
          while (table[at]) { at += W; if (at === end) at = 0; }
        }
        table[at] = 1; table[at + 1] = k; this.size++;
      }
      table[at + c]++;
      prevKey = k; prevAt = at;
    }
  }

  private grow(): void {
    const old = this.table, oldN = this.slotsN;
    const n = oldN * 2;
    const t = this.table = new Uint32Array(n * W);
    this.slotsN = n; this.shift = 32 - Math.log2(n);
    const end = n * W;
    for (let s = 0; s < oldN * W; s += W) {
      if (!old[s]) continue;
      let at = (Math.imul(old[s + 1], 0x9e3779b1) >>> this.shift) * W;
      while (t[at]) { at += W; if (at === end) at = 0; }
      t.set(old.subarray(s, s + W), at);
    }
  }

  /** Distinct bit patterns in ascending order (the order of non-negative floats) with their total counts. */
  sorted(): { keys: Uint32Array; totals: Float64Array; slots: Int32Array } {
    const t = this.table;
    const slots: number[] = [];
    for (let s = 0; s < this.slotsN; s++) if (t[s * W]) slots.push(s);
    slots.sort((a, b) => t[a * W + 1] - t[b * W + 1]);
    const keys = new Uint32Array(slots.length), totals = new Float64Array(slots.length);
    slots.forEach((s, j) => {
      keys[j] = t[s * W + 1];
      let n = 0; for (let c = 0; c < 9; c++) n += t[s * W + 2 + c];
      totals[j] = n;
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
      for (let c = 0; c < 9; c++) cells[c] += this.table[s * W + 2 + c];
    }
    return cells;
  }
}

/** Words per slot: used, key, nine cell counts. */
const W = 11;
