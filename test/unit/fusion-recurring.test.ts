import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'path';
import { GeoWeave } from '../../src/core/geoweave';
import { readTasks, type EvalTask } from '../../src/core/eval/tasks';
import { repoRoot, tmpDir } from '../fixtures/helpers';

/**
 * A few-shot team writes one flow per pipeline. Out of fold no held-out task then finds its
 * pipeline among the other flows, so without help a fit learns that similar past tasks say little,
 * while in use the same pipelines are asked for again. The fit lends the flows no other flow
 * resembles to their own fold under a paraphrase and scores them again (fusion.ts, TWIN_SHARE).
 * What bench:foreign measures is whether that helps; this checks which flows are lent.
 */
const root = path.join(repoRoot, 'bench', 'foreign', 'forestcarbon');

async function fitOn(tasks: EvalTask[]) {
  const gw = await GeoWeave.open({ noBuiltin: true, extraManifestDirs: [path.join(root, 'manifests')], stateDir: tmpDir(), practice: false, onProgress: () => undefined });
  try {
    const fusion = await gw.fitFusion(tasks);
    return { report: fusion.report!, weights: fusion.weights };
  } finally {
    await gw.dispose();
  }
}

test('recurring tasks: a few-shot team\'s pipelines, each run once, are lent to their folds; pipelines that already recur are not', async () => {
  const fewshot = readTasks(path.join(root, 'fewshot.jsonl'));
  assert.equal(fewshot.length, 20);
  const once = await fitOn(fewshot);
  // 13 of the 20 flows share under half their tools with every other flow; a quarter of 20 may be lent.
  assert.equal(once.report.recurring.flows, 5, JSON.stringify(once.report.recurring));
  assert.ok(once.report.recurring.steps >= 5 * 5, JSON.stringify(once.report.recurring));
  // The extra queries are fitted on, not reported: the out-of-fold steps are the flows' own.
  assert.equal(once.report.steps, fewshot.reduce((a, t) => a + t.flow.length - 1, 0));
  assert.deepEqual(await fitOn(fewshot).then((r) => r.weights), once.weights, 'the same flows give the same fit');

  // Each pipeline asked twice (the second time in other words and with one step dropped): every
  // flow has a sibling, the folds show recurrence as it is, and none is lent.
  const twice = fewshot.flatMap((t) => [t, { ...t, id: `${t.id}-again`, query: `again: ${t.query.split(/\s+/).reverse().join(' ')}`, flow: t.flow.slice(0, -1), gold: [...new Set(t.flow.slice(0, -1))] }]);
  const recurring = await fitOn(twice);
  assert.equal(recurring.report.recurring.flows, 0, JSON.stringify(recurring.report.recurring));
  assert.equal(recurring.report.recurring.steps, 0);
});
