/** File-name patterns in list arguments ("scenes/s2_*.tif"), expanded by the engine for parameters
 *  that allow them, so a tool receives the files themselves (and provenance hashes those). The
 *  patterns are read by core/data/globs.ts, as a notebook cell reads them: `*` and `?` within a
 *  name, `**` any folders, hidden files only when named, sorted by path. */
import * as fs from 'node:fs';
import { GlobLimitError, expandGlob, globBase, isGlob } from '../data/globs';

/**
 * Expands each pattern among absolute paths (matches sorted); plain paths and URLs pass through.
 * Throws prefixed with `where` (tool and argument) for a missing folder, a pattern that matches
 * nothing, or one that looks at too many directory entries.
 */
export function expandGlobs(list: string[], where: string): string[] {
  const out: string[] = [];
  for (const p of list) {
    if (!isGlob(p)) { out.push(p); continue; }
    let hits: string[];
    try {
      hits = expandGlob(p, '/');
    } catch (e) {
      throw e instanceof GlobLimitError ? new Error(`${where}: ${e.message}`) : e;
    }
    if (!hits.length) {
      const dir = globBase(p, '/');
      const exists = (() => { try { return fs.statSync(dir).isDirectory(); } catch { return false; } })();
      throw new Error(exists ? `${where}: "${p}" matches no file in ${dir}` : `${where}: folder ${dir} of "${p}" does not exist`);
    }
    out.push(...hits);
  }
  return out;
}
