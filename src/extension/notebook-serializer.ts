/** `.geonb` ⇄ NotebookData through the pure converters in core/notebook/notebook-file.ts. Outputs
 *  are transient: what a cell showed is kept, bounded, in its metadata (`lastRun.view`) and rebuilt
 *  from there when the notebook opens, so the file stays deterministic and small. */
import * as vscode from 'vscode';
import { parseNotebook, serializeNotebook } from '../core/notebook/notebook-file';
import type { NotebookRecord } from '../core/notebook/types';
import { errorFromMetadata, lastRunMarkdown, runFromMetadata } from '../core/notebook/session';
import { viewFromSaved } from '../core/results/saved-result';
import { RESULT_MIME } from '../shared/result-protocol';

export const NOTEBOOK_TYPE = 'geoweave-notebook';
export const TOOL_LANGUAGE = 'geoweave-tool';

export class GeoNotebookSerializer implements vscode.NotebookSerializer {
  private readonly decoder = new TextDecoder();
  private readonly encoder = new TextEncoder();

  deserializeNotebook(content: Uint8Array): vscode.NotebookData {
    const record = parseNotebook(this.decoder.decode(content), 'this file as a GeoWeave notebook');
    const cells = record.cells.map((c) => {
      const cell = c.kind === 'tool'
        ? new vscode.NotebookCellData(vscode.NotebookCellKind.Code, c.source, TOOL_LANGUAGE)
        : new vscode.NotebookCellData(vscode.NotebookCellKind.Markup, c.source, 'markdown');
      if (c.metadata) cell.metadata = c.metadata;
      const run = runFromMetadata(c.metadata);
      // The last result comes back as it was shown (map when its files still exist, else the saved
      // preview); an older notebook without a saved view shows its summary line.
      const view = run?.ok ? viewFromSaved(run.view, run.time) : undefined;
      if (view) {
        cell.outputs = [new vscode.NotebookCellOutput([
          vscode.NotebookCellOutputItem.json(view, RESULT_MIME),
          vscode.NotebookCellOutputItem.text(lastRunMarkdown(run!), 'text/markdown'),
        ])];
      } else if (run?.ok) cell.outputs = [new vscode.NotebookCellOutput([vscode.NotebookCellOutputItem.text(lastRunMarkdown(run), 'text/markdown')])];
      else {
        // A cell whose last run failed shows that error again, as it did when it ran.
        const failed = errorFromMetadata(c.metadata);
        if (failed) cell.outputs = [new vscode.NotebookCellOutput([vscode.NotebookCellOutputItem.error({ name: failed.name, message: failed.message })])];
      }
      return cell;
    });
    const data = new vscode.NotebookData(cells);
    data.metadata = record.metadata;
    return data;
  }

  serializeNotebook(data: vscode.NotebookData): Uint8Array {
    const record: NotebookRecord = {
      metadata: { ...(data.metadata ?? {}) },
      cells: data.cells.map((c) => ({
        kind: c.kind === vscode.NotebookCellKind.Code ? 'tool' as const : 'markdown' as const,
        source: c.value,
        ...(c.metadata && Object.keys(c.metadata).length ? { metadata: { ...c.metadata } } : {}),
      })),
    };
    return this.encoder.encode(serializeNotebook(record));
  }
}

export function registerSerializer(): vscode.Disposable {
  return vscode.workspace.registerNotebookSerializer(NOTEBOOK_TYPE, new GeoNotebookSerializer(), { transientOutputs: true });
}
