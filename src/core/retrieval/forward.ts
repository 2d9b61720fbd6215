/** Forward retrieval: task → ranked tools, with priors (graph, learned, executability) and reasons. */
import type { ToolManifest } from '../manifests/types';
import type { DataContext, Explanation, ForwardCandidate, ForwardResult, QueryExpansion, WorkflowMatch } from './types';
import type { RetrievalContext, RetrievalMode } from './context';
import { dot, embedQuery } from './context';
import { parseQuery, ParsedQuery } from './query';
import { relevance, Relevance } from './relevance';
import { executability } from './executability';
import { humanName } from '../index/text';
import { analyze } from '../index/bm25';
import { stem, tokenizeDetailed } from '../embed/tokenize';

const HAN = /\p{Script=Han}/u;

export interface ForwardOptions {
  k?: number;
  data?: DataContext;
  mode?: RetrievalMode;
  signal?: AbortSignal;
  /** From the optional LLM layer: appended to the task text, plus a prior for the tools it names. */
  expansion?: QueryExpansion;
}

/** The task text the retrievers see: the task plus the LLM's keywords when there are any. */
export function expandedText(task: string, expansion?: QueryExpansion): string {
  return expansion?.text.trim() ? `${task}\n${expansion.text.trim()}` : task;
}

export async function forwardCandidates(ctx: RetrievalContext, task: string, opts: ForwardOptions = {}): Promise<ForwardResult> {
  const k = opts.k ?? 10;
  const mode = opts.mode ?? 'full';
  const text = expandedText(task, opts.expansion);
  const parsed = parseQuery(text);
  const hints = opts.expansion?.toolHints ?? [];
  const pool = Math.max(60, k * 5);
  const rel = await relevance(ctx, text, parsed.terms, mode, pool, opts.signal);
  const w = ctx.weights;
  // Graph prior: tools linked to the strongest text matches (multi-step tasks need their neighbours).
  const ranked = [...rel.entries()].sort((a, b) => b[1].base - a[1].base);
  const seeds = ranked.slice(0, 5);
  const wfMatch = mode === 'full' || mode === 'hybrid' ? await matchWorkflow(ctx, text, parsed, seeds.map(([id]) => id)) : undefined;
  // A template is offered when the task reads like it, or reads somewhat like it and its own best
  // text matches already include enough of the template's distinctive steps.
  const workflow = wfMatch && (wfMatch.score >= w.workflowThreshold || (wfMatch.score >= w.workflowLow && (wfMatch.coverage ?? 0) >= w.workflowCoverage)) ? wfMatch : undefined;
  const scored: { id: string; m: ToolManifest; r: Relevance; score: number; graph: number; graphWhy: string[]; learned: number; learnedTerms: string[]; exec: number; wf: number; hint: number; similar: number }[] = [];
  const universe = new Set<string>([...rel.keys(), ...hints]);
  const similar = mode === 'full' && w.similarTools ? ctx.learned.similarTools(parsed.terms, w.similarK) : new Map<string, number>();
  for (const id of similar.keys()) universe.add(id);
  if (mode === 'full') {
    for (const [id] of seeds) {
      for (const e of ctx.graph.downstream(id)) universe.add(e.to);
      for (const e of ctx.graph.upstream(id)) universe.add(e.to);
    }
    if (workflow) for (const s of workflow.steps) universe.add(s);
  }
  for (const id of universe) {
    const m = ctx.tools.get(id);
    if (!m) continue;
    const r = rel.get(id) ?? { dense: 0, lexical: 0, base: 0, matched: [] };
    let score = r.base;
    let graph = 0;
    const graphWhy: string[] = [];
    let learned = 0;
    let learnedTerms: string[] = [];
    let exec = 0;
    let wf = 0;
    const sim = similar.get(id) ?? 0;
    if (mode === 'full') {
      for (const [sid, sr] of seeds) {
        if (sid === id) continue;
        const e = Math.max(ctx.graph.edge(sid, id), ctx.graph.edge(id, sid));
        const g = e * sr.base;
        if (g > graph) graph = g;
        if (e >= 0.8 && graphWhy.length < 2) graphWhy.push(ctx.graph.edge(sid, id) >= ctx.graph.edge(id, sid) ? `often follows ${sid}` : `often runs before ${sid}`);
      }
      const a = ctx.learned.affinity(parsed.terms, id);
      learned = a.score;
      learnedTerms = a.terms;
      if (workflow && workflow.steps.includes(id)) wf = workflow.score;
      const ex = executability(m, opts.data);
      exec = opts.data ? (ex.ready ? 1 : ex.coverage - 1) : 0;
      score += w.graph * graph + w.learned * learned + w.executability * exec + w.workflow * wf + w.similarTools * sim;
    }
    const hinted = hints.indexOf(id);
    const hint = hinted >= 0 ? 1 - hinted / (hints.length + 1) : 0;
    score += w.llmHint * hint;
    scored.push({ id, m, r, score, graph, graphWhy, learned, learnedTerms, exec, wf, hint, similar: sim });
  }
  scored.sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
  const candidates: ForwardCandidate[] = scored.slice(0, k).map((s) => {
    const ex = executability(s.m, opts.data);
    const explanation = explain(ctx, s.m, parsed, s.r, s.graphWhy, s.learnedTerms, ex.notes, s.similar);
    return {
      id: s.id,
      name: humanName(s.m),
      description: s.m.description,
      score: round(s.score),
      parts: { dense: round(s.r.dense), lexical: round(s.r.lexical), graph: round(s.graph), learned: round(s.learned), similar: round(s.similar), executability: round(s.exec), workflow: round(s.wf), ...(hints.length ? { llm: round(s.hint) } : {}) },
      reason: reasonLine(explanation, s.wf > 0 ? workflow : undefined, s.hint > 0),
      explanation,
      readiness: { ready: ex.ready, runnable: ex.runnable, missing: ex.missing, args: ex.args },
    };
  });
  const res: ForwardResult = { query: task, slots: opts.expansion ? parseQuery(task).slots : parsed.slots, candidates };
  if (workflow) res.workflow = workflow;
  return res;
}

function round(x: number): number {
  return Math.round(x * 10000) / 10000;
}

/** Best workflow template for the task (dense over description+examples, plus term overlap);
 *  `coverage` counts its steps among `seeds`, the task's best text matches, each step weighted by
 *  1 / the number of templates that use it. */
export async function matchWorkflow(ctx: RetrievalContext, task: string, parsed: ParsedQuery, seeds: string[] = []): Promise<WorkflowMatch | undefined> {
  if (!ctx.workflows.length) return undefined;
  const q = await embedQuery(ctx, task);
  let best: WorkflowMatch | undefined;
  const qTerms = new Set(parsed.terms);
  for (const e of ctx.workflows) {
    const d = Math.max(0, ...e.vectors.map((v) => dot(v, q)));
    let overlap = 0;
    for (const t of qTerms) if (e.terms.has(t)) overlap++;
    const l = qTerms.size ? overlap / qTerms.size : 0;
    const score = 0.7 * d + 0.3 * l;
    if (!best || score > best.score) {
      // Steps many templates share (area_by_class, cloud_mask…) say little about which one fits.
      const coverage = e.workflow.steps.filter((t) => seeds.includes(t)).reduce((sum, t) => sum + 1 / ctx.workflows.filter((o) => o.workflow.steps.includes(t)).length, 0);
      best = { id: e.workflow.id, name: e.workflow.name ?? e.workflow.id.replace(/_/g, ' '), description: e.workflow.description, steps: e.workflow.steps, score: round(score), coverage };
    }
  }
  return best;
}

const CONCEPT_PREFIX = 'c:';

function explain(ctx: RetrievalContext, m: ToolManifest, parsed: ParsedQuery, r: Relevance, graphWhy: string[], learnedTerms: string[], readiness: string[], similar = 0): Explanation {
  // Show the analyst's own words, not stems; single Chinese characters say little on their own.
  const surface = new Map<string, string>();
  for (const w of tokenizeDetailed(parsed.text).rawWords) if (!surface.has(stem(w))) surface.set(stem(w), w);
  const matchedTerms = r.matched
    .filter((t) => !t.startsWith(CONCEPT_PREFIX) && !(HAN.test(t) && [...t].length < 2))
    .map((t) => surface.get(t) ?? t)
    .slice(0, 6);
  const concepts = r.matched.filter((t) => t.startsWith(CONCEPT_PREFIX)).map((t) => t.slice(2).replace(/_/g, ' '));
  const qTerms = new Set(parsed.terms);
  const matchedTags = (m.tags ?? []).filter((tag) => analyze(tag).some((t) => qTerms.has(t))).slice(0, 3);
  const graph = [...graphWhy];
  if (!graph.length) {
    const next = ctx.graph.downstream(m.id).slice(0, 2).map((e) => e.to);
    if (next.length) graph.push(`often followed by ${next.join(', ')}`);
  }
  // Learned terms in the same words: "veget" → "vegetation", "c:vegetation_index" → "vegetation index".
  // A bare number ("0" from "1/0", a year) was chosen with everything and explains nothing.
  const readable = [...new Set(learnedTerms
    .filter((t) => !(HAN.test(t) && [...t].length < 2) && !/^\d+(\.\d+)?$/.test(t))
    .map((t) => (t.startsWith(CONCEPT_PREFIX) ? t.slice(2).replace(/_/g, ' ') : surface.get(t) ?? t)))];
  const learned = readable.length ? [`chosen before for "${readable.join('", "')}"`] : [];
  if (similar >= 0.5) learned.push('used in the flows of similar past tasks');
  return { matchedTerms: [...new Set([...matchedTerms, ...concepts])].slice(0, 8), matchedTags, readiness, graph, learned };
}

function reasonLine(e: Explanation, workflow?: WorkflowMatch, hinted = false): string {
  const bits: string[] = [];
  if (e.matchedTags.length) bits.push(`matches ${e.matchedTags.join(', ')}`);
  else if (e.matchedTerms.length) bits.push(`matches ${e.matchedTerms.slice(0, 4).join(', ')}`);
  else if (!hinted) bits.push('similar in meaning to the task');
  if (hinted) bits.push('proposed by the LLM for this task');
  if (workflow) bits.push(`step of the ${workflow.name} workflow`);
  if (e.learned.length) bits.push(e.learned[0]);
  if (e.graph.length) bits.push(e.graph[0]);
  const need = e.readiness.find((r) => r.includes('none found')) ?? e.readiness[0];
  if (need) bits.push(need);
  return bits.join('; ');
}
