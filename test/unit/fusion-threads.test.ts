import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'path';
import { GeoWeave } from '../../src/core/geoweave';
import { readTasks, type EvalTask } from '../../src/core/eval/tasks';
import { canTrainAhead } from '../../src/core/learning/step-model-pool';
import { repoRoot, tmpDir } from '../fixtures/helpers';

/**
 * A fit trains its folds' next-step models ahead on a second thread (learning/step-model-pool.ts).
 * The models are the same wherever they are trained, so the fit must be too: the same weights and
 * the same trees, byte for byte, with the thread and without it.
 */
const root = path.join(repoRoot, 'bench', 'foreign', 'forestcarbon');

async function fitOn(tasks: EvalTask[], threads: string) {
  const before = process.env.GEOWEAVE_FIT_THREADS;
  process.env.GEOWEAVE_FIT_THREADS = threads;
  const gw = await GeoWeave.open({ noBuiltin: true, extraManifestDirs: [path.join(root, 'manifests')], stateDir: tmpDir(), practice: false, onProgress: () => undefined });
  try {
    const fusion = await gw.fitFusion(tasks);
    return JSON.stringify({ weights: fusion.weights, trees: fusion.trees, forward: fusion.report?.forward, next: fusion.report?.next });
  } finally {
    await gw.dispose();
    if (before === undefined) delete process.env.GEOWEAVE_FIT_THREADS; else process.env.GEOWEAVE_FIT_THREADS = before;
  }
}

test('fit threads: the next-step models trained on the second thread give the fit they give inline', { skip: !canTrainAhead() && 'no worker script or one core' }, async () => {
  const flows = readTasks(path.join(root, 'train.jsonl')).slice(0, 60);
  const inline = await fitOn(flows, '0');
  const ahead = await fitOn(flows, '');
  assert.equal(ahead, inline);
});
