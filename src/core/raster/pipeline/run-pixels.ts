/** Streams a per-pixel kernel over the tile grid (worker threads when available), writing tiles as they finish. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { openRaster, type DatasetDescriptor, type GeoInfo } from '../io/dataset';
import { GeoTiffWriter } from '../io/writer';
import type { OutDType } from '../io/encode';
import { count, mergeStageTotals, tick, tock } from '../io/stage-times';
import { StatsAccumulator, StatsState } from '../stats';
import { KernelSpec } from './kernels';
import { DatasetCache, InputRef, runTileJob, TileJobSpec, TileResult } from './tile-job';
import { chooseWorkers, reportWorkers } from './workers';
import { JP2_FILE } from '../raster-files';

export interface PixelRunSpec {
  inputs: InputRef[];
  kernel: KernelSpec;
  width: number; height: number; geo: GeoInfo;
  outPath: string; outDtype: OutDType; outBands: number; nodata: number | null; descriptions?: string[];
  signal?: AbortSignal; progress?: (f: number, msg?: string) => void;
  /** Give each worker whole tile rows (striped inputs: each full-width strip is then decoded by one worker only). */
  rowAffinity?: boolean;
  /** Worker count; default chosen from free cores (see chooseWorkers); 0 = inline. */
  workers?: number;
  tile?: number;
}

export interface PixelRunResult {
  stats: StatsAccumulator;
  /** Decimated first band (for the quicklook), preview.w × preview.h. */
  preview: { data: Float32Array; w: number; h: number };
}

const WORKER_JS = path.join(__dirname, 'pixel-worker.js');

function abortError(signal?: AbortSignal): Error {
  const r = signal?.reason;
  if (r instanceof Error) return r;
  const e = new Error('aborted'); e.name = 'AbortError'; return e;
}

/** Runs the kernel tile by tile; output goes to a temp file renamed at the end (deleted on error or abort). */
export async function runPixels(spec: PixelRunSpec): Promise<PixelRunResult> {
  const tile = spec.tile ?? 512;
  const writer = await GeoTiffWriter.create(spec.outPath, {
    width: spec.width, height: spec.height, bands: spec.outBands, dtype: spec.outDtype, geo: spec.geo,
    nodata: spec.nodata, descriptions: spec.descriptions, blockSize: tile,
  });
  const fill = writer.fill;
  const f = Math.max(1, Math.ceil(Math.max(spec.width, spec.height) / 768));
  const job: TileJobSpec = {
    inputs: spec.inputs, kernel: spec.kernel, width: spec.width, height: spec.height, tile,
    outDtype: spec.outDtype, fill, zlevel: writer.zlevel, previewStep: f,
  };
  const statsIgnore = fill === fill ? fill : null;
  const stats = new StatsAccumulator(spec.width, spec.height, { ignore: statsIgnore });
  const pw = Math.ceil(spec.width / f), ph = Math.ceil(spec.height / f);
  const preview = new Float32Array(pw * ph).fill(NaN);
  const tiles: [number, number][] = [];
  for (let ty = 0; ty < writer.tilesDown; ty++) for (let tx = 0; tx < writer.tilesAcross; tx++) tiles.push([tx, ty]);
  let done = 0;

  // The main thread only writes encoded bytes and pastes the small preview pieces; statistics are kept where tiles are computed.
  const consume = async (r: TileResult) => {
    const t = tick();
    for (let b = 0; b < r.encoded.length; b++) await writer.writeEncoded(r.tx, r.ty, b, r.encoded[b]);
    tock('write', t);
    const p = r.preview;
    if (p) for (let j = 0; j < p.ph; j++) preview.set(p.data.subarray(j * p.pw, (j + 1) * p.pw), (p.py0 + j) * pw + p.px0);
    done++;
    spec.progress?.(done / tiles.length);
  };

  let nWorkers = await chooseWorkers(spec.width * spec.height, spec.workers, inlineBelow(spec.kernel));
  if (spec.workers === undefined && inlineBelow(spec.kernel) > spec.width * spec.height) nWorkers = 0;
  if (tiles.length < 2 || !fs.existsSync(WORKER_JS)) nWorkers = 0;
  // JPEG 2000 inputs decode on their reader's own threads; run workers would each decode the same tiles again.
  if (spec.inputs.some((i) => JP2_FILE.test(i.source))) nWorkers = 0;
  nWorkers = Math.min(nWorkers, tiles.length);
  const stages: Record<string, number>[] = [];
  try {
    if (spec.signal?.aborted) throw abortError(spec.signal);
    if (nWorkers === 0) {
      const cache = new DatasetCache();
      try {
        for (const [tx, ty] of tiles) {
          if (spec.signal?.aborted) throw abortError(spec.signal);
          await consume(await runTileJob(job, tx, ty, cache, stats, spec.signal));
        }
      } finally { await cache.closeAll(); }
    } else {
      job.described = await describeSources(spec.inputs);
      const states = await runWithWorkers(job, statsIgnore, tiles, nWorkers, consume, spec.signal, spec.rowAffinity ? writer.tilesAcross : 0, stages);
      for (const st of states) stats.merge(st);
    }
    if (spec.signal?.aborted) throw abortError(spec.signal);
    await writer.finish();
  } catch (e) {
    await writer.abort();
    throw e;
  }
  for (const st of stages) mergeStageTotals(st);
  count('workers', nWorkers);
  reportWorkers(nWorkers);
  return { stats, preview: { data: preview, w: pw, h: ph } };
}

/** Layouts of the local inputs, so workers read tiles directly instead of parsing the files with geotiff.js. */
async function describeSources(inputs: InputRef[]): Promise<Record<string, DatasetDescriptor>> {
  const out: Record<string, DatasetDescriptor> = {};
  for (const src of new Set(inputs.map((i) => i.source))) {
    if (/^https?:\/\//i.test(src)) continue;
    const ds = await openRaster(src);
    try { const d = ds.describe?.(); if (d) out[src] = d; } finally { await ds.close(); }
  }
  return out;
}

async function runWithWorkers(job: TileJobSpec, statsIgnore: number | null, tiles: [number, number][], n: number, consume: (r: TileResult) => Promise<void>, signal: AbortSignal | undefined, rowLength: number, stagesOut: Record<string, number>[]): Promise<StatsState[]> {
  const workers = Array.from({ length: n }, () => new Worker(WORKER_JS, { workerData: {} /* web-worker (via geotiff) reads workerData.mod on import */ }));
  let next = 0, inFlight = 0, settled = false, dispatched = 0;
  // With row affinity a worker keeps taking tiles from the row it started; otherwise tiles go out in order.
  const own = new Map<Worker, number[]>();
  const take = (w: Worker): number | undefined => {
    if (!rowLength) return next < tiles.length ? next++ : undefined;
    let q = own.get(w);
    if (!q || !q.length) {
      if (next >= tiles.length) return undefined;
      q = [];
      for (let k = 0; k < rowLength && next < tiles.length; k++) q.push(next++);
      own.set(w, q);
    }
    return q.shift();
  };
  let chain: Promise<void> = Promise.resolve();
  const perWorker = 2;
  const states: StatsState[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      const fail = (e: Error) => { if (!settled) { settled = true; reject(e); } };
      const onAbort = () => fail(abortError(signal));
      signal?.addEventListener('abort', onAbort, { once: true });
      const dispatch = (w: Worker) => {
        if (settled) return;
        const id = take(w);
        if (id === undefined) return;
        inFlight++; dispatched++;
        w.postMessage({ type: 'tile', id, tx: tiles[id][0], ty: tiles[id][1] });
      };
      // Once every tile is written, each worker hands over its statistics.
      const finish = () => {
        for (const w of workers) w.postMessage({ type: 'finish' });
      };
      workers.forEach((w) => {
        w.on('message', (m: { type: string; result?: TileResult; message?: string; stats?: StatsState; stages?: Record<string, number> }) => {
          if (settled) return;
          if (m.type === 'error') { fail(new Error(m.message)); return; }
          if (m.type === 'finished') {
            states.push(m.stats!); stagesOut.push(m.stages ?? {});
            if (states.length === workers.length) { settled = true; signal?.removeEventListener('abort', onAbort); resolve(); }
            return;
          }
          if (m.type !== 'done') return;
          inFlight--;
          chain = chain.then(() => (settled ? undefined : consume(m.result!)));
          chain.catch((e) => fail(e));
          dispatch(w);
          if (inFlight === 0 && dispatched >= tiles.length) chain.then(() => { if (!settled) finish(); }, fail);
        });
        w.on('error', (e) => fail(e));
        w.on('exit', (code) => { if (!settled && code !== 0) fail(new Error(`raster worker exited with code ${code}`)); });
        w.postMessage({ type: 'spec', spec: job, statsIgnore });
        for (let k = 0; k < perWorker; k++) dispatch(w);
      });
      if (signal?.aborted) onAbort();
    });
  } finally {
    await Promise.all(workers.map((w) => w.terminate().catch(() => undefined)));
  }
  return states;
}

/**
 * Output pixels below which a kernel runs inline even with free cores (GEOWEAVE_WORKERS included; an
 * explicit `workers` wins). One-band comparisons spend their time in inflate and deflate, which two
 * workers split no better than one thread: threshold at 5000² on an idle 2-core machine ran 0.71×
 * gdal_calc's wall with two workers and 0.72× inline, at 1.07× its CPU against 0.73× (at 10000² the
 * workers pay: wall 0.41× against 0.60×). Bench: bench/raster/perf-2026-12-02f.txt.
 */
export function inlineBelow(k: KernelSpec): number {
  return k.type === 'threshold' || k.type === 'scl' || k.type === 'qabits' || k.type === 'modis_state' || k.type === 'mod13_reliability' || k.type === 'mod13_vi_quality' || k.type === 'mcd43_quality' || k.type === 'viirs_qf' ? 40_000_000 : 0;
}
