/** Optional per-stage CPU timers and counters (GEOWEAVE_PROFILE=1) for the raster engine; a no-op otherwise. */

export type Stage = 'read' | 'inflate' | 'unpredict' | 'window' | 'compute' | 'stats' | 'predict' | 'deflate' | 'write';

export const STAGES: Stage[] = ['read', 'inflate', 'unpredict', 'window', 'compute', 'stats', 'predict', 'deflate', 'write'];

/** Counted events: input tiles decoded, output tiles encoded, worker threads started. */
export type Counter = 'decodes' | 'encodes' | 'workers';

export const profiling = process.env.GEOWEAVE_PROFILE === '1';

const totals: Record<string, number> = Object.create(null);
const counters: Record<string, number> = Object.create(null);

/** Current time in ns when profiling, else 0 (so callers pay nothing). */
export function tick(): number {
  return profiling ? Number(process.hrtime.bigint()) : 0;
}

/** Adds the time since `t0` to `stage`; returns now (for chaining). */
export function tock(stage: Stage, t0: number): number {
  if (!profiling) return 0;
  const now = Number(process.hrtime.bigint());
  totals[stage] = (totals[stage] ?? 0) + (now - t0);
  return now;
}

export function count(c: Counter, n = 1): void {
  if (profiling) counters[c] = (counters[c] ?? 0) + n;
}

/** Snapshot of this thread's stage totals in ms, and its counters (keys prefixed with '#'). */
export function stageTotals(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of STAGES) if (totals[s]) out[s] = totals[s] / 1e6;
  for (const [k, v] of Object.entries(counters)) out[`#${k}`] = v;
  return out;
}

/** Adds another thread's stageTotals() (a worker's) to this thread's. */
export function mergeStageTotals(t: Record<string, number>): void {
  for (const [k, v] of Object.entries(t)) {
    if (k.startsWith('#')) counters[k.slice(1)] = (counters[k.slice(1)] ?? 0) + v;
    else totals[k] = (totals[k] ?? 0) + v * 1e6;
  }
}

/** One line for stderr: counters, then CPU ms by stage over every thread that reported. */
export function profileLine(wallMs: number): string {
  const t = stageTotals();
  const cells = STAGES.filter((s) => t[s]).map((s) => `${s} ${t[s].toFixed(0)}`);
  const cnt = Object.keys(counters).sort().map((k) => `${k} ${counters[k]}`);
  return `[geoweave profile] wall ${wallMs.toFixed(0)} ms; ${cnt.join(', ') || 'no counters'}; CPU ms by stage (all threads): ${cells.join(', ') || 'none'}`;
}

export function resetStageTotals(): void {
  for (const k of Object.keys(totals)) delete totals[k];
  for (const k of Object.keys(counters)) delete counters[k];
}
