/** The data at hand in the workspace (rasters and vectors, described once per modification time)
 *  plus the outputs of earlier cells: the DataContext retrieval uses for readiness. */
import * as vscode from 'vscode';
import * as fs from 'fs';
import * as path from 'path';
import type { DataContext, DataItem } from '../core/retrieval/types';
import type { EarlierCell } from '../core/notebook/references';
import { rasterEngine } from './raster-service';
import type { Log } from './log';

const DATA_GLOB = '**/*.{tif,tiff,TIF,TIFF,vrt,geojson}';
const EXCLUDE = '{**/node_modules/**,**/.geoweave/**,**/.git/**}';

export class WorkspaceData implements vscode.Disposable {
  private files?: Promise<string[]>;
  private readonly described = new Map<string, { mtime: number; item: DataItem }>();
  private readonly watcher: vscode.FileSystemWatcher;

  constructor(private readonly log: Log) {
    this.watcher = vscode.workspace.createFileSystemWatcher(DATA_GLOB);
    const reset = () => { this.files = undefined; };
    this.watcher.onDidCreate(reset);
    this.watcher.onDidDelete(reset);
  }

  dir(): string | undefined {
    return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  }

  /** Data files, workspace-relative, sorted. */
  listFiles(): Promise<string[]> {
    this.files ??= Promise.resolve(vscode.workspace.findFiles(DATA_GLOB, EXCLUDE, 500)).then((uris) =>
      uris.map((u) => vscode.workspace.asRelativePath(u, false)).sort());
    return this.files;
  }

  /** Earlier outputs (newest first), then workspace files with the most band roles first: retrieval
   *  resolves arguments from the first item that fits, and the latest result or the richest scene
   *  is what an analyst means. */
  async context(earlier: EarlierCell[]): Promise<DataContext> {
    const dir = this.dir();
    const outputs: DataItem[] = [];
    for (const c of [...earlier].reverse()) {
      if (!c.run?.ok) continue;
      for (const o of Object.values(c.run.outputs)) {
        const rel = dir && o.path.startsWith(dir + path.sep) ? path.relative(dir, o.path) : o.path;
        outputs.push({ path: rel, type: o.type, roles: o.roles, producedBy: c.tool });
      }
    }
    const files: DataItem[] = [];
    for (const rel of await this.listFiles()) {
      if (/\.geojson$/i.test(rel)) {
        files.push({ path: rel, type: 'vector' });
        continue;
      }
      const item = await this.describe(rel, dir);
      if (item) files.push(item);
    }
    const roleCount = (it: DataItem) => (it.bands ?? []).filter((b) => b.role).length;
    files.sort((a, b) => roleCount(b) - roleCount(a) || a.path.localeCompare(b.path));
    return { items: [...outputs, ...files] };
  }

  private async describe(rel: string, dir: string | undefined): Promise<DataItem | undefined> {
    const abs = dir ? path.join(dir, rel) : rel;
    try {
      const mtime = fs.statSync(abs).mtimeMs;
      const hit = this.described.get(abs);
      if (hit && hit.mtime === mtime) return hit.item;
      const { describeRaster } = await rasterEngine();
      const item = { ...(await describeRaster(rel, dir)), path: rel };
      this.described.set(abs, { mtime, item });
      return item;
    } catch (e) {
      this.log.warn(`cannot describe ${rel}: ${(e as Error).message}`);
      return undefined;
    }
  }

  dispose(): void {
    this.watcher.dispose();
  }
}
