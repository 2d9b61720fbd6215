/** Forward retrieval: task → ranked tools, with priors (graph, learned, executability) and reasons. */
import type { ToolManifest } from '../manifests/types';
import type { DataContext, Explanation, ForwardCandidate, ForwardResult, QueryExpansion, WorkflowMatch } from './types';
import type { RetrievalContext, RetrievalMode } from './context';
import { dot, embedQuery, taskCached } from './context';
import { parseQuery, ParsedQuery } from './query';
import { relevance, Relevance, LEXICAL_FLOOR } from './relevance';
import { executability, readinessOf } from './executability';
import { humanName } from '../index/text';
import { FORWARD_SIGNALS, ForwardSignal, Parts, logScale, mix, zeroParts } from './signals';
import { analyze } from '../index/bm25';
import { tokenize } from '../embed/tokenize';
import { readableTerms } from './reason-terms';

/** Catalogs up to this size are scored whole (every tool gets all its parts). */
export const WHOLE_CATALOG = 300;

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

/** One scored tool with its parts, before it becomes a candidate (shared with fitting). */
export interface ScoredTool {
  id: string;
  m: ToolManifest;
  r: Relevance;
  parts: Parts<ForwardSignal>;
  score: number;
  graphWhy: string[];
  learnedTerms: string[];
}

/** Every tool the task may bring up, with its score parts and score, best first. */
export async function forwardScored(ctx: RetrievalContext, task: string, opts: ForwardOptions = {}): Promise<{ scored: ScoredTool[]; parsed: ParsedQuery; workflow?: WorkflowMatch; pointed: Map<string, number> }> {
  const k = opts.k ?? 10;
  const mode = opts.mode ?? 'full';
  const text = expandedText(task, opts.expansion);
  const parsed = parseQuery(text);
  const hints = opts.expansion?.toolHints ?? [];
  // Small catalogs are scored whole, so every tool's parts are real (and a fit sees all of them).
  const whole = ctx.tools.size <= WHOLE_CATALOG;
  const pool = whole ? ctx.tools.size : Math.max(60, k * 5);
  const rel = await relevance(ctx, text, parsed.terms, mode, pool, opts.signal);
  const w = ctx.weights;
  const full = mode === 'full';
  // Graph prior: tools linked to the strongest text matches (multi-step tasks need their neighbours).
  const ranked = [...rel.entries()].sort((a, b) => b[1].base - a[1].base || a[0].localeCompare(b[0]));
  const seeds = ranked.slice(0, 5);
  const wfMatch = full || mode === 'hybrid' ? await matchWorkflow(ctx, text, parsed, seeds.map(([id]) => id)) : undefined;
  // A template is offered when the task reads like it, or reads somewhat like it and its own best
  // text matches already include enough of the template's distinctive steps.
  const workflow = wfMatch && (wfMatch.score >= w.workflowThreshold || (wfMatch.score >= w.workflowLow && (wfMatch.coverage ?? 0) >= w.workflowCoverage)) ? wfMatch : undefined;
  const universe = new Set<string>(whole ? ctx.tools.keys() : rel.keys());
  for (const h of hints) universe.add(h);
  const similar = full ? ctx.learned.similarTools(parsed.terms, w.similarK) : new Map<string, number>();
  const seq = full ? ctx.learned.sequences() : undefined;
  const affinities = full ? ctx.learned.affinities(parsed.terms) : new Map<string, { score: number; terms: string[] }>();
  const shares = full ? ctx.learned.similarShares(parsed.terms, w.similarK) : new Map<string, number>();
  // Base rates are not the task pointing at a tool: with no word seen in a past task the classifier
  // has nothing to say about this task (its log scale would rank the tools by popularity), and only
  // the text counts.
  const classified = full && seq?.flowCount && ctx.learned.classifier().knows(parsed.terms) ? ctx.learned.classifier().predict(parsed.terms) : new Map<string, number>();
  const pointed = seq?.flowCount ? pointedTools(rel, classified) : new Map<string, number>();
  const flows = seq?.flowCount ? ctx.learned.matchedFlows(parsed.terms, pointed, MATCHED_FLOWS) : new Map<string, number>();
  const unseen = full && seq?.flowCount ? unseenWordMatch(ctx, parsed.terms) : new Map<string, number>();
  const nameTerms = new Set(namingTerms(parsed.tokens));
  // Tools run in the same flows as the strongest text matches: the learned counterpart of the graph.
  const cooc = new Map<string, number>();
  if (seq) {
    const mass = seeds.reduce((a, [, r]) => a + r.base, 0);
    if (mass > 0) for (const [sid, sr] of seeds) for (const [t, p] of seq.companions(sid)) cooc.set(t, (cooc.get(t) ?? 0) + (sr.base * p) / mass);
  }
  if (full && !whole) {
    for (const id of similar.keys()) universe.add(id);
    for (const [id] of seeds) {
      for (const e of ctx.graph.downstream(id)) universe.add(e.to);
      for (const e of ctx.graph.upstream(id)) universe.add(e.to);
    }
    if (workflow) for (const s of workflow.steps) universe.add(s);
  }
  const scored: ScoredTool[] = [];
  for (const id of universe) {
    const m = ctx.tools.get(id);
    if (!m) continue;
    const r = rel.get(id) ?? { dense: 0, lexical: 0, base: 0, matched: [] };
    const parts = zeroParts(FORWARD_SIGNALS);
    const graphWhy: string[] = [];
    let learnedTerms: string[] = [];
    let score: number;
    if (full) {
      parts.dense = r.dense;
      parts.lexical = r.lexical;
      for (const [sid, sr] of seeds) {
        if (sid === id) continue;
        const e = Math.max(ctx.graph.edge(sid, id), ctx.graph.edge(id, sid));
        const g = e * sr.base;
        if (g > parts.graph) parts.graph = g;
        if (e >= 0.8 && graphWhy.length < 2) graphWhy.push(ctx.graph.edge(sid, id) >= ctx.graph.edge(id, sid) ? `often follows ${sid}` : `often runs before ${sid}`);
      }
      const a = affinities.get(id);
      parts.learned = a?.score ?? 0;
      learnedTerms = a?.terms ?? [];
      parts.similarTools = similar.get(id) ?? 0;
      parts.neighbours = shares.get(id) ?? 0;
      parts.classifier = classified.get(id) ?? 0;
      parts.classifierLog = logScale(parts.classifier);
      parts.flows = flows.get(id) ?? 0;
      parts.cooc = cooc.get(id) ?? 0;
      parts.popular = seq ? seq.popularity(id) : 0;
      parts.unseenWords = unseen.get(id) ?? 0;
      parts.nameMatch = nameMatch(ctx, m, nameTerms);
      // A tool no past flow ran gets nothing from the learned parts: not evidence against it, only
      // the absence of evidence. Its text match stands in for them (weight-free, so a fit can weigh it).
      if (seq?.flowCount && !parts.popular) parts.coldStart = 0.5 * (r.dense + r.lexical);
      if (workflow && workflow.steps.includes(id)) parts.workflow = workflow.score;
      if (opts.data) {
        const ex = executability(m, opts.data);
        parts.executability = ex.ready ? 1 : ex.coverage - 1;
      }
    }
    const hinted = hints.indexOf(id);
    parts.llmHint = hinted >= 0 ? 1 - hinted / (hints.length + 1) : 0;
    // Ablation modes score the text alone (the mix normalised as relevance does); "full" mixes every part.
    if (full) score = mix(FORWARD_SIGNALS, w, parts);
    else score = r.base + w.llmHint * parts.llmHint;
    scored.push({ id, m, r, parts, score, graphWhy, learnedTerms });
  }
  scored.sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
  return { scored, parsed, workflow, pointed };
}

/**
 * BM25 over the task's words that no past task used, relative to the task's best BM25 score. The
 * learned parts know only the words they saw: for "measure how wide the irrigation canals are" after
 * flows that never named canals, they speak from "measure" alone, while the tool that matches
 * "canals" is what was asked for. Weight-free, so a fit weighs it (out of fold, rare words are
 * exactly the ones a fold's flows never saw).
 */
export function unseenWordMatch(ctx: RetrievalContext, terms: string[]): Map<string, number> {
  const clf = ctx.learned.classifier();
  const novel = [...new Set(terms)].filter((t) => !clf.knowsTerm(t) && ctx.bm25.has(t));
  if (!novel.length) return new Map();
  const best = Math.max(LEXICAL_FLOOR, ctx.bm25.search(terms, 1)[0]?.score ?? 0);
  return new Map(ctx.bm25.search(novel).map((h) => [h.id, Math.min(1, h.score / best)]));
}

const nameTermsCache = new WeakMap<ToolManifest, string[]>();

/**
 * The words of a text that can name a tool: its stemmed tokens, a number joined to the word before
 * it ("sentinel 1", "landsat 8"). A number alone names nothing: "after 1, 3 and 6 months" named the
 * Sentinel-1 and Sentinel-3 tools of a coastal catalog while its numbers counted alone, and
 * "Sentinel-2" names the one tool "sentinel" alone cannot tell from its siblings.
 */
export function namingTerms(tokens: string[]): string[] {
  const out: string[] = [];
  tokens.forEach((t, i) => {
    if (/\p{L}/u.test(t)) out.push(t);
    else if (i > 0 && /\p{L}/u.test(tokens[i - 1])) out.push(`${tokens[i - 1]} ${t}`);
  });
  return out;
}

/**
 * The task names the tool: the rarest word of the tool's name or id that the task uses, by its
 * rarity in the catalog (0..1). "NDWI or MNDWI" names ndwi_mcfeeters and mndwi_xu outright; the text
 * parts are relative to the best match, so they cannot say that a match is a name, and in a catalog
 * of one-sentence manifests a fit weighs them low against what past flows ran. Common words of
 * names ("map", "flood", "image") count little. A number with its word ("sentinel 1", see
 * `namingTerms`) counts as the rarer of the two.
 */
export function nameMatch(ctx: RetrievalContext, m: ToolManifest, qTerms: Set<string>): number {
  let terms = nameTermsCache.get(m);
  if (!terms) {
    terms = [...new Set([m.name ?? '', m.id.replace(/[_.:-]+/g, ' ')].flatMap((s) => namingTerms(tokenize(s))))];
    nameTermsCache.set(m, terms);
  }
  let best = 0;
  for (const t of terms) if (qTerms.has(t)) best = Math.max(best, Math.max(...t.split(' ').map((w) => ctx.bm25.rarity(w))));
  return best;
}

/** How many past flows vote in the `flows` part (and the next step's `flowsAhead`), and how many pointed tools match them. */
export const MATCHED_FLOWS = 5;
const POINTED = 15;

/**
 * The tools a task points at before any weight is applied: the per-tool word model plus half the
 * text match, the strongest POINTED of them scaled to 0..1. Weight-free on purpose, so a fit can
 * weigh the part it feeds without changing the part.
 */
function pointedTools(rel: Map<string, Relevance>, classified: Map<string, number>): Map<string, number> {
  const s = new Map<string, number>();
  for (const [id, p] of classified) s.set(id, p);
  for (const [id, r] of rel) s.set(id, (s.get(id) ?? 0) + 0.5 * (r.dense + r.lexical));
  const top = [...s].filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, POINTED);
  const max = top.length ? top[0][1] : 0;
  return new Map(top.map(([id, v]) => [id, v / max]));
}

type ForwardScored = Awaited<ReturnType<typeof forwardScored>>;

/** `forwardScored` for a task asked again (every next step of a task asks for its forward ranking). */
export async function forwardScoredCached(ctx: RetrievalContext, task: string, opts: ForwardOptions = {}): Promise<ForwardScored> {
  if (opts.data) return forwardScored(ctx, task, opts);
  const key = `forward\u0001${opts.mode ?? 'full'}\u0001${opts.expansion?.text ?? ''}\u0001${opts.expansion?.toolHints.join(',') ?? ''}\u0001${task}`;
  // An aborted ranking is not kept: the next ask scores it again.
  return taskCached<ForwardScored>(ctx, key, () => forwardScored(ctx, task, opts));
}

export async function forwardCandidates(ctx: RetrievalContext, task: string, opts: ForwardOptions = {}): Promise<ForwardResult> {
  const k = opts.k ?? 10;
  const { scored, parsed, workflow } = await forwardScored(ctx, task, opts);
  const hinted = !!opts.expansion?.toolHints.length;
  const candidates: ForwardCandidate[] = scored.slice(0, k).map((s) => {
    const ex = executability(s.m, opts.data);
    const explanation = explain(ctx, s.m, parsed, s.r, s.graphWhy, s.learnedTerms, ex.notes, s.parts.similarTools);
    const parts: Record<string, number> = {};
    for (const n of FORWARD_SIGNALS) if (n !== 'llmHint' || hinted) parts[n] = round(s.parts[n]);
    return {
      id: s.id,
      name: humanName(s.m),
      description: s.m.description,
      score: round(s.score),
      parts: parts as ForwardCandidate['parts'],
      reason: reasonLine(explanation, s.parts.workflow > 0 ? workflow : undefined, s.parts.llmHint > 0),
      explanation,
      readiness: readinessOf(ex),
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
  // The analyst's own words (no stems, bigrams or stop words); concepts by their names.
  const words = readableTerms(parsed.text, r.matched.filter((t) => !t.startsWith(CONCEPT_PREFIX)));
  const concepts = readableTerms(parsed.text, r.matched.filter((t) => t.startsWith(CONCEPT_PREFIX)));
  const qTerms = new Set(parsed.terms);
  const matchedTags = (m.tags ?? []).filter((tag) => analyze(tag).some((t) => qTerms.has(t))).slice(0, 3);
  const graph = [...graphWhy];
  if (!graph.length) {
    const next = ctx.graph.downstream(m.id).slice(0, 2).map((e) => e.to);
    if (next.length) graph.push(`often followed by ${next.join(', ')}`);
  }
  // Quoted as the analyst's own words: concepts the words evoke are not quoted.
  const readable = readableTerms(parsed.text, learnedTerms.filter((t) => !t.startsWith(CONCEPT_PREFIX)));
  // Before anything was learned here, the words' evidence is the practice flows': not the analyst's choice.
  const learned = readable.length ? [ctx.learned.ownFlowCount ? `chosen before for "${readable.join('", "')}"` : `chosen for "${readable.join('", "')}" in the practice flows`] : [];
  if (similar >= 0.5) learned.push('used in the flows of similar past tasks');
  return { matchedTerms: [...new Set([...words.slice(0, 6), ...concepts])].slice(0, 8), matchedTags, readiness, graph, learned };
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
