/**
 * Runs a notebook's tool cells top to bottom without VS Code, as the notebook controller does:
 * references resolved against the runs of earlier cells, each cell in its own output folder, the
 * run (with its provenance) recorded in the cell's `lastRun` metadata. Used by tests and scripts
 * to get "the notebook's run" of a `.geonb` file.
 */
import * as path from 'node:path';
import type { NotebookRecord } from './types';
import { parseToolCell, cellName } from './tool-cell';
import { resolveReferences, type EarlierCell } from './references';
import { cellIdFromMetadata, runFromMetadata, CELL_ID_KEY, RUN_KEY } from './session';
import { cellOutputFolder } from './cell-outputs';
import { runRecord } from './result-view';
import { planBatch, runBatch, batchRunRecord, expandListGlobs, shapesFromKinds } from './batch';
import { cellErrorMessage } from './cell-errors';

export interface RunNotebookOptions {
  notebookFile: string;
  /** Folder relative paths in cells are read from. */
  workspace: string;
  /** Root of the per-cell output folders (default `<workspace>/.geoweave/outputs`). */
  outRoot?: string;
  signal?: AbortSignal;
  now?: () => string;
}

/** Tool cells of a notebook record with their names, ids and last runs, top to bottom. */
export function toolCells(nb: NotebookRecord): { index: number; name: string; tool: string; alias?: string; id: string }[] {
  const out: { index: number; name: string; tool: string; alias?: string; id: string }[] = [];
  nb.cells.forEach((c, index) => {
    if (c.kind !== 'tool') return;
    const { call } = parseToolCell(c.source);
    if (!call) return;
    out.push({ index, name: cellName(call), tool: call.tool, ...(call.name ? { alias: call.name } : {}), id: cellIdFromMetadata(c.metadata) ?? `cell${index + 1}` });
  });
  return out;
}

/** The output folder of the tool cell at `index`, as the controller picks it. */
export function outputFolderOf(nb: NotebookRecord, index: number, outRoot: string, notebookFile: string): string {
  const cells = toolCells(nb);
  const cell = cells.find((c) => c.index === index);
  if (!cell) throw new Error(`cell ${index + 1} is not a tool cell`);
  const aliasShared = !!cell.alias && cells.filter((c) => c.name === cell.alias).length > 1;
  return cellOutputFolder(outRoot, notebookFile, { tool: cell.tool, alias: cell.alias, id: cell.id }, aliasShared);
}

export async function runNotebook(nb: NotebookRecord, opts: RunNotebookOptions): Promise<NotebookRecord> {
  const { runTool, getToolSpec } = await import('../raster/engine');
  const outRoot = opts.outRoot ?? path.join(opts.workspace, '.geoweave', 'outputs');
  const out: NotebookRecord = { metadata: { ...nb.metadata }, cells: nb.cells.map((c) => ({ ...c, ...(c.metadata ? { metadata: { ...c.metadata } } : {}) })) };
  const earlier: EarlierCell[] = [];
  for (const [index, cell] of out.cells.entries()) {
    if (cell.kind !== 'tool') continue;
    const parsed = parseToolCell(cell.source);
    const errors = parsed.problems.filter((p) => p.severity === 'error');
    if (!parsed.call || errors.length) throw new Error(`cell ${index + 1}: ${errors.map((p) => `line ${p.line + 1}: ${p.message}`).join('; ') || 'no tool call'}`);
    let call = parsed.call;
    if (!cellIdFromMetadata(cell.metadata)) cell.metadata = { ...(cell.metadata ?? {}), [CELL_ID_KEY]: `cell${index + 1}` };
    const scope = { roots: [opts.workspace, outRoot] };
    const outDir = outputFolderOf(out, index, outRoot, opts.notebookFile);
    const spec = getToolSpec(call.tool);
    // Several inputs for an argument that takes one: a batch, as the controller runs it.
    const shapes = spec ? shapesFromKinds(spec.params) : undefined;
    // A glob for a list input (a time series' images) is the files it matches, as in the controller.
    if (shapes) call = expandListGlobs(call, shapes, opts.workspace);
    const plan = shapes ? planBatch(call, shapes, earlier, scope, opts.workspace) : undefined;
    const time = opts.now?.() ?? new Date().toISOString();
    let run;
    if (plan) {
      const items = await runBatch(plan, outDir, (args, o) => runTool(call.tool, args, { ...o, cwd: opts.workspace }), { signal: opts.signal, errorText: cellErrorMessage });
      run = batchRunRecord(call.tool, plan, items, time);
    } else {
      const args = resolveReferences(call.args, earlier, scope);
      const result = await runTool(call.tool, args, { outDir, cwd: opts.workspace, signal: opts.signal });
      run = runRecord(result, time);
    }
    cell.metadata = { ...cell.metadata, [RUN_KEY]: run };
    earlier.push({ name: cellName(call), tool: call.tool, run: runFromMetadata(cell.metadata) });
  }
  return out;
}
