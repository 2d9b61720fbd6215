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
    item.text = s ? `$(globe) ${vscode.l10n.t('GeoWeave: {0} tools · {1}', s.tools, s.embedder)}` : `$(globe) ${vscode.l10n.t('GeoWeave: {0} (index loads on first use)', config.embedderKind())}`;
    item.tooltip = s ? vscode.l10n.t('{0} tools, {1} workflows, {2} learned transitions (+{3} from analyst practice)', s.tools, s.workflows, s.learnedTransitions, s.practiceTransitions) + `\n${vscode.l10n.t('embedder {0} ({1}d)', s.embedder, s.dimension)}\n${s.indexFile}` : vscode.l10n.t('The tool index loads when the panel or a notebook needs it.');
  };
  update();
  item.show();
  return vscode.Disposable.from(item, retrieval.onDidChange(update));
}
