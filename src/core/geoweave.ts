/** GeoWeave facade: the one entry point of the core for the CLI and the VS Code extension. */
import * as fs from 'fs';
import * as path from 'path';
import { createHash } from 'crypto';
import type { Embedder, EmbedderConfig } from './embed/types';
import type { LoadedManifest, ManifestProblem, ToolManifest, WorkflowTemplate } from './manifests/types';
import { loadCatalog } from './manifests/load';
import { builtinManifestDir } from './manifests/package-root';
import { parseTasks } from './eval/tasks';
import { formatProblem } from './manifests/problem';
import { ToolGraph } from './manifests/graph';
import { ToolIndex } from './index/tool-index';
import { Bm25Index, analyze } from './index/bm25';
import { allTexts } from './index/text';
import { writeFileAtomic } from './index/fs-util';
import { IntentionGraph } from './learning/intention-graph';
import type { MemoryState } from './memory/types';
import type { ComplementaryResult, DataContext, Feedback, ForwardResult, QueryExpansion } from './retrieval/types';
import { LlmClient, LlmConfig, LlmUnavailable, complementaryQueries, expandTask, isLlmUnavailable } from './llm';
import { DEFAULT_WEIGHTS, RetrievalContext, RetrievalMode, Weights, WorkflowEntry } from './retrieval/context';
import { forwardCandidates } from './retrieval/forward';
import { complementarySuggestions } from './retrieval/backward';
import { parseQuery } from './retrieval/query';
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
  /** Override fusion weights (tuning). */
  weights?: Partial<Weights>;
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

export class GeoWeave {
  private _tools: LoadedManifest[] = [];
  private _workflows: WorkflowTemplate[] = [];
  private _problems: ManifestProblem[] = [];
  private ctx!: RetrievalContext;
  private index!: ToolIndex;
  private embedder!: Embedder;
  private embedderKey = '';
  private stateDir = '';
  private llmClient?: LlmClient;
  private llmWarned = false;
  private llmDownUntil = 0;
  private readonly expansions = new Map<string, QueryExpansion>();

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
    const learned = IntentionGraph.load(learnedDir, { halfLifeDays: o.halfLifeDays, log: o.log });
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
    };
    await this.refreshDerived();
  }

  private loadPractice(learned: IntentionGraph): void {
    const o = this.opts;
    const builtin = o.noBuiltin ? undefined : o.builtinManifestDir ?? builtinManifestDir();
    const file = o.practice === false ? undefined : o.practice ?? (builtin ? path.join(builtin, PRACTICE_FILE) : undefined);
    if (!file) return;
    if (o.practice === undefined && !fs.existsSync(file)) return;
    try {
      const flows = parseTasks(fs.readFileSync(file, 'utf8'), file);
      learned.setPrior(flows.map((t) => ({ terms: parseQuery(t.query).terms, tools: t.flow.length ? t.flow : t.gold })));
      this.log('info', `learned graph starts from ${flows.length} analyst flows (${learned.priorTransitionCount} transitions) in ${file}`);
    } catch (e) {
      this.log('warn', `analyst practice ${file} not used: ${(e as Error).message}`);
    }
  }

  /**
   * A fitted embedder must embed queries exactly as it embedded the index: its fit is saved beside
   * the index and reused; it is refitted only when the index is rebuilt from scratch.
   */
  private prepareEmbedder(refit: boolean): void {
    const e = this.embedder;
    this.embedderKey = e.id;
    if (!isFittable(e)) return;
    const file = path.join(this.stateDir, EMBEDDER_STATE_FILE);
    let state: unknown;
    if (!refit && fs.existsSync(file)) {
      try {
        const json = JSON.parse(fs.readFileSync(file, 'utf8'));
        this.embedder = (e.constructor as unknown as { fromJSON(s: unknown): Embedder }).fromJSON(json);
        state = json;
      } catch (err) {
        this.log('warn', `embedder state ${file} unreadable (${(err as Error).message}); refitting`);
      }
    }
    if (state === undefined) {
      e.fit(this.tools.flatMap((t) => allTexts(t.manifest)));
      state = e.toJSON();
      try {
        writeFileAtomic(file, JSON.stringify(state));
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
  }

  getTool(id: string): ToolManifest | undefined {
    return this.ctx.tools.get(id);
  }

  /** Forward candidates for a task. `mode` selects signals for evaluation (default "full"). Readiness
   *  uses the files the task names first and only the earlier outputs that belong to the task. */
  async forwardCandidates(task: string, opts: { k?: number; data?: DataContext; mode?: RetrievalMode; signal?: AbortSignal } = {}): Promise<ForwardResult> {
    const data = opts.data && dataForTask(task, opts.data, await this.relatedTools(task));
    if (!this.opts.llm) return this.withReadiness(await forwardCandidates(this.ctx, task, { ...opts, data }), data);
    const expansion = await this.expansion(task, opts.signal);
    const res = await forwardCandidates(this.ctx, task, { ...opts, data, expansion });
    res.llm = expansion ? 'used' : 'unavailable';
    return this.withReadiness(res, data);
  }

  /** Complementary suggestions after the steps in `memory`. */
  async complementarySuggestions(memory: MemoryState, opts: { k?: number; data?: DataContext; mode?: RetrievalMode; signal?: AbortSignal } = {}): Promise<ComplementaryResult> {
    const data = opts.data && dataAfterSteps(memory, opts.data);
    if (!this.opts.llm) return this.withReadiness(await complementarySuggestions(this.ctx, memory, opts), data);
    const expansion = await this.expansion(memory.task, opts.signal);
    const extraQueries = expansion ? await this.askLlm((c) => complementaryQueries(c, memory, opts.signal)) : undefined;
    const res = await complementarySuggestions(this.ctx, memory, { ...opts, expansion, extraQueries });
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
    this.ctx.learned.recordTrajectory(parseQuery(task).terms, tools, ok);
    this.ctx.learned.save(this.opts.log);
  }

  /** Learns many trajectories and saves once (CLI `learn`, evaluation). */
  async recordTrajectories(items: { task: string; tools: string[]; ok?: boolean }[]): Promise<void> {
    for (const it of items) this.ctx.learned.recordTrajectory(parseQuery(it.task).terms, it.tools, it.ok ?? true);
    this.ctx.learned.save(this.opts.log);
  }

  /** Re-reads manifest folders and updates the index incrementally. */
  async reload(): Promise<{ added: string[]; changed: string[]; removed: string[] }> {
    this.loadCatalog();
    const u = await this.index.update(this._tools);
    await this.refreshDerived();
    return { added: u.added, changed: u.changed, removed: u.removed };
  }

  stats(): { tools: number; workflows: number; embedder: string; dimension: number; indexFile: string; learnedTransitions: number; practiceTransitions: number; cases: number } {
    return {
      tools: this.tools.length,
      workflows: this.workflows.length,
      embedder: this.embedder.id,
      dimension: this.embedder.dimension,
      indexFile: this.index.file,
      learnedTransitions: this.ctx.learned.transitionCount,
      practiceTransitions: this.ctx.learned.priorTransitionCount,
      cases: this.ctx.learned.caseCount,
    };
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
