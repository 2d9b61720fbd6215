/** What forward and backward retrieval share: catalog, indexes, graph, learned state and weights. */
import type { Embedder } from '../embed/types';
import type { ToolManifest, WorkflowTemplate } from '../manifests/types';
import type { ToolGraph } from '../manifests/graph';
import type { ToolIndex } from '../index/tool-index';
import type { Bm25Index } from '../index/bm25';
import type { IntentionGraph } from '../learning/intention-graph';
import type { TreeModel } from '../fusion/trees';

/** Which signals are used: for ablations in evaluation ("full" is the product). */
export type RetrievalMode = 'bm25' | 'dense' | 'hybrid' | 'full';

/**
 * Fusion weights and the settings of the signals. The weights of the score parts listed in
 * signals.ts are fitted per catalog and flows (fusion/); the values below are the hand-set prior a
 * fit starts from and the weights used when there are too few flows to fit. The other entries
 * (neighbour counts, back-off pseudo-counts, thresholds) are settings, not fitted.
 */
export interface Weights {
  /** Forward: dense and lexical text match (their proportion also mixes the seeds of the graph prior). */
  dense: number;
  lexical: number;
  graph: number;
  learned: number;
  executability: number;
  workflow: number;
  /** Backward: the task's forward ranking, match to the complementary queries, output→input feed,
   *  graph edges from recent steps, learned transitions, learned task-term affinities, already-run penalty. */
  task: number;
  query: number;
  feed: number;
  nextGraph: number;
  transition: number;
  nextAffinity: number;
  /** Backward: the tool turns what exists into the product a likely goal tool needs. */
  bridge: number;
  /** Share of a bridge's credit given to refiners (mask in, mask out) before a goal. */
  refine: number;
  /** Forward score (relative to the best) a tool needs to count as a goal bridges lead to. */
  bridgeGoal: number;
  /** Backward: next step of the workflow template the task fits. */
  workflowNext: number;
  done: number;
  /** Backward: pseudo-counts of the transition back-off (tool level ← product kind ← category). */
  backoffTool: number;
  backoffKind: number;
  /** Backward: factor per step back applied to graph edges and learned transitions from steps before the last. */
  olderSteps: number;
  /** Backward: penalty for a tool whose required product input (mask, class, index…) nothing made yet. */
  blocked: number;
  /** Backward: the task asks about time and the tool compares dates (before/after, a series). */
  temporal: number;
  /** Backward: the tool closes a chain (nothing usually follows it: previews, exports). */
  terminal: number;
  /** Backward: the tool makes the deliverable the task asks for (polygons, a per-field table, a preview, a COG). */
  deliver: number;
  /** Forward: how strongly the flows of the most similar past tasks used the tool (0..1). */
  similarTools: number;
  /** Backward: what followed the latest step in the flows of similar past tasks (share of their votes). */
  similar: number;
  /** Forward: the tool's share of the similarity of the most similar past tasks whose flows ran it (the kNN vote, 0..1). */
  neighbours: number;
  /** Forward: the tool's share in the past flows that best match the task by its words and by the tools it points at (0..1). */
  flows: number;
  /** Forward: P(the flow runs the tool | the task's words), a logistic model per tool learned from past flows (0..1). */
  classifier: number;
  /** Forward: the classifier's probability on a log scale (`logScale`): which unlikely tools are still plausible. */
  classifierLog: number;
  /** Forward: tools run in the same past flows as the task's best text matches (0..1). */
  cooc: number;
  /** Forward: share of past flows that ran the tool (0..1). */
  popular: number;
  /**
   * Forward: the text match of a tool no past flow ran, standing in for the learned parts that
   * have nothing to say about it (a tool just added to a fitted catalog must not sink below tools
   * with history merely because it has none).
   */
  coldStart: number;
  /** Forward: keyword match on the task's words no past task used (0..1): what the learned parts cannot speak for. */
  unseenWords: number;
  /** Forward: the task uses a rare word of the tool's name or id (its rarity in the catalog, 0..1). */
  nameMatch: number;
  /** Backward: n-gram P(next | the last steps), backing off to shorter histories (0..1). */
  ngram: number;
  /** Backward: the n-gram's next steps weighed by how much the task's words favour each tool (P(next | steps) · P(tool | task) / P(tool), normalised, 0..1). */
  ngramTask: number;
  /** Backward: P(next | the task's words, the last steps, the position), a softmax model learned from past flows (0..1). */
  stepModel: number;
  /**
   * Backward: the same model's probability on a log scale (`logScale`). Mixed linearly,
   * probabilities let one likely step (0.9) hide the second likely one (0.08) behind tools the task
   * favours that have never followed the last steps; on a log scale 0.08 stands well above 0.001.
   */
  stepModelLog: number;
  /** Backward: what is still ahead in the flows of similar past tasks, aligned at the steps done (0..1). */
  ahead: number;
  /** Backward: what is still ahead in the past flows that best match the task's words, the tools it points at and the steps done (0..1). */
  flowsAhead: number;
  /**
   * Backward: for a tool no past flow ran and not yet run, the keyword match on the task's words no
   * past task used (as forward `unseenWords`, 0..1). The sequence parts cannot speak for a new tool;
   * words the past never used that name it can, and they rarely name a tool the flows know.
   */
  coldNext: number;
  /**
   * Backward: the task names the tool (forward `nameMatch`) and it has not run yet. Where the
   * sequence says "a threshold comes next" and the task says "KI", the flows' commonest threshold
   * is not the one asked for; 0 in the prior, set by a fit.
   */
  nameNext: number;
  /**
   * Backward: a tool already run, by the share of the past flows with it that ran it again. The
   * `done` penalty says a step is rarely repeated; some are (a reprojection after the clip and
   * before the export, a second interferogram QC); 0 in the prior, set by a fit.
   */
  again: number;
  /** Backward: how many of the most similar past flows vote. */
  similarK: number;
  /** Backward: threshold (eq) when the task names one class of the class map just made. */
  pick: number;
  /** Backward: the task names the indicator this tool computes (NDVI, NDMI…) and it has not run yet. */
  named: number;
  /** Forward: prior for the tools an LLM proposes (first hint fully, later ones less). */
  llmHint: number;
  /** Minimum workflow score to offer a template … */
  workflowThreshold: number;
  /** … or this lower score when its distinctive steps among the task's best text matches reach workflowCoverage. */
  workflowLow: number;
  workflowCoverage: number;
}

export const DEFAULT_WEIGHTS: Weights = {
  dense: 0.55,
  lexical: 0.45,
  graph: 0.25,
  learned: 1.0,
  executability: 0.1,
  workflow: 0.15,
  task: 0.45,
  query: 0.05,
  feed: 0.1,
  nextGraph: 0.25,
  transition: 0.2,
  nextAffinity: 1.3,
  bridge: 0.15,
  refine: 1,
  bridgeGoal: 0.5,
  workflowNext: 0.2,
  done: 1.0,
  backoffTool: 1,
  backoffKind: 5,
  olderSteps: 0,
  blocked: 0,
  temporal: 0.3,
  terminal: 0.05,
  deliver: 0.3,
  named: 0.3,
  pick: 0.3,
  similar: 0.3,
  similarTools: 0.8,
  similarK: 10,
  neighbours: 0,
  flows: 0,
  classifier: 0,
  classifierLog: 0,
  cooc: 0,
  popular: 0,
  coldStart: 0.5,
  unseenWords: 0.3,
  nameMatch: 0.2,
  ngram: 0,
  ngramTask: 0,
  stepModel: 0,
  stepModelLog: 0,
  ahead: 0,
  flowsAhead: 0,
  coldNext: 0.3,
  nameNext: 0,
  again: 0,
  llmHint: 0.2,
  workflowThreshold: 0.6,
  workflowLow: 0.3,
  workflowCoverage: 1.25,
};

export interface WorkflowEntry { workflow: WorkflowTemplate; vectors: Float32Array[]; terms: Set<string> }

export interface RetrievalContext {
  tools: Map<string, ToolManifest>;
  index: ToolIndex;
  bm25: Bm25Index;
  embedder: Embedder;
  graph: ToolGraph;
  learned: IntentionGraph;
  workflows: WorkflowEntry[];
  weights: Weights;
  /** Query embeddings are cached: the same task is embedded once per session. */
  embedCache: Map<string, Float32Array>;
  /** Per tool, the factor its manifest folder's reach puts on its text match (`folderReach`; absent: 1). */
  reach?: () => Map<string, number>;
  /** The fitted trees that rerank the best next steps (fusion/trees.ts); absent: the weighted sum alone. */
  nextTrees?: TreeModel;
  /** Forward rankings and text matches of a task, reused by its next steps while weights, learned counts and catalog stay the same (the catalog's refresh drops it). */
  forwardCache?: { weights: Weights; learned: number; entries: Map<string, unknown> };
}

/**
 * What `make` gives for `key`, kept in the context's task cache: every next step of a task asks
 * again for the task's forward ranking and its text match, which change only with the weights,
 * the learned counts or the catalog.
 */
export async function taskCached<T>(ctx: RetrievalContext, key: string, make: () => Promise<T>): Promise<T> {
  let c = ctx.forwardCache;
  if (!c || c.weights !== ctx.weights || c.learned !== ctx.learned.version) c = ctx.forwardCache = { weights: ctx.weights, learned: ctx.learned.version, entries: new Map() };
  if (c.entries.has(key)) return c.entries.get(key) as T;
  const res = await make();
  if (c.entries.size > 400) c.entries.clear();
  c.entries.set(key, res);
  return res;
}

export async function embedQuery(ctx: RetrievalContext, text: string, signal?: AbortSignal): Promise<Float32Array> {
  const hit = ctx.embedCache.get(text);
  if (hit) return hit;
  const [v] = await ctx.embedder.embed([text], signal);
  if (ctx.embedCache.size > 2000) ctx.embedCache.clear();
  ctx.embedCache.set(text, v);
  return v;
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}
