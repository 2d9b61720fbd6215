/** Optional per-stage CPU timers (GEOWEAVE_PROFILE=1) for the raster pipeline; a no-op otherwise. */

export type Stage = 'read' | 'inflate' | 'unpredict' | 'window' | 'compute' | 'stats' | 'predict' | 'deflate' | 'write';

export const STAGES: Stage[] = ['read', 'inflate', 'unpredict', 'window', 'compute', 'stats', 'predict', 'deflate', 'write'];

export const profiling = process.env.GEOWEAVE_PROFILE === '1';

const totals: Record<string, number> = Object.create(null);

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

/** Snapshot of this thread's totals in ms. */
export function stageTotals(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of STAGES) if (totals[s]) out[s] = totals[s] / 1e6;
  return out;
}

export function resetStageTotals(): void {
  for (const k of Object.keys(totals)) delete totals[k];
}
