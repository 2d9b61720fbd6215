import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { loadCatalog } from '../../src/core/manifests/load';
import { typeFromForeign } from '../../src/core/manifests/foreign-fields';
import { parseToolCell } from '../../src/core/notebook/tool-cell';
import { GeoWeave } from '../../src/core/geoweave';
import { builtinCatalog, tmpDir, writeJson } from '../fixtures/helpers';
import { parseTasks, missingIds } from '../../src/core/eval/tasks';
import { readToolId } from '../../src/core/manifests/tool-id';

test('type names of other systems are read as ours; names that say nothing placeable give undefined', () => {
  const cases: [string, string | undefined][] = [
    ['GeoTIFF', 'raster'], ['Image', 'raster'], ['COG', 'raster'], ['xarray.DataArray', 'raster'], ['DEM', 'raster'],
    ['raster[]', 'array'], ['list<raster>', 'array'], ['ImageCollection', 'array'], ['multiple layers', 'array'],
    ['FeatureCollection', 'vector'], ['Polygon', 'vector'], ['vector layer', 'vector'], ['GeoDataFrame', 'vector'], ['bbox', 'vector'],
    ['CSV', 'table'], ['pandas.DataFrame', 'table'],
    ['float', 'number'], ['Integer', 'number'], ['double', 'number'], ['uint8', 'number'],
    ['bool', 'boolean'], ['dict', 'object'], ['json', 'object'],
    ['str', 'string'], ['date', 'string'], ['CRS', 'string'], ['path', 'string'],
    ['raster', 'raster'], ['whatsit', undefined],
  ];
  for (const [t, want] of cases) assert.equal(typeFromForeign(t), want, t);
});

test("a team's manifests in its own words load, with a warning naming each field read differently", () => {
  const dir = tmpDir('gw-foreign-');
  writeJson(path.join(dir, 'zonal.json'), {
    id: 'native:zonalstatisticsfb', name: 'Zonal statistics', description: 'Statistics of a raster within each polygon of a vector layer.',
    inputs: [{ name: 'INPUT Raster', type: 'GeoTIFF', optional: false, format: 'tif' }, { name: 'zones', type: 'FeatureCollection', help: 'The polygons.' }, { name: 'stats' }],
  });
  writeJson(path.join(dir, 'slope.json'), { id: 'Slope', name: 'Slope', description: 'Slope in degrees from a digital elevation model.', inputs: [{ name: 'dem', type: 'raster', optional: true }, { name: 'z', type: 'whatsit' }] });
  const c = loadCatalog({ noBuiltin: true, extraDirs: [dir], schemaFile: path.join(builtinCatalog, 'schema.json') });
  assert.deepEqual(c.problems.filter((p) => p.severity === 'error'), []);
  const zonal = c.tools.find((t) => t.manifest.id === 'native:zonalstatisticsfb')!.manifest;
  assert.deepEqual(zonal.inputs, [
    { name: 'input_raster', type: 'raster', required: true },
    { name: 'zones', type: 'vector', description: 'The polygons.' },
    { name: 'stats', type: 'string' },
  ]);
  const slope = c.tools.find((t) => t.manifest.id === 'Slope')!.manifest;
  assert.deepEqual(slope.inputs, [{ name: 'dem', type: 'raster', required: false }, { name: 'z', type: 'string' }]);
  const said = c.problems.map((p) => `${path.basename(p.file)} ${p.path}: ${p.message}`);
  for (const want of [
    /^zonal\.json \/inputs\/0: parameter fields GeoWeave does not use, ignored: format$/,
    /^zonal\.json \/inputs\/0\/type: type "GeoTIFF" read as "raster"$/,
    /^zonal\.json \/inputs\/0\/name: parameter name "INPUT Raster" read as "input_raster"/,
    /^zonal\.json \/inputs\/1\/type: type "FeatureCollection" read as "vector"$/,
    /^zonal\.json \/inputs\/2\/type: no type given; read as "string"/,
    /^slope\.json \/inputs\/1\/type: type "whatsit" is not one GeoWeave knows; read as "string"/,
  ]) assert.ok(said.some((s) => want.test(s)), `${want} not in:\n${said.join('\n')}`);
});

test('a manifest with a runner keeps its parameter names (its command line uses them): a name with a space is still refused', () => {
  const dir = tmpDir('gw-foreign-runner-');
  writeJson(path.join(dir, 'r.json'), { id: 'r_tool', description: 'Runs something.', inputs: [{ name: 'in file', type: 'raster' }], runner: { kind: 'process', command: 'gdalinfo', args: ['{in file}'] } });
  const c = loadCatalog({ noBuiltin: true, extraDirs: [dir], schemaFile: path.join(builtinCatalog, 'schema.json') });
  assert.equal(c.tools.length, 0);
  assert.ok(c.problems.some((p) => p.severity === 'error' && p.path === '/inputs/0/name'));
});

test('ids as other systems write them (upper case, QGIS "provider:algorithm") are ranked, evaluated and named in tool cells', async () => {
  const dir = tmpDir('gw-foreign-ids-');
  writeJson(path.join(dir, 'a.json'), { id: 'native:zonalstatisticsfb', name: 'Zonal statistics', description: 'Mean, sum and count of raster values within each polygon.', inputs: [{ name: 'INPUT', type: 'raster' }, { name: 'ZONES', type: 'vector layer' }] });
  writeJson(path.join(dir, 'b.json'), { id: 'NDVI', name: 'NDVI', description: 'Normalised difference vegetation index from red and near-infrared bands.', inputs: [{ name: 'image', type: 'Image' }] });
  writeJson(path.join(dir, 'c.json'), { id: 'gdal:hillshade', name: 'Hillshade', description: 'Shaded relief from an elevation model.', inputs: [{ name: 'INPUT', type: 'DEM' }] });
  const gw = await GeoWeave.open({ stateDir: tmpDir('gw-foreign-ids-state-'), noBuiltin: true, extraManifestDirs: [dir] });
  try {
    const top = (await gw.forwardCandidates('mean vegetation index per field polygon', { k: 3 })).candidates.map((c) => c.id);
    assert.deepEqual(new Set(top.slice(0, 2)), new Set(['NDVI', 'native:zonalstatisticsfb']), top.join(', '));
  } finally {
    await gw.dispose();
  }
  const cell = parseToolCell('native:zonalstatisticsfb as z\nINPUT: scene.tif\n');
  assert.equal(cell.layout.header?.tool, 'native:zonalstatisticsfb');
  assert.deepEqual(cell.problems.filter((p) => p.severity === 'error'), []);
});

test('ids with spaces or slashes ("Zonal Statistics", "otb/BandMath") are read by one rule in manifests, their links and flows, so both still meet', () => {
  assert.equal(readToolId('otb/BandMath'), 'otb_BandMath');
  assert.equal(readToolId(' Zonal Statistics '), 'Zonal_Statistics');
  assert.equal(readToolId('grass7:r.slope.aspect'), 'grass7:r.slope.aspect', 'an id already ours is unchanged');
  assert.equal(readToolId('/usr/bin/gdalwarp'), 'usr_bin_gdalwarp');
  assert.equal(readToolId('坡度'), '坡度', 'nothing to keep: left for the validator to refuse');
  const dir = tmpDir('gw-foreign-ids-');
  writeJson(path.join(dir, 'a.json'), { id: 'Zonal Statistics', description: 'Statistics of a raster within each polygon.', prerequisites: ['otb/BandMath'] });
  writeJson(path.join(dir, 'b.json'), { id: 'otb/BandMath', description: 'Band arithmetic on a multiband image.', downstream: ['Zonal Statistics'] });
  fs.mkdirSync(path.join(dir, 'workflows'));
  writeJson(path.join(dir, 'workflows', 'index_per_zone.json'), { id: 'index_per_zone', description: 'An index, then its statistics per zone.', steps: ['otb/BandMath', 'Zonal Statistics'] });
  const c = loadCatalog({ noBuiltin: true, extraDirs: [dir], schemaFile: path.join(builtinCatalog, 'schema.json') });
  assert.deepEqual(c.problems.filter((p) => p.severity === 'error'), []);
  const ids = c.tools.map((t) => t.manifest.id).sort();
  assert.deepEqual(ids, ['Zonal_Statistics', 'otb_BandMath']);
  assert.deepEqual(c.workflows.find((w) => w.id === 'index_per_zone')?.steps, ['otb_BandMath', 'Zonal_Statistics'], JSON.stringify(c.problems));
  assert.deepEqual(c.tools.find((t) => t.manifest.id === 'Zonal_Statistics')!.manifest.prerequisites, ['otb_BandMath']);
  const warn = c.problems.find((p) => p.path === '/id' && p.file.endsWith('b.json'));
  assert.match(warn?.message ?? '', /"otb\/BandMath" is read as "otb_BandMath"/);
  const tasks = parseTasks(JSON.stringify({ id: 't', query: 'mean index per field', steps: [{ tool: 'otb/BandMath' }, 'Zonal Statistics'] }));
  assert.deepEqual(tasks[0].flow, ['otb_BandMath', 'Zonal_Statistics']);
  assert.deepEqual(missingIds(tasks, (id) => ids.includes(id)), []);
  assert.equal(parseToolCell('otb_BandMath as b\nexpression: a+b\n').layout.header?.tool, 'otb_BandMath');
});

test('a catalog in one file (a list of tools, or {"tools": [...]}) loads each tool; a bad entry is reported by its place and skipped', () => {
  const dir = tmpDir('gw-foreign-list-');
  writeJson(path.join(dir, 'catalog.json'), [
    { id: 'ndvi_v1', name: 'NDVI', description: 'Vegetation index from red and NIR.', inputs: [{ name: 'img', type: 'Image' }] },
    { id: 'broken', inputs: [] },
    { id: 'zonal_v1', name: 'Zonal', description: 'Mean per polygon.' },
  ]);
  writeJson(path.join(dir, 'more.json'), { team: 'flood', tools: [{ id: 'flood_map', description: 'Flood extent from SAR.' }] });
  const c = loadCatalog({ noBuiltin: true, extraDirs: [dir], schemaFile: path.join(builtinCatalog, 'schema.json') });
  assert.deepEqual(c.tools.map((t) => t.manifest.id).sort(), ['flood_map', 'ndvi_v1', 'zonal_v1']);
  assert.ok(c.problems.some((p) => p.severity === 'error' && p.file.endsWith('catalog.json') && p.path === '/1/description'), JSON.stringify(c.problems));
  assert.ok(c.problems.some((p) => p.severity === 'warning' && p.path === '/0/inputs/0/type' && /"Image" read as "raster"/.test(p.message)));
});

test('an OGC API - Processes description (as pygeoapi serves it) loads as a manifest: inputs by name, types from schema and media type', () => {
  const dir = tmpDir('gw-foreign-ogc-');
  writeJson(path.join(dir, 'flood.json'), {
    id: 'flood-extent', title: 'Flood extent', description: 'Maps open water from a Sentinel-1 backscatter image by thresholding.', version: '0.2.0',
    keywords: ['flood', 'SAR'], jobControlOptions: ['async-execute'],
    inputs: {
      image: { title: 'Backscatter', schema: { type: 'string', contentMediaType: 'image/tiff; application=geotiff' }, minOccurs: 1 },
      aoi: { title: 'Area of interest', schema: { $ref: 'https://geojson.org/schema/Polygon.json' }, minOccurs: 0 },
      threshold_db: { description: 'Threshold in dB', schema: { type: 'number', default: -18 } },
      method: { schema: { type: 'string', enum: ['otsu', 'fixed'] } },
    },
    outputs: { mask: { title: 'Water mask', schema: { type: 'string', contentMediaType: 'image/tiff; application=geotiff' } } },
  });
  const c = loadCatalog({ noBuiltin: true, extraDirs: [dir], schemaFile: path.join(builtinCatalog, 'schema.json') });
  assert.deepEqual(c.problems.filter((p) => p.severity === 'error'), []);
  const m = c.tools[0].manifest;
  assert.equal(m.name, 'Flood extent');
  assert.deepEqual(m.tags, ['flood', 'SAR']);
  assert.deepEqual(m.inputs, [
    { name: 'image', description: 'Backscatter', type: 'raster', required: true },
    { name: 'aoi', description: 'Area of interest', type: 'vector', required: false },
    { name: 'threshold_db', description: 'Threshold in dB', type: 'number', default: -18 },
    { name: 'method', type: 'string', enum: ['otsu', 'fixed'] },
  ]);
  assert.deepEqual(m.outputs, [{ name: 'mask', description: 'Water mask', type: 'raster' }]);
});

test('tool-calling catalogs load as manifests: an MCP tools/list, OpenAI function tools and Anthropic tool use; the name is the id, JSON Schema properties the parameters', async () => {
  const dir = tmpDir('gw-foreign-mcp-');
  writeJson(path.join(dir, 'snow-server.json'), {
    tools: [
      {
        name: 'snow_ndsi_s2', title: 'Snow cover from Sentinel-2 (NDSI)', description: 'Maps snow cover from a Sentinel-2 L2A scene with the NDSI and a red-band test.',
        inputSchema: {
          type: 'object',
          properties: {
            scene: { type: 'string', format: 'uri', description: 'Path or URL of the L2A scene (GeoTIFF)' },
            aoi: { anyOf: [{ type: 'string' }, { type: 'null' }], default: null, title: 'Aoi', description: 'Catchment polygons as GeoJSON file' },
            threshold: { type: 'number', minimum: 0, maximum: 1, default: 0.4 },
            acquired: { type: 'string', format: 'date', description: 'acquisition date of the image' },
            out_path: { type: 'string', description: 'Where to write the snow mask GeoTIFF' },
          },
          required: ['scene'],
        },
        outputSchema: { type: 'object', properties: { snow_km2: { type: 'number' }, mask: { type: 'string', description: 'path of the snow mask raster file' } } },
        annotations: { readOnlyHint: true },
      },
      { name: 'get_station_timeseries', description: 'Discharge series of a hydrometric station.', inputSchema: { type: 'object', properties: { station_id: { type: 'string' } }, required: ['station_id'] } },
    ],
  });
  writeJson(path.join(dir, 'legacy.json'), {
    tools: [{ type: 'function', function: { name: 'reservoirArea', description: 'Water surface area of a reservoir from a water mask.', parameters: { type: 'object', properties: { waterMask: { type: 'string', description: 'input water mask' }, reservoirs: { type: 'string', description: 'GeoPackage file of reservoir outlines' } }, required: ['waterMask', 'reservoirs'] } } }],
  });
  // An MCP tools/list answer saved with its JSON-RPC envelope.
  // A schema whose oneOf is not a list of schemas says nothing; it must not stop the catalog loading.
  writeJson(path.join(dir, 'odd.json'), { tools: [{ name: 'odd_schema', description: 'Odd.', inputSchema: { type: 'object', properties: { a: { oneOf: 'x' }, b: { oneOf: [null, 3], type: 'number' } } } }] });
  writeJson(path.join(dir, 'gauges-rpc.json'), { jsonrpc: '2.0', id: 1, result: { tools: [{ name: 'gauge_flow', description: 'Flow at a river gauge.', inputSchema: { type: 'object' } }, { name: 'gauge_level', annotations: { title: 'Water level at a river gauge' }, inputSchema: { type: 'object', properties: {} } }] } });
  writeJson(path.join(dir, 'claude.json'), [{ name: 'swe-estimate', description: 'Snow water equivalent from snow depth and density.', input_schema: { type: 'object', properties: { depth_dem: { type: 'string' }, density: { type: 'number' }, snap: { type: 'string', description: 'Optional reference raster to snap the grid to' }, when: { type: 'string', description: 'date of the image' } }, required: ['depth_dem'] } }]);
  const c = loadCatalog({ noBuiltin: true, extraDirs: [dir], schemaFile: path.join(builtinCatalog, 'schema.json') });
  assert.deepEqual(c.problems.filter((p) => p.severity === 'error'), []);
  const byId = new Map(c.tools.map((t) => [t.manifest.id, t.manifest]));
  assert.deepEqual([...byId.keys()].sort(), ['gauge_flow', 'gauge_level', 'get_station_timeseries', 'odd_schema', 'reservoirArea', 'snow_ndsi_s2', 'swe-estimate']);
  assert.deepEqual(byId.get('odd_schema')!.inputs?.map((p) => p.type), ['string', 'number']);
  assert.deepEqual(byId.get('gauge_flow')!.inputs, [], 'an input schema without properties: no parameters');
  // MCP makes the description optional: the title stands in, with a warning that says retrieval has little to go on.
  assert.equal(byId.get('gauge_level')!.description, 'Water level at a river gauge');
  assert.ok(c.problems.some((p) => p.severity === 'warning' && p.file.endsWith('gauges-rpc.json') && p.path === '/result/tools/1/description' && /title is used/.test(p.message)), JSON.stringify(c.problems));
  const snow = byId.get('snow_ndsi_s2')!;
  assert.equal(snow.name, 'Snow cover from Sentinel-2 (NDSI)', 'the MCP title is the display name');
  assert.deepEqual(snow.inputs, [
    { name: 'scene', description: 'Path or URL of the L2A scene (GeoTIFF)', type: 'raster', required: true },
    { name: 'aoi', description: 'Catchment polygons as GeoJSON file', type: 'vector', default: null, required: false },
    { name: 'threshold', type: 'number', default: 0.4, required: false },
    { name: 'acquired', description: 'acquisition date of the image', type: 'string', required: false },
    { name: 'out_path', description: 'Where to write the snow mask GeoTIFF', type: 'string', required: false },
  ]);
  assert.deepEqual(snow.outputs, [{ name: 'snow_km2', type: 'number' }, { name: 'mask', description: 'path of the snow mask raster file', type: 'raster' }]);
  assert.equal(byId.get('get_station_timeseries')!.name, undefined, 'no title: the id is shown as a name');
  assert.deepEqual(byId.get('reservoirArea')!.inputs, [
    { name: 'waterMask', description: 'input water mask', type: 'string', required: true },
    { name: 'reservoirs', description: 'GeoPackage file of reservoir outlines', type: 'vector', required: true },
  ]);
  assert.deepEqual(byId.get('swe-estimate')!.inputs, [
    { name: 'depth_dem', type: 'raster', required: true }, { name: 'density', type: 'number', required: false },
    { name: 'snap', description: 'Optional reference raster to snap the grid to', type: 'raster', required: false },
    { name: 'when', description: 'date of the image', type: 'string', required: false },
  ]);
  // Ranked and named in flows by the tool-calling name.
  const gw = await GeoWeave.open({ noBuiltin: true, extraManifestDirs: [dir], stateDir: tmpDir(), practice: false, onProgress: () => undefined });
  try {
    const r = await gw.forwardCandidates('how much of the catchment is snow covered on the last Sentinel-2 scene?', { k: 4 });
    assert.equal(r.candidates[0].id, 'snow_ndsi_s2', r.candidates.map((x) => x.id).join(', '));
    assert.deepEqual(missingIds(parseTasks('{"id":"t1","query":"area","flow":["snow_ndsi_s2","reservoirArea"]}\n', 'x.jsonl'), (id) => !!gw.getTool(id)), []);
  } finally {
    await gw.dispose();
  }
});

test('a tool-calling definition with no description (MCP and OpenAI make it optional) still loads, its name in words standing for it, and flows teach when it runs', async () => {
  const dir = tmpDir();
  writeJson(path.join(dir, 'tools.json'), { tools: [
    { name: 's2_fetch', inputSchema: { type: 'object', properties: { aoi: { type: 'string' } } } },
    { name: 'CfarShips', description: '', inputSchema: { type: 'object' } },
    { name: 'ndvi_compute', description: 'NDVI from red and near-infrared bands.', inputSchema: { type: 'object' } },
  ] });
  writeJson(path.join(dir, 'openai.json'), [{ type: 'function', function: { name: 'zonal_mean', parameters: { type: 'object', properties: { zones: { type: 'string' } } } } }]);
  const c = loadCatalog({ noBuiltin: true, extraDirs: [dir], schemaFile: path.join(builtinCatalog, 'schema.json') });
  assert.deepEqual(c.problems.filter((p) => p.severity === 'error'), []);
  const byId = new Map(c.tools.map((t) => [t.manifest.id, t.manifest]));
  assert.deepEqual([...byId.keys()].sort(), ['CfarShips', 'ndvi_compute', 's2_fetch', 'zonal_mean']);
  assert.equal(byId.get('s2_fetch')!.description, 's2 fetch');
  assert.equal(byId.get('CfarShips')!.description, 'Cfar Ships');
  assert.equal(byId.get('zonal_mean')!.description, 'zonal mean');
  const warned = c.problems.filter((p) => p.severity === 'warning' && /no description; its name is used/.test(p.message)).map((p) => `${path.basename(p.file)}${p.path}`).sort();
  assert.deepEqual(warned, ['openai.json/0/description', 'tools.json/tools/0/description', 'tools.json/tools/1/description']);
  // The flows say what the words cannot: after learning them, a ship-detection task finds the tool.
  const flows = tmpDir();
  const lines = ['ship detection in the harbour', 'detect vessels offshore on the radar scenes', 'count ships near the port'].map((q, i) => JSON.stringify({ id: `f${i}`, query: q, flow: ['s2_fetch', 'CfarShips'] }));
  fs.writeFileSync(path.join(flows, 'flows.jsonl'), lines.join('\n') + '\n');
  const gw = await GeoWeave.open({ noBuiltin: true, extraManifestDirs: [dir], stateDir: tmpDir(), practice: path.join(flows, 'flows.jsonl'), onProgress: () => undefined });
  try {
    const r = await gw.forwardCandidates('ships in the bay', { k: 4 });
    assert.ok(r.candidates.slice(0, 2).some((x) => x.id === 'CfarShips'), r.candidates.map((x) => x.id).join(', '));
  } finally {
    await gw.dispose();
  }
});
