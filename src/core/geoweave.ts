/** GeoWeave facade: the one entry point of the core for the CLI and the VS Code extension. */
import * as fs from 'fs';
import * as path from 'path';
import { createHash } from 'crypto';
import type { Embedder, EmbedderConfig } from './embed/types';
import type { LoadedManifest, ManifestProblem, ToolManifest, WorkflowTemplate } from './manifests/types';
import { loadCatalog } from './manifests/load';
import { builtinManifestDir } from './manifests/package-root';
import { parseTasks, EvalTask, flowOf } from './eval/tasks';
import { readFlowNames } from './eval/flow-ids';
import { folderReach, foldersSince } from './retrieval/reach';
import { fitFusion, FitFusionOptions, Fusion, MIN_FIT_FLOWS } from './fusion/fusion';
import type { TreeModel } from './fusion/trees';
import { FIT_PROCEDURE, FUSION_FILE, FUSION_VERSION, FusionState, fusionCurrent, fusionFingerprint, readFusion, writeFusion } from './fusion/store';

/** Where the fusion weights in use come from: fitted into the state, shipped with the builtin catalog, fitted on given flows (evaluation), or the hand-set prior. */
export type FusionSource = 'state' | 'shipped' | 'given' | 'prior';
import { formatProblem } from './manifests/problem';
import { ToolGraph } from './manifests/graph';
import { ToolIndex } from './index/tool-index';
import { Bm25Index, analyze } from './index/bm25';
import { allTexts } from './index/text';
import { jsonErrorMessage, readRegularFile, writeFileAtomic } from './index/fs-util';
import { IntentionGraph } from './learning/intention-graph';
import type { MemoryState } from './memory/types';
import type { ComplementaryResult, DataContext, Feedback, ForwardResult, QueryExpansion } from './retrieval/types';
import { LlmClient, LlmConfig, LlmUnavailable, complementaryQueries, expandTask, isLlmUnavailable } from './llm';
import { DEFAULT_WEIGHTS, RetrievalContext, RetrievalMode, Weights, WorkflowEntry } from './retrieval/context';
import { forwardCandidates } from './retrieval/forward';
import { complementarySuggestions } from './retrieval/backward';
import { parseQuery } from './retrieval/query';
import { simplifiedHan } from './embed/tokenize';
import { relevance } from './retrieval/relevance';
import { executability } from './retrieval/executability';
import { dataAfterSteps, dataForTask } from './data/for-task';
import { ensureStateDir } from './state-dir';

export interface GeoWeaveOptions {
  builtinManifestDir?: string;
  noBuiltin?: boolean;
  extraManifestDirs?: string[];
  workspaceDir?: string;
  stateDir: string;
  embedder?: EmbedderConfig;
  log?: (level: 'info' | 'warn' | 'error', msg: string) => void;
  signal?: AbortSignal;
  onProgress?: (fraction: number, message: string) => void;
  /** An embedder instance to use instead of `embedder` (tests, benchmarks). */
  embedderInstance?: Embedder;
  /** Where learned state lives (default: stateDir); evaluation points it at a temporary folder. */
  learnedDir?: string;
  /** Half-life of learned counts in days (default 90). */
  halfLifeDays?: number;
  /** Rebuild the index (and refit the embedder) even when the saved one matches. */
  rebuildIndex?: boolean;
  /**
   * With `rebuildIndex`, also refit a stale fusion before `open` returns (default true: `index build`).
   * The extension passes false and fits in the background, so a rebuild is not held up by a fit.
   */
  refitOnRebuild?: boolean;
  /** Override fusion weights (tuning); the fitted reranking trees are then not used (they rerank the fitted scores). */
  weights?: Partial<Weights>;
  /** false: rank next steps by the weighted sum alone, without the fitted reranking trees (`eval --no-trees`). */
  trees?: boolean;
  /**
   * Analyst flows (a task file) the learned graph starts from, so next-step suggestions work before
   * anyone has run anything. Default: `practice.jsonl` of the builtin catalog (none with
   * `noBuiltin`); `false` for none (evaluation learns only from what it is given).
   */
  practice?: string | false;
  /** Optional LLM (any OpenAI-compatible chat server) for query expansion and complementary queries; undefined = off. */
  llm?: LlmConfig;
}

/** Shipped analyst flows beside the builtin manifests (see `practice`). */
export const PRACTICE_FILE = 'practice.jsonl';

/** After a network failure or timeout the LLM is not asked again for this long (each attempt would stall). */
const LLM_COOLDOWN_MS = 30_000;

/** Embedders that learn corpus statistics (the builtin one fits IDF on the catalog). */
interface FittableEmbedder extends Embedder {
  fit(corpus: string[]): unknown;
  toJSON(): unknown;
}

function isFittable(e: Embedder): e is FittableEmbedder {
  return typeof (e as Partial<FittableEmbedder>).fit === 'function' && typeof (e as Partial<FittableEmbedder>).toJSON === 'function' &&
    typeof (e.constructor as { fromJSON?: unknown }).fromJSON === 'function';
}

const EMBEDDER_STATE_FILE = 'embedder-state.json';
/** The builtin embedder's fit on a large catalog stays near a few MB. */
const MAX_EMBEDDER_STATE_BYTES = 64 << 20;

/**
 * Why a saved embedder fit no longer suits the catalog (undefined while it does): it does not say
 * which tools it was fitted on, or fewer than 3 in 4 of the tools in either catalog are in both.
 */
function catalogDrift(fittedOn: unknown, ids: string[]): string | undefined {
  if (!Array.isArray(fittedOn) || !fittedOn.every((x) => typeof x === 'string')) return 'no record of the tools it was fitted on';
  const before = new Set(fittedOn as string[]);
  const shared = ids.filter((id) => before.has(id)).length;
  const union = before.size + ids.length - shared;
  return union && shared / union < CATALOG_DRIFT ? `fitted on another catalog (${shared} of ${ids.length} tools shared with the ${before.size} it was fitted on)` : undefined;
}

/** Share of tools (Jaccard) two catalogs must have in common to share an embedder fit. */
const CATALOG_DRIFT = 0.75;

export class GeoWeave {
  private _tools: LoadedManifest[] = [];
  private _workflows: WorkflowTemplate[] = [];
  private _problems: ManifestProblem[] = [];
  private ctx!: RetrievalContext;
  private index!: ToolIndex;
  private embedder!: Embedder;
  private embedderKey = '';
  private stateDir = '';
  /** The reload in progress, if any: the next one waits for it (see reload). */
  private reloading: Promise<unknown> = Promise.resolve();
  private llmClient?: LlmClient;
  private llmWarned = false;
  private llmDownUntil = 0;
  private readonly expansions = new Map<string, QueryExpansion>();
  private practiceFlows: EvalTask[] = [];
  private learnedDir = '';
  private fusionState: FusionState | undefined;
  private fusionSource: FusionSource = 'prior';
  /** Tool id → the manifest folder it was loaded from, and when each folder was first seen (`foldersSince`); set on every catalog (re)load. */
  private folderOf = new Map<string, string>();
  private foldersSince = new Map<string, number>();
  /** `folderReach()` and the learned graph's version it was computed at (dropped on reload). */
  private reachCache: { version: number; reach: Map<string, number> } | undefined;

  private constructor(private readonly opts: GeoWeaveOptions) {}

  /** Loaded tools, sorted by id (replaced on reload). */
  get tools(): LoadedManifest[] {
    return this._tools;
  }

  get workflows(): WorkflowTemplate[] {
    return this._workflows;
  }

  /** Problems found while loading manifests (invalid files, duplicates, unknown references). */
  get problems(): ManifestProblem[] {
    return this._problems;
  }

  static async open(opts: GeoWeaveOptions): Promise<GeoWeave> {
    const gw = new GeoWeave(opts);
    await gw.init();
    return gw;
  }

  private log(level: 'info' | 'warn' | 'error', msg: string): void {
    this.opts.log?.(level, msg);
  }

  private loadCatalog(): void {
    const c = loadCatalog({ builtinDir: this.opts.builtinManifestDir, noBuiltin: this.opts.noBuiltin, extraDirs: this.opts.extraManifestDirs, workspaceDir: this.opts.workspaceDir });
    this._tools = c.tools;
    this._workflows = c.workflows;
    this._problems = c.problems;
    for (const p of c.problems) this.log(p.severity === 'error' ? 'warn' : 'info', formatProblem(p));
  }

  private async init(): Promise<void> {
    const o = this.opts;
    this.stateDir = ensureStateDir(o.stateDir, o.log);
    this.loadCatalog();
    this.embedder = o.embedderInstance ?? (await (await import('./embed/factory')).createEmbedder(o.embedder ?? { kind: 'builtin' }, o.signal));
    this.prepareEmbedder(!!o.rebuildIndex);
    const { index } = await ToolIndex.open(this._tools, { stateDir: this.stateDir, embedder: this.embedder, embedderKey: this.embedderKey, rebuild: o.rebuildIndex, log: o.log, signal: o.signal, onProgress: o.onProgress });
    this.index = index;
    let learnedDir = o.learnedDir ?? this.stateDir;
    if (o.learnedDir) learnedDir = ensureStateDir(o.learnedDir, o.log);
    this.learnedDir = learnedDir;
    const learned = IntentionGraph.load(learnedDir, { halfLifeDays: o.halfLifeDays, log: o.log, termsOf: (q) => parseQuery(q).terms });
    this.loadPractice(learned);
    this.ctx = {
      tools: new Map(),
      index,
      bm25: new Bm25Index(),
      embedder: this.embedder,
      graph: new ToolGraph([]),
      learned,
      workflows: [],
      weights: { ...DEFAULT_WEIGHTS, ...o.weights },
      embedCache: new Map(),
      reach: () => this.folderReach(),
    };
    await this.refreshDerived();
    this.loadFusion();
    // Rebuilding the index (`index build`, "Rebuild Tool Index") refits the fusion when it is stale.
    if (o.rebuildIndex && o.refitOnRebuild !== false) await this.refitFusion();
  }

  private loadPractice(learned: IntentionGraph): void {
    const o = this.opts;
    const builtin = o.noBuiltin ? undefined : o.builtinManifestDir ?? builtinManifestDir();
    const file = o.practice === false ? undefined : o.practice ?? (builtin ? path.join(builtin, PRACTICE_FILE) : undefined);
    if (!file) return;
    if (o.practice === undefined && !fs.existsSync(file)) return;
    try {
      // Names as the team's logs wrote them (`mcp__server__ndvi`) read as the catalog names its tools,
      // an assistant's own tools left out of chat logs; a log left with no step is not a flow.
      const flows = readFlowNames(parseTasks(fs.readFileSync(file, 'utf8'), file), this._tools.map((t) => t.manifest.id)).tasks.filter((t) => flowOf(t).length);
      this.practiceFlows = flows;
      learned.setPrior(flows.map((t) => ({ terms: parseQuery(t.query).terms, tools: flowOf(t) })));
      this.log('info', `learned graph starts from ${flows.length} analyst flows (${learned.priorTransitionCount} transitions) in ${file}`);
    } catch (e) {
      this.log('warn', `analyst practice ${file} not used: ${(e as Error).message}`);
    }
  }

  /**
   * A fitted embedder must embed queries exactly as it embedded the index: its fit is saved beside
   * the index and reused, so adding or editing a few tools updates the index in place. It is
   * refitted when the index is rebuilt from scratch, and when the catalog is no longer the one it
   * was fitted on (another team's catalog opened in the same state folder): word weights counted
   * over other tools' texts would rank this catalog by the wrong words, and how well a catalog
   * ranks would depend on what the folder held before.
   */
  private prepareEmbedder(refit: boolean): void {
    const e = this.embedder;
    this.embedderKey = e.id;
    if (!isFittable(e)) return;
    const file = path.join(this.stateDir, EMBEDDER_STATE_FILE);
    const ids = this.tools.map((t) => t.manifest.id).sort();
    let state: unknown;
    if (!refit && fs.existsSync(file)) {
      try {
        const { fittedOn, ...json } = JSON.parse(readRegularFile(file, MAX_EMBEDDER_STATE_BYTES).toString('utf8'));
        const drift = catalogDrift(fittedOn, ids);
        if (drift) {
          this.log('info', `embedder state ${file}: ${drift}; refitting on this catalog and rebuilding the index`);
        } else {
          this.embedder = (e.constructor as unknown as { fromJSON(s: unknown): Embedder }).fromJSON(json);
          state = json;
        }
      } catch (err) {
        this.log('warn', `embedder state ${file} unreadable (${jsonErrorMessage(err)}); refitting`);
      }
    }
    if (state === undefined) {
      e.fit(this.tools.flatMap((t) => allTexts(t.manifest)));
      state = e.toJSON();
      try {
        writeFileAtomic(file, JSON.stringify({ ...(state as object), fittedOn: ids }));
      } catch (err) {
        this.log('warn', `cannot save embedder state to ${file}: ${(err as Error).message}`);
      }
    }
    this.embedderKey = `${e.id}#fit:${createHash('sha256').update(JSON.stringify(state)).digest('hex').slice(0, 16)}`;
  }

  private async refreshDerived(): Promise<void> {
    const manifests = this.tools.map((t) => t.manifest);
    this.ctx.tools = new Map(manifests.map((m) => [m.id, m]));
    this.ctx.bm25 = new Bm25Index(manifests);
    this.ctx.graph = new ToolGraph(manifests, this.workflows);
    this.ctx.embedder = this.embedder;
    const entries: WorkflowEntry[] = [];
    for (const w of this.workflows) {
      const texts = [`${w.name ?? w.id.replace(/_/g, ' ')}. ${w.description}`, ...(w.examples ?? [])];
      const vectors = await this.embedder.embed(texts, this.opts.signal);
      entries.push({ workflow: w, vectors, terms: new Set(texts.flatMap((t) => analyze(t))) });
    }
    this.ctx.workflows = entries;
    this.ctx.embedCache.clear();
    // Rankings and text matches kept for tasks asked before were made with the old catalog.
    this.ctx.forwardCache = undefined;
    this.folderOf = new Map(this._tools.map((t) => [t.manifest.id, t.folder ?? t.source]));
    this.foldersSince = foldersSince(this.learnedDir, new Set(this.folderOf.values()), Date.now(), (m) => this.log('warn', m));
    this.reachCache = undefined;
  }

  getTool(id: string): ToolManifest | undefined {
    return this.ctx.tools.get(id);
  }

  /** Forward candidates for a task. `mode` selects signals for evaluation (default "full"). Readiness
   *  uses the files the task names first and only the earlier outputs that belong to the task. */
  async forwardCandidates(task: string, opts: { k?: number; data?: DataContext; mode?: RetrievalMode; signal?: AbortSignal } = {}): Promise<ForwardResult> {
    const data = opts.data && dataForTask(task, opts.data, await this.relatedTools(task));
    // Retrieval reads Traditional Chinese as Simplified (its phrase patterns are written so); the
    // files a task names are matched as written.
    const text = simplifiedHan(task);
    if (!this.opts.llm) return this.withReadiness(await forwardCandidates(this.ctx, text, { ...opts, data }), data);
    const expansion = await this.expansion(task, opts.signal);
    const res = await forwardCandidates(this.ctx, text, { ...opts, data, expansion });
    res.llm = expansion ? 'used' : 'unavailable';
    return this.withReadiness(res, data);
  }

  /** Complementary suggestions after the steps in `memory`. */
  async complementarySuggestions(memory: MemoryState, opts: { k?: number; data?: DataContext; mode?: RetrievalMode; signal?: AbortSignal } = {}): Promise<ComplementaryResult> {
    const data = opts.data && dataAfterSteps(memory, opts.data);
    // As in forwardCandidates: retrieval reads the task in Simplified characters.
    const simplified = { ...memory, task: simplifiedHan(memory.task) };
    if (!this.opts.llm) return this.withReadiness(await complementarySuggestions(this.ctx, simplified, opts), data);
    const expansion = await this.expansion(memory.task, opts.signal);
    const extraQueries = expansion ? await this.askLlm((c) => complementaryQueries(c, memory, opts.signal)) : undefined;
    const res = await complementarySuggestions(this.ctx, simplified, { ...opts, expansion, extraQueries });
    res.llm = expansion || extraQueries ? 'used' : 'unavailable';
    return this.withReadiness(res, data);
  }

  /** Tools the task is about: its best text matches (at least 40 % of the best one's score). */
  private async relatedTools(task: string): Promise<Set<string>> {
    if (!task.trim()) return new Set();
    const rel = await relevance(this.ctx, task, parseQuery(task).terms, 'hybrid', 60);
    const best = Math.max(0, ...[...rel.values()].map((r) => r.base));
    return new Set([...rel.entries()].filter(([, r]) => best > 0 && r.base >= 0.4 * best).map(([id]) => id));
  }

  /** Readiness in full (where each input was found, what stops a run, what is a guess) for what is shown. */
  private withReadiness<T extends ForwardResult | ComplementaryResult>(res: T, data?: DataContext): T {
    if (!data) return res;
    const items = 'candidates' in res ? res.candidates : [...res.ranked, ...res.groups.flatMap((g) => g.suggestions)];
    const done = new Map<string, ReturnType<typeof executability>>();
    for (const c of items) {
      const m = this.getTool(c.id);
      if (!m) continue;
      const ex = done.get(c.id) ?? executability(m, data);
      done.set(c.id, ex);
      // Backward retrieval knows more about its products (roles a clip keeps): where it chose other
      // inputs, its readiness stands.
      if (JSON.stringify(ex.args) !== JSON.stringify(c.readiness.args)) continue;
      c.readiness = { ready: ex.ready, runnable: ex.runnable, missing: ex.missing, args: ex.args, notes: ex.notes, ...(ex.issues ? { issues: ex.issues } : {}), ...(ex.caveats ? { caveats: ex.caveats } : {}) };
    }
    return res;
  }

  /** The LLM's restatement of a task (cached per task text); undefined when the LLM is unavailable. */
  private async expansion(task: string, signal?: AbortSignal): Promise<QueryExpansion | undefined> {
    const hit = this.expansions.get(task);
    if (hit) return hit;
    const vocabulary = this.tools.map((t) => ({ id: t.manifest.id, name: t.manifest.name ?? t.manifest.id, tags: t.manifest.tags }));
    const e = await this.askLlm((c) => expandTask(c, task, vocabulary, signal));
    if (!e) return undefined;
    const out: QueryExpansion = { text: [...e.keywords, ...e.indicators].join(', '), toolHints: e.toolHints };
    if (this.expansions.size > 500) this.expansions.clear();
    this.expansions.set(task, out);
    return out;
  }

  /**
   * Runs one LLM call; any LlmUnavailable gives undefined so callers take the builtin path. The first
   * failure is logged (a cancelled request is not a failure); a server that is down is left alone for a while.
   */
  private async askLlm<T>(call: (client: LlmClient) => Promise<T>): Promise<T | undefined> {
    if (Date.now() < this.llmDownUntil) return undefined;
    try {
      this.llmClient ??= new LlmClient(this.opts.llm!);
      return await call(this.llmClient);
    } catch (err) {
      if (!isLlmUnavailable(err)) throw err;
      if (err.reason === 'aborted') return undefined;
      if (err.reason === 'network' || err.reason === 'timeout' || err.reason === 'config') this.llmDownUntil = err.reason === 'config' ? Infinity : Date.now() + LLM_COOLDOWN_MS;
      if (!this.llmWarned) {
        this.llmWarned = true;
        this.log('warn', `LLM layer off for now, using builtin retrieval: ${(err as LlmUnavailable).message}`);
      }
      return undefined;
    }
  }

  /** Plain text search over the catalog (dense + BM25, no priors). */
  async searchTools(text: string, k = 10): Promise<{ id: string; name: string; score: number }[]> {
    if (!text.trim()) return [];
    const rel = await relevance(this.ctx, text, parseQuery(text).terms, 'hybrid', Math.max(60, k * 5));
    return [...rel.entries()]
      .sort((a, b) => b[1].base - a[1].base || a[0].localeCompare(b[0]))
      .slice(0, k)
      .map(([id, r]) => ({ id, name: this.ctx.tools.get(id)?.name ?? id, score: Math.round(r.base * 10000) / 10000 }));
  }

  async recordFeedback(task: string, toolId: string, feedback: Feedback, previousTool?: string): Promise<void> {
    this.ctx.learned.recordFeedback(parseQuery(task).terms, toolId, feedback === 'accepted', previousTool);
    this.ctx.learned.save(this.opts.log);
  }

  async recordTrajectory(task: string, tools: string[], ok = true): Promise<void> {
    this.ctx.learned.recordTrajectory(parseQuery(task).terms, tools, ok, task);
    this.ctx.learned.save(this.opts.log);
  }

  /** Learns many trajectories and saves once (CLI `learn`, evaluation); false when the save failed (logged). */
  async recordTrajectories(items: { task: string; tools: string[]; ok?: boolean }[]): Promise<boolean> {
    for (const it of items) this.ctx.learned.recordTrajectory(parseQuery(it.task).terms, it.tools, it.ok ?? true, it.task);
    return this.ctx.learned.save(this.opts.log);
  }

  /**
   * Re-reads manifest folders and updates the index incrementally. Calls run one after another: a
   * save and a file watcher can ask at once, and two updates interleaved at their embedding step
   * left the first text's vectors under the tool beside the second's, for good.
   */
  reload(): Promise<{ added: string[]; changed: string[]; removed: string[] }> {
    const run = this.reloading.then(async () => {
      this.loadCatalog();
      const u = await this.index.update(this._tools);
      await this.refreshDerived();
      return { added: u.added, changed: u.changed, removed: u.removed };
    });
    this.reloading = run.catch(() => undefined);
    return run;
  }

  stats(): { tools: number; workflows: number; embedder: string; dimension: number; indexFile: string; learnedTransitions: number; practiceTransitions: number; practiceShare: number; practiceWeight: number; cases: number; folders: { folder: string; tools: number; reach: number }[] } {
    const reach = this.folderReach();
    const folders = new Map<string, { folder: string; tools: number; reach: number }>();
    for (const [id, key] of this.folderOf) {
      const f = folders.get(key) ?? folders.set(key, { folder: key, tools: 0, reach: 1 }).get(key)!;
      f.tools++;
      f.reach = Math.min(f.reach, reach.get(id) ?? 1);
    }
    return {
      folders: [...folders.values()],
      tools: this.tools.length,
      workflows: this.workflows.length,
      embedder: this.embedder.id,
      dimension: this.embedder.dimension,
      indexFile: this.index.file,
      learnedTransitions: this.ctx.learned.transitionCount,
      practiceTransitions: this.ctx.learned.priorTransitionCount,
      practiceShare: this.ctx.learned.practiceShare(),
      practiceWeight: this.ctx.learned.priorWeight(),
      cases: this.ctx.learned.caseCount,
    };
  }

  /**
   * The flows a fit of this catalog replays: the practice flows, then the learned ones whose task
   * text was kept. Once the team has flows to fit on, the practice comes in the share of the team's
   * steps that run its tools (`practiceUse`, u: u / (1 - u) practice flows per own flow), spread
   * evenly over the file: a team whose flows run only its own tools is fitted on its own flows.
   * (With the practice's PRIOR_STEPS counted as use, a 20-flow municipal team replayed 2 practice
   * flows, whose builtin tasks pulled its fit: R@10 0.418 against 0.455 with none.) With fewer
   * learned flows the practice comes in the share the learned graph gives it (r of the file), so a
   * single flow is not fitted alone.
   */
  private fitFlows(): EvalTask[] {
    const learned = this.ctx.learned.learnedFlows().map((f, i) => ({ id: `learned-${i + 1}`, query: f.query, gold: [...new Set(f.tools)], flow: f.tools, line: 0 }));
    const n = this.practiceFlows.length;
    const u = this.ctx.learned.practiceUse();
    const keep = learned.length >= MIN_FIT_FLOWS ? (u >= 1 ? n : Math.min(n, Math.round((u / (1 - u)) * learned.length))) : Math.round(this.ctx.learned.practiceShare() * n);
    const practice = this.practiceFlows.filter((_, i) => Math.floor(((i + 1) * keep) / n) > Math.floor((i * keep) / n));
    return [...practice, ...learned].filter((t) => flowOf(t).every((id) => this.ctx.tools.has(id)));
  }

  /**
   * `folderReach` over the learned flows, once the team has flows to fit on (before, a new team's
   * own folder would be the one its flows do not reach yet), each folder judged on the flows
   * recorded since it was first seen. Computed when the learned flows or the catalog change; the
   * fit's folds read the same factors as the live ranking.
   */
  private folderReach(): Map<string, number> {
    const version = this.ctx.learned.version;
    if (this.reachCache?.version !== version) {
      const flows = this.ctx.learned.learnedFlows();
      const reach = flows.length >= MIN_FIT_FLOWS ? folderReach(this.folderOf, flows, this.foldersSince) : new Map<string, number>();
      this.reachCache = { version, reach };
    }
    return this.reachCache.reach;
  }

  private fingerprints(flows: EvalTask[]): { catalog: string; flows: string } {
    const tools = this._tools.map((t) => ({ id: t.manifest.id, hash: t.hash }));
    return { catalog: fusionFingerprint(tools, []), flows: fusionFingerprint([], flows.map((t) => ({ query: t.query, tools: flowOf(t) }))) };
  }

  /**
   * Uses the fusion fitted for this catalog: the state's own fit, else the one shipped with the
   * builtin catalog, else the prior weights. A fit of other flows of the same catalog still serves
   * (it is stale, and `learn` or `index build` refits it).
   */
  private loadFusion(): void {
    const { catalog } = this.fingerprints([]);
    const candidates: [FusionSource, string][] = [['state', path.join(this.learnedDir, FUSION_FILE)]];
    const builtin = this.opts.noBuiltin ? undefined : this.opts.builtinManifestDir ?? builtinManifestDir();
    if (builtin && this.opts.practice === undefined) candidates.push(['shipped', path.join(builtin, FUSION_FILE)]);
    for (const [source, file] of candidates) {
      let st: FusionState | undefined;
      try {
        st = readFusion(file);
      } catch (e) {
        this.log('warn', `fusion weights not used: ${(e as Error).message}; the next "geoweave learn" or "index build" refits them`);
      }
      if (!st || st.catalog !== catalog) continue;
      this.applyFusion(st, source);
      return;
    }
    this.applyFusion(undefined, 'prior');
  }

  private applyFusion(st: FusionState | undefined, source: FusionSource): void {
    this.fusionState = st;
    this.fusionSource = st ? source : 'prior';
    this.ctx.weights = { ...DEFAULT_WEIGHTS, ...this.opts.weights, ...(st?.weights ?? {}), ...this.opts.weights };
    this.ctx.nextTrees = this.treesFor(st?.trees);
  }

  /** Trees rerank the scores they were fitted on: not when weights were given by hand (tuning), nor when switched off. */
  private treesFor(trees: TreeModel | undefined): TreeModel | undefined {
    return this.opts.trees === false || (this.opts.weights && Object.keys(this.opts.weights).length) ? undefined : trees;
  }

  /** Which fusion weights are in use, and whether they were fitted on the catalog and flows at hand. */
  fusionStatus(): { source: FusionSource; current: boolean; flows: number; state?: FusionState } {
    const flows = this.fitFlows();
    const fp = this.fingerprints(flows);
    const st = this.fusionState;
    return { source: this.fusionSource, current: fusionCurrent(st, fp), flows: flows.length, ...(st ? { state: st } : {}) };
  }

  /**
   * Whether a fit is due without being asked for: none was made for this catalog though it has
   * enough flows, an older GeoWeave fitted it another way, or the flows grew or shrank by a tenth
   * since (a few more runs do not call for one; `learn` and `index build` refit on any change).
   */
  fusionNeedsFit(): boolean {
    const s = this.fusionStatus();
    if (s.flows < MIN_FIT_FLOWS) return false;
    if (s.source === 'prior' || !s.state) return true;
    if (s.current) return false;
    if ((s.state.procedure ?? 1) !== FIT_PROCEDURE) return true;
    const fitted = s.state.report?.flows ?? 0;
    return Math.abs(s.flows - fitted) >= Math.max(5, fitted / 10);
  }

  /**
   * Refits the fusion on the practice and learned flows when the catalog or the flows changed since
   * the last fit (or always, with `force`), saves it in the state and uses it. With too few flows
   * the prior stays (and that is saved too, so the check is not repeated).
   */
  async refitFusion(opts: FitFusionOptions & { force?: boolean } = {}): Promise<FusionState> {
    const flows = this.fitFlows();
    const fp = this.fingerprints(flows);
    const st = this.fusionState;
    if (!opts.force && (this.fusionSource === 'state' || this.fusionSource === 'shipped') && fusionCurrent(st, fp)) return st!;
    const prior: Weights = { ...DEFAULT_WEIGHTS, ...this.opts.weights };
    const fusion = await fitFusion(this.ctx, flows, prior, { signal: this.opts.signal, onProgress: this.opts.onProgress, ...opts });
    const state: FusionState = {
      version: FUSION_VERSION,
      catalog: fp.catalog,
      flows: fp.flows,
      procedure: FIT_PROCEDURE,
      weights: fusion.weights,
      ...(fusion.trees ? { trees: fusion.trees } : {}),
      ...(fusion.report ? { report: fusion.report } : {}),
      ...(fusion.reason ? { reason: fusion.reason } : {}),
      fittedAt: new Date().toISOString(),
    };
    try {
      writeFusion(path.join(this.learnedDir, FUSION_FILE), state);
    } catch (e) {
      this.log('warn', `cannot save the fusion weights in ${this.learnedDir}: ${(e as Error).message}`);
    }
    this.applyFusion(state, 'state');
    return state;
  }

  /**
   * Fits the fusion weights on `tasks` (k-fold over their flows; see fusion/fusion.ts) and uses them
   * from now on. Weights given as options stay as given. With too few flows the prior stays.
   */
  async fitFusion(tasks: EvalTask[], opts: FitFusionOptions = {}): Promise<Fusion> {
    const prior: Weights = { ...DEFAULT_WEIGHTS, ...this.opts.weights };
    const fusion = await fitFusion(this.ctx, tasks, prior, { signal: this.opts.signal, ...opts });
    this.ctx.weights = { ...prior, ...fusion.weights, ...this.opts.weights };
    this.ctx.nextTrees = this.treesFor(fusion.trees);
    this.fusionState = undefined;
    this.fusionSource = fusion.report ? 'given' : 'prior';
    return fusion;
  }

  /** The folder actually used for state (differs from the option when that was unusable). */
  get stateFolder(): string {
    return this.stateDir;
  }

  get weights(): Weights {
    return this.ctx.weights;
  }

  async dispose(): Promise<void> {
    await this.embedder.dispose?.();
  }
}
