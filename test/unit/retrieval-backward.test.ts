import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { GeoWeave } from '../../src/core/geoweave';
import { createMemory, addStep } from '../../src/core/memory/memory';
import type { MemoryState } from '../../src/core/memory/types';
import { tmpDir } from '../fixtures/helpers';

let gw: GeoWeave;
before(async () => { gw = await GeoWeave.open({ stateDir: tmpDir() }); });
after(async () => { await gw.dispose(); });

/** Complementary suggestions for `m` from a separate instance with some weights changed. */
async function suggestWith(weights: Partial<GeoWeave['weights']>, m: MemoryState) {
  const other = await GeoWeave.open({ stateDir: tmpDir(), weights });
  try {
    return await other.complementarySuggestions(m, { k: 60 });
  } finally {
    await other.dispose();
  }
}

function step(tool: string, outputs: MemoryState['trace'][number]['outputs'], resultSummary = '') {
  return { tool, argSummary: '', resultSummary, outputs, ok: true, time: '2026-01-01T00:00:00Z' };
}

test('backward: after an NDVI threshold mask, area_by_class is suggested to quantify it', async () => {
  const m = createMemory('how much of my farm is covered by healthy vegetation?');
  addStep(m, step('ndvi', [{ name: 'index', type: 'raster', path: 'ndvi.tif', roles: ['index'] }], 'NDVI mean 0.41, 0.05..0.86'));
  addStep(m, step('threshold', [{ name: 'mask', type: 'raster', path: 'mask.tif', roles: ['mask'] }], '38% of valid pixels have NDVI > 0.5'));
  const r = await gw.complementarySuggestions(m, { k: 10 });
  const top3 = r.ranked.slice(0, 3).map((s) => s.id);
  assert.ok(top3.includes('area_by_class'), top3.join(', '));
  const abc = r.ranked.find((s) => s.id === 'area_by_class')!;
  assert.equal(abc.rationale, 'quantify');
  assert.match(abc.reason, /^quantify: area by class turns your NDVI mask into hectares/);
  assert.ok(abc.parts.feed > 0.5, 'the mask feeds its class/mask input');
  assert.equal(abc.readiness.args.image, 'mask.tif');
  // grouped by rationale, and tools already run are penalised out of the top
  assert.ok(r.groups.find((g) => g.rationale === 'quantify')!.suggestions.some((s) => s.id === 'area_by_class'));
  assert.ok(!top3.includes('ndvi') && !top3.includes('threshold'));
  assert.deepEqual(r.queries.map((q) => q.rationale), ['quantify', 'explain', 'verify', 'compare', 'extend']);
  assert.ok(r.queries[0].text.includes('NDVI mask'));
});

test('backward: after dNBR, burn_severity comes next', async () => {
  const m = createMemory('how badly did the fire burn the forest?');
  addStep(m, step('dnbr', [{ name: 'dnbr', type: 'raster', path: 'dnbr.tif', roles: ['dnbr', 'index'] }], 'dNBR mean 0.31'));
  const r = await gw.complementarySuggestions(m, { k: 5 });
  assert.ok(r.ranked.slice(0, 2).some((s) => s.id === 'burn_severity'), r.ranked.map((s) => s.id).join(', '));
});

test('backward: a DEM-based slope suggests terrain follow-ups, not spectral indices', async () => {
  const m = createMemory('find steep areas at risk of landslides');
  addStep(m, step('slope', [{ name: 'slope', type: 'raster', path: 'slope.tif', roles: ['slope'] }], 'slope 0..48 degrees, mean 12'));
  const r = await gw.complementarySuggestions(m, { k: 5 });
  const top5 = r.ranked.map((s) => s.id);
  assert.ok(top5.some((t) => ['reclassify', 'threshold', 'aspect', 'hillshade'].includes(t)), top5.join(', '));
  assert.ok(!top5.includes('ndvi'));
});

// Reasons must be true to what each tool makes: derived from its manifest outputs and units.
function hectareTools(): Set<string> {
  return new Set(gw.tools.filter((t) => (t.manifest.outputs ?? []).some((o) => /\bha\b|hectare/i.test(o.unit ?? ''))).map((t) => t.manifest.id));
}

test('backward reasons: only tools that output hectares promise hectares; reclassify promises classes', async () => {
  const ha = hectareTools();
  assert.deepEqual([...ha], ['area_by_class']);
  const scenarios: [string, MemoryState['trace'][number][]][] = [
    ['how many hectares of my farm have healthy vegetation?', [step('ndvi', [{ name: 'index', type: 'raster', path: 'ndvi.tif', roles: ['index'] }], 'NDVI mean 0.41')]],
    ['how many hectares of my farm have healthy vegetation?', [
      step('ndvi', [{ name: 'index', type: 'raster', path: 'ndvi.tif', roles: ['index'] }]),
      step('threshold', [{ name: 'mask', type: 'raster', path: 'mask.tif', roles: ['mask'] }], '38% of pixels have NDVI > 0.5')]],
    ['burned area in hectares after the fire', [step('dnbr', [{ name: 'dnbr', type: 'raster', path: 'dnbr.tif', roles: ['dnbr', 'index'] }])]],
  ];
  let sawReclassify = false;
  for (const [task, steps] of scenarios) {
    const m = createMemory(task);
    for (const s of steps) addStep(m, s);
    const r = await gw.complementarySuggestions(m, { k: 40 });
    for (const s of r.ranked) {
      assert.ok(s.reason.startsWith(`${s.rationale}: `), s.reason);
      if (/hectare/i.test(s.reason)) assert.ok(ha.has(s.id), `${s.id} promises hectares: ${s.reason}`);
      if (s.id === 'reclassify') {
        sawReclassify = true;
        assert.match(s.reason, /class/);
      }
      // Only tools that take two dates (or a series / baseline) are offered to compare.
      if (s.rationale === 'compare') assert.ok(['change_difference', 'change_vector_analysis', 'dnbr', 'time_series_trend', 'ndvi_anomaly', 'bfast_breakpoints', 'phenology_metrics', 'median_composite', 'mosaic_vrt'].includes(s.id), `${s.id}: ${s.reason}`);
    }
  }
  assert.ok(sawReclassify);
});

test('backward reasons name the right quantity for labelled cases', async () => {
  const m = createMemory('is the crop healthy in each field? compare with last year and check the result');
  addStep(m, step('ndvi', [{ name: 'index', type: 'raster', path: 'ndvi.tif', roles: ['index'] }], 'NDVI mean 0.41'));
  const r = await gw.complementarySuggestions(m, { k: 60 });
  const reason = (id: string) => r.ranked.find((s) => s.id === id)?.reason ?? `${id} not ranked`;
  assert.match(reason('zonal_stats'), /zonal statistics (breaks your NDVI index down by field or zone|turns your NDVI index into) .*mean.* per zone/);
  assert.match(reason('change_difference'), /^compare: image differencing change detection sets your NDVI index against another date — after − before per pixel/);
  assert.match(reason('raster_stats'), /percentiles/);
  assert.doesNotMatch(reason('raster_stats'), /hectare/);
  assert.match(reason('quicklook'), /^verify: .* lets you look at your NDVI index — a PNG preview/);
  assert.match(reason('otsu_threshold'), /a mask \(1 = above threshold, 0 = below\)/);
  // area by class needs a mask or class map, which an index is not: the reason says what it takes.
  assert.match(reason('area_by_class'), /^quantify: area by class turns a class map or mask made from your NDVI index into hectares per class/);

  const k = createMemory('check my land cover classification');
  addStep(k, step('kmeans_classify', [{ name: 'classes', type: 'raster', path: 'classes.tif', roles: ['class'] }], '5 clusters'));
  const r2 = await gw.complementarySuggestions(k, { k: 30 });
  const acc = r2.ranked.find((s) => s.id === 'accuracy_assessment')!;
  assert.equal(acc.rationale, 'verify');
  assert.match(acc.reason, /checks your class map against reference data — confusion matrix plus overall accuracy and kappa/);
  const abc = r2.ranked.find((s) => s.id === 'area_by_class')!;
  assert.match(abc.reason, /^quantify: area by class turns your class map into hectares per class and percent of the area$/);
});

test('backward: a task about change over time brings a two-date tool next, once', async () => {
  const m = createMemory('how much did the town grow between 2018 and 2024?');
  addStep(m, step('ndbi', [{ name: 'index', type: 'raster', path: 'ndbi.tif', roles: ['index'] }], 'NDBI mean 0.02'));
  const r = await gw.complementarySuggestions(m, { k: 5 });
  assert.ok(r.ranked.slice(0, 3).some((s) => s.id === 'change_difference'), r.ranked.map((s) => s.id).join(', '));
  assert.equal(r.ranked.find((s) => s.id === 'change_difference')!.parts.temporal, 1);
  // After the comparison the time signal is spent: no second two-date tool gets it.
  addStep(m, step('change_difference', [{ name: 'change_mask', type: 'raster', path: 'chg.tif', roles: ['mask', 'change_mask'] }]));
  const r2 = await gw.complementarySuggestions(m, { k: 20 });
  assert.ok(r2.ranked.every((s) => s.parts.temporal === 0));
  // A single date is not a comparison.
  const one = createMemory('search Landsat 9 scenes of the delta in 2023');
  addStep(one, step('stac_search', [{ name: 'scenes', type: 'table', path: 'scenes.csv' }]));
  const r3 = await gw.complementarySuggestions(one, { k: 20 });
  assert.ok(r3.ranked.every((s) => s.parts.temporal === 0));
});

test('backward: graph edges and learned transitions come from the last step only (olderSteps 0)', async () => {
  // time_series_trend follows ndvi in the catalog graph but not threshold: once a mask exists, the
  // chain has moved past the index and ndvi's edges no longer count.
  assert.ok(gw.weights.olderSteps === 0);
  const m = createMemory('dense vegetation mask and its area');
  addStep(m, step('ndvi', [{ name: 'index', type: 'raster', path: 'ndvi.tif', roles: ['index'] }]));
  addStep(m, step('threshold', [{ name: 'mask', type: 'raster', path: 'mask.tif', roles: ['mask'] }]));
  const r = await gw.complementarySuggestions(m, { k: 60 });
  const tst = r.ranked.find((s) => s.id === 'time_series_trend')!;
  assert.equal(tst.parts.nextGraph, 0);
  assert.ok(r.ranked.find((s) => s.id === 'morphology')!.parts.nextGraph > 0.5);
  const r2 = await suggestWith({ olderSteps: 0.5 }, m);
  assert.equal(r2.ranked.find((s) => s.id === 'time_series_trend')!.parts.nextGraph, 0.4, 'ndvi → time_series_trend (0.8) one step back');
});

test('backward: a cloud mask is applied to the image, not measured or cleaned like an analysis mask', async () => {
  const m = createMemory('mask the clouds on the Sentinel-2 scene, then a vegetation index');
  addStep(m, step('cloud_mask', [{ name: 'mask', type: 'raster', path: 'clouds.tif', roles: ['mask', 'cloud'] }]));
  // k above the catalog's size: every tool is ranked.
  const r = await gw.complementarySuggestions(m, { k: 100 });
  const by = (id: string) => r.ranked.find((s) => s.id === id)!;
  assert.equal(by('apply_mask').parts.feed, 1);
  for (const id of ['area_by_class', 'morphology', 'connected_patches', 'vectorize_mask']) {
    assert.ok(by(id).parts.feed < 1, `${id} takes a cloud mask as its analysis mask`);
    assert.ok(by(id).score < by('apply_mask').score, `${id} above apply_mask`);
  }
  assert.ok(r.ranked.slice(0, 3).some((s) => s.id === 'apply_mask'), r.ranked.slice(0, 5).map((s) => s.id).join(', '));
});

test('backward: a clipped scene still has its bands, so an index can take it', async () => {
  const m = createMemory('vegetation index for the area around the lake');
  // Only tool ids are known (as in evaluation): outputs come from the manifest, which says "same as input".
  addStep(m, step('clip_bbox', [{ name: 'clipped', type: 'raster', path: 'clip.tif', roles: [] }]));
  const r = await gw.complementarySuggestions(m, { k: 60 });
  const ndvi = r.ranked.find((s) => s.id === 'ndvi')!;
  assert.ok(ndvi.parts.feed >= 1, JSON.stringify(ndvi.parts));
  assert.doesNotMatch(ndvi.reason, /starts from other data/);
  // A mask clipped to the study area stays a mask: what takes masks is fed by it.
  const m2 = createMemory('water mask of the lake, clipped to the park, and its area');
  addStep(m2, step('threshold', [{ name: 'mask', type: 'raster', path: 'mask.tif', roles: ['mask'] }]));
  addStep(m2, step('clip_to_vector', [{ name: 'clipped', type: 'raster', path: 'clip.tif', roles: [] }]));
  const r2 = await gw.complementarySuggestions(m2, { k: 60 });
  assert.equal(r2.ranked.find((s) => s.id === 'morphology')!.parts.feed, 1);
  assert.equal(r2.ranked.find((s) => s.id === 'ndvi')!.parts.feed, 0, 'a clipped mask has no red or NIR band');
});

test('backward: the deliverable the task names (polygons, per field, a preview) counts once its input exists', async () => {
  const m = createMemory('extent of the algal bloom on the reservoir, as polygons');
  addStep(m, step('ndci', [{ name: 'index', type: 'raster', path: 'ndci.tif', roles: ['index'] }]));
  addStep(m, step('threshold', [{ name: 'mask', type: 'raster', path: 'bloom.tif', roles: ['mask'] }]));
  const r = await gw.complementarySuggestions(m, { k: 60 });
  const vec = r.ranked.find((s) => s.id === 'vectorize_mask')!;
  assert.equal(vec.parts.deliver, 1);
  assert.equal(r.ranked[0].id, 'vectorize_mask', r.ranked.slice(0, 3).map((s) => s.id).join(', '));
  assert.equal(r.ranked.find((s) => s.id === 'quicklook')!.parts.deliver, 0, 'the task asks for polygons, not a preview');
  // Per-field wording asks for zonal statistics; a plain task does not.
  const perField = createMemory('flooded cropland per field polygon');
  addStep(perField, step('mndwi', [{ name: 'index', type: 'raster', path: 'mndwi.tif', roles: ['index'] }]));
  addStep(perField, step('otsu_threshold', [{ name: 'mask', type: 'raster', path: 'water.tif', roles: ['mask'] }]));
  const pf = await gw.complementarySuggestions(perField, { k: 60 });
  assert.equal(pf.ranked.find((s) => s.id === 'zonal_stats')!.parts.deliver, 1);
  const plain = createMemory('flooded cropland');
  plain.trace = perField.trace;
  const pl = await gw.complementarySuggestions(plain, { k: 60 });
  assert.equal(pl.ranked.find((s) => s.id === 'zonal_stats')!.parts.deliver, 0);
  // Without the weight the same polygons task ranks by the chain alone.
  const r0 = await suggestWith({ deliver: 0 }, m);
  const s0 = r0.ranked.find((s) => s.id === 'vectorize_mask')!.score;
  // (Given weights switch the reranking trees off: compare the weighted sums.)
  assert.ok(Math.abs(vec.score - (vec.parts.rerank ?? 0) - s0 - gw.weights.deliver) < 1e-3, `${vec.score} vs ${s0}`);
});

test('backward: an indicator the task names is computed next after a preparation step', async () => {
  const m = createMemory('先去云，再按作物类型统计NDMI');
  addStep(m, step('cloud_mask', [{ name: 'mask', type: 'raster', path: 'clouds.tif', roles: ['mask', 'cloud'] }]));
  // k above the catalog's size: every tool is ranked.
  const r = await gw.complementarySuggestions(m, { k: 100 });
  const ndmi = r.ranked.find((s) => s.id === 'ndmi')!;
  assert.equal(ndmi.parts.named, 1);
  assert.equal(r.ranked.find((s) => s.id === 'ndvi')!.parts.named, 0, 'only the indicator the task names');
  assert.ok(r.ranked.slice(0, 3).some((s) => s.id === 'ndmi'), r.ranked.slice(0, 3).map((s) => s.id).join(', '));
  // Once it has run it is not pushed again.
  addStep(m, step('ndmi', [{ name: 'index', type: 'raster', path: 'ndmi.tif', roles: ['index'] }]));
  const after = await gw.complementarySuggestions(m, { k: 60 });
  assert.equal(after.ranked.find((s) => s.id === 'ndmi')?.parts.named ?? 0, 0);
  assert.ok(!after.ranked.slice(0, 10).some((s) => s.id === 'ndmi'));
});

test('backward: a named indicator in Chinese or by its abbreviation maps to its tool (坡度 → slope, LST → land_surface_temperature)', async () => {
  const m = createMemory('只保留流域边界范围内的高程数据再算坡度');
  addStep(m, step('clip_to_vector', [{ name: 'clipped', type: 'raster', path: 'dem_clip.tif', roles: ['dem'] }]));
  const r = await gw.complementarySuggestions(m, { k: 60 });
  assert.equal(r.ranked.find((s) => s.id === 'slope')!.parts.named, 1);
  const t = createMemory('cloud-free LST of the town in summer');
  addStep(t, step('cloud_mask', [{ name: 'mask', type: 'raster', path: 'clouds.tif', roles: ['mask', 'cloud'] }]));
  const rt = await gw.complementarySuggestions(t, { k: 60 });
  assert.equal(rt.ranked.find((s) => s.id === 'land_surface_temperature')!.parts.named, 1);
});

test('backward: a series of dates (yearly, a decade, 逐年) calls for tools that read a stack, a before/after pair for a two-date difference', async () => {
  const temporal = async (task: string) => {
    const m = createMemory(task);
    addStep(m, step('nbr', [{ name: 'index', type: 'raster', path: 'nbr.tif', roles: ['index'] }]));
    const r = await gw.complementarySuggestions(m, { k: 60 });
    return new Set(r.ranked.filter((s) => s.parts.temporal === 1).map((s) => s.id));
  };
  for (const task of ['how fast is the forest coming back after the 2019 fire?', '火烧迹地植被逐年恢复得怎么样', 'burn ratio every year since the fire']) {
    const t = await temporal(task);
    assert.ok(t.has('time_series_trend') && !t.has('dnbr') && !t.has('change_difference'), `${task}: ${[...t].join(', ')}`);
  }
  const pair = await temporal('burn ratio before and after the fire');
  assert.ok(pair.has('dnbr') && pair.has('change_difference'), [...pair].join(', '));
  // A series tool takes the index once per date: its reason says so, not "other data".
  const m = createMemory('burn ratio every year since the fire');
  addStep(m, step('nbr', [{ name: 'index', type: 'raster', path: 'nbr.tif', roles: ['index'] }]));
  const trend = (await gw.complementarySuggestions(m, { k: 60 })).ranked.find((s) => s.id === 'time_series_trend')!;
  assert.match(trend.reason, /reads a stack of dates of your NBR index/, trend.reason);
});

test('backward: which way a slope faces names its aspect (face north, south-facing, 朝南, 阳坡)', async () => {
  for (const task of ['avalanche slopes steeper than 30 degrees that face north', 'south-facing hillsides for the new vineyard', '找朝南的缓坡地块', '阳坡和阴坡的植被差异']) {
    const m = createMemory(task);
    addStep(m, step('dem_download', [{ name: 'dem', type: 'raster', path: 'dem.tif', roles: ['dem'] }]));
    const r = await gw.complementarySuggestions(m, { k: 60 });
    assert.equal(r.ranked.find((s) => s.id === 'aspect')!.parts.named, 1, task);
  }
  const flat = createMemory('flat land for the solar farm');
  addStep(flat, step('dem_download', [{ name: 'dem', type: 'raster', path: 'dem.tif', roles: ['dem'] }]));
  assert.equal((await gw.complementarySuggestions(flat, { k: 60 })).ranked.find((s) => s.id === 'aspect')?.parts.named ?? 0, 0);
});

test('backward: one class named over a class map is picked out with a threshold (eq) first', async () => {
  const afterCover = async (task: string) => {
    const m = createMemory(task);
    addStep(m, step('landcover_worldcover', [{ name: 'classes', type: 'raster', path: 'worldcover.tif', roles: ['class'] }]));
    return gw.complementarySuggestions(m, { k: 60 });
  };
  for (const task of ['outline the cropland of the district from WorldCover', '从土地覆盖数据里把水体提出来', 'mask out everything but cropland with the land cover map']) {
    const r = await afterCover(task);
    assert.equal(r.ranked.find((s) => s.id === 'threshold')!.parts.pick, 1, task);
    assert.ok(r.ranked.slice(0, 3).some((s) => s.id === 'threshold'), `${task}: ${r.ranked.slice(0, 3).map((s) => s.id).join(', ')}`);
  }
  // Every class, or two of them side by side, is measured from the class map as it is.
  for (const task of ['hectares of each WorldCover class in the reserve', 'WorldCover cropland versus tree cover per municipality']) {
    assert.equal((await afterCover(task)).ranked.find((s) => s.id === 'threshold')?.parts.pick ?? 0, 0, task);
  }
  // A mask is not a class map: nothing to pick.
  const m = createMemory('outline the cropland of the district');
  addStep(m, step('threshold', [{ name: 'mask', type: 'raster', path: 'mask.tif', roles: ['mask'] }]));
  assert.ok(!(await gw.complementarySuggestions(m, { k: 60 })).ranked.some((s) => s.parts.pick));
});

test('backward: named deliverables and operations as analysts phrase them (quick look, 出个图, per paddock, 按乡镇, clip to a boundary, mosaic, a km grid, named classes, management zones, a baseline, the year of a break, land-cover zones, counting)', async () => {
  const afterIndex = async (task: string) => {
    const m = createMemory(task);
    addStep(m, step('ndvi', [{ name: 'index', type: 'raster', path: 'ndvi.tif', roles: ['index'] }]));
    const r = await gw.complementarySuggestions(m, { k: 60 });
    return new Set(r.ranked.filter((s) => s.parts.deliver === 1).map((s) => s.id));
  };
  const cases: [string, string[]][] = [
    ['NDVI of the park, just a quick look', ['quicklook']],
    ['给领导出个图，看看植被长势', ['quicklook']],
    ['what fraction of each paddock is bare soil', ['zonal_stats']],
    ['植被指数按乡镇汇总', ['zonal_stats']],
    ['green space inside the city limits', ['clip_to_vector']],
    ['只保留流域边界范围内的植被指数', ['clip_to_vector']],
    ['greenness of two adjacent paths, mosaicked into one map', ['mosaic_vrt']],
    ['mean greenness per 1 km grid cell for the climate model', ['resample']],
    ['two scenes of the county: merge them into one and compute greenness', ['mosaic_vrt']],
    ['split the greenness into bare, sparse and dense cover', ['reclassify']],
    ['vigour classes (low, medium, high) for the agronomist', ['reclassify']],
    ['植被长势分成好、中、差三档', ['reclassify']],
    ['split the vineyard into vigour zones', ['kmeans_classify']],
    ['三个管理分区，做变量施肥', ['kmeans_classify']],
    ['is greenness below normal this month, against the last five years?', ['ndvi_anomaly']],
    ['今年夏玉米长势和近五年同期比偏差多少', ['ndvi_anomaly']],
    ['in which year was the forest cleared?', ['bfast_breakpoints']],
    ['这片松林是从什么时候开始枯死的', ['bfast_breakpoints']],
    ['mean greenness by land-cover class across the scene', ['landcover_worldcover']],
    ['按土地覆盖类型统计植被指数', ['landcover_worldcover']],
    ['greenness now versus the 2019 image', []],
    ['when is the crop greenness highest this season', []],
    ['when did the wheat green up this year?', []],
    ['which orchards lost the most canopy?', ['zonal_stats']],
    ['tree canopy share in every census tract', ['zonal_stats']],
    ['mean greenness for each of the municipalities', ['zonal_stats']],
    ['哪几个村的植被最差', ['zonal_stats']],
    ['植被指数按企业边界统计', ['zonal_stats']],
    ['vegetation index of the orchard', []],
    ['NDVI change per pixel since 2018', []],
  ];
  for (const [task, want] of cases) assert.deepEqual([...(await afterIndex(task))].sort(), want.sort(), task);
  // Counting separate things is labelling patches, once a mask exists to label.
  for (const task of ['how many separate ponds are there on the farm?', 'count the clearings in the forest', '林地里有几处空地']) {
    const m = createMemory(task);
    addStep(m, step('ndwi', [{ name: 'index', type: 'raster', path: 'ndwi.tif', roles: ['index'] }]));
    const before = await gw.complementarySuggestions(m, { k: 60 });
    assert.equal(before.ranked.find((s) => s.id === 'connected_patches')?.parts.deliver ?? 0, 0, `${task}: no mask yet`);
    addStep(m, step('threshold', [{ name: 'mask', type: 'raster', path: 'mask.tif', roles: ['mask'] }]));
    const r = await gw.complementarySuggestions(m, { k: 60 });
    assert.equal(r.ranked.find((s) => s.id === 'connected_patches')!.parts.deliver, 1, task);
    assert.ok(r.ranked.slice(0, 3).some((s) => s.id === 'connected_patches'), `${task}: ${r.ranked.slice(0, 3).map((s) => s.id).join(', ')}`);
  }
});

test('backward groups: best group first, nothing far below the best suggestion, no tool already run', async () => {
  const m = createMemory('Which parts of the valley have stressed or sparse vegetation, and how many hectares is that?');
  addStep(m, step('ndvi', [{ name: 'index', type: 'raster', path: 'ndvi.tif', roles: ['index'] }]));
  const r = await gw.complementarySuggestions(m, { k: 60 });
  const heads = r.groups.map((g) => g.suggestions[0].score);
  assert.deepEqual(heads, [...heads].sort((a, b) => b - a));
  const best = r.ranked.find((s) => s.id !== 'ndvi')!.score;
  const shown = r.groups.flatMap((g) => g.suggestions);
  const fresh = r.ranked.filter((s) => s.id !== 'ndvi');
  assert.ok(shown.every((s) => (s.score >= 0.3 * best || fresh.indexOf(s) < 4) && s.id !== 'ndvi'), shown.map((s) => `${s.id} ${s.score}`).join(', '));
  // The tail exists: some rationale-fitting tools were left out for scoring too low.
  assert.ok(r.ranked.some((s) => s.id !== 'ndvi' && s.score < 0.3 * best && s.score > 0));
  // One confident next step (what the flows run after NDVI then zonal statistics) still leaves the
  // best four to choose from, so dismissing it does not empty the panel.
  const m2 = createMemory('Assess vegetation health in the Sentinel-2 scene');
  addStep(m2, step('ndvi', [{ name: 'index', type: 'raster', path: 'ndvi.tif', roles: ['index'] }]));
  addStep(m2, step('zonal_stats', [{ name: 'table', type: 'table', path: 'zones.csv', roles: ['table'] }]));
  const r2 = await gw.complementarySuggestions(m2, { k: 10 });
  const shown2 = r2.groups.flatMap((g) => g.suggestions.map((s) => s.id));
  const best4 = r2.ranked.filter((s) => s.id !== 'ndvi' && s.id !== 'zonal_stats').slice(0, 4).map((s) => s.id);
  assert.deepEqual([...shown2].filter((id) => best4.includes(id)).sort(), [...best4].sort(), `${shown2.join(', ')} vs ${best4.join(', ')}`);
});

test('backward: a team tool whose output has no description or unit still gets a whole reason (its description says what it gives)', async () => {
  const dir = tmpDir();
  const fs = await import('fs');
  const path = await import('path');
  fs.writeFileSync(path.join(dir, 'canal_width.json'), JSON.stringify({
    id: 'canal_width', name: 'Canal width', description: 'Measures the width of irrigation canals from a water mask, in metres.',
    inputs: [{ name: 'water_mask', type: 'raster', bands: ['mask'] }], outputs: [{ name: 'widths', type: 'table' }],
  }));
  const team = await GeoWeave.open({ stateDir: tmpDir(), extraManifestDirs: [dir] });
  try {
    const m = createMemory('measure how wide the irrigation canals are');
    addStep(m, step('mndwi', [{ name: 'index', type: 'raster', path: 'mndwi.tif', roles: ['index'] }]));
    addStep(m, step('threshold', [{ name: 'mask', type: 'raster', path: 'water.tif', roles: ['mask'] }]));
    const r = await team.complementarySuggestions(m, { k: 10 });
    const cw = r.ranked.find((s) => s.id === 'canal_width');
    assert.ok(cw, r.ranked.map((s) => s.id).join(', '));
    assert.match(cw.reason, /measures the width of irrigation canals/, cw.reason);
    assert.doesNotMatch(cw.reason, /(into|—|gives)\s*$/, cw.reason);
  } finally {
    await team.dispose();
  }
});

test('backward: a catalog the forward ranking scores whole (here 240 tools) ranks the same however many suggestions are asked, each with its whole text match', async () => {
  // 240 tools that all share words with the step's queries, so a pool of 60 texts would leave most
  // of them with a text match of 0 while they are still ranked (the next step's pool was cut at 200
  // tools, the forward ranking's at 300).
  const dir = tmpDir();
  const fs = await import('fs');
  const path = await import('path');
  const things = ['flood', 'water', 'field', 'forest', 'road', 'roof', 'crop', 'river', 'slope', 'coast', 'wetland', 'urban'];
  const verbs = ['mask', 'area', 'statistics', 'change', 'map', 'clip', 'buffer', 'count', 'classify', 'compare'];
  for (let i = 0; i < 240; i++) {
    const id = `team_tool_${String(i).padStart(3, '0')}`;
    const a = things[i % things.length];
    const b = verbs[Math.floor(i / things.length) % verbs.length];
    fs.writeFileSync(path.join(dir, `${id}.json`), JSON.stringify({
      id, name: `${a} ${b} ${i}`, description: `Computes the ${b} of a ${a} raster mask, variant ${i}.`,
      inputs: [{ name: 'image', type: 'raster' }],
    }));
  }
  const team = await GeoWeave.open({ stateDir: tmpDir(), noBuiltin: true, extraManifestDirs: [dir] });
  try {
    // The flows say what follows the first tool, so tools far down the text ranking reach the top 10.
    await team.recordTrajectories(Array.from({ length: 20 }, (_, n) => ({ task: `flooded field area survey ${n}`, tools: ['team_tool_000', 'team_tool_239'] })));
    const m = createMemory('how much flooded field area is there');
    addStep(m, step('team_tool_000', [{ name: 'mask', type: 'raster', path: 'flood.tif', roles: ['mask'] }], '12% of the field is flooded'));
    const all = await team.complementarySuggestions(m, { k: 240, mode: 'full' });
    const top = await team.complementarySuggestions(m, { k: 10, mode: 'full' });
    assert.equal(all.ranked.length, 240);
    const ids = top.ranked.map((s) => s.id);
    assert.ok(ids.includes('team_tool_239'), ids.join(', '));
    assert.deepEqual(top.ranked.map((s) => [s.id, s.score, s.parts.query, s.parts.dense, s.parts.lexical]), all.ranked.slice(0, 10).map((s) => [s.id, s.score, s.parts.query, s.parts.dense, s.parts.lexical]));
    // Each tool's query part is its best match among the queries, scored against the whole catalog.
    const best = new Map<string, number>();
    for (const q of all.queries) {
      for (const h of await team.searchTools(q.text, 240)) best.set(h.id, Math.max(best.get(h.id) ?? 0, h.score));
    }
    for (const s of all.ranked) {
      if (s.id === 'team_tool_000') continue;
      assert.ok(Math.abs(s.parts.query - (best.get(s.id) ?? 0)) < 2e-4, `${s.id}: query part ${s.parts.query}, its best query match ${best.get(s.id)}`);
    }
    assert.ok(top.ranked.find((s) => s.id === 'team_tool_239')!.parts.query > 0);
  } finally {
    await team.dispose();
  }
});

test('backward: a suggestion is ready on the file its reason speaks of, not on an earlier product of the same kind', async () => {
  const m = createMemory('how much of the farm is healthy vegetation on the Landsat scene?');
  addStep(m, step('cloud_mask', [{ name: 'mask', type: 'raster', path: 'landsat_cloudmask.tif', roles: ['mask'] }], '12% of pixels cloudy'));
  addStep(m, step('ndvi', [{ name: 'index', type: 'raster', path: 'landsat_ndvi.tif', roles: ['index'] }], 'NDVI mean 0.41'));
  addStep(m, step('threshold', [{ name: 'mask', type: 'raster', path: 'ndvi_mask.tif', roles: ['mask'] }], '38% of valid pixels have NDVI > 0.5'));
  const r = await gw.complementarySuggestions(m, { k: 10 });
  const abc = r.ranked.find((s) => s.id === 'area_by_class')!;
  assert.match(abc.reason, /NDVI mask/);
  assert.equal(abc.readiness.args.image, 'ndvi_mask.tif', JSON.stringify(abc.readiness.args));
});
