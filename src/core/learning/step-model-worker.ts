/** Worker thread of the next-step model pool: trains one model per message and hands its table back (see step-model-pool.ts). */
import { parentPort } from 'node:worker_threads';
import { NextStepModel, type StepFlow } from './next-step-model';

parentPort?.on('message', (msg: { id: number; flows: StepFlow[] }) => {
  try {
    const state = new NextStepModel(msg.flows).state();
    parentPort!.postMessage({ id: msg.id, state }, [state.weights.buffer as ArrayBuffer, state.bias.buffer as ArrayBuffer]);
  } catch (e) {
    parentPort!.postMessage({ id: msg.id, error: (e as Error).message });
  }
});
