/** Child-process measurement for the raster bench: wall, CPU (user+sys), peak RSS, load by other processes. */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';

export interface Measure { wall: number; rssMB: number; cpu: number; others: number; stdout: string; workers: string }
/** `workers`: the worker threads GeoWeave's raster runs used ('2', '0' inline, '0+2' for two runs, '2/0' when runs differed; '' when none reported). */
export interface Summary { wall: number; minWall: number; rssMB: number; cpu: number; others: number; runs: number; stdout: string; workers: string }

/** Busy and total CPU ticks of the whole machine so far (from /proc/stat), or null. */
function cpuTicks(): { busy: number; total: number } | null {
  try {
    const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const total = f.reduce((a, b) => a + b, 0);
    return { busy: total - f[3] - (f[4] || 0), total };
  } catch { return null; }
}

const TICK = 100; // USER_HZ on Linux

/**
 * Runs a command under /usr/bin/time -v; returns wall seconds, CPU seconds (user+sys), peak RSS (MB), its
 * stdout, and the CPU that other processes used meanwhile, as a share of the machine (0..1).
 */
export function measure(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Measure> {
  return new Promise((resolve, reject) => {
    const c0 = cpuTicks();
    const t0 = process.hrtime.bigint();
    const p = spawn('/usr/bin/time', ['-v', cmd, ...args], { env: { ...env, GEOWEAVE_REPORT_WORKERS: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '', out = '';
    p.stdout.on('data', (d) => { if (out.length < (4 << 20)) out += d; });
    p.stderr.on('data', (d) => { err += d; });
    p.on('close', (code) => {
      const wall = Number(process.hrtime.bigint() - t0) / 1e9;
      const c1 = cpuTicks();
      if (code !== 0) { reject(new Error(`${cmd} ${args.join(' ')} failed (${code}):\n${err.slice(-2000)}`)); return; }
      const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(err);
      const u = /User time \(seconds\): ([\d.]+)/.exec(err), sy = /System time \(seconds\): ([\d.]+)/.exec(err);
      const cpu = (u ? Number(u[1]) : 0) + (sy ? Number(sy[1]) : 0);
      const others = c0 && c1 && c1.total > c0.total ? Math.max(0, ((c1.busy - c0.busy) / TICK - cpu) / ((c1.total - c0.total) / TICK)) : NaN;
      // GEOWEAVE_REPORT_WORKERS=1 (set below): one line per raster run with its worker count.
      const workers = [...err.matchAll(/\[geoweave workers\] (\d+)/g)].map((x) => x[1]).join('+');
      resolve({ wall, rssMB: m ? Number(m[1]) / 1024 : NaN, cpu, others, stdout: out, workers });
    });
  });
}

/** Share of the machine's CPU time used by (other) processes over `ms` (from /proc/stat), or null. */
export async function busyElsewhere(ms = 1000): Promise<number | null> {
  const a = cpuTicks();
  await new Promise((r) => setTimeout(r, ms));
  const b = cpuTicks();
  if (!a || !b || b.total === a.total) return null;
  return (b.busy - a.busy) / (b.total - a.total);
}

/** Waits (up to `maxMs`) until other processes use under `limit` of the machine; returns the last share seen. */
export async function waitQuiet(limit: number, maxMs: number): Promise<number | null> {
  const until = Date.now() + maxMs;
  let share: number | null = null;
  do {
    share = await busyElsewhere(500);
    if (share === null || share < limit) return share;
  } while (Date.now() < until);
  return share;
}

export function median(xs: number[]): number { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; }

function summarize(ms: Measure[]): Summary {
  return {
    wall: median(ms.map((x) => x.wall)), minWall: Math.min(...ms.map((x) => x.wall)),
    rssMB: median(ms.map((x) => x.rssMB)), cpu: median(ms.map((x) => x.cpu)), others: median(ms.map((x) => x.others)), runs: ms.length,
    stdout: ms[ms.length - 1].stdout, workers: [...new Set(ms.map((x) => x.workers))].join('/'),
  };
}

export const pct = (v: number | null) => (v === null || Number.isNaN(v) ? 'n/a' : `${(v * 100).toFixed(0)}%`);

/** Runs the methods round-robin (so load changes hit all of them alike) and reports medians. */
export async function interleaved(methods: { name: string; run: () => Promise<Measure> }[], runs: number, quietWaitMs = 0, log = true): Promise<Summary[]> {
  const res: Measure[][] = methods.map(() => []);
  for (let i = 0; i < runs; i++) {
    // Each round starts when other processes leave the cores alone (or after quietWaitMs): less noise, same for every method.
    const before = quietWaitMs > 0 ? await waitQuiet(0.1, quietWaitMs) : null;
    for (let k = 0; k < methods.length; k++) res[k].push(await methods[k].run());
    if (log) process.stderr.write(`  round ${i + 1}/${runs} (others before ${pct(before)}): ${methods.map((m, k) => `${m.name} ${res[k][i].wall.toFixed(2)} s / CPU ${res[k][i].cpu.toFixed(2)} s [others ${pct(res[k][i].others)}]`).join(', ')}\n`);
  }
  return res.map(summarize);
}

export function loadLine(): string {
  return os.loadavg().map((v) => v.toFixed(2)).join(' / ');
}

export const pad = (s: string, n: number) => s.padEnd(n);
export const lpad = (s: string, n: number) => s.padStart(n);
