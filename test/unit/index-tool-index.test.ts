import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { loadCatalog } from '../../src/core/manifests/load';
import { ToolIndex, FINGERPRINT_FILE, INDEX_FILE } from '../../src/core/index/tool-index';
import { BuiltinEmbedder } from '../../src/core/embed/builtin';
import type { Embedder } from '../../src/core/embed/types';
import { copyCatalog, fixtureCatalog, logSink, tmpDir, writeJson } from '../fixtures/helpers';

const tools = () => loadCatalog({ noBuiltin: true, extraDirs: [fixtureCatalog] }).tools;

/** Wraps the builtin embedder and counts texts embedded (to prove updates are incremental). */
function counting(id = 'builtin:v1'): Embedder & { texts: number } {
  const inner = new BuiltinEmbedder();
  const e = { id, dimension: inner.dimension, texts: 0, embed: async (t: string[]) => { e.texts += t.length; return inner.embed(t); } };
  return e;
}

async function top(index: ToolIndex, emb: Embedder, text: string): Promise<string> {
  const [q] = await emb.embed([text]);
  return [...index.search(q, 3).entries()].sort((a, b) => b[1] - a[1])[0][0];
}

test('builds, persists with a fingerprint, and reopens without re-embedding', async () => {
  const state = tmpDir();
  const emb = counting();
  const { index, update } = await ToolIndex.open(tools(), { stateDir: state, embedder: emb });
  assert.equal(update.rebuilt, true);
  assert.ok(fs.existsSync(path.join(state, INDEX_FILE)));
  const fp = JSON.parse(fs.readFileSync(path.join(state, FINGERPRINT_FILE), 'utf8'));
  assert.equal(fp.embedder, 'builtin:v1');
  assert.equal(fp.dimension, emb.dimension);
  assert.equal(Object.keys(fp.tools).length, 10);
  assert.equal(await top(index, emb, 'how steep is the terrain'), 'slope');
  const emb2 = counting();
  const again = await ToolIndex.open(tools(), { stateDir: state, embedder: emb2 });
  assert.equal(again.update.rebuilt, false);
  assert.equal(emb2.texts, 0);
  assert.equal(await top(again.index, emb2, 'how steep is the terrain'), 'slope');
});

test('adding, changing and removing manifests updates only those tools', async () => {
  const dir = copyCatalog();
  const state = tmpDir();
  const load = () => loadCatalog({ noBuiltin: true, extraDirs: [dir] }).tools;
  await ToolIndex.open(load(), { stateDir: state, embedder: counting() });
  writeJson(path.join(dir, 'hillshade.json'), { id: 'hillshade', description: 'Shaded relief from a DEM.', examples: ['make a relief map of the mountains'] });
  const slope = JSON.parse(fs.readFileSync(path.join(dir, 'slope.json'), 'utf8'));
  slope.examples = ['how steep is the terrain'];
  writeJson(path.join(dir, 'slope.json'), slope);
  fs.unlinkSync(path.join(dir, 'evi.json'));
  const emb = counting();
  const { index, update } = await ToolIndex.open(load(), { stateDir: state, embedder: emb });
  assert.deepEqual(update, { added: ['hillshade'], changed: ['slope'], removed: ['evi'], rebuilt: false });
  assert.equal(emb.texts, 2 + 2); // hillshade: main + 1 example; slope: main + 1 example
  assert.equal(await top(index, emb, 'relief map of the mountains'), 'hillshade');
  const [q] = await emb.embed(['enhanced vegetation index for dense forest']);
  assert.ok(!index.search(q, 10).has('evi'));
  assert.equal(index.has('evi'), false);
  // and the result persisted: reopening needs no embedding
  const emb3 = counting();
  const r3 = await ToolIndex.open(load(), { stateDir: state, embedder: emb3 });
  assert.equal(emb3.texts, 0);
  assert.equal(r3.index.toolCount, 10);
  // The count a search reads follows every update of an open index (it is cached between them).
  fs.unlinkSync(path.join(dir, 'slope.json'));
  await r3.index.update(load());
  assert.equal(r3.index.toolCount, 9);
  writeJson(path.join(dir, 'aspect2.json'), { id: 'aspect2', description: 'Aspect from a DEM.' });
  writeJson(path.join(dir, 'aspect3.json'), { id: 'aspect3', description: 'Aspect classes from a DEM.' });
  await r3.index.update(load());
  assert.equal(r3.index.toolCount, 11);
});

test('the index grows past its initial capacity (resize)', async () => {
  const dir = tmpDir();
  const state = tmpDir();
  writeJson(path.join(dir, 't0.json'), { id: 't0', description: 'tool zero' });
  const load = () => loadCatalog({ noBuiltin: true, extraDirs: [dir] }).tools;
  await ToolIndex.open(load(), { stateDir: state, embedder: counting() });
  for (let i = 1; i < 60; i++) writeJson(path.join(dir, `t${i}.json`), { id: `t${i}`, description: `synthetic tool number ${i} for water ${i % 7} and forest ${i % 5}` });
  const { index, update } = await ToolIndex.open(load(), { stateDir: state, embedder: counting() });
  assert.equal(update.added.length, 59);
  assert.equal(index.vectorCount, 60);
});

test('a corrupt index file is rebuilt with a warning, not a crash', async () => {
  const state = tmpDir();
  await ToolIndex.open(tools(), { stateDir: state, embedder: counting() });
  const file = path.join(state, INDEX_FILE);
  const buf = fs.readFileSync(file);
  fs.writeFileSync(file, buf.subarray(0, Math.floor(buf.length / 3)));
  const sink = logSink();
  const emb = counting();
  const { index, update } = await ToolIndex.open(tools(), { stateDir: state, embedder: emb, log: sink.log });
  assert.equal(update.rebuilt, true);
  assert.ok(sink.warnings().some((w) => /corrupt/.test(w)), sink.warnings().join('\n'));
  assert.equal(await top(index, emb, 'how steep is the terrain'), 'slope');
  // garbage fingerprint too
  fs.writeFileSync(path.join(state, FINGERPRINT_FILE), '{{{');
  const sink2 = logSink();
  const r2 = await ToolIndex.open(tools(), { stateDir: state, embedder: counting(), log: sink2.log });
  assert.equal(r2.update.rebuilt, true);
  assert.ok(sink2.warnings().some((w) => /fingerprint unreadable/.test(w)));
});

test('a fingerprint mismatch (other embedder or dimension) rebuilds', async () => {
  const state = tmpDir();
  await ToolIndex.open(tools(), { stateDir: state, embedder: counting('builtin:v1') });
  const sink = logSink();
  const other = counting('other:model-x');
  const { update } = await ToolIndex.open(tools(), { stateDir: state, embedder: other, log: sink.log });
  assert.equal(update.rebuilt, true);
  assert.ok(other.texts > 0);
  assert.ok(sink.warnings().some((w) => /built with embedder builtin:v1, now other:model-x/.test(w)));
  const fp = JSON.parse(fs.readFileSync(path.join(state, FINGERPRINT_FILE), 'utf8'));
  assert.equal(fp.embedder, 'other:model-x');
  // missing index file beside a fingerprint
  fs.unlinkSync(path.join(state, INDEX_FILE));
  const sink2 = logSink();
  const r = await ToolIndex.open(tools(), { stateDir: state, embedder: counting('other:model-x'), log: sink2.log });
  assert.equal(r.update.rebuilt, true);
  assert.ok(sink2.warnings().some((w) => /index file missing/.test(w)));
});

test('GeoWeave.reload picks up manifest changes incrementally and they are searchable', async () => {
  const { GeoWeave } = await import('../../src/core/geoweave');
  const dir = copyCatalog();
  const gw = await GeoWeave.open({ noBuiltin: true, extraManifestDirs: [dir], stateDir: tmpDir() });
  writeJson(path.join(dir, 'viewshed.json'), { id: 'viewshed', description: 'Visible area from an observer point on a DEM.', examples: ['what can be seen from the watchtower'] });
  fs.unlinkSync(path.join(dir, 'evi.json'));
  const diff = await gw.reload();
  assert.deepEqual(diff, { added: ['viewshed'], changed: [], removed: ['evi'] });
  assert.equal((await gw.searchTools('what can be seen from the watchtower', 1))[0].id, 'viewshed');
  assert.equal(gw.getTool('evi'), undefined);
  assert.equal(gw.stats().tools, 10);
  await gw.dispose();
});

test('GeoWeave.reload called twice at once (a save and a file watcher) ends as the same reloads one after the other', async () => {
  const { GeoWeave } = await import('../../src/core/geoweave');
  const canal = (description: string) => ({ id: 'canal_width', description, examples: ['how wide are the irrigation canals'] });
  const texts = ['Width of canals.', 'Measures the width of irrigation canals from a water mask, in metres.'];
  const open = async () => {
    const dir = copyCatalog();
    const state = tmpDir();
    return { dir, state, gw: await GeoWeave.open({ noBuiltin: true, extraManifestDirs: [dir], stateDir: state }) };
  };
  const racing = await open();
  const serial = await open();
  const at = (d: string) => path.join(d, 'canal_width.json');
  writeJson(at(racing.dir), canal(texts[0]));
  const first = racing.gw.reload();
  // Edited again before the first reload has embedded.
  writeJson(at(racing.dir), canal(texts[1]));
  const second = racing.gw.reload();
  await Promise.all([first, second]);
  for (const t of texts) {
    writeJson(at(serial.dir), canal(t));
    await serial.gw.reload();
  }
  assert.deepEqual(await racing.gw.reload(), { added: [], changed: [], removed: [] });
  // One vector per text of the manifest as it is now: nothing left of the text it had a moment before.
  const labels = (d: string) => JSON.parse(fs.readFileSync(path.join(d, FINGERPRINT_FILE), 'utf8')).tools.canal_width.labels.length;
  assert.equal(labels(racing.state), labels(serial.state));
  for (const q of ['measure how wide the irrigation canals are', 'canal width from a water mask']) {
    const r = await racing.gw.searchTools(q, 5);
    assert.equal(r[0].id, 'canal_width', q);
    assert.deepEqual(r, await serial.gw.searchTools(q, 5), q);
  }
  await racing.gw.dispose();
  await serial.gw.dispose();
});

test('a state folder fitted on another catalog is refitted: the ranking is a fresh folder\'s; a few new tools keep the fit', async () => {
  const { GeoWeave } = await import('../../src/core/geoweave');
  const fitFile = (d: string) => JSON.parse(fs.readFileSync(path.join(d, 'embedder-state.json'), 'utf8'));
  const ranking = async (gw: Awaited<ReturnType<typeof GeoWeave.open>>) => (await gw.forwardCandidates('how steep is the terrain around the reservoir', { k: 10 })).candidates.map((c) => [c.id, c.score]);
  // The folder first served the builtin catalog (as after `npm run demo` or an eval of ours).
  const shared = tmpDir();
  await (await GeoWeave.open({ stateDir: shared })).dispose();
  assert.ok(fitFile(shared).fittedOn.includes('ndvi'));
  const dir = copyCatalog();
  const sink = logSink();
  const reused = await GeoWeave.open({ noBuiltin: true, extraManifestDirs: [dir], stateDir: shared, log: sink.log });
  const fresh = await GeoWeave.open({ noBuiltin: true, extraManifestDirs: [dir], stateDir: tmpDir() });
  assert.deepEqual(await ranking(reused), await ranking(fresh));
  assert.ok(sink.lines.some((l) => /fitted on another catalog \(\d+ of 10 tools shared with the 6\d it was fitted on\)/.test(l.msg)), sink.lines.map((l) => l.msg).join('\n'));
  assert.deepEqual(fitFile(shared).fittedOn, reused.tools.map((t) => t.manifest.id).sort());
  await reused.dispose();
  await fresh.dispose();
  // One tool more is the same catalog grown: the fit stays and the index is updated in place.
  const before = fitFile(shared);
  writeJson(path.join(dir, 'viewshed.json'), { id: 'viewshed', description: 'Visible area from an observer point on a DEM.' });
  const sink2 = logSink();
  const grown = await GeoWeave.open({ noBuiltin: true, extraManifestDirs: [dir], stateDir: shared, log: sink2.log });
  assert.equal(grown.tools.length, 11);
  assert.deepEqual(fitFile(shared), before);
  assert.ok(!sink2.lines.some((l) => /refitting|rebuilding/.test(l.msg)), sink2.lines.map((l) => l.msg).join('\n'));
  await grown.dispose();
});

test('GeoWeave.reload: the next steps of a task asked before see the new catalog (its ranking and text match are not kept from the old one)', async () => {
  const { GeoWeave } = await import('../../src/core/geoweave');
  const dir = copyCatalog();
  const gw = await GeoWeave.open({ noBuiltin: true, extraManifestDirs: [dir], stateDir: tmpDir() });
  try {
    const task = 'what can be seen from the watchtower over the valley';
    const memory = { task, windowSize: 5, trace: [{ tool: gw.tools[0].manifest.id, argSummary: '', resultSummary: '', outputs: [], ok: true, time: '' }] };
    const before = await gw.complementarySuggestions(memory, { k: 50 });
    assert.ok(!before.ranked.some((s) => s.id === 'viewshed'));
    writeJson(path.join(dir, 'viewshed.json'), { id: 'viewshed', description: 'Visible area from an observer point on a DEM.', examples: ['what can be seen from the watchtower'] });
    await gw.reload();
    const after = await gw.complementarySuggestions(memory, { k: 50 });
    const v = after.ranked.find((s) => s.id === 'viewshed');
    assert.ok(v, after.ranked.map((s) => s.id).join(' '));
    assert.ok((v.parts.task ?? 0) > 0.5, `the task's match to the new tool: ${JSON.stringify(v.parts)}`);
  } finally {
    await gw.dispose();
  }
});
