/** Keeps the walkthrough's "Create the sample workspace" step ticked whenever the sample is open
 *  (the folder itself, or its geoweave-sample/ subfolder), not only right after the command ran. */
import * as vscode from 'vscode';
import * as fs from 'fs';
import * as path from 'path';

/** Context key the walkthrough step completes on (package.json `completionEvents`). */
export const SAMPLE_CONTEXT = 'geoweave.sampleWorkspaceOpen';

/** Files only the sample writer puts side by side. */
const SAMPLE_MARKERS = ['s2_scene.tif', 'fire_pre.tif', 'fire_post.tif', 'dem.tif'];

function hasSample(dir: string): boolean {
  return ['', 'geoweave-sample'].some((sub) => SAMPLE_MARKERS.every((f) => fs.existsSync(path.join(dir, sub, f))));
}

export function registerSampleContext(): vscode.Disposable {
  const update = () => {
    const open = (vscode.workspace.workspaceFolders ?? []).some((f) => f.uri.scheme === 'file' && hasSample(f.uri.fsPath));
    void vscode.commands.executeCommand('setContext', SAMPLE_CONTEXT, open);
  };
  update();
  const watcher = vscode.workspace.createFileSystemWatcher('**/{s2_scene,fire_pre,fire_post,dem}.tif');
  return vscode.Disposable.from(
    watcher,
    watcher.onDidCreate(update),
    watcher.onDidDelete(update),
    vscode.workspace.onDidChangeWorkspaceFolders(update),
  );
}
