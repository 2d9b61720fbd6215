/**
 * Shared by the state, files, HTTP and concurrency abuse suites: a seeded random source, CLI runs
 * in child processes with a time bound, and the rules that turn a run into a tally outcome.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { spawn } from 'child_process';
import type { Outcome } from './tally';

export const repoRoot = (() => {
  let d = __dirname;
  while (!fs.existsSync(path.join(d, 'package.json'))) d = path.dirname(d);
  return d;
})();
export const CLI = path.join(repoRoot, 'bin', 'geoweave.js');
export const fixtureCatalog = path.join(repoRoot, 'test', 'fixtures', 'catalog');
/** The small fixture catalog instead of the builtin one: each child starts in a fraction of a second. */
export const CATALOG_ARGS = ['--no-builtin', '--manifests', fixtureCatalog];

/** mulberry32: the same seed gives the same trials on every machine. */
export function prng(seed: number): { next(): number; int(n: number): number; pick<T>(xs: readonly T[]): T } {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, int: (n) => Math.floor(next() * n), pick: (xs) => xs[Math.floor(next() * xs.length)] };
}

export function tmpDir(prefix = 'gw-abuse-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export interface ChildResult { status: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; ms: number; timedOut: boolean }

/** Runs `node args…` with a time bound (killed with SIGKILL after `timeoutMs`). */
export function runNode(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<ChildResult> {
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: opts.cwd, env: { ...process.env, GEOWEAVE_WORKERS: '0', ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { if (stdout.length < 1 << 20) stdout += d; });
    child.stderr.on('data', (d) => { if (stderr.length < 1 << 20) stderr += d; });
    let timedOut = false;
    const timer = setTimeout(() => { timedOut = true; child.kill('SIGKILL'); }, opts.timeoutMs ?? 30_000);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr, ms: Date.now() - t0, timedOut });
    });
  });
}

export function cli(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<ChildResult> {
  return runNode([CLI, ...args], opts);
}

/** Runs `fn` over `items`, `n` at a time (the machine has two cores). */
export async function pool<T>(items: readonly T[], n: number, fn: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}

/** Internal errors that reached the user instead of a message about the input. */
const INTERNAL = /TypeError|ReferenceError|RangeError|SyntaxError: Unexpected|is not iterable|Cannot read properties|is not a function|undefined is not|Maximum call stack|\n\s+at [^\n]+:\d+:\d+/;

/**
 * The outcome of one CLI run: `hang` past the bound, `crashed` on a signal (139 is SIGSEGV), an exit
 * status other than 0/1/2 or an internal error in the output, and an error that does not name any
 * of `mentions` (the file or argument the trial is about) when it failed.
 */
export function cliOutcome(r: ChildResult, mentions: string[] = []): { outcome: Outcome; detail?: string } {
  if (r.timedOut) return { outcome: 'hang', detail: `killed after ${r.ms} ms` };
  if (r.signal) return { outcome: 'crashed', detail: `signal ${r.signal}` };
  if (r.status !== 0 && r.status !== 1 && r.status !== 2) return { outcome: 'crashed', detail: `exit ${r.status}: ${r.stderr.slice(0, 300)}` };
  const internal = INTERNAL.exec(r.stderr);
  if (internal) return { outcome: 'crashed', detail: `internal error: ${r.stderr.slice(Math.max(0, internal.index - 100), internal.index + 200)}` };
  if (r.status !== 0 && mentions.length && !mentions.some((m) => r.stderr.includes(m))) return { outcome: 'crashed', detail: `error names none of ${mentions.join(', ')}: ${r.stderr.slice(0, 300)}` };
  return { outcome: 'handled' };
}

/** Temp, lock and stale-lock files left anywhere under `dir`. */
export function leftovers(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.tmp-|\.lock$|\.lock\.|\.stale-|\.probe-/.test(e.name)) out.push(p);
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out;
}

/** A marker written into files outside every folder a trial may touch; seeing it in any output is an escape. */
export const SECRET_MARKER = 'GW-ABUSE-SECRET-6f1d';
