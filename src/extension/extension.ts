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
import { ResultMapHost } from './result-map-host';
import { RasterViewer, RASTER_VIEWER_ID, RASTER_VIEWER_VRT_ID } from './raster-viewer';
import { PanelProvider, PANEL_VIEW_ID } from './panel';
import { registerSerializer } from './notebook-serializer';
import { ToolCellLanguage } from './language-features';
import { registerCommands } from './commands';
import { registerStatus } from './status';
import { registerManifestWatch } from './manifest-authoring';
import { knownSecrets } from './secrets';
import { writeFileAtomic } from '../core/index/fs-util';
import { registerSampleContext } from './walkthrough';
import { setCodecWarn } from '../core/raster/io/native-deflate';

/** Set by the webpack banner at the first line of dist/extension.js. */
declare const __geoweaveLoadStart: number | undefined;
const loadStart = typeof __geoweaveLoadStart === 'number' ? __geoweaveLoadStart : performance.now();
const loaded = performance.now();

export function activate(context: vscode.ExtensionContext): void {
  const started = performance.now();
  const log = createLog(knownSecrets);
  // Without the native DEFLATE addon (not shipped for this platform, or it fails to load) rasters still work through Node's zlib; say so in our log.
  setCodecWarn((m) => log.warn(m));
  const storageDir = (context.storageUri ?? context.globalStorageUri).fsPath;
  const retrieval = new RetrievalService({ extensionPath: context.extensionPath, storageDir, secrets: context.secrets, globalState: context.globalState, log });
  const data = new WorkspaceData(log);
  const assistant = new Assistant(retrieval, data, log, context.workspaceState);
  const panel = new PanelProvider(context.extensionUri, assistant, log);
  const maps = new ResultMapHost(storageDir, log);
  context.subscriptions.push(
    log, retrieval, data, assistant, panel, maps,
    registerSerializer(),
    new ToolController(retrieval, assistant, log, maps, context.secrets),
    vscode.window.registerWebviewViewProvider(PANEL_VIEW_ID, panel, { webviewOptions: { retainContextWhenHidden: false } }),
    vscode.window.registerCustomEditorProvider(RASTER_VIEWER_ID, new RasterViewer(context.extensionUri, maps, log), { supportsMultipleEditorsPerDocument: true }),
    vscode.window.registerCustomEditorProvider(RASTER_VIEWER_VRT_ID, new RasterViewer(context.extensionUri, maps, log), { supportsMultipleEditorsPerDocument: true }),
    new ToolCellLanguage(retrieval, data),
    registerCommands({ retrieval, assistant, log, secrets: context.secrets, panel, data }),
    registerStatus(retrieval),
    registerManifestWatch(retrieval, log),
    registerSampleContext(context.extension.id, log),
  );
  const done = performance.now();
  const timing = { activationMs: Math.round(done - loadStart), loadMs: Math.round(loaded - loadStart), activateMs: Math.round(done - started) };
  log.info(`activated in ${timing.activationMs} ms (bundle load ${timing.loadMs} ms, activate ${timing.activateMs} ms)`);
  recordActivation(context.globalStorageUri.fsPath, timing);
}

/** The activation time goes to globalStorage too, where tests and benchmarks read it. */
function recordActivation(dir: string, timing: { activationMs: number; loadMs: number; activateMs: number }): void {
  try {
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'activation.json');
    writeFileAtomic(file, JSON.stringify({ ...timing, time: new Date().toISOString() }) + '\n');
  } catch {
    // Not being able to record a measurement must not break activation.
  }
}

export function deactivate(): void {
  // Disposables in context.subscriptions do the cleanup.
}
