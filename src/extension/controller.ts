/** The notebook controller: runs tool cells with the raster engine (or a manifest's process runner
 *  in a trusted workspace), shows quicklook, summary with statistics and the JSON result, and feeds
 *  memory. The cell's cancellation token aborts the run. */
import * as vscode from 'vscode';
import * as fs from 'fs';
import * as path from 'path';
import type { ToolRunResult } from '../core/raster/types';
import { recordCellRun } from '../core/memory/memory';
import { parseToolCell } from '../core/notebook/tool-cell';
import { resolveReferences } from '../core/notebook/references';
import { memoryStep, resultMarkdown, runRecord } from '../core/notebook/result-view';
import { RUN_KEY } from '../core/notebook/session';
import { runProcessTool } from '../core/notebook/process-runner';
import { setHttpOptions } from '../core/raster/io/http-client';
import { redactText } from '../core/net/redact';
import { knownSecrets } from './secrets';
import { cellErrorMessage } from '../core/notebook/cell-errors';
import { config } from './config';
import type { Log } from './log';
import type { RetrievalService } from './retrieval-service';
import type { Assistant } from './assistant';
import { rasterEngine } from './raster-service';
import { cellIds, earlierCells, ensureCellId, memoryOf, setCellRun, setMemory } from './notebook-session';
import { NOTEBOOK_TYPE, TOOL_LANGUAGE } from './notebook-serializer';

/** Custom MIME type of a tool result; `application/json` carries the same data as a fallback. */
export const RESULT_MIME = 'application/vnd.geoweave.result+json';

export class ToolController implements vscode.Disposable {
  private readonly controller: vscode.NotebookController;
  private readonly subscriptions: vscode.Disposable[] = [];
  private order = 0;

  constructor(private readonly retrieval: RetrievalService, private readonly assistant: Assistant, private readonly log: Log) {
    this.controller = vscode.notebooks.createNotebookController('geoweave-tools', NOTEBOOK_TYPE, 'GeoWeave tools');
    this.controller.supportedLanguages = [TOOL_LANGUAGE];
    this.controller.supportsExecutionOrder = true;
    this.controller.description = 'Raster engine and manifest runners';
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
    try {
      const { result, args } = await this.run(cell, abort.signal);
      await exec.replaceOutput(outputsFor(result, args));
      const time = new Date().toISOString();
      await setCellRun(cell, runRecord(result, time));
      const nb = cell.notebook;
      const memory = memoryOf(nb, config.workingMemorySize());
      // Re-running a cell replaces its step; the timeline follows the cells (Run All twice: one timeline).
      await setMemory(nb, recordCellRun(memory, cellId, memoryStep(result.tool, args, result, undefined, time), cellIds(nb)));
      this.log.info(`ran ${result.tool} in ${Date.now() - started} ms: ${result.summary}`);
      exec.end(true, Date.now());
      return true;
    } catch (e) {
      const err = e instanceof Error ? e : new Error(String(e));
      const cancelled = abort.signal.aborted;
      // In cell syntax: "add a line `nir: 4`", not the command line's --arg; secrets redacted.
      const message = cancelled ? 'Cancelled.' : redactText(cellErrorMessage(err), knownSecrets());
      this.log.warn(`cell ${cell.index + 1} ${cancelled ? `cancelled: the engine stopped ${Date.now() - cancelAt} ms after the request` : `failed: ${message}`}`);
      const tool = parseToolCell(cell.document.getText()).call?.tool;
      const name = tool ? `${tool} ${cancelled ? 'cancelled' : 'failed'}` : 'GeoWeave';
      await exec.replaceOutput(new vscode.NotebookCellOutput([vscode.NotebookCellOutputItem.error({ name, message })]));
      // Later cells must not keep using outputs of a run this one no longer stands for.
      if (cell.metadata?.[RUN_KEY]) await setCellRun(cell, undefined);
      const memory = memoryOf(cell.notebook, config.workingMemorySize());
      if (memory.trace.some((s) => s.cell === cellId)) await setMemory(cell.notebook, recordCellRun(memory, cellId, undefined, cellIds(cell.notebook)));
      exec.end(false, Date.now());
      return false;
    } finally {
      sub.dispose();
    }
  }

  private async run(cell: vscode.NotebookCell, signal: AbortSignal): Promise<{ result: ToolRunResult; args: Record<string, unknown> }> {
    const parsed = parseToolCell(cell.document.getText());
    const errors = parsed.problems.filter((p) => p.severity === 'error');
    if (errors.length || !parsed.call) {
      throw new Error(errors.map((p) => `line ${p.line + 1}: ${p.message}`).join('\n') || 'the cell has no tool call');
    }
    const call = parsed.call;
    const folder = vscode.workspace.getWorkspaceFolder(cell.notebook.uri)?.uri.fsPath ?? path.dirname(cell.notebook.uri.fsPath);
    const outDir = config.outputFolder(folder);
    const args = resolveReferences(call.args, earlierCells(cell.notebook, cell.index), { roots: [folder, outDir] });
    const engine = await rasterEngine();
    setHttpOptions(config.http());
    const opts = { outDir, cwd: folder, signal };
    if (engine.getToolSpec(call.tool)) return { result: await engine.runTool(call.tool, args, opts), args };
    const gw = await this.retrieval.get();
    const manifest = gw.getTool(call.tool);
    if (!manifest) throw new Error(`unknown tool "${call.tool}": no manifest and no builtin tool has this id (Find Tool lists them)`);
    if (manifest.runner?.type === 'process') {
      if (!vscode.workspace.isTrusted) {
        throw new Error(`${call.tool} runs the external command "${manifest.runner.command}", which GeoWeave only does in a trusted workspace: use "Workspaces: Manage Workspace Trust"`);
      }
      return { result: await runProcessTool(manifest, args, opts), args };
    }
    throw new Error(`${call.tool} is catalog-only: its manifest has no runner, so GeoWeave can describe it but not run it`);
  }

  dispose(): void {
    this.subscriptions.forEach((d) => d.dispose());
    this.controller.dispose();
  }
}

/** Quicklook PNG, then the summary with the statistics table (markdown), then the JSON result. Each
 *  thing is shown once: the result card lists outputs and arguments and keeps the raw JSON collapsed. */
function outputsFor(result: ToolRunResult, args: Record<string, unknown>): vscode.NotebookCellOutput[] {
  const outputs: vscode.NotebookCellOutput[] = [];
  if (result.quicklook && fs.existsSync(result.quicklook)) {
    outputs.push(new vscode.NotebookCellOutput([new vscode.NotebookCellOutputItem(fs.readFileSync(result.quicklook), 'image/png')], { quicklook: result.quicklook }));
  }
  outputs.push(new vscode.NotebookCellOutput([vscode.NotebookCellOutputItem.text(resultMarkdown(result), 'text/markdown')]));
  // The custom type first: geoweave.result-renderer shows it compactly; `application/json` stays
  // in the same output as the raw fallback ("Change Presentation").
  outputs.push(new vscode.NotebookCellOutput([
    vscode.NotebookCellOutputItem.json({ ...result, arguments: args }, RESULT_MIME),
    vscode.NotebookCellOutputItem.json(result, 'application/json'),
  ]));
  return outputs;
}
