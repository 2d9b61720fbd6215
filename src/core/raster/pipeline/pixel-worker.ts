/** Worker thread for per-pixel runs: reads and decodes input tiles, applies the kernel, keeps statistics and encodes output tiles. */
import { parentPort } from 'node:worker_threads';
import { DatasetCache, runTileJob, TileJobSpec } from './tile-job';
import { setTileCacheBytes } from '../io/dataset';
import { StatsAccumulator } from '../stats';
import { stageTotals } from '../io/stage-times';

setTileCacheBytes(8 << 20);

let cache = new DatasetCache();
let spec: TileJobSpec | null = null;
let stats: StatsAccumulator | null = null;

type Msg =
  | { type: 'spec'; spec: TileJobSpec; statsIgnore: number | null }
  | { type: 'tile'; id: number; tx: number; ty: number }
  | { type: 'finish' };

parentPort?.on('message', async (msg: Msg) => {
  if (msg.type === 'spec') {
    spec = msg.spec;
    cache = new DatasetCache(spec.described ?? {});
    stats = new StatsAccumulator(spec.width, spec.height, { ignore: msg.statsIgnore });
    return;
  }
  if (msg.type === 'finish') {
    await cache.closeAll();
    const state = stats!.state();
    parentPort!.postMessage({ type: 'finished', stats: state, stages: stageTotals() }, [state.sample.buffer as ArrayBuffer, state.sampleCell.buffer as ArrayBuffer]);
    return;
  }
  try {
    const r = await runTileJob(spec!, msg.tx, msg.ty, cache, stats!);
    const transfer = r.encoded.map((e) => e.buffer as ArrayBuffer);
    if (r.preview) transfer.push(r.preview.data.buffer as ArrayBuffer);
    parentPort!.postMessage({ type: 'done', id: msg.id, result: r }, [...new Set(transfer)]);
  } catch (e) {
    parentPort!.postMessage({ type: 'error', id: msg.id, message: (e as Error).message });
  }
});
