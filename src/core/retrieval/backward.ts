/**
 * Backward (complementary) retrieval: after some steps, what completes the analysis? Queries from
 * five templates (quantify, explain, verify, compare, extend) filled from the last result, its
 * outputs and the task; candidates scored by query match, task match, whether a produced output
 * feeds their inputs, the tool graph, learned transitions, and a penalty for tools already run.
 */
import type { ToolManifest, ToolParam } from '../manifests/types';
import type { MemoryState, MemoryStep, StepOutput } from '../memory/types';
import type { ComplementaryResult, ComplementarySuggestion, DataContext, DataItem, QueryExpansion, Rationale } from './types';
import type { RetrievalContext, RetrievalMode } from './context';
import { taskCached } from './context';
import { workingMemory } from '../memory/memory';
import { parseQuery } from './query';
import { relevance, Relevance } from './relevance';
import { canFeed, executability, readinessOf, withProducts } from './executability';
import { humanName } from '../index/text';
import { expandedText, forwardScoredCached, MATCHED_FLOWS, WHOLE_CATALOG } from './forward';
import { NEXT_SIGNALS, NextSignal, Parts, logScale, mix, zeroParts } from './signals';
import { TransitionModel } from '../learning/backoff';
import { isProductRole } from './executability';
import { COVER_CLASSES, DELIVERABLES, SERIES, TEMPORAL, TIME_SPAN } from './task-phrases';
import { productOutput } from './product';
import { treeAdjust, type TreeModel } from '../fusion/trees';

export interface BackwardOptions {
  k?: number;
  data?: DataContext;
  mode?: RetrievalMode;
  signal?: AbortSignal;
  /** From the optional LLM layer: the task's expansion (for the task signal) … */
  expansion?: QueryExpansion;
  /** … and complementary queries added to the template ones. */
  extraQueries?: { rationale: Rationale; text: string }[];
}

const RATIONALES: Rationale[] = ['quantify', 'explain', 'verify', 'compare', 'extend'];
const GROUP_SIZE = 3;
/** The forward ranking's best this many tools carry the task signal (the rest read as unrelated to the task). */
const FORWARD_TASK_POOL = 30;
/** Share of the best suggestion's score a suggestion needs to be shown in a group. */
const GROUP_FLOOR = 0.3;
/** Suggestions shown in the groups whatever their score (the best fresh ones). */
const GROUP_MIN = 4;
/**
 * A tool already run is offered again only when it ranks this high. Measured on three teams' test
 * flows (geohazard, hydro, municipal; each fitted on its 250 flows): a repeat ranked 1st or 2nd was
 * the step taken in 29–45 % of the steps it was offered at, one ranked 3rd or 4th in 3–10 %
 * (geohazard: 21 right repeats more for 668 steps that took none).
 */
const REPEAT_RANK = 2;

const NOUNS: Record<string, string> = { class: 'class map', labels: 'patch labels', dnbr: 'dNBR raster', dem: 'DEM', change_mask: 'change mask', difference: 'difference raster' };

/** What a produced output is, for query text and reasons ("NDVI mask", "slope", "dNBR class map"). */
function describeOutputs(window: MemoryStep[], tools: Map<string, ToolManifest>): { text: string; roles: string[] } {
  const last = window[window.length - 1];
  if (!last) return { text: '', roles: [] };
  const roles = [...new Set(last.outputs.flatMap((o) => o.roles ?? []))];
  const m = tools.get(last.tool);
  const main = last.outputs.find((o) => o.type === 'raster') ?? last.outputs[0];
  const role = roles.find((r) => ['mask', 'labels', 'class', 'index', 'dnbr', 'severity', 'dem', 'slope', 'difference', 'change_mask', 'trend'].includes(r));
  const noun = role ? NOUNS[role] ?? role : main?.type === 'table' ? 'table' : main?.name ?? 'result';
  // What the product is of: the indicator the step computes, or, for a raster derived from an earlier
  // product (a mask or class map of an index), that product's indicator. A step that starts from raw
  // data (slope from a DEM) carries no indicator of an unrelated earlier step; a table carries none.
  let indicator = indicatorOf(m, roles);
  if (!indicator && main?.type === 'raster' && derivesFromProduct(m)) {
    for (const s of [...window.slice(0, -1)].reverse()) {
      indicator = indicatorOf(tools.get(s.tool), [...new Set(s.outputs.flatMap((o) => o.roles ?? []))]);
      if (indicator) break;
    }
  }
  const text = !indicator ? noun : noun === 'index' ? `${indicator} index` : noun.toLowerCase().includes(indicator.toLowerCase()) ? noun : `${indicator} ${noun}`;
  return { text, roles };
}

/** The indicator a step's product is: what its manifest says it computes, else its name's first word for an index. */
function indicatorOf(m: ToolManifest | undefined, roles: string[]): string {
  if (m?.computes?.length) return m.computes[0];
  return m && roles.includes('index') ? (m.name?.split(/[\s(]/)[0] ?? m.id).toUpperCase() : '';
}

/** Its required rasters are products (an index, a mask, a class map) or anything, not a scene's bands or a DEM. */
function derivesFromProduct(m: ToolManifest | undefined): boolean {
  const ins = (m?.inputs ?? []).filter((p) => p.required !== false && p.type === 'raster');
  return ins.length > 0 && ins.every((p) => !(p.bands ?? []).length || (p.bands ?? []).some(isProductRole));
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

/** Bands of a scene as it comes: what a processed copy of it ("same as input") still carries. */
const SCENE_ROLES = ['blue', 'green', 'red', 'rededge', 'nir', 'swir1', 'swir2'];

/**
 * Products of the steps so far. An output the manifest calls "same as input" (a clip, a reprojection,
 * a masked image) that arrives without roles carries the roles of what went in: the previous raster
 * product when that fed the tool's image, else the scene's bands (a quality mask or a mask fed to a
 * "mask" input means the image was the scene).
 */
function outputsAsData(trace: MemoryStep[], tools: Map<string, ToolManifest>): DataItem[] {
  const items: DataItem[] = [];
  let prev: DataItem | undefined;
  for (const s of trace) {
    const m = tools.get(s.tool);
    let main: DataItem | undefined;
    for (const o of s.outputs) {
      if (o.type !== 'raster' && o.type !== 'vector' && o.type !== 'table') continue;
      let roles = o.roles;
      if (o.type === 'raster' && !roles?.length && /same (bands )?as/i.test(m?.outputs?.find((x) => x.name === o.name)?.unit ?? '')) {
        const fedElsewhere = !!prev && (m?.inputs ?? []).some((p) => p.required !== false && (p.bands ?? []).some((r) => prev!.roles?.includes(r)));
        roles = prev && prev.type === 'raster' && prev.roles?.length && !isQualityMask(prev) && !fedElsewhere ? [...prev.roles] : [...SCENE_ROLES];
      }
      const it: DataItem = { path: o.path ?? `${s.tool}.${o.name}`, type: o.type, roles, producedBy: s.tool };
      items.push(it);
      if (!main && o.type === 'raster') main = it;
    }
    prev = main ?? (s.outputs.some((o) => o.type === 'vector' || o.type === 'table') ? undefined : prev);
  }
  return items;
}

/**
 * A quality mask (clouds, shadow) marks pixels to drop: it is the mask an input named "mask" applies
 * to an image, not an analysis product to measure, clean or outline.
 */
function isQualityMask(it: DataItem): boolean {
  return !!it.roles?.includes('cloud');
}

function feedsInput(it: DataItem, p: ToolParam): boolean {
  if (!canFeed(it, p).ok) return false;
  return !isQualityMask(it) || /^masks?$/i.test(p.name) || !(p.bands ?? []).includes('mask');
}

/** Output → input feed: 1 when a produced product (mask/class/index…) fits a required input that asks for it. */
function feedScore(m: ToolManifest, produced: DataItem[], lastTool: string | undefined): { score: number; from?: DataItem } {
  let best = 0;
  let from: DataItem | undefined;
  for (const p of m.inputs ?? []) {
    if (p.required === false || !(p.type === 'raster' || p.type === 'vector' || p.type === 'table')) continue;
    for (const it of produced) {
      if (!feedsInput(it, p)) continue;
      const specific = (p.bands ?? []).some((r) => it.roles?.includes(r));
      let s = specific ? 1 : 0.4;
      if (it.producedBy === lastTool) s += 0.25;
      if (s > best) { best = s; from = it; }
    }
  }
  return { score: Math.min(1, best), from };
}

/** One scored tool with its parts, before it becomes a suggestion (shared with fitting). */
export interface NextScored {
  id: string;
  m: ToolManifest;
  parts: Parts<NextSignal>;
  score: number;
  rationale: Rationale;
  from?: DataItem;
  unmet: string[];
  /** What the fitted reranking trees added to the score (absent: not among the candidates they rerank, or no trees). */
  rerank?: number;
}

interface NextContext {
  queries: { rationale: Rationale; text: string }[];
  done: Map<string, number>;
  lastTool?: string;
  outText: string;
  lastRoles: string[];
  /** The latest step's main output is a raster (a table or polygons cannot become a mask or an index). */
  lastRaster: boolean;
  available: DataItem[];
  produced: DataItem[];
  taskRel: Map<string, Relevance>;
  bridges: Map<string, { score: number; goal: string }>;
}

/** Every tool that may come next, with its score parts and score, best first. */
export async function nextScored(ctx: RetrievalContext, memory: MemoryState, opts: BackwardOptions = {}): Promise<{ scored: NextScored[]; context: NextContext }> {
  const k = opts.k ?? 10;
  const mode = opts.mode ?? 'full';
  const w = ctx.weights;
  const window = workingMemory(memory);
  const done = new Map<string, number>();
  for (const s of memory.trace) done.set(s.tool, (done.get(s.tool) ?? 0) + 1);
  const last = window[window.length - 1];
  const { text: outText, roles: lastRoles } = describeOutputs(window, ctx.tools);
  const queries = [...templates(memory.task, window, outText, ctx.tools), ...(opts.extraQueries ?? []).map((q) => ({ rationale: q.rationale, text: `${q.text}. ${memory.task}` }))];
  // As in the forward ranking: a catalog scored whole gets every tool's real text match for the
  // task and each query (a pool would give a tool past its cut 0 while it is still ranked).
  const whole = ctx.tools.size <= WHOLE_CATALOG;
  const pool = whole ? ctx.tools.size : Math.max(60, k * 5);

  const taskText = expandedText(memory.task, opts.expansion);
  const taskParsed = parseQuery(taskText);
  const taskMode = mode === 'full' ? 'hybrid' : mode;
  const taskRel = await taskCached(ctx, `relevance\u0001${taskMode}\u0001${pool}\u0001${taskText}`, () => relevance(ctx, taskText, taskParsed.terms, taskMode, pool, opts.signal));
  const queryRel: Map<string, Relevance>[] = [];
  if (mode === 'full') {
    for (const q of queries) queryRel.push(await relevance(ctx, q.text, parseQuery(q.text).terms, 'hybrid', pool, opts.signal));
  }
  // In full mode the task signal is the forward ranking itself (text + graph + workflow + learned),
  // scaled so a strong best forward candidate scores 1 (weak tasks stay weak).
  const fwdScore = new Map<string, number>();
  // The tools the task points at, plus the steps done: which past pipeline this one is.
  const pointed = new Map<string, number>();
  // When the task fits a workflow template, its next step after the latest step it contains.
  const wfNext = new Map<string, number>();
  // The task's words no past task used, matched to tools (the forward part): what speaks for a tool no flow ran yet.
  const novel = new Map<string, number>();
  // How rare the word is by which the task names each tool (the forward `nameMatch`).
  const nameOf = new Map<string, number>();
  const full = mode === 'full';
  if (full) {
    const fwd = await forwardScoredCached(ctx, memory.task, { mode: 'full', signal: opts.signal, expansion: opts.expansion });
    const top = Math.max(1, fwd.scored[0]?.score ?? 1);
    for (const c of fwd.scored.slice(0, Math.max(FORWARD_TASK_POOL, k * 3))) fwdScore.set(c.id, Math.max(0, c.score / top));
    for (const c of fwd.scored) {
      if (c.parts.unseenWords) novel.set(c.id, c.parts.unseenWords);
      if (c.parts.nameMatch) nameOf.set(c.id, c.parts.nameMatch);
    }
    for (const [id, v] of fwd.pointed) pointed.set(id, v);
    if (fwd.workflow) {
      const steps = fwd.workflow.steps;
      const at = Math.max(...memory.trace.map((s) => steps.lastIndexOf(s.tool)));
      const nextStep = steps.slice(at + 1).find((t) => !done.has(t));
      if (nextStep) wfNext.set(nextStep, fwd.workflow.score);
    }
  }
  const produced = outputsAsData(memory.trace, ctx.tools);
  const ranTools = memory.trace.map((s) => s.tool);
  const seq = full ? ctx.learned.sequences() : undefined;
  const ngram = seq ? seq.next(ranTools) : new Map<string, number>();
  const stepModel = seq?.flowCount ? ctx.learned.nextModel().predict(taskParsed.terms, ranTools) : new Map<string, number>();
  const ngramTask = seq?.flowCount ? taskWeighted(ngram, ctx.learned.classifier().predict(taskParsed.terms), (t) => seq.popularity(t)) : new Map<string, number>();
  const ahead = full ? ctx.learned.similarAhead(taskParsed.terms, ranTools, w.similarK) : new Map<string, number>();
  for (const t of ranTools) pointed.set(t, 1);
  const flowsAhead = seq?.flowCount ? ctx.learned.matchedAhead(taskParsed.terms, pointed, ranTools, MATCHED_FLOWS) : new Map<string, number>();
  const universe = new Set<string>(whole && full ? ctx.tools.keys() : taskRel.keys());
  if (full) {
    for (const r of queryRel) for (const id of r.keys()) universe.add(id);
    for (const id of fwdScore.keys()) universe.add(id);
    for (const s of window) for (const e of ctx.graph.downstream(s.tool)) universe.add(e.to);
    for (const s of window) for (const t of ctx.learned.transitionsFrom(s.tool)) universe.add(t.to);
    for (const id of ahead.keys()) universe.add(id);
    for (const id of flowsAhead.keys()) universe.add(id);
  }

  const trans = full ? transitionModel(ctx) : undefined;
  // The task asks about time (before/after, a trend, since a year) and no step has compared dates yet.
  const slotsTime = parseQuery(memory.task).slots.time ?? [];
  const wantsTime = TEMPORAL.test(memory.task) || slotsTime.some((t) => TIME_SPAN.test(t)) || new Set(slotsTime.flatMap((t) => t.match(/(19|20)\d{2}/g) ?? [])).size >= 2;
  // What the task asks to hand over (polygons, a table per field…); the manifests say which tools make it.
  const asked = new Set<string>(DELIVERABLES.filter((d) => d.re.test(memory.task)).map((d) => d.kind));
  // Indicators the task names outright ("mean NDVI inside", "统计NDMI"): the tools that compute them, until they ran.
  const named = namedIndicators(memory.task, taskParsed.slots.indicator ?? []);
  // One class named over a class map (cropland of WorldCover, 水体 of the land cover): picking it out
  // is a threshold with eq, before measuring, outlining or masking with it.
  const lastIsClassMap = !!last && last.outputs.some((o) => o.roles?.includes('class'));
  const picksClass = lastIsClassMap && COVER_CLASSES.filter(([, re]) => re.test(memory.task)).length === 1;
  // Many dates (a yearly series, a decade) call for the tools that read a stack, not a before/after pair.
  const wantsSeries = wantsTime && SERIES.test(memory.task);
  const timeDone = memory.trace.some((s) => { const t = ctx.tools.get(s.tool); return !!t && takesTwoDates(t); });
  const available = opts.data ? withProducts(opts.data.items, produced) : produced;

  const affinities = full ? ctx.learned.affinities(taskParsed.terms) : new Map<string, { score: number }>();
  const similar = full ? ctx.learned.similarNext(taskParsed.terms, ranTools, w.similarK) : new Map<string, number>();
  const bridges = full ? bridgeScores(ctx, fwdScore, produced, w.refine) : new Map<string, { score: number; goal: string }>();

  const scored: NextScored[] = [];
  for (const id of universe) {
    const m = ctx.tools.get(id);
    if (!m) continue;
    const parts = zeroParts(NEXT_SIGNALS);
    let rationale: Rationale = 'extend';
    let unmet: string[] = [];
    let from: DataItem | undefined;
    const penalty = done.has(id) ? 1 : 0;
    let score: number;
    if (full) {
      // What the task asks of a tool is met once the tool has run: the task-level parts speak only
      // for tools not yet run. A repeat (teams reproject twice) is carried by the sequence parts
      // (transition, n-grams, flows of similar tasks), which learn repeats from the flows, and by
      // how often the flows that ran the tool ran it again (`again`).
      const fresh = penalty ? 0 : 1;
      parts.task = fresh * (fwdScore.get(id) ?? 0);
      // The score takes the best query match; the rationale shown is the best one the tool can
      // honestly serve (only tools that yield numbers quantify, only two-date tools compare).
      const fits = fitsRationale(m);
      let rBest = -1;
      queryRel.forEach((r, i) => {
        const v = fresh * (r.get(id)?.base ?? 0);
        if (v > parts.query) parts.query = v;
        if (fits(queries[i].rationale) && v > rBest) { rBest = v; rationale = queries[i].rationale; }
      });
      // A tool run again carries the pipeline on to the next input (the post-event scene, the other
      // orbit); it does not quantify or verify what it made the first time.
      if (penalty) rationale = 'extend';
      // The next step follows from the latest product: the last step's edges count fully, older
      // steps' by w.olderSteps per step back (0 by CV: their edges point at what the chain has passed).
      window.forEach((s, i) => {
        const rec = Math.pow(w.olderSteps, window.length - 1 - i);
        parts.nextGraph = Math.max(parts.nextGraph, ctx.graph.edge(s.tool, id) * rec);
        parts.transition = Math.max(parts.transition, trans!.score(s.tool, id) * rec);
      });
      const f = feedScore(m, produced, last?.tool);
      parts.feed = f.score;
      from = f.from;
      parts.nextAffinity = fresh * (affinities.get(id)?.score ?? 0);
      parts.bridge = fresh * (bridges.get(id)?.score ?? 0);
      parts.workflowNext = wfNext.get(id) ?? 0;
      unmet = unmetProducts(m, available);
      parts.blocked = unmet.length ? -1 : 0;
      parts.done = -penalty;
      parts.temporal = fresh && wantsTime && !timeDone && takesTwoDates(m) && (!wantsSeries || takesSeries(m)) ? 1 : 0;
      parts.terminal = ctx.graph.downstream(id).length === 0 ? 1 : 0;
      parts.pick = fresh && picksClass && !!m.delivers?.includes('class_pick') ? 1 : 0;
      parts.deliver = fresh && !unmet.length && !!m.delivers?.some((d) => asked.has(d)) ? 1 : 0;
      parts.named = !done.has(id) && named(m) ? 1 : 0;
      parts.nameNext = fresh * (nameOf.get(id) ?? 0);
      parts.again = penalty && seq ? seq.repeatRate(id) : 0;
      parts.similar = similar.get(id) ?? 0;
      parts.ngram = ngram.get(id) ?? 0;
      parts.ngramTask = ngramTask.get(id) ?? 0;
      parts.stepModel = stepModel.get(id) ?? 0;
      parts.stepModelLog = logScale(parts.stepModel);
      parts.ahead = ahead.get(id) ?? 0;
      parts.flowsAhead = flowsAhead.get(id) ?? 0;
      // A tool no past flow ran gets nothing from the sequence parts (absence of evidence, not
      // evidence against it): the task's words that no past task used speak for it when they name
      // it. Its manifest is then the only word on order: not before the product it needs exists.
      if (fresh && seq && !seq.popularity(id) && !unmet.length) parts.coldNext = novel.get(id) ?? 0;
      score = mix(NEXT_SIGNALS, w, parts);
    } else {
      parts.task = taskRel.get(id)?.base ?? 0;
      parts.done = -penalty;
      score = parts.task - penalty;
    }
    scored.push({ id, m, parts, score, rationale, from, unmet });
  }
  scored.sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
  if (full && ctx.nextTrees) rerank(ctx.nextTrees, scored);
  return { scored, context: { queries, done, lastTool: last?.tool, outText, lastRoles, lastRaster: !last || last.outputs.some((o) => o.type === 'raster'), available, produced, taskRel, bridges } };
}

/**
 * The fitted trees' correction of the best candidates (fusion/trees.ts), added to their scores and
 * shown as a part of them (`rerank`); they stay first, as the trees were fitted among them.
 * A model made for other parts (an older GeoWeave's) is not used.
 */
function rerank(model: TreeModel, scored: NextScored[]): void {
  if (model.parts.length !== NEXT_SIGNALS.length || model.parts.some((p, i) => p !== NEXT_SIGNALS[i])) return;
  const top = scored.slice(0, model.top);
  const adj = treeAdjust(model, NEXT_SIGNALS.map((n) => top.map((x) => x.parts[n])), top.map((x) => x.score));
  // Shifted so the least is 0 (the order among them is the same): what the trees add is never a
  // penalty, and the candidates they rerank keep scores above the rest's, as they rank.
  let least = Infinity;
  for (const a of adj) if (a < least) least = a;
  top.forEach((x, i) => { x.rerank = adj[i] - least; x.score += adj[i] - least; });
  top.sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
  scored.splice(0, top.length, ...top);
}

export async function complementarySuggestions(ctx: RetrievalContext, memory: MemoryState, opts: BackwardOptions = {}): Promise<ComplementaryResult> {
  const k = opts.k ?? 10;
  const { scored, context: c } = await nextScored(ctx, memory, opts);
  const data = opts.data ? { items: c.available } : c.produced.length ? { items: c.produced } : undefined;
  const made = new Map<string, ComplementarySuggestion>();
  const suggestion = (x: NextScored): ComplementarySuggestion => {
    const hit = made.get(x.id);
    if (hit) return hit;
    // The file the reason speaks of ("turns your NDVI mask into hectares") comes first, so the
    // readiness shows that one rather than an earlier product of the same kind (a cloud mask).
    const from = x.from;
    const ex = executability(x.m, data && from ? { ...data, items: [from, ...data.items.filter((it) => it !== from && it.path !== from.path)] } : data);
    const shown: Record<string, number> = { dense: round(c.taskRel.get(x.id)?.dense ?? 0), lexical: round(c.taskRel.get(x.id)?.lexical ?? 0), executability: ex.ready ? 1 : 0 };
    for (const n of NEXT_SIGNALS) shown[n] = round(x.parts[n]);
    if (x.rerank) shown.rerank = round(x.rerank);
    const out: ComplementarySuggestion = {
      id: x.id,
      name: humanName(x.m),
      rationale: x.rationale,
      score: round(x.score),
      parts: shown as ComplementarySuggestion['parts'],
      reason: c.done.has(x.id) ? repeatReason(x) : reasonFor(x.rationale, x.m, c.outText, x.from, c.lastTool, ctx, x.parts.bridge > 0.3 ? c.bridges.get(x.id)?.goal : undefined, x.unmet, x.parts.similar, c.lastRoles, c.lastRaster),
      readiness: readinessOf(ex),
    };
    made.set(x.id, out);
    return out;
  };
  const ranked = scored.slice(0, k).map(suggestion);
  // Groups show the best few of each rationale, even when the flat top-k is dominated by one kind,
  // but not the long tail: a suggestion far below the best one (a scene search after an index) is
  // noise in a group. Groups come best first.
  // The best GROUP_MIN stay whatever the floor: one confident suggestion (what the flows always run
  // next) must not leave the analyst a single choice, and nothing once it is dismissed.
  // A tool already run is shown only when it ranks among the best REPEAT_RANK overall: teams that
  // fetch the pre- and the post-event scene or reproject both orbits run it twice, and the ranking
  // says so only where the past flows did (`done` against the sequence parts and `again`).
  const offered = scored.filter((s, i) => !c.done.has(s.id) || i < REPEAT_RANK);
  const floor = offered.length && offered[0].score > 0 ? GROUP_FLOOR * offered[0].score : -Infinity;
  const shown = new Set(offered.filter((s, i) => i < GROUP_MIN || round(s.score) >= round(floor)));
  const groups = RATIONALES.map((r) => ({ rationale: r, suggestions: offered.filter((s) => s.rationale === r && shown.has(s)).slice(0, GROUP_SIZE).map(suggestion) }))
    .filter((g) => g.suggestions.length)
    .sort((a, b) => b.suggestions[0].score - a.suggestions[0].score);
  return { queries: c.queries, ranked, groups };
}

/**
 * Whether a tool computes an indicator the task names: the parsed indicator slots (NDVI, LST,
 * slope…, also from Chinese and descriptive phrases), or a name from the tool's own `computes`
 * written in the task (short all-capital names such as "HAND" only in capitals, so "hand" is not one).
 */
function namedIndicators(task: string, slots: string[]): (m: ToolManifest) => boolean {
  const upper = new Set(slots.map((x) => x.toUpperCase()));
  return (m) => (m.computes ?? []).some((c) => {
    if (upper.has(c.toUpperCase())) return true;
    if (/\p{Script=Han}/u.test(c)) return task.includes(c);
    const acronym = /^[A-Z0-9-]{2,4}$/.test(c);
    const re = new RegExp(`(^|[^\\p{L}\\p{M}\\p{N}])${c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\p{L}\\p{M}\\p{N}])`, acronym ? 'u' : 'iu');
    return re.test(task);
  });
}

/**
 * The sequence model's next steps, each weighed by how much more likely the task's words make the
 * tool than it is in general (Bayes with the task as evidence): after the SAR chain a threshold
 * comes next, and "Kittler–Illingworth" in the task says which one. Normalised to sum to 1.
 */
function taskWeighted(next: Map<string, number>, inFlow: Map<string, number>, prior: (t: string) => number): Map<string, number> {
  const out = new Map<string, number>();
  let sum = 0;
  for (const [t, p] of next) {
    const v = p * (inFlow.get(t) ?? 0) / Math.max(prior(t), 1e-3);
    if (v > 0) { out.set(t, v); sum += v; }
  }
  if (sum > 0) for (const [t, v] of out) out.set(t, v / sum);
  return out;
}

/** Product roles (mask, class map, index…) a required input asks for that nothing at hand provides. */
function unmetProducts(m: ToolManifest, available: DataItem[]): string[] {
  const out: string[] = [];
  for (const p of m.inputs ?? []) {
    if (p.required === false || !(p.type === 'raster' || p.type === 'array')) continue;
    const wanted = (p.bands ?? []).filter(isProductRole);
    if (!wanted.length) continue;
    if (!available.some((it) => feedsInput(it, p))) out.push(...wanted);
  }
  return [...new Set(out)];
}

/** What kind of product a tool yields, from its first output: the back-off key of its transitions. */
export function productKind(m: ToolManifest | undefined): string | undefined {
  const out = outputsFromManifest(m)[0];
  if (!out) return undefined;
  const roles = new Set(out.roles ?? []);
  if (roles.has('mask')) return 'mask';
  if (roles.has('class') || roles.has('labels')) return 'class';
  if (roles.has('dem')) return 'dem';
  if (['slope', 'aspect', 'hillshade'].some((r) => roles.has(r))) return 'terrain';
  if (roles.size) return 'index';
  return out.type === 'raster' ? 'raster' : out.type;
}

const transitionModels = new WeakMap<RetrievalContext['learned'], { version: number; tools: RetrievalContext['tools']; weights: string; model: TransitionModel }>();

/** The back-off transition model, built once per state of the learned graph (pooling reads every transition). */
function transitionModel(ctx: RetrievalContext): TransitionModel {
  const key = `${ctx.weights.backoffTool}/${ctx.weights.backoffKind}`;
  const hit = transitionModels.get(ctx.learned);
  if (hit && hit.version === ctx.learned.version && hit.tools === ctx.tools && hit.weights === key) return hit.model;
  const kinds = new Map<string, string | undefined>();
  for (const m of ctx.tools.values()) kinds.set(m.id, productKind(m));
  const model = new TransitionModel(ctx.learned, (t) => kinds.get(t), (t) => ctx.tools.get(t)?.category ?? t, ctx.tools.keys(), { toolPrior: ctx.weights.backoffTool, kindPrior: ctx.weights.backoffKind });
  transitionModels.set(ctx.learned, { version: ctx.learned.version, tools: ctx.tools, weights: key, model });
  return model;
}

function round(x: number): number {
  return Math.round(x * 10000) / 10000;
}

function clipText(t: string, max = 70): string {
  const s = t.trim().replace(/\s+/g, ' ');
  return s.length > max ? s.slice(0, max - 1).trimEnd() + '…' : s;
}

function firstClause(t: string | undefined): string {
  return (t ?? '').split(/(?<!\d)\.(?=\s|$)|;/)[0].trim();
}

function lowerFirst(t: string): string {
  return /^[A-Z][a-z]/.test(t) ? t[0].toLowerCase() + t.slice(1) : t;
}

/** What one output is, in a few words, from its type, roles, unit and description. */
function outputPhrase(o: ToolParam): string {
  const unit = o.unit ?? '';
  const desc = firstClause(o.description);
  if (o.type === 'table') {
    if (/\bha\b|hectare/i.test(unit)) return `hectares${/class/i.test(unit) ? ' per class' : ''}${/percent/i.test(unit) ? ' and percent of the area' : ''}`;
    const perRow = /one row per (\w+) with (.+)/i.exec(o.description ?? '');
    if (perRow) return `${firstClause(perRow[2])} per ${perRow[1]}`;
    return lowerFirst(desc || unit);
  }
  if (o.type === 'object') {
    // "count: number of patches; sizes: pixels per patch." → "number of patches, pixels per patch"
    const parts = (o.description ?? '').split(';').map((p) => p.replace(/^\s*[\w.]+:\s*/, '').replace(/\.$/, '').trim()).filter(Boolean);
    return lowerFirst(parts.join(', '));
  }
  if (o.type === 'vector') return /polygon/i.test(desc) ? 'polygons' : /line/i.test(desc) ? 'lines' : 'vector features';
  if (/\bpng\b/i.test(unit)) return 'a PNG preview';
  const roles = new Set(outputsFromManifest({ id: '', description: '', outputs: [o] })[0]?.roles ?? []);
  if (roles.has('mask')) return `a mask (${unit || '1/0'})`;
  if (roles.has('class')) return /class/i.test(unit) ? `a map of ${unit.replace(/^(\w+ )?class codes?/i, (m) => m)}`.replace(/ codes? 1\.\.\S+$/, ' codes') : `a class map (${unit})`;
  if (/same as/i.test(unit)) return lowerFirst(desc);
  return `${lowerFirst(desc)}${unit && !desc.toLowerCase().includes(unit.toLowerCase()) ? ` (${unit})` : ''}`;
}

/** The output that answers a rationale: numbers to quantify, else the tool's main product. */
function productFor(m: ToolManifest, r: Rationale): string {
  const o = productOutput(m, r);
  // A bare output (no description or unit, as a team's manifests often have) says nothing: then the
  // tool's own description does, or at least the output's name ("…turns your mask into " was shown).
  const phrase = o ? outputPhrase(o).trim() : '';
  return clipText(phrase || lowerFirst(firstClause(m.description)) || (o ? o.name.replace(/_/g, ' ') : m.id));
}

/** Mask in, mask out: a cleaning step. */
function isMaskRefiner(m: ToolManifest): boolean {
  return (m.inputs ?? []).some((p) => p.required !== false && (p.bands ?? []).includes('mask')) && (m.outputs ?? []).some((o) => (o.bands ?? []).includes('mask'));
}

function takesTwoDates(m: ToolManifest): boolean {
  const ins = (m.inputs ?? []).filter((p) => p.required !== false);
  return ins.filter((p) => p.type === 'raster' && /^(before|after|pre|post|baseline)$/i.test(p.name)).length >= 2 ||
    ins.some((p) => p.type === 'array' && /images|baseline/i.test(p.name));
}

/** Takes an array of rasters of one of these roles (a stack of NDVI dates). */
function readsStackOf(m: ToolManifest, roles: string[]): boolean {
  return (m.inputs ?? []).some((p) => p.required !== false && p.type === 'array' && (p.bands ?? []).some((b) => roles.includes(b)));
}

/** Reads a stack of dates (a series), not a pair. */
function takesSeries(m: ToolManifest): boolean {
  return (m.inputs ?? []).some((p) => p.required !== false && p.type === 'array' && /images|stack|series/i.test(p.name));
}

function takesZones(m: ToolManifest): boolean {
  return (m.inputs ?? []).some((p) => /zone/i.test(p.name) || (p.required !== false && p.type === 'vector' && /polygon|zone|field/i.test(p.description ?? '')));
}

/** Which rationales a tool can serve truthfully, judged from its manifest. */
function fitsRationale(m: ToolManifest): (r: Rationale) => boolean {
  const outs = m.outputs ?? [];
  const numbers = outs.some((o) => o.type === 'table' || (o.type === 'object' && /count|size|mean|area/i.test(o.description ?? '')));
  const twoDates = takesTwoDates(m);
  const makesMask = outs.some((o) => (o.bands ?? []).includes('mask'));
  const checks = /^(statistics|export)$/.test(m.category ?? '') || (m.category === 'masking' && makesMask) ||
    (m.inputs ?? []).some((p) => /reference|truth/i.test(`${p.name} ${p.description ?? ''}`));
  return (r) => (r === 'quantify' ? numbers || !outs.length : r === 'compare' ? twoDates : r === 'verify' ? checks || !m.category : true);
}

/** Why a tool already run comes again: how often the past flows with it ran it more than once, when they did. */
function repeatReason(x: NextScored): string {
  const name = humanName(x.m).toLowerCase();
  const share = Math.round(100 * x.parts.again);
  return `${x.rationale}: ${name} once more, on the next input — ${share > 0 ? `${share} % of the past flows with it ran it more than once` : 'past flows ran it again at this point'}`;
}

function reasonFor(r: Rationale, m: ToolManifest, outText: string, from: DataItem | undefined, lastTool: string | undefined, ctx: RetrievalContext, goal?: string, unmet: string[] = [], similar = 0, producedRoles: string[] = [], lastRaster = true): string {
  const name = humanName(m).toLowerCase();
  const fromRole = from?.roles?.find((x) => NOUNS[x] || isProductRole(x));
  let src = from?.producedBy && from.producedBy !== lastTool ? `the ${fromRole ? NOUNS[fromRole] ?? fromRole : 'output'} from ${from.producedBy}` : `your ${outText || 'result'}`;
  // Say so when the tool cannot take what exists yet: "a class map or mask made from your dNBR raster".
  // (A table cannot be made into a mask: then the product is one to make first, from other data.)
  if (unmet.length) src = `${unmet.map((x) => NOUNS[x] ?? x).join(' or ')} ${lastRaster ? `made from your ${outText || 'result'}` : 'made first'}`.replace(/^/, (x, _i, t: string) => (/^[aeiou]/i.test(t) ? 'an ' : 'a '));
  const what = productFor(m, r);
  // A tool that cannot take anything produced so far (a scene search after NDVI) complements the
  // task, not the result: saying it "turns your NDVI index into" something would be false.
  if (!from && !unmet.length && outText) {
    // A series tool (trend, breakpoints, phenology) takes this product once per date: not other data.
    if (readsStackOf(m, producedRoles)) return `${r}: ${name} reads a stack of dates of your ${outText}, one raster per date — ${what}`;
    return `${r}: ${name} gives ${what} — it starts from other data than your ${outText}`;
  }
  if (goal && r === 'extend') {
    const g = ctx.tools.get(goal);
    return `extend: ${name} turns ${src} into ${what}, the input ${g ? humanName(g).toLowerCase() : goal} needs`;
  }
  switch (r) {
    case 'quantify':
      return `quantify: ${name} turns ${src} into ${what}`;
    case 'explain':
      return takesZones(m) ? `explain: ${name} breaks ${src} down by field or zone — ${what}` : `explain: ${name} puts ${src} in context — ${what}`;
    case 'verify':
      if (/\bpng\b/i.test(m.outputs?.[0]?.unit ?? '')) return `verify: ${name} lets you look at ${src} — ${what}`;
      if ((m.inputs ?? []).some((p) => /reference|truth/i.test(`${p.name} ${p.description ?? ''}`))) return `verify: ${name} checks ${src} against reference data — ${what}`;
      if (isMaskRefiner(m)) return `verify: ${name} cleans up ${src} — ${what}`;
      return `verify: ${name} checks ${src} — ${what}`;
    case 'compare':
      if ((m.inputs ?? []).some((p) => /baseline/i.test(p.name))) return `compare: ${name} sets ${src} against its multi-year baseline — ${what}`;
      if ((m.inputs ?? []).some((p) => p.type === 'array' && /images/i.test(p.name))) return `compare: ${name} follows ${src} across dates — ${what}`;
      return `compare: ${name} sets ${src} against another date — ${what}`;
    default: {
      // Most of the similar past tasks went on to this tool: say so, it is the strongest evidence.
      const after = lastTool && similar >= 0.5 ? ` (what came after ${lastTool} in most similar tasks)` : lastTool && (ctx.graph.edge(lastTool, m.id) > 0 || ctx.learned.transition(lastTool, m.id) > 0) ? ` (usually follows ${lastTool})` : '';
      return `extend: ${name} takes ${src} on to ${what}${after}`;
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
  const have = new Set(produced.filter((p) => !isQualityMask(p)).flatMap((p) => p.roles ?? []));
  const goals: { id: string; score: number; unmet: string[][]; met: string[] }[] = [];
  for (const [id, score] of fwdScore) {
    if (score < ctx.weights.bridgeGoal) continue;
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
  // As the cloud_mask runner labels its output: a quality mask, not an analysis product.
  if (/\bmask\b/.test(t) && /\bcloud/.test(t)) roles.push('cloud');
  if (/\bclass(es)?\b|classif|severity|land ?cover/.test(t)) roles.push('class');
  if (/\bindex\b|ndvi|nbr|ndwi|-1\.\.1/.test(t)) roles.push('index');
  if (/dnbr/.test(t)) roles.push('dnbr');
  if (/\bdem\b|elevation/.test(t)) roles.push('dem');
  if (/\blabels?\b|patch/.test(t)) roles.push('labels');
  return roles;
}
