import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { main } from '../../src/cli/main';
import { fixtureCatalog, tmpDir } from '../fixtures/helpers';

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => { out += t + '\n'; }, err: (t) => { err += t + '\n'; } });
  return { code, out, err };
}

const catalog = ['--no-builtin', '--manifests', fixtureCatalog];

function flows(lines: object[], bom = false): string {
  const file = path.join(tmpDir(), 'flows.jsonl');
  fs.writeFileSync(file, (bom ? '\uFEFF' : '') + lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return file;
}

test('learn into an unusable --state fails and says so; nothing goes to a throwaway folder', async () => {
  const file = flows([{ query: 'burn scar', flow: ['dnbr', 'burn_severity'] }]);
  const notDir = path.join(tmpDir(), 'state');
  fs.writeFileSync(notDir, 'a file, not a folder');
  const r = await cli('learn', '--trajectories', file, '--state', notDir, ...catalog);
  assert.equal(r.code, 1);
  assert.match(r.err, new RegExp(`state folder ${notDir.replace(/[/\\]/g, '.')} is unusable \\(it is a file, not a folder\\); nothing was learned`));
  assert.doesNotMatch(r.out, /learned 1/);
});

test('learn reports trajectories with unknown tool ids and does not store them', async () => {
  const state = tmpDir();
  const file = flows([
    { query: 'burn scar', flow: ['dnbr', 'burn_severity'] },
    { query: 'typo', flow: ['ndvi', 'thresold'] },
  ]);
  const r = await cli('learn', '--trajectories', file, '--state', state, ...catalog);
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /flows\.jsonl:2: unknown tool thresold; this trajectory is not learned/);
  assert.match(r.out, /learned 1 trajectories \(skipped 1 with unknown tools\)/);
  const saved = fs.readFileSync(path.join(state, 'learned.json'), 'utf8');
  assert.doesNotMatch(saved, /thresold/);
  assert.doesNotMatch(saved, /"ndvi"/);
  const none = await cli('learn', '--trajectories', flows([{ query: 'x', flow: ['nope'] }]), '--state', state, ...catalog);
  assert.equal(none.code, 1);
  assert.match(none.err, /nothing learned/);
});

test('task files: an empty one is an error for learn and eval; a byte-order mark is accepted', async () => {
  const empty = path.join(tmpDir(), 'empty.jsonl');
  fs.writeFileSync(empty, '\n\n');
  for (const cmd of [['learn', '--trajectories', empty], ['eval', '--tasks', empty]]) {
    const r = await cli(...cmd, '--state', tmpDir(), ...catalog);
    assert.equal(r.code, 1, `${cmd[0]}: ${r.out}`);
    assert.match(r.err, /empty\.jsonl: no tasks \(the file is empty or blank\)/);
  }
  const state = tmpDir();
  const r = await cli('learn', '--trajectories', flows([{ query: 'burn scar', flow: ['dnbr', 'burn_severity'] }], true), '--state', state, ...catalog);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /learned 1 trajectories/);
});

test('a learned.json that is not a learned state: learn says which field, keeps a backup, saves fresh', async () => {
  const state = tmpDir();
  const bad = JSON.stringify({ version: 1, halfLifeDays: 90, transitions: {}, affinities: {}, cases: {} });
  fs.writeFileSync(path.join(state, 'learned.json'), bad);
  const r = await cli('learn', '--trajectories', flows([{ query: 'burn scar', flow: ['dnbr', 'burn_severity'] }]), '--state', state, ...catalog);
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /"cases" must be a list of flows/);
  assert.doesNotMatch(r.err, /not iterable/);
  const backup = fs.readdirSync(state).find((f) => f.startsWith('learned.json.unreadable-'));
  assert.ok(backup, fs.readdirSync(state).join(', '));
  assert.equal(fs.readFileSync(path.join(state, backup), 'utf8'), bad);
});
