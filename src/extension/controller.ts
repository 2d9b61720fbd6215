/** The notebook controller: runs tool cells with the raster engine (or a manifest's process runner
 *  in a trusted workspace) into a folder of the cell's own, shows progress while it runs and then
 *  the result view (map, key statistics, tables, charts, the card with the raw JSON collapsed),
 *  keeps a bounded copy of that view in the cell's metadata, and feeds memory. The cell's
 *  cancellation token aborts the run; a stopped cell ends neutral, not as an error. */
import * as vscode from 'vscode';
import * as fs from 'fs';
import * as path from 'path';
import type { ToolRunResult } from '../core/raster/types';
import { recordCellRun } from '../core/memory/memory';
import { parseToolCell } from '../core/notebook/tool-cell';
import { resolveReferences } from '../core/notebook/references';
import { memoryStep, resultMarkdown, runRecord } from '../core/notebook/result-view';
import { ERROR_KEY, RUN_KEY, errorRecord, runFromMetadata, type CellErrorRecord } from '../core/notebook/session';
import { cellOutputFolder, removeStaleOutputs } from '../core/notebook/cell-outputs';
import { expandListGlobs, planBatch, runBatch, runFiles, batchRunRecord, batchMarkdown, batchSummary, shapesFromKinds, shapesFromManifest, BatchStopped, type BatchItemResult, type BatchPlan, type RunOne } from '../core/notebook/batch';
import { batchResultView } from '../core/results/batch-view';
import { displayName, paramDescription } from '../core/manifests/display';
import { resultView, mainRaster } from '../core/results/view-model';
import { localizeSummary, summaryLanguage, type SummaryLanguage } from '../core/results/summary-language';
import { boundedView } from '../core/results/saved-result';
import { RESULT_MIME, type OutputView, type ResultView } from '../shared/result-protocol';
import type { ResultMapHost } from './result-map-host';
import { runProcessTool } from '../core/notebook/process-runner';
import { runHttpTool, shownUrl } from '../core/notebook/http-runner';
import { setHttpOptions } from '../core/raster/io/http-client';
import { redactText } from '../core/net/redact';
import { knownSecrets, mcpInputs, serviceKey } from './secrets';
import { McpPool, runMcpTool } from '../core/notebook/mcp-runner';
import { cellErrorMessage } from '../core/notebook/cell-errors';
import { config } from './config';
import type { Log } from './log';
import type { RetrievalService } from './retrieval-service';
import type { Assistant } from './assistant';
import { rasterEngine } from './raster-service';
import { cellIds, earlierCells, ensureCellId, memoryOf, setCellRun, setMemory } from './notebook-session';
import { NOTEBOOK_TYPE, TOOL_LANGUAGE } from './notebook-serializer';

/** Least time between two progress updates of a running cell. */
const PROGRESS_MS = 250;

export class ToolController implements vscode.Disposable {
  private readonly controller: vscode.NotebookController;
  private readonly subscriptions: vscode.Disposable[] = [];
  private order = 0;
  /** MCP server sessions kept between cells (a server that loads a model answers the next cell at once). */
  private readonly mcpPool = new McpPool();

  constructor(private readonly retrieval: RetrievalService, private readonly assistant: Assistant, private readonly log: Log, private readonly maps: ResultMapHost, private readonly secrets: vscode.SecretStorage) {
    this.controller = vscode.notebooks.createNotebookController('geoweave-tools', NOTEBOOK_TYPE, vscode.l10n.t('GeoWeave tools'));
    this.controller.supportedLanguages = [TOOL_LANGUAGE];
    this.controller.supportsExecutionOrder = true;
    this.controller.description = vscode.l10n.t('Raster engine and manifest runners');
    this.controller.executeHandler = (cells, nb) => this.execute(cells, nb);
    // The only kernel for GeoWeave notebooks: preferred, so running never asks to pick one.
    const prefer = (nb: vscode.NotebookDocument) => {
      if (nb.notebookType === NOTEBOOK_TYPE) this.controller.updateNotebookAffinity(nb, vscode.NotebookControllerAffinity.Preferred);
    };
    vscode.workspace.notebookDocuments.forEach(prefer);
    this.subscriptions.push(vscode.workspace.onDidOpenNotebookDocument(prefer));
  }

  private async execute(cells: vscode.NotebookCell[], nb: vscode.NotebookDocument): Promise<void> {
    for (const cell of cells) {
      if (cell.kind !== vscode.NotebookCellKind.Code) continue;
      const ok = await this.runCell(cell);
      if (ok) void this.assistant.afterRun(nb);
    }
  }

  private async runCell(cell: vscode.NotebookCell): Promise<boolean> {
    const exec = this.controller.createNotebookCellExecution(cell);
    exec.executionOrder = ++this.order;
    exec.start(Date.now());
    await exec.clearOutput();
    const abort = new AbortController();
    let cancelAt = 0;
    const sub = exec.token.onCancellationRequested(() => { cancelAt = Date.now(); abort.abort(); });
    const started = Date.now();
    const cellId = await ensureCellId(cell);
    const previous = runFromMetadata(cell.metadata);
    const tool = parseToolCell(cell.document.getText()).call?.tool ?? 'GeoWeave';
    // Summaries and result labels in Chinese when VS Code shows Chinese or the notebook's task is
    // written in Chinese (the numbers stay the same).
    const lang = summaryLanguage(vscode.env.language, memoryOf(cell.notebook, config.workingMemorySize()).task);
    // Progress in the cell (percent and stage), at most every PROGRESS_MS; none after the run ends.
    let shown = Promise.resolve();
    let lastShown = 0;
    let finished = false;
    const progress = (fraction: number, stage?: string) => {
      const now = Date.now();
      if (finished || (now - lastShown < PROGRESS_MS && fraction < 1)) return;
      lastShown = now;
      shown = shown.then(() => (finished ? undefined : exec.replaceOutput(viewOutput({ view: 'progress', tool, fraction, ...(stage ? { stage } : {}), ...(lang === 'zh' ? { lang } : {}) }, `${tool}: ${Math.round(fraction * 100)}%${stage ? ` (${stage})` : ''}`)))).catch(() => undefined);
    };
    const settle = async () => { finished = true; await shown; };
    try {
      const ran = await this.run(cell, cellId, abort.signal, progress);
      if (ran.batch) {
        await this.finishBatch(cell, exec, cellId, previous, ran.tool, ran.batch.plan, ran.batch.items, ran.outDir, abort.signal, settle);
        this.log.info(`ran ${ran.tool} as a batch of ${ran.batch.items.length} in ${Date.now() - started} ms`);
        exec.end(true, Date.now());
        return true;
      }
      const args = ran.args!, outDir = ran.outDir;
      const result = lang === 'en' ? ran.result! : { ...ran.result!, summary: localizeSummary(ran.result!, lang).text };
      const view = await this.viewOf(result, args, abort.signal, workspaceFolderOf(cell));
      if (lang === 'zh') { view.lang = lang; this.nameIn(view, lang); }
      await settle();
      await exec.replaceOutput(outputsFor(view, result, lang));
      const time = new Date().toISOString();
      // Re-running a cell replaces only its own outputs: files of its last run it no longer makes go.
      // A GeoTIFF's QGIS style (.qml) beside it goes with it.
      await removeStaleOutputs(outDir, runFiles(previous, outDir), runFiles(result, outDir));
      await setCellRun(cell, { ...runRecord(result, time), view: boundedView(view) });
      const nb = cell.notebook;
      const memory = memoryOf(nb, config.workingMemorySize());
      // Re-running a cell replaces its step; the timeline follows the cells (Run All twice: one timeline).
      await setMemory(nb, recordCellRun(memory, cellId, memoryStep(result.tool, args, result, undefined, time), cellIds(nb)));
      this.log.info(`ran ${result.tool} in ${Date.now() - started} ms: ${result.summary}`);
      exec.end(true, Date.now());
      return true;
    } catch (e) {
      await settle();
      const err = e instanceof Error ? e : new Error(String(e));
      const cancelled = abort.signal.aborted;
      let failure: CellErrorRecord | undefined;
      this.log.warn(`cell ${cell.index + 1} ${cancelled ? `cancelled: the engine stopped ${Date.now() - cancelAt} ms after the request` : `failed: ${redactText(cellErrorMessage(err), knownSecrets())}`}`);
      if (cancelled) {
        // Stopping is not failing: a neutral end (neither success nor error), as VS Code's own kernels do.
        const message = e instanceof BatchStopped
          ? vscode.l10n.t('{0} cancelled: {1}; the stopped item wrote nothing. Run the cell again for the whole batch.', tool, e.message)
          : vscode.l10n.t('{0} cancelled: stopped before it finished; no output was written.', tool);
        await exec.replaceOutput(viewOutput({ view: 'stopped', tool, message }, message));
      } else {
        // In cell syntax: "add a line `nir: 4`", not the command line's --arg; secrets redacted.
        const said = redactText(cellErrorMessage(err, lang, this.paramZh), knownSecrets());
        // The runners name the tool first ("heat_uhi: POST … answered 401"); the heading already does.
        const message = tool !== 'GeoWeave' && said.startsWith(`${tool}: `) ? said.slice(tool.length + 2) : said;
        const name = tool !== 'GeoWeave' ? vscode.l10n.t('{0} failed', tool) : 'GeoWeave';
        await exec.replaceOutput(new vscode.NotebookCellOutput([vscode.NotebookCellOutputItem.error({ name, message })]));
        failure = errorRecord(name, message, new Date().toISOString());
      }
      // Later cells must not keep using outputs of a run this one no longer stands for; the failure
      // itself is kept (a reopened notebook shows it, as Jupyter keeps an error output).
      if (cell.metadata?.[RUN_KEY] || cell.metadata?.[ERROR_KEY] || failure) await setCellRun(cell, undefined, failure);
      const memory = memoryOf(cell.notebook, config.workingMemorySize());
      if (memory.trace.some((s) => s.cell === cellId)) await setMemory(cell.notebook, recordCellRun(memory, cellId, undefined, cellIds(cell.notebook)));
      exec.end(cancelled ? undefined : false, Date.now());
      return false;
    } finally {
      sub.dispose();
    }
  }

  /** A parameter's Chinese description from the catalog, for Chinese "missing argument" errors. */
  private readonly paramZh = (tool: string, param: string): string | undefined => {
    const manifest = this.retrieval.peek()?.getTool(tool);
    return manifest ? paramDescription(manifest, param, 'zh') : undefined;
  };

  /** Gives the view the tool's name in `lang` (name_zh for Chinese) when the catalog has one. */
  private nameIn(view: ResultView, lang: SummaryLanguage): void {
    const manifest = this.retrieval.peek()?.getTool(view.tool);
    const name = manifest ? displayName(manifest, lang) : undefined;
    if (lang === 'zh' && name && name !== view.tool) view.toolName = name;
  }

  /** The result view: units from the tool's manifest, the map's overview built now for a large
   *  output (the first map view is then fast), a small preview PNG for the notebook file. */
  private async viewOf(result: ToolRunResult, args: Record<string, unknown>, signal: AbortSignal, cwd: string): Promise<ResultView> {
    const manifest = this.retrieval.peek()?.getTool(result.tool);
    const units: Record<string, string> = {};
    for (const o of manifest?.outputs ?? []) if (o.unit) units[o.name] = o.unit;
    const view = resultView(result, args, { units, cwd });
    const main = mainRaster(result.outputs);
    const layer = view.map?.layers.find((l) => l.path === main?.[1].path);
    if (main && layer) {
      try {
        await (await this.maps.data()).prepare(main[1].path, signal);
        const { previewPng } = await import('../core/results/preview-png');
        const png = await previewPng(layer);
        if (png) view.preview = png;
      } catch (e) {
        if (signal.aborted) throw e;
        this.log.warn(`map preview of ${main[1].path}: ${(e as Error).message}`);
      }
    }
    return view;
  }

  /** A batch run's end: the table and the first item's map and numbers in the cell, a bounded record
   *  (every item's status and outputs) in its metadata, one memory step. Fails only when every item failed. */
  private async finishBatch(cell: vscode.NotebookCell, exec: vscode.NotebookCellExecution, cellId: string, previous: ReturnType<typeof runFromMetadata>, tool: string,
    plan: BatchPlan, items: BatchItemResult[], outDir: string, signal: AbortSignal, settle: () => Promise<void>): Promise<void> {
    const first = items.find((r) => r.result);
    if (!first) {
      const lines = items.slice(0, 10).map((r) => `${r.name} (${r.input}): ${r.error ?? 'failed'}`);
      throw new Error(`all ${items.length} inputs failed:\n${lines.join('\n')}${items.length > 10 ? `\n… and ${items.length - 10} more` : ''}`);
    }
    const folder = workspaceFolderOf(cell);
    const firstView = await this.viewOf(first.result!, first.args, signal, folder);
    const manifest = this.retrieval.peek()?.getTool(tool);
    const units: Record<string, string> = {};
    for (const o of manifest?.outputs ?? []) if (o.unit) units[o.name] = o.unit;
    const lang = summaryLanguage(vscode.env.language, memoryOf(cell.notebook, config.workingMemorySize()).task);
    const view = batchResultView(tool, plan, items, firstView, { units, cwd: folder }, lang);
    this.nameIn(view, lang);
    await settle();
    await exec.replaceOutput(new vscode.NotebookCellOutput([
      vscode.NotebookCellOutputItem.json(view, RESULT_MIME),
      vscode.NotebookCellOutputItem.text(batchMarkdown(tool, plan, items, lang, view.toolName), 'text/markdown'),
    ]));
    const time = new Date().toISOString();
    const record = batchRunRecord(tool, plan, items, time);
    await removeStaleOutputs(outDir, runFiles(previous, outDir), runFiles(record, outDir));
    await setCellRun(cell, { ...record, view: boundedView(view) });
    const nb = cell.notebook;
    const memory = memoryOf(nb, config.workingMemorySize());
    const step = memoryStep(tool, { ...first.args, [plan.args[0]]: plan.source }, first.result, undefined, time);
    await setMemory(nb, recordCellRun(memory, cellId, { ...step, resultSummary: batchSummary(tool, plan, items) }, cellIds(nb)));
  }

  private async run(cell: vscode.NotebookCell, cellId: string, signal: AbortSignal, onProgress: (fraction: number, stage?: string) => void): Promise<{ tool: string; outDir: string; result?: ToolRunResult; args?: Record<string, unknown>; batch?: { plan: BatchPlan; items: BatchItemResult[] } }> {
    const parsed = parseToolCell(cell.document.getText());
    const errors = parsed.problems.filter((p) => p.severity === 'error');
    if (errors.length || !parsed.call) {
      throw new Error(errors.map((p) => `line ${p.line + 1}: ${p.message}`).join('\n') || vscode.l10n.t('the cell has no tool call'));
    }
    let call = parsed.call;
    const folder = workspaceFolderOf(cell);
    const outRoot = config.outputFolder(folder);
    const earlier = earlierCells(cell.notebook, cell.index);
    const scope = { roots: [folder, outRoot] };
    // Each cell writes into a folder of its own: two cells of one tool never share a file.
    const aliasShared = !!call.name && earlierCells(cell.notebook).filter((c) => c.name === call.name).length > 1;
    const outDir = cellOutputFolder(outRoot, cell.notebook.uri.fsPath, { tool: call.tool, alias: call.name, id: cellId }, aliasShared);
    const engine = await rasterEngine();
    setHttpOptions(config.http());
    let runOne: RunOne;
    let shapes;
    const spec = engine.getToolSpec(call.tool);
    if (spec) {
      runOne = (args, o) => engine.runTool(call.tool, args, { ...o, cwd: folder });
      shapes = shapesFromKinds(spec.params);
    } else {
      const gw = await this.retrieval.get();
      const manifest = gw.getTool(call.tool);
      if (!manifest) throw new Error(vscode.l10n.t('unknown tool "{0}": no manifest and no builtin tool has this id (Find Tool lists them)', call.tool));
      const runner = manifest.runner;
      if (runner?.type !== 'process' && runner?.type !== 'http' && runner?.type !== 'mcp') throw new Error(vscode.l10n.t('{0} is catalog-only: its manifest has no runner, so GeoWeave can describe it but not run it', call.tool));
      if (!vscode.workspace.isTrusted) {
        throw new Error(runner.type === 'process'
          ? vscode.l10n.t('{0} runs the external command "{1}", which GeoWeave only does in a trusted workspace: use "Workspaces: Manage Workspace Trust"', call.tool, runner.command)
          : runner.type === 'mcp'
            ? vscode.l10n.t('{0} starts the MCP server "{1}" of this workspace\'s configuration, which GeoWeave only does in a trusted workspace: use "Workspaces: Manage Workspace Trust"', call.tool, runner.server)
            : vscode.l10n.t('{0} sends its inputs to the service at {1}, which GeoWeave only does in a trusted workspace: use "Workspaces: Manage Workspace Trust"', call.tool, shownUrl(runner.url)));
      }
      runOne = runner.type === 'process' ? (args, o) => runProcessTool(manifest, args, { ...o, cwd: folder })
        : runner.type === 'mcp' ? (args, o) => runMcpTool(manifest, args, { ...o, cwd: folder }, { pool: this.mcpPool, input: mcpInputs(this.secrets, folder) })
          : (args, o) => runHttpTool(manifest, args, { ...o, cwd: folder }, { serviceKey: (origin) => serviceKey(this.secrets, origin) });
      shapes = shapesFromManifest(manifest.inputs);
    }
    // Several inputs for an argument that takes one: the tool runs once per input, each in a sub-folder.
    // A glob for a list input (a time series' images) is the files it matches, sorted.
    call = expandListGlobs(call, shapes, folder);
    const plan = planBatch(call, shapes, earlier, scope, folder);
    if (plan) {
      const lang = summaryLanguage(vscode.env.language, memoryOf(cell.notebook, config.workingMemorySize()).task);
      const items = await runBatch(plan, outDir, runOne, { signal, onProgress, errorText: (e) => redactText(cellErrorMessage(e, lang, this.paramZh), knownSecrets()) });
      return { tool: call.tool, outDir, batch: { plan, items } };
    }
    const args = resolveReferences(call.args, earlier, scope);
    return { tool: call.tool, outDir, result: await runOne(args, { outDir, signal, onProgress }), args };
  }

  dispose(): void {
    this.mcpPool.dispose();
    this.subscriptions.forEach((d) => d.dispose());
    this.controller.dispose();
  }
}

/** The folder relative paths in a cell are read from: its workspace folder, else the notebook's folder. */
function workspaceFolderOf(cell: vscode.NotebookCell): string {
  return vscode.workspace.getWorkspaceFolder(cell.notebook.uri)?.uri.fsPath ?? path.dirname(cell.notebook.uri.fsPath);
}

/** A view in the cell: the renderer draws it; markdown text stands in where no renderer runs. */
function viewOutput(view: OutputView, text: string): vscode.NotebookCellOutput {
  return new vscode.NotebookCellOutput([
    vscode.NotebookCellOutputItem.json(view, RESULT_MIME),
    vscode.NotebookCellOutputItem.text(text, 'text/markdown'),
  ]);
}

/** One output: the result view (map, numbers, tables, charts, card), then as alternatives the
 *  summary with the statistics table (markdown) and the static quicklook PNG. */
function outputsFor(view: ResultView, result: ToolRunResult, lang: SummaryLanguage): vscode.NotebookCellOutput[] {
  const items = [vscode.NotebookCellOutputItem.json(view, RESULT_MIME), vscode.NotebookCellOutputItem.text(resultMarkdown(result, lang, view.toolName), 'text/markdown')];
  if (result.quicklook && fs.existsSync(result.quicklook)) items.push(new vscode.NotebookCellOutputItem(fs.readFileSync(result.quicklook), 'image/png'));
  return [new vscode.NotebookCellOutput(items)];
}
