import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { spawn } from 'child_process';
import { IntentionGraph, LEARNED_FILE } from '../../src/core/learning/intention-graph';
import { readLearnedState, validateLearnedState, withFileLock } from '../../src/core/learning/state-file';
import { logSink, tmpDir } from '../fixtures/helpers';

const V = { version: 1, halfLifeDays: 90, transitions: {}, affinities: {} };

test('validation names the field that is wrong, at any depth', () => {
  const bad = (data: unknown) => assert.throws(() => validateLearnedState(data, 'S/learned.json'), (e: Error) => e.message.startsWith('S/learned.json: ') && !/is not iterable|Cannot read/.test(e.message));
  bad({ ...V, cases: {} });
  assert.throws(() => validateLearnedState({ ...V, cases: {} }, 'f'), /"cases" must be a list of flows/);
  assert.throws(() => validateLearnedState({ ...V, cases: [{ terms: ['a'], tools: 'ndvi', t: 1 }] }, 'f'), /cases\[0\]\.tools must be a list of tool ids, got string "ndvi"/);
  assert.throws(() => validateLearnedState({ ...V, transitions: { ndvi: { threshold: { s: 'x', f: 0, t: 0 } } } }, 'f'), /transitions\["ndvi"\]\["threshold"\]\.s must be a finite number/);
  assert.throws(() => validateLearnedState({ ...V, affinities: { burn: [] } }, 'f'), /affinities\["burn"\] must be an object of counts, got a list/);
  assert.throws(() => validateLearnedState({ ...V, halfLifeDays: -1 }, 'f'), /"halfLifeDays" must be a positive number/);
  assert.throws(() => validateLearnedState({ ...V, version: 2 }, 'f'), /"version" must be 1, got number 2/);
  assert.throws(() => validateLearnedState([], 'f'), /the file must be a JSON object/);
  bad({ ...V, transitions: { a: { b: null } } });
});

test('tool ids and terms named like Object members are plain keys', () => {
  const dir = tmpDir();
  fs.writeFileSync(path.join(dir, LEARNED_FILE), '{"version":1,"halfLifeDays":90,"affinities":{},"transitions":{"constructor":{"__proto__":{"s":1,"f":0,"t":0}}}}');
  const r = readLearnedState(path.join(dir, LEARNED_FILE));
  assert.ok('state' in r);
  assert.equal(Object.getPrototypeOf(r.state.transitions), null);
  assert.deepEqual(Object.keys(r.state.transitions.constructor), ['__proto__']);
  const g = IntentionGraph.load(dir);
  g.recordTrajectory(['constructor', 'tostring'], ['ndvi', 'threshold']);
  assert.ok(g.save());
  assert.equal(({} as Record<string, unknown>).ndvi, undefined, 'Object.prototype untouched');
  const saved = JSON.parse(fs.readFileSync(path.join(dir, LEARNED_FILE), 'utf8'));
  assert.ok(saved.affinities.constructor.ndvi.s > 0, 'a term "constructor" is learned like any other');
  assert.equal(saved.transitions.constructor.__proto__.s, 1);
});

test('an unreadable learned.json is moved to a timestamped backup before the next save, never overwritten', () => {
  const dir = tmpDir();
  const file = path.join(dir, LEARNED_FILE);
  const original = JSON.stringify({ ...V, cases: {} });
  fs.writeFileSync(file, original);
  const sink = logSink();
  const g = IntentionGraph.load(dir, { log: sink.log });
  assert.ok(sink.warnings().some((w) => w.includes('"cases" must be a list') && w.includes(file)), sink.warnings().join('\n'));
  assert.equal(fs.readFileSync(file, 'utf8'), original, 'loading does not touch the file');
  g.recordTrajectory(['burn'], ['dnbr', 'burn_severity']);
  assert.ok(g.save(sink.log));
  const backups = fs.readdirSync(dir).filter((f) => f.startsWith(`${LEARNED_FILE}.unreadable-`));
  assert.equal(backups.length, 1);
  assert.equal(fs.readFileSync(path.join(dir, backups[0]), 'utf8'), original);
  assert.ok(sink.warnings().some((w) => w.includes(backups[0])));
  assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).transitions.dnbr.burn_severity.s, 1);
});

test('two graphs on one folder (two windows) keep each other\'s updates', () => {
  let now = Date.UTC(2026, 0, 1);
  const dir = tmpDir();
  const a = IntentionGraph.load(dir, { now: () => now });
  const b = IntentionGraph.load(dir, { now: () => now });
  a.recordTrajectory(['burn'], ['dnbr', 'burn_severity']);
  a.save();
  b.recordTrajectory(['water'], ['mndwi', 'threshold']);
  b.recordTrajectory(['burn'], ['dnbr', 'burn_severity']);
  b.save();
  now += 86_400_000;
  a.recordFeedback(['burn'], 'area_by_class', true, 'burn_severity');
  a.save();
  const disk = JSON.parse(fs.readFileSync(path.join(dir, LEARNED_FILE), 'utf8'));
  assert.ok(disk.transitions.mndwi?.threshold, 'b\'s flow survived a\'s later save');
  assert.equal(disk.transitions.dnbr.burn_severity.s, 2, 'both dnbr → burn_severity counted');
  assert.ok(disk.transitions.burn_severity.area_by_class.s === 2);
  assert.equal(disk.cases.length, 3);
  // a now sees what b learned.
  assert.ok(a.transition('mndwi', 'threshold') > 0);
  // Saving again without changes writes the same counts (no double counting).
  a.save();
  b.save();
  const again = JSON.parse(fs.readFileSync(path.join(dir, LEARNED_FILE), 'utf8'));
  assert.deepEqual(again.transitions, disk.transitions);
  assert.equal(again.cases.length, 3);
});

test('a notebook flow recorded in segments stays one case across saves', () => {
  const dir = tmpDir();
  const g = IntentionGraph.load(dir);
  g.recordTrajectory(['burn'], ['dnbr', 'burn_severity']);
  g.save();
  g.recordTrajectory(['burn'], ['burn_severity', 'area_by_class']);
  g.save();
  const disk = JSON.parse(fs.readFileSync(path.join(dir, LEARNED_FILE), 'utf8'));
  assert.deepEqual(disk.cases.map((c: { tools: string[] }) => c.tools), [['dnbr', 'burn_severity', 'area_by_class']]);
});

test('a lock left by a process that died is broken; a live one makes the save wait, then fail with a clear message', async () => {
  const dir = tmpDir();
  const lock = path.join(dir, 'x.lock');
  // A dead process: spawn one and wait for it to exit, so its pid is free.
  const child = spawn(process.execPath, ['-e', '0']);
  const pid = child.pid!;
  await new Promise((r) => child.on('exit', r));
  fs.writeFileSync(lock, JSON.stringify({ pid, host: require('os').hostname(), time: Date.now(), token: 'dead' }));
  assert.equal(withFileLock(lock, () => 42, 2000), 42);
  assert.ok(!fs.existsSync(lock), 'released after use');
  // A live holder (this process, another token): waits, then names the holder and the file.
  fs.writeFileSync(lock, JSON.stringify({ pid: process.pid, host: require('os').hostname(), time: Date.now(), token: 'live' }));
  const t0 = Date.now();
  assert.throws(() => withFileLock(lock, () => 1, 300), (e: Error) => e.message.includes(lock) && e.message.includes(`process ${process.pid}`) && /delete the lock file/.test(e.message));
  assert.ok(Date.now() - t0 >= 300);
  assert.ok(fs.existsSync(lock), 'a live lock is left alone');
  // A save that cannot write (here the folder is a file) is reported and returns false; the state stays in memory.
  const notDir = path.join(dir, 'plain-file');
  fs.writeFileSync(notDir, '');
  const sink = logSink();
  const g = new IntentionGraph(path.join(notDir, LEARNED_FILE));
  g.recordTrajectory([], ['a', 'b']);
  assert.equal(g.save(sink.log), false);
  assert.ok(sink.warnings().some((w) => w.includes('cannot save learned state') && w.includes(notDir)));
  assert.ok(g.transition('a', 'b') > 0);
});

test('state files that are symlinks (to /dev/zero, to a key elsewhere) or FIFOs are refused, not followed', () => {
  const dir = tmpDir();
  const secret = path.join(tmpDir(), 'id_rsa');
  fs.writeFileSync(secret, 'PRIVATE-KEY-MATERIAL');
  fs.symlinkSync(secret, path.join(dir, LEARNED_FILE));
  const sink = logSink();
  IntentionGraph.load(dir, { log: sink.log });
  assert.ok(sink.warnings().some((w) => w.includes('is a symbolic link')), sink.warnings().join('\n'));
  assert.ok(!sink.warnings().some((w) => w.includes('PRIVATE-KEY')));
  fs.rmSync(path.join(dir, LEARNED_FILE));
  fs.symlinkSync('/dev/zero', path.join(dir, LEARNED_FILE));
  const t0 = Date.now();
  const g = IntentionGraph.load(dir, { log: sink.log });
  assert.ok(Date.now() - t0 < 2000);
  g.recordTrajectory([], ['a', 'b']);
  assert.ok(g.save(sink.log));
  assert.ok(fs.lstatSync(path.join(dir, LEARNED_FILE)).isFile(), 'the symlink was moved aside, not written through');
  assert.equal(fs.readFileSync(secret, 'utf8'), 'PRIVATE-KEY-MATERIAL');
  if (process.platform !== 'win32' && spawnSyncOk('mkfifo', [path.join(dir, 'fifo')])) {
    fs.rmSync(path.join(dir, LEARNED_FILE));
    fs.renameSync(path.join(dir, 'fifo'), path.join(dir, LEARNED_FILE));
    const t1 = Date.now();
    IntentionGraph.load(dir, { log: sink.log });
    assert.ok(Date.now() - t1 < 2000, 'a FIFO does not block the read');
    assert.ok(sink.warnings().some((w) => w.includes('not a regular file')));
  }
});

test('a lock that claims a far-future time is judged by its file age, so a planted one cannot block forever', () => {
  const dir = tmpDir();
  const lock = path.join(dir, 'x.lock');
  fs.writeFileSync(lock, JSON.stringify({ pid: 1, host: 'elsewhere', time: Date.UTC(3000, 0, 1), token: 'planted' }));
  const old = new Date(Date.now() - 60_000);
  fs.utimesSync(lock, old, old);
  assert.equal(withFileLock(lock, () => 'ok', 1000), 'ok');
});

function spawnSyncOk(cmd: string, args: string[]): boolean {
  return require('child_process').spawnSync(cmd, args).status === 0;
}
