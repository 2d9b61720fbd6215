/**
 * Sequences, not just pairs: what analysts ran next after the same recent steps. An interpolated
 * n-gram model over executed flows: P(next | the last n−1 tools), backing off from longer to
 * shorter histories by absolute discounting, down to how often a tool is run at all. A flow's start
 * is a step of its own ("^"), so the second step of a pipeline is told from the same pair later on.
 * Also the catalog-free statistics forward retrieval borrows from flows: how many flows run a tool,
 * and which tools run in the same flows.
 */

/** A flow as the model counts it: its tools in order, and its weight (decayed age; 1 for shipped practice). */
export interface WeightedFlow { tools: string[]; w: number }

const START = '^';
const SEP = '\u0001';

export class FlowSequences {
  /** history (tools joined by SEP) → next tool → weighted count. */
  private readonly follow = new Map<string, Map<string, number>>();
  private readonly histTotal = new Map<string, number>();
  private readonly nextTotal = new Map<string, number>();
  private nextSum = 0;
  /** Tool → weighted number of flows that ran it; pairs of tools run in the same flow. */
  private readonly inFlows = new Map<string, number>();
  private readonly together = new Map<string, Map<string, number>>();
  /** Tool → weighted number of flows that ran it more than once. */
  private readonly repeated = new Map<string, number>();
  private flowSum = 0;

  constructor(flows: WeightedFlow[], readonly maxOrder = 4, readonly discount = 0.75) {
    for (const { tools, w } of flows) {
      if (!tools.length || !(w > 0)) continue;
      const seq = [START, ...tools];
      for (let i = 1; i < seq.length; i++) {
        const next = seq[i];
        this.nextTotal.set(next, (this.nextTotal.get(next) ?? 0) + w);
        this.nextSum += w;
        for (let n = 1; n < maxOrder && i - n >= 0; n++) {
          const h = seq.slice(i - n, i).join(SEP);
          const row = this.follow.get(h) ?? this.follow.set(h, new Map()).get(h)!;
          row.set(next, (row.get(next) ?? 0) + w);
          this.histTotal.set(h, (this.histTotal.get(h) ?? 0) + w);
        }
      }
      const uniq = [...new Set(tools)];
      this.flowSum += w;
      const again = new Set(tools.filter((t, i) => tools.indexOf(t) !== i));
      for (const t of again) this.repeated.set(t, (this.repeated.get(t) ?? 0) + w);
      for (const a of uniq) {
        this.inFlows.set(a, (this.inFlows.get(a) ?? 0) + w);
        const row = this.together.get(a) ?? this.together.set(a, new Map()).get(a)!;
        for (const b of uniq) if (b !== a) row.set(b, (row.get(b) ?? 0) + w);
      }
    }
  }

  get flowCount(): number {
    return this.flowSum;
  }

  /**
   * P(tool | the steps so far) for every tool ever run after something (others: 0). Longer matching
   * histories dominate when they were seen often.
   */
  next(done: string[]): Map<string, number> {
    const seq = [START, ...done];
    // Histories from the shortest to the longest that was seen.
    const hists: string[] = [];
    for (let n = 1; n < this.maxOrder && n <= seq.length; n++) {
      const h = seq.slice(seq.length - n).join(SEP);
      if (!this.histTotal.has(h)) break;
      hists.push(h);
    }
    const base = (t: string) => this.nextSum ? (this.nextTotal.get(t) ?? 0) / this.nextSum : 0;
    let p = new Map<string, number>();
    for (const t of this.nextTotal.keys()) p.set(t, base(t));
    for (const h of hists) {
      const row = this.follow.get(h)!;
      const total = this.histTotal.get(h)!;
      const backoff = (this.discount * row.size) / total;
      const q = new Map<string, number>();
      for (const [t, v] of p) q.set(t, backoff * v);
      for (const [t, c] of row) q.set(t, (q.get(t) ?? 0) + Math.max(0, c - this.discount) / total);
      p = q;
    }
    return p;
  }

  /** Length of the longest history of `done` (in tools, the start counting as one) ever followed by something. */
  matchedOrder(done: string[]): number {
    const seq = [START, ...done];
    let n = 0;
    while (n + 1 < this.maxOrder && n + 1 <= seq.length && this.histTotal.has(seq.slice(seq.length - n - 1).join(SEP))) n++;
    return n;
  }

  /** Share of flows that ran each tool. */
  popularity(tool: string): number {
    return this.flowSum ? (this.inFlows.get(tool) ?? 0) / this.flowSum : 0;
  }

  /** Share of the flows that ran a tool that ran it more than once (a reprojection after a clip and again before the export). */
  repeatRate(tool: string): number {
    const n = this.inFlows.get(tool);
    return n ? (this.repeated.get(tool) ?? 0) / n : 0;
  }

  /** Tools run in the same flows as `a`, with P(b | a). */
  companions(a: string): Map<string, number> {
    const n = this.inFlows.get(a);
    const out = new Map<string, number>();
    if (!n) return out;
    for (const [b, v] of this.together.get(a) ?? []) out.set(b, v / n);
    return out;
  }
}
