/** Worker thread of the learned-model pool: trains one model per message and hands its tables back (see step-model-pool.ts). */
import { parentPort } from 'node:worker_threads';
import { trainModel, type ModelKind } from './step-model-pool';
import type { StepFlow } from './next-step-model';
import type { LabelledFlow } from './tool-classifier';

parentPort?.on('message', (msg: { id: number; kind: ModelKind; flows: StepFlow[] | LabelledFlow[] }) => {
  try {
    const state = trainModel(msg.kind, msg.flows).state();
    parentPort!.postMessage({ id: msg.id, state }, [state.weights.buffer as ArrayBuffer, state.bias.buffer as ArrayBuffer]);
  } catch (e) {
    parentPort!.postMessage({ id: msg.id, error: (e as Error).message });
  }
});
