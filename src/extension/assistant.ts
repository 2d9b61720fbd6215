/** What the panel shows and does: forward candidates for the task, complementary suggestions after
 *  each run, the memory timeline; inserting, running and dismissing suggestions (with feedback). */
import * as vscode from 'vscode';
import { summaryLanguage, type SummaryLanguage } from '../core/results/summary-language';
import { RATIONALE_LABELS, localizeNote, localizeReason } from '../core/retrieval/reason-language';
import { displayName, toolDescription, workflowDescription, workflowDisplayName } from '../core/manifests/display';
import type { ArchivedData, ComplementaryResult, ForwardResult, Readiness, ScoreParts } from '../core/retrieval/types';
import { scorePartViews } from '../core/retrieval/score-parts';
import type { MemoryState } from '../core/memory/types';
import type { ToolManifest, WorkflowTemplate } from '../core/manifests/types';
import type { PanelState, SuggestionOrigin, SuggestionView } from '../shared/protocol';
import { followCells, workingMemory } from '../core/memory/memory';
import { missingArgComments, suggestedCall, workflowCalls } from '../core/notebook/suggested-cell';
import { printToolCall } from '../core/notebook/tool-cell';
import { argSummary } from '../core/notebook/result-view';
import { config } from './config';
import type { Log } from './log';
import type { RetrievalService } from './retrieval-service';
import type { WorkspaceData } from './workspace-data';
import { activeNotebookEditor, appendToolCells, cellIds, createNotebookFile, currentNotebook, earlierCells, editorFor, isGeoNotebook, memoryOf, setMemory } from './notebook-session';
import { redactText } from '../core/net/redact';
import { knownSecrets } from './secrets';

interface NotebookView {
  forward?: ForwardResult;
  complementary?: ComplementaryResult;
  dismissed: Set<string>;
}

export class Assistant implements vscode.Disposable {
  private readonly views = new Map<string, NotebookView>();
  /** Archives already offered for extraction this session. */
  private readonly offered = new Set<string>();
  /** Task typed while no notebook was open; it goes into the notebook created on first insert. */
  private pendingTask = '';
  private busy?: string;
  private error?: string;
  private readonly emitter = new vscode.EventEmitter<PanelState>();
  readonly onDidChangeState = this.emitter.event;
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(
    private readonly retrieval: RetrievalService,
    private readonly data: WorkspaceData,
    private readonly log: Log,
    /** Remembers per notebook how much of its trace already taught the transition model. */
    private readonly workspaceState: vscode.Memento,
  ) {
    this.subscriptions.push(
      vscode.workspace.onDidSaveNotebookDocument((nb) => { if (isGeoNotebook(nb)) void this.recordTrajectory(nb); }),
      vscode.window.onDidChangeActiveNotebookEditor(() => this.followActiveNotebook()),
      vscode.workspace.onDidCloseNotebookDocument((nb) => { if (isGeoNotebook(nb)) void this.recordTrajectory(nb); }),
      vscode.workspace.onDidChangeNotebookDocument((e) => {
        if (!isGeoNotebook(e.notebook)) return;
        if (e.contentChanges.some((c) => c.removedCells.length)) void this.followCells(e.notebook);
        if (e.metadata && e.notebook === currentNotebook()) this.push();
      }),
      retrieval.onDidChange(() => this.push()),
    );
  }

  private key(nb?: vscode.NotebookDocument): string {
    return nb?.uri.toString() ?? '';
  }

  private view(nb?: vscode.NotebookDocument): NotebookView {
    const k = this.key(nb);
    let v = this.views.get(k);
    if (!v) this.views.set(k, (v = { dismissed: new Set() }));
    return v;
  }

  private notebook(): vscode.NotebookDocument | undefined {
    return currentNotebook();
  }

  task(): string {
    const nb = this.notebook();
    return nb ? memoryOf(nb, config.workingMemorySize()).task || this.pendingTask : this.pendingTask;
  }

  /** The whole panel state for the notebook in front. */
  state(): PanelState {
    const nb = this.notebook();
    const v = this.view(nb);
    const memory = nb ? memoryOf(nb, config.workingMemorySize()) : undefined;
    const window = memory ? workingMemory(memory) : [];
    const gw = this.retrieval.peek();
    const visible = (origin: SuggestionOrigin, id: string) => !v.dismissed.has(`${origin}:${id}`);
    const stats = gw?.stats();
    const lang = summaryLanguage(vscode.env.language, this.task());
    // The catalog names the tools in Chinese reasons and gives each suggestion its display name.
    const catalog = gw?.tools.map((t) => t.manifest) ?? [];
    const workflows = gw?.workflows ?? [];
    const view = (id: string, name: string, score: number, reason: string, r: Readiness, parts: ScoreParts) => suggestionView(id, name, score, reason, r, parts, lang, catalog, workflows);
    const wf = v.forward?.workflow;
    const template = wf ? workflows.find((w) => w.id === wf.id) : undefined;
    return {
      notebook: nb ? vscode.workspace.asRelativePath(nb.uri, false) : undefined,
      task: this.task(),
      forward: (v.forward?.candidates ?? []).filter((c) => visible('forward', c.id)).map((c) => view(c.id, c.name, c.score, c.reason, c.readiness, c.parts)),
      workflow: wf ? { id: wf.id, name: template ? workflowDisplayName(template, lang) : wf.name, description: template ? workflowDescription(template, lang) : wf.description, steps: wf.steps } : undefined,
      complementary: (v.complementary?.groups ?? []).map((g) => ({
        rationale: g.rationale,
        heading: RATIONALE_LABELS[lang][g.rationale],
        suggestions: g.suggestions.filter((s) => visible('complementary', s.id)).map((s) => view(s.id, s.name, s.score, s.reason, s.readiness, s.parts)),
      })).filter((g) => g.suggestions.length),
      memory: (memory?.trace ?? []).map((s) => ({ tool: s.tool, argSummary: s.argSummary, resultSummary: s.resultSummary, ok: s.ok, time: s.time, inWindow: window.includes(s) })),
      windowSize: memory?.windowSize ?? config.workingMemorySize(),
      index: stats ? vscode.l10n.t('{0} tools · {1} workflows · {2}', stats.tools, stats.workflows, stats.embedder) : vscode.l10n.t('index not loaded yet'),
      busy: this.busy,
      error: this.error,
    };
  }

  push(): void {
    this.emitter.fire(this.state());
  }

  private async withBusy<T>(message: string, work: () => Promise<T>): Promise<T | undefined> {
    this.busy = message;
    this.error = undefined;
    this.push();
    try {
      return await work();
    } catch (e) {
      // Shown in the panel: no URL credentials or keys (the log line below is redacted by the log).
      this.error = redactText((e as Error).message, knownSecrets());
      this.log.error(`${message}: ${(e as Error).stack ?? e}`);
      return undefined;
    } finally {
      this.busy = undefined;
      this.push();
    }
  }

  private followActiveNotebook(): void {
    const nb = this.notebook();
    this.push();
    if (!nb) return;
    const v = this.view(nb);
    const memory = memoryOf(nb, config.workingMemorySize());
    // A notebook just created for the task typed in the panel takes over its candidates.
    const pending = this.views.get('');
    if (!v.forward && pending?.forward && memory.task === this.pendingTask) v.forward = pending.forward;
    // A reopened notebook continues where it was: recompute what it showed.
    if (!v.forward && memory.task) void this.forwardFor(nb, memory.task);
    if (!v.complementary && memory.trace.length) void this.suggestNext();
  }

  /** Sets the task (stored in the notebook's session memory) and ranks tools for it. */
  async describeTask(task: string): Promise<void> {
    task = task.trim();
    const nb = this.notebook();
    this.pendingTask = task;
    if (nb) {
      const memory = memoryOf(nb, config.workingMemorySize());
      if (memory.task !== task) await setMemory(nb, { ...memory, task });
    }
    if (!task) {
      this.view(nb).forward = undefined;
      this.push();
      return;
    }
    await this.forwardFor(nb, task);
  }

  private async forwardFor(nb: vscode.NotebookDocument | undefined, task: string): Promise<void> {
    await this.withBusy(vscode.l10n.t('Ranking tools for the task…'), async () => {
      const gw = await this.retrieval.get();
      const context = await this.data.context(nb ? earlierCells(nb) : [], task);
      const result = await gw.forwardCandidates(task, { k: config.suggestionsCount(), data: context });
      const v = this.view(nb);
      v.forward = result;
      v.dismissed.clear();
      this.log.info(`forward "${task}": ${result.candidates.slice(0, 5).map((c) => `${c.id} ${c.score.toFixed(3)}`).join(', ')}${result.workflow ? `; workflow ${result.workflow.id}` : ''}`);
      this.offerArchive(context.archives, result.candidates.slice(0, 5).flatMap((c) => c.explanation.readiness));
    });
  }

  /**
   * When the data a leading candidate needs is only inside an archive (a `.SAFE.zip` just downloaded),
   * offers to extract it, once per archive in a session: readiness alone would leave the analyst
   * reading "none found" beside a file they can see in the Explorer.
   */
  private offerArchive(archives: ArchivedData[] | undefined, readiness: string[]): void {
    const a = archives?.find((x) => !this.offered.has(x.path) && readiness.some((r) => r.endsWith(': extract it first') && r.includes(` ${x.path}`)));
    if (!a) return;
    this.offered.add(a.path);
    const extract = vscode.l10n.t('Extract');
    void vscode.window.showInformationMessage(vscode.l10n.t('GeoWeave: {0} holds {1}, which GeoWeave reads once it is extracted.', a.path, a.holds), extract).then((picked) => {
      if (picked === extract) void vscode.commands.executeCommand('geoweave.extractArchive', a.path);
    });
  }

  /** Recomputes the complementary suggestions from the notebook's working memory. */
  async suggestNext(): Promise<void> {
    const nb = this.notebook();
    if (!nb) {
      void vscode.window.showInformationMessage(vscode.l10n.t('GeoWeave: open a GeoWeave notebook and run a tool cell first.'));
      return;
    }
    const memory = memoryOf(nb, config.workingMemorySize());
    if (!memory.trace.length) {
      this.view(nb).complementary = undefined;
      this.push();
      return;
    }
    await this.withBusy(vscode.l10n.t('Finding complementary tools…'), async () => {
      const gw = await this.retrieval.get();
      const context = await this.data.context(earlierCells(nb), memory.task);
      const result = await gw.complementarySuggestions(memory, { k: config.suggestionsCount(), data: context });
      this.view(nb).complementary = result;
      this.log.info(`complementary after ${memory.trace.map((s) => s.tool).join(' → ')}: ${result.ranked.slice(0, 5).map((s) => `${s.rationale}:${s.id}`).join(', ')}`);
    });
  }

  /** Called by the controller after a successful run of a cell in `nb`. */
  async afterRun(nb: vscode.NotebookDocument): Promise<void> {
    if (nb !== this.notebook()) return;
    await this.suggestNext();
  }

  private readinessFor(nb: vscode.NotebookDocument | undefined, toolId: string, origin: SuggestionOrigin): Readiness | undefined {
    const v = this.view(nb);
    const fromComp = v.complementary?.ranked.find((s) => s.id === toolId)?.readiness;
    const fromFwd = v.forward?.candidates.find((c) => c.id === toolId)?.readiness;
    return origin === 'complementary' ? fromComp ?? fromFwd : fromFwd ?? fromComp;
  }

  private async targetEditor(): Promise<vscode.NotebookEditor | undefined> {
    const existing = activeNotebookEditor();
    if (existing) return existing;
    const open = currentNotebook();
    if (open) return editorFor(open);
    const dir = this.retrieval.workspaceDir();
    if (!dir) {
      void vscode.window.showErrorMessage(vscode.l10n.t('GeoWeave: open a folder first; notebooks and outputs live in the workspace.'));
      return undefined;
    }
    const editor = await createNotebookFile(dir, this.pendingTask, config.workingMemorySize());
    const moved = this.views.get('');
    if (moved) this.views.set(this.key(editor.notebook), moved);
    return editor;
  }

  /** Cell text for a tool: arguments resolved from readiness and earlier outputs, required
   *  arguments that could not be resolved listed as comments to fill in. */
  /** `readiness`, or when a tool is not among the shown suggestions (Insert Tool Cell, Find Tool,
   *  workflows) its readiness on the data at hand, from ranking the whole catalog for the task. */
  private async readinessOf(nb: vscode.NotebookDocument | undefined, toolId: string, readiness?: Readiness): Promise<Readiness | undefined> {
    if (readiness) return readiness;
    const gw = await this.retrieval.get();
    const data = await this.data.context(nb ? earlierCells(nb) : [], this.task());
    const all = await gw.forwardCandidates(this.task() || toolId, { k: gw.tools.length, data });
    return all.candidates.find((c) => c.id === toolId)?.readiness;
  }

  async cellSource(nb: vscode.NotebookDocument | undefined, toolId: string, readiness?: Readiness): Promise<string> {
    const gw = await this.retrieval.get();
    const manifest = gw.getTool(toolId);
    const earlier = nb ? earlierCells(nb) : [];
    readiness = await this.readinessOf(nb, toolId, readiness);
    const call = suggestedCall(toolId, readiness?.args ?? {}, earlier, manifest, this.retrieval.workspaceDir());
    return printToolCall(call) + missingArgComments(manifest, Object.keys(call.args), summaryLanguage(vscode.env.language, this.task()));
  }

  async insert(toolId: string, origin: SuggestionOrigin, run: boolean): Promise<void> {
    await this.withBusy(vscode.l10n.t('Inserting {0}…', toolId), async () => {
      const before = this.notebook();
      const readiness = this.readinessFor(before, toolId, origin);
      const editor = await this.targetEditor();
      if (!editor) return;
      const nb = editor.notebook;
      const source = await this.cellSource(nb, toolId, readiness);
      const [cell] = await appendToolCells(editor, [source]);
      await this.feedback(nb, toolId, 'accepted');
      if (run) await runCells(nb, cell.index, cell.index + 1);
    });
  }

  async insertWorkflow(workflowId: string): Promise<void> {
    await this.withBusy(vscode.l10n.t('Inserting workflow {0}…', workflowId), async () => {
      const gw = await this.retrieval.get();
      const wf = gw.workflows.find((w) => w.id === workflowId);
      if (!wf) throw new Error(`unknown workflow "${workflowId}"`);
      const editor = await this.targetEditor();
      if (!editor) return;
      // Each step prefilled from its readiness on the data, then chained: a step's product input
      // takes the step before it (zonal statistics over this NDVI, not over a file the data offered).
      const steps: { tool: string; args: Record<string, unknown>; manifest?: ToolManifest }[] = [];
      for (const tool of wf.steps) steps.push({ tool, args: (await this.readinessOf(editor.notebook, tool, this.readinessFor(editor.notebook, tool, 'workflow')))?.args ?? {}, manifest: gw.getTool(tool) });
      const lang = summaryLanguage(vscode.env.language, this.task());
      const calls = workflowCalls(steps, earlierCells(editor.notebook), this.retrieval.workspaceDir());
      await appendToolCells(editor, calls.map((call, i) => printToolCall(call) + missingArgComments(steps[i].manifest, Object.keys(call.args), lang)));
    });
  }

  async dismiss(toolId: string, origin: SuggestionOrigin): Promise<void> {
    const nb = this.notebook();
    this.view(nb).dismissed.add(`${origin}:${toolId}`);
    this.push();
    await this.feedback(nb, toolId, 'dismissed').catch((e) => this.log.warn(`feedback not recorded: ${(e as Error).message}`));
  }

  private async feedback(nb: vscode.NotebookDocument | undefined, toolId: string, kind: 'accepted' | 'dismissed'): Promise<void> {
    const task = this.task();
    if (!task) return;
    const memory = nb ? memoryOf(nb, config.workingMemorySize()) : undefined;
    const previous = memory?.trace.filter((s) => s.ok).pop()?.tool;
    const gw = await this.retrieval.get();
    await gw.recordFeedback(task, toolId, kind, previous);
    this.log.info(`feedback: ${kind} ${toolId}${previous ? ` after ${previous}` : ''}`);
  }

  async clearMemory(): Promise<void> {
    const nb = this.notebook();
    if (!nb) return;
    await this.recordTrajectory(nb);
    const memory = memoryOf(nb, config.workingMemorySize());
    await setMemory(nb, { ...memory, trace: [] });
    this.view(nb).complementary = undefined;
    await this.workspaceState.update(this.trajectoryKey(nb), 0);
    this.push();
  }

  private trajectoryKey(nb: vscode.NotebookDocument): string {
    return `geoweave.trajectoryRecorded:${nb.uri.toString()}`;
  }

  /** Executed sequences teach the transition model: when a notebook is saved, closed or cleared,
   *  the steps not yet recorded go in, joined to the last recorded step so each transition counts
   *  once (across reloads too: the count lives in workspace state). */
  private async recordTrajectory(nb: vscode.NotebookDocument): Promise<void> {
    const memory = memoryOf(nb, config.workingMemorySize());
    const tools = memory.trace.filter((s) => s.ok).map((s) => s.tool);
    const key = this.trajectoryKey(nb);
    let recorded = this.workspaceState.get<number>(key, 0);
    if (recorded > tools.length) recorded = 0;
    const segment = tools.slice(Math.max(0, recorded - 1));
    if (segment.length < 2 || tools.length <= recorded || !memory.task) return;
    await this.workspaceState.update(key, tools.length);
    try {
      const gw = await this.retrieval.get();
      await gw.recordTrajectory(memory.task, segment, true);
      this.log.info(`trajectory recorded: ${segment.join(' → ')}`);
    } catch (e) {
      this.log.warn(`trajectory not recorded: ${(e as Error).message}`);
    }
  }

  /** A deleted cell takes its step out of the memory timeline. */
  private async followCells(nb: vscode.NotebookDocument): Promise<void> {
    const memory = memoryOf(nb, config.workingMemorySize());
    const before = memory.trace.length;
    followCells(memory, cellIds(nb));
    if (memory.trace.length !== before) await setMemory(nb, memory);
  }

  memoryState(): MemoryState | undefined {
    const nb = this.notebook();
    return nb ? memoryOf(nb, config.workingMemorySize()) : undefined;
  }

  dispose(): void {
    for (const nb of vscode.workspace.notebookDocuments) if (isGeoNotebook(nb)) void this.recordTrajectory(nb);
    this.subscriptions.forEach((d) => d.dispose());
    this.emitter.dispose();
  }
}

/** A candidate as the panel shows it: its name, description, reasons and readiness notes in the
 *  summary language (a tool without a Chinese name or description keeps its English one). */
function suggestionView(id: string, name: string, score: number, reason: string, r: Readiness, parts: ScoreParts, lang: SummaryLanguage, catalog: readonly ToolManifest[], workflows: readonly WorkflowTemplate[]): SuggestionView {
  const m = catalog.find((t) => t.id === id);
  return {
    id, name: m ? displayName(m, lang) : name, description: m ? toolDescription(m, lang) : '', score, reason: localizeReason(reason, lang, catalog, id, workflows), ready: r.ready, runnable: r.runnable, missing: r.missing, args: argSummary(r.args),
    issues: (r.issues ?? []).map((x) => localizeNote(x, lang, catalog)), caveats: (r.caveats ?? []).map((x) => localizeNote(x, lang, catalog)), parts: scorePartViews(parts),
  };
}

/** Runs cells through the notebook's kernel, as the Run button would. */
export async function runCells(nb: vscode.NotebookDocument, start: number, end: number): Promise<void> {
  await vscode.commands.executeCommand('notebook.cell.execute', { ranges: [{ start, end }], document: nb.uri });
}
