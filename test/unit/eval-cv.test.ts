import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { GeoWeave } from '../../src/core/geoweave';
import { parseTasks, readTasks } from '../../src/core/eval/tasks';
import { cvFolds, crossValidate, stratumOf } from '../../src/core/eval/cv';
import type { StepRecord } from '../../src/core/eval/evaluate';
import type { EvalTask } from '../../src/core/eval/tasks';
import { geoweaveRanker } from '../../src/core/eval/ranker';
import { tmpDir } from '../fixtures/helpers';

const TRAIN = path.join(__dirname, '..', '..', '..', 'tool-manifests', 'practice.jsonl');

test('cv folds: stratified, a partition, deterministic and independent of input order', () => {
  const tasks = readTasks(TRAIN);
  const folds = cvFolds(tasks, 5);
  assert.equal(folds.length, 5);
  const ids = folds.flat().map((t) => t.id);
  assert.equal(ids.length, tasks.length);
  assert.equal(new Set(ids).size, tasks.length, 'every task in exactly one fold');
  const sizes = folds.map((f) => f.length);
  assert.ok(Math.max(...sizes) - Math.min(...sizes) <= 1, sizes.join(','));
  // each category is spread over the folds: no fold holds more than its share (rounded up)
  const perCat = new Map<string, number>();
  for (const t of tasks) perCat.set(stratumOf(t.id), (perCat.get(stratumOf(t.id)) ?? 0) + 1);
  for (const f of folds) {
    for (const [cat, n] of perCat) assert.ok(f.filter((t) => stratumOf(t.id) === cat).length <= Math.ceil(n / 5), `${cat} over-represented`);
  }
  const again = cvFolds([...tasks].reverse(), 5).map((f) => f.map((t) => t.id));
  assert.deepEqual(again, folds.map((f) => f.map((t) => t.id)));
  // a seed reshuffles, reproducibly
  const s1 = cvFolds(tasks, 5, 1).map((f) => f.map((t) => t.id));
  assert.deepEqual(cvFolds(tasks, 5, 1).map((f) => f.map((t) => t.id)), s1);
  assert.notDeepEqual(s1, folds.map((f) => f.map((t) => t.id)));
  assert.equal(stratumOf('tr-fire-07'), 'fire');
  assert.throws(() => cvFolds(tasks, 1), /at least 2 folds/);
  assert.throws(() => cvFolds(tasks.slice(0, 3), 5), /at least 5 tasks/);
});

let stateDir: string;
before(() => { stateDir = tmpDir(); });
after(() => { fs.rmSync(stateDir, { recursive: true, force: true }); });

test('cross-validation learns each fold only from the other folds and scores held-out steps', async () => {
  const tasks = parseTasks([
    '{"id":"tr-fire-01","query":"burn severity classes of the fire scar","flow":["dnbr","burn_severity","area_by_class"]}',
    '{"id":"tr-fire-02","query":"hectares burnt at each severity level","flow":["dnbr","burn_severity","area_by_class"]}',
    '{"id":"tr-water-01","query":"surface water mask and its area","flow":["mndwi","threshold","area_by_class"]}',
    '{"id":"tr-water-02","query":"open water extent in hectares after the flood","flow":["mndwi","otsu_threshold","area_by_class"]}',
    '{"id":"tr-terrain-01","query":"steep slopes share of the basin","flow":["slope","reclassify","area_by_class"]}',
    '{"id":"tr-terrain-02","query":"slope classes and their areas","flow":["slope","reclassify","area_by_class"]}',
  ].join('\n'));
  const trainedOn: string[][] = [];
  const open = async (train: EvalTask[]) => {
    trainedOn.push(train.map((t) => t.query));
    const gw = await GeoWeave.open({ stateDir, learnedDir: tmpDir(), practice: false });
    await gw.recordTrajectories(train.map((t) => ({ task: t.query, tools: t.flow })));
    return { ranker: geoweaveRanker(gw, 'full'), dispose: () => gw.dispose() };
  };
  const steps: StepRecord[] = [];
  const cv = await crossValidate(open, tasks, 3, { ks: [1, 3], steps });
  const folds = cvFolds(tasks, 3);
  assert.equal(cv.folds.length, 3);
  folds.forEach((f, i) => {
    const held = new Set(f.map((t) => t.query));
    assert.ok(trainedOn[i].every((q) => !held.has(q)), `fold ${i} learned from its own test tasks`);
    assert.equal(trainedOn[i].length, tasks.length - f.length);
    assert.equal(cv.folds[i].steps, f.length * 2);
  });
  assert.equal(steps.length, 12);
  const pooled = cv.folds.reduce((a, f) => a + f.report.next['hit@3'] * f.steps, 0) / 12;
  assert.ok(Math.abs(cv.pooled['hit@3'] - pooled) < 1e-3);
  assert.ok(cv.pooled['hit@1'] <= cv.pooled['hit@3']);
  // These chains are the textbook ones: the held-out next steps are found.
  assert.ok(cv.pooled['hit@3'] >= 0.75, JSON.stringify(cv.pooled));
});

test('eval --cv N cross-validates the --train file only, per fold and pooled; bad options are usage errors', async () => {
  const { main } = await import('../../src/cli/main');
  const { fixtureCatalog, repoRoot } = await import('../fixtures/helpers');
  const tasksFile = path.join(repoRoot, 'test', 'fixtures', 'tasks-small.jsonl');
  const cli = async (...argv: string[]) => {
    let out = '';
    let err = '';
    const code = await main(argv, { out: (t) => { out += t + '\n'; }, err: (t) => { err += t + '\n'; } });
    return { code, out, err };
  };
  const common = ['--no-builtin', '--manifests', fixtureCatalog, '--state', tmpDir()];
  const misses = path.join(tmpDir(), 'misses.jsonl');
  const r = await cli('eval', '--cv', '2', '--train', tasksFile, '--misses', misses, ...common);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /2-fold cross-validation over \d+ tasks/);
  assert.match(r.out, /^full\s+fold 1\s/m);
  assert.match(r.out, /^full\s+fold 2\s/m);
  assert.match(r.out, /^full\s+pooled\s/m);
  assert.ok(fs.existsSync(misses));
  for (const line of fs.readFileSync(misses, 'utf8').split('\n').filter(Boolean)) {
    const s = JSON.parse(line);
    assert.ok(s.rank === 0 || s.rank > 3, line);
  }
  const json = await cli('eval', '--cv', '2', '--train', tasksFile, '--json', '--weights', '{"terminal":0.1}', ...common);
  assert.equal(json.code, 0, json.err);
  const cv = JSON.parse(json.out).full;
  assert.equal(cv.folds.length, 2);
  assert.ok(cv.pooled['hit@3'] >= cv.pooled['hit@1']);
  for (const [args, msg] of [
    [['--cv', '1', '--train', tasksFile], /--cv must be an integer number of folds >= 2/],
    [['--cv', '3'], /give --train/],
    [['--cv', '2', '--train', tasksFile, '--weights', '{"nope":1}'], /unknown weight "nope"/],
    [['--cv', '2', '--train', tasksFile, '--seed', '-1'], /--seed must be a non-negative integer/],
  ] as [string[], RegExp][]) {
    const bad = await cli('eval', ...args, ...common);
    assert.equal(bad.code, 2, bad.out);
    assert.match(bad.err, msg);
  }
});

test('eval --cv reads log names as the catalog names its tools ("mcp__eo__slope", "NDVI"): the same folds and numbers as the plain file', async () => {
  const { main } = await import('../../src/cli/main');
  const { fixtureCatalog, repoRoot } = await import('../fixtures/helpers');
  const plain = path.join(repoRoot, 'test', 'fixtures', 'tasks-small.jsonl');
  const logged = path.join(tmpDir(), 'logged.jsonl');
  // As a Claude Code log names an MCP server's tools, and a team's log writes an id in capitals.
  const rename = (id: string, i: number) => (i % 2 ? `mcp__eo__${id}` : id.toUpperCase());
  fs.writeFileSync(logged, fs.readFileSync(plain, 'utf8').split('\n').filter(Boolean).map((l) => {
    const t = JSON.parse(l);
    return JSON.stringify({ ...t, flow: t.flow.map(rename), gold: t.gold.map(rename) });
  }).join('\n') + '\n');
  const cli = async (...argv: string[]) => {
    let out = '';
    let err = '';
    const code = await main(argv, { out: (t) => { out += t + '\n'; }, err: (t) => { err += t + '\n'; } });
    return { code, out, err };
  };
  const common = ['--no-builtin', '--manifests', fixtureCatalog, '--mode', 'full', '--json'];
  const a = await cli('eval', '--cv', '2', '--train', plain, ...common, '--state', tmpDir());
  const b = await cli('eval', '--cv', '2', '--train', logged, ...common, '--state', tmpDir());
  assert.equal(b.code, 0, b.err);
  assert.match(b.err, /tool names read as the catalog names them: .*"mcp__eo__/);
  assert.deepEqual(JSON.parse(b.out), JSON.parse(a.out));
});
