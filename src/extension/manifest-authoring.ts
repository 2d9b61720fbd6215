/** Re-index when workspace or extra manifests change on disk; rebuild when index settings change. */
import * as vscode from 'vscode';
import * as fs from 'fs';
import * as path from 'path';
import type { RetrievalService } from './retrieval-service';
import { config } from './config';
import type { Log } from './log';

export function registerManifestWatch(retrieval: RetrievalService, log: Log): vscode.Disposable {
  let timer: NodeJS.Timeout | undefined;
  // The workspace's tools folder is also watched directly. Once VS Code has reported a folder as
  // created, it reports nothing more of what happens inside it (code-server 4.99, in the e2e run: a
  // spec deleted from, then another written into, a tools folder made after the window opened
  // were never seen), so a team that made its folder after opening the workspace was stuck.
  let direct: { dir: string; watcher: fs.FSWatcher } | undefined;
  const watchDirect = () => {
    const ws = retrieval.workspaceDir();
    const dir = ws ? path.join(ws, '.geoweave', 'tools') : undefined;
    if (!dir || direct?.dir === dir) return;
    try {
      const watcher = fs.watch(dir, (_event, name) => {
        if (!fs.existsSync(dir)) {
          // The folder went: a new one of that name is watched when it is created.
          watcher.close();
          direct = undefined;
          reload(vscode.Uri.file(dir));
        } else if (!name || /\.(json|ya?ml)$/i.test(String(name))) reload(vscode.Uri.file(path.join(dir, String(name ?? ''))));
      });
      watcher.on('error', () => {
        watcher.close();
        if (direct?.watcher === watcher) direct = undefined;
      });
      direct = { dir, watcher };
    } catch {
      // Not there yet: its creation (or its parent's) calls this again.
    }
  };
  const reload = (uri: vscode.Uri) => {
    watchDirect();
    clearTimeout(timer);
    timer = setTimeout(() => {
      log.info(`manifest changed: ${uri.fsPath}`);
      retrieval.reload().catch((e) => log.error(`reload failed: ${(e as Error).message}`));
    }, 300);
  };
  // Manifests are JSON, YAML or JSON Lines (as loadCatalog reads them).
  const files = '**/*.{json,jsonl,yaml,yml}';
  const watchers = [vscode.workspace.createFileSystemWatcher(`**/.geoweave/tools/${files}`)];
  for (const dir of config.manifestFolders(retrieval.workspaceDir())) {
    watchers.push(vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(dir), files)));
  }
  for (const w of watchers) {
    w.onDidChange(reload);
    w.onDidCreate(reload);
    w.onDidDelete(reload);
  }
  // A tools folder created with its files in one go (`cp -r`, or `mkdir` then a spec written at
  // once) is reported as the folder alone: VS Code drops the events of what a new folder holds, so
  // the file pattern above never fires. The folder's own creation reloads too.
  for (const folder of ['**/.geoweave', '**/.geoweave/tools']) {
    const w = vscode.workspace.createFileSystemWatcher(folder, false, true, true);
    w.onDidCreate(reload);
    watchers.push(w);
  }
  // Saving in the editor re-indexes even when the watcher missed the folder (created after it started).
  const saved = vscode.workspace.onDidSaveTextDocument((doc) => {
    const file = doc.uri.fsPath;
    const folders = config.manifestFolders(retrieval.workspaceDir());
    if (/\.(jsonl?|ya?ml)$/i.test(file) && (file.includes(`${path.sep}.geoweave${path.sep}tools${path.sep}`) || folders.some((f) => file.startsWith(f + path.sep)))) reload(doc.uri);
  });
  const settings = vscode.workspace.onDidChangeConfiguration((e) => {
    if (!config.affectsIndex(e) || !retrieval.peek()) return;
    log.info('index settings changed: rebuilding');
    retrieval.rebuild().catch((err) => log.error(`rebuild failed: ${(err as Error).message}`));
  });
  watchDirect();
  return vscode.Disposable.from(...watchers, saved, settings, { dispose: () => { clearTimeout(timer); direct?.watcher.close(); } });
}
