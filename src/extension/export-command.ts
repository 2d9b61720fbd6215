/** GeoWeave: Export Notebook: the notebook in front as a bash script of `geoweave run` calls or as a
 *  Jupyter notebook, through the pure exporters in core/notebook/export.ts. */
import * as vscode from 'vscode';
import * as fs from 'fs';
import * as path from 'path';
import type { NotebookRecord } from '../core/notebook/types';
import { exportShell, exportIpynb, ExportError } from '../core/notebook/export';
import { geoweaveVersion } from '../core/raster/provenance';
import { writeFileAtomic } from '../core/index/fs-util';
import { config } from './config';
import { currentNotebook } from './notebook-session';

type Format = 'sh' | 'ipynb';

/** The open notebook as data (unsaved edits included): what the exporters read. */
function recordOf(nb: vscode.NotebookDocument): NotebookRecord {
  return {
    metadata: { ...(nb.metadata ?? {}) },
    cells: nb.getCells().map((c) => ({
      kind: c.kind === vscode.NotebookCellKind.Code ? 'tool' as const : 'markdown' as const,
      source: c.document.getText(),
      ...(c.metadata && Object.keys(c.metadata).length ? { metadata: { ...c.metadata } } : {}),
    })),
  };
}

/**
 * Exports the current GeoWeave notebook. `format` ('sh' or 'ipynb') and `target` (a path or Uri)
 * skip the questions (keybindings, tests). Returns the written file, or undefined when cancelled.
 */
export async function exportNotebook(format?: unknown, target?: unknown): Promise<string | undefined> {
  const nb = currentNotebook();
  if (!nb) { void vscode.window.showInformationMessage('GeoWeave: open a GeoWeave notebook to export it.'); return undefined; }
  let to: Format | undefined = format === 'sh' || format === 'ipynb' ? format : undefined;
  if (!to) {
    const pick = await vscode.window.showQuickPick([
      { label: 'Shell script (.sh)', description: 'the geoweave run calls of the cells, in order', format: 'sh' as const },
      { label: 'Jupyter notebook (.ipynb)', description: 'numpy + GDAL code where it translates exactly, geoweave run otherwise', format: 'ipynb' as const },
    ], { title: 'GeoWeave: Export Notebook' });
    to = pick?.format;
  }
  if (!to) return undefined;
  const folder = vscode.workspace.getWorkspaceFolder(nb.uri)?.uri.fsPath ?? path.dirname(nb.uri.fsPath);
  const base = path.basename(nb.uri.fsPath).replace(/\.geonb$/i, '');
  let file: string | undefined;
  if (typeof target === 'string') file = path.resolve(folder, target);
  else if (target instanceof vscode.Uri) file = target.fsPath;
  else {
    const uri = await vscode.window.showSaveDialog({
      defaultUri: vscode.Uri.file(path.join(path.dirname(nb.uri.fsPath), `${base}.${to}`)),
      filters: to === 'sh' ? { 'Shell script': ['sh'] } : { 'Jupyter notebook': ['ipynb'] },
      title: 'GeoWeave: Export Notebook',
    });
    file = uri?.fsPath;
  }
  if (!file) return undefined;
  // The output folder as the notebook uses it; relative to the workspace when inside it, so the export moves with the data.
  const outRoot = config.outputFolder(folder);
  const rel = path.relative(folder, outRoot);
  const opts = {
    notebookFile: nb.uri.fsPath, workspace: folder,
    outputFolder: rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : outRoot,
    geoweaveVersion: geoweaveVersion(),
  };
  let text: string;
  try {
    text = to === 'sh' ? exportShell(recordOf(nb), opts) : exportIpynb(recordOf(nb), opts);
  } catch (e) {
    if (!(e instanceof ExportError)) throw e;
    void vscode.window.showErrorMessage(`GeoWeave: cannot export: ${e.message}`);
    return undefined;
  }
  writeFileAtomic(file, text);
  if (to === 'sh') fs.chmodSync(file, 0o755);
  const written = file;
  void vscode.window.showInformationMessage(`GeoWeave: exported ${path.basename(written)}.`, 'Open').then((a) => {
    if (a === 'Open') void vscode.commands.executeCommand('vscode.open', vscode.Uri.file(written));
  });
  return written;
}
