/** Worker thread of the JPEG 2000 decode pool: decodes one tile codestream per message (see decode-pool.ts). */
import { parentPort } from 'node:worker_threads';
import { decodeCodestream } from './openjpeg';

parentPort?.on('message', async (msg: { id: number; cs: Uint8Array; reduce?: number; size?: { width: number; height: number } }) => {
  try {
    const t = await decodeCodestream(msg.cs, msg.reduce ?? 0, msg.size);
    parentPort!.postMessage({ id: msg.id, tile: t }, [t.data.buffer as ArrayBuffer]);
  } catch (e) {
    parentPort!.postMessage({ id: msg.id, error: (e as Error).message });
  }
});
