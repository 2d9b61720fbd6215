/** Worker thread for per-pixel runs: decodes input tiles, applies the kernel and encodes output tiles. */
import { parentPort } from 'node:worker_threads';
import { DatasetCache, runTileJob, TileJobSpec } from './tile-job';
import { setTileCacheBytes } from '../io/dataset';

setTileCacheBytes(8 << 20);

const cache = new DatasetCache();
let spec: TileJobSpec | null = null;

parentPort?.on('message', async (msg: { type: 'spec'; spec: TileJobSpec } | { type: 'tile'; id: number; tx: number; ty: number } | { type: 'close' }) => {
  if (msg.type === 'spec') { spec = msg.spec; return; }
  if (msg.type === 'close') { await cache.closeAll(); parentPort?.postMessage({ type: 'closed' }); return; }
  try {
    const r = await runTileJob(spec!, msg.tx, msg.ty, cache);
    const transfer = [r.values.buffer as ArrayBuffer, ...r.encoded.map((e) => e.buffer as ArrayBuffer)];
    parentPort!.postMessage({ type: 'done', id: msg.id, result: r }, [...new Set(transfer)]);
  } catch (e) {
    parentPort!.postMessage({ type: 'error', id: msg.id, message: (e as Error).message });
  }
});
