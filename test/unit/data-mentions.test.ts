/** How a task points at data without naming the file: the years in a file name, each once. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mentionOf, yearsInName } from '../../src/core/data/mentions';

test('a year in a file name counts once, and path/row digits are no year', () => {
  assert.deepEqual(yearsInName('LC09_L2SP_193028_20240802_20240803_02_T1_QA_PIXEL.TIF'), ['2024'], 'acquisition and processing dates: one year; path/row 193028 is not 1930');
  assert.deepEqual(yearsInName('LC08_L2SP_202034_20210612_20210620_02_T1_SR_B4.TIF'), ['2021'], 'path/row 202034 is not 2020');
  assert.deepEqual(yearsInName('T32TNR_20240715T102559_B04_10m.tif'), ['2024']);
  assert.deepEqual(yearsInName('urban_2018.tif'), ['2018']);
  assert.deepEqual(yearsInName('fire2021.tif'), ['2021']);
  assert.deepEqual(yearsInName('scene_202406.tif'), ['2024']);
  assert.deepEqual(yearsInName('ndvi_2019-2024.tif'), ['2019', '2024']);
  assert.deepEqual(yearsInName('id_12024.tif'), []);
});

test('"the July 2024 Sentinel-2 NDVI": a Landsat QA band dated 2024 twice is not spoken of as much as a Sentinel-2 product of 2024', () => {
  // Seen in a session: apply_mask was "ready" with the Landsat QA band as the image to mask, its year
  // counted twice ("the task's 2024, 2024") as much as a kind of data the task names.
  const task = 'mask the clouds out of the July 2024 Sentinel-2 NDVI using the SCL cloud mask';
  const qa = mentionOf(task, { path: '/ws/landsat/LC09_L2SP_193028_20240802_20240803_02_T1_QA_PIXEL.TIF', type: 'raster' });
  const s2 = mentionOf(task, { path: '/ws/out/ndvi_2/s2_2024_ndvi.tif', type: 'raster' });
  assert.deepEqual(qa.words, ['2024']);
  assert.equal(qa.score, 0.5);
  assert.deepEqual(s2.words, ['Sentinel-2', '2024']);
  assert.equal(s2.score, 1.5);
  assert.equal(mentionOf('NDVI change since 1930', { path: '/ws/LC09_L2SP_193028_20240802_20240803_02_T1_SR_B4.TIF', type: 'raster' }).score, 0);
});

test('"this year" and "last year" point at the files of those years, by the date the task is read (en, zh)', () => {
  const now = new Date('2024-08-01T00:00:00Z');
  const y24 = { path: 'ndvi_2024.tif', type: 'raster' as const }, y23 = { path: 'ndvi_2023.tif', type: 'raster' as const };
  assert.deepEqual(mentionOf('mean NDVI per field for this year', y24, now), { score: 0.5, at: 24, words: ['this year'] });
  assert.equal(mentionOf('mean NDVI per field for this year', y23, now).score, 0);
  assert.deepEqual(mentionOf('NDVI change since last year', y23, now).words, ['last year']);
  assert.equal(mentionOf('NDVI change since last year', y24, now).score, 0);
  assert.deepEqual(mentionOf('今年的地块NDVI', y24, now).words, ['今年']);
  assert.deepEqual(mentionOf('和去年比较', y23, now).words, ['去年']);
  // A year written out is the year said; "this year" adds no second mention of it.
  assert.deepEqual(mentionOf('2024 NDVI, this year', y24, now).words, ['2024']);
});
