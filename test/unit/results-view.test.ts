import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resultView, keyStats, tablesOf, histogramOf, seriesOf, mapSpec } from '../../src/core/results/view-model';
import { classColors, colorize, labelsFromText } from '../../src/core/results/palettes';
import { cellOutputFolder, safeSegment } from '../../src/core/notebook/cell-outputs';
import { boundedView, viewFromSaved, MAX_SAVED_VIEW } from '../../src/core/results/saved-result';
import { parseRendererMessage, maxZoomFor } from '../../src/shared/result-protocol';
import type { ToolRunResult } from '../../src/core/raster/types';

const BURN_CLASSES = [
  { code: 1, label: 'high regrowth', lower: null, upper: -0.25, pixels: 0, m2: 0, ha: 0, percent: 0 },
  { code: 2, label: 'low regrowth', lower: -0.25, upper: -0.1, pixels: 0, m2: 0, ha: 0, percent: 0 },
  { code: 3, label: 'unburned', lower: -0.1, upper: 0.1, pixels: 336346, m2: 33634600, ha: 3363.46, percent: 93.4 },
  { code: 4, label: 'low severity', lower: 0.1, upper: 0.27, pixels: 10350, m2: 1035000, ha: 103.5, percent: 2.9 },
  { code: 5, label: 'moderate-low severity', lower: 0.27, upper: 0.44, pixels: 5690, m2: 569000, ha: 56.9, percent: 1.6 },
  { code: 6, label: 'moderate-high severity', lower: 0.44, upper: 0.66, pixels: 3951, m2: 395100, ha: 39.51, percent: 1.1 },
  { code: 7, label: 'high severity', lower: 0.66, upper: null, pixels: 3663, m2: 366300, ha: 36.63, percent: 1.0 },
];

test('burn severity: every class in one sorted table with units, in the USGS colours', () => {
  const [t] = tablesOf({ classes: BURN_CLASSES, burned_ha: 236.54 });
  assert.equal(t.rows.length, 7, 'no class hidden');
  assert.ok(t.visible >= 7, 'all seven rows visible without a click');
  assert.equal(t.columns[0].key, 'label');
  assert.ok(!t.columns.some((c) => c.key === 'm2' || c.key === 'code'), 'one area unit, no internal code');
  assert.deepEqual(t.columns.find((c) => c.key === 'ha'), { key: 'ha', label: 'Area', unit: 'ha', numeric: true });
  assert.equal(t.columns.find((c) => c.key === 'percent')?.unit, '%');
  assert.deepEqual(t.sortedBy, { key: 'ha', descending: true });
  const colour = (label: string) => t.swatches![t.rows.findIndex((r) => r[0] === label)];
  assert.equal(colour('unburned'), '#0ae042');
  assert.equal(colour('low severity'), '#fff70b');
  assert.equal(colour('moderate-high severity'), '#ff641b');
  assert.equal(colour('high severity'), '#a41fd6');
});

test('class colours follow the field: land cover (also in Chinese), change, masks, others categorical', () => {
  const lc = classColors([1, 2, 3], { 1: 'water', 2: '林地', 3: 'cropland' });
  assert.deepEqual(lc.map((c) => c.color), ['#0064c8', '#006400', '#f096ff']);
  assert.deepEqual(classColors([0, 1], {}, 'mask').map((c) => c.label), ['not set (0)', 'set (1)']);
  assert.equal(classColors([1, 2], { 1: 'loss', 2: 'gain' })[0].color, '#d7301f');
  assert.equal(classColors([5, 9]).length, 2);
  assert.deepEqual(labelsFromText('severity: 1=high regrowth;7=high severity'), { 1: 'high regrowth', 7: 'high severity' });
});

test('key statistics: mean, median, p5/p95 and valid share with the unit; a mask gives its share and area', () => {
  const ks = keyStats({ count: 100, valid: 90, mean: 0.5, percentiles: { p5: 0.1, p50: 0.55, p95: 0.8, p2: 0 }, grid: { valid: [1] } }, 'NDVI');
  assert.deepEqual(ks.map((k) => k.label), ['Mean', 'Median', 'P5', 'P95', 'Valid']);
  assert.equal(ks[0].unit, 'NDVI');
  assert.equal(ks[4].value, 90);
  const mask = keyStats({ count: 10, valid: 10, mean: 0.7, mask_fraction: 0.7, mask_area_ha: 12 });
  assert.deepEqual(mask.map((k) => `${k.label} ${k.value} ${k.unit}`), ['In the mask 70 %', 'Mask area 12 ha', 'Valid 100 %']);
});

test('histogram marks the threshold and the limits a summary speaks of; a mask\'s own 0/1 histogram is left out', () => {
  const h = histogramOf({ histogram: { min: -0.3, max: 0.9, counts: [1, 2, 3] }, 'fraction_below_0.2': 0.1, 'fraction_above_0.6': 0.3 }, {}, {}, 'NDVI');
  assert.deepEqual(h?.marks.map((m) => m.value), [0.2, 0.6]);
  const otsu = histogramOf({ histogram: { min: 0, max: 1, counts: [5, 5, 5] }, threshold: 0.42 }, {}, {});
  assert.equal(otsu?.marks[0].value, 0.42);
  assert.equal(histogramOf({ histogram: { min: 0, max: 1, counts: [5, 0, 9] } }, { value: 0.5 }, { mask: { path: '/o/m.tif', type: 'raster', roles: ['mask'] } }), undefined);
});

test('a time series becomes a line', () => {
  const s = seriesOf({ series: [{ date: '2018-06-01', mean: 490 }, { date: '2024-06-01', mean: 514 }] });
  assert.deepEqual(s?.x, ['2018-06-01', '2024-06-01']);
  assert.deepEqual(s?.y, [490, 514]);
});

test('map: outputs over inputs, relative inputs resolved, vectors on top, before/after compared', () => {
  const result: ToolRunResult = { tool: 'dnbr', outputs: { dnbr: { path: '/w/out/burn/fire_pre_dnbr.tif', type: 'raster', roles: ['dnbr'] } }, stats: {}, summary: '' };
  const m = mapSpec(result, { pre: 'fire_pre.tif', post: '/w/fire_post.tif', zones: 'fields.geojson' }, { cwd: '/w' })!;
  assert.deepEqual(m.layers.map((l) => `${l.id} ${l.path} ${l.kind} ${l.visible}`), [
    'in:pre /w/fire_pre.tif continuous false', 'in:post /w/fire_post.tif continuous false', 'out:dnbr /w/out/burn/fire_pre_dnbr.tif diverging true',
  ]);
  assert.deepEqual(m.vectors.map((v) => v.path), ['/w/fields.geojson']);
  assert.deepEqual(m.compare, ['in:pre', 'in:post']);
  const view = resultView(result, { pre: 'fire_pre.tif', post: 'fire_post.tif' }, { cwd: '/w', units: { dnbr: 'dNBR, -2..2' } });
  assert.equal(view.map?.layers.find((l) => l.role === 'output')?.unit, 'dNBR');
  // A Sentinel-2 band as the SAFE holds it (JPEG 2000) is a layer like a GeoTIFF; a text file is not.
  const jp2 = mapSpec({ tool: 'ndvi', outputs: {}, stats: {}, summary: '' }, { red: 'T31TDF_20240612T103021_B04_10m.jp2', nir: 'notes.txt' }, { cwd: '/w' })!;
  assert.deepEqual(jp2.layers.map((l) => `${l.id} ${l.path} ${l.visible}`), ['in:red /w/T31TDF_20240612T103021_B04_10m.jp2 true']);
});

test('outputs are named per cell: alias when unique in the notebook, else tool and cell id', () => {
  assert.equal(cellOutputFolder('/w/.geoweave/outputs', '/w/fire.geonb', { tool: 'threshold', id: 'a1b2c3d4' }, false), '/w/.geoweave/outputs/fire/threshold-a1b2c3d4');
  assert.equal(cellOutputFolder('/w/o', '/w/fire.geonb', { tool: 'threshold', alias: 'dense', id: 'x' }, false), '/w/o/fire/dense');
  assert.equal(cellOutputFolder('/w/o', '/w/fire.geonb', { tool: 'threshold', alias: 'dense', id: 'x' }, true), '/w/o/fire/threshold-x');
  assert.equal(safeSegment('../../etc'), 'etc');
  assert.equal(safeSegment('植被 覆盖'), '植被_覆盖');
});

test('a saved view stays within its bound and comes back marked as restored; a bad preview is dropped', () => {
  const rows = Array.from({ length: 400 }, (_, i) => ({ zone: String(i), mean: i / 3, area_ha: i, name: 'x'.repeat(200) }));
  const view = resultView({ tool: 'zonal_stats', outputs: {}, stats: { table: rows }, summary: 's' }, {});
  const b = boundedView(view);
  assert.ok(JSON.stringify(b).length <= MAX_SAVED_VIEW);
  assert.ok(b.tables[0].omitted! > 0);
  const back = viewFromSaved(JSON.parse(JSON.stringify({ ...b, preview: 'javascript:alert(1)' })), '2026-01-01');
  assert.equal(back?.restored, '2026-01-01');
  assert.equal(back?.preview, undefined);
  assert.equal(viewFromSaved({ view: 'progress' }, 't'), undefined);
});

test('renderer messages are checked before the host acts on them', () => {
  assert.ok(parseRendererMessage({ type: 'tile', id: 1, layer: { path: '/a.tif', bands: [1] }, z: 0, x: 0, y: 0 }));
  assert.equal(parseRendererMessage({ type: 'tile', id: 1, layer: { path: '/a.tif', bands: [] }, z: 0, x: 0, y: 0 }), undefined);
  assert.equal(parseRendererMessage({ type: 'tile', id: 1, layer: { path: '/a.tif', bands: [1] }, z: -1, x: 0, y: 0 }), undefined);
  assert.ok(parseRendererMessage({ type: 'pixel', id: 2, probes: [{ layer: { path: '/a.tif', bands: [1, 2, 3] }, col: 4, row: 5 }] }));
  assert.equal(parseRendererMessage({ type: 'pixel', id: 2, probes: [{ layer: { path: '/a.tif', bands: [1] }, col: 1.5, row: 5 }] }), undefined);
  assert.equal(parseRendererMessage({ type: 'read', id: 3, path: '/etc/passwd' }), undefined);
  assert.equal(maxZoomFor(20000, 20000), 7);
  assert.equal(maxZoomFor(200, 100), 0);
});

test('colorize: NaN transparent, classes by value, ramps stretched', () => {
  const rgba = colorize(new Float32Array([NaN, 0, 1]), 'index', [0, 1]);
  assert.equal(rgba[3], 0);
  assert.deepEqual([...rgba.slice(4, 8)], [165, 0, 38, 255]);
  assert.deepEqual([...rgba.slice(8, 12)], [0, 104, 55, 255]);
  const cls = colorize(new Float32Array([7, 9]), 'class', [0, 1], [{ value: 7, label: 'high severity', color: '#a41fd6' }]);
  assert.deepEqual([...cls], [164, 31, 214, 255, 0, 0, 0, 0]);
});

test('a long time series lists its first input rasters on the map and always its outputs', () => {
  const images = Array.from({ length: 20 }, (_, i) => `/w/scene_${i}.tif`);
  const m = mapSpec({ tool: 'time_series_trend', outputs: { trend: { path: '/w/o/trend.tif', type: 'raster', roles: ['trend'] } }, stats: {}, summary: '' }, { images })!;
  assert.equal(m.layers.filter((l) => l.role === 'input').length, 8);
  assert.equal(m.layers.at(-1)?.id, 'out:trend');
});
