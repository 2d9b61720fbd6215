/**
 * The raster viewer: a GeoTIFF or JPEG 2000 file opened from the explorer shows what raster_info
 * says of it (size, CRS, pixel size, bands and their roles, nodata, overviews) and the file itself on
 * the interactive map, instead of VS Code's "binary file" notice, and again when the file is rewritten. The webview loads the notebook's
 * result renderer (dist/result-renderer.js) and stands in for VS Code's renderer messaging, so the
 * map, its inspector and its tiles are the cell outputs' own (result-map-host.ts answers them).
 */
import * as vscode from 'vscode';
import * as crypto from 'crypto';
import * as path from 'path';
import { parseRendererMessage } from '../shared/result-protocol';
import type { ResultMapHost } from './result-map-host';
import type { Log } from './log';

export const RASTER_VIEWER_ID = 'geoweave.rasterViewer';
/** GDAL virtual rasters are XML people also edit: the viewer is offered under "Open With…", not by default. */
export const RASTER_VIEWER_VRT_ID = 'geoweave.rasterViewer.vrt';

export class RasterViewer implements vscode.CustomReadonlyEditorProvider {
  constructor(private readonly extensionUri: vscode.Uri, private readonly maps: ResultMapHost, private readonly log: Log) {}

  openCustomDocument(uri: vscode.Uri): vscode.CustomDocument {
    return { uri, dispose: () => undefined };
  }

  async resolveCustomEditor(doc: vscode.CustomDocument, panel: vscode.WebviewPanel): Promise<void> {
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    panel.webview.options = { enableScripts: true, localResourceRoots: [dist] };
    panel.webview.html = this.html(panel.webview, dist);
    const file = doc.uri.fsPath;
    const stop = new AbortController();
    const allowed = this.maps.allow(file);
    // Read once per editor; the webview asks again (ready) each time it is shown.
    let view: Promise<{ type: 'geoweave.view'; view: unknown } | { type: 'geoweave.error'; message: string; hint?: string }> | undefined;
    const load = () => (view ??= doc.uri.scheme !== 'file'
      ? Promise.resolve({ type: 'geoweave.error' as const, message: vscode.l10n.t('{0} is not a local file; GeoWeave reads rasters on this machine.', doc.uri.toString()) })
      : Promise.all([import('../core/results/raster-view'), import('../core/results/summary-language')])
        .then(([m, l]) => m.rasterFileView(file, l.summaryLanguage(vscode.env.language, ''), stop.signal)).then(
        (v) => ({ type: 'geoweave.view' as const, view: v }),
        (e: Error) => {
          this.log.warn(`raster viewer: ${e.message}`);
          return { type: 'geoweave.error' as const, message: e.message, hint: vscode.l10n.t('To see the file as text, use "Open With…" and choose Text Editor.') };
        },
      ));
    // A reply after the tab was closed goes nowhere (postMessage on a disposed webview throws).
    const post = (msg: unknown) => {
      if (stop.signal.aborted) return;
      try { void Promise.resolve(panel.webview.postMessage(msg)).catch(() => undefined); } catch { /* disposed */ }
    };
    const sub = panel.webview.onDidReceiveMessage((raw: unknown) => {
      if (raw && typeof raw === 'object' && (raw as { type?: unknown }).type === 'geoweave.ready') {
        void load().then(post);
        return;
      }
      const m = parseRendererMessage(raw);
      if (!m) return;
      void this.maps.answer(m, stop.signal).then(post, (e: Error) => post({ type: 'error', id: m.id, message: e.message }));
    });
    // The file rewritten (a cell run again over its output, a download finished): read and drawn again.
    const watcher = doc.uri.scheme === 'file'
      ? vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.joinPath(doc.uri, '..'), path.basename(file)))
      : undefined;
    let again: NodeJS.Timeout | undefined;
    const reread = () => {
      if (again) clearTimeout(again);
      // A writer renames its temp file into place once; a copy may take a few events: wait for quiet.
      again = setTimeout(() => { view = undefined; void load().then(post); }, 300);
    };
    watcher?.onDidChange(reread);
    watcher?.onDidCreate(reread);
    panel.onDidDispose(() => { stop.abort(); sub.dispose(); allowed.dispose(); watcher?.dispose(); if (again) clearTimeout(again); });
  }

  private html(webview: vscode.Webview, dist: vscode.Uri): string {
    const nonce = crypto.randomBytes(16).toString('base64');
    const renderer = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'result-renderer.js'));
    // The renderer adds its own <style>; map tiles are canvases and data: images; a basemap (if set) is https.
    const csp = `default-src 'none'; img-src ${webview.cspSource} data: blob: https:; style-src ${webview.cspSource} 'unsafe-inline'; font-src ${webview.cspSource}; script-src 'nonce-${nonce}' ${webview.cspSource};`;
    const reading = vscode.l10n.t('Reading the raster…');
    const h = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
    return `<!DOCTYPE html>
<html lang="${h(vscode.env.language)}">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>GeoWeave</title>
<style nonce="${nonce}">body { padding: 8px 16px; } .gw-viewer-error { color: var(--vscode-errorForeground); font-family: var(--vscode-font-family); } .gw-viewer-hint { color: var(--vscode-descriptionForeground); font-family: var(--vscode-font-family); margin-top: 6px; }</style>
</head>
<body>
<div id="container"><div class="gw-viewer-status" style="color: var(--vscode-descriptionForeground); font-family: var(--vscode-font-family)">${h(reading)}</div></div>
<script type="module" nonce="${nonce}">
import { activate } from ${JSON.stringify(renderer.toString())};
const vscode = acquireVsCodeApi();
const listeners = new Set();
const renderer = activate({
  postMessage: (m) => vscode.postMessage(m),
  onDidReceiveMessage: (l) => { listeners.add(l); return { dispose: () => listeners.delete(l) }; },
});
const container = document.getElementById('container');
window.addEventListener('message', (e) => {
  const m = e.data;
  if (m && m.type === 'geoweave.view') {
    renderer.disposeOutputItem('raster');
    const box = document.createElement('div');
    container.replaceChildren(box);
    renderer.renderOutputItem({ id: 'raster', json: () => m.view }, box);
  } else if (m && m.type === 'geoweave.error') {
    const p = document.createElement('div');
    p.className = 'gw-viewer-error';
    p.textContent = m.message;
    const hint = document.createElement('div');
    hint.className = 'gw-viewer-hint';
    hint.textContent = m.hint || '';
    container.replaceChildren(p, hint);
  } else for (const l of listeners) l(m);
});
vscode.postMessage({ type: 'geoweave.ready' });
</script>
</body>
</html>`;
  }
}
