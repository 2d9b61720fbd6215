/**
 * Data that arrives archived: a Sentinel-2 product as Copernicus Data Space delivers it
 * (`S2B_MSIL2A_….SAFE.zip`), a Landsat scene from EarthExplorer (`LC09_L2SP_…_T1.tar`), a zipped
 * Shapefile from a data portal. The engine reads files, so such data is invisible until it is
 * extracted; this module says what an archive holds (from its directory alone) and extracts it the
 * way an analyst would, beside the archive, so the workspace scan then finds it.
 *
 * Extraction is safe against what archives can carry: names with `..` or absolute paths are refused,
 * links are skipped (never followed or written), no entry writes more than it declares, the free
 * space is checked first, and everything is written into a hidden folder that is renamed into place
 * only when all entries are complete; a failure or cancellation leaves nothing behind.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { pipeline } from 'node:stream/promises';
import { readZipDirectory, entryStream, unreadableEntry, ZipError } from './zip';
import { listTar, walkHeaders, streamReader, isGzip, TarError } from './tar';
import { RASTER_FILE } from '../../raster/raster-files';
import { VECTOR_DATA } from '../../raster/vector/formats';
import { bandFileOf } from '../../raster/band-files';

/** Archive files by extension: the workspace scan looks inside these. */
export const ARCHIVE_FILE = /\.(zip|tar|tar\.gz|tgz)$/i;
export const ARCHIVE_GLOB_EXTENSIONS = ['zip', 'ZIP', 'tar', 'TAR', 'tgz', 'tar.gz'];

export class ArchiveError extends Error {}

export interface ArchiveEntry {
  name: string;
  size: number;
  type: 'file' | 'directory' | 'link' | 'other';
}

/** What an archive holds, for the panel's readiness and the CLI. */
export interface ArchiveSummary {
  /** The archive, as given (workspace-relative in a scan). */
  path: string;
  /** "a Sentinel-2 L2A product (S2B_MSIL2A_….SAFE, 13 band files)", "a Shapefile (roads.shp)". */
  holds: string;
  rasters: number;
  vectors: number;
  /** Where `extractArchive` puts it, relative to the archive's folder. */
  target: string;
  /** True when `target` already exists: the data is there to be read. */
  extracted: boolean;
  /** False for a gzipped tar listed only in part (its first entries). */
  complete: boolean;
}

/** Entries macOS's Finder adds to the archives it makes: resource forks, never data. */
const JUNK = /(^|\/)(__MACOSX\/|\._)/;

function kind(file: string): 'zip' | 'tar' {
  return /\.zip$/i.test(file) ? 'zip' : 'tar';
}

/** Lists an archive from its directory (ZIP) or headers (tar; a gzipped one in part). */
export async function listArchive(file: string): Promise<{ entries: ArchiveEntry[]; complete: boolean }> {
  // A FIFO or device named like an archive would block its first read for good.
  let st: fs.Stats;
  try { st = fs.statSync(file); } catch { throw new ArchiveError(`${file}: file not found`); }
  if (!st.isFile()) throw new ArchiveError(`${file}: not a regular file`);
  try {
    if (kind(file) === 'zip') {
      const fd = fs.openSync(file, 'r');
      try {
        const entries = readZipDirectory(fd, file).map((e): ArchiveEntry => ({ name: e.name, size: e.size, type: e.symlink ? 'link' : e.directory ? 'directory' : 'file' }));
        return { entries, complete: true };
      } finally {
        fs.closeSync(fd);
      }
    }
    const { entries, complete } = await listTar(file, { maxBytes: 256 << 20 });
    return { entries: entries.map((e) => ({ name: e.name, size: e.size, type: e.type })), complete };
  } catch (e) {
    if (e instanceof ZipError || e instanceof TarError) throw new ArchiveError(e.message);
    throw new ArchiveError(`${file}: ${(e as Error).message}`);
  }
}

/** The archive's name without its extension: "S2B_…SAFE.zip" → "S2B_…SAFE", "scene.tar.gz" → "scene". */
export function archiveStem(file: string): string {
  return path.basename(file).replace(ARCHIVE_FILE, '');
}

/**
 * Where extraction puts an archive's content, relative to its folder: an archive of one file (NASA's
 * `N37W122.SRTMGL1.hgt.zip`) puts that file beside it (`file`); the one top-level folder every entry
 * is in (a `.SAFE`; `strip` then says entries lose that first component under it); else a folder
 * named after the archive (a Landsat tar's loose band files).
 */
export function extractionTarget(file: string, entries: ArchiveEntry[]): { target: string; strip: boolean; file?: boolean } {
  const kept = entries.filter((e) => !JUNK.test(e.name)).map((e) => ({ name: safeName(e.name), type: e.type })).filter((e): e is { name: string; type: ArchiveEntry['type'] } => !!e.name);
  const files = kept.filter((e) => e.type === 'file');
  if (files.length === 1 && kept.length === 1 && !files[0].name.includes('/') && !files[0].name.startsWith('.')) return { target: files[0].name, strip: false, file: true };
  const tops = new Set(kept.map((e) => e.name.split('/')[0]));
  const top = tops.size === 1 ? [...tops][0] : undefined;
  const single = top && !top.startsWith('.') && kept.every((e) => e.name.includes('/') || e.type === 'directory');
  return single ? { target: top, strip: true } : { target: archiveStem(file), strip: false };
}

/** An entry's name as a safe relative path ("a/b.tif"), or undefined for names that would escape. */
export function safeName(name: string): string | undefined {
  const parts = name.replace(/\\/g, '/').split('/').filter((p) => p !== '' && p !== '.');
  if (!parts.length) return undefined;
  if (/^\//.test(name.replace(/\\/g, '/')) || /^[a-zA-Z]:/.test(name)) return undefined;
  if (parts.some((p) => p === '..' || p.includes('\0'))) return undefined;
  return parts.join('/');
}

/** What an archive holds, read from its entry names (the products GeoWeave knows first). */
export function summarize(file: string, entries: ArchiveEntry[], complete: boolean, dir?: string): ArchiveSummary {
  const files = entries.filter((e) => e.type === 'file' && !JUNK.test(e.name));
  const rasters = files.filter((e) => RASTER_FILE.test(e.name));
  const vectors = files.filter((e) => VECTOR_DATA.test(e.name));
  const bands = rasters.map((e) => bandFileOf(e.name)).filter((b) => !!b);
  const safe = /(?:^|\/)(S2[A-D]_MSI(L1C|L2A)_[^/]*\.SAFE)\//i.exec(files.find((e) => /\.SAFE\//i.test(e.name))?.name ?? '');
  const landsat = bands.find((b) => b!.sensor.startsWith('landsat'));
  const atLeast = complete ? '' : 'at least ';
  let holds: string;
  // The product's name, unless the archive already bears it (S2B_….SAFE.zip, LC09_…_T1.tar).
  const named = (id: string) => (archiveStem(file).toUpperCase() === id.toUpperCase() ? '' : `${id}, `);
  if (safe && bands.length) holds = `a Sentinel-2 ${safe[2].toUpperCase()} product (${named(safe[1])}${atLeast}${bands.length} band files)`;
  else if (landsat) holds = `a Landsat ${/^lc0[89]/.test(landsat.product) ? '8-9' : '4-7'} Collection 2 Level-2 scene (${named(path.basename(landsat.product).toUpperCase().replace(/_$/, ''))}${atLeast}${bands.length} band files)`;
  else {
    const list = (xs: ArchiveEntry[], one: string, many: string) => xs.length ? `${atLeast}${xs.length === 1 ? one : `${xs.length} ${many}`} (${xs.slice(0, 3).map((e) => path.posix.basename(e.name)).join(', ')}${xs.length > 3 ? ', …' : ''})` : '';
    holds = [list(rasters, 'a raster', 'rasters'), list(vectors, `a ${vectorKind(vectors[0]?.name)}`, 'vector files')].filter(Boolean).join(' and ') || `no data GeoWeave reads${complete ? '' : ' in its first entries'}`;
  }
  const { target } = extractionTarget(file, entries);
  const at = path.join(dir ? path.resolve(dir, path.dirname(file)) : path.dirname(file), target);
  return { path: file, holds, rasters: rasters.length, vectors: vectors.length, target, extracted: fs.existsSync(at), complete };
}

function vectorKind(name = ''): string {
  const ext = path.extname(name).toLowerCase();
  return ext === '.shp' ? 'Shapefile' : ext === '.gpkg' ? 'GeoPackage' : ext === '.kml' || ext === '.kmz' ? 'KML file' : 'GeoJSON file';
}

/** Lists and summarizes an archive (`file` relative to `dir` when given). */
export async function describeArchive(file: string, dir?: string): Promise<ArchiveSummary> {
  const abs = dir ? path.resolve(dir, file) : file;
  const { entries, complete } = await listArchive(abs);
  return summarize(file, entries, complete, dir);
}

export interface ExtractOptions {
  /** Folder to extract into; the archive's own folder by default. */
  into?: string;
  signal?: AbortSignal;
  /** Called as bytes are written: done and total (declared) bytes, and the entry being written. */
  onProgress?: (done: number, total: number, entry: string) => void;
}

export interface ExtractResult {
  /** The folder the data is now in. */
  target: string;
  files: number;
  bytes: number;
  /** Entries not written, each with why (links, unsafe names, devices). */
  skipped: string[];
}

/** Bytes kept free on the disk beyond the archive's content. */
const FREE_MARGIN = 64 << 20;

/**
 * Extracts `file` into `<into>/<target>` (see `extractionTarget`) through a hidden temporary folder
 * renamed into place at the end (its one file, for an archive of one file). Refuses when the target exists (it is left as it is) or the disk
 * lacks the room the archive declares.
 */
export async function extractArchive(file: string, opts: ExtractOptions = {}): Promise<ExtractResult> {
  const listed = await listArchive(file);
  const into = path.resolve(opts.into ?? path.dirname(file));
  // A gzipped tar listed only in part goes into a folder named after it: its later entries may sit elsewhere.
  const { target, strip, file: one } = listed.complete ? extractionTarget(file, listed.entries) : { target: archiveStem(file), strip: false };
  const final = path.join(into, target);
  if (fs.existsSync(final)) throw new ArchiveError(`${file}: ${final} already exists; it was extracted before (delete or rename it to extract again)`);
  const declared = listed.entries.filter((e) => e.type === 'file').reduce((s, e) => s + e.size, 0);
  checkRoom(file, into, declared, !listed.complete);
  const tmp = fs.mkdtempSync(path.join(into, `.${target.slice(0, 80)}.extracting-`));
  const skipped: string[] = [];
  let files = 0, bytes = 0;
  const progress = (n: number, name: string) => { bytes += n; opts.onProgress?.(bytes, declared, name); };
  try {
    const place = (name: string, type: ArchiveEntry['type']): string | undefined => {
      if (JUNK.test(name)) return undefined;
      const safe = safeName(name);
      if (!safe) { if (type !== 'directory') skipped.push(`${name}: its name points outside the archive's folder`); return undefined; }
      if (type === 'link') { skipped.push(`${safe}: a link (links are not extracted)`); return undefined; }
      if (type === 'other') { skipped.push(`${safe}: not a regular file`); return undefined; }
      // Everything lands under tmp as it will under `final`: with one top folder, that folder is tmp.
      const rel = strip ? safe.split('/').slice(1).join('/') : safe;
      return rel ? path.join(tmp, ...rel.split('/')) : undefined;
    };
    if (kind(file) === 'zip') await extractZip(file, place, progress, opts.signal, () => files++);
    else await extractTar(file, place, progress, opts.signal, () => files++, into, listed.complete ? undefined : declared);
    opts.signal?.throwIfAborted();
    if (one) {
      fs.renameSync(path.join(tmp, target), final);
      fs.rmdirSync(tmp);
    } else {
      fs.renameSync(tmp, final);
    }
  } catch (e) {
    fs.rmSync(tmp, { recursive: true, force: true });
    if (opts.signal?.aborted) throw new ArchiveError(`${file}: extraction cancelled; nothing was written`);
    if (e instanceof ZipError || e instanceof TarError || e instanceof ArchiveError) throw new ArchiveError(`${e.message}; nothing was written`);
    throw new ArchiveError(`${file}: extraction failed (${(e as Error).message}); nothing was written`);
  }
  return { target: final, files, bytes, skipped };
}

function checkRoom(file: string, into: string, need: number, partial: boolean): void {
  let free: number;
  try {
    const s = fs.statfsSync(into);
    free = s.bavail * s.bsize;
  } catch {
    return;
  }
  if (need + FREE_MARGIN > free) {
    throw new ArchiveError(`${file}: extracting it needs ${mb(need)}${partial ? ' or more' : ''} and ${into} has ${mb(free)} free; make room or extract it elsewhere`);
  }
}

function mb(n: number): string {
  return n >= 1 << 30 ? `${(n / (1 << 30)).toFixed(1)} GB` : `${Math.max(1, Math.round(n / (1 << 20)))} MB`;
}

type Place = (name: string, type: ArchiveEntry['type']) => string | undefined;

/**
 * Writes one entry. Its source is made only once the destination is ready: a stream made before a
 * failure here would be left unread, and fail later on its own (its archive gone) with no one to hear.
 */
async function writeEntry(dest: string, source: () => NodeJS.ReadableStream | AsyncIterable<Buffer>, onBytes: (n: number) => void, signal?: AbortSignal): Promise<void> {
  fs.mkdirSync(path.dirname(dest), { recursive: true });
  // An archive holding the same name twice, or a file and a folder of one name: the first one stays.
  if (fs.existsSync(dest)) throw new ArchiveError(`${dest}: the archive holds this name twice`);
  // The source first (a damaged entry throws here), then the file, both handed to the pipeline at
  // once: a stream created and then abandoned would report its error to no one.
  const src = source();
  const out = fs.createWriteStream(dest, { flags: 'wx' });
  await pipeline(src as AsyncIterable<Buffer>, async function* (chunks: AsyncIterable<Buffer>) {
    for await (const c of chunks) { onBytes(c.length); yield c; }
  }, out, { signal });
}

async function extractZip(file: string, place: Place, progress: (n: number, name: string) => void, signal: AbortSignal | undefined, counted: () => void): Promise<void> {
  const fd = fs.openSync(file, 'r');
  try {
    const entries = readZipDirectory(fd, file);
    // Refused before anything is written: an entry this reader cannot inflate would leave a partial product.
    for (const e of entries) {
      const why = !e.directory && !e.symlink && !JUNK.test(e.name) && safeName(e.name) ? unreadableEntry(e) : undefined;
      if (why) throw new ArchiveError(`${file}: ${why}`);
    }
    for (const e of entries) {
      signal?.throwIfAborted();
      const dest = place(e.name, e.symlink ? 'link' : e.directory ? 'directory' : 'file');
      if (!dest) continue;
      if (e.directory) { fs.mkdirSync(dest, { recursive: true }); continue; }
      await writeEntry(dest, () => entryStream(file, fd, e, signal), (n) => progress(n, e.name), signal);
      counted();
    }
  } finally {
    fs.closeSync(fd);
  }
}

async function extractTar(file: string, place: Place, progress: (n: number, name: string) => void, signal: AbortSignal | undefined, counted: () => void, into: string, partialDeclared?: number): Promise<void> {
  const head = Buffer.alloc(2);
  const fd = fs.openSync(file, 'r');
  try { fs.readSync(fd, head, 0, 2, 0); } finally { fs.closeSync(fd); }
  const src = fs.createReadStream(file, { signal, highWaterMark: 1 << 20 });
  const reader = streamReader(isGzip(head) ? src.pipe(zlib.createGunzip()) : src, file);
  let written = 0;
  try {
    await walkHeaders(file, reader.read, async (e) => {
      signal?.throwIfAborted();
      const dest = place(e.name, e.type);
      if (!dest) return true;
      if (e.type === 'directory') { fs.mkdirSync(dest, { recursive: true }); return true; }
      // A gzipped tar's sizes are known only as its headers come: the room is checked as they do.
      if (partialDeclared !== undefined && (written += e.size) > partialDeclared) checkRoom(file, into, written - partialDeclared, false);
      async function* data(): AsyncGenerator<Buffer> {
        for (let at = 0; at < e.size;) {
          const n = Math.min(256 << 10, e.size - at);
          const b = await reader.read(e.offset + at, n);
          if (b.length < n) throw new TarError(`${file}: entry ${e.name} is cut short (the archive ends inside it)`);
          at += n;
          yield Buffer.from(b);
        }
      }
      await writeEntry(dest, data, (n) => progress(n, e.name), signal);
      counted();
      return true;
    });
  } finally {
    reader.close();
  }
}
