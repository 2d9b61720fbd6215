import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { parseTasks, readTasks } from '../../src/core/eval/tasks';
import { knnBaseline, transitionsBaseline } from '../../src/core/eval/baselines';
import { evaluate } from '../../src/core/eval/evaluate';
import { bareManifest, firstSentence, opaqueId } from '../../src/core/eval/bare';
import { writeBare, runCheck, shortfalls, foreignChecks, fewShotDraws, crowdedChecks } from '../../bench/foreign';
import { loadCatalog } from '../../src/core/manifests/load';
import { repoRoot, tmpDir } from '../fixtures/helpers';

const train = parseTasks([
  '{"id":"a","query":"burn severity of the fire scar","flow":["dnbr","burn_severity","area_by_class"]}',
  '{"id":"b","query":"hectares burnt by severity","flow":["dnbr","burn_severity","area_by_class"]}',
  '{"id":"c","query":"water area after the flood","flow":["mndwi","threshold","area_by_class"]}',
  '{"id":"d","query":"flood water outline as polygons","flow":["mndwi","threshold","vectorize_mask"]}',
].join('\n'));

test('baselines: transition counts and the kNN vote, deterministic, tools already run left out', async () => {
  const t = transitionsBaseline(train);
  assert.equal(t.forward, undefined, 'transition counts have no forward answer');
  assert.deepEqual((await t.next('anything', ['dnbr'], 3))[0], 'burn_severity');
  assert.deepEqual((await t.next('x', ['mndwi', 'threshold'], 2)).sort(), ['area_by_class', 'vectorize_mask']);
  assert.ok(!(await t.next('x', ['dnbr', 'burn_severity'], 10)).includes('dnbr'));
  const k = knnBaseline(train);
  const fwd = await k.forward!('flood water polygons', 3);
  assert.deepEqual(fwd.ids.slice(0, 2).sort(), ['mndwi', 'threshold']);
  assert.equal(fwd.ids[2], 'vectorize_mask', 'the closer flow votes more');
  assert.equal((await k.next('flood outline polygons', ['mndwi', 'threshold'], 1))[0], 'vectorize_mask', 'the similar task breaks the tie of the counts');
  const r = await evaluate(k, train, { ks: [1, 3] });
  assert.ok(r.forward['R@3'] > 0 && r.next['hit@3'] > 0);
});

test('bare catalog: first sentence, input names and types, opaque ids; nothing else of the manifest', () => {
  assert.equal(firstSentence('Turns a band into a mask, e.g. NDVI > 0.4 for vegetation. Analysts use it.'), 'Turns a band into a mask, e.g. NDVI > 0.4 for vegetation.');
  const m = bareManifest({ id: 'ndvi', name: 'NDVI', description: 'Computes NDVI. Needs red and NIR.', tags: ['x'], examples: ['e'], delivers: ['preview'], computes: ['NDVI'], inputs: [{ name: 'image', type: 'raster', bands: ['red', 'nir'], description: 'd' }], outputs: [{ name: 'index', type: 'raster' }], downstream: ['threshold'] }, (id) => opaqueId(id));
  assert.deepEqual(m, { id: opaqueId('ndvi'), name: 'NDVI', description: 'Computes NDVI.', inputs: [{ name: 'image', type: 'raster' }] });
  assert.match(m.id, /^t[0-9a-f]{7}$/);
  assert.equal(opaqueId('ndvi'), opaqueId('ndvi'));
});

test('bare-catalog protocol on a small slice: deterministic files, opaque ids throughout, eval prints the product beside the baselines', async () => {
  const out = tmpDir();
  const checks = writeBare(path.join(out, 'bare'), 30);
  const again = writeBare(path.join(out, 'bare2'), 30);
  for (const f of ['tasks.jsonl', 'practice.jsonl', 'dev.jsonl']) {
    assert.equal(fs.readFileSync(path.join(out, 'bare', f), 'utf8'), fs.readFileSync(path.join(out, 'bare2', f), 'utf8'));
  }
  const manifests = fs.readdirSync(checks[0].manifests);
  assert.equal(manifests.length, fs.readdirSync(path.join(repoRoot, 'tool-manifests')).filter((f) => f.endsWith('.json') && !/schema|fusion/.test(f)).length);
  const originalIds = new Set(readTasks(path.join(repoRoot, 'tool-manifests', 'practice.jsonl')).flatMap((t) => t.flow));
  for (const t of readTasks(checks[0].train)) for (const id of t.flow) assert.ok(!originalIds.has(id) && /^t[0-9a-f]{7}$/.test(id), id);
  assert.equal(readTasks(checks[0].test).length, 30);
  assert.equal(again.length, 2);
  const r = await runCheck(checks[0]);
  assert.deepEqual(Object.keys(r).sort(), ['full', 'knn', 'transitions']);
  for (const m of ['full', 'knn']) assert.ok(r[m].forward['R@10'] > 0 && r[m].next['hit@3'] > 0, m);
  assert.deepEqual(r.transitions.forward, {});
  assert.ok(Array.isArray(shortfalls(r)));
});

test('task files with steps as other systems log them: "steps"/"trajectory" keys and step objects naming their tool', () => {
  const tasks = parseTasks([
    JSON.stringify({ id: 'a', query: 'slope of the dem', steps: [{ tool: 'slope', args: { dem: 'd.tif' } }, { tool_id: 'reclassify' }] }),
    JSON.stringify({ id: 'b', task: 'ndvi mean per field', trajectory: ['ndvi', { name: 'zonal_stats' }] }),
    JSON.stringify({ id: 'c', query: 'q', flow: ['ndvi'] }),
  ].join('\n'), 'flows.jsonl');
  assert.deepEqual(tasks.map((t) => t.flow), [['slope', 'reclassify'], ['ndvi', 'zonal_stats'], ['ndvi']]);
  assert.deepEqual(tasks[0].gold, ['slope', 'reclassify']);
  assert.throws(() => parseTasks(JSON.stringify({ id: 'd', query: 'q', steps: [{ args: {} }] }), 'flows.jsonl'), /flows\.jsonl:1: "steps" must be an array of tool ids \(or of steps \{"tool": id, \.\.\.\}, or one string "a -> b -> c"\)/);
});

/**
 * What stops a tool loading or reads it other than as written. A tool with a title and no
 * description (an OpenAPI operation with only a `summary`) is a thin catalog, not a load problem:
 * its warning is for the team, and the tool loads.
 */
const loadProblems = (problems: { file: string; message: string }[]) => problems.filter((p) => !/^no description; the title is used/.test(p.message)).map((p) => `${p.file}: ${p.message}`);

test('foreign checks: every bench/foreign folder loads without a problem, and its flows name only its tools', () => {
  const root = path.join(repoRoot, 'bench', 'foreign');
  const names = fs.readdirSync(root).filter((n) => fs.statSync(path.join(root, n)).isDirectory()).sort();
  assert.ok(names.length >= 4, `foreign checks: ${names.join(', ')}`);
  for (const name of names) {
    const dir = path.join(root, name);
    const cat = loadCatalog({ noBuiltin: true, extraDirs: [path.join(dir, 'manifests')] });
    assert.deepEqual(loadProblems(cat.problems), [], name);
    const ids = new Set(cat.tools.map((t) => t.manifest.id));
    assert.ok(ids.size >= 80, `${name}: ${ids.size} tools`);
    for (const f of ['train.jsonl', 'test.jsonl', 'fewshot.jsonl']) {
      if (!fs.existsSync(path.join(dir, f))) continue;
      const unknown = readTasks(path.join(dir, f)).flatMap((t) => t.flow.filter((id) => !ids.has(id)).map((id) => `${t.id}: ${id}`));
      assert.deepEqual(unknown, [], `${name}/${f}`);
    }
    // Manifest file names stay portable (no ':' — the coastal ids hold one, written '__' in the file name).
    for (const file of fs.readdirSync(path.join(dir, 'manifests'))) assert.match(file, /^[A-Za-z0-9_.-]+\.(json|ya?ml)$/, `${name}/manifests/${file}`);
  }
});

test('few-shot draws: each draw holds the asked number of a team\'s training flows, the same on every run, and draws differ', () => {
  const out = tmpDir();
  const teams = foreignChecks(path.join(repoRoot, 'bench', 'foreign')).filter((c) => !c.name.includes(':'));
  const draws = fewShotDraws(teams, 3, 20, path.join(out, 'a'));
  const again = fewShotDraws(teams, 3, 20, path.join(out, 'b'));
  assert.equal(draws.length, teams.length * 3);
  draws.forEach((d, i) => {
    const flows = readTasks(d.train);
    assert.equal(flows.length, 20, d.name);
    const all = new Set(readTasks(teams.find((t) => d.name.startsWith(`${t.name}: `))!.train).map((t) => t.id));
    assert.ok(flows.every((t) => all.has(t.id)), `${d.name}: flows of its own team`);
    assert.equal(fs.readFileSync(d.train, 'utf8'), fs.readFileSync(again[i].train, 'utf8'), d.name);
  });
  const ids = (i: number) => readTasks(draws[i].train).map((t) => t.id).sort().join();
  assert.notEqual(ids(0), ids(1));
  fs.rmSync(out, { recursive: true, force: true });
});

test('crowded catalogs: each team\'s own manifests unchanged among every other team\'s tools, one tool per id, loading without a problem', () => {
  const out = tmpDir();
  const teams = foreignChecks(path.join(repoRoot, 'bench', 'foreign'));
  const crowded = crowdedChecks(teams, out);
  assert.equal(crowded.length, teams.length);
  const ids = (dir: string) => loadCatalog({ noBuiltin: true, extraDirs: [dir] });
  const every = new Set(teams.flatMap((t) => ids(t.manifests).tools.map((x) => x.manifest.id)));
  crowded.forEach((c, i) => {
    const home = teams[i].manifests;
    assert.equal(c.train, teams[i].train);
    const cat = ids(c.manifests);
    assert.deepEqual(loadProblems(cat.problems), [], c.name);
    assert.equal(cat.tools.length, every.size, c.name);
    assert.match(c.name, new RegExp(`^${teams[i].name}, among ${every.size} tools$`));
    for (const f of fs.readdirSync(home)) assert.equal(fs.readFileSync(path.join(c.manifests, f), 'utf8'), fs.readFileSync(path.join(home, f), 'utf8'), `${c.name}: ${f}`);
  });
  fs.rmSync(out, { recursive: true, force: true });
});
