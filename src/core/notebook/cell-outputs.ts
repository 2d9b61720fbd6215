/** Where a tool cell writes its outputs: a folder of its own, so two cells of the same tool never
 *  overwrite each other's files and an earlier cell's `$ref` keeps pointing at its own file. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { insideScope } from './references';

/** A folder name from free text: letters, digits, `_`, `-`, `.` (no leading dot), at most 64 characters. */
export function safeSegment(s: string): string {
  const t = s.normalize('NFC').replace(/[^\p{L}\p{M}\p{N}_.-]+/gu, '_').replace(/^[._]+/, '').slice(0, 64);
  return t || 'cell';
}

/**
 * `<outputs>/<notebook>/<alias>` for a cell named `tool as alias` that no other cell of the notebook
 * shares, else `<outputs>/<notebook>/<tool>-<cell id>`.
 */
export function cellOutputFolder(outputRoot: string, notebookFile: string, cell: { tool: string; alias?: string; id: string }, aliasShared: boolean): string {
  const nb = safeSegment(path.basename(notebookFile).replace(/\.geonb$/i, ''));
  const key = cell.alias && !aliasShared ? safeSegment(cell.alias) : `${safeSegment(cell.tool)}-${safeSegment(cell.id)}`;
  return path.join(outputRoot, nb, key);
}

/**
 * Files of a cell's previous run that its new run no longer produces: removed, when they lie in the
 * cell's own folder or in an item folder of it (a batch run; the item folder goes too once empty).
 * Files elsewhere may belong to other cells or to the analyst.
 */
export async function removeStaleOutputs(folder: string, previous: string[], current: string[]): Promise<string[]> {
  const keep = new Set(current.map((p) => path.resolve(p)));
  const removed: string[] = [];
  const root = path.resolve(folder);
  const emptied = new Set<string>();
  for (const p of previous) {
    const file = path.resolve(p);
    const dir = path.dirname(file);
    const inItem = dir !== root && path.dirname(dir) === root;
    if (keep.has(file) || !insideScope(file, [folder]) || (dir !== root && !inItem)) continue;
    try { await fs.promises.rm(file, { force: true }); removed.push(file); if (inItem) emptied.add(dir); } catch { /* gone already */ }
  }
  for (const d of emptied) { try { await fs.promises.rmdir(d); } catch { /* not empty: other files stay */ } }
  return removed;
}
