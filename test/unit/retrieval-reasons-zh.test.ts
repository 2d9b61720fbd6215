/** Reasons, readiness notes and suggestion headings in Chinese: the real reasons of forward and
 *  backward retrieval on the sample workspace, every clause rewritten, the data words kept. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GeoWeave } from '../../src/core/geoweave';
import { writeSampleWorkspace } from '../../src/core/raster/sample/generate';
import { scanDataFolder } from '../../src/core/data/scan';
import { RATIONALE_LABELS, localizeNote, localizeReason, productZh } from '../../src/core/retrieval/reason-language';
import { displayName, tagDisplay, withoutDisplayFields, workflowDisplayName } from '../../src/core/manifests/display';
import { humanName, toolTexts } from '../../src/core/index/text';
import { loadCatalog } from '../../src/core/manifests/load';
import { contentHash } from '../../src/core/manifests/canonical';
import type { ToolManifest } from '../../src/core/manifests/types';
import type { Rationale } from '../../src/core/retrieval/types';
import { isChineseText } from '../../src/core/results/summary-language';
import type { DataContext } from '../../src/core/retrieval/types';
import { tmpDir } from '../fixtures/helpers';

const TASKS = [
  'Compute NDVI for the Sentinel-2 scene and show me how the values are distributed',
  '评估哨兵二号影像的植被健康状况',
  'how severe was the fire? compare the pre and post fire scenes',
  '城市扩张：2018 到 2024 年建成区增加了多少',
  'land surface temperature hot spots from the Landsat scene',
  'mean slope per field from the DEM',
  'classify land cover with a random forest and check its accuracy',
];

let root = '';
let gw: GeoWeave;
let data: DataContext;
const reasons: string[] = [], notes: string[] = [];
/** Reasons with the tool they are about (to name it from the catalog). */
const about: { id: string; reason: string; backward: boolean }[] = [];
let catalog: ToolManifest[] = [];

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-reason-zh-'));
  await writeSampleWorkspace(root);
  data = await scanDataFolder(root, () => undefined);
  gw = await GeoWeave.open({ stateDir: tmpDir() });
  for (const task of TASKS) {
    const f = await gw.forwardCandidates(task, { k: 8, data });
    for (const c of f.candidates) { about.push({ id: c.id, reason: c.reason, backward: false }); reasons.push(c.reason); notes.push(...(c.readiness.issues ?? []), ...(c.readiness.caveats ?? [])); }
    const step = { tool: f.candidates[0].id, argSummary: '', resultSummary: '', outputs: [], ok: true, time: '' };
    const b = await gw.complementarySuggestions({ task, windowSize: 5, trace: [step] }, { k: 8, data });
    for (const s of b.ranked) { reasons.push(s.reason); about.push({ id: s.id, reason: s.reason, backward: true }); }
  }
  catalog = gw.tools.map((t) => t.manifest);
});
after(async () => { await gw?.dispose(); if (root) fs.rmSync(root, { recursive: true, force: true }); });

test('every clause of a real reason is Chinese, and the file names and band numbers are kept', () => {
  assert.ok(reasons.length > 50, `${reasons.length} reasons`);
  const left: string[] = [];
  for (const r of reasons) {
    const zh = localizeReason(r, 'zh');
    assert.equal(localizeReason(r, 'en'), r);
    // "image：s2_scene.tif" (an argument and its file) is data, not a sentence.
    for (const c of zh.split('；')) if (!isChineseText(c) && !/^[\w.]+：\S+$/.test(c)) left.push(`${c}   ← ${r}`);
    for (const file of r.match(/[\w-]+\.(?:tif|geojson)/g) ?? []) assert.ok(zh.includes(file), `${file} lost: ${zh}`);
    for (const bands of r.match(/bands? [\d, ]+\d/g) ?? []) assert.ok(zh.includes(bands.replace(/^bands? /, '')), `${bands} lost: ${zh}`);
  }
  assert.deepEqual([...new Set(left)], []);
});

test('readiness notes and input conflicts read in Chinese', () => {
  for (const n of notes) assert.ok(isChineseText(localizeNote(n, 'zh')), n);
  const conflict = 'fire_pre.tif and fire_post_30m.tif are not on the same grid (EPSG:32650, 10 m, 600×600 vs EPSG:32650, 30 m, 200×200): align fire_post_30m.tif onto fire_pre.tif first (resample)';
  assert.equal(localizeNote(conflict, 'zh'), 'fire_pre.tif 与 fire_post_30m.tif 不在同一网格（EPSG:32650, 10 m, 600×600 vs EPSG:32650, 30 m, 200×200）：请先将 fire_post_30m.tif 对齐到 fire_pre.tif（resample）');
  assert.equal(localizeReason('matches NDVI; needs red, NIR — guessed in L7.tif (named in the task) bands 3, 4', 'zh'), '匹配 NDVI；需要红光、NIR：推测在 L7.tif（任务中点名的文件） 的第 3, 4 波段');
  // A folder of band files: the files are named, no English word is left.
  assert.equal(localizeNote('needs red, NIR — found in s2_2024 files B04, B08', 'zh'), '需要红光、NIR：在 s2_2024 的文件 B04、B08 中找到');
});

test('the suggestion headings have a Chinese label for every rationale', () => {
  assert.deepEqual(Object.keys(RATIONALE_LABELS.zh).sort(), Object.keys(RATIONALE_LABELS.en).sort());
  for (const label of Object.values(RATIONALE_LABELS.zh)) assert.ok(isChineseText(label), label);
});

test('with the catalog, Chinese reasons name tools by name_zh and say what they give by description_zh', () => {
  assert.ok(about.filter((a) => a.backward).length > 20);
  const byId = new Map(catalog.map((m) => [m.id, m]));
  const left: string[] = [];
  for (const { id, reason, backward } of about) {
    const zh = localizeReason(reason, 'zh', catalog, id);
    assert.equal(localizeReason(reason, 'en', catalog, id), reason);
    const m = byId.get(id)!;
    if (backward) {
      // "延伸：阈值掩膜给出掩膜（1 = 满足条件，0 = 不满足）——它基于其他数据，而不是你的 NDVI 结果"
      assert.ok(zh.includes(m.name_zh!), `${m.name_zh} missing: ${zh}`);
      assert.ok(!zh.toLowerCase().includes(humanName(m).toLowerCase()), `English name left: ${zh}`);
      const rationale = /^(\w+):/.exec(reason)![1] as Rationale;
      assert.ok(zh.includes(productZh(m, rationale)!), `what it gives not in Chinese: ${zh}`);
    }
    // Tool ids the reason names ("often follows ndvi", "(usually follows cloud_mask)") become their Chinese names.
    for (const t of catalog) if (t.name_zh && new RegExp(`(follows|before|followed by|after) ${t.id}\\b`).test(reason) && !zh.includes(t.name_zh)) left.push(`${t.id}: ${zh}`);
    // Only the analyst's and the catalog's words are left in Latin letters: no English sentence.
    if (/\b(gives|turns|into|takes|checks|your|often|follows|needs|it starts)\b/.test(zh)) left.push(zh);
  }
  assert.deepEqual([...new Set(left)], []);
  const threshold = about.find((a) => a.backward && a.id === 'threshold' && / gives /.test(a.reason));
  if (threshold) assert.match(localizeReason(threshold.reason, 'zh', catalog, 'threshold'), /^(延伸|验证|量化|解释|比较)：阈值掩膜给出掩膜（1 = 满足条件，0 = 不满足）——它基于其他数据，而不是你的(结果| \S+ 结果)$/);
});

test('with the catalog, the tags a real task matched and the workflow a tool is a step of read in Chinese (tags_zh, workflow name_zh)', () => {
  const byId = new Map(catalog.map((m) => [m.id, m]));
  const left: string[] = [];
  let tags = 0, steps = 0;
  for (const { id, reason, backward } of about) {
    if (backward) continue;
    const m = byId.get(id)!;
    const zh = localizeReason(reason, 'zh', catalog, id, gw.workflows);
    const matched = /^matches ([^;]+)/.exec(reason)?.[1].split(', ') ?? [];
    for (const t of matched) {
      if (!(m.tags ?? []).includes(t)) continue;
      tags++;
      const shown = tagDisplay(m, t, 'zh') ?? t;
      if (!zh.startsWith('匹配 ') || !zh.split('；')[0].split('、').some((x) => x.replace(/^匹配 /, '') === shown)) left.push(`${t} → ${shown}: ${zh}`);
      if (tagDisplay(m, t, 'zh') && zh.split('；')[0].includes(t)) left.push(`English tag ${t} left: ${zh}`);
    }
    const flow = /step of the (.+) workflow/.exec(reason)?.[1];
    if (flow) {
      steps++;
      const w = gw.workflows.find((x) => workflowDisplayName(x, 'en') === flow)!;
      if (!zh.includes(`属于“${w.name_zh}”工作流的一步`)) left.push(`${flow}: ${zh}`);
    }
  }
  assert.ok(tags > 20 && steps > 3, `${tags} matched tags, ${steps} workflow steps`);
  assert.deepEqual(left, []);
  // Without the workflows (or the catalog) the English names stay; a task word that is no tag stays as written.
  assert.equal(localizeReason('matches vegetation index, NDVI, greenness; step of the Crop condition monitoring workflow', 'zh', catalog, 'ndvi', gw.workflows), '匹配 植被指数、NDVI、绿度；属于“作物长势监测”工作流的一步');
  assert.equal(localizeReason('matches vegetation index, NDVI; step of the Crop condition monitoring workflow', 'zh'), '匹配 vegetation index、NDVI；属于“Crop condition monitoring”工作流的一步');
  assert.equal(localizeReason('matches vegetation, health', 'zh', catalog, 'ndvi'), '匹配 vegetation、health');
  // Another tool's tags are not this tool's: the tag is translated only by the suggested tool's manifest.
  assert.equal(localizeReason('matches greenness', 'zh', catalog, 'slope'), '匹配 greenness');
});

test('every builtin tag has Chinese (acronyms and proper names stay as they are), every builtin workflow a Chinese name', async () => {
  const { loadCatalog: load } = await import('../../src/core/manifests/load');
  const cat = load({});
  const missing: string[] = [];
  for (const { manifest: m } of cat.tools) {
    for (const t of m.tags ?? []) {
      const zh = tagDisplay(m, t, 'zh');
      if (zh ? !isChineseText(zh) : !/^[A-Za-z0-9]+$/.test(t)) missing.push(`${m.id}: ${t}`);
    }
  }
  for (const w of cat.workflows) if (!w.name_zh || !isChineseText(w.name_zh)) missing.push(`workflow ${w.id}`);
  assert.deepEqual(missing, []);
  assert.deepEqual(cat.problems, [], 'no tags_zh key outside the tags');
});

test('a catalog without Chinese names keeps the English names in Chinese reasons', () => {
  const bare = catalog.map((m) => withoutDisplayFields(m));
  const reason = 'verify: accuracy assessment checks a class map made first against reference data — confusion matrix plus overall accuracy and kappa';
  assert.equal(localizeReason(reason, 'zh', bare, 'accuracy_assessment'), '验证：accuracy assessment 用参考数据检验需先制作的分类图——confusion matrix plus overall accuracy and kappa');
  assert.equal(localizeReason(reason, 'zh', catalog, 'accuracy_assessment'), '验证：精度评价用参考数据检验需先制作的分类图——混淆矩阵及总体精度、Kappa 系数与生产者/用户精度');
  assert.equal(localizeReason('matches NDVI; often follows ndvi', 'zh', bare), '匹配 NDVI；常在 ndvi 之后运行');
  assert.equal(localizeReason('matches NDVI; often follows ndvi', 'zh', catalog), '匹配 NDVI；常在 NDVI（归一化植被指数）之后运行');
  // A team's tool with only name_zh: its name is Chinese, what it gives stays as its manifest says.
  const team: ToolManifest = { id: 'team_ndre', name: 'Red-edge index', name_zh: '红边指数', description: 'x', outputs: [{ name: 'index', type: 'raster', description: 'NDRE per pixel.', unit: 'NDRE' }] };
  assert.equal(localizeReason('explain: red-edge index gives NDRE per pixel (NDRE) — it starts from other data than your result', 'zh', [team], 'team_ndre'), '解释：红边指数给出 NDRE per pixel (NDRE)——它基于其他数据，而不是你的结果');
  assert.equal(displayName(team, 'en'), 'Red-edge index');
  assert.equal(displayName({ ...team, name_zh: ' ' }, 'zh'), 'Red-edge index');
});

test('every builtin tool has a Chinese name, and each output a reason can name has a Chinese description', () => {
  const missing: string[] = [];
  for (const m of catalog) {
    if (!m.name_zh || !isChineseText(m.name_zh)) missing.push(`${m.id}: name_zh`);
    for (const r of ['explain', 'quantify', 'verify', 'compare', 'extend'] as Rationale[]) if (m.outputs?.length && !productZh(m, r)) missing.push(`${m.id}: ${r}`);
  }
  assert.deepEqual(missing, []);
});

test('display fields are not indexed and not in the catalog fingerprint (ranking and the shipped fusion stay as they were)', () => {
  const cat = loadCatalog({});
  for (const t of cat.tools) {
    assert.deepEqual(toolTexts(t.manifest), toolTexts(withoutDisplayFields(t.manifest)), t.manifest.id);
    assert.ok(!toolTexts(t.manifest).main.includes(t.manifest.name_zh ?? '\u0000'), t.manifest.id);
    assert.ok(!toolTexts(t.manifest).main.includes(t.manifest.description_zh ?? '\u0000'), t.manifest.id);
    // What the texts and the hash are computed from has none of them (so the deep-equal above proves they are not read).
    const bare = withoutDisplayFields(t.manifest);
    assert.equal(bare.tags_zh, undefined);
    assert.equal(bare.name_zh, undefined);
    assert.equal(bare.description_zh, undefined);
    assert.ok([...(bare.inputs ?? []), ...(bare.outputs ?? [])].every((p) => p.description_zh === undefined), t.manifest.id);
    assert.equal(t.hash, contentHash(withoutDisplayFields(t.manifest)));
  }
  // The schema declares them: a blank Chinese name is an error, an unknown parameter field still is.
  const dir = tmpDir();
  const base = { id: 'x_tool', description: 'A tool.', outputs: [{ name: 'o', type: 'raster', description_zh: '输出' }] };
  fs.mkdirSync(path.join(dir, 'ok'));
  fs.writeFileSync(path.join(dir, 'ok', 'x.json'), JSON.stringify({ ...base, name_zh: '某工具' }));
  fs.mkdirSync(path.join(dir, 'bad'));
  fs.writeFileSync(path.join(dir, 'bad', 'x.json'), JSON.stringify({ ...base, name_zh: '' }));
  const ok = loadCatalog({ noBuiltin: true, extraDirs: [path.join(dir, 'ok')] });
  assert.deepEqual(ok.problems.filter((p) => p.severity === 'error'), []);
  assert.equal(ok.tools[0].manifest.name_zh, '某工具');
  const bad = loadCatalog({ noBuiltin: true, extraDirs: [path.join(dir, 'bad')] });
  assert.ok(bad.problems.some((p) => p.path === '/name_zh'), JSON.stringify(bad.problems));
  // tags_zh: a blank Chinese tag is an error, one for a tag the tool does not have a warning; both
  // leave the fingerprint as it was without them.
  fs.mkdirSync(path.join(dir, 'tags'));
  const tagged = { ...base, tags: ['water index', 'flood mapping'] };
  fs.writeFileSync(path.join(dir, 'tags', 'x.json'), JSON.stringify({ ...tagged, tags_zh: { 'water index': '水体指数', 'flod mapping': '洪水制图' } }));
  const stray = loadCatalog({ noBuiltin: true, extraDirs: [path.join(dir, 'tags')] });
  assert.deepEqual(stray.problems.map((p) => [p.path, p.severity]), [['/tags_zh/flod mapping', 'warning']]);
  fs.mkdirSync(path.join(dir, 'untagged'));
  fs.writeFileSync(path.join(dir, 'untagged', 'x.json'), JSON.stringify(tagged));
  assert.equal(stray.tools[0].hash, loadCatalog({ noBuiltin: true, extraDirs: [path.join(dir, 'untagged')] }).tools[0].hash);
  fs.writeFileSync(path.join(dir, 'tags', 'x.json'), JSON.stringify({ ...tagged, tags_zh: { 'water index': ' ' } }));
  assert.ok(loadCatalog({ noBuiltin: true, extraDirs: [path.join(dir, 'tags')] }).problems.some((p) => p.severity === 'error' && p.path.startsWith('/tags_zh')));
  // A workflow's name_zh is loaded; a blank one is an error.
  fs.mkdirSync(path.join(dir, 'wf', 'workflows'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'wf', 'x.json'), JSON.stringify(tagged));
  const flow = { id: 'x_flow', name: 'X flow', description: 'Two steps.', steps: ['x_tool', 'x_tool'] };
  fs.writeFileSync(path.join(dir, 'wf', 'workflows', 'x.json'), JSON.stringify({ ...flow, name_zh: '某流程' }));
  assert.equal(loadCatalog({ noBuiltin: true, extraDirs: [path.join(dir, 'wf')] }).workflows[0].name_zh, '某流程');
  fs.writeFileSync(path.join(dir, 'wf', 'workflows', 'x.json'), JSON.stringify({ ...flow, name_zh: '' }));
  assert.ok(loadCatalog({ noBuiltin: true, extraDirs: [path.join(dir, 'wf')] }).problems.some((p) => p.path === '/name_zh'));
});
