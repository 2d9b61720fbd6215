/** The Chinese glossary written blind (cjk-glossary.ts): its keys are what the tokenizer can match,
 *  analysts' colloquial phrasings read as the operation they name, and the product ranks by them. */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { CJK_GLOSSARY } from '../../src/core/embed/cjk-glossary';
import { CJK_DICTIONARY } from '../../src/core/embed/cjk-dictionary';
import { simplifiedHan, stem, tokenize } from '../../src/core/embed/tokenize';
import { parseQuery } from '../../src/core/retrieval/query';
import { memoryFromFlow } from '../../src/core/eval/memory-from-flow';
import { GeoWeave } from '../../src/core/geoweave';
import { tmpDir } from '../fixtures/helpers';

const has = (text: string, words: string) => {
  const tokens = tokenize(text);
  return words.split(' ').map(stem).every((t) => tokens.includes(t));
};

test('glossary keys are 2 to 8 Han characters, values plain lowercase English, and the first hand-written entries win', () => {
  const bad = Object.entries(CJK_GLOSSARY).filter(([k, v]) => !/^\p{Script=Han}{2,8}$/u.test(k) || !/^[a-z0-9][a-z0-9 -]*$/.test(v));
  assert.deepEqual(bad, []);
  assert.ok(Object.keys(CJK_GLOSSARY).length > 1500);
  assert.deepEqual(Object.keys(CJK_GLOSSARY).filter((k) => CJK_DICTIONARY[k] === undefined), [], 'the tokenizer reads every glossary key');
  // 植被 is a first entry; the glossary does not redefine it.
  assert.equal(CJK_DICTIONARY['植被'], 'vegetation');
});

test('colloquial phrasings read as the operation they name', () => {
  assert.ok(has('把这几景影像拼一下', 'mosaic'), tokenize('把这几景影像拼一下').join(' '));
  assert.ok(has('再往外扩500米', 'buffer'));
  assert.ok(has('把坡度分几级', 'reclassify'));
  assert.ok(has('洪水范围转成面', 'polygon'));
  // Traditional forms too.
  assert.ok(has('遙感影像變化檢測', 'change detection'), tokenize('遙感影像變化檢測').join(' '));
  // Keys that sit inside words of another sense were left out: 溶解 (the vector "dissolve") inside
  // 溶解氧 (dissolved oxygen, a water-quality variable) would send a water task to the vector tools.
  assert.ok(!tokenize('测一下水库的溶解氧').includes(stem('dissolve')), tokenize('测一下水库的溶解氧').join(' '));
});

let gw: GeoWeave | undefined;
after(async () => { await gw?.dispose(); });

test('Chinese tasks in analysts\' words reach the tools: mosaic, buffer, reclassify first or second', async () => {
  gw = await GeoWeave.open({ stateDir: tmpDir() });
  const ids = async (q: string, k: number) => (await gw!.forwardCandidates(q, { k })).candidates.map((c) => c.id);
  const mosaic = await ids('把这几景哨兵2影像拼一下', 1);
  assert.deepEqual(mosaic, ['mosaic_vrt']);
  const buffer = await ids('洪水掩膜转成面，再往外扩500米', 3);
  assert.ok(buffer.includes('vectorize_mask') && buffer.includes('vector_buffer'), buffer.join(' '));
  const classes = await ids('把坡度分几级', 1);
  assert.deepEqual(classes, ['reclassify']);
});

test('Traditional Chinese is read as Simplified: tokens, slots, forward candidates and next steps alike', async () => {
  const simplified = '比较2019年和2023年的归一化植被指数变化，算一下退化的面积';
  const traditional = '比較2019年和2023年的歸一化植被指數變化，算一下退化的面積';
  assert.equal(simplifiedHan(traditional), simplified);
  assert.equal(simplifiedHan('NDVI of 遙感.tif'), 'NDVI of 遥感.tif', 'only Han characters change');
  assert.deepEqual(tokenize(traditional), tokenize(simplified));
  assert.deepEqual(parseQuery(traditional).slots.taskType, parseQuery(simplified).slots.taskType);
  assert.ok(parseQuery(traditional).slots.taskType, 'the change-detection pattern (变化) matches 變化');
  gw ??= await GeoWeave.open({ stateDir: tmpDir() });
  const ids = async (q: string) => (await gw!.forwardCandidates(q, { k: 5 })).candidates.map((c) => c.id);
  assert.deepEqual(await ids(traditional), await ids(simplified));
  const next = async (q: string) => (await gw!.complementarySuggestions(memoryFromFlow(gw!, q, ['ndvi']), { k: 5 })).ranked.map((s) => s.id);
  assert.deepEqual(await next(traditional), await next(simplified));
});
