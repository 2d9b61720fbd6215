/**
 * Case-based next steps: what analysts ran after the same step in tasks worded like this one.
 * Transition counts say what usually follows a tool in general; a case keeps the task's terms
 * with its flow, so "after NDVI, in tasks about years of decline" can vote for a breakpoint
 * search while "after NDVI, in tasks about parcels" votes for zonal statistics.
 */
import { weightedIdf } from './weighted-idf';

/** One executed flow: the task's terms and the tools in the order they ran; `t` is when (ms), Infinity for the shipped prior (never decays). */
export interface Case { terms: string[]; tools: string[]; t: number; /** The task as typed (kept so a fusion fit can replay the flow). */ query?: string }

interface Entry { c: Case; norm: number; /** The flow's tools, each once. */ tools: string[] }

/** A tf-idf cosine at which a past task counts as close (typical of the same scenario in other words). */
const CLOSE = 0.3;

export class CaseIndex {
  private readonly idf = new Map<string, number>();
  private readonly entries: Entry[];
  /** Term → the cases whose task has it (only cases sharing a term with the query can be similar). */
  private readonly postings = new Map<string, number[]>();
  private lastKey: string | undefined;
  private lastNear: { sim: number; c: Case }[] | undefined;

  /** `decay(t)` is the weight of a case recorded at `t` (1 for Infinity). */
  constructor(cases: Case[], private readonly decay: (t: number) => number) {
    for (const [term, v] of weightedIdf(cases.map((c) => ({ terms: c.terms, w: decay(c.t) })))) this.idf.set(term, v);
    this.entries = cases.map((c) => ({ c, norm: Math.sqrt(c.terms.reduce((s, term) => s + (this.idf.get(term) ?? 0) ** 2, 0)), tools: [...new Set(c.tools)] }));
    this.entries.forEach((e, i) => { for (const term of new Set(e.c.terms)) (this.postings.get(term) ?? this.postings.set(term, []).get(term)!).push(i); });
  }

  /**
   * How strongly the flows of the `neighbours` tasks most like `terms` used each tool: the sum of
   * their similarities over the flows that used it (once per flow), as a share of `neighbours`
   * flows at CLOSE similarity, capped at 1. Not normalised by the neighbours found: a task unlike
   * any before gets weak votes, not confident ones.
   */
  toolsOf(terms: string[], neighbours: number): Map<string, number> {
    const out = new Map<string, number>();
    for (const { sim, c } of this.nearest(terms).slice(0, neighbours)) for (const t of new Set(c.tools)) out.set(t, (out.get(t) ?? 0) + sim);
    for (const [k, v] of out) out.set(k, Math.min(1, v / (neighbours * CLOSE)));
    return out;
  }

  /** The tools of the flows of the `neighbours` tasks most like `terms`, each as a share of their total similarity (the kNN vote). */
  toolShares(terms: string[], neighbours: number): Map<string, number> {
    const out = new Map<string, number>();
    let total = 0;
    for (const { sim, c } of this.nearest(terms).slice(0, neighbours)) {
      total += sim;
      for (const t of new Set(c.tools)) out.set(t, (out.get(t) ?? 0) + sim);
    }
    if (total > 0) for (const [k, v] of out) out.set(k, v / total);
    return out;
  }

  /**
   * The tools of the `flows` past flows that best match the task, each as a share of their match.
   * A flow matches by its task's words (the tf-idf cosine, as `toolShares`) plus by its tools: how
   * much of it the task already points at (`pointed`, tool → 0..1, from the tools' own text and the
   * per-tool word model), as a cosine between the flow's tool set and the pointed set. Past tasks
   * worded unlike this one still count when their pipeline is the one the task's tools belong to:
   * short, differently phrased tasks rarely share words with the flow that fits them best, but the
   * tools they name do.
   */
  matchedFlows(terms: string[], pointed: Map<string, number>, flows: number): Map<string, number> {
    const out = new Map<string, number>();
    let total = 0;
    for (const { sim, c } of this.matched(terms, pointed).slice(0, flows)) {
      total += sim;
      for (const t of new Set(c.tools)) out.set(t, (out.get(t) ?? 0) + sim);
    }
    if (total > 0) for (const [k, v] of out) out.set(k, v / total);
    return out;
  }

  /** `ahead` over the flows `matchedFlows` picks (their words, the tools pointed at, and the steps done among those tools). */
  matchedAhead(terms: string[], pointed: Map<string, number>, done: string[], flows: number): Map<string, number> {
    return this.aheadOf(this.matched(terms, pointed).slice(0, flows), done);
  }

  /** Cases by their match to the task (words) plus their tool set's cosine to `pointed`, best first. */
  private matched(terms: string[], pointed: Map<string, number>): { sim: number; c: Case }[] {
    const text = new Map<Case, number>();
    for (const { sim, c } of this.nearest(terms)) text.set(c, sim);
    let mass = 0;
    for (const v of pointed.values()) mass += v * v;
    const pn = Math.sqrt(mass);
    const scored: { sim: number; c: Case }[] = [];
    for (const { c, tools } of this.entries) {
      let dot = 0;
      if (pn) {
        for (const t of tools) dot += pointed.get(t) ?? 0;
        dot /= Math.sqrt(tools.length) * pn;
      }
      const sim = (text.get(c) ?? 0) + dot * this.decay(c.t);
      if (sim > 0) scored.push({ sim, c });
    }
    // Best first; equal matches keep the cases' order (a stable sort: deterministic).
    return scored.sort((a, b) => b.sim - a.sim);
  }

  /**
   * What is still ahead in the flows of the `neighbours` tasks most like `terms`: each flow is
   * aligned at its last run of the latest step of `done` it holds, and votes for the tools after
   * that point not run yet, halving with each step further on (the next step counts fully). A
   * share of the neighbours' similarity: 1 when every close flow runs the tool next.
   */
  ahead(terms: string[], done: string[], neighbours: number): Map<string, number> {
    return this.aheadOf(this.nearest(terms).slice(0, neighbours), done);
  }

  private aheadOf(near: { sim: number; c: Case }[], done: string[]): Map<string, number> {
    const out = new Map<string, number>();
    const ran = new Set(done);
    let total = 0;
    for (const { sim, c } of near) {
      total += sim;
      let at = -1;
      for (let i = done.length - 1; i >= 0 && at < 0; i--) at = c.tools.lastIndexOf(done[i]);
      const seen = new Set<string>();
      let d = 0;
      for (let j = at + 1; j < c.tools.length; j++) {
        const t = c.tools[j];
        if (ran.has(t) || seen.has(t)) continue;
        seen.add(t);
        out.set(t, (out.get(t) ?? 0) + sim * Math.pow(0.5, d++));
      }
    }
    if (total > 0) for (const [k, v] of out) out.set(k, v / total);
    return out;
  }

  /** Cases with a positive similarity to `terms`, closest first (the last query's list is kept). */
  private nearest(terms: string[]): { sim: number; c: Case }[] {
    const key = terms.join('\u0001');
    if (this.lastKey === key && this.lastNear) return this.lastNear;
    const sims: { sim: number; c: Case }[] = [];
    const q = this.query(terms);
    if (q) {
      const dots = new Map<number, number>();
      for (const term of q.terms) {
        const w = (this.idf.get(term) ?? 0) ** 2;
        for (const i of this.postings.get(term) ?? []) dots.set(i, (dots.get(i) ?? 0) + w);
      }
      for (const i of [...dots.keys()].sort((a, b) => a - b)) {
        const e = this.entries[i];
        const dot = dots.get(i)!;
        const sim = e.norm && dot ? (dot / (q.norm * e.norm)) * this.decay(e.c.t) : 0;
        if (sim > 0) sims.push({ sim, c: e.c });
      }
      sims.sort((a, b) => b.sim - a.sim);
    }
    this.lastKey = key;
    this.lastNear = sims;
    return sims;
  }

  /**
   * Each past flow that ran the latest step of `done` votes, with the tf-idf cosine of its task
   * terms to `terms` (times its decay), for the first tool after that step not run yet here.
   * Returns each tool's share of the votes of the `neighbours` most similar voting flows.
   */
  nextAfter(terms: string[], done: string[], neighbours: number): Map<string, number> {
    const out = new Map<string, number>();
    const last = done[done.length - 1];
    if (!last) return out;
    const ran = new Set(done);
    let total = 0;
    let voters = 0;
    for (const { sim, c } of this.nearest(terms)) {
      const at = c.tools.lastIndexOf(last);
      if (at < 0) continue;
      const next = c.tools.slice(at + 1).find((x) => !ran.has(x));
      if (!next) continue;
      out.set(next, (out.get(next) ?? 0) + sim);
      total += sim;
      if (++voters >= neighbours) break;
    }
    if (total > 0) for (const [k, v] of out) out.set(k, v / total);
    return out;
  }

  /** The query's terms and tf-idf norm; undefined when no term was ever seen in a case. */
  private query(terms: string[]): { terms: Set<string>; norm: number } | undefined {
    const q = new Set(terms);
    let n = 0;
    for (const term of q) n += (this.idf.get(term) ?? 0) ** 2;
    return n ? { terms: q, norm: Math.sqrt(n) } : undefined;
  }
}
