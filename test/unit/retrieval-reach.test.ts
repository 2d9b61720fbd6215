import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { FOLDERS_FILE, folderReach, foldersSince, REACH_FULL, REACH_PRIOR_STEPS } from '../../src/core/retrieval/reach';
import { GeoWeave } from '../../src/core/geoweave';
import { repoRoot, tmpDir } from '../fixtures/helpers';

/** `n` tools named `${prefix}${i}` in `folder`. */
function folder(prefix: string, n: number, name: string): [string, string][] {
  return Array.from({ length: n }, (_, i) => [`${prefix}${i}`, name]);
}

test('a folder the flows never run weighs its tools\' text by its reach; one folder, or no flows, weighs nothing', () => {
  const folders = new Map([...folder('b', 64, 'builtin'), ...folder('t', 129, 'team')]);
  const timed = (flows: string[][], t = 1) => flows.map((tools) => ({ tools, t }));
  assert.equal(folderReach(new Map(folder('t', 129, 'team')), timed([['t1', 't2']])).size, 0, 'one folder: nothing to tell apart');
  assert.equal(folderReach(folders, []).size, 0, 'no flows: every folder whole');
  // 20 flows, 130 steps, none on the builtin folder.
  const flows = Array.from({ length: 20 }, (_, i) => Array.from({ length: 6 + (i % 2) }, (__, j) => `t${(i * 7 + j) % 129}`));
  const steps = flows.reduce((a, f) => a + f.length, 0);
  const reach = folderReach(folders, timed(flows));
  const expected = REACH_PRIOR_STEPS / ((steps * 64) / 193 + REACH_PRIOR_STEPS) / REACH_FULL;
  assert.ok(Math.abs(reach.get('b0')! - expected) < 1e-12, `${reach.get('b0')} against ${expected}`);
  assert.ok(reach.get('b0')! < 0.2 && reach.get('b63') === reach.get('b0'));
  assert.equal(reach.get('t5'), undefined, 'the team\'s folder is whole');
  // Two flows say less: the builtin folder keeps more of its text.
  assert.ok(folderReach(folders, timed(flows.slice(0, 2))).get('b0')! > 0.5);
  // An analyst who runs the builtin tools a third of the time keeps them whole, though per tool
  // they run less often than the team's.
  const mixed = [...flows, ...Array.from({ length: 10 }, (_, i) => [`b${i}`, `b${i + 10}`, `b${i + 20}`, `b${i + 30}`, `b${(i + 40) % 64}`, `b${(i + 50) % 64}`])];
  assert.equal(folderReach(folders, timed(mixed)).size, 0);
  // Tools outside the catalog (a flow recorded before a tool was removed) count for no folder.
  assert.equal(folderReach(folders, timed([...flows, ['gone', 'gone']])).get('b0'), reach.get('b0'));
});

test('a folder is judged on the flows since it was first seen, and a small folder on what its size lets the flows say', () => {
  const builtin = folder('b', 64, 'builtin');
  const flows = Array.from({ length: 50 }, (_, i) => ({ tools: [`b${i % 64}`, `b${(i + 1) % 64}`, `b${(i + 2) % 64}`, `b${(i + 3) % 64}`, `b${(i + 4) % 64}`, `b${(i + 5) % 64}`], t: 1000 + i }));
  // A 20-tool folder added after 300 steps on the builtin tools: none of them was its to run.
  const added = new Map([...builtin, ...folder('q', 20, 'qgis')]);
  assert.ok(folderReach(added, flows).get('q0')! < 0.2, 'judged on every flow, it would look unused');
  assert.equal(folderReach(added, flows, new Map([['qgis', 2000]])).size, 0, 'added after those flows: whole');
  // Flows since then that still never run it count against it.
  const since = Array.from({ length: 20 }, (_, i) => ({ tools: flows[i].tools, t: 3000 + i }));
  assert.ok(folderReach(added, [...flows, ...since], new Map([['qgis', 2000]])).get('q0')! < 0.5);
  // One tool just added beside the builtin catalog: 30 steps expect half a step on it.
  const one = new Map([...builtin, ['canal_width', 'workspace'] as [string, string]]);
  assert.equal(folderReach(one, flows.slice(0, 5)).size, 0);
});

test('the first-seen times of the manifest folders persist; folders there before the file are judged on every flow', () => {
  const dir = tmpDir();
  const warnings: string[] = [];
  const first = foldersSince(dir, ['builtin', 'team'], 5000, (m) => warnings.push(m));
  assert.deepEqual([...first], [['builtin', 0], ['team', 0]]);
  const later = foldersSince(dir, ['builtin', 'team', 'qgis'], 9000, (m) => warnings.push(m));
  assert.deepEqual([...later], [['builtin', 0], ['team', 0], ['qgis', 9000]]);
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, FOLDERS_FILE), 'utf8')), { builtin: 0, team: 0, qgis: 9000 });
  fs.writeFileSync(path.join(dir, FOLDERS_FILE), '{ not json');
  const broken = foldersSince(dir, ['builtin'], 12000, (m) => warnings.push(m));
  assert.deepEqual([...broken], [['builtin', 0]]);
  assert.match(warnings.join('\n'), /folders\.json is unreadable .*judged on every learned flow/);
});

test('beside the builtin catalog, a team whose flows run only its own tools gets its own tools\' text matches at full scale; a new team, before its flows, does not lose its own', async () => {
  const team = path.join(repoRoot, 'bench', 'foreign', 'municipal');
  const flows = fs.readFileSync(path.join(team, 'fewshot.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { query: string; flow: string[] });
  const gw = await GeoWeave.open({ extraManifestDirs: [path.join(team, 'manifests')], stateDir: tmpDir(), practice: false });
  try {
    const own = new Set(gw.tools.filter((t) => t.source === 'extra').map((t) => t.manifest.id));
    // "buffer" is in the builtin catalog's words as in the team's.
    const task = 'buffer the school sites by 300 m and clip the noise raster to them';
    const plain = async () => (await gw.searchTools(task, 10)).filter((h) => !own.has(h.id)).map((h) => h.id);
    const before = await gw.forwardCandidates(task, { k: 40 });
    assert.ok(gw.stats().folders.every((f) => f.reach === 1), 'no flows: every folder whole');
    const builtinBefore = before.candidates.filter((c) => !own.has(c.id)).length;
    assert.ok(builtinBefore > 0, 'with nothing learned the builtin tools compete on their text');
    const searched = await plain();
    assert.ok(searched.length > 0, 'plain search finds builtin tools');
    await gw.recordTrajectories(flows.map((f) => ({ task: f.query, tools: f.flow })));
    const after = await gw.forwardCandidates(task, { k: 40 });
    const folders = gw.stats().folders;
    assert.equal(folders.length, 2);
    const builtin = folders.find((f) => f.tools === 64)!;
    assert.ok(builtin.reach > 0.05 && builtin.reach < 0.25, String(builtin.reach));
    assert.equal(folders.find((f) => f !== builtin)!.reach, 1);
    const builtinAfter = after.candidates.filter((c) => !own.has(c.id)).length;
    assert.ok(builtinAfter < builtinBefore, `builtin tools in the top 40: ${builtinBefore} → ${builtinAfter}`);
    assert.deepEqual(await plain(), searched, 'plain search is text alone: the flows do not move it');
    // The team's best text match now sets the text parts' scale.
    const best = Math.max(...after.candidates.filter((c) => own.has(c.id)).map((c) => c.parts?.lexical ?? 0));
    assert.equal(best, 1);
  } finally {
    await gw.dispose();
  }
});
