/**
 * Runs hostile trials in a child process so a crash, a stack overflow, runaway memory or a hang is
 * observed rather than suffered: one long-lived child runs trials one after another; a trial that
 * outlives its time bound gets the child killed (a hang), a child that dies is a crash, and a fresh
 * child takes the next trial. `judge` turns what happened into a Tally outcome.
 */
import { fork, ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as os from 'node:os';
import { Tally, type Outcome } from './tally';

/** One operation for the child (see abuse-child.ts). */
export type Op =
  | { kind: 'runTool'; tool: string; args: Record<string, unknown>; outDir: string; cwd?: string }
  | { kind: 'read'; file: string }
  | { kind: 'process'; manifest: unknown; args: Record<string, unknown>; outDir: string; cwd?: string }
  /** Extract an archive into `into`; the result lists every file now under `into`. */
  | { kind: 'extract'; file: string; into: string }
  /** Keys on the built-in prototypes (pollution shows up here). */
  | { kind: 'probe' }
  /** The data scan of a folder (core/data/scan.ts); the result's stats list the items and the unreadable files. */
  | { kind: 'scan'; dir: string };

export interface TrialResult {
  status: 'ok' | 'error' | 'died' | 'timeout';
  message?: string;
  errorName?: string;
  result?: { outputs?: Record<string, { path: string; style?: string; sidecar?: string }>; quicklook?: string; summary?: string; stats?: Record<string, unknown> };
  /** Peak resident memory of the child so far, MB. */
  rssMB?: number;
  ms: number;
}

const CHILD = path.join(__dirname, 'abuse-child.js');
/** A trial that takes the child above this is a crash in waiting (the issue saw 7.9 GB and 19 GB). */
export const RSS_LIMIT_MB = 1500;

export class TrialRunner {
  private child: ChildProcess | null = null;
  private seq = 0;
  private peakMB = 0;
  constructor(private readonly defaultTimeoutMs = 15_000) {}

  private spawn(): ChildProcess {
    const c = fork(CHILD, [], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], serialization: 'advanced' });
    c.stderr?.resume();
    this.peakMB = 0;
    return c;
  }

  async run(op: Op, timeoutMs = this.defaultTimeoutMs): Promise<TrialResult> {
    if (!this.child || this.child.exitCode !== null || this.child.signalCode !== null) this.child = this.spawn();
    const child = this.child;
    const id = ++this.seq;
    const t0 = Date.now();
    const r = await new Promise<TrialResult>((resolve) => {
      const done = (x: Omit<TrialResult, 'ms'>) => { cleanup(); resolve({ ...x, ms: Date.now() - t0 }); };
      const onMsg = (m: any) => { if (m?.id === id) done(m.ok ? { status: 'ok', result: m.result, rssMB: m.rssMB } : { status: 'error', message: m.message, errorName: m.name, rssMB: m.rssMB }); };
      const onExit = (code: number | null, sig: string | null) => done({ status: 'died', message: `child exited (code ${code}, signal ${sig})` });
      const timer = setTimeout(() => { child.kill('SIGKILL'); done({ status: 'timeout', message: `no answer after ${timeoutMs} ms` }); }, timeoutMs);
      const cleanup = () => { clearTimeout(timer); child.off('message', onMsg); child.off('exit', onExit); };
      child.on('message', onMsg);
      child.on('exit', onExit);
      child.send({ id, op });
    });
    if (r.status === 'died' || r.status === 'timeout') this.child = null;
    // maxRSS only grows: a trial that pushes it over the limit is flagged, then the child is replaced.
    if (r.rssMB !== undefined && r.rssMB > RSS_LIMIT_MB) { this.child?.kill('SIGKILL'); this.child = null; }
    return r;
  }

  /** Pid of the child that runs the next trial (started now when there is none). */
  childPid(): number {
    if (!this.child || this.child.exitCode !== null || this.child.signalCode !== null) this.child = this.spawn();
    return this.child.pid!;
  }

  close(): void { this.child?.kill('SIGKILL'); this.child = null; }
}

/** Every file and folder under `dir` (relative paths, hidden ones included, links not followed). */
export function listTree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    let entries: fs.Dirent[];
    try { entries = fs.readdirSync(d, { withFileTypes: true }); } catch { return; }
    for (const e of entries) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      out.push(r);
      if (e.isDirectory() && !e.isSymbolicLink()) walk(path.join(d, e.name), r);
    }
  };
  walk(dir, '');
  return out.sort();
}

/** Content fingerprint of a folder: path → sha256 of file content (links by their target). */
export function fingerprint(dir: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const rel of listTree(dir)) {
    const p = path.join(dir, rel);
    const st = fs.lstatSync(p);
    if (st.isSymbolicLink()) m.set(rel, `link:${fs.readlinkSync(p)}`);
    else if (st.isFile()) m.set(rel, createHash('sha256').update(fs.readFileSync(p)).digest('hex'));
    else m.set(rel, 'dir');
  }
  return m;
}

export function sameFingerprint(a: Map<string, string>, b: Map<string, string>): string | null {
  for (const [k, v] of a) if (b.get(k) !== v) return `${k} ${b.has(k) ? 'changed' : 'removed'}`;
  for (const k of b.keys()) if (!a.has(k)) return `${k} appeared`;
  return null;
}

/** Signs of a programming error rather than a message written for the user. */
const INTERNAL = /(Cannot read propert|is not a function|is not iterable|undefined is not|Maximum call stack|Invalid array length|Array buffer allocation failed|out of memory|^RangeError|^TypeError)/;

export interface Expect {
  /** Strings of which the error message must contain at least one (the file, the argument). */
  names: string[];
  /** Output folder: as before after a failure; only the reported outputs added after a success. */
  outDir?: string;
  /** What the output folder held before the trial (default: nothing). */
  outDirBefore?: string[];
  /** Folders that must not change at all (inputs, the world outside the output folder). */
  frozen?: { dir: string; before: Map<string, string> }[];
  /** Folders searched for left-over temp files and staging folders. */
  tempRoots?: string[];
  /** True when the trial must fail (a success is then a crash: the hostile input was not noticed). */
  mustFail?: boolean;
  /** True when the trial must succeed (an intact raster beside a hostile sidecar: the sidecar is ignored, not fatal). */
  mustSucceed?: boolean;
  /** Checks a successful result; returns a problem ("escape: ..." for an escape) or null. */
  check?: (r: TrialResult) => string | null;
}

/** Classifies one trial and adds it to the tally; returns the outcome. */
export function judge(tally: Tally, area: string, input: string, r: TrialResult, x: Expect): Outcome {
  const add = (o: Outcome, detail?: string) => { tally.add(area, input, o, detail); return o; };
  if (r.status === 'timeout') return add('hang', r.message);
  if (r.status === 'died') return add('crashed', r.message);
  if (r.rssMB !== undefined && r.rssMB > RSS_LIMIT_MB) return add('crashed', `peak RSS ${r.rssMB} MB`);
  for (const f of x.frozen ?? []) {
    const diff = sameFingerprint(f.before, fingerprint(f.dir));
    if (diff) return add('escape', `${f.dir}: ${diff}`);
  }
  const left: string[] = [];
  const planted = new Set((x.outDirBefore ?? []).map((rel) => path.join(x.outDir ?? '', rel)));
  for (const root of x.tempRoots ?? []) {
    for (const rel of listTree(root)) if (/\.tmp-|\.geoweave-run-/.test(rel) && !planted.has(path.join(root, rel))) left.push(`${root}/${rel}`);
  }
  if (left.length) return add('partial', `left ${left.slice(0, 3).join(', ')}`);
  const before = new Set(x.outDirBefore ?? []);
  const added = () => (x.outDir ? listTree(x.outDir).filter((f) => !before.has(f)) : []);
  if (r.status === 'error') {
    const msg = r.message ?? '';
    if (added().length) return add('partial', `failed but left ${added().slice(0, 3).join(', ')}: ${msg.slice(0, 200)}`);
    if (x.mustSucceed) return add('crashed', `failed on an intact raster: ${msg.slice(0, 300)}`);
    if (INTERNAL.test(`${r.errorName === 'Error' ? '' : r.errorName ?? ''}${msg}`) || INTERNAL.test(msg)) return add('crashed', `internal error: ${msg.slice(0, 300)}`);
    if (x.names.length && !x.names.some((n) => msg.includes(n))) return add('crashed', `error names none of ${x.names.join(' | ')}: ${msg.slice(0, 300)}`);
    return add('handled');
  }
  if (x.mustFail) return add('crashed', `accepted: ${(r.result?.summary ?? '').slice(0, 200)}`);
  if (x.outDir) {
    const want = new Set<string>();
    for (const o of Object.values(r.result?.outputs ?? {})) {
      want.add(path.relative(x.outDir, o.path));
      if (o.style) want.add(path.relative(x.outDir, o.style));
      if (o.sidecar) want.add(path.relative(x.outDir, o.sidecar));
    }
    if (r.result?.quicklook) want.add(path.relative(x.outDir, r.result.quicklook));
    const extra = added().filter((f) => !want.has(f));
    if (extra.length) return add('partial', `unreported files ${extra.slice(0, 3).join(', ')}`);
    const outsideOut = [...want].filter((f) => f.startsWith('..') || path.isAbsolute(f));
    if (outsideOut.length) return add('escape', `output outside the output folder: ${outsideOut[0]}`);
  }
  const problem = x.check?.(r);
  if (problem) return problem.startsWith('escape: ') ? add('escape', problem.slice(8)) : add('crashed', problem);
  return add('handled');
}

/** Clears a folder for the next trial. */
export function emptyDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
}

/**
 * Damaged copies of `orig` for trials: `truncations` cut at random lengths, then `flips` with one to
 * `maxFlips` random bits flipped, each with a label saying where.
 */
export function* damaged(orig: Buffer, rnd: () => number, truncations: number, flips: number, maxFlips = 4): Generator<[string, Buffer]> {
  for (let j = 0; j < truncations; j++) {
    const at = 1 + Math.floor(rnd() * (orig.length - 2));
    yield [`truncated at ${at}`, orig.subarray(0, at)];
  }
  for (let j = 0; j < flips; j++) {
    const b = Buffer.from(orig);
    const at: number[] = [];
    for (let f = 0; f < 1 + Math.floor(rnd() * maxFlips); f++) { const i = Math.floor(rnd() * b.length); b[i] ^= 1 << Math.floor(rnd() * 8); at.push(i); }
    yield [`bits flipped at ${at.join(',')}`, b];
  }
}

/**
 * A trial's surroundings under a fresh temp folder: `in` for the hostile input, `out` for what the
 * trial writes, `outside` with a file that must not change, a tally and a runner.
 */
export function trialRoom(prefix: string, timeoutMs = 20_000): { root: string; inDir: string; outDir: string; outside: string; outsideBefore: Map<string, string>; tally: Tally; runner: TrialRunner } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const inDir = path.join(root, 'in'), outDir = path.join(root, 'out'), outside = path.join(root, 'outside');
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'victim.txt'), 'must not change');
  return { root, inDir, outDir, outside, outsideBefore: fingerprint(outside), tally: new Tally(), runner: new TrialRunner(Number(process.env.GEOWEAVE_ABUSE_TIMEOUT_MS) || timeoutMs) };
}

/** Ends a file of trials: stops the child, prints the tally and its first failures, removes `root`. */
export function closeRoom(room: { root: string; tally: Tally; runner: TrialRunner }): void {
  room.runner.close();
  console.log(room.tally.summary());
  const fails = room.tally.failures();
  if (fails.length) console.log(fails.slice(0, 20).map((f) => `${f.outcome}: ${f.input}: ${f.detail}`).join('\n'));
  fs.rmSync(room.root, { recursive: true, force: true });
}
