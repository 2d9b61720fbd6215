/**
 * Half of a fit's bootstrap fits on a second core. The coordinate ascent runs ten times per stage
 * (from the prior, from the surrogate's optimum, then eight bootstrap resamples), all on one core;
 * the resamples are independent, so a thread started for the stage runs the second half while the
 * fit runs the first (fit.ts, `fitWeightsAsync`). Where no thread can run (no worker script beside
 * this module, inside a worker, one core, GEOWEAVE_FIT_THREADS=0) or it fails, the fit runs them all.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { BagJob, BagRunner } from './fit';
import { packJob } from './bag-pack';
import { fitThreadsAllowed } from '../learning/step-model-pool';

const WORKER_JS = path.join(__dirname, 'bag-worker.js');

/** A runner for `fitWeightsAsync`, or undefined where none can run. Cancelled with `signal` (its fits then run nowhere: the fit itself stops). */
export function bagThread(signal?: AbortSignal): BagRunner | undefined {
  if (!fitThreadsAllowed() || !fs.existsSync(WORKER_JS)) return undefined;
  return (job: BagJob) => new Promise<number[][] | undefined>((resolve) => {
    let w: Worker;
    try {
      w = new Worker(WORKER_JS);
    } catch {
      return resolve(undefined);
    }
    let settled = false;
    const end = (v: number[][] | undefined) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', stop);
      resolve(v);
      void w.terminate();
    };
    const stop = () => end(undefined);
    signal?.addEventListener('abort', stop, { once: true });
    w.on('message', (m: { weights?: number[][] }) => end(m.weights));
    w.on('error', () => end(undefined));
    w.on('exit', () => end(undefined));
    const { packed, transfer } = packJob(job);
    w.postMessage(packed, transfer);
  });
}
