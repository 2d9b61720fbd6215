/** `geoweave suggest` and `geoweave next` in the task's language or `--lang en|zh`: the real output
 *  of the builtin catalog, reasons and headings in Chinese with the tools' Chinese names. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { main } from '../../src/cli/main';
import { displayWidth, table } from '../../src/cli/common';
import { tmpDir } from '../fixtures/helpers';

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => { out += t + '\n'; }, err: (t) => { err += t + '\n'; } });
  return { code, out, err };
}

const state = tmpDir('gw-cli-lang-');
const HAN = /\p{Script=Han}/u;
/** English sentence words a Chinese reason must not keep (the analyst's and the catalog's words may stay). */
const ENGLISH = /\b(gives|turns|into|takes|checks|your|often (follows|runs|followed)|needs|it starts|similar in meaning|no default)\b/;

test('suggest: a Chinese task gets Chinese headings and reasons by default; --lang en keeps English', async () => {
  const zh = await cli('suggest', '计算哨兵二号影像的 NDVI', '--k', '5', '--state', state);
  assert.equal(zh.code, 0, zh.err);
  const lines = zh.out.split('\n');
  assert.match(lines[0], /^任务：计算哨兵二号影像的 NDVI$/);
  assert.match(zh.out, /^#\s+工具\s+得分\s+运行\s+理由$/m);
  const rows = lines.filter((l) => /^\d+\s/.test(l));
  assert.equal(rows.length, 5);
  assert.ok(rows.some((r) => /^\d\s+ndvi\s+\d\.\d{3}\s+可运行\s+\S/.test(r)), zh.out);
  for (const r of rows) { assert.ok(HAN.test(r.split(/\s{2,}/).pop()!), r); assert.doesNotMatch(r, ENGLISH, r); }
  const en = await cli('suggest', '计算哨兵二号影像的 NDVI', '--k', '5', '--lang', 'en', '--state', state);
  assert.match(en.out, /^#\s+tool\s+score\s+run\s+why$/m);
  assert.match(en.out, /^\d\s+ndvi\s+\d\.\d{3}\s+runnable\s+(matches|similar)/m);
  assert.doesNotMatch(en.out, /[工具理由]/);
});

test('suggest --lang zh --json: Chinese reason, name and description, the English reason kept as reasonEn; an English task stays English', async () => {
  const r = await cli('suggest', 'how steep is the terrain', '--k', '3', '--lang', 'zh-CN', '--json', '--state', state);
  assert.equal(r.code, 0, r.err);
  const o = JSON.parse(r.out);
  assert.equal(o.lang, 'zh');
  const slope = o.candidates.find((c: { id: string }) => c.id === 'slope');
  assert.equal(slope.name, '坡度');
  assert.match(slope.description, /^用 Horn 3×3 方法由 DEM 计算以度为单位的地形坡度/, 'described by its description_zh');
  assert.ok(HAN.test(slope.reason) && !ENGLISH.test(slope.reason), slope.reason);
  assert.match(slope.reasonEn, /^(matches|similar)/);
  const en = JSON.parse((await cli('suggest', 'how steep is the terrain', '--k', '3', '--json', '--state', state)).out);
  assert.equal(en.lang, 'en');
  assert.equal(en.candidates.find((c: { id: string }) => c.id === 'slope').name, 'Slope');
  assert.match(en.candidates.find((c: { id: string }) => c.id === 'slope').description, /^Computes terrain slope in degrees/);
  assert.equal(en.candidates[0].reasonEn, undefined);
  const bad = await cli('suggest', 'x', '--lang', 'fr', '--state', state);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--lang must be en or zh, got "fr"/);
});

test('next: Chinese rationale labels, reasons naming tools by name_zh; --lang en and an English task stay English', async () => {
  const zh = await cli('next', '--task', '这场山火有多严重？', '--done', 'dnbr', '--k', '5', '--state', state);
  assert.equal(zh.code, 0, zh.err);
  assert.match(zh.out, /^任务：这场山火有多严重？\n已完成：dnbr\n/);
  assert.match(zh.out, /^#\s+工具\s+得分\s+类型\s+理由$/m);
  const rows = zh.out.split('\n').filter((l) => /^\d+\s/.test(l));
  assert.equal(rows.length, 5);
  for (const r of rows) {
    assert.match(r, /^\d+\s+\S+\s+\d\.\d{3}\s+(解释|量化|验证|比较|延伸)\s+(解释|量化|验证|比较|延伸)：/, r);
    assert.doesNotMatch(r, ENGLISH, r);
  }
  // burn_severity follows dnbr: named in Chinese, what it gives too.
  const burn = rows.find((r) => /\sburn_severity\s/.test(r));
  assert.ok(burn, zh.out);
  assert.match(burn!, /火烧严重程度分级（USGS）/);
  assert.match(burn!, /USGS 火烧严重程度分类图/);
  const json = JSON.parse((await cli('next', '--task', '这场山火有多严重？', '--done', 'dnbr', '--k', '5', '--json', '--state', state)).out);
  assert.equal(json.lang, 'zh');
  assert.ok(json.groups.every((g: { suggestions: { reason: string; reasonEn: string }[] }) => g.suggestions.every((s) => HAN.test(s.reason) && /^(explain|quantify|verify|compare|extend): /.test(s.reasonEn))));
  const en = await cli('next', '--task', '这场山火有多严重？', '--done', 'dnbr', '--k', '5', '--lang', 'en', '--state', state);
  assert.match(en.out, /^#\s+tool\s+score\s+rationale\s+why$/m);
  assert.match(en.out, /\s(explain|quantify|verify|compare|extend)\s+(explain|quantify|verify|compare|extend): /);
  const eng = await cli('next', '--task', 'how severe was the fire?', '--done', 'dnbr', '--k', '3', '--state', state);
  assert.match(eng.out, /^task: how severe was the fire\?\ndone: dnbr\n/);
});

test('tables pad by terminal columns: a Chinese character is two', () => {
  assert.equal(displayWidth('坡度'), 4);
  assert.equal(displayWidth('NDVI（归一化）'), 4 + 2 * 5);
  const t = table([['就绪', 'x'], ['not ready', 'y']], ['运行', '理由']).split('\n');
  assert.equal(t[0], '运行       理由');
  assert.equal(t[2], '就绪       x');
  assert.equal(t[3], 'not ready  y');
});
