/** Worker thread for strip runs: reads its strips' input windows, runs the kernel, keeps statistics and encodes output tiles. */
import { parentPort } from 'node:worker_threads';
import { DatasetCache } from './tile-job';
import { runStripJob, statsIgnore, StripJobSpec } from './strip-job';
import { StatsAccumulator } from '../stats';
import { stageTotals } from '../io/stage-times';
import { MemPeaks, traceMemory } from './mem-trace';

let cache = new DatasetCache();
let spec: StripJobSpec | null = null;
let stats: StatsAccumulator | null = null;
let stopTrace: () => MemPeaks | null = () => null;

type Msg =
  | { type: 'spec'; spec: StripJobSpec; stats: boolean }
  | { type: 'strip'; by: number }
  | { type: 'finish' };

/**
 * Strips are computed one at a time, in the order they came: the main thread keeps a second one queued here
 * so the worker never waits for it, but two strips computed at once (interleaved at their awaits) would hold
 * two windows, two outputs and their decoded blocks, and could not share the thread's reused arrays.
 */
const queue: Msg[] = [];
let busy = false;

async function handle(msg: Msg): Promise<void> {
  if (msg.type === 'spec') {
    spec = msg.spec;
    cache = new DatasetCache(spec.described ?? {});
    stats = msg.stats ? new StatsAccumulator(spec.width, spec.height, { ignore: statsIgnore(spec) }) : null;
    const c = cache;
    stopTrace = traceMemory({ tileCache: () => c.cachedBytes() / (1 << 20) });
    return;
  }
  if (msg.type === 'finish') {
    const mem = stopTrace();
    await cache.closeAll();
    const state = stats?.state() ?? null;
    parentPort!.postMessage({ type: 'finished', stats: state, stages: stageTotals(), mem }, state ? [state.sample.buffer as ArrayBuffer, state.sampleCell.buffer as ArrayBuffer] : []);
    return;
  }
  try {
    const r = await runStripJob(spec!, msg.by, cache, stats);
    const transfer = r.encoded.flat().map((e) => e.buffer as ArrayBuffer);
    if (r.preview) transfer.push(r.preview.data.buffer as ArrayBuffer);
    parentPort!.postMessage({ type: 'done', by: msg.by, result: r }, [...new Set(transfer)]);
  } catch (e) {
    parentPort!.postMessage({ type: 'error', by: msg.by, message: (e as Error).message });
  }
}

parentPort?.on('message', async (msg: Msg) => {
  queue.push(msg);
  if (busy) return;
  busy = true;
  try {
    while (queue.length) await handle(queue.shift()!);
  } finally { busy = false; }
});
