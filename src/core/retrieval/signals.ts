/**
 * The score parts retrieval mixes, as a table of named signals. Each part is computed per candidate
 * (forward.ts, backward.ts) on its own scale, mostly 0..1; penalties are negative values. A score is
 * the weighted sum of the parts: the weights are data (`Weights`), set by hand as a prior and fitted
 * per catalog and flows (`src/core/fusion/`), shown by `index stats`.
 */
import type { Weights } from './context';

/** Forward (task → tools) parts. */
export const FORWARD_SIGNALS = ['dense', 'lexical', 'graph', 'learned', 'similarTools', 'neighbours', 'flows', 'classifier', 'classifierLog', 'cooc', 'popular', 'coldStart', 'unseenWords', 'nameMatch', 'workflow', 'executability', 'llmHint'] as const;
/** Next-step (result + context → tools) parts. */
export const NEXT_SIGNALS = ['task', 'query', 'feed', 'nextGraph', 'transition', 'nextAffinity', 'bridge', 'workflowNext', 'done', 'blocked', 'temporal', 'terminal', 'deliver', 'named', 'pick', 'similar', 'ngram', 'ngramTask', 'ahead', 'flowsAhead', 'stepModel', 'stepModelLog', 'coldNext', 'nameNext', 'again'] as const;

export type ForwardSignal = (typeof FORWARD_SIGNALS)[number];
export type NextSignal = (typeof NEXT_SIGNALS)[number];
export type Parts<S extends string> = Record<S, number>;

/**
 * Parts a fit may change: the ones evaluation can observe. Readiness needs a data folder and the
 * LLM hint a chat server, neither of which a set of flows carries, so they keep their prior.
 */
export const FITTED_FORWARD: readonly ForwardSignal[] = FORWARD_SIGNALS.filter((s) => s !== 'executability' && s !== 'llmHint');
export const FITTED_NEXT: readonly NextSignal[] = NEXT_SIGNALS;

/**
 * A probability on a log scale: 1 at p = 1, 0 at p ≤ e⁻⁸ (≈ 3e-4). Summed with other parts, a
 * probability separates only the likely: 0.08 and 0.001 both sit near 0 beside a 0.9. Models that
 * give every tool a probability (the next-step softmax, the per-tool classifier) also say which
 * unlikely tools are still plausible; on this scale a fit can weigh that.
 */
export function logScale(p: number): number {
  return p > 0 ? Math.max(0, 1 + Math.log(p) / 8) : 0;
}

export function zeroParts<S extends string>(names: readonly S[]): Parts<S> {
  const o = {} as Parts<S>;
  for (const n of names) o[n] = 0;
  return o;
}

/** The weighted sum of the parts. */
export function mix<S extends string>(names: readonly S[], w: Weights, parts: Parts<S>): number {
  let s = 0;
  for (const n of names) {
    const v = parts[n];
    if (v) s += (w as unknown as Record<string, number>)[n] * v;
  }
  return s;
}
