/** Reading and editing a GeoWeave notebook: its memory (notebook metadata), the runs of its cells
 *  (cell metadata) and inserting tool cells. */
import * as vscode from 'vscode';
import * as fs from 'fs';
import * as path from 'path';
import { randomUUID } from 'crypto';
import type { MemoryState } from '../core/memory/types';
import type { CellRunRecord } from '../core/notebook/types';
import type { EarlierCell } from '../core/notebook/references';
import { createMemory } from '../core/memory/memory';
import { cellIdFromMetadata, memoryFromMetadata, runFromMetadata, withMemory, CELL_ID_KEY, ERROR_KEY, RUN_KEY, type CellErrorRecord } from '../core/notebook/session';
import { parseToolCell, cellName } from '../core/notebook/tool-cell';
import { serializeNotebook } from '../core/notebook/notebook-file';
import { NOTEBOOK_TYPE, TOOL_LANGUAGE } from './notebook-serializer';
import { writeFileAtomic } from '../core/index/fs-util';

export function isGeoNotebook(nb: vscode.NotebookDocument | undefined): nb is vscode.NotebookDocument {
  return !!nb && nb.notebookType === NOTEBOOK_TYPE;
}

/** Tool cells above `index` (all of them when omitted) with their names and last runs. */
export function earlierCells(nb: vscode.NotebookDocument, index = nb.cellCount): EarlierCell[] {
  const out: EarlierCell[] = [];
  for (const cell of nb.getCells(new vscode.NotebookRange(0, Math.min(index, nb.cellCount)))) {
    if (cell.kind !== vscode.NotebookCellKind.Code) continue;
    const { call } = parseToolCell(cell.document.getText());
    if (!call) continue;
    out.push({ name: cellName(call), tool: call.tool, run: runFromMetadata(cell.metadata) });
  }
  return out;
}

export function memoryOf(nb: vscode.NotebookDocument, windowSize: number): MemoryState {
  const m = memoryFromMetadata(nb.metadata);
  return m ? { ...m, trace: [...m.trace] } : createMemory('', windowSize);
}

export async function setMemory(nb: vscode.NotebookDocument, memory: MemoryState): Promise<void> {
  const edit = new vscode.WorkspaceEdit();
  edit.set(nb.uri, [vscode.NotebookEdit.updateNotebookMetadata(withMemory(nb.metadata, memory))]);
  await vscode.workspace.applyEdit(edit);
}

export async function setCellRun(cell: vscode.NotebookCell, run: CellRunRecord | undefined, error?: CellErrorRecord): Promise<void> {
  const metadata: Record<string, unknown> = { ...cell.metadata };
  if (run) metadata[RUN_KEY] = run;
  else delete metadata[RUN_KEY];
  // A run replaces the failure before it; a failure is kept so that a reopened notebook shows it.
  if (error) metadata[ERROR_KEY] = error;
  else delete metadata[ERROR_KEY];
  const edit = new vscode.WorkspaceEdit();
  edit.set(cell.notebook.uri, [vscode.NotebookEdit.updateCellMetadata(cell.index, metadata)]);
  await vscode.workspace.applyEdit(edit);
}

/** The id a tool cell's memory step is known by; given on its first run (a copied cell gets its own). */
export async function ensureCellId(cell: vscode.NotebookCell): Promise<string> {
  const id = cellIdFromMetadata(cell.metadata);
  const taken = id !== undefined && cell.notebook.getCells().some((c) => c.index < cell.index && cellIdFromMetadata(c.metadata) === id);
  if (id && !taken) return id;
  const fresh = randomUUID().slice(0, 8);
  const edit = new vscode.WorkspaceEdit();
  edit.set(cell.notebook.uri, [vscode.NotebookEdit.updateCellMetadata(cell.index, { ...cell.metadata, [CELL_ID_KEY]: fresh })]);
  await vscode.workspace.applyEdit(edit);
  return fresh;
}

/** Ids of the notebook's cells that have one, top to bottom. */
export function cellIds(nb: vscode.NotebookDocument): string[] {
  return nb.getCells().map((c) => cellIdFromMetadata(c.metadata)).filter((id): id is string => !!id);
}

/** Appends tool cells at the end of the notebook and reveals the first; returns the new cells. */
export async function appendToolCells(editor: vscode.NotebookEditor, sources: string[]): Promise<vscode.NotebookCell[]> {
  const nb = editor.notebook;
  const start = nb.cellCount;
  const edit = new vscode.WorkspaceEdit();
  edit.set(nb.uri, [vscode.NotebookEdit.insertCells(start, sources.map((s) => new vscode.NotebookCellData(vscode.NotebookCellKind.Code, s, TOOL_LANGUAGE)))]);
  await vscode.workspace.applyEdit(edit);
  const range = new vscode.NotebookRange(start, start + sources.length);
  editor.revealRange(range, vscode.NotebookEditorRevealType.InCenterIfOutsideViewport);
  editor.selection = new vscode.NotebookRange(start, start + 1);
  return nb.getCells(range);
}

/** The GeoWeave notebook editor in front: the active one, else a visible one. */
export function activeNotebookEditor(): vscode.NotebookEditor | undefined {
  const active = vscode.window.activeNotebookEditor;
  if (isGeoNotebook(active?.notebook)) return active;
  return vscode.window.visibleNotebookEditors.find((e) => isGeoNotebook(e.notebook));
}

let lastNotebook: vscode.NotebookDocument | undefined;

/**
 * The GeoWeave notebook the user works in: the one in front, else the last one that was, while it
 * is still open. Opening a manifest or a data file over the notebook does not end the analysis,
 * so the panel keeps showing (and inserting into) that notebook.
 */
export function currentNotebook(): vscode.NotebookDocument | undefined {
  const editor = activeNotebookEditor();
  if (editor) lastNotebook = editor.notebook;
  else if (lastNotebook?.isClosed) lastNotebook = undefined;
  return lastNotebook;
}

/** An editor showing `nb`: a visible one, else `nb` brought back to the front. */
export async function editorFor(nb: vscode.NotebookDocument): Promise<vscode.NotebookEditor> {
  return vscode.window.visibleNotebookEditors.find((e) => e.notebook === nb) ?? vscode.window.showNotebookDocument(nb);
}

/** Writes a new notebook file (`analysis.geonb`, `analysis-2.geonb`, ...) in `dir` and opens it. */
export async function createNotebookFile(dir: string, task = '', windowSize = 5, base = 'analysis'): Promise<vscode.NotebookEditor> {
  fs.mkdirSync(dir, { recursive: true });
  let file = path.join(dir, `${base}.geonb`);
  for (let i = 2; fs.existsSync(file); i++) file = path.join(dir, `${base}-${i}.geonb`);
  const intro = '# GeoWeave analysis\n\nDescribe your task in the GeoWeave panel, then insert and run the suggested tools.';
  const text = serializeNotebook({ metadata: withMemory({}, createMemory(task, windowSize)), cells: [{ kind: 'markdown', source: intro }] });
  // A random exclusive temp name: a cloned repository may hold a symlink named like a predictable one.
  writeFileAtomic(file, text);
  const doc = await vscode.workspace.openNotebookDocument(vscode.Uri.file(file));
  return vscode.window.showNotebookDocument(doc);
}
