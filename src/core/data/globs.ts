/**
 * File-name patterns, one implementation for every place that takes them: a notebook batch
 * (`image: scenes/*.tif`), a list input in a cell (`images: ndvi/*.tif`) and the engine's list
 * parameters (`geoweave run median_composite --arg 'images=scenes/*.tif'`), so a pattern means
 * the same files in a cell and on the command line. Pure: Node's fs, no VS Code, no raster engine.
 *
 * `*` and `?` match within a name, `**` any number of folders. Hidden files and folders are
 * matched only when the pattern names them (so `**` does not enter `.geoweave/outputs`); `**`
 * does not follow symlinked folders. Matches are sorted by their path relative to the folder the
 * pattern is read from (code points: the same order on every machine).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Directory entries a pattern may look at before it gives up (a `**` from the file-system root). */
export const MAX_GLOB_ENTRIES = 200_000;

/** A pattern made GeoWeave look at more than `maxEntries` directory entries. */
export class GlobLimitError extends Error {}

/** A pattern: `*` or `?` in a local path (a URL's `?` is its query). */
export function isGlob(s: string): boolean {
  return !/^[a-z][a-z0-9+.-]*:\/\//i.test(s.trim()) && /[*?]/.test(s);
}

function segmentRegex(seg: string): RegExp {
  const body = seg.split('').map((c) => (c === '*' ? '[^/]*' : c === '?' ? '[^/]' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${body}$`);
}

export interface GlobOptions {
  /** Directory entries looked at before GlobLimitError (default MAX_GLOB_ENTRIES). */
  maxEntries?: number;
  /** Stop searching once more than this many files matched (the caller refuses that many). */
  maxMatches?: number;
}

/** A pattern's segments, and the folder it is read from: its literal leading folders (the first
 *  `start` segments, joined, not searched) onto `cwd`, or the root for an absolute pattern. */
function parse(pattern: string, cwd: string): { segs: string[]; base: string; start: number } {
  const p = pattern.trim().replace(/\\/g, '/');
  const segs = p.split('/').filter((s, i) => s !== '' && !(s === '.' && i > 0));
  let base = path.isAbsolute(p) ? path.parse(path.resolve(p)).root : cwd;
  let start = 0;
  while (start < segs.length - 1 && !/[*?]/.test(segs[start])) base = path.join(base, segs[start++]);
  return { segs, base, start };
}

/** The folder a pattern is read from: its literal leading folders joined onto `cwd` (or the root). */
export function globBase(pattern: string, cwd: string): string {
  return parse(pattern, cwd).base;
}

/** Files matching `pattern` (relative to `cwd`, or absolute), as absolute paths, sorted. */
export function expandGlob(pattern: string, cwd: string, opts: GlobOptions = {}): string[] {
  const maxEntries = opts.maxEntries ?? MAX_GLOB_ENTRIES;
  const maxMatches = opts.maxMatches ?? Infinity;
  const { segs, base, start } = parse(pattern, cwd);
  const found = new Set<string>();
  let seen = 0;
  const isDir = (f: string) => { try { return fs.statSync(f).isDirectory(); } catch { return false; } };
  const isFile = (f: string) => { try { return fs.statSync(f).isFile(); } catch { return false; } };
  const list = (dir: string): fs.Dirent[] => {
    try {
      const e = fs.readdirSync(dir, { withFileTypes: true });
      seen += e.length;
      if (seen > maxEntries) throw new GlobLimitError(`the pattern "${pattern}" makes GeoWeave look at more than ${maxEntries} files and folders under ${base}; start it with the folder the inputs are in`);
      return e;
    } catch (err) {
      if (err instanceof GlobLimitError) throw err;
      return [];
    }
  };
  const walk = (dir: string, k: number): void => {
    if (found.size > maxMatches) return;
    if (k === segs.length) { if (isFile(dir)) found.add(dir); return; }
    const seg = segs[k];
    if (seg === '**') {
      walk(dir, k + 1);
      for (const e of list(dir)) if (e.isDirectory() && !e.name.startsWith('.')) walk(path.join(dir, e.name), k);
      return;
    }
    if (!/[*?]/.test(seg)) {
      const next = path.join(dir, seg);
      if (k === segs.length - 1 ? isFile(next) : isDir(next)) walk(next, k + 1);
      return;
    }
    const re = segmentRegex(seg);
    for (const e of list(dir)) {
      if (e.name.startsWith('.') && !seg.startsWith('.')) continue;
      if (!re.test(e.name)) continue;
      const next = path.join(dir, e.name);
      if (k === segs.length - 1 ? isFile(next) : isDir(next)) walk(next, k + 1);
    }
  };
  walk(base, start);
  const rel = (f: string) => path.relative(cwd, f).split(path.sep).join('/');
  return [...found].sort((a, b) => (rel(a) < rel(b) ? -1 : rel(a) > rel(b) ? 1 : 0));
}
