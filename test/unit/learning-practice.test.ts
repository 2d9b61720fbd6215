import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { IntentionGraph, LEARNED_FILE } from '../../src/core/learning/intention-graph';
import { GeoWeave } from '../../src/core/geoweave';
import { readTasks } from '../../src/core/eval/tasks';
import { evaluate } from '../../src/core/eval/evaluate';
import { geoweaveRanker } from '../../src/core/eval/ranker';
import { tmpDir } from '../fixtures/helpers';

const ROOT = path.join(__dirname, '..', '..', '..');

test('prior: read beside learned counts, never saved, outweighed by what the user does', () => {
  const dir = tmpDir();
  // A fixed clock: counts decay with time, and this test compares saved counts exactly.
  const now = Date.UTC(2026, 0, 1);
  const g = IntentionGraph.load(dir, { now: () => now });
  g.setPrior([{ terms: ['burn'], tools: ['dnbr', 'burn_severity'] }, { terms: ['burn'], tools: ['dnbr', 'burn_severity', 'area_by_class'] }]);
  assert.ok(g.transition('dnbr', 'burn_severity') > 0.4);
  assert.equal(g.transitionCount, 0, 'the prior is not what was learned');
  assert.equal(g.priorTransitionCount, 2);
  assert.ok(g.affinity(['burn'], 'dnbr').score > 0);
  assert.deepEqual(g.transitionsFrom('dnbr').map((t) => t.to), ['burn_severity']);
  // The user keeps going from dNBR to a threshold and dismisses the severity classes.
  for (let i = 0; i < 3; i++) g.recordTrajectory(['burn'], ['dnbr', 'threshold']);
  g.recordFeedback(['burn'], 'burn_severity', false, 'dnbr');
  assert.ok(g.transition('dnbr', 'threshold') > g.transition('dnbr', 'burn_severity'));
  g.save();
  const raw = JSON.parse(fs.readFileSync(path.join(dir, LEARNED_FILE), 'utf8'));
  assert.equal(raw.transitions.dnbr.threshold.s, 3);
  assert.equal(raw.transitions.dnbr.burn_severity.s, 0, 'only the dismissal is saved, not the prior');
  assert.equal(raw.transitions.burn_severity, undefined);
});

test('a fresh install starts from the shipped analyst practice: next steps as if trained on the same flows', async () => {
  // Quality figures on the evaluation sets belong to `geoweave eval`, not to unit tests: this checks
  // that the prior is read exactly like learned flows, and that it changes the ranking for the better.
  const tasks = readTasks(path.join(ROOT, 'bench', 'dev.jsonl')).slice(0, 40);
  // The same fusion weights for all three (a fresh install uses the one shipped for these flows),
  // without the reranking trees (fitted ones come with the shipped fit only).
  const fresh = await GeoWeave.open({ stateDir: tmpDir(), trees: false });
  const none = await GeoWeave.open({ stateDir: tmpDir(), practice: false, weights: { ...fresh.weights } });
  const trained = await GeoWeave.open({ stateDir: tmpDir(), practice: false, weights: { ...fresh.weights } });
  try {
    assert.equal(fresh.stats().learnedTransitions, 0);
    await trained.recordTrajectories(readTasks(path.join(ROOT, 'tool-manifests', 'practice.jsonl')).map((t) => ({ task: t.query, tools: t.flow.length ? t.flow : t.gold })));
    const run = (gw: GeoWeave) => evaluate(geoweaveRanker(gw, 'full'), tasks, { ks: [3] });
    const [a, b, c] = [await run(fresh), await run(none), await run(trained)];
    assert.equal(a.next['hit@3'], c.next['hit@3'], 'the prior counts like learning from the same flows');
    assert.ok(a.next['hit@3'] > b.next['hit@3'], `prior ${a.next['hit@3']} vs none ${b.next['hit@3']}`);
  } finally {
    await Promise.all([fresh.dispose(), none.dispose(), trained.dispose()]);
  }
});

test('a broken practice file is reported and skipped; retrieval still works', async () => {
  const bad = path.join(tmpDir(), 'practice.jsonl');
  fs.writeFileSync(bad, '{"id":"a","query":"burn","flow":["dnbr","burn_severity"]}\n{"id":"b","query":\n');
  const warnings: string[] = [];
  const gw = await GeoWeave.open({ stateDir: tmpDir(), practice: bad, log: (level, msg) => { if (level === 'warn') warnings.push(msg); } });
  try {
    assert.ok(warnings.some((w) => w.includes(bad) && /:2: not valid JSON/.test(w)), warnings.join('\n'));
    const r = await gw.forwardCandidates('burn severity', { k: 3 });
    assert.ok(r.candidates.length === 3);
  } finally {
    await gw.dispose();
  }
});
