import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { GeoWeave } from '../../src/core/geoweave';
import { FIT_PROCEDURE, FUSION_FILE, readFusion, fusionFingerprint, writeFusion } from '../../src/core/fusion/store';
import { MIN_FIT_FLOWS } from '../../src/core/fusion/fusion';
import { FITTED_FORWARD, FITTED_NEXT } from '../../src/core/retrieval/signals';
import { loadCatalog } from '../../src/core/manifests/load';
import { readTasks } from '../../src/core/eval/tasks';
import { DEFAULT_WEIGHTS } from '../../src/core/retrieval/context';
import { builtinCatalog, fixtureCatalog, tmpDir, writeJson } from '../fixtures/helpers';

/** Practice flows for the fixture catalog: burn, water and vegetation chains, worded differently. */
function practice(dir: string, n: number): string {
  const chains = [
    ['burn scar severity in hectares', ['dnbr', 'burn_severity', 'area_by_class']],
    ['vegetation mask area', ['ndvi', 'threshold', 'area_by_class']],
    ['steep terrain share', ['slope', 'threshold', 'area_by_class']],
    ['cloud free greenness', ['cloud_mask', 'ndvi', 'threshold']],
  ] as const;
  const lines = Array.from({ length: n }, (_, i) => {
    const [q, flow] = chains[i % chains.length];
    return JSON.stringify({ id: `p-${i}`, query: `${q} ${['north', 'south', 'east', 'west', 'valley', 'ridge'][i % 6]} ${i}`, flow });
  });
  const file = path.join(dir, 'practice.jsonl');
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

/** A state folder for the fixture catalog with `n` practice flows, and how to open it. */
function practiceState(n: number): { state: string; open: () => Promise<GeoWeave> } {
  const dir = tmpDir();
  const state = path.join(dir, 'state');
  const file = practice(dir, n);
  return { state, open: () => GeoWeave.open({ noBuiltin: true, extraManifestDirs: [fixtureCatalog], stateDir: state, practice: file }) };
}

test('fusion state: fitted on the practice and learned flows, saved with fingerprints, reused, refitted when the flows change', async () => {
  const { state, open } = practiceState(24);
  const gw = await open();
  try {
    assert.equal(gw.fusionStatus().source, 'prior');
    assert.equal(gw.fusionNeedsFit(), true, 'enough flows and no fit for this catalog: the extension fits in the background');
    const st = await gw.refitFusion();
    assert.equal(gw.fusionNeedsFit(), false);
    assert.ok(st.report, st.reason);
    assert.equal(st.report!.flows, 24);
    assert.equal(gw.fusionStatus().source, 'state');
    assert.equal(gw.fusionStatus().current, true);
    const saved = readFusion(path.join(state, FUSION_FILE))!;
    assert.equal(saved.catalog, st.catalog);
    for (const [k, v] of Object.entries(saved.weights)) assert.equal((gw.weights as unknown as Record<string, number>)[k], v);
    // the same flows: nothing to refit
    assert.equal((await gw.refitFusion()).fittedAt, st.fittedAt);
    // a learned flow makes the fit stale; refitting takes it in
    await gw.recordTrajectory('burn scar severity in hectares again', ['dnbr', 'burn_severity', 'area_by_class']);
    assert.equal(gw.fusionStatus().current, false);
    assert.equal(gw.fusionNeedsFit(), false, 'one more flow does not call for a background fit (learn and index build refit)');
    const again = await gw.refitFusion();
    assert.equal(again.report!.flows, 25);
  } finally {
    await gw.dispose();
  }
  const reopened = await open();
  try {
    assert.equal(reopened.fusionStatus().source, 'state', 'the saved fit is used on the next open');
    assert.equal(reopened.fusionStatus().current, true);
  } finally {
    await reopened.dispose();
  }
});

test('fusion state: too few flows keep the prior; a malformed file is reported, not used', async () => {
  const dir = tmpDir();
  const state = path.join(dir, 'state');
  const gw = await GeoWeave.open({ noBuiltin: true, extraManifestDirs: [fixtureCatalog], stateDir: state, practice: practice(dir, MIN_FIT_FLOWS - 1) });
  try {
    const st = await gw.refitFusion();
    assert.match(st.reason ?? '', /needs at least/);
    assert.equal(gw.weights.ngram, DEFAULT_WEIGHTS.ngram);
  } finally {
    await gw.dispose();
  }
  writeJson(path.join(state, FUSION_FILE), { version: 1, catalog: 'x', flows: 'y', weights: { ngram: -1 }, fittedAt: '' });
  assert.throws(() => readFusion(path.join(state, FUSION_FILE)), /"weights.ngram" must be a number from 0 to 100/);
  writeJson(path.join(state, FUSION_FILE), { version: 1, catalog: 'x', flows: 'y', weights: { workflowThreshold: 1 }, fittedAt: '' });
  assert.throws(() => readFusion(path.join(state, FUSION_FILE)), /not a fitted weight/);
  const warnings: string[] = [];
  const again = await GeoWeave.open({ noBuiltin: true, extraManifestDirs: [fixtureCatalog], stateDir: state, practice: false, log: (l, m) => { if (l === 'warn') warnings.push(m); } });
  try {
    assert.equal(again.fusionStatus().source, 'prior');
    assert.ok(warnings.some((w) => /fusion weights not used: .*fusion\.json/.test(w)), warnings.join('\n'));
  } finally {
    await again.dispose();
  }
});

test('fusion state: a fit needs 2 flows; with fewer than 20 next steps it fits the forward weights and keeps the prior\'s next-step ones', async () => {
  // 4 flows of 3 tools: 8 next steps, too few to fit the next step on (a fit learns them by heart).
  const few = practiceState(4);
  const gw = await few.open();
  try {
    assert.equal(gw.fusionNeedsFit(), true, '4 flows are enough to fit on');
    const st = await gw.refitFusion();
    assert.ok(st.report, st.reason);
    assert.equal(st.report!.flows, 4);
    assert.match(st.report!.nextPrior ?? '', /^8 next steps, a next-step fit needs 20$/);
    for (const n of FITTED_NEXT) assert.equal((st.weights as Record<string, number>)[n], undefined, `${n} is not fitted`);
    for (const n of FITTED_NEXT) assert.equal((gw.weights as unknown as Record<string, number>)[n], (DEFAULT_WEIGHTS as unknown as Record<string, number>)[n]);
    assert.ok(FITTED_FORWARD.every((n) => typeof (st.weights as Record<string, number>)[n] === 'number'), 'the forward weights are fitted');
    assert.deepEqual(st.report!.next.after, st.report!.next.before);
  } finally {
    await gw.dispose();
  }
  // 12 such flows: 24 steps, and the next-step weights are fitted too.
  const more = practiceState(12);
  const gw2 = await more.open();
  try {
    const st = await gw2.refitFusion();
    assert.equal(st.report!.nextPrior, undefined);
    assert.ok(FITTED_NEXT.every((n) => typeof (st.weights as Record<string, number>)[n] === 'number'));
  } finally {
    await gw2.dispose();
  }
});

test('the shipped fusion of the builtin catalog was fitted on today\'s manifests and practice flows (run scripts/fit-builtin-fusion.js after changing them)', () => {
  const shipped = readFusion(path.join(builtinCatalog, FUSION_FILE))!;
  assert.ok(shipped, 'tool-manifests/fusion.json exists');
  const tools = loadCatalog({}).tools.map((t) => ({ id: t.manifest.id, hash: t.hash }));
  const flows = readTasks(path.join(builtinCatalog, 'practice.jsonl')).map((t) => ({ query: t.query, tools: t.flow.length ? t.flow : t.gold }));
  assert.equal(shipped.catalog, fusionFingerprint(tools, []), 'a builtin manifest changed since the fit');
  assert.equal(shipped.flows, fusionFingerprint([], flows), 'practice.jsonl changed since the fit');
  assert.equal(shipped.procedure, FIT_PROCEDURE, 'the fit procedure changed since the fit');
});

test('fusion state: a fit made by an older fit procedure is stale; the extension refits it in the background, learn refits it', async () => {
  const { state, open } = practiceState(24);
  const gw = await open();
  let fitted: string;
  try {
    fitted = (await gw.refitFusion()).fittedAt;
  } finally {
    await gw.dispose();
  }
  // As an older GeoWeave wrote it: the same catalog and flows, no procedure field.
  const saved = readFusion(path.join(state, FUSION_FILE))!;
  delete saved.procedure;
  writeFusion(path.join(state, FUSION_FILE), saved);
  const old = await open();
  try {
    assert.equal(old.fusionStatus().source, 'state', 'its weights still serve meanwhile');
    assert.equal(old.fusionStatus().current, false);
    assert.equal(old.fusionNeedsFit(), true);
    const st = await old.refitFusion();
    assert.notEqual(st.fittedAt, fitted);
    assert.equal(st.procedure, FIT_PROCEDURE);
    assert.equal(readFusion(path.join(state, FUSION_FILE))!.procedure, FIT_PROCEDURE);
    assert.equal(old.fusionNeedsFit(), false);
  } finally {
    await old.dispose();
  }
  // A procedure that is not a version is reported with the file and field named.
  fs.writeFileSync(path.join(state, FUSION_FILE), JSON.stringify({ ...saved, procedure: 'two' }));
  assert.throws(() => readFusion(path.join(state, FUSION_FILE)), /fusion\.json: "procedure" must be a whole number/);
});

test('a fresh install uses the shipped fusion; extra manifests make it another catalog (prior until refitted)', async () => {
  const gw = await GeoWeave.open({ stateDir: tmpDir() });
  try {
    const s = gw.fusionStatus();
    assert.equal(s.source, 'shipped');
    assert.equal(s.current, true);
  } finally {
    await gw.dispose();
  }
  const extra = tmpDir();
  writeJson(path.join(extra, 'my_tool.json'), { id: 'my_tool', description: 'Counts trees in a LiDAR tile.' });
  const other = await GeoWeave.open({ stateDir: tmpDir(), extraManifestDirs: [extra] });
  try {
    assert.equal(other.fusionStatus().source, 'prior');
  } finally {
    await other.dispose();
  }
});

test('fusion state: a rebuild refits before returning (index build), or leaves the fit to the caller (the extension fits in the background)', async () => {
  const dir = tmpDir();
  const file = practice(dir, 24);
  const open = (state: string, refitOnRebuild?: boolean) => GeoWeave.open({ noBuiltin: true, extraManifestDirs: [fixtureCatalog], stateDir: path.join(dir, state), practice: file, rebuildIndex: true, refitOnRebuild });
  const cli = await open('cli');
  try {
    assert.equal(cli.fusionStatus().source, 'state');
    assert.equal(cli.fusionNeedsFit(), false);
  } finally {
    await cli.dispose();
  }
  const ext = await open('ext', false);
  try {
    assert.equal(ext.fusionStatus().source, 'prior', 'no fit held up the rebuild');
    assert.equal(ext.fusionNeedsFit(), true, 'the fit is still due, for the background');
  } finally {
    await ext.dispose();
  }
});
