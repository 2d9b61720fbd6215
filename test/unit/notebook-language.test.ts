import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCatalog } from '../../src/core/manifests/load';
import { getToolSpec, listBuiltinTools } from '../../src/core/raster/engine';
import { SENSORS } from '../../src/core/raster/bands';
import { completionsAt, diagnose, hoverAt, argInfos, LanguageCatalog } from '../../src/core/notebook/language';
import { BAND_ROLES, SENSOR_PRESETS } from '../../src/core/notebook/vocabulary';

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

test('diagnostics flag unknown tools and arguments before running', () => {
  const [unknown] = diagnose('ndvj\nimage: a.tif', catalog());
  assert.equal(unknown.severity, 'error');
  assert.equal(unknown.message, 'unknown tool "ndvj"; did you mean "ndvi"?');
  assert.deepEqual([unknown.line, unknown.start, unknown.end], [0, 0, 4]);

  const ps = diagnose('ndvi\nimage: s2.tif\nnri: 5\nred: purple\nsensor: sentinel9', catalog());
  const msgs = ps.map((p) => `${p.line}:${p.severity}:${p.message}`);
  assert.ok(msgs.some((m) => m.startsWith('2:error:ndvi has no argument "nri"; its arguments are image, sensor, red, nir')), msgs.join('\n'));
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
  const stac = diagnose('stac_search', catalog()).map((p) => p.message);
  assert.ok(stac.some((m) => /catalog-only/.test(m)), stac.join('\n'));
});

test('argument infos merge manifest docs with engine kinds', () => {
  const infos = argInfos('threshold', catalog());
  const op = infos?.find((a) => a.name === 'op');
  assert.deepEqual(op?.enum, ['gt', 'ge', 'lt', 'le', 'eq', 'ne']);
  assert.equal(infos?.find((a) => a.name === 'value')?.kind, 'number');
});
