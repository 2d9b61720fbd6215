/**
 * The intention graph (after SING): tool→tool transitions and query-term→tool affinities, each with
 * success and failure counts that decay exponentially with time. Fed by executed trajectories and
 * explicit feedback; read by forward (affinities) and backward (transitions) scoring.
 */
import { KNOWN_DF } from './weighted-idf';
import * as path from 'path';
import { CaseIndex, Case } from './similar-cases';
import { FlowSequences } from './sequences';
import { ToolClassifier, type LabelledFlow } from './tool-classifier';
import { NextStepModel, type StepFlow } from './next-step-model';
import { cloneLearnedState, emptyLearnedState, readLearnedState, saveLearnedState, savedBase } from './state-file';

export const LEARNED_FILE = 'learned.json';
const FORMAT_VERSION = 1;
const DAY_MS = 86_400_000;

/** Decayed counts; `t` is when they were last brought up to date (ms since epoch). */
export interface Counts { s: number; f: number; t: number }

export interface LearnedState {
  version: number;
  halfLifeDays: number;
  transitions: Record<string, Record<string, Counts>>;
  affinities: Record<string, Record<string, Counts>>;
  /** Executed flows with their task terms, newest last (at most MAX_CASES): the cases similar tasks are matched to. */
  cases?: Case[];
}

/** Cases kept in the learned state: the newest, so the file stays small (about 1 MB at most). */
const MAX_CASES = 3000;

export interface IntentionGraphOptions {
  /** Half-life of counts in days (default 90). */
  halfLifeDays?: number;
  log?: (level: 'info' | 'warn' | 'error', msg: string) => void;
  /** Clock, for tests. */
  now?: () => number;
  /**
   * A task's terms as the query parser reads it today. A saved flow keeps the terms it was recorded
   * with; when it kept its task text too, the models read the flow with the terms given here, so a
   * change of the parser (a stemmer rule, sensor names kept) reaches the flows learned before it.
   */
  termsOf?: (query: string) => string[];
}

type Table = 'transitions' | 'affinities';

/**
 * Steps on the prior's side of `priorWeight`, about one flow: a team's first flow on its own tools
 * halves the practice, and a few such flows leave it little. (30 kept a 20-flow team's tasks
 * answered by the practice's tools: municipal R@10 0.279 against 0.318 with 10 and 0.393 with no practice.)
 */
const PRIOR_STEPS = 10;

/** The cases as a string that changes when a case is added, dropped or extended. */
function casesKey(cases: Case[] | undefined): string {
  return (cases ?? []).map((c) => `${c.t}:${c.tools.length}`).join(',');
}

export class IntentionGraph {
  private state: LearnedState;
  /**
   * Counts from shipped analyst practice, read beside the learned ones: never saved, never decayed,
   * and outweighed as the user's own runs and feedback accumulate.
   */
  private prior: LearnedState | undefined;
  /** The tools the prior's flows ran. */
  private priorTools = new Set<string>();
  /** How many flows the prior was made of. */
  private priorFlows = 0;
  /** `practiceShare()`, `priorWeight()` and `practiceUse()`, recomputed after the cases change. */
  private practiceCache: { share: number; weight: number; use: number } | undefined;
  private readonly now: () => number;
  /** Cached totals per source (successes), recomputed lazily after updates. */
  private totals = new Map<string, number>();
  private dirtyTotals = true;
  /** Built on first use from the prior's and the learned cases; dropped when either changes. */
  private caseIndex: CaseIndex | undefined;
  private sequenceModel: FlowSequences | undefined;
  private toolModel: ToolClassifier | undefined;
  private stepModel: NextStepModel | undefined;
  /** Counts the changes of the cases, so a model trained elsewhere on older cases is not taken. */
  private caseVersion = 0;
  private changes = 0;

  private readonly termsOf: IntentionGraphOptions['termsOf'];

  constructor(readonly file: string | undefined, opts: IntentionGraphOptions = {}, state?: LearnedState) {
    this.now = opts.now ?? Date.now;
    this.termsOf = opts.termsOf;
    this.state = state ?? emptyLearnedState(opts.halfLifeDays ?? 90);
    if (opts.halfLifeDays) this.state.halfLifeDays = opts.halfLifeDays;
  }

  /** Counts of `flows` as a starting prior (what an analyst would run), kept apart from what is learned. */
  setPrior(flows: { terms: string[]; tools: string[] }[]): void {
    const g = new IntentionGraph(undefined, { now: () => 0 });
    for (const f of flows) g.recordTrajectory(f.terms, f.tools, true);
    this.prior = flows.length ? g.state : undefined;
    this.priorTools = new Set(flows.flatMap((f) => f.tools));
    this.priorFlows = flows.length;
    this.dirtyTotals = true;
    this.dropCaseModels();
    this.changes++;
  }

  /** Grows with every change to the counts or cases: what caches of derived scores key on. */
  get version(): number {
    return this.changes;
  }

  /** Number of distinct transitions in the prior. */
  get priorTransitionCount(): number {
    return this.prior ? countPairs(this.prior.transitions) : 0;
  }

  /**
   * Loads `learned.json` from `stateDir`; a missing file is fresh. A file that fails validation is
   * fresh with a warning naming the field; it is left in place and moved to a timestamped backup
   * at the next save, never overwritten.
   */
  static load(stateDir: string | undefined, opts: IntentionGraphOptions = {}): IntentionGraph {
    const fresh = () => emptyLearnedState(opts.halfLifeDays ?? 90);
    if (!stateDir) return new IntentionGraph(undefined, opts, fresh());
    const file = path.join(stateDir, LEARNED_FILE);
    const read = readLearnedState(file, MAX_CASES);
    if ('problem' in read) opts.log?.('warn', `learned state unreadable: ${read.problem}; starting fresh (the file is moved aside, not overwritten, at the next save)`);
    const g = new IntentionGraph(file, opts, 'state' in read ? read.state : fresh());
    savedBase.set(g, cloneLearnedState(g.state));
    return g;
  }

  /**
   * Saves under a lock, merged with what other processes saved since this one last read the file
   * (their updates are kept, and this graph sees them from now on). Written through a temp file
   * and rename. Failures are reported, not thrown; returns whether the state was saved.
   */
  save(log?: IntentionGraphOptions['log']): boolean {
    if (!this.file) return true;
    try {
      const base = savedBase.get(this) ?? emptyLearnedState(this.state.halfLifeDays);
      const ours = casesKey(this.state.cases);
      const merged = saveLearnedState(this.file, this.state, base, { maxCases: MAX_CASES, log });
      savedBase.set(this, cloneLearnedState(merged));
      this.state = merged;
      this.dirtyTotals = true;
      this.caseIndex = undefined;
      this.practiceCache = undefined;
      // Another process's flows came in with the merge: the models trained on the cases must see
      // them too (they were kept until this process recorded a flow of its own), and derived scores
      // keyed on the version must not outlive the merged counts.
      if (casesKey(merged.cases) !== ours) this.dropCaseModels();
      this.changes++;
      return true;
    } catch (e) {
      log?.('warn', `cannot save learned state to ${this.file}: ${(e as Error).message}`);
      return false;
    }
  }

  toJSON(): LearnedState {
    return this.state;
  }

  private decayFactor(from: number, to: number): number {
    if (to <= from) return 1;
    return Math.pow(0.5, (to - from) / (this.state.halfLifeDays * DAY_MS));
  }

  private bump(table: Record<string, Record<string, Counts>>, a: string, b: string, ok: boolean, weight: number): void {
    const now = this.now();
    const row = (table[a] ??= Object.create(null) as Record<string, Counts>);
    const c = (row[b] ??= { s: 0, f: 0, t: now });
    const k = this.decayFactor(c.t, now);
    c.s *= k;
    c.f *= k;
    c.t = now;
    if (ok) c.s += weight;
    else c.f += weight;
    this.dirtyTotals = true;
    this.changes++;
  }

  /** Current (decayed) counts. */
  private read(c: Counts | undefined): { s: number; f: number } {
    if (!c) return { s: 0, f: 0 };
    const k = this.decayFactor(c.t, this.now());
    return { s: c.s * k, f: c.f * k };
  }

  /** Learned (decayed) plus prior counts of a → b. */
  private counts(table: Table, a: string, b: string): { s: number; f: number } {
    const own = this.read(this.state[table][a]?.[b]);
    const p = this.prior?.[table][a]?.[b];
    if (!p) return own;
    const r = this.priorWeight();
    return { s: own.s + r * p.s, f: own.f + r * p.f };
  }

  /** Targets seen after `a`, learned or prior. */
  private targets(table: Table, a: string): string[] {
    const own = Object.keys(this.state[table][a] ?? {});
    const p = this.prior?.[table][a];
    return p ? [...new Set([...own, ...Object.keys(p)])] : own;
  }

  /** Sources with any row, learned or prior. */
  private sources(table: Table): string[] {
    const own = Object.keys(this.state[table]);
    return this.prior ? [...new Set([...own, ...Object.keys(this.prior[table])])] : own;
  }

  /** Learns from an executed flow: consecutive transitions and task-term affinities. */
  recordTrajectory(terms: string[], tools: string[], ok = true, query?: string): void {
    for (let i = 0; i + 1 < tools.length; i++) if (tools[i] !== tools[i + 1]) this.bump(this.state.transitions, tools[i], tools[i + 1], ok, 1);
    const uniqTools = [...new Set(tools)];
    for (const term of new Set(terms)) for (const t of uniqTools) this.bump(this.state.affinities, term, t, ok, 1 / Math.sqrt(uniqTools.length));
    if (ok && tools.length > 1) {
      const cases = (this.state.cases ??= []);
      const uniqTerms = [...new Set(terms)];
      // A notebook records its steps in segments joined at the last recorded step (a → b, then
      // b → c → d): the continuation of the latest case of the same task extends it, so the case
      // stays one flow.
      const prev = cases[cases.length - 1];
      if (prev && prev.tools[prev.tools.length - 1] === tools[0] && sameSet(prev.terms, uniqTerms)) {
        prev.tools.push(...tools.slice(1));
        prev.t = this.now();
      } else {
        cases.push({ terms: uniqTerms, tools: [...tools], t: this.now(), ...(query ? { query } : {}) });
        if (cases.length > MAX_CASES) cases.splice(0, cases.length - MAX_CASES);
      }
      this.dropCaseModels();
    }
  }

  /** Everything built from the cases, and the practice weight they set (the totals read it); rebuilt on first use. */
  private dropCaseModels(): void {
    this.caseVersion++;
    this.dirtyTotals = true;
    this.caseIndex = undefined;
    this.sequenceModel = undefined;
    this.toolModel = undefined;
    this.stepModel = undefined;
    this.practiceCache = undefined;
  }

  /**
   * The share of the evidence the shipped practice stands for beside what was learned here (0..1):
   * the share of the learned flows' steps that run tools the practice ran, with PRIOR_STEPS steps on
   * the practice's side. 1 with nothing learned yet, and for analysts who run the practice's tools;
   * it falls towards 0 as a team's flows show it runs other tools (its own catalog), whose tasks
   * the practice's flows would otherwise answer with tools the team does not use.
   */
  practiceShare(): number {
    return this.prior ? this.practice().share : 1;
  }

  /**
   * What one practice flow counts for beside one learned flow (0..1), so that the practice as a
   * whole holds its share: s / (1 − s) learned flows' worth (s = `practiceShare()`), spread over
   * its flows, and never more than in full. Weighing each practice flow by the share itself left
   * 888 flows at 0.059 against a 20-flow municipal team's 20, 52 flows' worth, not 1.3: its
   * tasks found the practice's flows first (R@10 0.339, below knn's 0.347; 0.377 now).
   */
  priorWeight(): number {
    return this.prior ? this.practice().weight : 1;
  }

  /**
   * The share of the learned flows' steps that run the practice's tools, without the practice's
   * own PRIOR_STEPS (0 with nothing learned): how much of the team's work the practice's tasks
   * stand for, which is what a fit replays of them (`GeoWeave.fitFlows`).
   */
  practiceUse(): number {
    return this.prior ? this.practice().use : 0;
  }

  /** All three, from one pass over the learned cases. */
  private practice(): { share: number; weight: number; use: number } {
    if (!this.practiceCache) {
      const now = this.now();
      let on = 0;
      let all = 0;
      let flows = 0;
      for (const c of this.state.cases ?? []) {
        const w = this.decayFactor(c.t, now);
        flows += w;
        for (const t of c.tools) {
          all += w;
          if (this.priorTools.has(t)) on += w;
        }
      }
      const share = (PRIOR_STEPS + on) / (PRIOR_STEPS + all);
      const weight = share >= 1 || !this.priorFlows ? 1 : Math.min(1, ((share / (1 - share)) * flows) / this.priorFlows);
      this.practiceCache = { share, weight, use: all ? on / all : 0 };
    }
    return this.practiceCache;
  }

  /** Learned flows whose task text was kept (what a fusion fit replays beside the practice flows). */
  learnedFlows(): { query: string; tools: string[]; t: number }[] {
    return (this.state.cases ?? []).filter((c) => typeof c.query === 'string' && c.query).map((c) => ({ query: c.query!, tools: [...c.tools], t: c.t }));
  }

  /**
   * What followed the latest step of `done` in the flows of tasks worded like `terms` (shipped
   * prior and learned): each tool's share of the votes of the `neighbours` most similar flows.
   */
  similarNext(terms: string[], done: string[], neighbours = 10): Map<string, number> {
    return this.cases().nextAfter(terms, done, neighbours);
  }

  /** The tools of the flows of the tasks worded most like `terms`: each tool's share of their similarity. */
  similarTools(terms: string[], neighbours = 10): Map<string, number> {
    return this.cases().toolsOf(terms, neighbours);
  }

  /** The n-gram model and flow statistics over the same flows as the cases (built on first use). */
  sequences(): FlowSequences {
    if (!this.sequenceModel) {
      const cases = this.flowCases();
      this.sequenceModel = new FlowSequences(cases.map((c) => ({ tools: c.tools, w: c.t === Infinity ? this.priorWeight() : this.decayFactor(c.t, this.now()) })));
    }
    return this.sequenceModel;
  }

  /** The per-tool logistic model over the same flows' task terms (trained on first use). */
  classifier(): ToolClassifier {
    this.toolModel ??= new ToolClassifier(this.classifierFlows().flows);
    return this.toolModel;
  }

  /** What `classifier()` trains on, and the version of the cases it was read from (to train it elsewhere: see `adoptClassifier`). */
  classifierFlows(): { flows: LabelledFlow[]; version: number } {
    const flows = this.flowCases().map((c) => ({ terms: c.terms, tools: c.tools, w: c.t === Infinity ? this.priorWeight() : this.decayFactor(c.t, this.now()) }));
    return { flows, version: this.caseVersion };
  }

  /** Takes a classifier trained elsewhere on `classifierFlows()` of `version`; ignored when the cases changed since (or one is already there). */
  adoptClassifier(model: ToolClassifier, version: number): void {
    if (version === this.caseVersion) this.toolModel ??= model;
  }

  /** The softmax next-step model over the same flows (trained on first use). */
  nextModel(): NextStepModel {
    this.stepModel ??= new NextStepModel(this.stepFlows().flows);
    return this.stepModel;
  }

  /** What `nextModel()` trains on, and the version of the cases it was read from (to train the model elsewhere: see `adoptNextModel`). */
  stepFlows(): { flows: StepFlow[]; version: number } {
    const flows = this.flowCases().map((c) => ({ terms: c.terms, tools: c.tools, w: c.t === Infinity ? this.priorWeight() : this.decayFactor(c.t, this.now()) }));
    return { flows, version: this.caseVersion };
  }

  /** Takes a next-step model trained elsewhere on `stepFlows()` of `version`; ignored when the cases changed since (or one is already there). */
  adoptNextModel(model: NextStepModel, version: number): void {
    if (version === this.caseVersion) this.stepModel ??= model;
  }

  /** The tools of the flows of the tasks worded most like `terms`, each as a share of their similarity (0..1). */
  similarShares(terms: string[], neighbours = 10): Map<string, number> {
    return this.cases().toolShares(terms, neighbours);
  }

  /** The tools of the past flows that best match the task by its words and the tools it points at (see `CaseIndex.matchedFlows`). */
  matchedFlows(terms: string[], pointed: Map<string, number>, flows = 5): Map<string, number> {
    return this.cases().matchedFlows(terms, pointed, flows);
  }

  /** What is still ahead in the past flows that best match the task's words, the tools it points at and the steps done (see `CaseIndex.matchedAhead`). */
  matchedAhead(terms: string[], pointed: Map<string, number>, done: string[], flows = 5): Map<string, number> {
    return this.cases().matchedAhead(terms, pointed, done, flows);
  }

  /** What is still ahead in the flows of the tasks worded most like `terms`, aligned at the steps done. */
  similarAhead(terms: string[], done: string[], neighbours = 10): Map<string, number> {
    return this.cases().ahead(terms, done, neighbours);
  }

  /** Each learned flow's terms as read today, parsed once per flow (3000 flows take 0.3 s to parse). */
  private readonly todaysTerms = new WeakMap<Case, string[]>();

  /** The prior's flows (never decayed) and the learned ones, each with its terms as read today. */
  private flowCases(): Case[] {
    const termsOf = this.termsOf;
    const own = (this.state.cases ?? []).map((c) => {
      if (!termsOf || !c.query) return c;
      let terms = this.todaysTerms.get(c);
      if (!terms) this.todaysTerms.set(c, (terms = [...new Set(termsOf(c.query))]));
      return { ...c, terms };
    });
    return [...(this.prior?.cases ?? []).map((c) => ({ ...c, t: Infinity })), ...own];
  }

  private cases(): CaseIndex {
    if (!this.caseIndex) {
      const cases = this.flowCases();
      this.caseIndex = new CaseIndex(cases, (t) => (t === Infinity ? this.priorWeight() : this.decayFactor(t, this.now())));
    }
    return this.caseIndex;
  }

  /** Explicit feedback counts more than an implicit trajectory. */
  recordFeedback(terms: string[], tool: string, accepted: boolean, previousTool?: string): void {
    for (const term of new Set(terms)) this.bump(this.state.affinities, term, tool, accepted, 2);
    if (previousTool && previousTool !== tool) this.bump(this.state.transitions, previousTool, tool, accepted, 2);
  }

  /**
   * Successes and failures of `key` in `table`, at the practice's weight. A term only a few practice
   * flows used, read beside a team's flows, is no evidence: counting it among the task's seen
   * terms thinned the team's own words' affinities.
   */
  private evidence(table: Table, key: string): number {
    let v = 0;
    for (const b of this.targets(table, key)) {
      const { s, f } = this.counts(table, key, b);
      v += s + f;
    }
    return v;
  }

  private total(table: Table, key: string): number {
    if (this.dirtyTotals) {
      this.totals.clear();
      this.dirtyTotals = false;
    }
    const ck = table + '\u0000' + key;
    let v = this.totals.get(ck);
    if (v === undefined) {
      v = 0;
      for (const b of this.targets(table, key)) v += this.counts(table, key, b).s;
      this.totals.set(ck, v);
    }
    return v;
  }

  /** Learned preference for b right after a, in about [-1, 1): smoothed P(b | a), each failure cancelling a success. */
  transition(a: string, b: string): number {
    const { s, f } = this.counts('transitions', a, b);
    if (!s && !f) return 0;
    return (s - f) / (this.total('transitions', a) + 2);
  }

  /** Tools learned to follow `a`, strongest first. */
  transitionsFrom(a: string): { to: string; score: number }[] {
    return this.targets('transitions', a)
      .map((to) => ({ to, score: this.transition(a, to) }))
      .filter((x) => x.score > 0)
      .sort((x, y) => y.score - x.score);
  }

  /**
   * `affinity` for every tool at once (one pass over the terms' rows): what scoring a whole catalog
   * needs. Tools no term was seen with are absent (their affinity is 0).
   */
  affinities(terms: string[]): Map<string, { score: number; terms: string[] }> {
    const acc = new Map<string, { sum: number; hits: { term: string; p: number }[] }>();
    let seen = 0;
    for (const term of new Set(terms)) {
      if (!this.state.affinities[term] && !this.prior?.affinities[term]) continue;
      const total = this.total('affinities', term);
      if (total < KNOWN_DF && this.evidence('affinities', term) < KNOWN_DF) continue;
      const weight = 1 / Math.log(Math.E + total);
      seen += weight;
      for (const tool of this.targets('affinities', term)) {
        const { s, f } = this.counts('affinities', term, tool);
        if (!s && !f) continue;
        const p = (s - f) / (total + 1);
        const a = acc.get(tool) ?? acc.set(tool, { sum: 0, hits: [] }).get(tool)!;
        a.sum += weight * p;
        if (p > 0) a.hits.push({ term, p });
      }
    }
    const out = new Map<string, { score: number; terms: string[] }>();
    for (const [tool, a] of acc) out.set(tool, { score: seen ? a.sum / seen : 0, terms: a.hits.sort((x, y) => y.p - x.p).slice(0, 3).map((h) => h.term) });
    return out;
  }

  /** Mean smoothed P(tool | term) over the query terms seen before, in about [-1, 1). */
  affinity(terms: string[], tool: string): { score: number; terms: string[] } {
    let sum = 0;
    let seen = 0;
    const hits: { term: string; p: number }[] = [];
    for (const term of new Set(terms)) {
      if (!this.state.affinities[term] && !this.prior?.affinities[term]) continue;
      // Terms seen with many trajectories ("map", "area") say less than rare ones ("mangrove").
      const total = this.total('affinities', term);
      if (total < KNOWN_DF && this.evidence('affinities', term) < KNOWN_DF) continue;
      const weight = 1 / Math.log(Math.E + total);
      seen += weight;
      const { s, f } = this.counts('affinities', term, tool);
      if (!s && !f) continue;
      const p = (s - f) / (total + 1);
      sum += weight * p;
      if (p > 0) hits.push({ term, p });
    }
    hits.sort((a, b) => b.p - a.p);
    return { score: seen ? sum / seen : 0, terms: hits.slice(0, 3).map((h) => h.term) };
  }

  /**
   * Net (success − failure) transition counts pooled by a coarser key of both ends, e.g. the kind
   * of product the source yields and the target's category: the back-off level for transitions
   * never seen tool to tool. Keys that map to undefined are skipped.
   */
  pooledTransitions(fromKey: (tool: string) => string | undefined, toKey: (tool: string) => string | undefined = (t) => t): Map<string, Map<string, number>> {
    const out = new Map<string, Map<string, number>>();
    for (const a of this.sources('transitions')) {
      const ka = fromKey(a);
      if (ka === undefined) continue;
      for (const b of this.targets('transitions', a)) {
        const kb = toKey(b);
        if (kb === undefined) continue;
        const { s, f } = this.counts('transitions', a, b);
        const m = out.get(ka) ?? out.set(ka, new Map()).get(ka)!;
        m.set(kb, (m.get(kb) ?? 0) + s - f);
      }
    }
    return out;
  }

  /** Decayed success total of transitions out of `a` (0 when never seen). */
  transitionTotal(a: string): number {
    return this.total('transitions', a);
  }

  /** Flows kept as similar-task cases, learned and shipped. */
  get caseCount(): number {
    return (this.state.cases?.length ?? 0) + (this.prior?.cases?.length ?? 0);
  }

  /** Flows learned here (the analyst's or the team's own), the shipped practice not counted. */
  get ownFlowCount(): number {
    return this.state.cases?.length ?? 0;
  }

  /** Number of distinct learned tool→tool transitions (the prior not counted). */
  get transitionCount(): number {
    return countPairs(this.state.transitions);
  }
}

function sameSet(a: string[], b: string[]): boolean {
  const x = new Set(a);
  return x.size === new Set(b).size && b.every((v) => x.has(v));
}

function countPairs(table: Record<string, Record<string, Counts>>): number {
  let n = 0;
  for (const row of Object.values(table)) n += Object.keys(row).length;
  return n;
}
