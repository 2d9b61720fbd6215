import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { loadCatalog } from '../../src/core/manifests/load';
import { GeoWeave } from '../../src/core/geoweave';
import { repoRoot, tmpDir, writeJson } from '../fixtures/helpers';

/** A service spec as FastAPI writes it: pydantic request models behind $refs, optional fields as anyOf with null. */
const fastapi = {
  openapi: '3.1.0',
  info: { title: 'heat-service', version: '0.4.2' },
  paths: {
    '/lst/landsat': {
      post: {
        tags: ['lst'],
        summary: 'Land surface temperature from Landsat',
        description: 'Land surface temperature in kelvin from a Landsat 8/9 Collection 2 Level-2 scene (ST_B10, scaled and offset).',
        operationId: 'lst_from_landsat',
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/LstRequest' } } } },
        responses: { '200': { description: 'OK', content: { 'application/json': { schema: { $ref: '#/components/schemas/RasterResult' } } } }, '422': { description: 'Validation Error' } },
      },
    },
    '/uhi/{city}': {
      parameters: [{ name: 'city', in: 'path', required: true, schema: { type: 'string' }, description: 'City code' }],
      get: {
        summary: 'Urban heat island intensity',
        operationId: 'compute_uhi_intensity_uhi__city__get',
        parameters: [
          { name: 'lst_raster', in: 'query', required: true, schema: { type: 'string', description: 'URL of a Cloud-Optimized GeoTIFF of LST' } },
          { name: 'rural_buffer_m', in: 'query', schema: { anyOf: [{ type: 'number' }, { type: 'null' }], default: 2000 } },
          { name: 'Authorization', in: 'header', required: true, schema: { type: 'string' } },
          { name: '__proto__', in: 'query', schema: { type: 'string', description: 'input GeoTIFF path' } },
        ],
        responses: { '200': { description: 'UHI', content: { 'application/json': { schema: { type: 'object', properties: { uhi_c: { type: 'number' } } } } } } },
      },
    },
    '/upload/scene': {
      post: {
        description: 'Uploads a scene to the workspace.',
        requestBody: { content: { 'multipart/form-data': { schema: { type: 'object', properties: { file: { type: 'string', format: 'binary', description: 'the GeoTIFF' } }, required: ['file'] } } } },
        responses: { '201': { description: 'stored' } },
      },
    },
  },
  components: {
    schemas: {
      LstRequest: {
        allOf: [{ $ref: '#/components/schemas/SceneRef' }],
        type: 'object',
        properties: {
          emissivity: { anyOf: [{ type: 'number' }, { type: 'null' }], title: 'Emissivity', default: null },
          districts_geojson: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'Optional districts to clip to' },
          unit: { type: 'string', enum: ['K', 'C'], default: 'K' },
        },
        required: ['unit'],
      },
      SceneRef: { type: 'object', properties: { scene_href: { type: 'string', description: 'STAC item href of the scene' } }, required: ['scene_href'] },
      RasterResult: { type: 'object', properties: { raster: { type: 'string', format: 'uri', description: 'COG of the result' }, mean: { type: 'number' } } },
    },
  },
};

test('an OpenAPI document (as FastAPI writes it) loads one tool per operation: operationId as id, summary as name, body and query parameters as inputs typed by what they hold', () => {
  const dir = tmpDir('gw-openapi-');
  writeJson(path.join(dir, 'heat-service.openapi.json'), fastapi);
  const c = loadCatalog({ noBuiltin: true, extraDirs: [dir] });
  assert.deepEqual(c.tools.map((t) => t.manifest.id), ['compute_uhi_intensity_uhi__city__get', 'lst_from_landsat', 'post_upload_scene']);
  const lst = c.tools.find((t) => t.manifest.id === 'lst_from_landsat')!.manifest;
  assert.equal(lst.name, 'Land surface temperature from Landsat');
  assert.match(lst.description, /Collection 2 Level-2/);
  assert.deepEqual(lst.tags, ['lst']);
  const inputs = Object.fromEntries(lst.inputs!.map((p) => [p.name, p]));
  // The allOf part (the scene) is merged in; the href of a scene is a raster, the GeoJSON a vector.
  assert.deepEqual(Object.keys(inputs).sort(), ['districts_geojson', 'emissivity', 'scene_href', 'unit']);
  assert.equal(inputs.scene_href.type, 'raster');
  assert.equal(inputs.scene_href.required, true);
  assert.equal(inputs.districts_geojson.type, 'vector');
  assert.equal(inputs.districts_geojson.required, false);
  assert.equal(inputs.emissivity.type, 'number');
  assert.deepEqual(inputs.unit.enum, ['K', 'C']);
  assert.equal(inputs.unit.type, 'string');
  assert.deepEqual(lst.outputs!.map((p) => [p.name, p.type]), [['raster', 'raster'], ['mean', 'number']]);
  // Path and query parameters; the Authorization header is not an input.
  const uhi = c.tools.find((t) => t.manifest.id.startsWith('compute_uhi'))!.manifest;
  // A parameter named "__proto__" is a parameter like any other, not the prototype of the list.
  assert.deepEqual(uhi.inputs!.map((p) => [p.name, p.type, p.required]), [['city', 'string', true], ['lst_raster', 'raster', true], ['rural_buffer_m', 'number', false], ['__proto__', 'raster', false]]);
  assert.equal(uhi.description, 'Urban heat island intensity');
  assert.ok(c.problems.some((p) => p.path === '/paths/~1uhi~1{city}/get/description' && /no description; the title is used/.test(p.message)));
  // No operationId: named by method and path, with a warning; a multipart file upload is a raster by its description.
  const up = c.tools.find((t) => t.manifest.id === 'post_upload_scene')!.manifest;
  assert.deepEqual(up.inputs!.map((p) => [p.name, p.type, p.required]), [['file', 'raster', true]]);
  assert.ok(c.problems.some((p) => p.severity === 'warning' && /no operationId; the tool is named "post_upload_scene"/.test(p.message)));
  assert.ok(!c.problems.some((p) => p.severity === 'error'), JSON.stringify(c.problems.filter((p) => p.severity === 'error')));
});

test('an OpenAPI document in YAML and a Swagger 2.0 one load too; cyclic and foreign $refs end quietly, and a document with no operations says so', async () => {
  const dir = tmpDir('gw-openapi-');
  fs.writeFileSync(path.join(dir, 'aq.openapi.yaml'), [
    'openapi: 3.0.3',
    'info: {title: airquality, version: "1"}',
    'paths:',
    '  /no2/s5p:',
    '    post:',
    '      operationId: s5p_no2_column',
    '      summary: Tropospheric NO2 column from Sentinel-5P',
    '      description: |',
    '        Tropospheric NO2 vertical column density from TROPOMI L2 products,',
    '        filtered by qa_value and gridded over the area of interest.',
    '      requestBody:',
    '        required: true',
    '        content:',
    '          application/json:',
    '            schema: {$ref: "#/components/schemas/Node"}',
    'components:',
    '  schemas:',
    '    Node:',
    '      type: object',
    '      properties:',
    '        aoi_geojson: {type: string, description: Area of interest}',
    '        child: {$ref: "#/components/schemas/Node"}',
    '        remote: {$ref: "https://example.org/schemas/x.json"}',
    '        proto: {$ref: "#/__proto__/constructor"}',
  ].join('\n'));
  writeJson(path.join(dir, 'legacy.json'), {
    swagger: '2.0', info: { title: 'legacy', version: '1' },
    paths: { '/stations': { get: { operationId: 'aq_stations', description: 'PM2.5 and NO2 from the ground stations as a CSV table.', parameters: [{ name: 'stations_csv', in: 'query', type: 'string', description: 'path of the station list' }, { name: 'day', in: 'query', type: 'string', format: 'date', required: true }], responses: { '200': { description: 'ok', schema: { type: 'object', properties: { table: { type: 'string', description: 'CSV file' } } } } } } } },
  });
  writeJson(path.join(dir, 'bare.json'), { openapi: '3.0.1', info: { title: 'bare', version: '1' }, paths: { '/heat/wave': { post: { operationId: 'detectHeatwave' } } } });
  writeJson(path.join(dir, 'empty.json'), { openapi: '3.1.0', info: { title: 'x', version: '1' }, paths: {} });
  const c = loadCatalog({ noBuiltin: true, extraDirs: [dir] });
  assert.deepEqual(c.tools.map((t) => t.manifest.id), ['aq_stations', 'detectHeatwave', 's5p_no2_column']);
  // An operation with neither summary nor description still loads, described by its id and path.
  assert.equal(c.tools[1].manifest.description, 'detect Heatwave (POST /heat/wave)');
  assert.ok(c.problems.some((p) => p.file.endsWith('bare.json') && /no description; the title is used/.test(p.message)));
  const no2 = c.tools[2].manifest;
  assert.match(no2.description, /TROPOMI L2 products,\nfiltered by qa_value/);
  assert.deepEqual(no2.inputs!.map((p) => [p.name, p.type]), [['aoi_geojson', 'vector'], ['child', 'object'], ['remote', 'string'], ['proto', 'string']]);
  const st = c.tools[0].manifest;
  assert.deepEqual(st.inputs!.map((p) => [p.name, p.type, p.required]), [['stations_csv', 'table', false], ['day', 'string', true]]);
  assert.ok(c.problems.some((p) => p.file.endsWith('empty.json') && /no operations: no tools read from it/.test(p.message)));
  // And the engine ranks them: the NO2 tool for an NO2 task.
  const gw = await GeoWeave.open({ noBuiltin: true, extraManifestDirs: [dir], stateDir: tmpDir(), practice: false });
  try {
    const r = await gw.forwardCandidates('tropospheric NO2 over Milan from Sentinel-5P', { k: 2 });
    assert.equal(r.candidates[0].id, 's5p_no2_column');
  } finally {
    await gw.dispose();
  }
});

test("FastAPI's own spec (written by FastAPI 0.142 from pydantic models, test/fixtures/openapi) loads every route as a tool typed by what it holds", () => {
  const c = loadCatalog({ noBuiltin: true, extraDirs: [path.join(repoRoot, 'test', 'fixtures', 'openapi')] });
  const io = (id: string) => {
    const m = c.tools.find((t) => t.manifest.id === id)!.manifest;
    return { m, in: m.inputs!.map((p) => `${p.name}:${p.type}${p.required ? '*' : ''}`).join(' '), out: (m.outputs ?? []).map((p) => `${p.name}:${p.type}`).join(' ') };
  };
  assert.equal(c.tools.length, 5);
  const ndvi = io('ndvi_indices_ndvi_post');
  assert.equal(ndvi.m.name, 'Ndvi');
  assert.match(ndvi.m.description, /^NDVI from the red and near-infrared bands/);
  // The inherited model's field (allOf in pydantic's schema, or merged) comes first; the Optional GeoJSON is a vector.
  assert.equal(ndvi.in, 'scene_href:raster* red_band:number nir_band:number out_format:string aoi_geojson:vector');
  assert.equal(ndvi.out, 'raster:raster mean:number');
  assert.equal(io('zonal_stats_stats_zonal_post').in, 'raster_href:raster* zones:vector* stats:array');
  assert.equal(io('zonal_stats_stats_zonal_post').out, 'table:table');
  // Query parameters, the Authorization header left out; an upload (multipart, octet-stream) of "the GeoTIFF" is a raster.
  assert.equal(io('search_scenes_scenes_search_get').in, 'bbox:string* date_from:string* max_cloud:number');
  assert.equal(io('upload_scene_uploads_post').in, 'file:raster*');
  assert.equal(io('job_status_jobs__job_id__get').in, 'job_id:string*');
  // `deprecated=True` on the route: kept as a tool, marked (readiness says so); the others are not.
  assert.deepEqual(c.tools.filter((t) => t.manifest.deprecated).map((t) => t.manifest.id), ['job_status_jobs__job_id__get']);
  // FastAPI writes no servers: the tools are catalog-only, and one warning says what to add.
  assert.deepEqual(c.problems.map((p) => `${p.path}: ${p.message.replace(/ \(.*/, '')}`), [
    '/servers: no absolute server address, so its tools are catalog-only: add "servers": [{"url": "http://localhost:8000"}] with the service\'s address to run them from a notebook',
    '/paths/~1jobs~1{job_id}/get/description: no description; the title is used',
  ]);
  assert.ok(c.tools.every((t) => t.manifest.runner === undefined));
  // With the address added (a templated one, as behind a gateway), each operation is a call.
  const dir = tmpDir();
  const spec = JSON.parse(fs.readFileSync(path.join(repoRoot, 'test', 'fixtures', 'openapi', 'fastapi-eo.openapi.json'), 'utf8'));
  spec.servers = [{ url: 'http://{host}:{port}/eo', variables: { host: { default: 'localhost' }, port: { default: '8000' } } }];
  writeJson(path.join(dir, 'eo.json'), spec);
  const served = loadCatalog({ noBuiltin: true, extraDirs: [dir] });
  const runner = (id: string) => served.tools.find((t) => t.manifest.id === id)!.manifest.runner;
  assert.deepEqual(runner('ndvi_indices_ndvi_post'), { type: 'http', method: 'POST', url: 'http://localhost:8000/eo/indices/ndvi', body: 'json' });
  assert.deepEqual(runner('search_scenes_scenes_search_get'), { type: 'http', method: 'GET', url: 'http://localhost:8000/eo/scenes/search' });
  assert.deepEqual(runner('upload_scene_uploads_post'), { type: 'http', method: 'POST', url: 'http://localhost:8000/eo/uploads', body: 'multipart', files: ['file'] });
  assert.deepEqual(runner('job_status_jobs__job_id__get'), { type: 'http', method: 'GET', url: 'http://localhost:8000/eo/jobs/{job_id}' });
  assert.deepEqual(served.problems.map((p) => p.path), ['/paths/~1jobs~1{job_id}/get/description']);
});
