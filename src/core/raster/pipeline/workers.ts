/** How many worker threads a raster run gets: from GEOWEAVE_WORKERS, else from the cores other processes leave free. */
import * as os from 'node:os';

/** Below this many output pixels, starting workers costs more than they save (measured with bench:raster). */
export const INLINE_BELOW_PIXELS = 3_000_000;

/** How long the free-core sample waits between its two readings, ms. */
export const SAMPLE_MS = 80;

export function cores(): number {
  return typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
}

/** Busy and total CPU time summed over all CPUs, ms (the kernel's counters, in 10 ms ticks on Linux). */
function cpuTimes(): { busy: number; total: number } {
  let busy = 0, total = 0;
  for (const c of os.cpus()) {
    const t = c.times;
    const all = t.user + t.nice + t.sys + t.irq + t.idle;
    total += all;
    busy += all - t.idle;
  }
  return { busy, total };
}

/**
 * Cores kept busy by other processes over the next `ms`: the machine's busy CPU time between two
 * readings, minus this process's own (its worker threads included), over the wall time. The
 * 1-minute load average it replaces counted our own runs of the last minute, so a second run on two
 * cores, or a bench's next round, went inline on an idle machine.
 */
export async function busyCoresElsewhere(ms = SAMPLE_MS): Promise<number> {
  const a = cpuTimes(), ownA = process.cpuUsage();
  await new Promise((r) => setTimeout(r, ms));
  const b = cpuTimes(), own = process.cpuUsage(ownA);
  const n = os.cpus().length || 1;
  const wall = (b.total - a.total) / n;
  if (!(wall > 0)) return 0;
  const others = (b.busy - a.busy) - (own.user + own.system) / 1000;
  return Math.max(0, Math.min(n, others / wall));
}

/**
 * Worker count for a run over `pixels` output pixels: an explicit request (argument or GEOWEAVE_WORKERS) wins;
 * otherwise 0 (inline) for rasters below `inlineBelow` pixels (no sample is taken, so small runs pay nothing) or
 * when fewer than 1.5 cores are free right now (with one core busy elsewhere, two workers ran slower than inline),
 * else one per free core (at most 8).
 */
export async function chooseWorkers(pixels: number, requested?: number, inlineBelow = INLINE_BELOW_PIXELS): Promise<number> {
  if (requested !== undefined) return Math.max(0, Math.floor(requested));
  const env = process.env.GEOWEAVE_WORKERS;
  if (env !== undefined && env !== '') return Math.max(0, Math.floor(Number(env)) || 0);
  if (pixels < Math.max(INLINE_BELOW_PIXELS, inlineBelow)) return 0;
  const n = cores();
  // Busy time is counted over every CPU the machine shows; this process may use fewer (a cpuset).
  const free = Math.min(n, (os.cpus().length || n) - await busyCoresElsewhere());
  if (free < 1.5) return 0;
  return Math.max(1, Math.min(8, n, Math.round(free)));
}

/** With GEOWEAVE_REPORT_WORKERS=1, one stderr line per raster run with the worker count it used (the bench shows it). */
export function reportWorkers(n: number): void {
  if (process.env.GEOWEAVE_REPORT_WORKERS === '1') process.stderr.write(`[geoweave workers] ${n}\n`);
}
