/** The host side of the map in cell outputs: answers the renderer's requests for tiles, pixel values
 *  and vector files (src/shared/result-protocol.ts) from core/results/map-data.ts, over VS Code's
 *  renderer messaging. Every message is checked; every path must lie in the workspace or the
 *  outputs folder (a reopened notebook's paths come from the file). */
import * as vscode from 'vscode';
import * as path from 'path';
import type { MapData } from '../core/results/map-data';
import { RENDERER_ID, parseRendererMessage, type HostMessage, type RendererMessage } from '../shared/result-protocol';
import { config } from './config';
import type { Log } from './log';

export class ResultMapHost implements vscode.Disposable {
  private mapData?: Promise<{ data: MapData; encodeFloats: (a: Float32Array) => string }>;
  /** Files open in the raster viewer: readable by the map wherever they lie (counted: two tabs may show one). */
  private readonly viewed = new Map<string, number>();
  private readonly messaging = vscode.notebooks.createRendererMessaging(RENDERER_ID);
  private readonly subscription: vscode.Disposable;

  /** The map's data service, loaded on first use (the raster reader is not needed at activation). */
  data(): Promise<MapData> {
    return this.load().then((m) => m.data);
  }

  private load() {
    this.mapData ??= import('../core/results/map-data').then((m) => ({
      data: new m.MapData({ roots: () => [...mapRoots(), ...this.viewed.keys()], cacheDir: path.join(this.storageDir, 'map-overviews') }),
      encodeFloats: m.encodeFloats,
    }));
    return this.mapData;
  }

  constructor(private readonly storageDir: string, private readonly log: Log) {
    this.subscription = this.messaging.onDidReceiveMessage(({ editor, message }) => {
      const m = parseRendererMessage(message);
      if (!m) return;
      void this.answer(m).then(
        (reply) => this.messaging.postMessage(reply, editor),
        (e) => this.messaging.postMessage({ type: 'error', id: m.id, message: (e as Error).message } satisfies HostMessage, editor),
      );
    });
  }

  /** Lets the map read `file` (a raster the analyst opened in the viewer) until the returned disposable runs. */
  allow(file: string): vscode.Disposable {
    this.viewed.set(file, (this.viewed.get(file) ?? 0) + 1);
    return new vscode.Disposable(() => {
      const n = (this.viewed.get(file) ?? 1) - 1;
      if (n > 0) this.viewed.set(file, n); else this.viewed.delete(file);
    });
  }

  /** The answer to a renderer's request (a cell output's map, or the raster viewer's). */
  async answer(m: RendererMessage, signal?: AbortSignal): Promise<HostMessage> {
    const { data, encodeFloats } = await this.load();
    switch (m.type) {
      case 'describe': {
        const layers = await Promise.all(m.layers.map((l) => data.describe(l, signal)));
        const vectors = m.vectors.map((p) => ({ path: p, exists: data.vectorExists(p) }));
        const basemap = config.mapBasemap();
        for (const l of layers) if (l.error) this.log.info(`map: ${l.error}`);
        return { type: 'describe', id: m.id, layers, vectors, ...(basemap ? { basemap } : {}) };
      }
      case 'tile': {
        const bands = await data.tile(m.layer, m.z, m.x, m.y, signal);
        return { type: 'tile', id: m.id, width: 256, height: 256, bands: bands.map(encodeFloats) };
      }
      case 'pixel': {
        const values = await Promise.all(m.probes.map((p) => data.pixel(p.layer, p.col, p.row).catch(() => p.layer.bands.map(() => null))));
        return { type: 'pixel', id: m.id, values };
      }
      case 'vector':
        return { type: 'vector', id: m.id, geojson: await data.vector(m.path) };
    }
  }

  dispose(): void {
    this.subscription.dispose();
    void this.mapData?.then((m) => m.data.dispose());
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
