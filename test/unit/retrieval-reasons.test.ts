import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readableTerms } from '../../src/core/retrieval/reason-terms';
import { GeoWeave } from '../../src/core/geoweave';
import { memoryFromFlow } from '../../src/core/eval/memory-from-flow';
import { tmpDir } from '../fixtures/helpers';

test('reasons quote whole words the analyst typed: no stems, bigrams or stop words', () => {
  assert.deepEqual(readableTerms('how much imagery shows the vegetation', ['how', 'imageri', 'veget', 'c:vegetation_index']), ['imagery', 'vegetation', 'vegetation index']);
  // Chinese: whole dictionary words that are in the text, never character pairs across words
  const zh = '各地的植被长势怎么样，哪些地方的林地被指出现退化';
  const shown = readableTerms(zh, ['各地', '被指', '植被', '长势', '林地', '退化', '景影']);
  assert.ok(!shown.includes('被指') && !shown.includes('景影') && !shown.includes('各地'), shown.join(','));
  assert.ok(shown.includes('植被') && shown.includes('林地'), shown.join(','));
  // a stem whose word is not in the text (it came from a translation) is not shown as a stem
  assert.deepEqual(readableTerms('用影像计算', ['imageri']), []);
  // a concept a Chinese task evoked is quoted by the task's own word, not named in English
  assert.deepEqual(readableTerms('统计每个地块的分布', ['c:statistics']), ['统计']);
  assert.deepEqual(readableTerms('zonal statistics per field', ['c:statistics']), ['statistics']);
});

test('forward and next-step reasons carry no noise; labels say what the product really is', async () => {
  const gw = await GeoWeave.open({ stateDir: tmpDir() });
  try {
    const noisy = /\b(how|imageri|imag|veget)\b|"how"|被指|各地|景影/;
    for (const task of ['各地的植被长势怎么样，哪些地方的林地被指出现退化', 'how much imagery do I need to map vegetation health']) {
      for (const c of (await gw.forwardCandidates(task, { k: 8 })).candidates) assert.doesNotMatch(c.reason, noisy, `${c.id}: ${c.reason}`);
    }
    // After an NDVI and then a slope from a DEM, the slope is no "NDVI slope".
    const afterSlope = await gw.complementarySuggestions(memoryFromFlow(gw, 'vegetation on steep ground', ['ndvi', 'slope']), { k: 8 });
    for (const s of afterSlope.ranked) assert.doesNotMatch(s.reason, /NDVI slope/i, s.reason);
    assert.ok(afterSlope.ranked.some((s) => /your slope\b/.test(s.reason)), afterSlope.ranked.map((s) => s.reason).join('\n'));
    // A burn-severity class map is the dNBR's class map, not "the dNBR raster"; a table makes no mask.
    const afterTable = await gw.complementarySuggestions(memoryFromFlow(gw, 'how severe was the fire, in hectares', ['dnbr', 'burn_severity', 'area_by_class']), { k: 10 });
    for (const s of afterTable.ranked) assert.doesNotMatch(s.reason, /made from your \w* ?table/i, s.reason);
    const afterClasses = await gw.complementarySuggestions(memoryFromFlow(gw, 'how severe was the fire', ['dnbr', 'burn_severity']), { k: 10 });
    assert.ok(afterClasses.ranked.some((s) => /your dNBR class map/.test(s.reason)), afterClasses.ranked.map((s) => s.reason).join('\n'));
  } finally {
    await gw.dispose();
  }
});
