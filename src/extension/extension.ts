/** Composition root: builds the services with plain constructors and registers them. Nothing heavy
 *  loads here; the index and the raster engine open on first use. */
import * as vscode from 'vscode';
import * as fs from 'fs';
import * as path from 'path';
import { createLog } from './log';
import { RetrievalService } from './retrieval-service';
import { WorkspaceData } from './workspace-data';
import { Assistant } from './assistant';
import { ToolController } from './controller';
import { PanelProvider, PANEL_VIEW_ID } from './panel';
import { registerSerializer } from './notebook-serializer';
import { ToolCellLanguage } from './language-features';
import { registerCommands } from './commands';
import { registerStatus } from './status';
import { registerManifestWatch } from './manifest-authoring';

export function activate(context: vscode.ExtensionContext): void {
  const started = performance.now();
  const log = createLog();
  const storageDir = (context.storageUri ?? context.globalStorageUri).fsPath;
  const retrieval = new RetrievalService({ extensionPath: context.extensionPath, storageDir, secrets: context.secrets, log });
  const data = new WorkspaceData(log);
  const assistant = new Assistant(retrieval, data, log);
  const panel = new PanelProvider(context.extensionUri, assistant, log);
  context.subscriptions.push(
    log, retrieval, data, assistant, panel,
    registerSerializer(),
    new ToolController(retrieval, assistant, log),
    vscode.window.registerWebviewViewProvider(PANEL_VIEW_ID, panel, { webviewOptions: { retainContextWhenHidden: false } }),
    new ToolCellLanguage(retrieval, data),
    registerCommands({ retrieval, assistant, log, secrets: context.secrets }),
    registerStatus(retrieval),
    registerManifestWatch(retrieval, log),
  );
  const ms = Math.round(performance.now() - started);
  log.info(`activated in ${ms} ms`);
  recordActivation(context.globalStorageUri.fsPath, ms);
}

/** The activation time goes to globalStorage too, where tests and benchmarks read it. */
function recordActivation(dir: string, ms: number): void {
  try {
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'activation.json');
    fs.writeFileSync(file + '.tmp', JSON.stringify({ activationMs: ms, time: new Date().toISOString() }) + '\n');
    fs.renameSync(file + '.tmp', file);
  } catch {
    // Not being able to record a measurement must not break activation.
  }
}

export function deactivate(): void {
  // Disposables in context.subscriptions do the cleanup.
}
