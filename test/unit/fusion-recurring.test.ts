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
  assert.equal(once.report.recurring?.flows, 5, JSON.stringify(once.report.recurring));
  assert.ok((once.report.recurring?.steps ?? 0) >= 5 * 5, JSON.stringify(once.report.recurring));
  // The extra queries are fitted on, not reported: the out-of-fold steps are the flows' own.
  assert.equal(once.report.steps, fewshot.reduce((a, t) => a + t.flow.length - 1, 0));
  assert.equal(once.report.stepsTotal, undefined, 'under 3000 steps none is sampled away');
  assert.deepEqual(await fitOn(fewshot).then((r) => r.weights), once.weights, 'the same flows give the same fit');

  // Each pipeline asked twice (the second time in other words and with one step dropped): every
  // flow has a sibling, the folds show recurrence as it is, and none is lent.
  const twice = fewshot.flatMap((t) => [t, { ...t, id: `${t.id}-again`, query: `again: ${t.query.split(/\s+/).reverse().join(' ')}`, flow: t.flow.slice(0, -1), gold: [...new Set(t.flow.slice(0, -1))] }]);
  const recurring = await fitOn(twice);
  assert.equal(recurring.report.recurring?.flows, 0, JSON.stringify(recurring.report.recurring));
  assert.equal(recurring.report.recurring?.steps, 0);
});

test('a fit scores at most 3000 next steps and 3000 tasks: every n-th of a long-flow team\'s steps, the same each time, from every flow family', async () => {
  const { sampleSteps, sampleTasks } = await import('../../src/core/fusion/fusion');
  const flood = path.join(repoRoot, 'bench', 'foreign', 'floodrisk');
  const flows = [...readTasks(path.join(flood, 'train.jsonl')), ...readTasks(path.join(flood, 'test.jsonl'))];
  const all: [EvalTask, number][] = flows.flatMap((t) => t.flow.slice(1).map((_, i) => [t, i + 1] as [EvalTask, number]));
  assert.equal(all.length, 7413);
  const keep = sampleSteps(flows, 3000);
  const kept = all.filter(([t, i]) => keep(t, i));
  assert.equal(kept.length, Math.ceil(7413 / 3));
  assert.deepEqual(kept, all.filter(([t, i]) => sampleSteps(flows, 3000)(t, i)));
  // Spread: most flows keep some of their steps, and late steps are kept as often as early ones.
  assert.ok(new Set(kept.map(([t]) => t)).size > 0.9 * flows.length);
  const late = (xs: [EvalTask, number][]) => xs.filter(([, i]) => i >= 6).length / xs.length;
  assert.ok(Math.abs(late(kept) - late(all)) < 0.02, `${late(kept)} vs ${late(all)}`);
  // Tasks (forward queries) likewise: all 750 under 3000; every 3rd under 300.
  assert.equal(sampleTasks(flows, 3000).size, 750);
  const third = sampleTasks(flows, 300);
  assert.equal(third.size, 250);
  assert.ok(third.has(flows[0]) && third.has(flows[3]) && !third.has(flows[1]));
  // Under the cap every step is scored.
  const few = flows.slice(0, 200);
  assert.ok(few.every((t) => t.flow.slice(1).every((_, i) => sampleSteps(few, 3000)(t, i + 1))));
});
