/**
 * Input hashes kept between processes. Every run records the SHA-256 of its inputs (provenance);
 * each `geoweave run` is a fresh process, so without a cache on disk a 641 MB scene is read whole
 * again by every run, even by a clip that needs a quarter of it. As build tools and git's index
 * do, a file whose path, size, modification time, change time and inode are unchanged is taken to
 * hold the bytes it held. The file lives in the user's cache folder (GEOWEAVE_CACHE_DIR, else
 * $XDG_CACHE_HOME/geoweave, else ~/.cache/geoweave); GEOWEAVE_HASH_CACHE=off turns it off. It is
 * only ever a cache: an unreadable or foreign file is ignored and rewritten.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeFileAtomic } from '../index/fs-util';

/** Entries kept (least recently written dropped first). */
const MAX_ENTRIES = 4096;
const FORMAT = 'geoweave-input-hashes/1';

type Entries = Record<string, string>;

export function hashCacheFile(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if ((env.GEOWEAVE_HASH_CACHE ?? '').toLowerCase() === 'off') return undefined;
  const dir = env.GEOWEAVE_CACHE_DIR || path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'geoweave');
  return path.join(dir, 'input-hashes.json');
}

/** The key of a file's current state: any write, replacement or move changes it. */
export function statKey(file: string, st: fs.Stats): string {
  return `${file}\0${st.size}\0${st.mtimeMs}\0${st.ctimeMs}\0${st.ino}`;
}

let loaded: { file: string; entries: Entries } | undefined;

function entries(file: string): Entries {
  if (loaded?.file === file) return loaded.entries;
  let e: Entries = {};
  try {
    const j = JSON.parse(fs.readFileSync(file, 'utf8')) as { format?: unknown; entries?: unknown };
    if (j.format === FORMAT && j.entries && typeof j.entries === 'object') {
      for (const [k, v] of Object.entries(j.entries as Record<string, unknown>)) if (typeof v === 'string' && /^[0-9a-f]{64}$/.test(v)) e[k] = v;
    }
  } catch { e = {}; }
  loaded = { file, entries: e };
  return e;
}

let parsed: { file: string; text: string | null; entries?: Record<string, unknown> | null } | undefined;

const PREFIX = `{"format":${JSON.stringify(FORMAT)},"entries":{`;

/**
 * The hash recorded for `key`, if any. Only that entry is checked: the whole file is validated (every
 * entry against the hash pattern, ~4000 of them when it is full) only when it is rewritten, as a run that
 * finds its inputs here does not rewrite it. The file as this module writes it (JSON.stringify, no
 * spaces) is searched for the key's own serialisation instead of parsed: a full cache is ~750 KB, whose
 * JSON.parse took ~7 ms of every run; anything else (another layout, a key that could be mistaken inside
 * another one) is parsed as before.
 */
export function cachedHash(key: string, file = hashCacheFile()): string | undefined {
  if (!file) return undefined;
  if (loaded?.file === file) return Object.prototype.hasOwnProperty.call(loaded.entries, key) ? loaded.entries[key] : undefined;
  if (parsed?.file !== file) {
    let text: string | null = null;
    try { text = fs.readFileSync(file, 'utf8'); } catch { text = null; }
    parsed = { file, text };
  }
  const text = parsed.text;
  if (text === null) return undefined;
  if (parsed.entries === undefined && text.startsWith(PREFIX)) {
    const needle = `${JSON.stringify(key)}:"`;
    const at = text.indexOf(needle, PREFIX.length - 1);
    // Absent: the entry, if there were one, would contain the needle.
    if (at < 0) return undefined;
    // A key starts right after "{" or ","; a hit inside another key (after an escaped quote) is left to JSON.parse.
    if (text[at - 1] === '{' || text[at - 1] === ',') {
      const v = text.slice(at + needle.length, at + needle.length + 64);
      return /^[0-9a-f]{64}$/.test(v) && text[at + needle.length + 64] === '"' ? v : undefined;
    }
  }
  if (parsed.entries === undefined) {
    let e: Record<string, unknown> | null = null;
    try {
      const j = JSON.parse(text) as { format?: unknown; entries?: unknown };
      if (j && j.format === FORMAT && j.entries && typeof j.entries === 'object' && !Array.isArray(j.entries)) e = j.entries as Record<string, unknown>;
    } catch { e = null; }
    parsed.entries = e;
  }
  const e = parsed.entries;
  if (!e || !Object.prototype.hasOwnProperty.call(e, key)) return undefined;
  const v = e[key];
  return typeof v === 'string' && /^[0-9a-f]{64}$/.test(v) ? v : undefined;
}

/** Records a hash (written to a temp file, then renamed; a failure to write is not an error). */
export function rememberHash(key: string, sha256: string, file = hashCacheFile()): void {
  if (!file) return;
  // Another process may have added entries since this one read the file: merge them in.
  loaded = undefined; parsed = undefined;
  const e = entries(file);
  delete e[key];
  e[key] = sha256;
  const keys = Object.keys(e);
  for (const k of keys.slice(0, Math.max(0, keys.length - MAX_ENTRIES))) delete e[k];
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    writeFileAtomic(file, JSON.stringify({ format: FORMAT, entries: e }));
  } catch { /* a read-only home keeps hashing every run, as before */ }
}
