/** Names for the signals a ranking score is made of, so the panel can show what a score consists of
 *  instead of a bare number. Unknown signals keep their key. */
import type { ScoreParts } from './types';

const LABELS: Record<string, string> = {
  dense: 'meaning match',
  lexical: 'keyword match',
  graph: 'tool graph link',
  learned: 'learned from your choices',
  similar: 'used in similar past tasks',
  executability: 'readiness on your data',
  workflow: 'workflow template step',
  llm: 'proposed by the LLM',
  task: 'fit to the task',
  query: 'fit to the complementary question',
  feed: 'takes the last output',
  affinity: 'task words seen with it',
  bridge: 'leads to what the task asks',
  temporal: 'time comparison the task asks for',
  terminal: 'final deliverable',
  deliver: 'delivers what the task names',
  named: 'indicator the task names',
  nameNext: 'the task names it',
  again: 'past flows often ran it again',
  pick: 'picks the class the task names',
  blocked: 'blocked: needs what is missing',
  done: 'already run',
  similarTools: 'in the flows of similar past tasks',
  neighbours: 'share of similar past tasks that ran it',
  classifier: 'task words that predict it',
  classifierLog: 'task words that point at it, even weakly',
  cooc: 'runs with the best matches',
  popular: 'in many past flows',
  coldStart: 'new tool: no past flows yet, text match counts for them',
  unseenWords: 'matches words no past task used',
  nameMatch: 'the task names it',
  nextGraph: 'tool graph link from the last step',
  transition: 'usually follows the last step',
  nextAffinity: 'task words seen with it',
  workflowNext: 'next step of the workflow template',
  ngram: 'follows the last steps in past flows',
  ngramTask: 'follows the last steps in flows like this task',
  ahead: 'still ahead in similar past flows',
  stepModel: 'next-step model',
  stepModelLog: 'a step past flows take here, even if rarely',
  rerank: 'reranker fitted on your flows: what it adds',
  coldNext: 'new tool: no past flows yet, matches words no past task used',
};

/** Signals that lower a score when present. */
const PENALTIES = new Set(['blocked', 'done']);

export interface ScorePartView {
  label: string;
  value: number;
  /** True for signals that count against the tool. */
  penalty: boolean;
}

/** The nonzero parts of a score, strongest first, with readable names. */
export function scorePartViews(parts: ScoreParts | Record<string, number>): ScorePartView[] {
  return Object.entries(parts)
    .filter(([, v]) => typeof v === 'number' && Math.abs(v) >= 0.005)
    .map(([k, v]) => ({ label: LABELS[k] ?? k, value: Math.round(v * 1000) / 1000, penalty: PENALTIES.has(k) || v < 0 }))
    .sort((a, b) => Number(a.penalty) - Number(b.penalty) || Math.abs(b.value) - Math.abs(a.value));
}
