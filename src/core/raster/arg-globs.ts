/** File-name patterns in list arguments ("scenes/s2_*.tif"), expanded by the engine for parameters
 *  that allow them, so a tool receives the files themselves (and provenance hashes those). */
import * as fs from 'node:fs';

/**
 * Expands "*" / "?" in the file-name part of each absolute path (matches sorted); plain paths and
 * URLs pass through. Throws prefixed with `where` (tool and argument) for a pattern in a folder name,
 * a missing folder, or a pattern that matches nothing.
 */
export function expandGlobs(list: string[], where: string): string[] {
  const out: string[] = [];
  for (const p of list) {
    const name = p.split(/[\\/]/).pop() ?? p;
    if (!/[*?]/.test(name) || /^[a-z][a-z0-9+.-]*:\/\//i.test(p)) { out.push(p); continue; }
    const dir = p.slice(0, p.length - name.length) || '.';
    if (/[*?]/.test(dir)) throw new Error(`${where}: "${p}" has a wildcard in a folder name; only the file name may have * or ?`);
    const re = new RegExp(`^${name.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
    let names: string[];
    try { names = fs.readdirSync(dir); } catch { throw new Error(`${where}: folder ${dir} of "${p}" does not exist`); }
    const hits = names.filter((f) => re.test(f)).sort();
    if (!hits.length) throw new Error(`${where}: "${p}" matches no file in ${dir}`);
    out.push(...hits.map((f) => dir.replace(/[\\/]$/, '') + '/' + f));
  }
  return out;
}
