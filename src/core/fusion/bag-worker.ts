/** Worker thread of the fusion fit: runs the bootstrap fits or the surrogate's ascent it is given (see bag-thread.ts). */
import { parentPort } from 'node:worker_threads';
import { bagFits, surrogateFit } from './fit';
import { unpackJob, type PackedJob } from './bag-pack';

parentPort?.on('message', (msg: PackedJob) => {
  try {
    const job = unpackJob(msg);
    parentPort!.postMessage({ result: msg.task === 'surrogate' ? surrogateFit(job) : bagFits(job) });
  } catch (e) {
    parentPort!.postMessage({ error: (e as Error).message });
  }
});
