/** Chinese summaries: real builtin tools run on the sample workspace, their English summaries
 *  rewritten in Chinese with exactly the same numbers; the language follows VS Code or the task. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeSampleWorkspace } from '../../src/core/raster/sample/generate';
import { runTool } from '../../src/core/raster/engine';
import type { ToolRunResult } from '../../src/core/raster/types';
import { isChineseText, localizeSummary, summaryLanguage, summaryNumbers, whereZh } from '../../src/core/results/summary-language';
import { resultMarkdown } from '../../src/core/notebook/result-view';
import { resultView } from '../../src/core/results/view-model';
import { RESULT_STRINGS, term } from '../../src/shared/result-strings';
import { main } from '../../src/cli/main';

let root = '', ws = '';
const results: Record<string, ToolRunResult> = {};

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-zh-'));
  ws = path.join(root, 'ws');
  await writeSampleWorkspace(ws);
  const run = async (key: string, tool: string, args: Record<string, unknown>) => {
    results[key] = await runTool(tool, args, { outDir: path.join(root, 'out', key), cwd: ws });
    return results[key];
  };
  const ndvi = await run('ndvi', 'ndvi', { image: 's2_scene.tif' });
  const ndviFile = ndvi.outputs.index.path;
  await run('ndwi', 'ndwi', { image: 's2_scene.tif' });
  await run('nbr', 'nbr', { image: 's2_scene.tif' });
  await run('raster_stats', 'raster_stats', { image: 'dem.tif' });
  await run('raster_info', 'raster_info', { image: 's2_scene.tif' });
  await run('slope', 'slope', { dem: 'dem.tif' });
  await run('aspect', 'aspect', { dem: 'dem.tif' });
  await run('hillshade', 'hillshade', { dem: 'dem.tif' });
  await run('threshold', 'threshold', { image: ndviFile, op: 'gt', value: 0.6 });
  await run('cloud_mask', 'cloud_mask', { image: 's2_scene.tif' });
  const rc = await run('reclassify', 'reclassify', { image: ndviFile, breaks: '0.2,0.4,0.6' });
  await run('area_by_class', 'area_by_class', { image: rc.outputs.classes.path });
  await run('zonal_stats', 'zonal_stats', { image: ndviFile, zones: 'fields.geojson' });
  const dnbr = await run('dnbr', 'dnbr', { pre: 'fire_pre.tif', post: 'fire_post.tif' });
  await run('burn_severity', 'burn_severity', { image: dnbr.outputs.dnbr.path });
  await run('otsu_threshold', 'otsu_threshold', { image: ndviFile });
  await run('change_difference', 'change_difference', { before: 'urban_2018.tif', after: 'urban_2024.tif' });
});
after(() => { if (root) fs.rmSync(root, { recursive: true, force: true }); });

const sorted = (xs: string[]) => [...xs].sort();

test('every sampled tool has a Chinese summary with the same numbers and units as the English one', () => {
  assert.equal(Object.keys(results).length, 17);
  for (const [key, r] of Object.entries(results)) {
    const zh = localizeSummary(r, 'zh');
    assert.ok(zh.translated, `${key}: no Chinese template matched: ${r.summary}`);
    assert.ok(isChineseText(zh.text), `${key}: ${zh.text}`);
    assert.doesNotMatch(zh.text, /\b(?:of valid pixels|mostly in|spread across|the area|pixels are)\b/, `${key}: English left: ${zh.text}`);
    assert.deepEqual(sorted(summaryNumbers(zh.text)), sorted(summaryNumbers(r.summary)), `${key}:\n  ${r.summary}\n  ${zh.text}`);
    const units = (t: string) => [...t.matchAll(/\d(?:°|%| ha\b| km²| m\b)/g)].map((m) => m[0]).sort();
    assert.deepEqual(units(zh.text), units(r.summary), `${key}: units differ:\n  ${r.summary}\n  ${zh.text}`);
    // English stays exactly as the tool wrote it.
    assert.deepEqual(localizeSummary(r, 'en'), { text: r.summary, translated: true });
  }
});

test('Chinese summaries use the remote-sensing terms', () => {
  const zh = (k: string) => localizeSummary(results[k], 'zh').text;
  const n = results.ndvi.stats as { mean: number };
  assert.match(zh('ndvi'), /^归一化植被指数 \(NDVI\) 均值 /);
  assert.ok(zh('ndvi').includes(String(Number(n.mean.toPrecision(3)))), zh('ndvi'));
  assert.match(zh('ndvi'), /茂密植被 \(NDVI > 0\.6\)/);
  assert.match(zh('slope'), /^平均坡度 \d[\d.]*°（最大 \d[\d.]*°）/);
  assert.ok(zh('slope').includes(`${(results.slope.stats.mean as number).toFixed(1)}°`));
  assert.match(zh('reclassify'), /^重分类后面积最大的类别是“/);
  assert.match(zh('zonal_stats'), /^分区统计：12 个多边形/);
  assert.match(zh('burn_severity'), /^燃烧严重程度：过火面积 \d+ ha/);
  assert.match(zh('area_by_class'), /^分类面积统计：共 \d+ 个类别/);
  assert.match(zh('dnbr'), /差分归一化燃烧比 \(dNBR\)/);
  assert.match(zh('ndwi'), /可能是开阔水面 \(NDWI > 0\)/);
});

test('a summary no template knows stays English, marked untranslated', () => {
  assert.deepEqual(localizeSummary({ tool: 'my_tool', summary: 'Wrote 3 files.' }, 'zh'), { text: 'Wrote 3 files.', translated: false });
  // A half-matching sentence is not half-translated.
  const odd = { tool: 'ndvi', summary: 'Mean NDVI 0.5 (median 0.5, 5–95% range 0.1 to 0.9); something unexpected.' };
  assert.equal(localizeSummary(odd, 'zh').translated, false);
});

test('the summary language follows the display language or a Chinese task', () => {
  assert.equal(summaryLanguage('zh-cn', 'Assess vegetation health'), 'zh');
  assert.equal(summaryLanguage('zh-tw', ''), 'zh');
  assert.equal(summaryLanguage('en', '评估哨兵二号影像的植被健康状况'), 'zh');
  assert.equal(summaryLanguage('en', 'NDVI 植被 health'), 'zh');
  assert.equal(summaryLanguage('en', 'Assess vegetation health'), 'en');
  assert.equal(summaryLanguage('de', undefined), 'en');
  // Japanese (kanji with kana) is not Chinese.
  assert.equal(summaryLanguage('ja', '植生の健康状態を評価する'), 'en');
  assert.equal(whereZh('mostly in the south-west and the north-east'), '主要位于西南部和东北部');
  assert.equal(whereZh('mostly in the northern third'), '主要位于北部三分之一');
  assert.equal(whereZh('somewhere else'), undefined);
});

test('the markdown fallback of a result has Chinese table headings in Chinese', () => {
  const r = { ...results.ndvi, summary: localizeSummary(results.ndvi, 'zh').text };
  const md = resultMarkdown(r, 'zh');
  assert.match(md, /^\*\*ndvi\*\*: 归一化植被指数/);
  assert.ok(md.includes('| 统计量 | 数值 |'), md.slice(0, 300));
  assert.ok(resultMarkdown(results.ndvi).includes('| statistic | value |'));
});

test('the result renderer has every label in Chinese, and every heading of these real result views', () => {
  const en = RESULT_STRINGS.en as unknown as Record<string, string>, zh = RESULT_STRINGS.zh as unknown as Record<string, string>;
  assert.deepEqual(Object.keys(zh).sort(), Object.keys(en).sort());
  const holes = (t: string) => [...t.matchAll(/\{\d\}/g)].map((m) => m[0]).sort();
  for (const k of Object.keys(en)) {
    assert.deepEqual(holes(zh[k]), holes(en[k]), `${k}: placeholders`);
    assert.ok(isChineseText(zh[k]), `${k} is not Chinese: ${zh[k]}`);
  }
  const untranslated = new Set<string>();
  for (const r of Object.values(results)) {
    const v = resultView(r, {}, {});
    const headings = [...v.keyStats.map((k) => k.label), ...v.tables.flatMap((t) => [t.title, ...t.columns.map((c) => c.label)]), ...(v.histogram ? [v.histogram.title] : [])];
    for (const h of headings) if (term(h, 'zh') === h && !/^P\d+$/.test(h)) untranslated.add(`${r.tool}: ${h}`);
    for (const h of headings) assert.equal(term(h, 'en'), h);
  }
  assert.deepEqual([...untranslated], []);
});

test('geoweave run --lang zh prints the Chinese summary with the numbers of the English run', async () => {
  const lines: string[] = [];
  const io = { out: (t: string) => lines.push(t), err: (t: string) => lines.push(t) };
  const dem = path.join(ws, 'dem.tif');
  assert.equal(await main(['run', 'slope', '--arg', `dem=${dem}`, '--out', path.join(root, 'cli'), '--lang', 'zh', '--json'], io), 0, lines.join('\n'));
  const zh = JSON.parse(lines[lines.length - 1]).summary as string;
  assert.equal(zh, localizeSummary(results.slope, 'zh').text);
  assert.match(zh, /^平均坡度 /);
  lines.length = 0;
  assert.equal(await main(['run', 'slope', '--arg', `dem=${dem}`, '--out', path.join(root, 'cli'), '--lang', 'xx'], io), 2);
});
