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

/** The walkthrough step, as the workbench names it: `<extension id>#<walkthrough id>#<step id>`. */
function sampleStep(extensionId: string): string {
  return `${extensionId}#geoweave.start#sample`;
}

/**
 * The workbench ticks an `onContext` step only when the key changes after it registered the
 * walkthrough, which it does lazily (when a walkthrough is first shown): a key that is already true
 * then never ticks the step. So the step is also marked done directly, through the workbench's
 * "mark step complete" command, retried while the walkthroughs are not registered yet.
 */
export function registerSampleContext(extensionId: string, log: { info(msg: string): void }, settleMs = 3000): vscode.Disposable {
  let last: boolean | undefined;
  const timers = new Set<NodeJS.Timeout>();
  const later = (fn: () => void, ms: number) => {
    const t = setTimeout(() => { timers.delete(t); fn(); }, ms);
    timers.add(t);
  };
  const markDone = (attempt: number) => {
    Promise.resolve(vscode.commands.executeCommand('welcome.markStepComplete', sampleStep(extensionId))).then(
      () => log.info('walkthrough step "Create the sample workspace" ticked: the sample is open'),
      () => { if (attempt < 5) later(() => markDone(attempt + 1), 5000); });
  };
  const update = () => {
    const open = (vscode.workspace.workspaceFolders ?? []).some((f) => f.uri.scheme === 'file' && hasSample(f.uri.fsPath));
    if (open === last) return;
    last = open;
    void vscode.commands.executeCommand('setContext', SAMPLE_CONTEXT, open);
    if (open) markDone(0);
  };
  later(update, settleMs);
  const watcher = vscode.workspace.createFileSystemWatcher('**/{s2_scene,fire_pre,fire_post,dem}.tif');
  return vscode.Disposable.from(
    { dispose: () => timers.forEach((t) => clearTimeout(t)) },
    watcher,
    watcher.onDidCreate(update),
    watcher.onDidDelete(update),
    vscode.workspace.onDidChangeWorkspaceFolders(update),
  );
}
