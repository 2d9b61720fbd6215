/**
 * `learned.json` on disk: deep validation on read, a lock file around read-merge-write so that
 * concurrent writers (parallel `learn` runs, two VS Code windows on one folder) never lose each
 * other's updates, and unreadable files moved aside to a timestamped backup instead of being
 * overwritten.
 *
 * Counts are merged as deltas: what this process added since it last read the file (its counts
 * minus the decayed counts it read) goes on top of whatever the file holds now.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { randomBytes } from 'crypto';
import { jsonErrorMessage, processAlive, readRegularFile, removeStaleTemps, writeFileAtomic } from '../index/fs-util';
import type { Case } from './similar-cases';

const FORMAT_VERSION = 1;
const DAY_MS = 86_400_000;
/** A learned state this large is not one GeoWeave wrote (3000 cases and their counts stay near 1 MB). */
export const MAX_LEARNED_BYTES = 64 << 20;

interface Counts { s: number; f: number; t: number }
type Table = Record<string, Record<string, Counts>>;

/** The persisted learned state (the shape `IntentionGraph` keeps in memory). */
export interface LearnedStateData {
  version: number;
  halfLifeDays: number;
  transitions: Table;
  affinities: Table;
  cases?: Case[];
}

/** Per graph, the state as last read or written: what its own additions are measured against. */
export const savedBase = new WeakMap<object, LearnedStateData>();

/** A learned state file that is not a learned state; the message names the field and the file. */
export class LearnedStateError extends Error {}

/** An empty state whose tables have no prototype, so a tool id or term such as "constructor" is just a key. */
export function emptyLearnedState(halfLifeDays = 90): LearnedStateData {
  return { version: FORMAT_VERSION, halfLifeDays, transitions: Object.create(null), affinities: Object.create(null) };
}

/**
 * Checks every field of a parsed learned state and returns a clean copy (null-prototype tables,
 * at most `maxCases` newest cases). Throws LearnedStateError naming the first bad field.
 */
export function validateLearnedState(data: unknown, file: string, maxCases = Infinity): LearnedStateData {
  const bad = (where: string, what: string, got: unknown): never => {
    throw new LearnedStateError(`${file}: ${where} must be ${what}, got ${describe(got)}`);
  };
  if (!isPlainObject(data)) bad('the file', 'a JSON object {version, halfLifeDays, transitions, affinities, cases}', data);
  const d = data as Record<string, unknown>;
  if (d.version !== FORMAT_VERSION) bad('"version"', String(FORMAT_VERSION), d.version);
  const hl = d.halfLifeDays;
  if (typeof hl !== 'number' || !Number.isFinite(hl) || hl <= 0) bad('"halfLifeDays"', 'a positive number', hl);
  const out = emptyLearnedState(hl as number);
  for (const name of ['transitions', 'affinities'] as const) {
    const table = d[name];
    if (!isPlainObject(table)) bad(`"${name}"`, 'an object of objects of counts', table);
    for (const [a, row] of Object.entries(table as object)) {
      if (!isPlainObject(row)) bad(`${name}[${JSON.stringify(a)}]`, 'an object of counts', row);
      const clean: Record<string, Counts> = Object.create(null);
      for (const [b, c] of Object.entries(row as object)) {
        const where = `${name}[${JSON.stringify(a)}][${JSON.stringify(b)}]`;
        if (!isPlainObject(c)) bad(where, 'counts {s, f, t}', c);
        const { s, f, t } = c as Record<string, unknown>;
        if (!isCount(s)) bad(`${where}.s`, 'a finite number >= 0', s);
        if (!isCount(f)) bad(`${where}.f`, 'a finite number >= 0', f);
        if (typeof t !== 'number' || !Number.isFinite(t)) bad(`${where}.t`, 'a time in ms', t);
        clean[b] = { s: s as number, f: f as number, t: t as number };
      }
      out[name][a] = clean;
    }
  }
  if (d.cases !== undefined) {
    if (!Array.isArray(d.cases)) bad('"cases"', 'a list of flows [{terms, tools, t}]', d.cases);
    const cases = d.cases as unknown[];
    out.cases = cases.slice(Math.max(0, cases.length - maxCases)).map((c, k) => {
      const i = k + Math.max(0, cases.length - maxCases);
      if (!isPlainObject(c)) bad(`cases[${i}]`, 'a flow {terms, tools, t}', c);
      const { terms, tools, t, query } = c as Record<string, unknown>;
      if (!isStringList(terms)) bad(`cases[${i}].terms`, 'a list of strings', terms);
      if (!isStringList(tools)) bad(`cases[${i}].tools`, 'a list of tool ids', tools);
      if (typeof t !== 'number' || !Number.isFinite(t)) bad(`cases[${i}].t`, 'a time in ms', t);
      if (query !== undefined && typeof query !== 'string') bad(`cases[${i}].query`, 'the task text', query);
      return copyCase({ terms: terms as string[], tools: tools as string[], t: t as number, query: query as string | undefined });
    });
  }
  return out;
}

/** What reading `file` gave: a state, nothing (no file), or why it cannot be used. */
export type LearnedRead = { state: LearnedStateData } | { missing: true } | { problem: string };

export function readLearnedState(file: string, maxCases = Infinity): LearnedRead {
  let text: string;
  try {
    text = readRegularFile(file, MAX_LEARNED_BYTES).toString('utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { missing: true };
    return { problem: `${file}: cannot be read (${(e as Error).message})` };
  }
  let data: unknown;
  try {
    data = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (e) {
    return { problem: `${file}: not valid JSON (${jsonErrorMessage(e)})` };
  }
  try {
    return { state: validateLearnedState(data, file, maxCases) };
  } catch (e) {
    return { problem: (e as Error).message };
  }
}

/** A deep copy with null-prototype tables. */
export function cloneLearnedState(s: LearnedStateData): LearnedStateData {
  const out = emptyLearnedState(s.halfLifeDays);
  out.version = s.version;
  for (const name of ['transitions', 'affinities'] as const) {
    for (const a of Object.keys(s[name])) {
      const row: Record<string, Counts> = Object.create(null);
      for (const b of Object.keys(s[name][a])) row[b] = { ...s[name][a][b] };
      out[name][a] = row;
    }
  }
  if (s.cases) out.cases = s.cases.map(copyCase);
  return out;
}

/**
 * `disk` plus what `ours` added since `base` (the state `ours` started from): counts as decayed
 * deltas, cases that are new in `ours` appended (and the base's last case replaced when `ours`
 * extended it), newest `maxCases` kept.
 */
export function mergeLearned(disk: LearnedStateData, base: LearnedStateData, ours: LearnedStateData, maxCases: number): LearnedStateData {
  const out = cloneLearnedState(disk);
  out.halfLifeDays = ours.halfLifeDays;
  const decay = (from: number, to: number) => (to <= from ? 1 : Math.pow(0.5, (to - from) / (ours.halfLifeDays * DAY_MS)));
  const same = (x: Counts | undefined, y: Counts | undefined) => !!x && !!y && x.s === y.s && x.f === y.f && x.t === y.t;
  for (const name of ['transitions', 'affinities'] as const) {
    for (const a of Object.keys(ours[name])) {
      for (const b of Object.keys(ours[name][a])) {
        const o = ours[name][a][b];
        const b0 = own(base[name], a, b);
        if (same(o, b0)) continue;
        const row = (out[name][a] ??= Object.create(null) as Record<string, Counts>);
        const d = own(disk[name], a, b);
        // Nobody else changed this pair since we read it: ours is exact.
        if (d && b0 && same(d, b0)) {
          row[b] = { ...o };
          continue;
        }
        const k = b0 ? decay(b0.t, o.t) : 0;
        const ds = Math.max(0, o.s - (b0?.s ?? 0) * k);
        const df = Math.max(0, o.f - (b0?.f ?? 0) * k);
        if (!d) {
          row[b] = { s: ds, f: df, t: o.t };
          continue;
        }
        const t = Math.max(d.t, o.t);
        row[b] = { s: d.s * decay(d.t, t) + ds * decay(o.t, t), f: d.f * decay(d.t, t) + df * decay(o.t, t), t };
      }
    }
  }
  const key = (c: Case) => JSON.stringify([c.terms, c.tools, c.t]);
  const baseCases = base.cases ?? [];
  const baseKeys = new Set(baseCases.map(key));
  const oursCases = ours.cases ?? [];
  const fresh = oursCases.filter((c) => !baseKeys.has(key(c)));
  if (fresh.length || out.cases) {
    let replaced: string | undefined;
    const last = baseCases[baseCases.length - 1];
    if (last && fresh.length) {
      const lastKey = key(last);
      const first = fresh[0];
      const extended = !oursCases.some((c) => key(c) === lastKey) && first.t >= last.t &&
        sameSet(first.terms, last.terms) && last.tools.every((t, i) => first.tools[i] === t);
      if (extended) replaced = lastKey;
    }
    const merged = [...(out.cases ?? []).filter((c) => key(c) !== replaced), ...fresh.map(copyCase)];
    // Stable: cases of equal time keep their order; the newest stay last (the next flow may extend them).
    merged.sort((x, y) => x.t - y.t);
    out.cases = merged.slice(Math.max(0, merged.length - maxCases));
  }
  return out;
}

/** Options of `saveLearnedState`. */
export interface SaveOptions {
  maxCases: number;
  log?: (level: 'info' | 'warn' | 'error', msg: string) => void;
  /** How long to wait for another writer's lock (default 10 s). */
  lockTimeoutMs?: number;
}

/**
 * Writes `ours` into `file` under the lock: re-reads the file, merges what `ours` added since
 * `base`, writes through a temp file and rename. A file that cannot be read is moved to a
 * timestamped backup first (and `base` stands in for it). Returns the state written.
 */
export function saveLearnedState(file: string, ours: LearnedStateData, base: LearnedStateData, opts: SaveOptions): LearnedStateData {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  return withFileLock(`${file}.lock`, () => {
    removeStaleTemps(file);
    removeStaleTemps(`${file}.lock`);
    const read = readLearnedState(file);
    let disk: LearnedStateData;
    if ('state' in read) disk = read.state;
    else if ('missing' in read) disk = emptyLearnedState(ours.halfLifeDays);
    else {
      const backup = moveAside(file);
      opts.log?.('warn', `${read.problem}; moved it to ${backup} and saved a fresh learned state`);
      disk = base;
    }
    const merged = mergeLearned(disk, base, ours, opts.maxCases);
    writeFileAtomic(file, JSON.stringify(merged) + '\n');
    return merged;
  }, opts.lockTimeoutMs);
}

/** Renames `file` to `<file>.unreadable-<UTC time>` and returns the new path. */
export function moveAside(file: string): string {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  let backup = `${file}.unreadable-${stamp}`;
  for (let i = 2; fs.existsSync(backup); i++) backup = `${file}.unreadable-${stamp}-${i}`;
  fs.renameSync(file, backup);
  return backup;
}

/** A lock held longer than this is taken to be left by a process that died (a save takes milliseconds). */
const STALE_LOCK_MS = 30_000;

interface LockInfo { pid: number; host: string; time: number; token: string }

/**
 * Runs `fn` while holding `lockFile`. The lock is a small file created atomically (link of a
 * complete temp file, which fails when the lock exists). A lock whose process is gone (same host)
 * or that is older than STALE_LOCK_MS is broken. Throws when the lock stays held past `timeoutMs`.
 */
export function withFileLock<T>(lockFile: string, fn: () => T, timeoutMs = 10_000): T {
  const info: LockInfo = { pid: process.pid, host: os.hostname(), time: Date.now(), token: randomBytes(8).toString('hex') };
  const deadline = Date.now() + timeoutMs;
  let wait = 5;
  for (;;) {
    if (tryLock(lockFile, info)) break;
    const holder = readLock(lockFile);
    if (holder && isStale(lockFile, holder)) {
      breakLock(lockFile, holder);
      continue;
    }
    if (Date.now() >= deadline) {
      const who = holder ? `process ${holder.pid} on ${holder.host} since ${new Date(holder.time).toISOString()}` : 'another process';
      throw new Error(`${lockFile} is held by ${who}; if no GeoWeave is running, delete the lock file`);
    }
    sleep(wait + Math.random() * wait);
    wait = Math.min(100, wait * 2);
  }
  try {
    return fn();
  } finally {
    const now = readLock(lockFile);
    if (now?.token === info.token) fs.rmSync(lockFile, { force: true });
  }
}

function tryLock(lockFile: string, info: LockInfo): boolean {
  const tmp = `${lockFile}.${info.pid}-${info.token}`;
  fs.writeFileSync(tmp, JSON.stringify(info), { flag: 'wx' });
  try {
    fs.linkSync(tmp, lockFile);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/** The lock's content; a lock that is not a small regular file with our fields reads as foreign (token ''). */
function readLock(lockFile: string): LockInfo | undefined {
  let text: string;
  try {
    text = readRegularFile(lockFile, 4096).toString('utf8');
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : { pid: -1, host: '', time: 0, token: '' };
  }
  try {
    const o = JSON.parse(text);
    if (o && typeof o.pid === 'number' && typeof o.host === 'string' && typeof o.time === 'number' && typeof o.token === 'string') return o;
  } catch {
    // half-written or foreign: judged by its age
  }
  return { pid: -1, host: '', time: 0, token: '' };
}

/** Dead holder on this host, or a lock file not touched for STALE_LOCK_MS (its mtime, not its claimed time). */
function isStale(lockFile: string, holder: LockInfo): boolean {
  if (holder.host === os.hostname() && holder.pid > 0 && !processAlive(holder.pid)) return true;
  try {
    return Date.now() - fs.lstatSync(lockFile).mtimeMs > STALE_LOCK_MS;
  } catch {
    return false;
  }
}

/** Moves the stale lock away; if what was moved turns out to be a fresh lock (a race), puts it back. */
function breakLock(lockFile: string, stale: LockInfo): void {
  const moved = `${lockFile}.${process.pid}-${randomBytes(6).toString('hex')}`;
  try {
    fs.renameSync(lockFile, moved);
  } catch {
    return;
  }
  const got = readLock(moved);
  if (got && got.token !== stale.token) {
    try { fs.linkSync(moved, lockFile); } catch { /* a newer lock exists; ours to drop */ }
  }
  fs.rmSync(moved, { force: true });
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function isPlainObject(v: unknown): v is object {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

function isCount(v: unknown): boolean {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0;
}

function isStringList(v: unknown): boolean {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

function own(table: Table, a: string, b: string): Counts | undefined {
  const row = Object.hasOwn(table, a) ? table[a] : undefined;
  return row && Object.hasOwn(row, b) ? row[b] : undefined;
}

function sameSet(a: string[], b: string[]): boolean {
  const x = new Set(a);
  return x.size === new Set(b).size && b.every((v) => x.has(v));
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'an object';
  const s = JSON.stringify(v) ?? String(v);
  return `${typeof v} ${s.length > 40 ? s.slice(0, 40) + '…' : s}`;
}

/** A case with its own arrays; the task text is kept when there is one (a fusion fit replays it). */
function copyCase(c: Case): Case {
  return { terms: [...c.terms], tools: [...c.tools], t: c.t, ...(typeof c.query === 'string' ? { query: c.query } : {}) };
}
