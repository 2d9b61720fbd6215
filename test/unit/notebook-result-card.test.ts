import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resultCard } from '../../src/core/notebook/result-card';

// Shaped like the engine's zonal_stats result as it arrives in the renderer (JSON round trip).
const zonal = JSON.parse(JSON.stringify({
  tool: 'zonal_stats',
  summary: 'Mean NDVI per field: highest 0.71 (field 3, maize), lowest 0.12 (field 7, fallow).',
  arguments: { image: '/w/.geoweave/outputs/ndvi_1.tif', zones: '/w/fields.geojson', stats: ['mean', 'max'] },
  outputs: { table: { path: '/w/.geoweave/outputs/zonal_stats_1.csv', type: 'table' } },
  stats: { zones: 8, mean: 0.41234567891, rows: [{ id: 3, crop: 'maize', mean: 0.7123456 }] },
  quicklook: '/w/.geoweave/outputs/q.png',
}));

test('a result card lists tool, summary, outputs and the arguments, not the statistics again', () => {
  const card = resultCard(zonal);
  assert.deepEqual(card, {
    tool: 'zonal_stats',
    summary: zonal.summary,
    outputs: [{ name: 'table', path: '/w/.geoweave/outputs/zonal_stats_1.csv', type: 'table' }],
    args: 'image=ndvi_1.tif, zones=fields.geojson, stats=[mean, max]',
  });
  assert.ok(!JSON.stringify(card).includes('0.4123'), 'statistics stay in the markdown table');
});

test('malformed results give a card of plain strings instead of throwing', () => {
  assert.deepEqual(resultCard(null), { tool: 'tool', summary: '', outputs: [], args: '' });
  assert.deepEqual(resultCard([1, 2]), { tool: 'tool', summary: '', outputs: [], args: '' });
  const card = resultCard({ tool: 5, summary: { html: '<b>x</b>' }, arguments: [1], outputs: { a: 'x.tif', b: { type: 'raster' }, c: 3 } });
  assert.deepEqual(card, { tool: 'tool', summary: '', outputs: [{ name: 'a', path: 'x.tif' }], args: '' });
  // Markup in strings stays text: the renderer uses textContent, the card does not escape or drop it.
  assert.equal(resultCard({ tool: 'x', summary: '<img src=x onerror=alert(1)>' }).summary, '<img src=x onerror=alert(1)>');
});

test('a Chinese cell names its tool by name_zh with the id beside it; a saved view keeps only a string name', async () => {
  const { resultMarkdown } = await import('../../src/core/notebook/result-view');
  const { viewFromSaved } = await import('../../src/core/results/saved-result');
  const result = { tool: 'ndvi', summary: '归一化植被指数 (NDVI) 均值 0.5', stats: {}, outputs: {} } as unknown as Parameters<typeof resultMarkdown>[0];
  assert.equal(resultMarkdown(result, 'zh', 'NDVI（归一化植被指数）'), '**NDVI（归一化植被指数）** (ndvi): 归一化植被指数 (NDVI) 均值 0.5');
  assert.equal(resultMarkdown(result, 'zh'), '**ndvi**: 归一化植被指数 (NDVI) 均值 0.5');
  const saved = { view: 'result', version: 1, tool: 'ndvi', summary: 's', keyStats: [], tables: [], outputs: [], args: '', raw: {} };
  assert.equal(viewFromSaved({ ...saved, toolName: 'NDVI（归一化植被指数）' }, 't')!.toolName, 'NDVI（归一化植被指数）');
  assert.equal(viewFromSaved({ ...saved, toolName: { html: '<b>' } }, 't')!.toolName, undefined);
});
