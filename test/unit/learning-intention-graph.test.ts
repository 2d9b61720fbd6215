import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { IntentionGraph, LEARNED_FILE } from '../../src/core/learning/intention-graph';
import { GeoWeave } from '../../src/core/geoweave';
import { fixtureCatalog, logSink, repoRoot, tmpDir } from '../fixtures/helpers';

test('transitions and affinities accumulate, decay with their half-life, and persist', () => {
  let now = Date.UTC(2026, 0, 1);
  const dir = tmpDir();
  const g = IntentionGraph.load(dir, { halfLifeDays: 10, now: () => now });
  g.recordTrajectory(['burn', 'c:burn'], ['dnbr', 'burn_severity', 'area_by_class']);
  g.recordTrajectory(['burn'], ['dnbr', 'burn_severity']);
  const t0 = g.transition('dnbr', 'burn_severity');
  assert.ok(t0 > 0.4, String(t0));
  assert.equal(g.transition('burn_severity', 'dnbr'), 0);
  assert.equal(g.transitionCount, 2);
  assert.ok(g.affinity(['burn'], 'dnbr').score > 0);
  g.save();
  now += 10 * 86_400_000;
  const g2 = IntentionGraph.load(dir, { now: () => now });
  // Decay scales every count alike, so ratios hold; new evidence now outweighs old.
  g2.recordTrajectory(['burn'], ['dnbr', 'area_by_class']);
  g2.recordTrajectory(['burn'], ['dnbr', 'area_by_class']);
  assert.ok(g2.transition('dnbr', 'area_by_class') > g2.transition('dnbr', 'burn_severity'));
  const raw = JSON.parse(fs.readFileSync(path.join(dir, LEARNED_FILE), 'utf8'));
  assert.equal(raw.transitions.dnbr.burn_severity.s, 2);
});

test('dismissals push a tool down, failures count against transitions', () => {
  const g = new IntentionGraph(undefined);
  g.recordFeedback(['water'], 'ndwi', false);
  assert.ok(g.affinity(['water'], 'ndwi').score < 0);
  g.recordTrajectory([], ['mndwi', 'threshold'], false);
  assert.ok(g.transition('mndwi', 'threshold') < 0);
});

test('an unreadable learned file or state folder falls back to fresh with a warning', async () => {
  const dir = tmpDir();
  fs.writeFileSync(path.join(dir, LEARNED_FILE), 'not json at all');
  const sink = logSink();
  const g = IntentionGraph.load(dir, { log: sink.log });
  assert.equal(g.transitionCount, 0);
  assert.ok(sink.warnings().some((w) => w.includes('unreadable') && w.includes(LEARNED_FILE)));

  // A state "folder" that is a file: GeoWeave opens on a fresh temp folder and says so.
  const notADir = path.join(tmpDir(), 'state-file');
  fs.writeFileSync(notADir, 'x');
  const sink2 = logSink();
  const gw = await GeoWeave.open({ noBuiltin: true, extraManifestDirs: [fixtureCatalog], stateDir: notADir, log: sink2.log });
  assert.notEqual(gw.stateFolder, notADir);
  assert.ok(sink2.warnings().some((w) => w.includes('state folder') && w.includes(notADir)));
  const r = await gw.forwardCandidates('how steep is the terrain', { k: 3 });
  assert.equal(r.candidates[0].id, 'slope');
  await gw.dispose();
});

test('learning changes rankings: accepted feedback and trajectories lift the chosen tool', async () => {
  const state = tmpDir();
  const gw = await GeoWeave.open({ noBuiltin: true, extraManifestDirs: [fixtureCatalog], stateDir: state });
  const task = 'check my orchard';
  const rank = async (id: string) => (await gw.forwardCandidates(task, { k: 10 })).candidates.findIndex((c) => c.id === id);
  // Orchards on hillsides: this analyst always starts with slope, which text alone ranks low.
  const before = await rank('slope');
  assert.ok(before >= 3, `slope ranked ${before} before learning`);
  await gw.recordFeedback(task, 'slope', 'accepted');
  await gw.recordTrajectory('check my orchard trees', ['slope', 'zonal_stats']);
  const after1 = await rank('slope');
  assert.ok(after1 >= 0 && after1 < before, `slope ranked ${after1} after learning`);
  await gw.recordFeedback(task, 'slope', 'accepted');
  await gw.recordFeedback(task, 'evi', 'dismissed');
  assert.equal(await rank('slope'), 0);
  const r = (await gw.forwardCandidates(task, { k: 10 })).candidates[0];
  assert.ok(r.parts.learned > 0);
  assert.ok(r.explanation.learned.length > 0);
  // transitions feed the backward direction
  const mem = { task, windowSize: 5, trace: [{ tool: 'slope', argSummary: '', resultSummary: '', outputs: [], ok: true, time: '' }] };
  const next = await gw.complementarySuggestions(mem, { k: 3 });
  assert.equal(next.ranked[0].id, 'zonal_stats');
  assert.equal(gw.stats().learnedTransitions, 1);
  await gw.dispose();
  // persisted: a new instance on the same state sees it
  const gw2 = await GeoWeave.open({ noBuiltin: true, extraManifestDirs: [fixtureCatalog], stateDir: state });
  assert.equal((await gw2.forwardCandidates(task, { k: 3 })).candidates[0].id, 'slope');
  await gw2.dispose();
});

test('transition back-off: unseen tools inherit what follows their kind of product, seen pairs keep their own counts', async () => {
  const { TransitionModel } = await import('../../src/core/learning/backoff');
  const g = new IntentionGraph(undefined);
  g.recordTrajectory([], ['ndvi', 'threshold', 'area_by_class']);
  g.recordTrajectory([], ['ndvi', 'threshold', 'area_by_class']);
  g.recordTrajectory([], ['mndwi', 'otsu_threshold', 'area_by_class']);
  g.recordTrajectory([], ['ndvi', 'zonal_stats']);
  const kind: Record<string, string> = { ndvi: 'index', mndwi: 'index', ndwi: 'index', threshold: 'mask', otsu_threshold: 'mask', morphology: 'mask', area_by_class: 'table', zonal_stats: 'table' };
  const cat: Record<string, string> = { ndvi: 'spectral', mndwi: 'water', ndwi: 'water', threshold: 'masking', otsu_threshold: 'masking', morphology: 'masking', area_by_class: 'statistics', zonal_stats: 'statistics', slope: 'terrain' };
  const m = new TransitionModel(g, (t) => kind[t], (t) => cat[t], Object.keys(cat), { toolPrior: 1, kindPrior: 5 });
  // ndwi was never seen: after an index, thresholds and zonal stats came next, never area_by_class or slope.
  assert.equal(g.transition('ndwi', 'threshold'), 0);
  assert.ok(m.score('ndwi', 'threshold') > 0.1, String(m.score('ndwi', 'threshold')));
  assert.ok(m.score('ndwi', 'threshold') > m.score('ndwi', 'area_by_class'));
  assert.equal(m.score('ndwi', 'slope'), 0);
  // morphology (a mask, never seen as a source) → area_by_class, as after every other mask.
  assert.ok(m.score('morphology', 'area_by_class') > 0.2, String(m.score('morphology', 'area_by_class')));
  // zonal_stats never followed a mask but shares area_by_class's category: some credit, less.
  assert.ok(m.score('morphology', 'zonal_stats') > 0 && m.score('morphology', 'zonal_stats') < m.score('morphology', 'area_by_class'));
  // the same category shares its kind's mass: otsu (never after an index from ndvi) gets some, less than threshold.
  assert.ok(m.score('ndvi', 'otsu_threshold') > 0 && m.score('ndvi', 'otsu_threshold') < m.score('ndvi', 'threshold'));
  // a well-attested pair stays close to its own estimate.
  assert.ok(Math.abs(m.score('ndvi', 'threshold') - g.transition('ndvi', 'threshold')) < 0.15);
  // failures still count against a pair.
  g.recordTrajectory([], ['ndwi', 'zonal_stats'], false);
  g.recordTrajectory([], ['ndwi', 'zonal_stats'], false);
  const m2 = new TransitionModel(g, (t) => kind[t], (t) => cat[t], Object.keys(cat), { toolPrior: 1, kindPrior: 5 });
  assert.ok(m2.score('ndwi', 'zonal_stats') < m2.score('ndwi', 'threshold'));
});

test('similar cases: flows of tasks worded alike vote for what followed the latest step; prior never decays, learned cases do and persist', () => {
  let now = Date.UTC(2026, 0, 1);
  const dir = tmpDir();
  const g = IntentionGraph.load(dir, { halfLifeDays: 10, now: () => now });
  g.setPrior([
    { terms: ['mean', 'parcel', 'orchard'], tools: ['ndvi', 'zonal_stats'] },
    { terms: ['year', 'pine', 'die'], tools: ['ndvi', 'bfast_breakpoints', 'quicklook'] },
  ]);
  const parcel = g.similarNext(['parcel', 'mean', 'vineyard'], ['ndvi']);
  assert.deepEqual([...parcel.keys()], ['zonal_stats']);
  assert.equal(parcel.get('zonal_stats'), 1);
  const year = g.similarNext(['which', 'year', 'pine'], ['cloud_mask', 'ndvi']);
  assert.deepEqual([...year.keys()], ['bfast_breakpoints']);
  // The vote skips what already ran: after ndvi and bfast, the case's next step is the preview.
  assert.deepEqual([...g.similarNext(['year', 'pine'], ['ndvi', 'bfast_breakpoints']).keys()], ['quicklook']);
  // No term in common, or a latest step no case ran: no vote.
  assert.equal(g.similarNext(['flood'], ['ndvi']).size, 0);
  assert.equal(g.similarNext(['parcel'], ['slope']).size, 0);

  // A learned case counts beside the prior; it halves every half-life, the prior does not.
  g.recordTrajectory(['mean', 'parcel', 'orchard'], ['ndvi', 'raster_stats']);
  const both = g.similarNext(['mean', 'parcel', 'orchard'], ['ndvi']);
  // (The practice's share is 11/12 now: one of the learned flow's two steps runs a tool it never ran.
  // Its one flow stands for 11 learned flows' worth, more than it has: it counts in full.)
  assert.equal(g.practiceShare(), 11 / 12);
  const r = g.priorWeight();
  assert.equal(r, 1);
  assert.ok(Math.abs(both.get('zonal_stats')! - r / (1 + r)) < 1e-9 && Math.abs(both.get('raster_stats')! - 1 / (1 + r)) < 1e-9, JSON.stringify([...both]));
  g.save();
  now += 10 * 86_400_000;
  const g2 = IntentionGraph.load(dir, { now: () => now });
  g2.setPrior([{ terms: ['mean', 'parcel', 'orchard'], tools: ['ndvi', 'zonal_stats'] }]);
  const later = g2.similarNext(['mean', 'parcel', 'orchard'], ['ndvi']);
  assert.ok(Math.abs(g2.practiceShare() - 10.5 / 11) < 1e-9, String(g2.practiceShare()));
  const r2 = g2.priorWeight();
  assert.equal(r2, 1);
  assert.ok(Math.abs(later.get('raster_stats')! - 0.5 / (0.5 + r2)) < 1e-9, JSON.stringify([...later]));
  // Only the top neighbours vote.
  assert.deepEqual([...g2.similarNext(['mean', 'parcel', 'orchard'], ['ndvi'], 1).keys()], ['zonal_stats']);
  const raw = JSON.parse(fs.readFileSync(path.join(dir, LEARNED_FILE), 'utf8'));
  assert.deepEqual(raw.cases.map((c: { tools: string[] }) => c.tools), [['ndvi', 'raster_stats']]);
  // A notebook's later segment (joined at its last recorded step) extends the same case; another task starts a new one.
  g2.recordTrajectory(['orchard', 'parcel', 'mean'], ['raster_stats', 'zonal_stats', 'quicklook']);
  g2.recordTrajectory(['flood'], ['quicklook', 'cog_convert']);
  assert.deepEqual(g2.toJSON().cases!.map((c) => c.tools), [['ndvi', 'raster_stats', 'zonal_stats', 'quicklook'], ['quicklook', 'cog_convert']]);
  assert.equal(g2.caseCount, 3, 'two learned, one shipped');
});

test('the shipped practice yields to a team whose flows run other tools: it holds the share of learned steps on its tools, with 10 steps on its side', () => {
  // 20 practice flows, so that their weight is not capped at 1 below.
  const practice = Array.from({ length: 10 }, () => [
    { terms: ['flood', 'extent', 'map'], tools: ['mndwi', 'threshold', 'area_by_class'] },
    { terms: ['flood', 'depth'], tools: ['mndwi', 'threshold', 'flood_depth'] },
  ]).flat();
  const g = new IntentionGraph(undefined);
  g.setPrior(practice);
  assert.equal(g.practiceShare(), 1);
  assert.equal(g.priorWeight(), 1, 'nothing learned: the practice counts fully');
  assert.deepEqual([...g.similarTools(['flood', 'extent', 'map'], 20).keys()].sort(), ['area_by_class', 'flood_depth', 'mndwi', 'threshold']);
  // An analyst who runs the practice's tools keeps it whole.
  g.recordTrajectory(['flood', 'extent'], ['mndwi', 'threshold', 'area_by_class']);
  assert.equal(g.practiceShare(), 1);
  assert.equal(g.priorWeight(), 1);
  // A team on its own tools: 10 flows of 3 steps, none on the practice's tools.
  const team = new IntentionGraph(undefined);
  team.setPrior(practice);
  for (let i = 0; i < 10; i++) team.recordTrajectory(['flood', 'extent', 'map', `zone${i}`], ['sar_load', 'sar_flood_mask', 'cresta_loss']);
  // (Learned flows decay by the clock between records: compared within 1e-6.)
  assert.ok(Math.abs(team.practiceShare() - 10 / 40) < 1e-6, String(team.practiceShare()));
  // A share of 1/4 beside 10 flows is 10/3 flows' worth: each of the 20 practice flows weighs 1/6.
  assert.ok(Math.abs(team.priorWeight() - 10 / 3 / 20) < 1e-6, String(team.priorWeight()));
  for (let i = 10; i < 40; i++) team.recordTrajectory(['flood', 'extent', 'map', `zone${i}`], ['sar_load', 'sar_flood_mask', 'cresta_loss']);
  assert.ok(Math.abs(team.practiceShare() - 10 / 130) < 1e-6, String(team.practiceShare()));
  // The practice still holds its 10 steps, 10/3 flows of 3 steps, beside the team's 40 flows.
  assert.ok(Math.abs(team.priorWeight() - 10 / 3 / 20) < 1e-6, String(team.priorWeight()));
  // Its task now finds its own flows first; the practice's flows weigh 10/3 flows in every learned part.
  const tools = team.similarTools(['flood', 'extent', 'map'], 10);
  assert.ok(tools.get('sar_flood_mask')! > 4 * (tools.get('mndwi') ?? 0), JSON.stringify([...tools]));
  const alone = new IntentionGraph(undefined);
  alone.setPrior(practice);
  assert.ok(team.sequences().popularity('mndwi') < 0.1, String(team.sequences().popularity('mndwi')));
  assert.equal(alone.sequences().popularity('mndwi'), 1);
});

test('next-step suggestions follow the case of the most similar task after the same step', async () => {
  const gw = await GeoWeave.open({ noBuiltin: true, extraManifestDirs: [fixtureCatalog], stateDir: tmpDir() });
  try {
    await gw.recordTrajectories([
      { task: 'mean vegetation index for every orchard parcel', tools: ['ndvi', 'zonal_stats'] },
      { task: 'mask of the stressed fields below a cutoff', tools: ['ndvi', 'threshold'] },
    ]);
    const step = { tool: 'ndvi', argSummary: '', resultSummary: '', outputs: [], ok: true, time: '' };
    const next = async (task: string) => (await gw.complementarySuggestions({ task, windowSize: 5, trace: [step] }, { k: 10 })).ranked;
    const a = await next('average index of each orchard parcel');
    const b = await next('cutoff for the stressed fields');
    const sim = (r: typeof a, id: string) => r.find((s) => s.id === id)?.parts.similar ?? 0;
    assert.ok(sim(a, 'zonal_stats') > sim(a, 'threshold'), JSON.stringify(a.map((s) => [s.id, s.parts.similar])));
    assert.ok(sim(b, 'threshold') > sim(b, 'zonal_stats'), JSON.stringify(b.map((s) => [s.id, s.parts.similar])));
  } finally {
    await gw.dispose();
  }
});

test('similar tools (forward): the flows of the closest past tasks lend their tools strength by similarity, not by share alone', async () => {
  const g = new IntentionGraph(undefined);
  g.setPrior([
    { terms: ['burn', 'severity', 'hectare', 'fire'], tools: ['dnbr', 'burn_severity', 'area_by_class'] },
    { terms: ['flood', 'water', 'extent'], tools: ['mndwi', 'otsu_threshold'] },
  ]);
  const close = g.similarTools(['burn', 'severity', 'hectare', 'fire']);
  const loose = g.similarTools(['fire', 'map', 'village', 'road', 'river']);
  assert.ok(close.get('burn_severity')! > loose.get('burn_severity')!, `${close.get('burn_severity')} vs ${loose.get('burn_severity')}`);
  assert.ok(close.get('burn_severity')! <= 1 && !close.has('mndwi'));
  // A task unlike any before: no votes at all, rather than confident ones from the least unlike.
  assert.equal(g.similarTools(['glacier', 'moraine']).size, 0);

  const gw = await GeoWeave.open({ noBuiltin: true, extraManifestDirs: [fixtureCatalog], stateDir: tmpDir() });
  try {
    const task = 'how much of the orchard is on steep ground';
    for (let i = 0; i < 3; i++) await gw.recordTrajectories([{ task: `${task} ${['north', 'east', 'west'][i]}`, tools: ['slope', 'threshold', 'area_by_class'] }]);
    const c = (await gw.forwardCandidates(task, { k: 10 })).candidates.find((x) => x.id === 'area_by_class')!;
    assert.ok(c.parts.similarTools >= 0.5, String(c.parts.similarTools));
    assert.ok(c.explanation.learned.includes('used in the flows of similar past tasks'), JSON.stringify(c.explanation));
  } finally {
    await gw.dispose();
  }
});

test('flows learned before a parser change are read with the terms the parser gives today', () => {
  const dir = tmpDir();
  // A fixed clock: flows recorded a millisecond apart would not weigh exactly alike.
  const now = () => 1_800_000_000_000;
  const g = IntentionGraph.load(dir, { now });
  // Recorded when sensor names were left out of the terms: the task text was kept with the flow.
  g.recordTrajectory(['flood', 'map'], ['landsat_fetch', 'qa_decode', 'mndwi'], true, 'Landsat flood map');
  g.recordTrajectory(['flood', 'map'], ['s1_fetch', 's1_calibrate', 'threshold'], true, 'Sentinel-1 flood map');
  g.save();
  const parse = (q: string) => q.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
  const old = IntentionGraph.load(dir, { now });
  const today = IntentionGraph.load(dir, { termsOf: parse, now });
  const landsat = ['landsat', 'flood', 'map'];
  assert.equal(old.similarShares(landsat).get('landsat_fetch'), 0.5, 'the stored terms cannot tell the two flows apart');
  const shares = today.similarShares(landsat);
  assert.ok(shares.get('landsat_fetch')! > 0.7 && shares.get('s1_fetch')! < 0.3, `read today, "landsat" finds its flow: ${[...shares]}`);
  assert.ok(today.classifier().knowsTerm('landsat') && !old.classifier().knowsTerm('landsat'));
  // The saved file is not rewritten: the terms are derived when the models are built.
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, LEARNED_FILE), 'utf8')).cases[0].terms, ['flood', 'map']);
});

test('a fit replays the practice in the learned graph\'s share until a team has flows enough to fit on (2), then in the share of its steps that run the practice\'s tools', async () => {
  const team = path.join(repoRoot, 'bench', 'foreign', 'municipal');
  const flows = fs.readFileSync(path.join(team, 'train.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { query: string; flow: string[] });
  const practice = fs.readFileSync(path.join(repoRoot, 'tool-manifests', 'practice.jsonl'), 'utf8').trim().split('\n').length;
  const gw = await GeoWeave.open({ extraManifestDirs: [path.join(team, 'manifests')], stateDir: tmpDir() });
  try {
    assert.equal(gw.fusionStatus().flows, practice, 'nothing learned: every practice flow');
    // One flow cannot be fitted on alone: the practice comes in the share the learned graph gives it.
    await gw.recordTrajectories(flows.slice(0, 1).map((f) => ({ task: f.query, tools: f.flow })));
    const r1 = 10 / (10 + flows[0].flow.length);
    // (Learned flows decay from the moment they were recorded: a few milliseconds here.)
    assert.ok(Math.abs(gw.stats().practiceShare - r1) < 1e-6, String(gw.stats().practiceShare));
    assert.equal(gw.fusionStatus().flows, Math.round(r1 * practice) + 1);
    await gw.recordTrajectories(flows.slice(1, 5).map((f) => ({ task: f.query, tools: f.flow })));
    const steps5 = flows.slice(0, 5).reduce((a, f) => a + f.flow.length, 0);
    const r5 = 10 / (10 + steps5);
    assert.ok(Math.abs(gw.stats().practiceShare - r5) < 1e-6, String(gw.stats().practiceShare));
    // Each practice flow weighs what keeps the practice at its share: 10 steps' worth in all.
    assert.ok(Math.abs(gw.stats().practiceWeight - ((r5 / (1 - r5)) * 5) / practice) < 1e-6, String(gw.stats().practiceWeight));
    // The team's flows run none of the practice's tools: the fit replays none of its flows.
    assert.equal(gw.fusionStatus().flows, 5);
    // A flow on the builtin tools: the practice is replayed in the share of the steps on its tools.
    const builtinFlow = ['ndvi', 'zonal_stats'];
    await gw.recordTrajectories([{ task: 'mean NDVI per parcel', tools: builtinFlow }]);
    const u = 2 / (steps5 + 2);
    assert.equal(gw.fusionStatus().flows, Math.round((u / (1 - u)) * 6) + 6);
  } finally {
    await gw.dispose();
  }
});

test('a save that merges another process\'s flows retrains the models on them (a second window\'s flows count at once, not at this one\'s next flow)', () => {
  const dir = tmpDir();
  const a = IntentionGraph.load(dir);
  const b = IntentionGraph.load(dir);
  b.recordTrajectory(['slope'], ['dem_fill', 'slope']);
  b.save();
  assert.equal(b.sequences().popularity('ndvi'), 0);
  assert.equal(b.classifier().predict(['vegetation']).get('ndvi') ?? 0, 0);
  const v = b.version;
  a.recordTrajectory(['vegetation', 'health'], ['ndvi', 'zonal_stats']);
  a.save();
  // b records only feedback, then saves: the merge brings a's flow.
  b.recordFeedback(['slope'], 'slope', true);
  b.save();
  assert.ok(b.version > v);
  assert.equal(b.caseCount, 2);
  assert.ok(Math.abs(b.sequences().popularity('ndvi') - 0.5) < 1e-6, String(b.sequences().popularity('ndvi')));
  assert.ok((b.classifier().predict(['vegetation']).get('ndvi') ?? 0) > 0);
});

test('words only the practice used count as unseen once a team\'s flows leave the practice a few steps\' worth (their idf and vocabulary are weighed as the flows are)', () => {
  // A fixed clock: two affinities read a millisecond apart would decay the flows differently.
  const g = new IntentionGraph(undefined, { now: () => 1_800_000_000_000 });
  // "mangrove" in 10 of 200 practice flows; "canopy" in all of them.
  const practice = Array.from({ length: 200 }, (_, i) => ({ terms: [...(i % 20 ? [] : ['mangrove']), 'canopy', `site${i % 7}`], tools: ['ndvi', 'zonal_stats'] }));
  g.setPrior(practice);
  assert.ok(g.classifier().knowsTerm('mangrove'), 'the practice alone: its words are known');
  // A team on its own tools: 12 flows of 6 steps leave the practice 10 steps' worth in all.
  for (let i = 0; i < 12; i++) g.recordTrajectory(['parcel', 'noise', `district${i % 3}`], ['t.load', 't.buffer', 't.clip', 't.zonal', 't.join', 't.export'], true, `noise per parcel ${i}`);
  assert.ok(g.priorWeight() * 200 < 2, String(g.priorWeight()));
  assert.ok(!g.classifier().knowsTerm('mangrove'), 'a word of a few practice flows is unseen to the team');
  assert.ok(g.classifier().knowsTerm('canopy'), 'a word of every practice flow is still known: the practice holds about a flow\'s worth');
  assert.ok(g.classifier().knowsTerm('parcel'));
  // Its affinities say nothing for the word either, and do not dilute the team's words.
  assert.deepEqual(g.affinities(['parcel', 'mangrove']), g.affinities(['parcel']));
});
