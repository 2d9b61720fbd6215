/**
 * Transition smoothing for next-step scoring. Tool→tool counts are sparse (a hundred flows cover a
 * fraction of the pairs), so P(b | a) backs off to P(b | the kind of product a yields) — "after
 * anything that makes a mask" — which itself backs off to the category of b. Interpolated, so a
 * well-attested pair keeps its own estimate and an unseen one inherits what its kind does.
 */
import type { IntentionGraph } from './intention-graph';

export interface BackoffOptions {
  /** Pseudo-count given to the kind-level estimate at the tool level. */
  toolPrior: number;
  /** Pseudo-count given to the category-level estimate at the kind level. */
  kindPrior: number;
}

export class TransitionModel {
  private readonly byKind: Map<string, Map<string, number>>;
  private readonly byKindCat: Map<string, Map<string, number>>;
  private readonly kindTotal = new Map<string, number>();
  private readonly catSize = new Map<string, number>();

  constructor(
    private readonly learned: IntentionGraph,
    private readonly kindOf: (tool: string) => string | undefined,
    private readonly categoryOf: (tool: string) => string | undefined,
    tools: Iterable<string>,
    private readonly opts: BackoffOptions,
  ) {
    this.byKind = learned.pooledTransitions(kindOf);
    this.byKindCat = learned.pooledTransitions(kindOf, categoryOf);
    for (const [k, row] of this.byKind) {
      let n = 0;
      for (const v of row.values()) n += Math.max(0, v);
      this.kindTotal.set(k, n);
    }
    for (const t of tools) {
      const c = categoryOf(t);
      if (c !== undefined) this.catSize.set(c, (this.catSize.get(c) ?? 0) + 1);
    }
  }

  /** P(b | product kind of a), smoothed towards P(category of b | kind) spread over the category. */
  kindLevel(a: string, b: string): number {
    const ka = this.kindOf(a);
    if (ka === undefined) return 0;
    const n = this.kindTotal.get(ka) ?? 0;
    if (!n) return 0;
    const cb = this.categoryOf(b);
    const cat = cb !== undefined ? Math.max(0, this.byKindCat.get(ka)?.get(cb) ?? 0) / n / (this.catSize.get(cb) ?? 1) : 0;
    const own = this.byKind.get(ka)?.get(b) ?? 0;
    return (own + this.opts.kindPrior * cat) / (n + this.opts.kindPrior);
  }

  /** Smoothed preference for b right after a, in about [-1, 1]; failures still count against a pair. */
  score(a: string, b: string): number {
    const total = this.learned.transitionTotal(a);
    const own = this.learned.transition(a, b) * (total + 2);
    // The +2 keeps one or two observations from reading as certainty (as IntentionGraph.transition does).
    return (own + this.opts.toolPrior * this.kindLevel(a, b)) / (total + 2 + this.opts.toolPrior);
  }
}
