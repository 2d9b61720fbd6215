/**
 * The http runner against a service listening on this machine: a Node server written here the way
 * a team's FastAPI service behaves (JSON models, multipart uploads, GeoTIFF answers, FastAPI's 422
 * `detail`). What is checked is what the runner sends and what it makes of the answers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { runHttpTool } from '../../src/core/notebook/http-runner';
import { loadCatalog } from '../../src/core/manifests/load';
import type { ToolManifest } from '../../src/core/manifests/types';
import { PY, gdalSkip, tmpDir } from '../helpers/raster-gdal';
import { repoRoot, writeJson } from '../fixtures/helpers';

interface Seen { method: string; url: string; headers: http.IncomingHttpHeaders; body: Buffer }

/** A service on a free port; `handle` answers each request (after its whole body arrived). */
async function serve(handle: (req: Seen, res: http.ServerResponse) => void | Promise<void>): Promise<{ base: string; seen: Seen[]; close: () => Promise<void> }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) };
      seen.push(s);
      void Promise.resolve(handle(s, res)).catch((e) => { res.statusCode = 500; res.end(String(e)); });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, seen, close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }) };
}

/** The multipart form a request carried, parsed by the platform's own Request (undici). */
async function formOf(s: Seen): Promise<FormData> {
  return new Request('http://x/', { method: 'POST', headers: { 'content-type': s.headers['content-type']! }, body: s.body }).formData();
}

const json = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

/** A 20×10 Float32 GeoTIFF in UTM 32N with a nodata pixel, written by GDAL. */
function geotiff(dir: string): string {
  const file = path.join(dir, 'lst.tif');
  const r = spawnSync(PY, ['-c', `
from osgeo import gdal, osr
import numpy as np
d = gdal.GetDriverByName('GTiff').Create('${file}', 20, 10, 1, gdal.GDT_Float32)
d.SetGeoTransform([500000, 30, 0, 5000000, 0, -30])
s = osr.SpatialReference(); s.ImportFromEPSG(32632); d.SetProjection(s.ExportToWkt())
a = (np.arange(200, dtype=np.float32).reshape(10, 20) / 10 + 20)
a[0, 0] = -9999
b = d.GetRasterBand(1); b.SetNoDataValue(-9999); b.WriteArray(a)
d = None
`], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return file;
}

const listing = (d: string) => (fs.existsSync(d) ? fs.readdirSync(d) : []);

test('http runner: the path, query and JSON body are filled from the cell\'s arguments; a JSON answer is the run\'s statistics', async () => {
  const svc = await serve((s, res) => {
    const u = new URL(s.url, 'http://x');
    const body = JSON.parse(s.body.toString('utf8'));
    json(res, 200, { city: decodeURIComponent(u.pathname.split('/').pop()!), uhi_intensity: 3.25 + Number(u.searchParams.get('threshold')), method: body.method, districts: [{ name: 'Navigli', uhi: 4.1 }, { name: 'Brera', uhi: 2.2 }] });
  });
  try {
    const m: ToolManifest = {
      id: 'uhi_intensity', description: 'urban heat island intensity',
      inputs: [{ name: 'city', type: 'string', required: true }, { name: 'threshold', type: 'number' }, { name: 'method', type: 'string', enum: ['rural_ring', 'landcover'] }, { name: 'lst_raster', type: 'raster' }],
      runner: { type: 'http', method: 'POST', url: `${svc.base}/uhi/{city}`, query: ['threshold'], body: 'json' },
    };
    const dir = tmpDir('gw-http-');
    const r = await runHttpTool(m, { city: 'São Paulo/Centro', threshold: '0.5', method: 'landcover', lst_raster: 'https://example.org/lst.tif' }, { outDir: path.join(dir, 'out'), cwd: dir });
    assert.equal(svc.seen.length, 1);
    const s = svc.seen[0];
    assert.equal(s.method, 'POST');
    // The path parameter is one segment however it is spelled; the number checked and sent in the query.
    assert.equal(s.url, '/uhi/S%C3%A3o%20Paulo%2FCentro?threshold=0.5');
    assert.equal(s.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(s.body.toString('utf8')), { method: 'landcover', lst_raster: 'https://example.org/lst.tif' });
    assert.equal(r.stats.city, 'São Paulo/Centro');
    assert.equal(r.stats.uhi_intensity, 3.75);
    assert.equal((r.stats.districts as unknown[]).length, 2);
    assert.deepEqual(r.outputs, {});
    assert.match(r.summary, new RegExp(`^POST ${svc.base.replace(/[.]/g, '\\.')}/uhi/S%C3%A3o%20Paulo%2FCentro answered in \\d+ ms: city São Paulo/Centro, uhi_intensity 3\\.75, method landcover\\.$`));
    assert.equal(r.provenance!.tool, 'uhi_intensity');
    // Bad arguments are refused before anything is sent.
    await assert.rejects(runHttpTool(m, { city: 'Milano', threshold: 'high' }, { outDir: path.join(dir, 'out'), cwd: dir }), /uhi_intensity: argument "threshold" must be a number, got "high"/);
    await assert.rejects(runHttpTool(m, { city: 'Milano', method: 'kriging' }, { outDir: path.join(dir, 'out'), cwd: dir }), /argument "method" must be one of rural_ring, landcover/);
    await assert.rejects(runHttpTool(m, { town: 'Milano' }, { outDir: path.join(dir, 'out'), cwd: dir }), /unknown argument "town"; uhi_intensity takes city, threshold, method, lst_raster/);
    await assert.rejects(runHttpTool(m, { threshold: 1 }, { outDir: path.join(dir, 'out'), cwd: dir }), /argument "city" is needed: it is part of the address/);
    assert.equal(svc.seen.length, 1);
    assert.deepEqual(listing(path.join(dir, 'out')), [], 'a JSON answer writes no file');
  } finally {
    await svc.close();
  }
});

test('http runner: a GeoTIFF is uploaded whole (multipart) and the GeoTIFF answered lands in the output folder with statistics equal to GDAL\'s', { skip: gdalSkip('GeoTIFF upload and answer') }, async () => {
  const dir = tmpDir('gw-http-');
  const scene = geotiff(dir);
  const svc = await serve(async (s, res) => {
    const form = await formOf(s);
    const file = form.get('scene') as File;
    // The service "processes" the scene by handing it back, as a reprojection to the same grid would;
    // the name and the checksum of what it received come back in headers.
    const bytes = Buffer.from(await file.arrayBuffer());
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'x-name': file.name, 'x-sha256': createHash('sha256').update(bytes).digest('hex'), 'x-resampling': String(form.get('resampling')) });
    res.end(bytes);
  });
  try {
    const m: ToolManifest = {
      id: 'svc.warp', description: 'reproject on the service',
      inputs: [{ name: 'scene', type: 'raster', required: true }, { name: 'resampling', type: 'string' }],
      outputs: [{ name: 'warped', type: 'raster' }],
      runner: { type: 'http', method: 'POST', url: `${svc.base}/warp`, body: 'multipart', files: ['scene'] },
    };
    const out = path.join(dir, 'out');
    const r = await runHttpTool(m, { scene: 'lst.tif', resampling: 'bilinear' }, { outDir: out, cwd: dir });
    const form = await formOf(svc.seen[0]);
    assert.equal((form.get('scene') as File).name, 'lst.tif');
    assert.equal(createHash('sha256').update(Buffer.from(await (form.get('scene') as File).arrayBuffer())).digest('hex'), createHash('sha256').update(fs.readFileSync(scene)).digest('hex'));
    assert.equal(form.get('resampling'), 'bilinear');
    // An octet-stream answer that starts as a TIFF is a raster output, named safely (the id holds a dot).
    const o = r.outputs.warped;
    assert.equal(o.type, 'raster');
    assert.equal(path.dirname(o.path), out);
    assert.match(path.basename(o.path), /^svc\.warp_\d{14}\.tif$/);
    const info = JSON.parse(spawnSync('gdalinfo', ['-stats', '-json', o.path], { encoding: 'utf8' }).stdout);
    const band = info.bands[0];
    assert.equal(info.size.join('x'), '20x10');
    assert.ok(Math.abs((r.stats.mean as number) - band.mean) < 1e-4, `${r.stats.mean} vs GDAL ${band.mean}`);
    // (gdalinfo prints the Float32 extremes rounded.)
    assert.ok(Math.abs((r.stats.min as number) - band.minimum) < 1e-5 && Math.abs((r.stats.max as number) - band.maximum) < 1e-5, `${r.stats.min}..${r.stats.max} vs GDAL ${band.minimum}..${band.maximum}`);
    // The provenance is in the file, as for the runs of builtin and process tools.
    assert.match(JSON.stringify(info.metadata ?? {}), /svc\.warp/);
    assert.ok(r.quicklook && fs.existsSync(r.quicklook));
    assert.match(r.summary, /^POST http:\/\/127\.0\.0\.1:\d+\/warp answered with a GeoTIFF \(\d+ KB\) in .*: svc\.warp_\d{14}\.tif\.$/);
    assert.equal(listing(out).filter((f) => f.startsWith('.')).length, 0, 'no staging folder left');
    // A missing file is named before anything is sent.
    await assert.rejects(runHttpTool(m, { scene: 'nope.tif' }, { outDir: out, cwd: dir }), /svc\.warp: argument "scene": cannot read .*nope\.tif \(ENOENT\)/);
    assert.equal(svc.seen.length, 1);
  } finally {
    await svc.close();
  }
});

test('http runner: a refusal reads as FastAPI words it, a redirect is not followed, a GeoJSON answer is a layer, and a cancelled call leaves nothing', async () => {
  let release: (() => void) | undefined;
  const svc = await serve((s, res) => {
    if (s.url.startsWith('/zonal')) return json(res, 422, { detail: [{ loc: ['body', 'zones'], msg: 'Field required', type: 'missing' }, { loc: ['query', 'band'], msg: 'Input should be a valid integer', type: 'int_parsing' }] });
    if (s.url.startsWith('/moved')) {
      res.writeHead(307, { location: 'http://198.51.100.7/steal' });
      res.end();
      return;
    }
    if (s.url.startsWith('/footprints')) {
      res.writeHead(200, { 'content-type': 'application/geo+json' });
      res.end(JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: { id: 1 }, geometry: { type: 'Point', coordinates: [9.19, 45.46] } }] }));
      return;
    }
    if (s.url.startsWith('/png')) {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
      return;
    }
    // /slow: a GeoTIFF that starts and never ends.
    res.writeHead(200, { 'content-type': 'image/tiff' });
    res.write(Buffer.from([0x49, 0x49, 42, 0, 8, 0, 0, 0]));
    release?.();
  });
  const dir = tmpDir('gw-http-');
  const out = path.join(dir, 'out');
  const tool = (id: string, route: string): ToolManifest => ({ id, description: id, inputs: [{ name: 'band', type: 'string' }], outputs: [{ name: 'layer', type: 'vector' }], runner: { type: 'http', method: 'GET', url: `${svc.base}${route}` } });
  try {
    await assert.rejects(runHttpTool(tool('zonal', '/zonal'), { band: 'x' }, { outDir: out, cwd: dir }),
      new RegExp(`^Error: zonal: GET ${svc.base.replace(/[.]/g, '\\.')}/zonal answered 422 Unprocessable Entity: zones: Field required; query\\.band: Input should be a valid integer \\(check the cell's arguments\\)$`));
    await assert.rejects(runHttpTool(tool('moved', '/moved'), {}, { outDir: out, cwd: dir }), /moved: GET .*\/moved answered with a redirect, which GeoWeave does not follow/);
    assert.equal(svc.seen.filter((s) => s.url.includes('steal')).length, 0);
    await assert.rejects(runHttpTool(tool('png', '/png'), {}, { outDir: out, cwd: dir }), /png: GET .*\/png answered with image\/png, which GeoWeave cannot show \(it reads JSON, GeoTIFF, GeoJSON and CSV answers\)/);
    const fp = await runHttpTool(tool('footprints', '/footprints'), { band: 'B04' }, { outDir: out, cwd: dir });
    assert.equal(svc.seen.at(-1)!.url, '/footprints?band=B04', 'no body: the arguments go in the query string');
    assert.equal(fp.outputs.layer.type, 'vector');
    assert.equal(JSON.parse(fs.readFileSync(fp.outputs.layer.path, 'utf8')).features[0].geometry.coordinates[0], 9.19);
    // Cancelled mid-answer: the half file is gone, and so is the staging folder.
    const stop = new AbortController();
    const started = new Promise<void>((r) => { release = r; });
    const run = runHttpTool(tool('slow', '/slow'), {}, { outDir: out, cwd: dir, signal: stop.signal });
    await started;
    await new Promise((r) => setTimeout(r, 100));
    stop.abort();
    await assert.rejects(run, /^Error: slow: cancelled$/);
    assert.deepEqual(listing(out), [path.basename(fp.outputs.layer.path)]);
  } finally {
    await svc.close();
  }
  // Nothing listening (a port a service had a moment ago): the message says so and where the address comes from.
  const gone = await serve(() => undefined);
  await gone.close();
  const m = { ...tool('gone', '/zonal'), runner: { type: 'http' as const, method: 'GET' as const, url: `${gone.base}/zonal` } };
  await assert.rejects(runHttpTool(m, {}, { outDir: out, cwd: dir }), /gone: cannot call GET http:\/\/127\.0\.0\.1:\d+\/zonal \(ECONNREFUSED: nothing answers there: is the service running\?\); the address is the manifest's url/);
});

test('an OpenAPI operation runs as the document describes it: server address, path parameter, query and a multipart upload', { skip: gdalSkip('upload to an OpenAPI service') }, async () => {
  const dir = tmpDir('gw-http-');
  geotiff(dir);
  const svc = await serve(async (s, res) => {
    const u = new URL(s.url, 'http://x');
    const form = await formOf(s);
    const file = form.get('file') as File;
    json(res, 201, { scene_id: `${u.pathname.split('/')[3]}-${u.searchParams.get('collection')}`, bytes: file.size, name: file.name });
  });
  try {
    const tools = path.join(dir, 'tools');
    writeJson(path.join(tools, 'eo.json'), {
      openapi: '3.0.3', info: { title: 'eo', version: '1' }, servers: [{ url: `${svc.base}/v1` }],
      paths: {
        '/projects/{project}/uploads': {
          post: {
            operationId: 'upload_scene', summary: 'Upload a scene', description: 'Stores a GeoTIFF scene in a project.',
            parameters: [{ name: 'project', in: 'path', required: true, schema: { type: 'string' } }, { name: 'collection', in: 'query', schema: { type: 'string' } }],
            requestBody: { required: true, content: { 'multipart/form-data': { schema: { type: 'object', required: ['file'], properties: { file: { type: 'string', format: 'binary', description: 'the GeoTIFF' } } } } } },
            responses: { '201': { description: 'stored', content: { 'application/json': { schema: { type: 'object', properties: { scene_id: { type: 'string' } } } } } } },
          },
        },
      },
    });
    const c = loadCatalog({ noBuiltin: true, extraDirs: [tools] });
    assert.deepEqual(c.problems, []);
    const m = c.tools[0].manifest;
    assert.deepEqual(m.runner, { type: 'http', method: 'POST', url: `${svc.base}/v1/projects/{project}/uploads`, query: ['collection'], body: 'multipart', files: ['file'] });
    const r = await runHttpTool(m, { project: 'milan', collection: 'landsat', file: 'lst.tif' }, { outDir: path.join(dir, 'out'), cwd: dir });
    assert.equal(svc.seen[0].url, '/v1/projects/milan/uploads?collection=landsat');
    assert.deepEqual(r.stats, { scene_id: 'milan-landsat', bytes: fs.statSync(path.join(dir, 'lst.tif')).size, name: 'lst.tif' });
  } finally {
    await svc.close();
  }
});

test('service keys: taken as the OpenAPI document says (bearer, API-key header or query), sent only to the address they were set for, never shown', async () => {
  const KEY = 'k-7f3e9a1c55d2';
  const svc = await serve((s, res) => {
    const u = new URL(s.url, 'http://x');
    const given = s.headers.authorization ?? (s.headers['x-api-key'] as string | undefined) ?? u.searchParams.get('api_key') ?? '';
    if (!given.includes(KEY)) return json(res, 401, { detail: `Not authenticated (got "${given}")` });
    json(res, 200, { ok: 1, echoed: given });
  });
  const dir = tmpDir('gw-http-');
  const tools = path.join(dir, 'tools');
  const origin = svc.base;
  const envName = `GEOWEAVE_SERVICE_KEY_127_0_0_1_${new URL(origin).port}`;
  try {
    writeJson(path.join(tools, 'svc.json'), {
      openapi: '3.1.0', info: { title: 'keyed', version: '1' }, servers: [{ url: origin }],
      components: { securitySchemes: { HTTPBearer: { type: 'http', scheme: 'bearer' }, Header: { type: 'apiKey', in: 'header', name: 'X-API-Key' }, Query: { type: 'apiKey', in: 'query', name: 'api_key' } } },
      security: [{ HTTPBearer: [] }],
      paths: {
        '/bearer': { get: { operationId: 'bearer', description: 'a bearer service' } },
        '/header': { get: { operationId: 'header', description: 'a header key', security: [{ Header: [] }] } },
        '/query': { get: { operationId: 'query', description: 'a query key', security: [{ Query: [] }] } },
        '/open': { get: { operationId: 'open', description: 'no key at all', security: [] } },
      },
    });
    const c = loadCatalog({ noBuiltin: true, extraDirs: [tools] });
    const m = (id: string) => c.tools.find((t) => t.manifest.id === id)!.manifest;
    assert.deepEqual((m('bearer').runner as { auth?: unknown }).auth, { in: 'header', name: 'Authorization', scheme: 'Bearer' });
    assert.deepEqual((m('header').runner as { auth?: unknown }).auth, { in: 'header', name: 'X-API-Key' });
    assert.deepEqual((m('query').runner as { auth?: unknown }).auth, { in: 'query', name: 'api_key' });
    assert.equal((m('open').runner as { auth?: unknown }).auth, undefined);
    const run = (id: string, http = {}) => runHttpTool(m(id), {}, { outDir: path.join(dir, 'out'), cwd: dir }, http);
    // No key set: the refusal says where to set one, by this address.
    await assert.rejects(run('bearer'), new RegExp(`answered 401 Unauthorized: Not authenticated \\(got ""\\) \\(no key is set for ${origin.replace(/[.]/g, '\\.')}: set one with "GeoWeave: Set Service Key" or the environment variable ${envName}\\)`));
    // A key for another address is not sent here.
    await assert.rejects(run('bearer', { serviceKey: (o: string) => (o === 'http://127.0.0.1:1' ? KEY : undefined) }), /no key is set/);
    process.env[envName] = KEY;
    try {
      const r = await run('bearer');
      assert.equal(svc.seen.at(-1)!.headers.authorization, `Bearer ${KEY}`);
      // A service that quotes the key back: not in the results either.
      assert.equal(r.stats.echoed, 'Bearer [redacted]');
      await run('header');
      assert.equal(svc.seen.at(-1)!.headers['x-api-key'], KEY);
      assert.equal(svc.seen.at(-1)!.headers.authorization, undefined);
      const q = await run('query');
      assert.equal(svc.seen.at(-1)!.url, `/query?api_key=${KEY}`);
      assert.ok(!q.summary.includes(KEY), q.summary);
      await run('open').catch(() => undefined);
      assert.equal(svc.seen.at(-1)!.headers.authorization, undefined, 'an operation with security: [] is sent no key');
    } finally {
      delete process.env[envName];
    }
    // The caller's store (the extension's SecretStorage) first; a refused key is named as refused, and not quoted.
    await assert.rejects(run('bearer', { serviceKey: () => 'wrong-key-123' }), (e: Error) => /the key for .* was refused/.test(e.message) && !e.message.includes('wrong-key-123') && e.message.includes('[redacted]'));
    assert.equal(svc.seen.at(-1)!.headers.authorization, 'Bearer wrong-key-123');
  } finally {
    await svc.close();
  }
});

test('geoweave run: a workspace OpenAPI operation runs from the command line as a cell would, and a catalog-only one says why it cannot', async () => {
  const svc = await serve((s, res) => json(res, 200, { city: decodeURIComponent(s.url.split('/')[2].split('?')[0]), uhi_c: 2.5 }));
  const ws = tmpDir('gw-http-');
  try {
    const spec = (servers?: unknown) => ({
      openapi: '3.0.3', info: { title: 'heat', version: '1' }, ...(servers ? { servers } : {}),
      paths: { '/uhi/{city}': { get: { operationId: 'uhi', description: 'urban heat island of a city', parameters: [{ name: 'city', in: 'path', required: true, schema: { type: 'string' } }] } } },
    });
    writeJson(path.join(ws, '.geoweave', 'tools', 'heat.json'), spec([{ url: svc.base }]));
    const cli = (...a: string[]) => new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      // Asynchronously: the service answers from this process.
      const child = spawn(process.execPath, [path.join(repoRoot, 'bin', 'geoweave.js'), 'run', ...a], { cwd: ws });
      let out = '', err = '';
      child.stdout.on('data', (d) => { out += d; });
      child.stderr.on('data', (d) => { err += d; });
      child.on('close', (code) => resolve({ code, out, err }));
    });
    const r = await cli('uhi', '--arg', 'city=Torino', '--json');
    assert.equal(r.code, 0, r.err);
    const j = JSON.parse(r.out);
    assert.deepEqual(j.stats, { city: 'Torino', uhi_c: 2.5 });
    assert.match(j.summary, /^GET http:\/\/127\.0\.0\.1:\d+\/uhi\/Torino answered in \d+ ms: city Torino, uhi_c 2\.5\.$/);
    assert.equal(j.provenance.tool, 'uhi');
    writeJson(path.join(ws, '.geoweave', 'tools', 'heat.json'), spec());
    const bare = await cli('uhi', '--arg', 'city=Torino');
    assert.equal(bare.code, 2);
    assert.match(bare.err, /uhi is catalog-only: its manifest has no runner \(an OpenAPI operation gets one from its document's servers url\)/);
    const unknown = await cli('nope');
    assert.match(unknown.err, /unknown tool "nope": not builtin .* and in no manifest of \.geoweave\/tools or --manifests DIR/);
  } finally {
    await svc.close();
  }
});

test('an OGC API - Processes description runs as an execute request; an async-only process is a job polled to its results; a failed, foreign or cancelled job says so', async () => {
  let polls = 0;
  const svc = await serve((s, res) => {
    const u = new URL(s.url, 'http://x');
    if (s.method === 'POST' && u.pathname === '/processes/ndvi-stats/execution') {
      const body = JSON.parse(s.body.toString('utf8'));
      const job = body.inputs.region === 'fail' ? 'bad' : body.inputs.region === 'away' ? 'away' : body.inputs.region === 'slow' ? 'slow' : 'j1';
      res.writeHead(201, { location: `/jobs/${job}`, 'content-type': 'application/json', 'x-prefer': String(s.headers.prefer) });
      res.end(JSON.stringify({ jobID: job, status: 'accepted' }));
      return;
    }
    if (s.method === 'POST' && u.pathname === '/processes/echo/execution') return json(res, 200, { echoed: JSON.parse(s.body.toString('utf8')).inputs, prefer: s.headers.prefer ?? null });
    if (u.pathname === '/jobs/j1') {
      polls++;
      return json(res, 200, polls < 2 ? { jobID: 'j1', status: 'running', progress: 40 } : { jobID: 'j1', status: 'successful', links: [{ rel: 'http://www.opengis.net/def/rel/ogc/1.0/results', href: `${svcBase()}/jobs/j1/results` }] });
    }
    if (u.pathname === '/jobs/j1/results') return json(res, 200, { mean_ndvi: 0.41, pixels: 1200 });
    if (u.pathname === '/jobs/bad') return json(res, 200, { jobID: 'bad', status: 'failed', message: 'no scene covers the region' });
    if (u.pathname === '/jobs/away') return json(res, 200, { jobID: 'away', status: 'successful', links: [{ rel: 'results', href: 'http://198.51.100.9/jobs/away/results' }] });
    if (u.pathname === '/jobs/slow' && s.method === 'DELETE') return json(res, 200, { status: 'dismissed' });
    if (u.pathname === '/jobs/slow') return json(res, 200, { jobID: 'slow', status: 'running' });
    json(res, 404, { detail: 'Not Found' });
  });
  const svcBase = () => svc.base;
  const dir = tmpDir('gw-http-');
  const tools = path.join(dir, 'tools');
  const description = (id: string, modes: string[]) => ({
    id, title: id, description: `the ${id} process`, version: '1.0', jobControlOptions: modes,
    inputs: { region: { title: 'Region', schema: { type: 'string' } }, year: { schema: { type: 'integer' } } },
    outputs: { mean_ndvi: { schema: { type: 'number' } } },
    links: [{ rel: 'self', href: `${svc.base}/processes/${id}` }, { rel: 'http://www.opengis.net/def/rel/ogc/1.0/execute', href: `${svc.base}/processes/${id}/execution`, title: 'Execute' }],
  });
  try {
    writeJson(path.join(tools, 'ndvi-stats.json'), description('ndvi-stats', ['async-execute']));
    writeJson(path.join(tools, 'echo.json'), description('echo', ['sync-execute', 'async-execute']));
    const c = loadCatalog({ noBuiltin: true, extraDirs: [tools] });
    const m = (id: string) => c.tools.find((t) => t.manifest.id === id)!.manifest;
    assert.deepEqual(m('ndvi-stats').runner, { type: 'http', method: 'POST', url: `${svc.base}/processes/ndvi-stats/execution`, body: 'ogc', async: true });
    assert.deepEqual(m('echo').runner, { type: 'http', method: 'POST', url: `${svc.base}/processes/echo/execution`, body: 'ogc' });
    const out = path.join(dir, 'out');
    // Synchronous: the inputs object, no Prefer header, the answer at once.
    const echo = await runHttpTool(m('echo'), { region: 'Lombardia', year: 2024 }, { outDir: out, cwd: dir });
    assert.deepEqual(echo.stats, { echoed: { region: 'Lombardia', year: 2024 }, prefer: null });
    // Asynchronous: asked for a job, polled through "running", the results fetched from its link.
    const stages: string[] = [];
    const r = await runHttpTool(m('ndvi-stats'), { region: 'Lombardia' }, { outDir: out, cwd: dir, onProgress: (_f, msg) => { if (msg) stages.push(msg); } });
    assert.deepEqual(r.stats, { mean_ndvi: 0.41, pixels: 1200 });
    assert.equal(svc.seen.find((x) => x.method === 'POST' && x.url.startsWith('/processes/ndvi-stats'))!.headers.prefer, 'respond-async');
    assert.ok(stages.some((x) => /job http:\/\/127\.0\.0\.1:\d+\/jobs\/j1: running 40 %/.test(x)), stages.join(' | '));
    assert.equal(polls, 2);
    await assert.rejects(runHttpTool(m('ndvi-stats'), { region: 'fail' }, { outDir: out, cwd: dir }), /^Error: ndvi-stats: job http:\/\/127\.0\.0\.1:\d+\/jobs\/bad failed: no scene covers the region$/);
    await assert.rejects(runHttpTool(m('ndvi-stats'), { region: 'away' }, { outDir: out, cwd: dir }), /ndvi-stats: the service points its job at http:\/\/198\.51\.100\.9\/jobs\/away\/results, another address than it was called at/);
    // Cancelled while it runs: "cancelled", and the service is asked to dismiss the job.
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 300);
    await assert.rejects(runHttpTool(m('ndvi-stats'), { region: 'slow' }, { outDir: out, cwd: dir, signal: stop.signal }), /^Error: ndvi-stats: cancelled$/);
    await new Promise((res) => setTimeout(res, 200));
    assert.ok(svc.seen.some((x) => x.method === 'DELETE' && x.url === '/jobs/slow'));
    assert.deepEqual(fs.existsSync(out) ? fs.readdirSync(out) : [], []);
  } finally {
    await svc.close();
  }
});

/** A Python with FastAPI, uvicorn and GDAL: a venv over the system's (python3-gdal) from the local wheel mirror. */
function fastapiPython(): { py?: string; why?: string } {
  const wheels = '/opt/pypi/files';
  if (!fs.existsSync(wheels)) return { why: `no wheel mirror at ${wheels} to install FastAPI from` };
  const venv = path.join(tmpDir('gw-fastapi-'), 'venv');
  const made = spawnSync(PY, ['-m', 'venv', '--system-site-packages', venv], { encoding: 'utf8' });
  if (made.status !== 0) return { why: `python3 -m venv failed: ${made.stderr.trim().split('\n').pop()}` };
  const py = path.join(venv, 'bin', 'python');
  const pip = spawnSync(py, ['-m', 'pip', 'install', '-q', '--no-index', '--find-links', wheels, 'fastapi', 'uvicorn', 'python-multipart'], { encoding: 'utf8' });
  if (pip.status !== 0) return { why: `FastAPI is not in ${wheels}: ${pip.stderr.trim().split('\n').pop()}` };
  return { py };
}

test('a real FastAPI + GDAL service, from the OpenAPI document it serves: band statistics equal to GDAL\'s, an NDVI GeoTIFF behind a bearer key, a polled job', { skip: gdalSkip('a FastAPI service reading GeoTIFFs with GDAL'), timeout: 180_000 }, async (t) => {
  const { py, why } = fastapiPython();
  if (!py) return t.skip(why);
  const dir = tmpDir('gw-fastapi-');
  const scene = path.join(dir, 'scene.tif');
  // A 4-band UInt16 scene with a nodata border, as a Sentinel-2 subset would be.
  const made = spawnSync(PY, ['-c', `
from osgeo import gdal, osr
import numpy as np
rng = np.random.default_rng(7)
d = gdal.GetDriverByName('GTiff').Create('${scene}', 120, 80, 4, gdal.GDT_UInt16)
d.SetGeoTransform([600000, 10, 0, 5100000, 0, -10]); s = osr.SpatialReference(); s.ImportFromEPSG(32632); d.SetProjection(s.ExportToWkt())
for i in range(4):
    a = rng.integers(200, 5000, (80, 120)).astype('uint16'); a[:, :3] = 0
    b = d.GetRasterBand(i + 1); b.SetNoDataValue(0); b.WriteArray(a)
d = None
`], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  const port = await new Promise<number>((resolve) => { const s = http.createServer(); s.listen(0, '127.0.0.1', () => { const p = (s.address() as AddressInfo).port; s.close(() => resolve(p)); }); });
  const server = spawn(py, ['-m', 'uvicorn', 'eo_service:app', '--port', String(port), '--log-level', 'warning'], { cwd: path.join(repoRoot, 'test', 'fixtures', 'openapi'), env: { ...process.env, SVC_TOKEN: 'svc-token-2f9c' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  server.stderr.on('data', (d) => { log += d; });
  const base = `http://127.0.0.1:${port}`;
  try {
    let spec: Record<string, unknown> | undefined;
    for (let i = 0; i < 100 && !spec; i++) {
      spec = await fetch(`${base}/openapi.json`).then((r) => r.json() as Promise<Record<string, unknown>>, () => undefined);
      if (!spec) await new Promise((r) => setTimeout(r, 200));
    }
    assert.ok(spec, `uvicorn did not start: ${log}`);
    writeJson(path.join(dir, '.geoweave', 'tools', 'eo.json'), { ...spec, servers: [{ url: base }] });
    const c = loadCatalog({ noBuiltin: true, workspaceDir: dir });
    assert.deepEqual(c.problems.filter((p) => !/no description; the title is used/.test(p.message)).map((p) => p.message), []);
    const m = (prefix: string) => c.tools.find((x) => x.manifest.id.startsWith(prefix))!.manifest;
    const o = { outDir: path.join(dir, 'out'), cwd: dir };
    const gdal = (code: string) => {
      const r = spawnSync(PY, ['-c', `from osgeo import gdal; import numpy as np, json\n${code}`], { encoding: 'utf8' });
      assert.equal(r.status, 0, `${r.stderr} ${r.error?.message ?? ''} ${r.signal ?? ''}`);
      return JSON.parse(r.stdout);
    };
    // Band statistics: the scene uploaded, the band in the path, the threshold in the query.
    const stats = await runHttpTool(m('band_stats'), { band: 3, threshold: 2500, scene: 'scene.tif' }, o);
    const want = gdal(`d = gdal.Open('${scene}'); a = d.GetRasterBand(3).ReadAsArray().astype('float64'); v = a[a != 0]\nprint(json.dumps([v.mean(), float((v > 2500).mean()), int(v.size)]))`);
    assert.ok(Math.abs((stats.stats.mean as number) - want[0]) < 1e-9 && Math.abs((stats.stats.above as number) - want[1]) < 1e-12 && stats.stats.valid === want[2], `${JSON.stringify(stats.stats)} vs GDAL ${want}`);
    // NDVI behind HTTPBearer: refused without a key, then a GeoTIFF whose mean is numpy's over GDAL's read.
    await assert.rejects(runHttpTool(m('ndvi'), { red: 3, nir: 4, scene: 'scene.tif' }, o), /answered 401 Unauthorized: Not authenticated \(no key is set for http:\/\/127\.0\.0\.1:\d+/);
    const ndvi = await runHttpTool(m('ndvi'), { red: 3, nir: 4, scene: 'scene.tif' }, o, { serviceKey: (origin) => (origin === base ? 'svc-token-2f9c' : undefined) });
    const out = Object.values(ndvi.outputs)[0];
    assert.equal(out.type, 'raster');
    const mean = gdal(`d = gdal.Open('${scene}'); r = d.GetRasterBand(3).ReadAsArray().astype('float32'); n = d.GetRasterBand(4).ReadAsArray().astype('float32')\nv = np.where((n + r) != 0, (n - r) / (n + r), np.nan)\nprint(json.dumps(float(np.nanmean(v.astype('float64')))))`);
    assert.ok(Math.abs((ndvi.stats.mean as number) - mean) < 1e-5, `${ndvi.stats.mean} vs ${mean}`);
    // A job: 202 and a Location, polled until it is done.
    const job = await runHttpTool(m('start'), { threshold: 2500, scene: 'scene.tif' }, o);
    const above = gdal(`d = gdal.Open('${scene}'); a = d.GetRasterBand(1).ReadAsArray()\nprint(int((a > 2500).sum()))`);
    assert.deepEqual(job.stats, { pixels_above: above });
  } finally {
    server.kill();
  }
});

test('an OpenAPI JSON body that is not an object (a list of points) is the argument "body", sent as the whole body', async () => {
  const svc = await serve((s, res) => json(res, 200, { received: JSON.parse(s.body.toString('utf8')), n: 3 }));
  try {
    const dir = tmpDir('gw-http-array-');
    writeJson(path.join(dir, '.geoweave', 'tools', 'pts.json'), {
      openapi: '3.1.0', info: { title: 'points', version: '1' }, servers: [{ url: svc.base }],
      paths: { '/sample': { post: {
        operationId: 'sample_points', description: 'Samples the land surface temperature at a list of points.',
        parameters: [{ name: 'band', in: 'query', schema: { type: 'integer' } }],
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'array', items: { type: 'array', items: { type: 'number' } }, description: 'lon, lat pairs' } } } },
        responses: { 200: { description: 'OK', content: { 'application/json': { schema: { type: 'object' } } } } },
      } } },
    });
    const c = loadCatalog({ noBuiltin: true, workspaceDir: dir });
    const m = c.tools.find((t) => t.manifest.id === 'sample_points')!.manifest;
    assert.deepEqual(m.runner, { type: 'http', method: 'POST', url: `${svc.base}/sample`, query: ['band'], body: 'json-value' });
    // As a cell writes it (a string), and as a list: the same body.
    const r = await runHttpTool(m, { band: 2, body: '[[9.19, 45.46], [9.2, 45.47], [9.21, 45.48]]' }, { outDir: path.join(dir, 'out'), cwd: dir });
    await runHttpTool(m, { body: [[9.19, 45.46]] }, { outDir: path.join(dir, 'out'), cwd: dir });
    assert.deepEqual(svc.seen.map((s) => [s.url, s.headers['content-type'], JSON.parse(s.body.toString('utf8'))]), [
      ['/sample?band=2', 'application/json', [[9.19, 45.46], [9.2, 45.47], [9.21, 45.48]]],
      ['/sample', 'application/json', [[9.19, 45.46]]],
    ]);
    assert.deepEqual(r.stats.received, [[9.19, 45.46], [9.2, 45.47], [9.21, 45.48]]);
  } finally {
    await svc.close();
  }
});

test('OGC results that give outputs by reference: each linked GeoTIFF or GeoJSON is fetched into the output folder (the key only to the service\'s own address), the values are statistics', { skip: gdalSkip('OGC results by reference') }, async () => {
  const dir = tmpDir('gw-ogc-ref-');
  const tif = fs.readFileSync(geotiff(dir));
  const cdn = await serve((s, res) => {
    if (s.url === '/zones.geojson') { res.writeHead(200, { 'content-type': 'application/geo+json' }); res.end(JSON.stringify({ type: 'FeatureCollection', features: [] })); return; }
    json(res, 404, {});
  });
  const svc = await serve((s, res) => {
    if (s.method === 'POST' && s.url === '/processes/lst/execution') return json(res, 200, { lst: { href: '/files/lst.tif', type: 'image/tiff; application=geotiff' }, zones: { href: `${cdn.base}/zones.geojson`, type: 'application/geo+json' }, mean_c: { value: 26.9, mediaType: 'application/json' }, pixels: 199 });
    if (s.url === '/files/lst.tif') { res.writeHead(200, { 'content-type': 'image/tiff' }); res.end(tif); return; }
    if (s.method === 'POST' && s.url === '/processes/broken/execution') return json(res, 200, { lst: { href: '/files/missing.tif' } });
    json(res, 404, { detail: 'Not Found' });
  });
  try {
    const m = (id: string): ToolManifest => ({ id, description: id, inputs: [{ name: 'region', type: 'string' }], runner: { type: 'http', method: 'POST', url: `${svc.base}/processes/${id}/execution`, body: 'ogc', auth: { in: 'header', name: 'Authorization', scheme: 'Bearer' } } });
    const o = { outDir: path.join(dir, 'out'), cwd: dir };
    const r = await runHttpTool(m('lst'), { region: 'milano' }, o, { serviceKey: async () => 'k-123456' });
    assert.deepEqual(Object.keys(r.outputs), ['lst', 'zones']);
    assert.equal(r.outputs.lst.type, 'raster');
    assert.equal(r.outputs.zones.type, 'vector');
    // The same pixels and grid as the service's file (GeoWeave adds its provenance items to the copy).
    const same = spawnSync(PY, ['-c', `from osgeo import gdal; import numpy as np\na = gdal.Open('${path.join(dir, 'lst.tif')}'); b = gdal.Open('${r.outputs.lst.path}')\nprint(bool(np.array_equal(a.ReadAsArray(), b.ReadAsArray())) and a.GetGeoTransform() == b.GetGeoTransform())`], { encoding: 'utf8' });
    assert.equal(same.stdout.trim(), 'True', same.stderr);
    assert.equal(r.stats.mean_c, 26.9);
    assert.equal(r.stats.pixels, 199);
    // The raster is finished like any output: its statistics are GDAL's (199 valid of 200).
    assert.deepEqual([r.stats.valid_pixels, r.stats.nodata_pixels], [199, 1]);
    assert.match(r.summary, /answered with 2 files \(lst_lst_\d+\.tif \d+ KB, lst_zones_\d+\.geojson 42 bytes\) in \d+ ms: mean_c 26\.9, pixels 199\.$/);
    // The key went to the service's own address only.
    assert.equal(svc.seen.find((s) => s.url === '/files/lst.tif')!.headers.authorization, 'Bearer k-123456');
    assert.equal(cdn.seen[0].headers.authorization, undefined);
    // A linked output that is not there: the run fails, naming it, and leaves nothing.
    const before = listing(o.outDir).length;
    await assert.rejects(runHttpTool(m('broken'), {}, o, { serviceKey: async () => 'k-123456' }), /broken: output "lst" at http:\/\/127\.0\.0\.1:\d+\/files\/missing\.tif answered 404/);
    assert.equal(listing(o.outDir).filter((f) => !f.startsWith('.')).length, before);
  } finally {
    await svc.close();
    await cdn.close();
  }
});
