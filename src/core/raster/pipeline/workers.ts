/** How many worker threads a raster run gets: from GEOWEAVE_WORKERS, else from the cores other processes leave free. */
import * as os from 'node:os';

/** Below this many output pixels, starting workers costs more than they save (measured with bench:raster). */
export const INLINE_BELOW_PIXELS = 3_000_000;

export function cores(): number {
  return typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
}

/**
 * Worker count for a run over `pixels` output pixels: an explicit request (argument or GEOWEAVE_WORKERS) wins;
 * otherwise 0 (inline) for small rasters or when fewer than 1.5 cores are free (with one core busy elsewhere,
 * two workers ran slower than inline), else one per free core (at most 8).
 */
export function chooseWorkers(pixels: number, requested?: number): number {
  if (requested !== undefined) return Math.max(0, Math.floor(requested));
  const env = process.env.GEOWEAVE_WORKERS;
  if (env !== undefined && env !== '') return Math.max(0, Math.floor(Number(env)) || 0);
  if (pixels < INLINE_BELOW_PIXELS) return 0;
  const n = cores();
  const free = n - os.loadavg()[0];
  if (free < 1.5) return 0;
  return Math.max(1, Math.min(8, n, Math.round(free)));
}

/** With GEOWEAVE_REPORT_WORKERS=1, one stderr line per raster run with the worker count it used (the bench shows it). */
export function reportWorkers(n: number): void {
  if (process.env.GEOWEAVE_REPORT_WORKERS === '1') process.stderr.write(`[geoweave workers] ${n}\n`);
}
