/**
 * Streams a strip kernel over the output's tile rows, on worker threads when they pay (each worker takes a
 * contiguous run of strips, so a kernel's halo rows are decoded once), writing tiles as they finish.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { openRaster, type DatasetDescriptor } from '../io/dataset';
import { GeoTiffWriter, WriteSpec } from '../io/writer';
import { count, mergeStageTotals, tick, tock } from '../io/stage-times';
import { StatsAccumulator, StatsState } from '../stats';
import { addTallies, StripKernelSpec, Tallies } from './strip-kernels';
import { runStripJob, statsIgnore, StripJobSpec, StripResult } from './strip-job';
import { DatasetCache, InputRef } from './tile-job';
import { chooseWorkers, reportWorkers } from './workers';
import { JP2_FILE } from '../raster-files';
import { memLine, MemPeaks, traceMemory } from './mem-trace';

export interface StripRunSpec {
  inputs: InputRef[];
  kernel: StripKernelSpec;
  /** Grid of the inputs (all on one grid). */
  inWidth: number; inHeight: number;
  /** The output file: grid, type, bands, nodata, descriptions. */
  out: WriteSpec; outPath: string;
  /** Keep statistics of band 1 (as stored). */
  stats?: boolean;
  /** Collect a decimated band 1 (long side ≤ 768) for the quicklook. */
  preview?: boolean;
  signal?: AbortSignal; progress?: (f: number) => void;
  /** Worker count; default chosen from free cores (see chooseWorkers); 0 = inline. */
  workers?: number;
}

export interface StripRunResult {
  stats: StatsAccumulator | null;
  /** Every f-th pixel of band 1, nodata → NaN; w × h. */
  preview: { data: Float32Array; w: number; h: number; f: number } | null;
  tallies: Tallies | null;
}

const WORKER_JS = path.join(__dirname, 'strip-worker.js');

function abortError(signal?: AbortSignal): Error {
  const r = signal?.reason;
  if (r instanceof Error) return r;
  const e = new Error('aborted'); e.name = 'AbortError'; return e;
}

/** Decimation factor of the preview of a w×h output (long side ≤ 768). */
export function previewStep(w: number, h: number): number {
  return Math.max(1, Math.ceil(Math.max(w, h) / 768));
}

export async function runStrips(spec: StripRunSpec): Promise<StripRunResult> {
  const writer = await GeoTiffWriter.create(spec.outPath, spec.out);
  const { width, height } = spec.out;
  const f = spec.preview ? previewStep(width, height) : 0;
  const job: StripJobSpec = {
    inputs: spec.inputs, kernel: spec.kernel, inWidth: spec.inWidth, inHeight: spec.inHeight,
    width, height, tile: writer.tile, bands: spec.out.bands, outDtype: spec.out.dtype, fill: writer.fill, zlevel: writer.zlevel,
    nodata: writer.nodata, previewStep: f, interleaved: spec.out.interleaved,
  };
  const stats = spec.stats ? new StatsAccumulator(width, height, { ignore: statsIgnore(job) }) : null;
  const pw = f ? Math.ceil(width / f) : 0, ph = f ? Math.ceil(height / f) : 0;
  const preview = f ? new Float32Array(pw * ph).fill(NaN) : null;
  const strips = writer.tilesDown;
  const tallies: (Tallies | null)[] = new Array(strips).fill(null);
  let done = 0;
  // Strips computed but not yet written, and their encoded bytes (GEOWEAVE_MEMTRACE gauges).
  let queued = 0, queuedBytes = 0;
  const received = (r: StripResult) => { queued++; queuedBytes += encodedBytes(r); };
  let inlineCache: DatasetCache | null = null;
  const stopTrace = traceMemory({ queued: () => queued, queuedMB: () => queuedBytes / (1 << 20), tileCache: () => (inlineCache?.cachedBytes() ?? 0) / (1 << 20) });
  const workerMem: (MemPeaks | null)[] = [];
  const consume = async (r: StripResult) => {
    const t = tick();
    for (let b = 0; b < r.encoded.length; b++) for (let bx = 0; bx < r.encoded[b].length; bx++) await writer.writeEncoded(bx, r.by, b, r.encoded[b][bx]);
    tock('write', t);
    const p = r.preview;
    if (p && preview) preview.set(p.data, p.py0 * pw);
    tallies[r.by] = r.tallies;
    spec.progress?.(++done / strips);
    queued--; queuedBytes -= encodedBytes(r);
  };
  let n = await chooseWorkers(width * height, spec.workers);
  // GEOWEAVE_WORKERS and free cores give a thread budget; a caller's explicit count is taken as it is.
  if (spec.workers === undefined) n = Math.min(n, workerCap(spec.kernel));
  if (strips < 2 || !fs.existsSync(WORKER_JS)) n = 0;
  // JPEG 2000 inputs decode on their reader's own threads; run workers would each decode the same tiles again.
  if (spec.inputs.some((i) => JP2_FILE.test(i.source))) n = 0;
  n = Math.min(n, strips);
  try {
    if (spec.signal?.aborted) throw abortError(spec.signal);
    if (n === 0) {
      const cache = inlineCache = new DatasetCache();
      try {
        for (let by = 0; by < strips; by++) {
          if (spec.signal?.aborted) throw abortError(spec.signal);
          const r = await runStripJob(job, by, cache, stats, spec.signal);
          received(r);
          await consume(r);
        }
      } finally { await cache.closeAll(); }
    } else {
      job.described = await describeSources(spec.inputs);
      const { states, stages, mem } = await runWithWorkers(job, !!stats, strips, n, (r) => { received(r); return consume(r); }, spec.signal);
      workerMem.push(...mem);
      if (stats) for (const st of states) if (st) stats.merge(st);
      for (const st of stages) mergeStageTotals(st);
    }
    if (spec.signal?.aborted) throw abortError(spec.signal);
    await writer.finish();
  } catch (e) {
    await writer.abort();
    throw e;
  }
  count('workers', n);
  reportWorkers(n);
  const peaks = stopTrace();
  if (peaks) {
    process.stderr.write(`${memLine(`main (${n} workers)`, peaks)}\n`);
    workerMem.forEach((m, k) => { if (m) process.stderr.write(`${memLine(`worker ${k + 1}`, m)}\n`); });
  }
  // Tallies added in strip order, whichever thread computed them.
  let total: Tallies | null = null;
  for (const t of tallies) total = addTallies(total, t);
  return { stats, preview: preview ? { data: preview, w: pw, h: ph, f } : null, tallies: total };
}

/**
 * Most worker threads a kernel gets. A clip computes nothing: a strip is blocks decoded, copied and encoded,
 * and one worker beside the main thread's writer already overlaps the two, while each worker holds its own
 * window, kept tile row, outputs and isolate. 10000² clip_bbox of the bench's 4-band scene, 3 interleaved runs
 * each with other processes using about two cores: 1 worker 178 MB peak RSS, 3.50-5.32 s wall, 3.2 s CPU;
 * 2 workers 245-280 MB (0.47-0.54x gdal_translate's 518), 4.56-6.77 s, 4.3 s CPU. GEOWEAVE_WORKERS=2 gives it one.
 */
export function workerCap(k: StripKernelSpec): number {
  return k.type === 'clip' ? 1 : Infinity;
}

function encodedBytes(r: StripResult): number {
  let n = 0;
  for (const row of r.encoded) for (const e of row) n += e.byteLength;
  return n;
}

async function describeSources(inputs: InputRef[]): Promise<Record<string, DatasetDescriptor>> {
  const out: Record<string, DatasetDescriptor> = {};
  for (const src of new Set(inputs.map((i) => i.source))) {
    if (/^https?:\/\//i.test(src)) continue;
    const ds = await openRaster(src);
    try { const d = ds.describe?.(); if (d) out[src] = d; } finally { await ds.close(); }
  }
  return out;
}

/**
 * Worker k starts with the k-th contiguous run of strips and works down it; a worker whose run is done takes
 * strips from the end of the longest remaining run (so a slow or busy core does not hold up the others).
 */
async function runWithWorkers(job: StripJobSpec, withStats: boolean, strips: number, n: number, consume: (r: StripResult) => Promise<void>, signal: AbortSignal | undefined): Promise<{ states: (StatsState | null)[]; stages: Record<string, number>[]; mem: (MemPeaks | null)[] }> {
  const workers = Array.from({ length: n }, () => new Worker(WORKER_JS));
  const runs = workers.map((_, k) => ({ next: Math.floor((k * strips) / n), end: Math.floor(((k + 1) * strips) / n) }));
  const take = (k: number): number | undefined => {
    const own = runs[k];
    if (own.next < own.end) return own.next++;
    let best = -1;
    for (let j = 0; j < runs.length; j++) if (runs[j].end - runs[j].next > 1 && (best < 0 || runs[j].end - runs[j].next > runs[best].end - runs[best].next)) best = j;
    if (best < 0) return undefined;
    return --runs[best].end;
  };
  let inFlight = 0, settled = false, dispatched = 0;
  let chain: Promise<void> = Promise.resolve();
  const states: (StatsState | null)[] = [];
  const stages: Record<string, number>[] = [];
  const mem: (MemPeaks | null)[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      const fail = (e: Error) => { if (!settled) { settled = true; reject(e); } };
      const onAbort = () => fail(abortError(signal));
      signal?.addEventListener('abort', onAbort, { once: true });
      const dispatch = (k: number) => {
        if (settled) return;
        const by = take(k);
        if (by === undefined) return;
        inFlight++; dispatched++;
        workers[k].postMessage({ type: 'strip', by });
      };
      const finish = () => { for (const w of workers) w.postMessage({ type: 'finish' }); };
      workers.forEach((w, k) => {
        w.on('message', (m: { type: string; result?: StripResult; message?: string; stats?: StatsState | null; stages?: Record<string, number>; mem?: MemPeaks | null }) => {
          if (settled) return;
          if (m.type === 'error') { fail(new Error(m.message)); return; }
          if (m.type === 'finished') {
            states.push(m.stats ?? null); stages.push(m.stages ?? {}); mem.push(m.mem ?? null);
            if (states.length === workers.length) { settled = true; signal?.removeEventListener('abort', onAbort); resolve(); }
            return;
          }
          if (m.type !== 'done') return;
          inFlight--;
          chain = chain.then(() => (settled ? undefined : consume(m.result!)));
          chain.catch((e) => fail(e));
          dispatch(k);
          if (inFlight === 0 && dispatched >= strips) chain.then(() => { if (!settled) finish(); }, fail);
        });
        w.on('error', (e) => fail(e));
        w.on('exit', (code) => { if (!settled && code !== 0) fail(new Error(`raster worker exited with code ${code}`)); });
        w.postMessage({ type: 'spec', spec: job, stats: withStats });
        // Two strips in flight per worker: one computing while the other's tiles are written.
        dispatch(k); dispatch(k);
      });
      if (signal?.aborted) onAbort();
    });
  } finally {
    await Promise.all(workers.map((w) => w.terminate().catch(() => undefined)));
  }
  return { states, stages, mem };
}
