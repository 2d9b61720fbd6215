import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'path';
import { GeoWeave } from '../../src/core/geoweave';
import type { Weights } from '../../src/core/retrieval/context';
import { FlowSequences } from '../../src/core/learning/sequences';
import { readTasks, flowOf } from '../../src/core/eval/tasks';
import { memoryFromFlow } from '../../src/core/eval/memory-from-flow';
import { repoRoot, tmpDir } from '../fixtures/helpers';

/**
 * A tool run again (`again`): the `done` penalty says a step is rarely repeated, and some are (the
 * geohazard unit fetches Sentinel-2 for the pre- and the post-event scene in 14 of the 31 flows that
 * fetch it at all). The part is the share of the past flows with the tool that ran it more than once.
 */
test('repeat rate: the share of the flows that ran a tool that ran it more than once, counted once per flow', () => {
  const seq = new FlowSequences([
    { tools: ['fetch', 'clip', 'fetch', 'fetch'], w: 1 },
    { tools: ['fetch', 'clip'], w: 1 },
    { tools: ['fetch', 'warp', 'clip', 'warp'], w: 2 },
  ]);
  assert.equal(seq.repeatRate('fetch'), 1 / 4, 'weighted flows: 1 of 1 + 1 + 2 ran it again (three runs count once)');
  assert.equal(seq.repeatRate('warp'), 1);
  assert.equal(seq.repeatRate('clip'), 0);
  assert.equal(seq.repeatRate('never'), 0);
});

test('again: a tool already run scores its flows\' repeat rate; a tool not yet run scores 0', async () => {
  const root = path.join(repoRoot, 'bench', 'foreign', 'geohazard');
  const train = readTasks(path.join(root, 'train.jsonl'));
  const rate = (id: string) => {
    const withIt = train.filter((t) => flowOf(t).includes(id));
    return withIt.filter((t) => flowOf(t).indexOf(id) !== flowOf(t).lastIndexOf(id)).length / withIt.length;
  };
  assert.ok(Math.abs(rate('opt_s2_fetch') - 14 / 31) < 1e-9, `${rate('opt_s2_fetch')}`);
  const gw = await GeoWeave.open({ noBuiltin: true, extraManifestDirs: [path.join(root, 'manifests')], stateDir: tmpDir(), practice: false, weights: { again: 0.3 } });
  try {
    await gw.recordTrajectories(train.map((t) => ({ task: t.query, tools: flowOf(t) })));
    const task = 'landslide scar mapping from Sentinel-2 before and after the storm';
    const next = await gw.complementarySuggestions(memoryFromFlow(gw, task, ['opt_s2_fetch', 'opt_cloud_mask']), { k: 200 });
    const part = (id: string) => next.ranked.find((c) => c.id === id)?.parts.again;
    assert.ok(Math.abs(part('opt_s2_fetch')! - rate('opt_s2_fetch')) < 1e-4, `opt_s2_fetch: ${part('opt_s2_fetch')} against ${rate('opt_s2_fetch')}`);
    assert.ok(Math.abs(part('opt_cloud_mask')! - rate('opt_cloud_mask')) < 1e-4, `opt_cloud_mask: ${part('opt_cloud_mask')}`);
    assert.ok(rate('mintpy.velocity') > 0);
    assert.equal(part('mintpy.velocity') ?? 0, 0, 'not run yet: nothing to repeat');
  } finally {
    await gw.dispose();
  }
});

test('again: the panel shows a tool already run only where it ranks first or second, as a repeat that says how often the flows repeated it', async () => {
  const root = path.join(repoRoot, 'bench', 'foreign', 'geohazard');
  const train = readTasks(path.join(root, 'train.jsonl'));
  const open = (weights?: Partial<Weights>) => GeoWeave.open({ noBuiltin: true, extraManifestDirs: [path.join(root, 'manifests')], stateDir: tmpDir(), practice: false, weights, onProgress: () => undefined });
  // Weighed as a fit on these flows weighs it: a team that repeats steps gets a weight on `again`.
  const fitter = await open();
  const fitted = await fitter.fitFusion(train).finally(() => fitter.dispose());
  assert.ok((fitted.weights.again ?? 0) > 0.1, JSON.stringify(fitted.weights));
  const gw = await open(fitted.weights);
  try {
    await gw.recordTrajectories(train.map((t) => ({ task: t.query, tools: flowOf(t) })));
    // A terrestrial laser-scanning team cleans each of its two scans: 7 of the 18 flows that clean ran it twice.
    const task = 'M3C2 between the April and November TLS scans of the cliff, significant change only';
    const r = await gw.complementarySuggestions(memoryFromFlow(gw, task, ['pdal_filter_outliers']), { k: 10 });
    const rank = r.ranked.findIndex((s) => s.id === 'pdal_filter_outliers');
    assert.ok(rank >= 0 && rank < 2, r.ranked.slice(0, 5).map((s) => s.id).join(', '));
    const shown = r.groups.flatMap((g) => g.suggestions.map((s) => ({ ...s, group: g.rationale }))).find((s) => s.id === 'pdal_filter_outliers');
    assert.ok(shown, JSON.stringify(r.groups.map((g) => g.suggestions.map((s) => s.id))));
    assert.equal(shown.group, 'extend');
    assert.match(shown.reason, /^extend: .+ once more, on the next input — 39 % of the past flows with it ran it more than once$/);
    // Beside a team that never repeats a step, the same tool is not offered again.
    const never = await open(fitted.weights);
    try {
      const once = (t: string[]) => t.filter((x, i) => t.indexOf(x) === i);
      await never.recordTrajectories(train.map((t) => ({ task: t.query, tools: once(flowOf(t)) })));
      const r2 = await never.complementarySuggestions(memoryFromFlow(never, task, ['pdal_filter_outliers']), { k: 10 });
      const all = r2.groups.flatMap((g) => g.suggestions.map((s) => s.id));
      assert.ok(all.length >= 4 && !all.includes('pdal_filter_outliers'), all.join(', '));
      assert.equal(r2.ranked.find((s) => s.id === 'pdal_filter_outliers')?.parts.again ?? 0, 0);
    } finally {
      await never.dispose();
    }
  } finally {
    await gw.dispose();
  }
});
