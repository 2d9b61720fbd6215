/** `.geonb` ⇄ NotebookData through the pure converters in core/notebook/notebook-file.ts. */
import * as vscode from 'vscode';
import { parseNotebook, serializeNotebook } from '../core/notebook/notebook-file';
import type { NotebookRecord } from '../core/notebook/types';
import { lastRunMarkdown, runFromMetadata } from '../core/notebook/session';

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
      // The last result travels as a summary so a reopened notebook reads as it was left.
      if (run?.ok) cell.outputs = [new vscode.NotebookCellOutput([vscode.NotebookCellOutputItem.text(lastRunMarkdown(run), 'text/markdown')])];
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
