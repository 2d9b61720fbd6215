/** Batch runs, item by item: each item's tables travel with it (the picker shows them), its
 *  result.json is the same for identical runs (timings are in the cell's record), a glob for a list
 *  input is the files it matches; in Chinese the items' summaries are Chinese. */
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeSampleWorkspace } from '../../src/core/raster/sample/generate';
import { runTool, getToolSpec } from '../../src/core/raster/engine';
import { runNotebook } from '../../src/core/notebook/run-notebook';
import { runFromMetadata } from '../../src/core/notebook/session';
import { parseToolCell } from '../../src/core/notebook/tool-cell';
import { planBatch, runBatch, batchMarkdown, batchRunRecord, batchFromMetadata, expandListGlobs, shapesFromKinds, BatchError, type BatchItemResult, type BatchPlan } from '../../src/core/notebook/batch';
import { batchResultView } from '../../src/core/results/batch-view';
import { boundedView } from '../../src/core/results/saved-result';
import { resultView } from '../../src/core/results/view-model';
import { isChineseText, localizeSummary } from '../../src/core/results/summary-language';
import { tmpDir } from '../helpers/raster-gdal';

let dir = '';
before(async () => {
  const sample = tmpDir('gw-items-sample-');
  await writeSampleWorkspace(sample);
  dir = tmpDir('gw-items-');
  fs.mkdirSync(path.join(dir, 'scenes'));
  for (const [from, to] of [['s2_scene.tif', 'c_s2.tif'], ['fire_pre.tif', 'a_pre.tif'], ['fire_post.tif', 'b_post.tif']]) fs.copyFileSync(path.join(sample, from), path.join(dir, 'scenes', to));
  fs.copyFileSync(path.join(sample, 'fields.geojson'), path.join(dir, 'fields.geojson'));
});

async function batch(out: string, source = 'ndvi\nimage: scenes/*.tif\nred: 3\nnir: 5'): Promise<{ plan: BatchPlan; items: BatchItemResult[] }> {
  const call = parseToolCell(source).call!;
  const plan = planBatch(call, shapesFromKinds(getToolSpec(call.tool)!.params), [], { roots: [dir] }, dir)!;
  const items = await runBatch(plan, path.join(dir, out), (args, o) => runTool(call.tool, args, { ...o, cwd: dir }));
  return { plan, items };
}
const ndviBatch = (out: string) => batch(out);

test('each batch item carries its own tables, so the picker switches them with the map', async () => {
  // Zonal statistics of each scene's band 1 over the fields: one table of zones per item.
  const { plan, items } = await batch('tables', 'zonal_stats\nimage: scenes/*.tif\nzones: fields.geojson');
  const view = batchResultView('zonal_stats', plan, items, undefined, {});
  const details = view.batch!.details;
  assert.deepEqual(details.map((d) => d.name), ['a_pre', 'b_post', 'c_s2']);
  items.forEach((r, i) => {
    const own = resultView(r.result!, r.args, {}).tables;
    assert.ok(own.length > 0, `${r.name} has tables`);
    assert.deepEqual(details[i].tables!.map((t) => t.title), own.map((t) => `${r.name}: ${t.title}`));
    assert.deepEqual(details[i].tables!.map((t) => t.rows), own.map((t) => t.rows));
  });
  assert.notDeepEqual(details[0].tables!.map((t) => t.rows), details[2].tables!.map((t) => t.rows), 'different scenes, different tables');
  // The top-level tables: the batch table, then those of the item shown first.
  assert.deepEqual(view.tables.slice(1), details[view.batch!.shown].tables);
  // A saved view keeps each item's tables, bounded.
  assert.ok(boundedView(view).batch!.details.every((d) => Array.isArray(d.tables) && d.tables.length > 0));
});

test('in Chinese the batch card, the table and every item summary are Chinese, with the same numbers', async () => {
  const { plan, items } = await ndviBatch('zh');
  const view = batchResultView('ndvi', plan, items, undefined, {}, 'zh');
  assert.equal(view.lang, 'zh');
  assert.match(view.summary, /^已对 3 个输入运行（image: scenes\/\*\.tif）：3 个成功。$/);
  assert.match(view.tables[0].title, /^批处理：3 个输入/);
  view.batch!.details.forEach((d, i) => {
    assert.equal(d.summary, localizeSummary(items[i].result!, 'zh').text);
    assert.ok(isChineseText(d.summary), d.summary);
  });
  assert.equal(view.tables[0].rows[0][view.tables[0].rows[0].length - 1], '成功');
});

test('in Chinese the batch cell\'s markdown heading and table are Chinese, the tool named by name_zh with its id', async () => {
  const { plan, items } = await ndviBatch('zh-md');
  const failed: BatchItemResult = { name: 'd_bad', input: 'scenes/d_bad.tif', outDir: '', args: {}, error: 'ndvi: scenes/d_bad.tif: 文件不存在' };
  const zh = batchMarkdown('ndvi', plan, [...items, failed], 'zh', 'NDVI（归一化植被指数）').split('\n');
  assert.equal(zh[0], '**NDVI（归一化植被指数）** (ndvi)（批处理）：已对 4 个输入运行（image: scenes/*.tif）：3 个成功，1 个失败（d_bad: ndvi: scenes/d_bad.tif: 文件不存在）。');
  assert.equal(zh[2], '| 项目 | 输入 | 状态 |');
  assert.deepEqual(zh.slice(4).map((l) => l.split(' | ').pop()), ['成功 |', '成功 |', '成功 |', '失败: ndvi: scenes/d_bad.tif: 文件不存在 |']);
  // English stays as it was: the id as heading, English words.
  const en = batchMarkdown('ndvi', plan, items).split('\n');
  assert.match(en[0], /^\*\*ndvi\*\* \(batch\): Ran on 3 inputs \(image: scenes\/\*\.tif\): 3 succeeded\. a_pre: /);
  assert.equal(en[2], '| item | input | status |');
});

test('two identical batch runs write identical result.json files; the timings are in the cell record', async () => {
  const a = await ndviBatch('same');
  const first = a.items.map((r) => fs.readFileSync(path.join(r.outDir, 'result.json'), 'utf8'));
  await new Promise((r) => setTimeout(r, 20));
  const b = await ndviBatch('same');
  const second = b.items.map((r) => fs.readFileSync(path.join(r.outDir, 'result.json'), 'utf8'));
  assert.deepEqual(second, first);
  for (const text of first) {
    const j = JSON.parse(text);
    assert.equal(j.provenance.tool, 'ndvi');
    assert.ok(j.provenance.inputs[0].sha256, 'the inputs are still hashed');
    assert.equal(j.provenance.started, undefined);
    assert.equal(j.provenance.durationMs, undefined);
  }
  const record = batchRunRecord('ndvi', b.plan, b.items, '2026-01-01T00:00:00.000Z');
  for (const [i, it] of record.batch!.items.entries()) {
    assert.equal(it.started, b.items[i].result!.provenance!.started);
    assert.equal(typeof it.durationMs, 'number');
  }
  assert.deepEqual(batchFromMetadata(JSON.parse(JSON.stringify(record.batch))), record.batch);
});

test('a glob for a list input is the files it matches, sorted, and runs as that list', async () => {
  const trend = shapesFromKinds(getToolSpec('time_series_trend')!.params);
  const call = parseToolCell('time_series_trend\nimages: scenes/*.tif\ndates: [2018-06-01, 2020-06-01, 2024-06-01]').call!;
  assert.deepEqual(expandListGlobs(call, trend, dir).args.images, ['scenes/a_pre.tif', 'scenes/b_post.tif', 'scenes/c_s2.tif']);
  // Globs inside a list, beside plain files; the list keeps its order.
  const mixed = parseToolCell('time_series_trend\nimages: [scenes/c_*.tif, scenes/a_pre.tif, scenes/b*.tif]\ndates: [2018-06-01, 2020-06-01, 2024-06-01]').call!;
  assert.deepEqual(expandListGlobs(mixed, trend, dir).args.images, ['scenes/c_s2.tif', 'scenes/a_pre.tif', 'scenes/b_post.tif']);
  // No batch: the list is the tool's one input.
  assert.equal(planBatch(expandListGlobs(call, trend, dir), trend, [], { roots: [dir] }, dir), undefined);
  assert.throws(() => expandListGlobs(parseToolCell('time_series_trend\nimages: none/*.tif\ndates: [2018-06-01]').call!, trend, dir),
    (e: Error) => e instanceof BatchError && /^images: no file matches "none\/\*\.tif"/.test(e.message));
  // A single-file input is untouched (that is a batch, planned elsewhere).
  const ndvi = parseToolCell('ndvi\nimage: scenes/*.tif').call!;
  assert.equal(expandListGlobs(ndvi, shapesFromKinds(getToolSpec('ndvi')!.params), dir), ndvi);
  const nb = await runNotebook({ metadata: {}, cells: [{ kind: 'tool', source: 'time_series_trend\nimages: scenes/*.tif\ndates: [2018-06-01, 2020-06-01, 2024-06-01]', metadata: { cellId: 'c1' } }] },
    { notebookFile: path.join(dir, 'trend.geonb'), workspace: dir, now: () => '2026-01-01T00:00:00.000Z' });
  const run = runFromMetadata(nb.cells[0].metadata)!;
  assert.equal(run.ok, true);
  assert.equal(run.batch, undefined);
  assert.deepEqual((run.provenance!.args.images as string[]).map((p) => path.basename(p)), ['a_pre.tif', 'b_post.tif', 'c_s2.tif']);
});
