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
import { RATIONALE_LABELS, localizeNote, localizeReason } from '../../src/core/retrieval/reason-language';
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

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-reason-zh-'));
  await writeSampleWorkspace(root);
  data = await scanDataFolder(root, () => undefined);
  gw = await GeoWeave.open({ stateDir: tmpDir() });
  for (const task of TASKS) {
    const f = await gw.forwardCandidates(task, { k: 8, data });
    for (const c of f.candidates) { reasons.push(c.reason); notes.push(...(c.readiness.issues ?? []), ...(c.readiness.caveats ?? [])); }
    const step = { tool: f.candidates[0].id, argSummary: '', resultSummary: '', outputs: [], ok: true, time: '' };
    const b = await gw.complementarySuggestions({ task, windowSize: 5, trace: [step] }, { k: 8, data });
    for (const s of b.ranked) reasons.push(s.reason);
  }
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
});

test('the suggestion headings have a Chinese label for every rationale', () => {
  assert.deepEqual(Object.keys(RATIONALE_LABELS.zh).sort(), Object.keys(RATIONALE_LABELS.en).sort());
  for (const label of Object.values(RATIONALE_LABELS.zh)) assert.ok(isChineseText(label), label);
});
