/** Batch runs: one tool cell over several inputs (a glob or a list), run for real on copies of the
 *  sample scenes; every item's output is compared with a single run of the same input and with
 *  numpy, through GDAL. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { writeSampleWorkspace } from '../../src/core/raster/sample/generate';
import { runTool, getToolSpec } from '../../src/core/raster/engine';
import { runNotebook } from '../../src/core/notebook/run-notebook';
import { serializeNotebook, parseNotebook } from '../../src/core/notebook/notebook-file';
import { runFromMetadata } from '../../src/core/notebook/session';
import { parseToolCell } from '../../src/core/notebook/tool-cell';
import { resolveReferences, type EarlierCell } from '../../src/core/notebook/references';
import { reference } from '../../src/core/notebook/cell-value';
import { removeStaleOutputs } from '../../src/core/notebook/cell-outputs';
import {
  planBatch, runBatch, expandGlob, itemNames, shapesFromKinds, batchRunRecord, batchFromMetadata, runFiles,
  BatchError, BatchStopped, MAX_BATCH_ITEMS, type BatchItemResult, type BatchPlan,
} from '../../src/core/notebook/batch';
import { batchResultView } from '../../src/core/results/batch-view';
import { boundedView, MAX_SAVED_VIEW, SAVED_ROWS } from '../../src/core/results/saved-result';
import { exportShell, exportIpynb } from '../../src/core/notebook/export';
import { suggestedCall } from '../../src/core/notebook/suggested-cell';
import { printToolCall } from '../../src/core/notebook/tool-cell';
import { main } from '../../src/cli/main';
import { gdalSkip, pyJson, tmpDir } from '../helpers/raster-gdal';
import type { NotebookRecord, ToolCall } from '../../src/core/notebook/types';

const skip = gdalSkip('batch outputs compared with GDAL');
const ROOT = path.join(__dirname, '..', '..', '..');
const NDVI = shapesFromKinds(getToolSpec('ndvi')!.params);

let sample: string | undefined;
/** The sample workspace with three 7-band scenes in scenes/ (and a one-band DEM beside them for failures). */
async function workspace(): Promise<string> {
  if (!sample) {
    sample = tmpDir('gw-batch-sample-');
    await writeSampleWorkspace(sample);
  }
  const dir = tmpDir('gw-batch-');
  fs.mkdirSync(path.join(dir, 'scenes'));
  fs.copyFileSync(path.join(sample, 's2_scene.tif'), path.join(dir, 'scenes', 'c_s2.tif'));
  fs.copyFileSync(path.join(sample, 'fire_pre.tif'), path.join(dir, 'scenes', 'a_pre.tif'));
  fs.copyFileSync(path.join(sample, 'fire_post.tif'), path.join(dir, 'scenes', 'b_post.tif'));
  fs.copyFileSync(path.join(sample, 'dem.tif'), path.join(dir, 'dem.tif'));
  return dir;
}

/** Max |a - b| over valid pixels of band 1, whether nodata masks and grids agree. */
function compare(a: string, b: string): { maxDiff: number; sameMask: boolean; sameGrid: boolean; valid: number } {
  return pyJson(`
import json, sys, numpy as np
from osgeo import gdal
def load(p):
    d = gdal.Open(p); b = d.GetRasterBand(1)
    a = b.ReadAsArray().astype(np.float64); nd = b.GetNoDataValue()
    m = np.isnan(a) if nd is None else (a == (np.float32(nd) if b.DataType == gdal.GDT_Float32 else nd)) | np.isnan(a)
    return d, a, m
da, a, ma = load(sys.argv[1]); db, b, mb = load(sys.argv[2])
ok = ~ma & ~mb
print(json.dumps({'maxDiff': float(np.max(np.abs(a[ok] - b[ok]))) if ok.any() else 0.0, 'sameMask': bool((ma == mb).all()),
  'sameGrid': da.GetGeoTransform() == db.GetGeoTransform() and da.RasterXSize == db.RasterXSize and da.RasterYSize == db.RasterYSize, 'valid': int(ok.sum())}))`, a, b);
}

/** NDVI of bands 3 and 5 computed with numpy, against the tool's output. */
function numpyNdvi(input: string, output: string): { maxDiff: number; valid: number } {
  return pyJson(`
import json, sys, numpy as np
from osgeo import gdal
d = gdal.Open(sys.argv[1]); r = d.GetRasterBand(3).ReadAsArray().astype(np.float64); n = d.GetRasterBand(5).ReadAsArray().astype(np.float64)
o = gdal.Open(sys.argv[2]); ob = o.GetRasterBand(1); a = ob.ReadAsArray().astype(np.float64); nd = ob.GetNoDataValue()
ok = ((n + r) != 0) & ~np.isnan(a) & (a != (np.float32(nd) if nd is not None else np.nan))
print(json.dumps({'maxDiff': float(np.max(np.abs(((n - r) / (n + r))[ok] - a[ok]))), 'valid': int(ok.sum())}))`, input, output);
}

const ndviCell = (image: string, extra = '') => `ndvi\nimage: ${image}\nred: 3\nnir: 5${extra}`;

async function runCells(dir: string, sources: string[]): Promise<NotebookRecord> {
  const nb: NotebookRecord = { metadata: {}, cells: sources.map((source, i) => ({ kind: 'tool' as const, source, metadata: { cellId: `c${i + 1}` } })) };
  return runNotebook(nb, { notebookFile: path.join(dir, 'batch.geonb'), workspace: dir, now: () => '2026-01-01T00:00:00.000Z' });
}

test('a glob runs the cell once per matching raster, sorted, each in its own folder; values equal single runs and numpy', { skip }, async () => {
  const dir = await workspace();
  const nb = await runCells(dir, [ndviCell('scenes/*.tif')]);
  const run = runFromMetadata(nb.cells[0].metadata)!;
  assert.equal(run.ok, true);
  assert.deepEqual(run.outputs, {}, 'a batch has no top-level outputs');
  assert.deepEqual(run.batch!.items.map((i) => [i.name, i.input, i.ok]), [['a_pre', 'scenes/a_pre.tif', true], ['b_post', 'scenes/b_post.tif', true], ['c_s2', 'scenes/c_s2.tif', true]]);
  assert.match(run.summary, /^Ran on 3 inputs \(image: scenes\/\*\.tif\): 3 succeeded\. a_pre: Mean NDVI/);
  const cellDir = path.join(dir, '.geoweave', 'outputs', 'batch', 'ndvi-c1');
  assert.deepEqual(fs.readdirSync(cellDir).sort(), ['a_pre', 'b_post', 'c_s2']);
  for (const item of run.batch!.items) {
    const out = item.outputs!.index.path;
    assert.equal(path.dirname(out), path.join(cellDir, item.name));
    // Its own summary and provenance beside the outputs.
    const result = JSON.parse(fs.readFileSync(path.join(cellDir, item.name, 'result.json'), 'utf8'));
    assert.equal(result.item, item.name);
    assert.equal(result.input, item.input);
    assert.match(result.summary, /^Mean NDVI/);
    assert.equal(result.provenance.tool, 'ndvi');
    assert.equal(result.provenance.inputs[0].path, path.join(dir, item.input));
    // The same raster as a single run of that input, and as numpy computes it.
    const single = await runTool('ndvi', { image: item.input, red: 3, nir: 5 }, { outDir: path.join(dir, 'single', item.name), cwd: dir });
    const c = compare(out, single.outputs.index.path);
    assert.ok(c.valid > 1000);
    assert.deepEqual({ ...c, valid: 0 }, { maxDiff: 0, sameMask: true, sameGrid: true, valid: 0 }, item.name);
    const np = numpyNdvi(path.join(dir, item.input), out);
    assert.ok(np.valid > 1000 && np.maxDiff <= 1e-6, `${item.name}: ${JSON.stringify(np)}`);
  }
  // The record survives the notebook file (sorted keys, read back through the same checks).
  const file = path.join(dir, 'batch.geonb');
  fs.writeFileSync(file, serializeNotebook(nb));
  assert.deepEqual(runFromMetadata(parseNotebook(fs.readFileSync(file, 'utf8'), file).cells[0].metadata)!.batch, run.batch);
});

test('a list runs once per file, in the order written, names de-duplicated; the same outputs as the glob', { skip }, async () => {
  const dir = await workspace();
  fs.mkdirSync(path.join(dir, 'other'));
  fs.copyFileSync(path.join(dir, 'scenes', 'a_pre.tif'), path.join(dir, 'other', 'a_pre.tif'));
  const nb = await runCells(dir, [ndviCell('[scenes/c_s2.tif, scenes/a_pre.tif, "other/a_pre.tif"]')]);
  const run = runFromMetadata(nb.cells[0].metadata)!;
  assert.deepEqual(run.batch!.items.map((i) => [i.name, i.input]), [['c_s2', 'scenes/c_s2.tif'], ['a_pre', 'scenes/a_pre.tif'], ['a_pre-2', 'other/a_pre.tif']]);
  assert.equal(run.batch!.kind, 'list');
  const c = compare(run.batch!.items[1].outputs!.index.path, run.batch!.items[2].outputs!.index.path);
  assert.equal(c.maxDiff, 0);
  const single = await runTool('ndvi', { image: 'scenes/c_s2.tif', red: 3, nir: 5 }, { outDir: path.join(dir, 'single'), cwd: dir });
  assert.equal(compare(run.batch!.items[0].outputs!.index.path, single.outputs.index.path).maxDiff, 0);
});

test('an item that fails is reported with its error and the others still run; all failing fails the cell', { skip }, async () => {
  const dir = await workspace();
  const nb = await runCells(dir, [ndviCell('[scenes/a_pre.tif, dem.tif, scenes/b_post.tif]')]);
  const run = runFromMetadata(nb.cells[0].metadata)!;
  assert.equal(run.ok, true, 'the cell succeeds when at least one item did');
  assert.deepEqual(run.batch!.items.map((i) => i.ok), [true, false, true]);
  assert.match(run.batch!.items[1].error!, /nir.*band 5 is out of range.*dem\.tif/);
  assert.match(run.summary, /3 inputs .*: 2 succeeded, 1 failed \(dem: .*band 5 is out of range/);
  assert.ok(fs.existsSync(run.batch!.items[2].outputs!.index.path), 'the item after the failed one ran');
  assert.ok(!fs.existsSync(path.join(dir, '.geoweave', 'outputs', 'batch', 'ndvi-c1', 'dem', 'result.json')), 'a failed item leaves no result');

  const all = await runCells(dir, [ndviCell('[dem.tif, "dem.tif"]')]);
  const failed = runFromMetadata(all.cells[0].metadata)!;
  assert.equal(failed.ok, false);
  assert.match(failed.summary, /0 succeeded, 2 failed/);
  // A later cell cannot use it.
  await assert.rejects(runCells(dir, [ndviCell('[dem.tif]'), 'threshold\nimage: $ndvi.index\nop: gt\nvalue: 0.5']), /has not run successfully yet/);
});

test('stopping a batch ends it at once: finished items stay whole, the stopped one writes nothing, later ones never start', { skip }, async () => {
  const dir = await workspace();
  const call = parseToolCell(ndviCell('scenes/*.tif')).call!;
  const plan = planBatch(call, NDVI, [], { roots: [dir] }, dir)!;
  const out = path.join(dir, 'out');
  const abort = new AbortController();
  const stages: string[] = [];
  const err = await runBatch(plan, out, (a, o) => runTool('ndvi', a, { ...o, cwd: dir }), {
    signal: abort.signal,
    onProgress: (f, stage) => { stages.push(stage); if (/^item 2 of 3 \(b_post\): [1-9]\d?%/.test(stage)) abort.abort(); },
  }).then(() => undefined, (e: unknown) => e);
  assert.ok(err instanceof BatchStopped, String(err));
  assert.equal(err.at, 1);
  assert.equal(err.done.length, 1);
  assert.match(err.message, /stopped during item 2 of 3; 1 item before it finished/);
  assert.ok(stages.some((s) => /^item 1 of 3 \(a_pre\): \d+%/.test(s)), stages.join('\n'));
  assert.ok(fs.existsSync(path.join(out, 'a_pre', 'a_pre_ndvi.tif')) && fs.existsSync(path.join(out, 'a_pre', 'result.json')));
  const rest = fs.existsSync(path.join(out, 'b_post')) ? fs.readdirSync(path.join(out, 'b_post')) : [];
  assert.deepEqual(rest, [], 'the stopped item left no file (not even a staging folder)');
  assert.ok(!fs.existsSync(path.join(out, 'c_s2')));
});

test('bad batches are refused with the argument named and what to do', async () => {
  const dir = tmpDir('gw-batch-err-');
  fs.mkdirSync(path.join(dir, 'scenes'));
  const plan = (text: string, earlier: EarlierCell[] = [], shapes = NDVI) => planBatch(parseToolCell(text).call!, shapes, earlier, { roots: [dir] }, dir);
  assert.throws(() => plan(ndviCell('scenes/*.tif')), (e: Error) => e instanceof BatchError && e.message === `image: no file matches "scenes/*.tif" in ${dir} (a pattern is read from that folder; * matches within a name, ** any folders; hidden files and folders are not searched); check the pattern or give the file`);
  assert.throws(() => plan(ndviCell('[]')), /image: the list is empty/);
  assert.throws(() => plan(ndviCell('[a.tif, 3]')), /image: list item 2 must be a file path, got 3/);
  assert.throws(() => plan(ndviCell('[a.tif, "s/*.tif"]')), /list item 2 "s\/\*\.tif" is a pattern/);
  const change = shapesFromKinds(getToolSpec('change_difference')!.params);
  assert.throws(() => plan('change_difference\nbefore: scenes/*.tif\nafter: [a.tif, b.tif]', [], change),
    /^Error: only one argument can be given several inputs \(a batch\), but before \(the pattern "scenes\/\*\.tif"\) and after \(a list of 2\) each give several; give all but one of them a single file/);
  // Inputs that take a list keep their meaning; a single file, a URL with "?" and a mapping are no batch.
  const trend = shapesFromKinds(getToolSpec('time_series_trend')!.params);
  assert.equal(plan('time_series_trend\nimages: [a.tif, b.tif, c.tif]', [], trend), undefined);
  assert.equal(plan(ndviCell('a.tif')), undefined);
  assert.equal(plan(ndviCell('https://example.com/a.tif?x=1')), undefined);
  assert.equal(plan('ndvi\nimage: {red: a.tif, nir: b.tif}'), undefined);
  // Too many inputs.
  assert.throws(() => plan(ndviCell(`[${Array.from({ length: MAX_BATCH_ITEMS + 1 }, (_, i) => `f${i}.tif`).join(', ')}]`)), /the list has 1001 files; a cell runs at most 1000 inputs/);
});

test('globs: ** at any depth, hidden folders skipped, code-point order; item names from stems, unique regardless of case', () => {
  const dir = tmpDir('gw-glob-');
  for (const f of ['b/x.tif', 'a/x.TIF', 'a/deep/er/y.tif', '.geoweave/outputs/z.tif', 'a/.hid.tif', 'B.tif', 'a/notes.txt']) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), '');
  }
  const rel = (p: string) => expandGlob(p, dir).map((f) => path.relative(dir, f));
  assert.deepEqual(rel('**/*.tif'), ['B.tif', 'a/deep/er/y.tif', 'b/x.tif']);
  assert.deepEqual(rel('**/*.TIF'), ['a/x.TIF'], 'case matters, as in bash');
  assert.deepEqual(rel('**/?.tif'), ['B.tif', 'a/deep/er/y.tif', 'b/x.tif']);
  assert.deepEqual(rel('a/**/*.tif'), ['a/deep/er/y.tif']);
  assert.deepEqual(rel('*/x.*'), ['a/x.TIF', 'b/x.tif']);
  assert.deepEqual(rel('.geoweave/**/*.tif'), ['.geoweave/outputs/z.tif'], 'named hidden folders are searched');
  assert.deepEqual(expandGlob(path.join(dir, 'b', '*.tif'), '/'), [path.join(dir, 'b', 'x.tif')], 'absolute patterns');
  assert.deepEqual(itemNames(['a/x.tif', 'b/X.tif', 'c/x.tiff', 'scene 1.tif', '.tif', 'q.jp2']), ['x', 'X-2', 'x-3', 'scene_1', 'cell', 'q']);
});

test('a cell that refers to a batched cell runs item by item over the same items; values equal single runs', { skip }, async () => {
  const dir = await workspace();
  const nb = await runCells(dir, [ndviCell('[scenes/a_pre.tif, dem.tif, scenes/c_s2.tif]'), 'threshold as dense\nimage: $ndvi.index\nop: gt\nvalue: 0.6']);
  const ndvi = runFromMetadata(nb.cells[0].metadata)!;
  const dense = runFromMetadata(nb.cells[1].metadata)!;
  assert.equal(dense.batch!.kind, 'cell');
  assert.equal(dense.batch!.source, '$ndvi');
  assert.deepEqual(dense.batch!.items.map((i) => [i.name, i.ok]), [['a_pre', true], ['dem', false], ['c_s2', true]]);
  assert.match(dense.batch!.items[1].error!, /item "dem" failed in cell "ndvi"/);
  for (const i of [0, 2]) {
    const item = dense.batch!.items[i];
    assert.equal(path.dirname(item.outputs!.mask.path), path.join(dir, '.geoweave', 'outputs', 'batch', 'dense', item.name));
    const single = await runTool('threshold', { image: ndvi.batch!.items[i].outputs!.index.path, op: 'gt', value: 0.6 }, { outDir: path.join(dir, 'single', item.name), cwd: dir });
    const c = compare(item.outputs!.mask.path, single.outputs.mask.path);
    assert.ok(c.valid > 1000);
    assert.deepEqual({ ...c, valid: 0 }, { maxDiff: 0, sameMask: true, sameGrid: true, valid: 0 });
  }
  // Elsewhere a batched cell's output is refused with what to write instead.
  const earlier: EarlierCell[] = [{ name: 'ndvi', tool: 'ndvi', run: ndvi }];
  // A suggested next cell on an item's output refers to the batched cell (and so runs item by item).
  assert.equal(printToolCall(suggestedCall('threshold', { image: ndvi.batch!.items[0].outputs!.index.path, op: 'gt' }, earlier, undefined, dir)), 'threshold\nimage: $ndvi.index\nop: gt');
  assert.throws(() => resolveReferences({ image: reference('ndvi', 'index') }, earlier, { roots: [dir] }), /image: cell "ndvi" ran as a batch of 3 inputs; its outputs are per item: refer to it as the whole value/);
  const trend = shapesFromKinds(getToolSpec('time_series_trend')!.params);
  const call = (args: ToolCall['args']): ToolCall => ({ tool: 'x', args });
  assert.throws(() => planBatch(call({ images: reference('ndvi', 'index') }), trend, earlier, { roots: [dir] }, dir), /images: \$ndvi\.index is a batch of 3 items, and x's images takes a list; list the files you want instead/);
  assert.throws(() => planBatch(call({ image: { red: reference('ndvi', 'index') } }), NDVI, earlier, { roots: [dir] }, dir), /image: \$ndvi\.index is a batch of several items; refer to a batched cell as the whole value/);
  assert.throws(() => planBatch(call({ image: reference('ndvi', 'nope') }), NDVI, earlier, { roots: [dir] }, dir), /image: cell "ndvi" \(ndvi\) has no output "nope"; its items' outputs are index/);
  assert.throws(() => planBatch(call({ image: reference('ndvi', 'index'), zones: 'z/*.tif' }), { ...NDVI, zones: 'single' }, earlier, { roots: [dir] }, dir), /only one argument can be given several inputs/);
});

test('the result card: a table row per input with its key statistics and status, the first good item shown; the saved view and record stay bounded', () => {
  const n = 600;
  const items: BatchItemResult[] = Array.from({ length: n }, (_, i) => {
    const name = `scene_${String(i).padStart(4, '0')}`;
    const outDir = `/w/.geoweave/outputs/nb/ndvi-c1/${name}`;
    if (i % 7 === 3) return { name, input: `scenes/${name}.tif`, outDir, args: {}, error: `ndvi: argument "nir": band 5 is out of range for ${name}.tif ${'(long) '.repeat(100)}` };
    return { name, input: `scenes/${name}.tif`, outDir, args: { image: `/w/scenes/${name}.tif` }, result: {
      tool: 'ndvi', summary: `Mean NDVI 0.${i}`, outputs: { index: { path: `${outDir}/${name}_ndvi.tif`, type: 'raster', roles: ['index'] } },
      stats: { mean: i / n, percentiles: { p50: i / n, p5: 0, p95: 1 }, histogram: { min: 0, max: 1, counts: Array(32).fill(i) }, count: 100, valid: 90 },
    } };
  });
  const plan: BatchPlan = { args: ['image'], source: 'scenes/*.tif', kind: 'glob', items: [] };
  const view = batchResultView('ndvi', plan, items, undefined, {});
  const table = view.tables[0];
  assert.equal(table.title, 'Batch: 600 inputs (image: scenes/*.tif)');
  assert.deepEqual(table.columns.map((c) => c.label), ['Item', 'Input', 'Mean', 'Median', 'Status']);
  assert.deepEqual(table.rows[0], ['scene_0000', 'scenes/scene_0000.tif', 0, 0, 'ok']);
  assert.match(String(table.rows[3][4]), /^failed: ndvi: argument "nir": band 5 is out of range/);
  assert.equal(table.rows[3][2], null);
  assert.equal(view.args, 'image=scenes/*.tif');
  assert.equal(view.batch!.total, 600);
  assert.equal(view.batch!.failed, items.filter((r) => !r.result).length);
  assert.equal(view.batch!.details.length, 20);
  assert.equal(view.batch!.details[view.batch!.shown].name, 'scene_0000');
  assert.ok(view.batch!.details[0].map?.layers.some((l) => l.path.endsWith('scene_0000_ndvi.tif')));

  const saved = boundedView(view);
  assert.ok(JSON.stringify(saved).length <= MAX_SAVED_VIEW, `saved view is ${JSON.stringify(saved).length} characters`);
  assert.equal(saved.tables[0].rows.length, SAVED_ROWS);
  assert.equal(saved.tables[0].omitted, n - SAVED_ROWS);

  // The record keeps every item (references and export need their outputs) in a few hundred characters each.
  const record = batchRunRecord('ndvi', plan, items, 't');
  const perItem = JSON.stringify(record).length / n;
  assert.ok(perItem < 250, `${perItem} characters per item`);
  assert.ok(record.batch!.items.every((i) => (i.error ?? '').length <= 300));
  assert.deepEqual(batchFromMetadata(JSON.parse(JSON.stringify(record.batch))), record.batch);
  // A record someone edited by hand: a name that is not a plain folder name is not trusted.
  assert.equal(batchFromMetadata({ ...record.batch, items: [{ name: '../../etc', input: 'x', ok: true, outputs: {} }] }), undefined);
  assert.equal(batchFromMetadata({ ...record.batch, items: [record.batch!.items[0], record.batch!.items[0]] }), undefined);
});

test('re-running a batch removes the item folders and files its new run no longer makes', { skip }, async () => {
  const dir = await workspace();
  const nb = await runCells(dir, [ndviCell('scenes/*.tif')]);
  const cellDir = path.join(dir, '.geoweave', 'outputs', 'batch', 'ndvi-c1');
  const before = runFromMetadata(nb.cells[0].metadata)!;
  const again = await runCells(dir, [ndviCell('[scenes/a_pre.tif]')]);
  const after = runFromMetadata(again.cells[0].metadata)!;
  await removeStaleOutputs(cellDir, runFiles(before, cellDir), runFiles(after, cellDir));
  assert.deepEqual(fs.readdirSync(cellDir).sort(), ['a_pre']);
});

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '', err = '';
  const code = await main(argv, { out: (t) => { out += t + '\n'; }, err: (t) => { err += t + '\n'; } });
  return { code, out, err };
}

test('geoweave run with a glob or a list: one line per item (--json: an array), exit 1 when an item failed', { skip }, async () => {
  const dir = await workspace();
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    const r = await cli('run', 'ndvi', '--arg', 'image=scenes/*.tif', '--arg', 'red=3', '--arg', 'nir=5', '--out', 'cli', '--json');
    assert.equal(r.code, 0, r.err);
    const items = JSON.parse(r.out);
    assert.deepEqual(items.map((i: { item: string; ok: boolean }) => [i.item, i.ok]), [['a_pre', true], ['b_post', true], ['c_s2', true]]);
    assert.equal(items[0].outputs.index, path.join(dir, 'cli', 'a_pre', 'a_pre_ndvi.tif'));
    assert.equal(items[0].provenance.tool, 'ndvi');
    const single = await runTool('ndvi', { image: 'scenes/b_post.tif', red: 3, nir: 5 }, { outDir: path.join(dir, 'single'), cwd: dir });
    assert.equal(compare(items[1].outputs.index, single.outputs.index.path).maxDiff, 0);

    const t = await cli('run', 'ndvi', '--arg', 'image=[scenes/a_pre.tif, dem.tif]', '--arg', 'red=3', '--arg', 'nir=5', '--out', 'cli2');
    assert.equal(t.code, 1);
    const lines = t.out.trim().split('\n');
    assert.equal(lines.length, 3);
    assert.match(lines[0], /^a_pre \(scenes\/a_pre\.tif\): ok: Mean NDVI .* \[cli2\/a_pre\]$/);
    assert.match(lines[1], /^dem \(dem\.tif\): failed: .*band 5 is out of range/);
    assert.equal(lines[2], '1 of 2 succeeded, 1 failed');
    // --lang zh: each item's summary and the status words in Chinese, the same numbers
    const z = await cli('run', 'ndvi', '--arg', 'image=[scenes/a_pre.tif, dem.tif]', '--arg', 'red=3', '--arg', 'nir=5', '--out', 'cli3', '--lang', 'zh');
    assert.equal(z.code, 1);
    const zl = z.out.trim().split('\n');
    assert.match(zl[0], /^a_pre \(scenes\/a_pre\.tif\): 完成: .*NDVI.*均值 .* \[cli3\/a_pre\]$/);
    assert.equal(/均值 (-?[\d.]+)/.exec(zl[0])?.[1], /Mean NDVI (-?[\d.]+)/.exec(lines[0])?.[1]);
    assert.match(zl[1], /^dem \(dem\.tif\): 失败: /);
    assert.equal(zl[2], '2 项中 1 项成功，1 项失败');
    const e = await cli('run', 'ndvi', '--arg', 'image=none/*.tif');
    assert.notEqual(e.code, 0);
    assert.match(e.err, /image: no file matches "none\/\*\.tif" in /);
  } finally {
    process.chdir(cwd);
  }
});

/** A `geoweave` on PATH: this checkout's CLI. */
function shimPath(): string {
  const bin = tmpDir('gw-bin-');
  fs.symlinkSync(path.join(ROOT, 'bin', 'geoweave.js'), path.join(bin, 'geoweave'));
  return `${bin}${path.delimiter}${process.env.PATH}`;
}

test('export --to sh writes one run per item (a failed item as a comment) and reproduces the outputs on a fresh copy', { skip }, async () => {
  const dir = await workspace();
  const file = path.join(dir, 'batch.geonb');
  const nb = await runCells(dir, [ndviCell('[scenes/b_post.tif, dem.tif, scenes/a_pre.tif]'), 'threshold as dense\nimage: $ndvi.index\nop: gt\nvalue: 0.6']);
  fs.writeFileSync(file, serializeNotebook(nb));
  const text = exportShell(nb, { notebookFile: file, workspace: dir });
  const calls = text.split('\n').filter((l) => l.startsWith('geoweave run '));
  assert.deepEqual(calls, [
    'geoweave run ndvi --arg image=scenes/b_post.tif --arg red=3 --arg nir=5 --out "$OUT"/batch/ndvi-c1/b_post',
    'geoweave run ndvi --arg image=scenes/a_pre.tif --arg red=3 --arg nir=5 --out "$OUT"/batch/ndvi-c1/a_pre',
    'geoweave run threshold --arg image="$OUT"/batch/ndvi-c1/b_post/b_post_ndvi.tif --arg op=gt --arg value=0.6 --out "$OUT"/batch/dense/b_post',
    'geoweave run threshold --arg image="$OUT"/batch/ndvi-c1/a_pre/a_pre_ndvi.tif --arg op=gt --arg value=0.6 --out "$OUT"/batch/dense/a_pre',
  ]);
  assert.ok(text.includes('# cell 1: ndvi, batch item dem\n# not run: it failed in the notebook\'s run ('), text);
  assert.ok(text.includes('# cell 2: threshold as dense, batch item dem\n# not run:'), text);

  const ipynb = JSON.parse(exportIpynb(nb, { notebookFile: file, workspace: dir }));
  const headings = ipynb.cells.filter((c: { cell_type: string }) => c.cell_type === 'markdown').map((c: { source: string[] }) => c.source.join('').split('\n')[0]);
  assert.deepEqual(headings.slice(1), ['## Cell 1: ndvi, batch item b_post', '## Cell 1: ndvi, batch item dem', '## Cell 1: ndvi, batch item a_pre',
    '## Cell 2: threshold as dense, batch item b_post', '## Cell 2: threshold as dense, batch item dem', '## Cell 2: threshold as dense, batch item a_pre']);
  assert.equal(ipynb.cells.filter((c: { cell_type: string }) => c.cell_type === 'code').length, 1 + 4, 'setup, then one code cell per item that ran');

  const fresh = tmpDir('gw-batch-fresh-');
  fs.cpSync(path.join(dir, 'scenes'), path.join(fresh, 'scenes'), { recursive: true });
  fs.copyFileSync(path.join(dir, 'dem.tif'), path.join(fresh, 'dem.tif'));
  const script = path.join(dir, 'batch.sh');
  fs.writeFileSync(script, text);
  const run = spawnSync('bash', [script], { encoding: 'utf8', env: { ...process.env, PATH: shimPath(), GEOWEAVE_WORKSPACE: fresh } });
  assert.equal(run.status, 0, run.stderr);
  const root = path.join(dir, '.geoweave', 'outputs');
  const files = nb.cells.flatMap((c) => runFromMetadata(c.metadata)!.batch!.items.flatMap((i) => Object.values(i.outputs ?? {}).map((o) => path.relative(root, o.path))));
  assert.equal(files.length, 4);
  for (const f of files) {
    const c = compare(path.join(root, f), path.join(fresh, '.geoweave', 'outputs', f));
    assert.ok(c.valid > 1000, f);
    assert.deepEqual({ ...c, valid: 0 }, { maxDiff: 0, sameMask: true, sameGrid: true, valid: 0 }, f);
  }
});

test('a process (manifest) tool batches the same way: its raster input takes one file, so a glob runs it once per file', async () => {
  const { runProcessTool } = await import('../../src/core/notebook/process-runner');
  const { shapesFromManifest } = await import('../../src/core/notebook/batch');
  const dir = tmpDir('gw-batch-proc-');
  fs.mkdirSync(path.join(dir, 'in'));
  for (const n of ['x', 'y']) fs.writeFileSync(path.join(dir, 'in', `${n}.tif`), `content of ${n}`);
  const manifest = {
    id: 'copy', description: 'copies its input', inputs: [{ name: 'image', type: 'raster' as const }, { name: 'extra', type: 'array' as const }], outputs: [{ name: 'result', type: 'raster' as const }],
    runner: { type: 'process' as const, command: process.execPath, args: ['-e', "const fs = require('fs'); fs.copyFileSync(process.argv[1], process.argv[2])", '{image}', '{out}'] },
  };
  const shapes = shapesFromManifest(manifest.inputs);
  assert.deepEqual(shapes, { image: 'single', extra: 'list' });
  const plan = planBatch({ tool: 'copy', args: { image: 'in/*.tif' } }, shapes, [], { roots: [dir] }, dir)!;
  const items = await runBatch(plan, path.join(dir, 'out'), (a, o) => runProcessTool(manifest, a, { ...o, cwd: dir }));
  assert.deepEqual(items.map((r) => [r.name, !!r.result]), [['x', true], ['y', true]]);
  for (const r of items) assert.equal(fs.readFileSync(r.result!.outputs.result.path, 'utf8'), `content of ${r.name}`);
  assert.equal(planBatch({ tool: 'copy', args: { image: 'in/x.tif', extra: ['a', 'b'] } }, shapes, [], { roots: [dir] }, dir), undefined, 'a list input is no batch');
});
