import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCatalog } from '../../src/core/manifests/load';
import { getToolSpec, listBuiltinTools } from '../../src/core/raster/engine';
import { SENSORS } from '../../src/core/raster/bands';
import { completionsAt, diagnose, hoverAt, argInfos, LanguageCatalog } from '../../src/core/notebook/language';
import { BAND_ROLES, SENSOR_PRESETS } from '../../src/core/notebook/vocabulary';
import { kindWord } from '../../src/core/notebook/language-words';

// The real catalog and the real engine specs: what the editor offers is what the tools accept.
const { tools } = loadCatalog();
const builtin = new Set(listBuiltinTools().map((t) => t.id));
function catalog(earlier: LanguageCatalog['earlier'] = []): LanguageCatalog {
  return {
    tools: tools.map((t) => t.manifest),
    spec: (id) => (builtin.has(id) ? getToolSpec(id)?.params : undefined),
    bandRoles: [...BAND_ROLES],
    sensors: [...SENSOR_PRESETS],
    files: ['dem.tif', 'fields.geojson', 's2_scene.tif', 'sub/urban_2018.tif'],
    earlier,
  };
}
const labels = (src: string, line: number, ch: number, c = catalog()) => completionsAt(src, line, ch, c).map((e) => e.label);

test('the sensor presets offered are the engine\'s', () => {
  assert.deepEqual([...SENSOR_PRESETS], [...SENSORS]);
});

test('first line completes tool ids from the manifests', () => {
  const items = completionsAt('nd', 0, 2, catalog());
  assert.ok(items.length >= 60, `${items.length} tools offered`);
  const ndvi = items.find((i) => i.label === 'ndvi');
  assert.ok(ndvi);
  assert.deepEqual(ndvi.range, { line: 0, start: 0, end: 2 });
  assert.match(ndvi.documentation ?? '', /NIR/);
});

test('argument lines complete the tool\'s arguments not yet given, with their kinds', () => {
  const items = completionsAt('ndvi\nimage: s2_scene.tif\n', 2, 0, catalog());
  const names = items.map((i) => i.label);
  assert.ok(!names.includes('image'), 'image is already given');
  for (const n of ['sensor', 'red', 'nir']) assert.ok(names.includes(n), `${n} offered: ${names.join(',')}`);
  assert.equal(items.find((i) => i.label === 'red')?.detail?.startsWith('band'), true, 'red has the engine kind "band"');
  assert.equal(items[0].insertText.endsWith(': '), true);
});

test('values: band roles, sensor presets, raster paths and earlier outputs', () => {
  assert.deepEqual(labels('ndvi\nred: ', 1, 5).filter((l) => BAND_ROLES.includes(l as never)), [...BAND_ROLES]);
  assert.deepEqual(labels('ndvi\nsensor: ', 1, 8), [...SENSOR_PRESETS]);
  const earlier = [{ name: 'ndvi', tool: 'ndvi', outputs: [{ name: 'index', type: 'raster' }] }];
  const img = labels('threshold\nimage: ', 1, 7, catalog(earlier));
  assert.ok(img.includes('s2_scene.tif') && img.includes('sub/urban_2018.tif'));
  assert.ok(!img.includes('fields.geojson'), 'a raster argument does not offer vectors');
  assert.ok(img.includes('$ndvi.index'));
  const zones = labels('zonal_stats\nzones: ', 1, 7);
  assert.ok(zones.includes('fields.geojson'));
});

test('hover shows the manifest description and argument docs', () => {
  const h = hoverAt('ndvi\nimage: s2.tif', 0, 2, catalog());
  assert.match(h?.markdown ?? '', /Normalized Difference Vegetation Index/);
  assert.match(h?.markdown ?? '', /Arguments: `image`\*/);
  const a = hoverAt('ndvi\nimage: s2.tif', 1, 2, catalog());
  assert.match(a?.markdown ?? '', /^`image`: raster, required/);
  assert.equal(hoverAt('ndvi\nimage: s2.tif', 1, 10, catalog()), undefined);
});

test('a Chinese editor gets Chinese hover words, the tool\'s name_zh and the argument\'s description_zh', () => {
  const zh = { ...catalog(), lang: 'zh' as const };
  const ndvi = tools.find((t) => t.manifest.id === 'ndvi')!.manifest;
  const image = (ndvi.inputs ?? []).find((p) => p.name === 'image')!;
  assert.ok(ndvi.name_zh && image.description_zh, 'the builtin ndvi manifest has its Chinese fields');
  const h = hoverAt('ndvi\nimage: s2.tif', 0, 2, zh)!.markdown;
  assert.ok(h.startsWith(`**${ndvi.name_zh}** \`ndvi\``), h);
  assert.match(h, /参数：`image`\*/);
  assert.match(h, /输出：/);
  // The tool is described by its description_zh, and the English description is not shown beside it.
  assert.ok(ndvi.description_zh, 'the builtin ndvi manifest has a description_zh');
  assert.ok(h.includes(`\n\n${ndvi.description_zh}\n\n`), h);
  assert.ok(!h.includes(ndvi.description), h);
  const a = hoverAt('ndvi\nimage: s2.tif', 1, 2, zh)!.markdown;
  assert.equal(a, `\`image\`: 栅格，必填\n\n${image.description_zh}`);
  // completions describe arguments in the same language
  const items = completionsAt('ndvi\nimage: s2_scene.tif\n', 2, 0, zh);
  const red = (ndvi.inputs ?? []).find((p) => p.name === 'red');
  if (red?.description_zh) assert.ok(items.find((i) => i.label === 'red')?.documentation?.includes(red.description_zh));
});

test('a Chinese editor\'s completions: tools by name_zh and description_zh, kinds and value details in Chinese', () => {
  const earlier = [{ name: 'veg', tool: 'ndvi', outputs: [{ name: 'index', type: 'raster', description: '逐像元 NDVI（-1..1）' }] }];
  const zh = { ...catalog(earlier), lang: 'zh' as const };
  const ndvi = tools.find((t) => t.manifest.id === 'ndvi')!.manifest;
  const tool = completionsAt('nd', 0, 2, zh).find((i) => i.label === 'ndvi')!;
  assert.deepEqual([tool.detail, tool.documentation], [ndvi.name_zh, ndvi.description_zh]);
  // Argument details: the engine's kind in Chinese, required and default as the hover says them.
  const args = Object.fromEntries(completionsAt('slope\n', 1, 0, zh).map((i) => [i.label, i.detail]));
  assert.equal(args.dem, '栅格，必填');
  assert.equal(args.z_factor, '数值，默认 1');
  assert.equal(Object.fromEntries(completionsAt('ndvi\nimage: s2_scene.tif\n', 2, 0, zh).map((i) => [i.label, i.detail])).red, '波段');
  // Value details.
  const details = (src: string, ch: number) => Object.fromEntries(completionsAt(src, 1, ch, zh).map((i) => [i.label, i.detail]));
  assert.equal(details('ndvi\nsensor: ', 8).sentinel2_l2a, '传感器预设');
  assert.equal(details('ndvi\nred: ', 5).nir, '波段角色（由波段描述或传感器预设确定）');
  const img = details('threshold\nimage: ', 7);
  assert.equal(img['s2_scene.tif'], '工作区文件');
  assert.equal(img['$veg.index'], 'ndvi 的输出：逐像元 NDVI（-1..1）');
  assert.equal(details('zonal_stats\nzones: ', 7)['dem.tif'], '工作区栅格');
  // An English editor keeps every one of these words.
  const en = Object.fromEntries(completionsAt('slope\n', 1, 0, catalog()).map((i) => [i.label, i.detail]));
  assert.deepEqual([en.dem, en.z_factor], ['raster, required', 'number, default 1']);
  assert.equal(completionsAt('threshold\nimage: ', 1, 7, catalog(earlier)).find((i) => i.label === '$veg.index')?.detail, 'output of ndvi: 逐像元 NDVI（-1..1）');
});

test('every argument kind of the builtin tools has a Chinese word', () => {
  const kinds = new Set<string>();
  for (const t of tools) {
    for (const p of t.manifest.inputs ?? []) kinds.add(p.type);
    for (const s of Object.values(builtin.has(t.manifest.id) ? getToolSpec(t.manifest.id)?.params ?? {} : {})) kinds.add(s.kind);
  }
  const missing = [...kinds].filter((k) => !/[\u4e00-\u9fff]/.test(kindWord(k, 'zh')));
  assert.deepEqual(missing, []);
  assert.ok(kinds.has('band') && kinds.has('raster_list'), [...kinds].join(','));
  assert.equal(kindWord('band', 'en'), 'band');
  assert.equal(kindWord('team_kind', 'zh'), 'team_kind', 'a kind no table knows is shown as written');
});

test('diagnostics flag unknown tools and arguments before running', () => {
  const [unknown] = diagnose('ndvj\nimage: a.tif', catalog());
  assert.equal(unknown.severity, 'error');
  assert.equal(unknown.message, 'unknown tool "ndvj"; did you mean "ndvi"?');
  assert.deepEqual([unknown.line, unknown.start, unknown.end], [0, 0, 4]);

  const ps = diagnose('ndvi\nimage: s2.tif\nnri: 5\nred: purple\nsensor: sentinel9', catalog());
  const msgs = ps.map((p) => `${p.line}:${p.severity}:${p.message}`);
  assert.ok(msgs.some((m) => m.startsWith('2:error:ndvi has no argument "nri"; did you mean "nir"? Its arguments are image, sensor, red, nir')), msgs.join('\n'));
  assert.ok(msgs.some((m) => /^3:warning:red: "purple" is not a band role/.test(m)), msgs.join('\n'));
  assert.ok(msgs.some((m) => /^4:warning:sensor: "sentinel9" is not one of sentinel2_l2a/.test(m)), msgs.join('\n'));
});

test('diagnostics: missing required arguments, references and catalog-only tools', () => {
  assert.match(diagnose('ndvi', catalog())[0].message, /missing required argument: image \(raster\)/);
  const ref = diagnose('area_by_class\nimage: $veg.index', catalog());
  assert.equal(ref[0].message, 'image: no earlier cell is named "veg"');
  const earlier = [{ name: 'veg', tool: 'ndvi', outputs: [{ name: 'index' }] }];
  assert.deepEqual(diagnose('area_by_class\nimage: $veg.index', catalog(earlier)), []);
  assert.match(diagnose('area_by_class\nimage: $veg.mask', catalog(earlier))[0].message, /cell "veg" \(ndvi\) has no output "mask"; it has index/);
  const dem = diagnose('dem_download', catalog()).map((p) => p.message);
  assert.ok(dem.some((m) => /catalog-only/.test(m)), dem.join('\n'));
  // stac_search has a builtin runner now: no catalog-only warning.
  assert.ok(!diagnose('stac_search\ncatalog: stac/catalog.json', catalog()).some((p) => /catalog-only/.test(p.message)));
});

test('argument infos merge manifest docs with engine kinds', () => {
  const infos = argInfos('threshold', catalog());
  const op = infos?.find((a) => a.name === 'op');
  assert.deepEqual(op?.enum, ['gt', 'ge', 'lt', 'le', 'eq', 'ne']);
  assert.equal(infos?.find((a) => a.name === 'value')?.kind, 'number');
});

test('quick fixes: a misspelt tool, argument or preset is replaced by the one meant', () => {
  const tool = diagnose('slpe\ndem: dem.tif', catalog()).find((p) => /unknown tool/.test(p.message))!;
  assert.equal(tool.message, 'unknown tool "slpe"; did you mean "slope"?');
  assert.deepEqual(tool.fix, { title: 'Change to "slope"', edits: [{ line: 0, start: 0, end: 4, text: 'slope' }] });
  const arg = diagnose('slope\ndem: dem.tif\nzfactor: 2', catalog()).find((p) => /zfactor/.test(p.message))!;
  assert.match(arg.message, /^slope has no argument "zfactor"; did you mean "z_factor"\?/);
  assert.deepEqual(arg.fix?.edits, [{ line: 2, start: 0, end: 7, text: 'z_factor' }]);
  const preset = diagnose('ndvi\nimage: s2_scene.tif\nsensor: sentinel2', catalog()).find((p) => /sensor/.test(p.message))!;
  assert.equal(preset.fix?.edits[0].text, 'sentinel2_l2a');
  const apply = (src: string, fix: { edits: { line: number; start: number; end: number; text: string }[] }) => {
    const lines = src.split('\n');
    for (const e of fix.edits) lines[e.line] = lines[e.line].slice(0, e.start) + e.text + lines[e.line].slice(e.end);
    return lines.join('\n');
  };
  assert.equal(diagnose(apply('slope\ndem: dem.tif\nzfactor: 2', arg.fix!), catalog()).length, 0);
});

test('argument aliases: the same input under another tool\'s name (image for dem, pre for before) is accepted', () => {
  assert.deepEqual(diagnose('slope\nimage: dem.tif', catalog()), []);
  assert.deepEqual(diagnose('change_difference\npre: a.tif\npost: b.tif', catalog()), []);
  assert.match(hoverAt('slope\nimage: dem.tif', 1, 2, catalog())!.markdown, /`image` stands for `dem`/);
  // Both names at once: the second one is not the input.
  assert.ok(diagnose('slope\ndem: dem.tif\nimage: dem.tif', catalog()).some((p) => /no argument "image"/.test(p.message)));
  assert.ok(!labels('slope\nimage: dem.tif\n', 2, 0).includes('dem'), 'dem is already given as image');
});

test('a numeric argument is not offered a table reference; a raster argument gets raster outputs only', () => {
  const earlier: LanguageCatalog['earlier'] = [
    { name: 'area_by_class', tool: 'area_by_class', outputs: [{ name: 'table', type: 'table' }] },
    { name: 'ndvi', tool: 'ndvi', outputs: [{ name: 'index', type: 'raster' }] },
  ];
  assert.ok(!labels('threshold\nimage: s2_scene.tif\nvalue: ', 2, 7, catalog(earlier)).some((l) => l.startsWith('$')));
  const image = labels('threshold\nimage: ', 1, 7, catalog(earlier));
  assert.ok(image.includes('$ndvi.index') && !image.includes('$area_by_class.table'), image.join(', '));
});

test('a scene without band descriptions: the lines to add from a guessed sensor, as a quick fix', () => {
  const l7 = { path: 'landsat/L7_ETMs.tif', type: 'raster' as const, bands: [1, 2, 3, 4, 5, 6].map((index) => ({ index })),
    guess: { sensor: 'landsat7_etm', label: 'Landsat 7 ETM+ or 4-5 TM (bands 1-5 and 7)', bands: { blue: 1, green: 2, red: 3, nir: 4, swir1: 5, swir2: 6 }, why: '6 bands of UInt8, values 18–148' } };
  const c = { ...catalog(), data: [l7] };
  const src = 'ndvi\nimage: landsat/L7_ETMs.tif';
  const p = diagnose(src, c).find((x) => /band descriptions/.test(x.message))!;
  assert.match(p.message, /^L7_ETMs\.tif has no band descriptions: add a line `red: 3` and a line `nir: 4` \(a guess: it looks like Landsat 7 ETM\+/);
  assert.deepEqual(p.fix?.edits, [{ line: 1, start: 26, end: 26, text: '\nred: 3\nnir: 4' }]);
  assert.deepEqual(diagnose(`${src}\nred: 3\nnir: 4`, c), []);
  assert.deepEqual(diagnose(`${src}\nsensor: naip`, c), [], 'a sensor line says where the bands are');
  assert.deepEqual(diagnose('ndvi\nimage: s2_scene.tif', { ...c, data: [{ path: 's2_scene.tif', type: 'raster', bands: ['blue', 'green', 'red', 'nir'].map((role, i) => ({ index: i + 1, role })) }] }), []);
});
