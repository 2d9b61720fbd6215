/** The data at hand in the workspace (rasters and vectors, described once per modification time)
 *  plus the outputs of earlier cells: the DataContext retrieval uses for readiness. */
import * as vscode from 'vscode';
import * as fs from 'fs';
import * as path from 'path';
import type { DataContext, DataItem } from '../core/retrieval/types';
import type { EarlierCell } from '../core/notebook/references';
import { rasterEngine } from './raster-service';
import { describeVector } from '../core/data/vector';
import { VECTOR_DATA, VECTOR_GLOB_EXTENSIONS } from '../core/raster/vector/formats';
import { RASTER_GLOB_EXTENSIONS, fileLayer, listsLayers } from '../core/raster/raster-files';
import type { Log } from './log';
import { shownOutputs } from '../core/notebook/batch';
import { withBandProducts } from '../core/data/band-products';
import { usableMcpServers } from '../core/notebook/mcp-config';
import type { ArchivedData } from '../core/retrieval/types';
import { ARCHIVE_GLOB_EXTENSIONS, describeArchive, type ArchiveSummary } from '../core/data/archive/archive';
import { unlistedNames } from '../core/data/named-files';
import { whyUnreadable } from '../core/data/unreadable';

const RASTER_FILE_OR_VECTOR = new RegExp(`\\.(${[...RASTER_GLOB_EXTENSIONS, ...VECTOR_GLOB_EXTENSIONS].join('|')})$`, 'i');
const DATA_GLOB = `**/*.{${RASTER_GLOB_EXTENSIONS.join(',')},${VECTOR_GLOB_EXTENSIONS.join(',')}}`;
const ARCHIVE_GLOB = `**/*.{${ARCHIVE_GLOB_EXTENSIONS.join(',')}}`;
// Hidden folders an extraction writes into before renaming them into place are never data.
const EXCLUDE = '{**/node_modules/**,**/.geoweave/**,**/.git/**,**/.*.extracting-*/**}';

export class WorkspaceData implements vscode.Disposable {
  private files?: Promise<string[]>;
  private readonly described = new Map<string, { mtime: number; item?: DataItem; reason?: string }>();
  private readonly ncVariables = new Map<string, { mtime: number; names: string[] }>();
  private readonly watcher: vscode.FileSystemWatcher;
  private archiveFiles?: Promise<string[]>;
  private readonly listed = new Map<string, { mtime: number; summary: ArchiveSummary }>();
  private readonly archiveWatcher: vscode.FileSystemWatcher;

  constructor(private readonly log: Log) {
    this.watcher = vscode.workspace.createFileSystemWatcher(DATA_GLOB);
    const reset = () => { this.files = undefined; };
    this.watcher.onDidCreate(reset);
    this.watcher.onDidDelete(reset);
    this.archiveWatcher = vscode.workspace.createFileSystemWatcher(ARCHIVE_GLOB);
    const resetArchives = () => { this.archiveFiles = undefined; };
    this.archiveWatcher.onDidCreate(resetArchives);
    this.archiveWatcher.onDidDelete(resetArchives);
  }

  /** Forgets the file lists: after an extraction, whose folder appears by a rename the watcher may not report file by file. */
  refresh(): void {
    this.files = undefined;
    this.archiveFiles = undefined;
  }

  /** Archives in the workspace holding data that is not extracted yet (listed once per modification time). */
  async archives(): Promise<ArchivedData[]> {
    const dir = this.dir();
    if (!dir) return [];
    const out: ArchivedData[] = [];
    for (const rel of await this.listArchives()) {
      const abs = path.resolve(dir, rel);
      try {
        const st = fs.statSync(abs);
        if (!st.isFile()) continue;
        const mtime = st.mtimeMs;
        let hit = this.listed.get(abs);
        if (!hit || hit.mtime !== mtime) this.listed.set(abs, (hit = { mtime, summary: await describeArchive(rel, dir) }));
        const s = hit.summary;
        // Extracted since it was listed: the data is read from its folder now.
        const extracted = fs.existsSync(path.join(path.dirname(abs), s.target));
        if (!extracted && s.rasters + s.vectors > 0) out.push({ path: rel, holds: s.holds, rasters: s.rasters, vectors: s.vectors });
      } catch (e) {
        this.log.warn(`cannot list ${rel}: ${(e as Error).message}`);
      }
    }
    return out;
  }

  dir(): string | undefined {
    return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  }

  /** Archive files, workspace-relative, sorted. */
  private listArchives(): Promise<string[]> {
    this.archiveFiles ??= Promise.resolve(vscode.workspace.findFiles(ARCHIVE_GLOB, EXCLUDE, 200)).then((uris) =>
      uris.map((u) => vscode.workspace.asRelativePath(u, false)).sort());
    return this.archiveFiles;
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
  async context(earlier: EarlierCell[], task?: string): Promise<DataContext> {
    const dir = this.dir();
    const outputs: DataItem[] = [];
    for (const c of [...earlier].reverse()) {
      if (!c.run?.ok) continue;
      for (const o of Object.values(shownOutputs(c.run))) {
        const rel = dir && o.path.startsWith(dir + path.sep) ? path.relative(dir, o.path) : o.path;
        // Described like any file (CRS, extent, grid), so readiness can check what it is combined with.
        const described = o.type === 'table' ? undefined : await this.describe(rel, dir, o.type);
        outputs.push({ ...described, path: rel, type: o.type, roles: o.roles ?? described?.roles, producedBy: c.tool });
      }
    }
    if (task) await this.lookForNamed(task, outputs.map((o) => o.path));
    const files: DataItem[] = [];
    const unreadable: { path: string; reason: string }[] = [];
    for (const rel of await this.listFiles()) {
      const item = await this.describe(rel, dir, VECTOR_DATA.test(rel) ? 'vector' : 'raster');
      // A MODIS/VIIRS reflectance file reads whole as its scene, and its fields are listed besides; a GRIB file its messages (core says which).
      const variables = listsLayers(rel, item ? item.bands?.length ?? 0 : undefined) ? await this.variables(rel, dir) : [];
      if (item) files.push(item);
      if (variables.length > 1) {
        // A NetCDF file of several gridded variables: one item per variable (era5.nc#t2m); an HDF4 file's grid fields and a GRIB file's messages alike.
        let described = 0;
        for (const v of variables) {
          const one = await this.describe(`${rel}#${v}`, dir, 'raster');
          if (one) { files.push(one); described++; }
        }
        if (item || described) continue;
      }
      if (!item) {
        const reason = this.described.get(dir ? path.resolve(dir, rel) : rel)?.reason;
        if (reason) unreadable.push({ path: rel, reason });
      }
    }
    const roleCount = (it: DataItem) => (it.bands ?? []).filter((b) => b.role).length;
    files.splice(0, files.length, ...withBandProducts(files));
    files.sort((a, b) => roleCount(b) - roleCount(a) || a.path.localeCompare(b.path));
    // The MCP servers this folder configures: a tool of another server is not ready here.
    const mcpServers = dir ? usableMcpServers(dir) : undefined;
    const archives = await this.archives();
    return { items: [...outputs, ...files], ...(mcpServers ? { mcpServers } : {}), ...(archives.length ? { archives } : {}), ...(unreadable.length ? { unreadable } : {}) };
  }

  /** Lists the workspace again when the task names a file the lists lack: the watcher reports a
   *  download a moment late, and readiness on the old list would answer for another file. */
  private async lookForNamed(task: string, outputs: string[]): Promise<void> {
    if (!this.dir()) return;
    const listed = [...outputs, ...(await this.listFiles()), ...(await this.listArchives())];
    const missing = unlistedNames(task, listed);
    if (!missing.length) return;
    this.log.info(`the task names ${missing.join(', ')}, not in the file list yet: listing the workspace again`);
    this.refresh();
  }

  /** The gridded variables of a NetCDF file, classic or NetCDF-4, the grid fields of an HDF4 file, the messages of a GRIB file ([] for any other), read once per modification time. */
  private async variables(rel: string, dir: string | undefined): Promise<string[]> {
    const abs = dir ? path.resolve(dir, rel) : rel;
    try {
      const mtime = fs.statSync(abs).mtimeMs;
      const hit = this.ncVariables.get(abs);
      if (hit && hit.mtime === mtime) return hit.names;
      const { gridLayers } = await import('../core/raster/io/layers');
      const names = await gridLayers(abs, (m) => this.log.warn(m));
      this.ncVariables.set(abs, { mtime, names });
      return names;
    } catch {
      return [];
    }
  }

  /** A file described once per modification time: a raster's header, a GeoJSON's CRS and extent. */
  private async describe(rel: string, dir: string | undefined, type: 'raster' | 'vector'): Promise<DataItem | undefined> {
    const abs = dir ? path.resolve(dir, rel) : rel;
    try {
      // A NetCDF variable (era5.nc#t2m) or HDF4 field lives in its file.
      const st = fs.statSync(fileLayer(abs)?.file ?? abs);
      // A FIFO or device named like data would block the extension host on its first read.
      if (!st.isFile()) return undefined;
      const mtime = st.mtimeMs;
      const hit = this.described.get(abs);
      if (hit && hit.mtime === mtime) return hit.item;
      let item: DataItem;
      try {
        if (type === 'vector') item = describeVector(rel, dir);
        else {
          const { describeRaster } = await rasterEngine();
          item = { ...(await describeRaster(rel, dir)), path: rel };
        }
      } catch (e) {
        // Kept with why, so a task naming the file is told it cannot be read (and it is not tried again until it changes).
        this.described.set(abs, { mtime, reason: whyUnreadable(e, abs) });
        throw e;
      }
      this.described.set(abs, { mtime, item });
      return item;
    } catch (e) {
      this.log.warn(`cannot describe ${rel}: ${(e as Error).message}`);
      return undefined;
    }
  }

  /** The workspace files among `paths`, described (cached per modification time): what the editor
   *  checks a cell's inputs against. */
  async describeFiles(paths: string[]): Promise<DataItem[]> {
    const dir = this.dir();
    const files = new Set(await this.listFiles());
    const out: DataItem[] = [];
    for (const p of new Set(paths)) {
      // A data file in the workspace that the list lacks landed a moment ago (the watcher reports late).
      const landed = !!dir && RASTER_FILE_OR_VECTOR.test(p) && !path.isAbsolute(p) && !path.relative(dir, path.resolve(dir, p)).startsWith('..') && fs.existsSync(path.resolve(dir, p));
      if (!files.has(p) && !landed) continue;
      const item = await this.describe(p, dir, VECTOR_DATA.test(p) ? 'vector' : 'raster');
      if (item) out.push(item);
    }
    return out;
  }

  dispose(): void {
    this.watcher.dispose();
    this.archiveWatcher.dispose();
  }
}
