import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FlowSequences } from '../../src/core/learning/sequences';
import { NextStepModel } from '../../src/core/learning/next-step-model';
import { ToolClassifier } from '../../src/core/learning/tool-classifier';
import { CaseIndex } from '../../src/core/learning/similar-cases';
import { parseQuery } from '../../src/core/retrieval/query';

test('n-gram: a longer history that was seen decides; an unseen one backs off to the shorter', () => {
  // After b, c follows when a came before and d when x came before: only the longer history tells.
  const flows = [
    ...Array(4).fill(['a', 'b', 'c']),
    ...Array(4).fill(['x', 'b', 'd']),
  ].map((tools) => ({ tools, w: 1 }));
  const m = new FlowSequences(flows);
  const afterAB = m.next(['a', 'b']);
  const afterXB = m.next(['x', 'b']);
  assert.ok(afterAB.get('c')! > 0.6 && afterAB.get('c')! > 3 * (afterAB.get('d') ?? 0), JSON.stringify([...afterAB]));
  assert.ok(afterXB.get('d')! > 0.6, JSON.stringify([...afterXB]));
  // a history never seen (q → b) falls back to what follows b at all: c and d alike
  const afterQB = m.next(['q', 'b']);
  assert.ok(Math.abs(afterQB.get('c')! - afterQB.get('d')!) < 1e-9);
  const total = [...afterAB.values()].reduce((s, v) => s + v, 0);
  assert.ok(Math.abs(total - 1) < 1e-9, `a distribution: ${total}`);
  assert.equal(m.matchedOrder(['a', 'b']), 3, '^ a b');
  assert.equal(m.popularity('b'), 1);
  assert.equal(m.companions('a').get('c'), 1);
  assert.equal(m.companions('a').get('d') ?? 0, 0);
});

test('similar flows ahead: aligned at the latest step they hold, nearer steps count more', () => {
  const cases = [
    { terms: ['flood', 'sar'], tools: ['search', 'calibrate', 'threshold', 'polygons'], t: Infinity },
    { terms: ['flood', 'sar', 'depth'], tools: ['search', 'calibrate', 'dem', 'depth'], t: Infinity },
  ];
  const ix = new CaseIndex(cases, () => 1);
  const ahead = ix.ahead(['flood', 'sar'], ['search', 'calibrate'], 10);
  assert.ok(ahead.get('threshold')! > ahead.get('polygons')!, JSON.stringify([...ahead]));
  assert.ok(!ahead.has('calibrate') && !ahead.has('search'), 'steps done are not ahead');
  const shares = ix.toolShares(['flood', 'sar'], 10);
  assert.equal(shares.get('search'), 1);
  assert.ok(shares.get('threshold')! > shares.get('depth')!, 'the closer task weighs more');
});

test('matched flows: a past pipeline worded unlike the task still counts when the task points at its tools', () => {
  // The task shares no word with the SAR flow's task, but its words point at `calibrate` and
  // `speckle` (as the per-tool model or the tools' text would); the optical flow shares a word.
  const cases = [
    { terms: ['inundation', 'radar', 'night'], tools: ['search', 'calibrate', 'speckle', 'threshold', 'polygons'], t: Infinity },
    { terms: ['flood', 'optical', 'clouds'], tools: ['search', 'cloudmask', 'mndwi', 'threshold'], t: Infinity },
  ];
  const ix = new CaseIndex(cases, () => 1);
  const pointed = new Map([['calibrate', 1], ['speckle', 0.8]]);
  const byText = ix.toolShares(['flood', 'tewkesbury'], 1);
  assert.ok(byText.has('mndwi') && !byText.has('speckle'), 'words alone pick the optical flow');
  const matched = ix.matchedFlows(['flood', 'tewkesbury'], pointed, 1);
  assert.equal(matched.get('speckle'), 1, JSON.stringify([...matched]));
  assert.equal(matched.get('polygons'), 1, 'the matched flow brings its whole pipeline, tools not pointed at included');
  assert.ok(!matched.has('mndwi'));
  // With both flows voting, each tool's share is its flows' part of the total match (0..1).
  const both = ix.matchedFlows(['flood', 'tewkesbury'], pointed, 2);
  assert.equal(both.get('search'), 1);
  assert.ok(both.get('speckle')! > both.get('mndwi')! && both.get('mndwi')! > 0, JSON.stringify([...both]));
  // Nothing pointed at and no shared word: no flow matches.
  assert.equal(ix.matchedFlows(['unrelated'], new Map(), 2).size, 0);
  // Next steps: with no word in common, the steps done say which pipeline this is, and what is ahead in it comes next.
  const ahead = ix.matchedAhead(['tewkesbury'], new Map([['search', 1], ['calibrate', 1]]), ['search', 'calibrate'], 1);
  assert.ok(ahead.get('speckle')! > ahead.get('threshold')!, JSON.stringify([...ahead]));
  assert.ok(!ahead.has('mndwi') && !ahead.has('calibrate'), 'the other pipeline and the steps done are not ahead');
});

test('next-step model: the task\'s words pick between the steps that follow the same history', () => {
  const flows: { terms: string[]; tools: string[]; w: number }[] = [];
  for (let i = 0; i < 12; i++) {
    flows.push({ terms: ['flood', 'otsu', `e${i}`], tools: ['load', 'calibrate', 'otsu'], w: 1 });
    flows.push({ terms: ['flood', 'kittler', `f${i}`], tools: ['load', 'calibrate', 'ki'], w: 1 });
  }
  const m = new NextStepModel(flows);
  const a = m.predict(['flood', 'kittler'], ['load', 'calibrate']);
  const b = m.predict(['flood', 'otsu'], ['load', 'calibrate']);
  assert.ok(a.get('ki')! > 0.8 && b.get('otsu')! > 0.8, JSON.stringify([[...a], [...b]]));
  assert.ok(m.predict(['flood'], ['load']).get('calibrate')! > 0.8);
  // deterministic
  assert.deepEqual([...new NextStepModel(flows).predict(['flood', 'kittler'], ['load', 'calibrate'])], [...a]);
});

test('tool classifier: a word that separates flows decides which tools a task will run', () => {
  const flows: { terms: string[]; tools: string[]; w: number }[] = [];
  for (let i = 0; i < 15; i++) {
    flows.push({ terms: ['flood', 'insured', `a${i}`], tools: ['sar', 'threshold', 'portfolio'], w: 1 });
    flows.push({ terms: ['flood', 'optical', `b${i}`], tools: ['s2', 'mndwi', 'threshold'], w: 1 });
  }
  const c = new ToolClassifier(flows);
  const p = c.predict(['flood', 'insured']);
  const q = c.predict(['flood', 'optical']);
  assert.ok(p.get('portfolio')! > 0.7 && q.get('portfolio')! < 0.3, JSON.stringify([[...p], [...q]]));
  assert.ok(p.get('threshold')! > 0.8 && q.get('threshold')! > 0.8, 'in every flow');
});

test('tool classifier: the data a task names is one term however it is written ("S2", "Sentinel-2", "Sentinel 2")', () => {
  // Past tasks say "Sentinel-2" or "Landsat 8"; the new one says "S2". As tokens these share
  // nothing ("s2" against "sentinel" + "2"), and both sensors are the same concept (an optical sensor).
  const written = ['Sentinel-2', 'Sentinel 2', 'sentinel2'];
  const flows = Array.from({ length: 24 }, (_, i) => i % 2
    ? { terms: parseQuery(`flood extent from ${written[i % 3]} for area ${i}`).terms, tools: ['s2_fetch', 's2_cloud_mask', 'mndwi', 'threshold'], w: 1 }
    : { terms: parseQuery(`flood extent from Landsat 8 for area ${i}`).terms, tools: ['landsat_fetch', 'fmask', 'mndwi', 'threshold'], w: 1 });
  const terms = parseQuery('S2 flood extent for the valley').terms;
  assert.ok(terms.includes('d:sentinel-2') && parseQuery('Sentinel-2 flood').terms.includes('d:sentinel-2'), JSON.stringify(terms));
  const p = new ToolClassifier(flows).predict(terms);
  assert.ok(p.get('s2_cloud_mask')! > 0.7 && p.get('fmask')! < 0.3, JSON.stringify([...p]));
});
