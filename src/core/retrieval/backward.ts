/**
 * Backward (complementary) retrieval: after some steps, what completes the analysis? Queries from
 * five templates (quantify, explain, verify, compare, extend) filled from the last result, its
 * outputs and the task; candidates scored by query match, task match, whether a produced output
 * feeds their inputs, the tool graph, learned transitions, and a penalty for tools already run.
 */
import type { ToolManifest } from '../manifests/types';
import type { MemoryState, MemoryStep, StepOutput } from '../memory/types';
import type { ComplementaryResult, ComplementarySuggestion, DataContext, DataItem, Rationale } from './types';
import type { RetrievalContext, RetrievalMode } from './context';
import { workingMemory } from '../memory/memory';
import { parseQuery } from './query';
import { relevance, Relevance } from './relevance';
import { canFeed, executability } from './executability';
import { humanName } from '../index/text';
import { forwardCandidates } from './forward';

export interface BackwardOptions { k?: number; data?: DataContext; mode?: RetrievalMode; signal?: AbortSignal }

const RATIONALES: Rationale[] = ['quantify', 'explain', 'verify', 'compare', 'extend'];
const GROUP_SIZE = 3;

/** What a produced output is, for query text and reasons ("NDVI mask"). */
function describeOutputs(window: MemoryStep[], tools: Map<string, ToolManifest>): { text: string; roles: string[] } {
  const last = window[window.length - 1];
  if (!last) return { text: '', roles: [] };
  const roles = [...new Set(last.outputs.flatMap((o) => o.roles ?? []))];
  const indexStep = [...window].reverse().find((s) => s.outputs.some((o) => o.roles?.includes('index')) || /index|ndvi|nbr|ndwi/i.test(s.tool));
  const indicator = indexStep ? (tools.get(indexStep.tool)?.name?.split(/[\s(]/)[0] ?? indexStep.tool).toUpperCase() : '';
  const noun = roles.find((r) => ['mask', 'class', 'index', 'dnbr', 'severity', 'dem', 'slope', 'difference', 'change_mask', 'labels', 'trend'].includes(r)) ?? last.outputs[0]?.name ?? 'result';
  const text = indicator && noun !== 'index' && !noun.toUpperCase().includes(indicator) ? `${indicator} ${noun}` : noun === 'index' && indicator ? `${indicator} index` : noun;
  return { text, roles };
}

function templates(task: string, window: MemoryStep[], outText: string, tools: Map<string, ToolManifest>): { rationale: Rationale; text: string }[] {
  const last = window[window.length - 1];
  const lastName = last ? humanName(tools.get(last.tool) ?? { id: last.tool, description: '' }) : '';
  const summary = last?.resultSummary ? ` ${last.resultSummary}` : '';
  const out = outText || 'result';
  return [
    { rationale: 'quantify', text: `quantify the ${out}: area in hectares by class, statistics, percentages, counts.${summary} ${task}` },
    { rationale: 'explain', text: `explain the ${out}: zonal statistics per field or region, what drives it, relate it to land cover, terrain or temperature. ${task}` },
    { rationale: 'verify', text: `verify the ${out} from ${lastName}: mask clouds, check accuracy against reference data, clean noise, inspect a quicklook. ${task}` },
    { rationale: 'compare', text: `compare the ${out} with another date: change detection before and after, difference, trend over time. ${task}` },
    { rationale: 'extend', text: `after ${lastName}, next step on the ${out}: convert to polygons, export, visualise, threshold, classify.${summary} ${task}` },
  ];
}

function outputsAsData(trace: MemoryStep[]): DataItem[] {
  const items: DataItem[] = [];
  for (const s of trace) {
    for (const o of s.outputs) {
      if (o.type !== 'raster' && o.type !== 'vector' && o.type !== 'table') continue;
      items.push({ path: o.path ?? `${s.tool}.${o.name}`, type: o.type, roles: o.roles, producedBy: s.tool });
    }
  }
  return items;
}

/** Output → input feed: 1 when a produced product (mask/class/index…) fits a required input that asks for it. */
function feedScore(m: ToolManifest, produced: DataItem[], lastTool: string | undefined): { score: number; from?: DataItem } {
  let best = 0;
  let from: DataItem | undefined;
  for (const p of m.inputs ?? []) {
    if (p.required === false || !(p.type === 'raster' || p.type === 'vector' || p.type === 'table')) continue;
    for (const it of produced) {
      if (!canFeed(it, p).ok) continue;
      const specific = (p.bands ?? []).some((r) => it.roles?.includes(r));
      let s = specific ? 1 : 0.4;
      if (it.producedBy === lastTool) s += 0.25;
      if (s > best) { best = s; from = it; }
    }
  }
  return { score: Math.min(1, best), from };
}

export async function complementarySuggestions(ctx: RetrievalContext, memory: MemoryState, opts: BackwardOptions = {}): Promise<ComplementaryResult> {
  const k = opts.k ?? 10;
  const mode = opts.mode ?? 'full';
  const w = ctx.weights;
  const window = workingMemory(memory);
  const done = new Map<string, number>();
  for (const s of memory.trace) done.set(s.tool, (done.get(s.tool) ?? 0) + 1);
  const last = window[window.length - 1];
  const { text: outText } = describeOutputs(window, ctx.tools);
  const queries = templates(memory.task, window, outText, ctx.tools);
  const pool = ctx.tools.size <= 200 ? ctx.tools.size : Math.max(60, k * 5);

  const taskParsed = parseQuery(memory.task);
  const taskRel = await relevance(ctx, memory.task, taskParsed.terms, mode === 'full' ? 'hybrid' : mode, pool, opts.signal);
  const queryRel: Map<string, Relevance>[] = [];
  if (mode === 'full') {
    for (const q of queries) queryRel.push(await relevance(ctx, q.text, parseQuery(q.text).terms, 'hybrid', pool, opts.signal));
  }
  // In full mode the task signal is the forward ranking itself (text + graph + workflow + learned),
  // scaled so a strong best forward candidate scores 1 (weak tasks stay weak).
  const fwdScore = new Map<string, number>();
  // When the task fits a workflow template, its next step after the latest step it contains.
  const wfNext = new Map<string, number>();
  if (mode === 'full') {
    const fwd = await forwardCandidates(ctx, memory.task, { k: Math.min(ctx.tools.size, Math.max(30, k * 3)), mode: 'full', signal: opts.signal });
    const top = Math.max(1, fwd.candidates[0]?.score ?? 1);
    for (const c of fwd.candidates) fwdScore.set(c.id, Math.max(0, c.score / top));
    if (fwd.workflow) {
      const steps = fwd.workflow.steps;
      const at = Math.max(...memory.trace.map((s) => steps.lastIndexOf(s.tool)));
      const nextStep = steps.slice(at + 1).find((t) => !done.has(t));
      if (nextStep) wfNext.set(nextStep, fwd.workflow.score);
    }
  }
  const produced = outputsAsData(memory.trace);
  const universe = new Set<string>([...taskRel.keys()]);
  if (mode === 'full') {
    for (const r of queryRel) for (const id of r.keys()) universe.add(id);
    for (const id of fwdScore.keys()) universe.add(id);
    for (const s of window) for (const e of ctx.graph.downstream(s.tool)) universe.add(e.to);
    for (const s of window) for (const t of ctx.learned.transitionsFrom(s.tool)) universe.add(t.to);
  }

  const bridges = mode === 'full' ? bridgeScores(ctx, fwdScore, produced, w.refine) : new Map<string, { score: number; goal: string }>();

  const all: ComplementarySuggestion[] = [];
  for (const id of universe) {
    const m = ctx.tools.get(id);
    if (!m) continue;
    const tr = mode === 'full' ? (fwdScore.get(id) ?? 0) : taskRel.get(id)?.base ?? 0;
    let score = tr;
    let qBest = 0;
    let rationale: Rationale = 'extend';
    let graph = 0;
    let learned = 0;
    let affinity = 0;
    let bridge = 0;
    let feed = 0;
    let from: DataItem | undefined;
    const penalty = done.has(id) ? 1 : 0;
    if (mode === 'full') {
      queryRel.forEach((r, i) => {
        const v = r.get(id)?.base ?? 0;
        if (v > qBest) { qBest = v; rationale = queries[i].rationale; }
      });
      // Recent steps count more: the last step fully, older ones geometrically less.
      window.forEach((s, i) => {
        const rec = Math.pow(0.5, window.length - 1 - i);
        graph = Math.max(graph, ctx.graph.edge(s.tool, id) * rec);
        learned = Math.max(learned, ctx.learned.transition(s.tool, id) * rec);
      });
      const f = feedScore(m, produced, last?.tool);
      feed = f.score;
      from = f.from;
      affinity = ctx.learned.affinity(taskParsed.terms, id).score;
      bridge = bridges.get(id)?.score ?? 0;
      const wf = wfNext.get(id) ?? 0;
      score = w.task * tr + w.query * qBest + w.feed * feed + w.nextGraph * graph + w.transition * learned + w.nextAffinity * affinity + w.bridge * bridge + w.workflowNext * wf - w.done * penalty;
    } else {
      score -= penalty;
    }
    const ex = executability(m, opts.data ? { items: [...opts.data.items, ...produced] } : produced.length ? { items: produced } : undefined);
    all.push({
      id,
      name: humanName(m),
      rationale,
      score: Math.round(score * 10000) / 10000,
      parts: { dense: round(taskRel.get(id)?.dense ?? 0), lexical: round(taskRel.get(id)?.lexical ?? 0), graph: round(graph), learned: round(learned), affinity: round(affinity), bridge: round(bridge), executability: ex.ready ? 1 : 0, query: round(qBest), task: round(tr), feed: round(feed), done: penalty },
      reason: reasonFor(rationale, m, outText, from, last?.tool, ctx, bridge > 0.3 ? bridges.get(id)?.goal : undefined),
      readiness: { ready: ex.ready, runnable: ex.runnable, missing: ex.missing, args: ex.args },
    });
  }
  all.sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
  const ranked = all.slice(0, k);
  // Groups show the best few of each rationale, even when the flat top-k is dominated by one kind.
  const fresh = all.filter((s) => !done.has(s.id));
  const groups = RATIONALES.map((r) => ({ rationale: r, suggestions: fresh.filter((s) => s.rationale === r).slice(0, GROUP_SIZE) })).filter((g) => g.suggestions.length);
  return { queries, ranked, groups };
}

function round(x: number): number {
  return Math.round(x * 10000) / 10000;
}

function shortWhat(m: ToolManifest): string {
  const out = m.outputs?.[0];
  const what = out?.description?.split(/[.;]/)[0] ?? out?.unit ?? m.description.split(/[.;]/)[0];
  return what.length > 70 ? what.slice(0, 67).trimEnd() + '…' : what;
}

function reasonFor(r: Rationale, m: ToolManifest, outText: string, from: DataItem | undefined, lastTool: string | undefined, ctx: RetrievalContext, goal?: string): string {
  const name = humanName(m).toLowerCase();
  if (goal && r === 'extend') {
    const g = ctx.tools.get(goal);
    return `extend: ${name} turns your ${outText || 'result'} into the input ${g ? humanName(g).toLowerCase() : goal} needs`;
  }
  const src = from?.producedBy && from.producedBy !== lastTool ? `${from.producedBy} output` : outText || 'result';
  const what = shortWhat(m);
  switch (r) {
    case 'quantify':
      return `quantify: ${name} turns your ${src} into ${/hectare|ha\b|area/i.test(m.description + what) ? 'hectares and percentages' : what.toLowerCase()}`;
    case 'explain':
      return `explain: ${name} puts your ${src} in context — ${what.toLowerCase()}`;
    case 'verify':
      return `verify: ${name} checks your ${src} — ${what.toLowerCase()}`;
    case 'compare':
      return `compare: ${name} sets your ${src} against another date — ${what.toLowerCase()}`;
    default: {
      const after = lastTool && ctx.graph.edge(lastTool, m.id) > 0 ? ` (usually follows ${lastTool})` : '';
      return `extend: ${name} takes your ${src} further — ${what.toLowerCase()}${after}`;
    }
  }
}

const PRODUCT_ROLES = new Set(['class', 'mask', 'index', 'dnbr', 'labels', 'severity', 'dem', 'slope']);

/**
 * Bridges: the task's likely goal tools (high forward score) may need a product (a mask, a class
 * map…) that nothing produced yet; a tool that consumes what exists and yields that product is
 * the missing link (an NDVI index → threshold → the mask that connected patches needs).
 */
function bridgeScores(ctx: RetrievalContext, fwdScore: Map<string, number>, produced: DataItem[], refine: number): Map<string, { score: number; goal: string }> {
  const have = new Set(produced.flatMap((p) => p.roles ?? []));
  const goals: { id: string; score: number; unmet: string[][]; met: string[] }[] = [];
  for (const [id, score] of fwdScore) {
    if (score < 0.3) continue;
    const needs = (ctx.tools.get(id)?.inputs ?? [])
      .filter((p) => p.required !== false && p.type === 'raster')
      .map((p) => (p.bands ?? []).filter((b) => PRODUCT_ROLES.has(b)))
      .filter((alts) => alts.length);
    const unmet = needs.filter((alts) => !alts.some((r) => have.has(r)));
    const met = needs.flatMap((alts) => alts.filter((r) => have.has(r)));
    goals.push({ id, score, unmet, met });
  }
  const out = new Map<string, { score: number; goal: string }>();
  for (const m of ctx.tools.values()) {
    if (feedScore(m, produced, undefined).score <= 0) continue;
    const yields = new Set(outputsFromManifest(m).flatMap((o) => o.roles ?? []));
    const takes = new Set((m.inputs ?? []).filter((p) => p.required !== false).flatMap((p) => p.bands ?? []));
    for (const g of goals) {
      if (g.id === m.id) continue;
      let v = 0;
      if (g.unmet.some((alts) => alts.some((r) => yields.has(r)))) v = g.score;
      // A refiner (mask in, mask out) cleans what the goal already could take: a weaker link.
      else if (g.met.some((r) => takes.has(r) && yields.has(r))) v = refine * g.score;
      if (v > 0 && (!out.has(m.id) || out.get(m.id)!.score < v)) out.set(m.id, { score: v, goal: g.id });
    }
  }
  return out;
}

/** Outputs a step of `tool` produces according to its manifest (used when only tool ids are known). */
export function outputsFromManifest(m: ToolManifest | undefined): StepOutput[] {
  if (!m) return [];
  return (m.outputs ?? []).map((o) => ({
    name: o.name,
    type: (['raster', 'vector', 'table', 'number', 'string', 'object'].includes(o.type) ? o.type : 'object') as StepOutput['type'],
    roles: [...new Set([...(o.bands ?? []), ...inferRoles(o.name, o.unit, o.description)])],
  }));
}

function inferRoles(...texts: (string | undefined)[]): string[] {
  const t = texts.filter(Boolean).join(' ').toLowerCase();
  const roles: string[] = [];
  if (/\bmask\b/.test(t)) roles.push('mask');
  if (/\bclass(es)?\b|classif|severity|land ?cover/.test(t)) roles.push('class');
  if (/\bindex\b|ndvi|nbr|ndwi|-1\.\.1/.test(t)) roles.push('index');
  if (/dnbr/.test(t)) roles.push('dnbr');
  if (/\bdem\b|elevation/.test(t)) roles.push('dem');
  if (/\blabels?\b|patch/.test(t)) roles.push('labels');
  return roles;
}
