/** Status bar item with the index state; clicking it opens the panel. */
import * as vscode from 'vscode';
import type { RetrievalService } from './retrieval-service';
import { config } from './config';
import { PANEL_VIEW_ID } from './panel';

export function registerStatus(retrieval: RetrievalService): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('geoweave.status', vscode.StatusBarAlignment.Left, 10);
  item.name = 'GeoWeave';
  item.command = `${PANEL_VIEW_ID}.focus`;
  const update = () => {
    const s = retrieval.peek()?.stats();
    item.text = s ? `$(globe) GeoWeave: ${s.tools} tools · ${s.embedder}` : `$(globe) GeoWeave: ${config.embedderKind()} (index loads on first use)`;
    item.tooltip = s ? `${s.tools} tools, ${s.workflows} workflows, ${s.learnedTransitions} learned transitions (+${s.practiceTransitions} from analyst practice)\nembedder ${s.embedder} (${s.dimension}d)\n${s.indexFile}` : 'The tool index loads when the panel or a notebook needs it.';
  };
  update();
  item.show();
  return vscode.Disposable.from(item, retrieval.onDidChange(update));
}
