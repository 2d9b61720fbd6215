import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { main } from '../../src/cli/main';
import { fixtureCatalog, repoRoot, tmpDir } from '../fixtures/helpers';

const tasksFile = path.join(repoRoot, 'test', 'fixtures', 'tasks-small.jsonl');

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => { out += t + '\n'; }, err: (t) => { err += t + '\n'; } });
  return { code, out, err };
}

const common = () => ['--no-builtin', '--manifests', fixtureCatalog, '--state', tmpDir()];

test('suggest prints a table with reasons, and JSON with --json', async () => {
  const state = common();
  const human = await cli('suggest', 'how steep is the terrain', '--k', '3', ...state);
  assert.equal(human.code, 0, human.err);
  assert.match(human.out, /^1\s+slope\s/m);
  assert.match(human.out, /why/);
  const json = await cli('suggest', 'how steep is the terrain', '--k', '3', '--json', ...state);
  const r = JSON.parse(json.out);
  assert.equal(r.candidates.length, 3);
  assert.equal(r.candidates[0].id, 'slope');
  assert.ok(typeof r.candidates[0].reason === 'string' && r.candidates[0].explanation);
});

test('next suggests complementary tools; unknown --done ids are a usage error', async () => {
  const args = common();
  const r = await cli('next', '--task', 'how much of my field is healthy vegetation', '--done', 'ndvi,threshold', '--result', '40% above 0.5', '--json', ...args);
  assert.equal(r.code, 0, r.err);
  const res = JSON.parse(r.out);
  assert.ok(res.ranked.slice(0, 3).some((s: { id: string }) => s.id === 'area_by_class'), r.out);
  assert.ok(!res.ranked.slice(0, 3).some((s: { id: string }) => s.id === 'ndvi'));
  const bad = await cli('next', '--task', 'x', '--done', 'ndvi,nonsense', ...args);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /unknown tool id\(s\) nonsense/);
});

test('eval --json prints exactly the documented shape', async () => {
  const r = await cli('eval', '--tasks', tasksFile, '--k', '1,3,10', '--json', ...common());
  assert.equal(r.code, 0, r.err);
  const o = JSON.parse(r.out);
  assert.deepEqual(Object.keys(o), ['tasks', 'tools', 'forward', 'next', 'ci95']);
  assert.equal(o.tasks, 4);
  assert.equal(o.tools, 10);
  assert.deepEqual(Object.keys(o.forward), ['R@1', 'R@3', 'R@10', 'nDCG@1', 'nDCG@3', 'nDCG@10', 'COMP@1', 'COMP@3', 'COMP@10']);
  assert.deepEqual(Object.keys(o.next), ['hit@1', 'hit@3', 'hit@10']);
  assert.equal(o.forward['R@10'], 1); // 10 tools: everything is in the top 10
  assert.ok(o.forward['R@3'] >= 0.75, JSON.stringify(o.forward));
});

test('eval --train learns in a temporary state, leaving the real state untouched', async () => {
  const state = tmpDir();
  const args = ['--no-builtin', '--manifests', fixtureCatalog, '--state', state];
  const r = await cli('eval', '--tasks', tasksFile, '--train', tasksFile, '--mode', 'all', ...args);
  assert.equal(r.code, 0, r.err);
  for (const m of ['bm25', 'dense', 'hybrid', 'full']) assert.match(r.out, new RegExp(`^${m}\\s`, 'm'));
  assert.ok(!fs.existsSync(path.join(state, 'learned.json')));
});

test('eval: a malformed task line fails naming the line; missing gold ids are reported', async () => {
  const dir = tmpDir();
  const bad = path.join(dir, 'bad.jsonl');
  fs.writeFileSync(bad, '{"id":"a","query":"slope","gold":["slope"]}\n{"id":"b","query":"x","gold":["slope"]\n');
  const r = await cli('eval', '--tasks', bad, ...common());
  assert.equal(r.code, 1);
  assert.match(r.err, /bad\.jsonl:2: not valid JSON/);
  const missing = path.join(dir, 'missing.jsonl');
  fs.writeFileSync(missing, '{"id":"a","query":"slope of the hills","gold":["slope","no_such_tool"]}\n');
  const r2 = await cli('eval', '--tasks', missing, '--json', ...common());
  assert.equal(r2.code, 0, r2.err);
  assert.match(r2.err, /tool not in the catalog: a: no_such_tool \(line 1\)/);
  assert.equal(JSON.parse(r2.out).forward['R@10'], 0.5);
});

test('learn ingests trajectories; index build and stats report the catalog', async () => {
  const state = tmpDir();
  const args = ['--no-builtin', '--manifests', fixtureCatalog, '--state', state];
  const l = await cli('learn', '--trajectories', tasksFile, ...args);
  assert.equal(l.code, 0, l.err);
  assert.match(l.out, /learned 4 trajectories; 5 tool transitions known/);
  const b = await cli('index', 'build', ...args);
  assert.equal(b.code, 0, b.err);
  assert.match(b.out, /tools: 10/);
  const s = await cli('index', 'stats', '--json', ...args);
  const o = JSON.parse(s.out);
  assert.equal(o.tools, 10);
  assert.equal(o.learnedTransitions, 5);
  assert.equal(o.cases, 3, 'each learned flow of two steps or more is kept as a case');
  assert.ok(fs.existsSync(o.indexFile));
});

test('usage errors exit 2 and say what to do', async () => {
  const a = await cli('suggest', 'x', '--no-builtin');
  assert.equal(a.code, 2);
  assert.match(a.err, /--no-builtin needs at least one --manifests DIR/);
  const b = await cli('eval', ...common());
  assert.equal(b.code, 2);
  const c = await cli('suggest', 'x', '--embedder', 'magic', ...common());
  assert.equal(c.code, 2);
  assert.match(c.err, /--embedder must be builtin, transformers or openai/);
  const d = await cli('eval', '--tasks', tasksFile, '--k', '0,3', ...common());
  assert.equal(d.code, 2);
});

test('--practice FILE / --no-practice choose the flows the learned graph starts from; a missing file is a usage error', async () => {
  const state = ['--state', tmpDir()];
  const shipped = await cli('index', 'stats', ...state);
  assert.equal(shipped.code, 0, shipped.err);
  const n = Number(/plus (\d+) from analyst practice/.exec(shipped.out)?.[1]);
  assert.ok(n > 200, shipped.out);
  const none = await cli('index', 'stats', '--no-practice', ...state);
  assert.match(none.out, /plus 0 from analyst practice/);
  const own = path.join(tmpDir(), 'team.jsonl');
  fs.writeFileSync(own, '{"query":"burn scar","flow":["dnbr","burn_severity","area_by_class"]}\n');
  const team = await cli('next', '--task', 'burn scar', '--done', 'dnbr', '--k', '1', '--json', '--practice', own, ...state);
  assert.equal(team.code, 0, team.err);
  assert.equal(JSON.parse(team.out).ranked[0].parts.transition > 0, true, 'the team flow counts as learned');
  const missing = await cli('index', 'stats', '--practice', path.join(tmpDir(), 'nope.jsonl'), ...state);
  assert.equal(missing.code, 2);
  assert.match(missing.err, /--practice .*nope\.jsonl: no such file/);
});

test('eval --with-practice opens a team as the extension does: beside the builtin catalog, fitted on its flows and the practice in the share its flows leave it', async () => {
  const team = path.join(repoRoot, 'bench', 'foreign', 'municipal');
  const dir = tmpDir();
  const lines = fs.readFileSync(path.join(team, 'train.jsonl'), 'utf8').trim().split('\n');
  const train = path.join(dir, 'train.jsonl');
  fs.writeFileSync(train, lines.slice(0, 12).join('\n') + '\n');
  const testFile = path.join(dir, 'test.jsonl');
  fs.writeFileSync(testFile, lines.slice(12, 16).join('\n') + '\n');
  const steps = lines.slice(0, 12).reduce((a, l) => a + JSON.parse(l).flow.length, 0);
  const practice = fs.readFileSync(path.join(repoRoot, 'tool-manifests', 'practice.jsonl'), 'utf8').trim().split('\n').length;
  const args = ['--manifests', path.join(team, 'manifests'), '--tasks', testFile, '--train', train, '--state', tmpDir(), '--mode', 'full,knn'];
  const r = await cli('eval', '--with-practice', ...args);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^4 tasks, 193 tools, learned from 12 training tasks/m, r.out);
  // None of the 12 flows runs a builtin tool: the practice weighs r = 10 / (10 + their steps) in the
  // learned graph, and the fit replays none of its flows (the share of the team's steps on them).
  assert.ok(steps > 12 && practice > 0);
  assert.match(r.err, /fusion fitted on 12 practice and training flows/, r.err);
  const bad = await cli('eval', '--with-practice', '--no-builtin', ...args);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--with-practice evaluates beside the builtin catalog.*drop --no-builtin/);
  const both = await cli('eval', '--with-practice', '--no-practice', ...args);
  assert.equal(both.code, 2);
  assert.match(both.err, /--with-practice and --no-practice contradict each other/);
});
