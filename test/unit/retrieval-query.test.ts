import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseQuery } from '../../src/core/retrieval/query';
import { executability, sameFile } from '../../src/core/retrieval/executability';
import * as path from 'path';
import type { ToolManifest } from '../../src/core/manifests/types';

test('slots: task type, target, indicator, time, place and data hints', () => {
  const q = parseQuery('Compare NDVI of the fields in Hubei Province between 2018 and 2024 from Sentinel-2 GeoTIFFs');
  assert.equal(q.slots.taskType, 'compare');
  assert.deepEqual(q.slots.indicator, ['NDVI']);
  assert.ok(q.slots.time!.some((t) => /between 2018 and 2024/.test(t)));
  assert.deepEqual(q.slots.place, ['Hubei Province']);
  assert.deepEqual(q.slots.dataHints, ['Sentinel-2', 'GeoTIFF']);
  assert.ok(q.slots.target!.includes('field') || q.slots.target!.includes('cropland'));
});

test('slots in Chinese: 2018年以来, 湖北省, 面积', () => {
  const q = parseQuery('统计湖北省2018年以来的水体面积');
  assert.equal(q.slots.taskType, 'quantify');
  assert.deepEqual(q.slots.time, ['2018年以来']);
  assert.ok(q.slots.place!.some((p) => p.includes('湖北省')), JSON.stringify(q.slots.place));
  assert.ok(q.slots.target!.includes('water'));
  assert.ok(q.terms.includes('c:water'));
});

test('indicator slot in Chinese: the index names analysts write (坡度, 归一化水体指数 vs 改进的归一化水体指数, 地表温度)', () => {
  assert.deepEqual(parseQuery('只保留流域边界范围内的高程数据再算坡度').slots.indicator, ['SLOPE']);
  assert.deepEqual(parseQuery('用归一化水体指数提取水体').slots.indicator, ['NDWI']);
  assert.deepEqual(parseQuery('用改进的归一化水体指数提取水体').slots.indicator, ['MNDWI']);
  assert.deepEqual(parseQuery('夏季地表温度和坡向').slots.indicator, ['LST', 'ASPECT']);
  assert.equal(parseQuery('看看植被长得怎么样').slots.indicator, undefined, 'a generic vegetation index names no one indicator');
  // Surface heat described without the name is LST.
  for (const t of ['urban heat island of the city', 'which fields run hottest in August?', 'map the warm-water plume from the plant', '大亚湾温排水影响范围', '用热红外波段看看厂区']) assert.deepEqual(parseQuery(t).slots.indicator, ['LST'], t);
  assert.equal(parseQuery('a hot topic: greenness of the park').slots.indicator, undefined);
});

test('slots: find data with a DEM hint; since-year', () => {
  const q = parseQuery('download a DEM for the watershed since 2018');
  assert.equal(q.slots.taskType, 'find_data');
  assert.deepEqual(q.slots.dataHints, ['DEM']);
  assert.deepEqual(q.slots.time, ['since 2018']);
});

const DNBR: ToolManifest = {
  id: 'dnbr', description: 'dNBR', runner: { type: 'builtin' },
  inputs: [
    { name: 'pre', type: 'raster', required: true, bands: ['nir', 'swir2'] },
    { name: 'post', type: 'raster', required: true, bands: ['nir', 'swir2'] },
    { name: 'nir', type: 'string' },
  ],
};
const bands = (roles: string[]) => roles.map((role, i) => ({ index: i + 1, role }));

test('executability: pre/post take distinct, time-ordered rasters and resolve band numbers', () => {
  const r = executability(DNBR, { items: [
    { path: 'fire_post.tif', type: 'raster', bands: bands(['blue', 'green', 'red', 'nir', 'swir1', 'swir2']) },
    { path: 'fire_pre.tif', type: 'raster', bands: bands(['blue', 'green', 'red', 'nir', 'swir1', 'swir2']) },
  ] });
  assert.equal(r.ready, true);
  assert.equal(r.args.pre, 'fire_pre.tif');
  assert.equal(r.args.post, 'fire_post.tif');
  assert.equal(r.args.nir, 4);
  assert.ok(r.notes.includes('needs NIR, SWIR2 — found in fire_pre.tif bands 4, 6'), r.notes.join(' | '));
  assert.ok(r.notes.includes('needs NIR, SWIR2 — found in fire_post.tif bands 4, 6'), r.notes.join(' | '));
});

test('executability: one scene cannot be both pre and post; missing roles are named', () => {
  const one = executability(DNBR, { items: [{ path: 'a.tif', type: 'raster', bands: bands(['red', 'nir', 'swir2']) }] });
  assert.equal(one.ready, false);
  assert.equal(one.missing.length, 1);
  const rgb = executability(DNBR, { items: [{ path: 'rgb.tif', type: 'raster', bands: bands(['red', 'green', 'blue']) }] });
  assert.deepEqual(rgb.missing, ['pre', 'post']);
  assert.ok(rgb.notes.some((n) => n === 'needs NIR + SWIR2 for pre — none found'), rgb.notes.join(' | '));
  // The same file listed twice (workspace-relative by the data scan, absolute from a run) is still one scene.
  const twice = executability(DNBR, { items: [
    { path: '.geoweave/outputs/scene_clip.tif', type: 'raster', bands: bands(['red', 'nir', 'swir2']) },
    { path: path.join(path.sep, 'ws', '.geoweave', 'outputs', 'scene_clip.tif'), type: 'raster', bands: bands(['red', 'nir', 'swir2']), producedBy: 'clip_bbox' },
  ] });
  assert.equal(twice.ready, false, JSON.stringify(twice.args));
  assert.ok(sameFile('/ws/a/b.tif', 'a/b.tif') && sameFile('./b.tif', '/ws/b.tif') && !sameFile('/ws/ab.tif', 'b.tif') && !sameFile('a/b.tif', 'c/b.tif'));
  const catalogOnly = executability({ id: 'x', description: 'x' }, { items: [] });
  assert.equal(catalogOnly.runnable, false);
  assert.equal(catalogOnly.ready, false);
});
