/** Re-index when workspace or extra manifests change on disk; rebuild when index settings change. */
import * as vscode from 'vscode';
import type { RetrievalService } from './retrieval-service';
import { config } from './config';
import type { Log } from './log';

export function registerManifestWatch(retrieval: RetrievalService, log: Log): vscode.Disposable {
  let timer: NodeJS.Timeout | undefined;
  const reload = (uri: vscode.Uri) => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      log.info(`manifest changed: ${uri.fsPath}`);
      retrieval.reload().catch((e) => log.error(`reload failed: ${(e as Error).message}`));
    }, 300);
  };
  const watchers = [vscode.workspace.createFileSystemWatcher('**/.geoweave/tools/**/*.json')];
  for (const dir of config.manifestFolders(retrieval.workspaceDir())) {
    watchers.push(vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(dir), '**/*.json')));
  }
  for (const w of watchers) {
    w.onDidChange(reload);
    w.onDidCreate(reload);
    w.onDidDelete(reload);
  }
  const settings = vscode.workspace.onDidChangeConfiguration((e) => {
    if (!config.affectsIndex(e) || !retrieval.peek()) return;
    log.info('index settings changed: rebuilding');
    retrieval.rebuild().catch((err) => log.error(`rebuild failed: ${(err as Error).message}`));
  });
  return vscode.Disposable.from(...watchers, settings, { dispose: () => clearTimeout(timer) });
}
