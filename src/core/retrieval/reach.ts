/**
 * Which of a catalog's manifest folders a team's flows reach. The extension loads the builtin
 * catalog beside a team's own; a QGIS export sits beside the tools a unit wrote. Text matches
 * cannot tell a folder the team never runs from the one it works in: a 20-flow municipal team's
 * tasks matched builtin tools as well as its own, the matches were relative to the best of them,
 * and its own tools lost the text parts (R@10 0.396 against 0.459 with the builtin tools' text
 * weighed by their folder's reach, `bench/README.md`).
 */
import * as fs from 'fs';
import * as path from 'path';
import { readRegularFile, writeFileAtomic } from '../index/fs-util';

/** Steps added to a folder's observed and expected steps alike: a few steps say little either way. */
export const REACH_PRIOR_STEPS = 3;
/** A folder counts in full once its tools run at this fraction of the catalog's rate per tool. */
export const REACH_FULL = 0.5;

/** A learned flow: its tools and when it was recorded (ms). */
export interface TimedFlow { tools: readonly string[]; t: number }

/**
 * Per tool, the factor its folder's reach puts on its text match (only tools below 1 are listed).
 * A folder of n of the catalog's N tools is judged on the flows recorded since it was first seen
 * (`since`, ms; a folder added last week is not judged on last year's flows): the steps its tools
 * ran against the steps they would have run at the catalog's average rate per tool (those flows'
 * steps · n / N), REACH_PRIOR_STEPS added to both, over REACH_FULL, capped at 1. One folder, or
 * no flows: none. 20 flows (130 steps) that never ran the builtin folder (64 of 193 tools) put
 * 0.13 on it; a team that runs it a third of the time keeps it whole; a one-tool folder 30 steps
 * never ran is kept whole (0.46 steps expected).
 */
export function folderReach(folderOf: Map<string, string>, flows: Iterable<TimedFlow>, since: Map<string, number> = new Map()): Map<string, number> {
  const size = new Map<string, number>();
  for (const f of folderOf.values()) size.set(f, (size.get(f) ?? 0) + 1);
  const out = new Map<string, number>();
  if (size.size < 2) return out;
  const ran = new Map<string, number>();
  const judged = new Map<string, number>();
  const counts = (f: string, t: number) => t >= (since.get(f) ?? -Infinity);
  for (const flow of flows) {
    const steps = flow.tools.filter((id) => folderOf.has(id)).length;
    for (const f of size.keys()) if (counts(f, flow.t)) judged.set(f, (judged.get(f) ?? 0) + steps);
    for (const id of flow.tools) {
      const f = folderOf.get(id);
      if (f !== undefined && counts(f, flow.t)) ran.set(f, (ran.get(f) ?? 0) + 1);
    }
  }
  const factor = new Map<string, number>();
  for (const [f, n] of size) {
    const expected = ((judged.get(f) ?? 0) * n) / folderOf.size;
    factor.set(f, Math.min(1, ((ran.get(f) ?? 0) + REACH_PRIOR_STEPS) / (expected + REACH_PRIOR_STEPS) / REACH_FULL));
  }
  for (const [id, f] of folderOf) {
    const v = factor.get(f)!;
    if (v < 1) out.set(id, v);
  }
  return out;
}

/** One line on a folder whose text matches are weighed down (`index stats`, the extension log). */
export function describeReach(f: { folder: string; tools: number; reach: number }): string {
  return `${f.folder} (${f.tools} tools)${f.reach < 1 ? `: text matches weighed ${f.reach.toFixed(2)}, your flows seldom run its tools` : ''}`;
}

/** The file in the learned folder that keeps when each manifest folder was first seen. */
export const FOLDERS_FILE = 'folders.json';
/** A folder path and a time per folder: far under a megabyte for any real catalog. */
const MAX_FOLDERS_BYTES = 1 << 20;

/**
 * When each of `folders` was first seen (ms), kept in `dir`/folders.json: folders new to it are
 * added at `now` and the file rewritten (atomically). Where there is no file yet (or it is
 * unreadable) the folders there are taken to have been there all along (0: judged on every flow).
 */
export function foldersSince(dir: string, folders: Iterable<string>, now: number, warn: (m: string) => void): Map<string, number> {
  const file = path.join(dir, FOLDERS_FILE);
  // No prototype: keys are whatever the file holds.
  let known: Record<string, number> = Object.create(null) as Record<string, number>;
  let fresh = !fs.existsSync(file);
  try {
    if (!fresh) {
      // A state file, read as the others are: a regular file (no symbolic link) of bounded size.
      const data = JSON.parse(readRegularFile(file, MAX_FOLDERS_BYTES).toString('utf8')) as unknown;
      if (data && typeof data === 'object' && !Array.isArray(data)) for (const [k, v] of Object.entries(data)) if (typeof v === 'number' && Number.isFinite(v)) known[k] = v;
    }
  } catch (e) {
    warn(`${file} is unreadable (${(e as Error).message}); every manifest folder is judged on every learned flow`);
    known = Object.create(null) as Record<string, number>;
    fresh = true;
  }
  let added = false;
  for (const f of folders) {
    if (known[f] === undefined) {
      known[f] = fresh ? 0 : now;
      added = true;
    }
  }
  if (added) {
    try {
      writeFileAtomic(file, JSON.stringify(known, null, 1));
    } catch (e) {
      warn(`cannot save ${file}: ${(e as Error).message}`);
    }
  }
  return new Map(Object.entries(known));
}
