/**
 * The score parts retrieval mixes, as a table of named signals. Each part is computed per candidate
 * (forward.ts, backward.ts) on its own scale, mostly 0..1; penalties are negative values. A score is
 * the weighted sum of the parts: the weights are data (`Weights`), set by hand as a prior and fitted
 * per catalog and flows (`src/core/fusion/`), shown by `index stats`.
 */
import type { Weights } from './context';

/** Forward (task → tools) parts. */
export const FORWARD_SIGNALS = ['dense', 'lexical', 'graph', 'learned', 'similarTools', 'neighbours', 'flows', 'classifier', 'cooc', 'popular', 'coldStart', 'unseenWords', 'nameMatch', 'workflow', 'executability', 'llmHint'] as const;
/** Next-step (result + context → tools) parts. */
export const NEXT_SIGNALS = ['task', 'query', 'feed', 'nextGraph', 'transition', 'nextAffinity', 'bridge', 'workflowNext', 'done', 'blocked', 'temporal', 'terminal', 'deliver', 'named', 'pick', 'similar', 'ngram', 'ngramTask', 'ahead', 'flowsAhead', 'stepModel', 'coldNext'] as const;

export type ForwardSignal = (typeof FORWARD_SIGNALS)[number];
export type NextSignal = (typeof NEXT_SIGNALS)[number];
export type Parts<S extends string> = Record<S, number>;

/**
 * Parts a fit may change: the ones evaluation can observe. Readiness needs a data folder and the
 * LLM hint a chat server, neither of which a set of flows carries, so they keep their prior.
 */
export const FITTED_FORWARD: readonly ForwardSignal[] = FORWARD_SIGNALS.filter((s) => s !== 'executability' && s !== 'llmHint');
export const FITTED_NEXT: readonly NextSignal[] = NEXT_SIGNALS;

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
