/**
 * Optional memory trace of a strip run (GEOWEAVE_MEMTRACE=1): each thread samples process.memoryUsage() every
 * 10 ms and reports its peaks (V8 heap used, external and ArrayBuffer bytes of its own isolate; RSS of the
 * whole process) on stderr when the run ends; a no-op otherwise.
 */
export const memTracing = process.env.GEOWEAVE_MEMTRACE === '1';

export interface MemPeaks { rss: number; heapUsed: number; heapTotal: number; external: number; arrayBuffers: number; extra: Record<string, number> }

const MB = 1 / (1 << 20);

/** Starts sampling; the returned function stops it and gives the peaks (MB). `extra` adds gauges (their peaks). */
export function traceMemory(extra: Record<string, () => number> = {}): () => MemPeaks | null {
  if (!memTracing) return () => null;
  const p: MemPeaks = { rss: 0, heapUsed: 0, heapTotal: 0, external: 0, arrayBuffers: 0, extra: {} };
  const sample = () => {
    const m = process.memoryUsage();
    p.rss = Math.max(p.rss, m.rss * MB); p.heapUsed = Math.max(p.heapUsed, m.heapUsed * MB); p.heapTotal = Math.max(p.heapTotal, m.heapTotal * MB);
    p.external = Math.max(p.external, m.external * MB); p.arrayBuffers = Math.max(p.arrayBuffers, m.arrayBuffers * MB);
    for (const [k, f] of Object.entries(extra)) p.extra[k] = Math.max(p.extra[k] ?? 0, f());
  };
  sample();
  const timer = setInterval(sample, 10);
  timer.unref();
  return () => { clearInterval(timer); sample(); return p; };
}

export function memLine(thread: string, p: MemPeaks): string {
  const f = (v: number) => v.toFixed(0);
  const extra = Object.entries(p.extra).map(([k, v]) => ` ${k} ${f(v)}`).join('');
  return `[geoweave mem] ${thread}: peak rss ${f(p.rss)} MB, heapUsed ${f(p.heapUsed)}, heapTotal ${f(p.heapTotal)}, external ${f(p.external)}, arrayBuffers ${f(p.arrayBuffers)}${extra}`;
}
