import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { GeoWeave } from '../../src/core/geoweave';
import { createMemory, addStep } from '../../src/core/memory/memory';
import type { MemoryState } from '../../src/core/memory/types';
import { tmpDir } from '../fixtures/helpers';

let gw: GeoWeave;
before(async () => { gw = await GeoWeave.open({ stateDir: tmpDir() }); });
after(async () => { await gw.dispose(); });

function step(tool: string, outputs: MemoryState['trace'][number]['outputs'], resultSummary = '') {
  return { tool, argSummary: '', resultSummary, outputs, ok: true, time: '2026-01-01T00:00:00Z' };
}

test('backward: after an NDVI threshold mask, area_by_class is suggested to quantify it', async () => {
  const m = createMemory('how much of my farm is covered by healthy vegetation?');
  addStep(m, step('ndvi', [{ name: 'index', type: 'raster', path: 'ndvi.tif', roles: ['index'] }], 'NDVI mean 0.41, 0.05..0.86'));
  addStep(m, step('threshold', [{ name: 'mask', type: 'raster', path: 'mask.tif', roles: ['mask'] }], '38% of valid pixels have NDVI > 0.5'));
  const r = await gw.complementarySuggestions(m, { k: 10 });
  const top3 = r.ranked.slice(0, 3).map((s) => s.id);
  assert.ok(top3.includes('area_by_class'), top3.join(', '));
  const abc = r.ranked.find((s) => s.id === 'area_by_class')!;
  assert.equal(abc.rationale, 'quantify');
  assert.match(abc.reason, /^quantify: area by class turns your NDVI mask into hectares/);
  assert.ok(abc.parts.feed > 0.5, 'the mask feeds its class/mask input');
  assert.equal(abc.readiness.args.image, 'mask.tif');
  // grouped by rationale, and tools already run are penalised out of the top
  assert.ok(r.groups.find((g) => g.rationale === 'quantify')!.suggestions.some((s) => s.id === 'area_by_class'));
  assert.ok(!top3.includes('ndvi') && !top3.includes('threshold'));
  assert.deepEqual(r.queries.map((q) => q.rationale), ['quantify', 'explain', 'verify', 'compare', 'extend']);
  assert.ok(r.queries[0].text.includes('NDVI mask'));
});

test('backward: after dNBR, burn_severity comes next', async () => {
  const m = createMemory('how badly did the fire burn the forest?');
  addStep(m, step('dnbr', [{ name: 'dnbr', type: 'raster', path: 'dnbr.tif', roles: ['dnbr', 'index'] }], 'dNBR mean 0.31'));
  const r = await gw.complementarySuggestions(m, { k: 5 });
  assert.ok(r.ranked.slice(0, 2).some((s) => s.id === 'burn_severity'), r.ranked.map((s) => s.id).join(', '));
});

test('backward: a DEM-based slope suggests terrain follow-ups, not spectral indices', async () => {
  const m = createMemory('find steep areas at risk of landslides');
  addStep(m, step('slope', [{ name: 'slope', type: 'raster', path: 'slope.tif', roles: ['slope'] }], 'slope 0..48 degrees, mean 12'));
  const r = await gw.complementarySuggestions(m, { k: 5 });
  const top5 = r.ranked.map((s) => s.id);
  assert.ok(top5.some((t) => ['reclassify', 'threshold', 'aspect', 'hillshade'].includes(t)), top5.join(', '));
  assert.ok(!top5.includes('ndvi'));
});
