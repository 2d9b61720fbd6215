/**
 * A fit's independent ascents on a second core. The coordinate ascent runs ten times per stage
 * (from the prior, from the surrogate's optimum, then eight bootstrap resamples), all on one core;
 * the ascent from the surrogate does not wait for the one from the prior, nor the resamples for each
 * other. So a thread started for each runs the surrogate and its ascent while the fit climbs from
 * the prior, and the second half of the resamples while the fit runs the first (fit.ts,
 * `fitWeightsAsync`). Where no thread can run (no worker script beside this module, inside a worker,
 * one core, GEOWEAVE_FIT_THREADS=0) or it fails, the fit runs them all.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { BagJob, BagRunner, SurrogateFit, SurrogateRunner } from './fit';
import { packJob, type FitTask } from './bag-pack';
import { fitThreadsAllowed } from '../learning/step-model-pool';

const WORKER_JS = path.join(__dirname, 'bag-worker.js');

/** A runner for `fitWeightsAsync`'s bootstrap fits, or undefined where none can run. Cancelled with `signal` (its fits then run nowhere: the fit itself stops). */
export function bagThread(signal?: AbortSignal): BagRunner | undefined {
  return runner<number[][]>('bags', signal);
}

/** A runner for `fitWeightsAsync`'s surrogate and the ascent from it, or undefined where none can run. */
export function surrogateThread(signal?: AbortSignal): SurrogateRunner | undefined {
  return runner<SurrogateFit>('surrogate', signal);
}

function runner<T>(task: FitTask, signal?: AbortSignal): ((job: BagJob) => Promise<T | undefined>) | undefined {
  if (!fitThreadsAllowed() || !fs.existsSync(WORKER_JS)) return undefined;
  return (job: BagJob) => new Promise<T | undefined>((resolve) => {
    let w: Worker;
    try {
      w = new Worker(WORKER_JS);
    } catch {
      return resolve(undefined);
    }
    let settled = false;
    const end = (v: T | undefined) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', stop);
      resolve(v);
      void w.terminate();
    };
    const stop = () => end(undefined);
    signal?.addEventListener('abort', stop, { once: true });
    w.on('message', (m: { result?: T }) => end(m.result));
    w.on('error', () => end(undefined));
    w.on('exit', () => end(undefined));
    const { packed, transfer } = packJob(job, task);
    w.postMessage(packed, transfer);
  });
}
