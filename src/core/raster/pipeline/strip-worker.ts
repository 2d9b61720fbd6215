/** Worker thread for strip runs: reads its strips' input windows, runs the kernel, keeps statistics and encodes output tiles. */
import { parentPort } from 'node:worker_threads';
import { DatasetCache } from './tile-job';
import { runStripJob, statsIgnore, StripJobSpec } from './strip-job';
import { StatsAccumulator } from '../stats';
import { stageTotals } from '../io/stage-times';

let cache = new DatasetCache();
let spec: StripJobSpec | null = null;
let stats: StatsAccumulator | null = null;

type Msg =
  | { type: 'spec'; spec: StripJobSpec; stats: boolean }
  | { type: 'strip'; by: number }
  | { type: 'finish' };

parentPort?.on('message', async (msg: Msg) => {
  if (msg.type === 'spec') {
    spec = msg.spec;
    cache = new DatasetCache(spec.described ?? {});
    stats = msg.stats ? new StatsAccumulator(spec.width, spec.height, { ignore: statsIgnore(spec) }) : null;
    return;
  }
  if (msg.type === 'finish') {
    await cache.closeAll();
    const state = stats?.state() ?? null;
    parentPort!.postMessage({ type: 'finished', stats: state, stages: stageTotals() }, state ? [state.sample.buffer as ArrayBuffer, state.sampleCell.buffer as ArrayBuffer] : []);
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
});

