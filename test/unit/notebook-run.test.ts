import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { resolveReferences, EarlierCell } from '../../src/core/notebook/references';
import { suggestedCall } from '../../src/core/notebook/suggested-cell';
import { printToolCall } from '../../src/core/notebook/tool-cell';
import { resultMarkdown, memoryStep, argSummary } from '../../src/core/notebook/result-view';
import { expandTemplate, runProcessTool } from '../../src/core/notebook/process-runner';
import { memoryFromMetadata, withMemory } from '../../src/core/notebook/session';
import { reference } from '../../src/core/notebook/cell-value';
import type { ToolManifest } from '../../src/core/manifests/types';

const run = (tool: string, outputs: Record<string, string>) => ({
  ok: true, tool, summary: 's', time: 't',
  outputs: Object.fromEntries(Object.entries(outputs).map(([k, p]) => [k, { path: p, type: 'raster' as const }])),
});

test('references resolve to the nearest earlier cell of that name', () => {
  const earlier: EarlierCell[] = [
    { name: 'ndvi', tool: 'ndvi', run: run('ndvi', { index: '/w/out/ndvi_1.tif' }) },
    { name: 'ndvi', tool: 'ndvi', run: run('ndvi', { index: '/w/out/ndvi_2.tif' }) },
  ];
  const args = resolveReferences({ image: reference('ndvi', 'index'), images: [reference('ndvi', 'index'), 'x.tif'], op: 'gt' }, earlier, { roots: ['/w'] });
  assert.deepEqual(args, { image: '/w/out/ndvi_2.tif', images: ['/w/out/ndvi_2.tif', 'x.tif'], op: 'gt' });
});

const scope = { roots: ['/w'] };

test('unresolvable references fail with a message that says what to do', () => {
  assert.throws(() => resolveReferences({ image: reference('veg', 'index') }, [], scope), /image: no earlier cell is named "veg" \(this is the first tool cell\)/);
  assert.throws(() => resolveReferences({ image: reference('ndvi', 'index') }, [{ name: 'ndvi', tool: 'ndvi' }], scope), /cell "ndvi" has not run successfully yet; run it first/);
  assert.throws(() => resolveReferences({ image: reference('ndvi', 'mask') }, [{ name: 'ndvi', tool: 'ndvi', run: run('ndvi', { index: 'a.tif' }) }], scope),
    /cell "ndvi" \(ndvi\) has no output "mask"; its outputs are index/);
});

test('a suggested cell uses readiness args, refers to earlier outputs and gets a unique name', () => {
  const manifest = { id: 'ndvi', description: '', inputs: [{ name: 'image', type: 'raster' }, { name: 'sensor', type: 'string' }, { name: 'red', type: 'string' }] } as ToolManifest;
  const earlier: EarlierCell[] = [{ name: 'ndvi', tool: 'ndvi', run: run('ndvi', { index: '/w/.geoweave/outputs/ndvi_1.tif' }) }];
  const call = suggestedCall('ndvi', { red: 3, image: '/w/s2_scene.tif', sensor: 'sentinel2_l2a' }, earlier, manifest, '/w');
  assert.equal(printToolCall(call), 'ndvi as ndvi_2\nimage: s2_scene.tif\nsensor: sentinel2_l2a\nred: 3');
  const next = suggestedCall('area_by_class', { image: '.geoweave/outputs/ndvi_1.tif' }, earlier, undefined, '/w');
  assert.equal(printToolCall(next), 'area_by_class\nimage: $ndvi.index');
});

test('result markdown has the summary and a statistics table; memory steps shorten paths', () => {
  const md = resultMarkdown({ tool: 'ndvi', summary: 'Mean NDVI 0.41 | dense in the north', outputs: { index: { path: '/w/o/ndvi.tif', type: 'raster' } },
    stats: { zones: [{ zone: 1, mean: 0.5 }, { zone: 2, mean: 0.7 }], mean: 0.41234567, histogram: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], percentiles: { p50: 0.4, p90: 0.8 }, crs: 'EPSG:32650' } });
  assert.equal(md.split('\n')[0], '**ndvi**: Mean NDVI 0.41 \\| dense in the north');
  assert.ok(md.includes('| statistic | value |'));
  assert.ok(md.includes('| mean | 0.412346 |'));
  assert.ok(md.includes('| histogram | [1, 2, 3, 4, 5, 6, 7, 8, … (10 values)] |'));
  assert.ok(md.includes('| percentiles.p90 | 0.8 |'));
  assert.ok(md.includes('| zones | 2 rows (zone, mean); see the JSON result |'));
  assert.ok(!md.includes('/w/o/ndvi.tif'), 'output paths are on the result card, not repeated in the markdown');
  assert.equal(argSummary({ image: '/w/s2_scene.tif', red: 3, bands: ['/a/b.tif', 2] }), 'image=s2_scene.tif, red=3, bands=[b.tif, 2]');
  const step = memoryStep('ndvi', { image: '/w/s2.tif' }, { tool: 'ndvi', summary: 'ok', stats: {}, outputs: { index: { path: '/o/i.tif', type: 'raster', roles: ['index'] } } }, undefined, 'T');
  assert.deepEqual(step, { tool: 'ndvi', argSummary: 'image=s2.tif', resultSummary: 'ok', outputs: [{ name: 'index', type: 'raster', path: '/o/i.tif', roles: ['index'] }], ok: true, time: 'T' });
});

test('memory round-trips through notebook metadata; malformed memory is ignored', () => {
  const m = { task: 't', trace: [], windowSize: 3 };
  assert.deepEqual(memoryFromMetadata(withMemory({ other: 1 }, m)), m);
  assert.equal(memoryFromMetadata({ memory: { task: 3 } }), undefined);
  assert.equal(memoryFromMetadata(undefined), undefined);
});

test('process runner: templates, a real command, its failure and cancellation', async () => {
  assert.equal(expandTemplate('-t_srs {dst_crs} {out}', { dst_crs: 'EPSG:4326' }, '/o.tif'), '-t_srs EPSG:4326 /o.tif');
  assert.throws(() => expandTemplate('{image}', {}, '/o'), /argument "image" is needed by the command template/);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-proc-'));
  fs.writeFileSync(path.join(dir, 'in.tif'), 'data');
  const copy: ToolManifest = { id: 'copy', description: 'copies', outputs: [{ name: 'copied', type: 'raster' }], runner: { type: 'process', command: 'cp', args: ['{image}', '{out}'] } };
  const r = await runProcessTool(copy, { image: 'in.tif' }, { outDir: path.join(dir, 'out'), cwd: dir });
  assert.equal(fs.readFileSync(r.outputs.copied.path, 'utf8'), 'data');
  assert.match(r.summary, /^cp wrote copy_\d+\.tif\.$/);
  await assert.rejects(runProcessTool(copy, { image: 'nope.tif' }, { outDir: dir, cwd: dir }), /copy: cp exited with code 1: .*nope\.tif/);
  const missing: ToolManifest = { ...copy, runner: { type: 'process', command: 'no-such-gdal-tool', args: [] } };
  await assert.rejects(runProcessTool(missing, {}, { outDir: dir, cwd: dir }), /command "no-such-gdal-tool" was not found on PATH/);
  const slow: ToolManifest = { ...copy, runner: { type: 'process', command: 'sleep', args: ['5'] } };
  const abort = new AbortController();
  const started = Date.now();
  setTimeout(() => abort.abort(), 100);
  await assert.rejects(runProcessTool(slow, {}, { outDir: dir, cwd: dir, signal: abort.signal }), /cancelled/);
  assert.ok(Date.now() - started < 3000);
  fs.rmSync(dir, { recursive: true, force: true });
});
