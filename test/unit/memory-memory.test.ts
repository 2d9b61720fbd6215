import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMemory, addStep, workingMemory, clear, toolsRun, parseMemory } from '../../src/core/memory/memory';

const step = (tool: string) => ({ tool, argSummary: 'image=s2.tif', resultSummary: `${tool} done`, outputs: [{ name: 'out', type: 'raster' as const, roles: ['index'] }], ok: true, time: '2026-01-01T00:00:00Z' });

test('working memory is the last N steps; the trace keeps everything; JSON round-trips', () => {
  const m = createMemory('map the flood', 3);
  for (const t of ['cloud_mask', 'mndwi', 'otsu_threshold', 'morphology', 'area_by_class']) addStep(m, step(t));
  assert.deepEqual(workingMemory(m).map((s) => s.tool), ['otsu_threshold', 'morphology', 'area_by_class']);
  assert.equal(m.trace.length, 5);
  assert.deepEqual(toolsRun(m), ['cloud_mask', 'mndwi', 'otsu_threshold', 'morphology', 'area_by_class']);
  const back = parseMemory(JSON.parse(JSON.stringify(m)));
  assert.deepEqual(back, m);
  clear(m);
  assert.deepEqual(m.trace, []);
  assert.equal(m.task, 'map the flood');
});

test('default window is 5; bad input is rejected naming the field', () => {
  assert.equal(createMemory('x').windowSize, 5);
  assert.throws(() => createMemory('x', 0), /windowSize/);
  assert.throws(() => parseMemory({ task: 'x', trace: [{ outputs: [] }] }), /trace\[0\]\.tool/);
  assert.throws(() => parseMemory({ trace: [] }), /memory\.task/);
  assert.equal(parseMemory({ task: 'x', trace: [], windowSize: -2 }).windowSize, 5);
});

test('cell runs: re-running a cell replaces its step, the trace follows the cells, not the clicks', async () => {
  const { recordCellRun } = await import('../../src/core/memory/memory');
  const m = createMemory('map the flood', 5);
  addStep(m, step('quicklook')); // an older notebook's step, from before steps knew their cell
  const cells = ['a', 'b', 'c'];
  const run = (cell: string, tool: string, order = cells) => recordCellRun(m, cell, step(tool), order);
  // Run All: a, b, c; then Run All again; then c alone, then a alone.
  for (let i = 0; i < 2; i++) { run('a', 'cloud_mask'); run('b', 'mndwi'); run('c', 'otsu_threshold'); }
  run('c', 'otsu_threshold');
  run('a', 'cloud_mask');
  assert.deepEqual(m.trace.map((s) => `${s.cell ?? '-'}:${s.tool}`), ['-:quicklook', 'a:cloud_mask', 'b:mndwi', 'c:otsu_threshold']);
  // The cell b was deleted and a new cell d inserted above c; d runs.
  run('d', 'morphology', ['a', 'd', 'c']);
  assert.deepEqual(m.trace.map((s) => s.cell ?? '-'), ['-', 'a', 'd', 'c']);
  // A failed re-run of a removes its step: its result no longer stands.
  recordCellRun(m, 'a', undefined, ['a', 'd', 'c']);
  assert.deepEqual(m.trace.map((s) => s.cell ?? '-'), ['-', 'd', 'c']);
});
