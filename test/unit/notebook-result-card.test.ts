import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resultCard, statText } from '../../src/core/notebook/result-card';

// Shaped like the engine's zonal_stats result as it arrives in the renderer (JSON round trip).
const zonal = JSON.parse(JSON.stringify({
  tool: 'zonal_stats',
  summary: 'Mean NDVI per field: highest 0.71 (field 3, maize), lowest 0.12 (field 7, fallow).',
  outputs: { table: { path: '/w/.geoweave/outputs/zonal_stats_1.csv', type: 'table' } },
  stats: {
    zones: 8,
    mean: 0.41234567891,
    band: 'ndvi',
    rows: [{ id: 3, crop: 'maize', mean: 0.7123456 }, { id: 7, crop: 'fallow', mean: 0.1198 }],
    range: { min: -0.2, max: 0.93333333 },
    empty: null,
    flags: [true, false],
  },
  quicklook: '/w/.geoweave/outputs/q.png',
}));

test('a result card lists tool, summary, outputs and one row per top-level statistic', () => {
  const card = resultCard(zonal);
  assert.equal(card.tool, 'zonal_stats');
  assert.equal(card.summary, zonal.summary);
  assert.deepEqual(card.outputs, [{ name: 'table', path: '/w/.geoweave/outputs/zonal_stats_1.csv', type: 'table' }]);
  assert.deepEqual(card.stats, [
    { key: 'zones', value: '8' },
    { key: 'mean', value: '0.412346' },
    { key: 'band', value: 'ndvi' },
    { key: 'rows', value: '[{"id":3,"crop":"maize","mean":0.712346},{"id":7,"crop":"fallow","mean":0.1198}]' },
    { key: 'range', value: '{"min":-0.2,"max":0.933333}' },
    { key: 'empty', value: 'null' },
    { key: 'flags', value: '[true,false]' },
  ]);
});

test('long statistic values are shortened with the full text kept', () => {
  const rows = Array.from({ length: 50 }, (_, i) => ({ id: i, mean: i / 7 }));
  const card = resultCard({ tool: 'zonal_stats', summary: 's', outputs: {}, stats: { rows } }, 60);
  const [row] = card.stats;
  assert.equal(row.value.length, 60);
  assert.ok(row.value.endsWith('…'));
  assert.equal(row.full, statText(rows));
  assert.deepEqual(JSON.parse(row.full!), rows.map((r) => ({ id: r.id, mean: Number(r.mean.toPrecision(6)) })));
});

test('malformed results give a card of plain strings instead of throwing', () => {
  assert.deepEqual(resultCard(null), { tool: 'tool', summary: '', outputs: [], stats: [] });
  assert.deepEqual(resultCard([1, 2]), { tool: 'tool', summary: '', outputs: [], stats: [] });
  const card = resultCard({ tool: 5, summary: { html: '<b>x</b>' }, outputs: { a: 'x.tif', b: { type: 'raster' }, c: 3 }, stats: [1] });
  assert.deepEqual(card, { tool: 'tool', summary: '', outputs: [{ name: 'a', path: 'x.tif' }], stats: [] });
  // Markup in strings stays text: the renderer uses textContent, the card does not escape or drop it.
  assert.equal(resultCard({ tool: 'x', summary: '<img src=x onerror=alert(1)>' }).summary, '<img src=x onerror=alert(1)>');
});

test('statText keeps integers and non-finite numbers exact', () => {
  assert.equal(statText(123456789), '123456789');
  assert.equal(statText(Number.NaN), 'NaN');
  assert.equal(statText(1 / 3), '0.333333');
  assert.equal(statText([0.1 + 0.2, 2]), '[0.3,2]');
  assert.equal(statText(undefined), '');
});
