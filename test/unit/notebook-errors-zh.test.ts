/** Cell errors with a Chinese UI or task: the fixed parts in Chinese, the cell lines and names kept. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cellErrorMessage } from '../../src/core/notebook/cell-errors';
import { isChineseText } from '../../src/core/results/summary-language';

/** A band-role error as src/core/raster/bands.ts throws it (the module is matched by name). */
function bandRoleError(guessed: Record<string, number>): Error {
  const e = Object.assign(new Error('missing band role "nir"'), {
    name: 'BandRoleError', role: 'nir', file: '/ws/L7_ETMs.tif', bandCount: 6, undescribed: true, guessed,
    guess: Object.keys(guessed).length ? { sensor: 'landsat7_etm', label: 'Landsat 7 ETM+ or 4-5 TM (bands 1-5 and 7)', why: '6 bands of UInt8, values 18–148', bands: guessed } : undefined,
  });
  return e;
}

test('a missing band role reads in Chinese with the same lines to add', () => {
  const en = cellErrorMessage(bandRoleError({ nir: 4, red: 3 }));
  const zh = cellErrorMessage(bandRoleError({ nir: 4, red: 3 }), 'zh');
  assert.match(en, /^missing band role "nir" in L7_ETMs\.tif/);
  assert.ok(isChineseText(zh), zh);
  assert.match(zh, /^L7_ETMs\.tif 缺少波段角色 "nir"（6 个波段，均无描述）：请在单元格中加上 `nir: 4`、`red: 3` 这几行。推测：该文件看起来像 Landsat 7 ETM\+/);
  assert.doesNotMatch(zh, /bands of|values |or 4-5/, 'the guessed sensor and what it rests on read in Chinese too');
  assert.match(cellErrorMessage(bandRoleError({}), 'zh'), /请在单元格中加一行 `nir: <波段序号>`/);
});

test('other run errors: argument names, cell-syntax hints and batch failures in Chinese', () => {
  const zh = (m: string) => cellErrorMessage(new Error(m), 'zh');
  assert.equal(zh('slope: unknown argument "zfactor"; did you mean "z_factor"?'), 'slope: 未知参数 "zfactor"；是否想写 "z_factor"？');
  assert.equal(zh('zonal_stats: argument "zones" is required'), 'zonal_stats: 缺少必需的参数 "zones"');
  assert.equal(zh('ndvi: argument "image": /ws/x.tif does not exist'), 'ndvi: 参数 "image"：/ws/x.tif 不存在');
  assert.equal(zh('/ws/pleiades.jp2: it has 4 bands, and GeoWeave reads JPEG 2000 files of one band or three; convert it with gdal_translate -of GTiff -co TILED=YES -co COMPRESS=DEFLATE IN OUT.tif'),
    '/ws/pleiades.jp2：它有 4 个波段，GeoWeave 只读取单波段或三波段的 JPEG 2000 文件；请先转换：gdal_translate -of GTiff -co TILED=YES -co COMPRESS=DEFLATE IN OUT.tif');
  assert.equal(zh('ndvi: band 9 is out of range: pass --arg red=3'), 'ndvi: band 9 is out of range: 在单元格中加上 `red: 3`');
  assert.equal(cellErrorMessage(new Error('ndvi: pass --arg red=3'), 'en'), 'ndvi: add a line `red: 3`');
});

test('the engine\'s own argument and input errors, as runTool throws them, read in Chinese with names, values and files kept', async (t) => {
  const fs = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  const { runTool } = await import('../../src/core/raster/engine');
  const { writeSampleWorkspace } = await import('../../src/core/raster/sample/generate');
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-err-zh-'));
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  await writeSampleWorkspace(root);
  const zhOf = async (tool: string, args: Record<string, unknown>) => {
    try { await runTool(tool, args, { cwd: root, outDir: path.join(root, 'out') }); } catch (e) { return cellErrorMessage(e, 'zh').split(root + path.sep).join(''); }
    throw new Error(`${tool} ran`);
  };
  assert.equal(await zhOf('ndvi', { image: 's2_scene.tif', red: 0 }), 'ndvi: 参数 "red" 必须是从 1 开始的波段序号或波段角色名，实际为 0');
  assert.equal(await zhOf('kmeans_classify', { image: 's2_scene.tif', k: 0 }), 'kmeans_classify: 参数 "k" 必须是介于 2 与 50 之间的整数，实际为 0');
  assert.equal(await zhOf('kmeans_classify', { image: 's2_scene.tif', k: 2.5 }), 'kmeans_classify: 参数 "k" 必须是整数，实际为 2.5');
  assert.equal(await zhOf('threshold', { image: 's2_scene.tif', value: 'abc' }), 'threshold: 参数 "value" 必须是数值，实际为 "abc"');
  assert.equal(await zhOf('threshold', { image: 's2_scene.tif', value: 0.3, op: '??' }), 'threshold: 参数 "op" 必须是以下之一：gt, ge, lt, le, eq, ne，实际为 "??"');
  assert.equal(await zhOf('clip_bbox', { image: 'dem.tif', bbox: '1,2,3' }), 'clip_bbox: 参数 "bbox" 必须是 4 个数：minx,miny,maxx,maxy，实际为 "1,2,3"');
  assert.equal(await zhOf('clip_bbox', { image: 'dem.tif', bbox: '3,2,1,4' }), 'clip_bbox: 参数 "bbox" 必须满足 minx < maxx 且 miny < maxy，实际为 "3,2,1,4"');
  assert.equal(await zhOf('ndvi', { image: '{bad' }), 'ndvi: 参数 "image" 不是有效的 JSON（{"red": "B04.tif", ...}），实际为 "{bad"');
  assert.match(await zhOf('ndvi', { image: { foo: 'a.tif' } }), /^ndvi: 参数 "image" 映射了未知的波段角色 "foo"；可用的角色：blue, green, red, .*，实际为 \{"foo":"a\.tif"\}$/);
  assert.equal(await zhOf('zonal_stats', { image: 's2_scene.tif', zones: 'fields.fgb' }), 'zonal_stats: 参数 "zones" 是 FlatGeobuf 文件，GeoWeave 无法读取；请用 ogr2ogr -f GPKG OUT.gpkg IN（或 -f GeoJSON）转换，然后使用 OUT.gpkg，实际为 "fields.fgb"');
  assert.equal(await zhOf('ndvi', { image: 's2_scene.tif', rde: 3 }), 'ndvi: 未知参数 "rde"；ndvi 可用的参数：image, sensor, nir, red；是否想写 "red"？');
  // Without the catalog the tool's own (English) description stays; with it, its manifest's description_zh.
  assert.equal(await zhOf('time_series_trend', { images: 'a.tif,b.tif' }), 'time_series_trend: 缺少必需的参数 "dates"（字符串列表：ISO dates (YYYY-MM-DD), one per image）；在单元格中加上 `dates: ...`');
  const { loadCatalog } = await import('../../src/core/manifests/load');
  const { paramDescription } = await import('../../src/core/manifests/display');
  const catalog = new Map(loadCatalog({}).tools.map((x) => [x.manifest.id, x.manifest]));
  const paramZh = (tool: string, p: string) => { const m = catalog.get(tool); return m ? paramDescription(m, p, 'zh') : undefined; };
  const withCatalog = async (tool: string, args: Record<string, unknown>) => {
    try { await runTool(tool, args, { cwd: root, outDir: path.join(root, 'out') }); } catch (e) { return cellErrorMessage(e, 'zh', paramZh); }
    throw new Error(`${tool} ran`);
  };
  assert.equal(await withCatalog('time_series_trend', { images: 'a.tif,b.tif' }), 'time_series_trend: 缺少必需的参数 "dates"（字符串列表：获取日期（ISO 字符串，YYYY-MM-DD），每幅影像一个。）；在单元格中加上 `dates: ...`');
  assert.equal(await withCatalog('zonal_stats', { image: 'dem.tif' }), 'zonal_stats: 缺少必需的参数 "zones"（分区（分类栅格或多边形）：分区：多边形（fields.geojson、districts.shp、parcels.gpkg 或 "parcels.gpkg#layer"；任意 CRS），或同一网格上的分类栅格。）；在单元格中加上 `zones: ...`');
  // A tool the catalog does not describe in Chinese keeps the engine's words; English ignores the describer.
  assert.match(cellErrorMessage(new Error('team_tool: missing required argument "x" (number: the x); pass --arg x=...'), 'zh', paramZh), /^team_tool: 缺少必需的参数 "x"（数值：the x）；/);
  try { await runTool('zonal_stats', { image: 'dem.tif' }, { cwd: root, outDir: path.join(root, 'out') }); } catch (e) { assert.match(cellErrorMessage(e, 'en', paramZh), /^zonal_stats: missing required argument "zones" \(zones: class raster/); }
  assert.equal(await zhOf('ndvi', { image: 'nope.tif' }), 'nope.tif：文件不存在');
  assert.equal(await zhOf('zonal_stats', { image: 'dem.tif', zones: 'x.txt' }), '参数 "zones"：x.txt：文件不存在');
  assert.equal(await zhOf('ndvi', { image: 's2_scene.tif', red: 9, nir: 5 }), '参数 "red"：第 9 波段超出 s2_scene.tif 的范围（共 8 个波段：1=blue, 2=green, 3=red, 4=rededge, 5=nir, 6=swir1, 7=swir2, 8=scl）');
  assert.match(await zhOf('ndvi', { image: 's2_scene.tif', sensor: 'spot' }), /^ndvi: 参数 "sensor" 必须是以下之一：sentinel2_l2a, .*，实际为 "spot"$/);
  assert.equal(cellErrorMessage(new Error('argument "sensor": unknown sensor "spot"; use one of naip, planetscope_4b'), 'zh'), '参数 "sensor"：未知的传感器 "spot"；可用：naip, planetscope_4b');
  // English stays as the engine wrote it, with cell syntax for the hints.
  try { await runTool('ndvi', { image: 's2_scene.tif', red: 0 }, { cwd: root, outDir: path.join(root, 'out') }); } catch (e) { assert.equal(cellErrorMessage(e), 'ndvi: argument "red" must be a 1-based band index or a role name, got 0'); }
});

test('every input of a builtin tool, and so every argument it can report missing, is described in Chinese by its manifest (description_zh)', async () => {
  const { loadCatalog } = await import('../../src/core/manifests/load');
  const { getToolSpec } = await import('../../src/core/raster/engine');
  const { paramDescription } = await import('../../src/core/manifests/display');
  const missing: string[] = [];
  let required = 0;
  for (const { manifest } of loadCatalog({}).tools) {
    for (const p of manifest.inputs ?? []) if (!isChineseText(paramDescription(manifest, p.name, 'zh') ?? '')) missing.push(`${manifest.id}.${p.name}`);
    // What the engine can report missing is an input of the manifest under the same name.
    for (const [k, spec] of Object.entries(getToolSpec(manifest.id)?.params ?? {})) {
      if (!spec.required || spec.default !== undefined) continue;
      required++;
      if (!paramDescription(manifest, k, 'zh')) missing.push(`${manifest.id}.${k} (engine)`);
    }
  }
  assert.ok(required > 50, `${required} required engine arguments`);
  assert.deepEqual(missing, []);
});
