/** Every builtin tool, run on the sample workspace, has a Chinese summary: mostly Chinese, no
 *  English sentence left, and the same numbers as the English one. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeSampleWorkspace } from '../../src/core/raster/sample/generate';
import { GEOTRANSFORM } from '../../src/core/raster/sample/landscape';
import { runTool } from '../../src/core/raster/engine';
import { BUILTIN_TOOLS } from '../../src/core/raster/tools/registry';
import type { ToolRunResult } from '../../src/core/raster/types';
import { localizeSummary, summaryNumbers } from '../../src/core/results/summary-language';

let root = '', ws = '';
const results: Record<string, ToolRunResult[]> = {};

/** A static STAC catalog of two items whose assets are sample files. */
function writeCatalog(dir: string): string {
  const cat = path.join(dir, 'stac');
  const w = (p: string, o: unknown) => { fs.mkdirSync(path.dirname(p), { recursive: true }); fs.writeFileSync(p, JSON.stringify(o)); };
  const items = [['S2_0601', '2023-06-01T10:10:00Z', 12, '../s2_scene.tif'], ['S2_0611', '2023-06-11T10:10:00Z', 3, '../../missing.tif']] as const;
  w(path.join(cat, 'catalog.json'), { type: 'Catalog', stac_version: '1.0.0', id: 'sample', description: 'sample', links: items.map(([id]) => ({ rel: 'item', href: `./${id}.json` })) });
  for (const [id, dt, cloud, href] of items) {
    w(path.join(cat, `${id}.json`), {
      type: 'Feature', stac_version: '1.0.0', id, collection: 'sentinel-2-l2a', bbox: [117, 40, 117.1, 40.1],
      geometry: { type: 'Polygon', coordinates: [[[117, 40], [117.1, 40], [117.1, 40.1], [117, 40.1], [117, 40]]] },
      properties: { datetime: dt, 'eo:cloud_cover': cloud }, links: [], assets: { red: { href, type: 'image/tiff', roles: ['data'] } },
    });
  }
  return cat;
}

before(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-zh-all-'));
  ws = path.join(root, 'ws');
  await writeSampleWorkspace(ws);
  let k = 0;
  const run = async (tool: string, args: Record<string, unknown>) => {
    const r = await runTool(tool, args, { outDir: path.join(root, 'out', `${tool}-${k++}`), cwd: ws });
    (results[tool] ??= []).push(r);
    return r;
  };
  const [x0, px, , y0] = GEOTRANSFORM;
  const ndvi = (await run('ndvi', { image: 's2_scene.tif' })).outputs.index.path;
  for (const t of ['evi', 'savi', 'ndwi', 'mndwi', 'ndbi', 'nbr', 'ndmi', 'ndsi', 'ndci']) await run(t, { image: 's2_scene.tif' });
  await run('band_math', { image: 's2_scene.tif', expression: '(b5-b3)/(b5+b3)' });
  const sar = (await run('band_math', { image: 's2_scene.tif', expression: 'b5/10000' })).outputs.result.path;
  await run('band_math', { image: 's2_scene.tif', expression: 'b5 > 2500' });
  const mask = (await run('threshold', { image: ndvi, op: 'gt', value: 0.6 })).outputs.mask.path;
  const cloud = (await run('cloud_mask', { image: 's2_scene.tif' })).outputs.mask.path;
  await run('apply_mask', { image: ndvi, mask: cloud, invert: 'true' });
  await run('raster_info', { image: 's2_scene.tif' });
  await run('raster_info', { image: 'dem.tif' });
  await run('raster_stats', { image: 'dem.tif' });
  await run('quicklook', { image: ndvi });
  await run('clip_bbox', { image: 's2_scene.tif', bbox: [x0 + px * 100, y0 - px * 400, x0 + px * 300, y0 - px * 100] });
  const coarse = (await run('resample', { image: 'dem.tif', factor: 2, method: 'average' })).outputs.resampled.path;
  await run('resample', { image: 's2_scene.tif', factor: 0.5 });
  const classes = (await run('reclassify', { image: ndvi, breaks: '0.2,0.4,0.6' })).outputs.classes.path;
  await run('area_by_class', { image: classes });
  await run('slope', { dem: 'dem.tif' });
  await run('aspect', { dem: 'dem.tif' });
  await run('hillshade', { dem: 'dem.tif' });
  const dnbr = (await run('dnbr', { pre: 'fire_pre.tif', post: 'fire_post.tif' })).outputs.dnbr.path;
  await run('burn_severity', { image: dnbr });
  await run('change_difference', { before: 'urban_2018.tif', after: 'urban_2024.tif' });
  await run('change_vector_analysis', { before: 'urban_2018.tif', after: 'urban_2024.tif', bands: 'nir,swir1' });
  await run('connected_patches', { image: mask });
  await run('distance_to', { image: mask });
  await run('kmeans_classify', { image: 's2_scene.tif', bands: 'red,nir,swir1', k: 4, seed: 3 });
  await run('land_surface_temperature', { image: 'thermal_landsat.tif' });
  await run('morphology', { image: mask, op: 'open', radius: 1 });
  await run('morphology', { image: mask, op: 'dilate', radius: 2 });
  await run('otsu_threshold', { image: ndvi });
  await run('vectorize_mask', { image: mask });
  await run('zonal_stats', { image: ndvi, zones: 'fields.geojson' });
  await run('reproject', { image: 'dem.tif', dst_crs: 'EPSG:4326' });
  await run('align', { image: coarse, reference: 'dem.tif' });
  await run('clip_to_vector', { image: 'dem.tif', cutline: 'fields.geojson' });
  await run('sar_flood_threshold', { image: sar, units: 'linear' });
  const v18 = (await run('ndvi', { image: 'urban_2018.tif' })).outputs.index.path;
  const v24 = (await run('ndvi', { image: 'urban_2024.tif' })).outputs.index.path;
  const vpre = (await run('ndvi', { image: 'fire_pre.tif' })).outputs.index.path;
  await run('time_series_trend', { images: [vpre, v18, v24], dates: ['2016-07-01', '2018-07-01', '2024-07-01'] });
  // Two dates: a difference per year, said so (in Chinese too).
  await run('time_series_trend', { images: [v18, v24], dates: ['2018-07-01', '2024-07-01'] });
  await run('ndvi_anomaly', { image: v24, baseline: [v18, vpre] });
  await run('ndvi_anomaly', { image: v24, baseline: [v18, vpre], method: 'zscore' });
  await run('median_composite', { images: ['fire_pre.tif', 'urban_2018.tif', 'urban_2024.tif'] });
  await run('mosaic_vrt', { images: ['fire_pre.tif', 'urban_2024.tif'] });
  await run('mosaic_vrt', { images: ['fire_pre.tif', 'urban_2024.tif'], separate: true });
  const rf = (await run('random_forest_classify', { image: 's2_scene.tif', training: 'fields.geojson', class_field: 'crop', n_trees: 10, seed: 1 })).outputs.classes.path;
  await run('accuracy_assessment', { image: rf, reference: 'fields.geojson', class_field: 'crop' });
  await run('stac_search', { catalog: writeCatalog(ws) });
});
after(() => { if (root) fs.rmSync(root, { recursive: true, force: true }); });

const HAN = /[\u3400-\u9fff]/g;
/** The text without file names, quoted labels, CRS names and identifiers (data, not prose). */
function prose(text: string): string {
  return text
    .replace(/(?:^|\s)\/[^\s，；。（）]+/g, ' ')
    .replace(/\S+\.(?:tif|tiff|geojson|shp|gpkg|json|png)\b/g, ' ')
    .replace(/"[^"]*"|“[^”]*”/g, ' ')
    .replace(/EPSG:\d+|WGS 84[^，；。）]*|UTM zone \w+/g, ' ')
    .replace(/\b\w+=\S+|\b(?:nodata|kappa|cloud_mask|apply_mask|max_cloud)\b/g, ' ');
}

/** Words of English prose (three or more lowercase letters). */
function englishWords(text: string): string[] {
  return [...prose(text).matchAll(/\b[a-z]{3,}\b/g)].map((m) => m[0]);
}

test('every builtin tool has a Chinese summary with the same numbers as its English one', () => {
  assert.deepEqual(Object.keys(results).sort(), BUILTIN_TOOLS.map((t) => t.id).sort());
  const failures: string[] = [];
  for (const rs of Object.values(results)) for (const r of rs) {
    const zh = localizeSummary(r, 'zh');
    const han = (zh.text.match(HAN) ?? []).length;
    const latin = (prose(zh.text).match(/[A-Za-z]/g) ?? []).length;
    const en = englishWords(zh.text);
    const same = JSON.stringify([...summaryNumbers(zh.text)].sort()) === JSON.stringify([...summaryNumbers(r.summary)].sort());
    if (!zh.translated || han < latin / 2 || en.length > 2 || !same) failures.push(`${r.tool}:\n  en: ${r.summary}\n  zh: ${zh.text}\n  english words: ${en.join(' ')}${same ? '' : '\n  numbers differ'}`);
  }
  assert.deepEqual(failures, []);
});

test('the rarer summary shapes (empty masks, no match, CRS notes) are Chinese too', () => {
  const cases: [string, string][] = [
    ['connected_patches', 'No patches: the mask is empty.'],
    ['connected_patches', 'No patches of at least 20 pixels (31 smaller ones dropped).'],
    ['vectorize_mask', 'The mask is empty: no polygons.'],
    ['morphology', 'Erosion with a 1-pixel disc removed 0 pixels (0% of the original mask), nowhere; the mask now has 0 pixels (0 ha).'],
    ['stac_search', 'No item of the 8 in /data/stac matches the search; widen the dates, the area or max_cloud. 1 link to a remote catalog file was not followed.'],
    ['zonal_stats', 'Across 3 polygons (12 ha), the zone mean ranges from 0.2 in zone 1 to 0.7 in zone 3; the pixel-weighted mean is 0.5. GeoJSON EPSG:4326 (WGS 84) reprojected to the raster\'s EPSG:32650 (WGS 84 / UTM zone 50N).'],
    ['zonal_stats', 'Across 2 polygons (48 ha), only p0 covers valid pixels: its mean is 0.00534. 1 zone has no valid pixels. GeoPackage EPSG:4326 (WGS 84) reprojected to the raster\'s EPSG:32632 (WGS 84 / UTM zone 32N).'],
    ['accuracy_assessment', 'Against 40 reference points the map is 90% correct (kappa 0.85). 2 samples fall on unclassified (nodata) pixels and are left out. 3 reference points lie off the map.'],
  ];
  for (const [tool, summary] of cases) {
    const zh = localizeSummary({ tool, summary }, 'zh');
    assert.ok(zh.translated, `${tool}: ${summary}`);
    assert.ok(englishWords(zh.text).length === 0, `${tool}: ${zh.text}`);
    assert.deepEqual(summaryNumbers(zh.text).sort(), summaryNumbers(summary).sort(), `${tool}: ${zh.text}`);
  }
});

test('a trend over two dates says it is a difference, not a trend, in English and Chinese; three dates do not', () => {
  const [three, two] = results.time_series_trend;
  assert.doesNotMatch(three.summary, /Two dates/);
  assert.match(two.summary, /Two dates give a difference per year, not a trend: noise alone makes a pixel rise or decline/);
  const zh = localizeSummary(two, 'zh');
  assert.ok(zh.translated, zh.text);
  assert.match(zh.text, /只有两个日期时得到的是每年的差值而非趋势/);
  assert.doesNotMatch(zh.text, /Two dates/);
});
