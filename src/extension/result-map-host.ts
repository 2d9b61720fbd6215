/** The host side of the map in cell outputs: answers the renderer's requests for tiles, pixel values
 *  and vector files (src/shared/result-protocol.ts) from core/results/map-data.ts, over VS Code's
 *  renderer messaging. Every message is checked; every path must lie in the workspace or the
 *  outputs folder (a reopened notebook's paths come from the file). */
import * as vscode from 'vscode';
import * as path from 'path';
import { MapData, encodeFloats } from '../core/results/map-data';
import { RENDERER_ID, parseRendererMessage, type HostMessage, type RendererMessage } from '../shared/result-protocol';
import { config } from './config';
import type { Log } from './log';

export class ResultMapHost implements vscode.Disposable {
  readonly data: MapData;
  private readonly messaging = vscode.notebooks.createRendererMessaging(RENDERER_ID);
  private readonly subscription: vscode.Disposable;

  constructor(storageDir: string, private readonly log: Log) {
    this.data = new MapData({ roots: () => mapRoots(), cacheDir: path.join(storageDir, 'map-overviews') });
    this.subscription = this.messaging.onDidReceiveMessage(({ editor, message }) => {
      const m = parseRendererMessage(message);
      if (!m) return;
      void this.answer(m).then(
        (reply) => this.messaging.postMessage(reply, editor),
        (e) => this.messaging.postMessage({ type: 'error', id: m.id, message: (e as Error).message } satisfies HostMessage, editor),
      );
    });
  }

  private async answer(m: RendererMessage): Promise<HostMessage> {
    switch (m.type) {
      case 'describe': {
        const layers = await Promise.all(m.layers.map((l) => this.data.describe(l)));
        const vectors = m.vectors.map((p) => ({ path: p, exists: this.data.vectorExists(p) }));
        const basemap = config.mapBasemap();
        for (const l of layers) if (l.error) this.log.info(`map: ${l.error}`);
        return { type: 'describe', id: m.id, layers, vectors, ...(basemap ? { basemap } : {}) };
      }
      case 'tile': {
        const bands = await this.data.tile(m.layer, m.z, m.x, m.y);
        return { type: 'tile', id: m.id, width: 256, height: 256, bands: bands.map(encodeFloats) };
      }
      case 'pixel': {
        const values = await Promise.all(m.probes.map((p) => this.data.pixel(p.layer, p.col, p.row).catch(() => p.layer.bands.map(() => null))));
        return { type: 'pixel', id: m.id, values };
      }
      case 'vector':
        return { type: 'vector', id: m.id, geojson: await this.data.vector(m.path) };
    }
  }

  dispose(): void {
    this.subscription.dispose();
    void this.data.dispose();
  }
}

/** Workspace folders (or the folder of a notebook opened without one) and the outputs folder of each. */
function mapRoots(): string[] {
  const folders = vscode.workspace.workspaceFolders?.map((f) => f.uri.fsPath) ?? [];
  for (const nb of vscode.workspace.notebookDocuments) {
    if (nb.uri.scheme === 'file' && !vscode.workspace.getWorkspaceFolder(nb.uri)) folders.push(path.dirname(nb.uri.fsPath));
  }
  return [...folders, ...folders.map((f) => config.outputFolder(f))];
}
