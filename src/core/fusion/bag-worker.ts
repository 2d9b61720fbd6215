/** Worker thread of the fusion fit's bootstrap fits: runs the ones it is given (see bag-thread.ts). */
import { parentPort } from 'node:worker_threads';
import { bagFits } from './fit';
import { unpackJob, type PackedJob } from './bag-pack';

parentPort?.on('message', (msg: PackedJob) => {
  try {
    parentPort!.postMessage({ weights: bagFits(unpackJob(msg)) });
  } catch (e) {
    parentPort!.postMessage({ error: (e as Error).message });
  }
});
