/** stac_search on a static STAC catalog and on a STAC API (a local http server), checked against an independent python filter of the same items. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';
import { runTool } from '../../src/core/raster/engine';
import { tmpDir, PY } from '../helpers/raster-gdal';

function write(file: string, v: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(v, null, 1));
}

interface Spec { id: string; coll: 's2' | 'ls'; bbox?: number[]; geom?: number[][]; dt?: string; range?: [string, string]; cloud?: number; platform: string; asset: string; keepColl?: boolean }

const SPECS: Spec[] = [
  { id: 'S2A_0601', coll: 's2', bbox: [11.0, 46.0, 12.0, 47.0], dt: '2023-06-01T10:10:00Z', cloud: 5, platform: 'sentinel-2a', asset: '../../../data/S2A_0601_B04.tif', keepColl: true },
  { id: 'S2B_0611', coll: 's2', bbox: [11.5, 46.5, 12.5, 47.5], dt: '2023-06-11T10:10:00Z', cloud: 35, platform: 'sentinel-2b', asset: '../../../data/missing.tif', keepColl: true },
  { id: 'S2A_0621', coll: 's2', bbox: [13.0, 48.0, 14.0, 49.0], dt: '2023-06-21T10:10:00Z', cloud: 2, platform: 'sentinel-2a', asset: 'https://example.org/S2A_0621_B04.tif', keepColl: true },
  { id: 'S2B_0630', coll: 's2', geom: [[11.2, 46.2], [11.8, 46.2], [11.8, 46.8], [11.2, 46.2]], dt: '2023-06-30T23:59:00Z', cloud: 12, platform: 'sentinel-2b', asset: 'S2B_0630_B04.tif' },
  { id: 'S2A_0701', coll: 's2', bbox: [11.0, 46.0, 12.0, 47.0], dt: '2023-07-01T00:00:01Z', cloud: 1, platform: 'sentinel-2a', asset: 'x.tif' },
  { id: 'S2A_nocloud', coll: 's2', bbox: [11.0, 46.0, 12.0, 47.0], dt: '2023-06-05T10:00:00Z', platform: 'sentinel-2a', asset: 'x.tif' },
  { id: 'LC09_0608', coll: 'ls', bbox: [10.5, 45.5, 11.6, 46.6], dt: '2023-06-08T09:50:00Z', cloud: 8, platform: 'landsat-9', asset: 'LC09_SR_B4.tif' },
  { id: 'LC08_range', coll: 'ls', bbox: [10.5, 45.5, 11.6, 46.6], range: ['2023-05-20T00:00:00Z', '2023-06-02T00:00:00Z'], cloud: 15, platform: 'landsat-8', asset: 'LC08_SR_B4.tif' },
];

/** Writes the static catalog (root → two collections → items in sub-folders) and returns the folder. */
function makeCatalog(): string {
  const dir = tmpDir('gw-stac-');
  write(path.join(dir, 'catalog.json'), {
    type: 'Catalog', stac_version: '1.0.0', id: 'root', description: 'test',
    links: [{ rel: 'self', href: './catalog.json' }, { rel: 'child', href: './s2/collection.json' }, { rel: 'child', href: 'landsat/collection.json' },
      { rel: 'child', href: 'https://example.org/remote/catalog.json' }, { rel: 'child', href: './s2/collection.json' }],
  });
  for (const [sub, id] of [['s2', 'sentinel-2-l2a'], ['landsat', 'landsat-c2-l2']]) {
    const mine = SPECS.filter((s) => (s.coll === 's2') === (sub === 's2'));
    write(path.join(dir, sub, 'collection.json'), {
      type: 'Collection', stac_version: '1.0.0', id, description: id, license: 'proprietary', extent: {},
      links: [{ rel: 'root', href: '../catalog.json' }, { rel: 'parent', href: '../catalog.json' }, ...mine.map((s) => ({ rel: 'item', href: `./items/${s.id}/${s.id}.json` }))],
    });
    for (const s of mine) {
      const props: Record<string, unknown> = { platform: s.platform, ...(s.cloud !== undefined ? { 'eo:cloud_cover': s.cloud } : {}) };
      if (s.dt) props.datetime = s.dt; else { props.datetime = null; props.start_datetime = s.range![0]; props.end_datetime = s.range![1]; }
      const b = s.bbox;
      const geometry = s.geom ? { type: 'Polygon', coordinates: [s.geom] } : { type: 'Polygon', coordinates: [[[b![0], b![1]], [b![2], b![1]], [b![2], b![3]], [b![0], b![3]], [b![0], b![1]]]] };
      write(path.join(dir, sub, 'items', s.id, `${s.id}.json`), {
        type: 'Feature', stac_version: '1.0.0', id: s.id, ...(s.keepColl ? { collection: id } : {}), ...(b ? { bbox: b } : {}), geometry, properties: props,
        links: [{ rel: 'collection', href: '../../collection.json' }], assets: { red: { href: s.asset, type: 'image/tiff; application=geotiff', roles: ['data'] } },
      });
    }
  }
  fs.mkdirSync(path.join(dir, 'data'));
  fs.writeFileSync(path.join(dir, 'data', 'S2A_0601_B04.tif'), 'x');
  return dir;
}

/** The expected ids by an independent python filter over every item file (collection from the folder). */
function expected(dir: string, q: { bbox?: number[]; start?: string; end?: string; collection?: string; maxCloud?: number; platform?: string }): string[] {
  const r = spawnSync(PY, ['-c', `
import json, sys, glob, os
from datetime import datetime, timezone, timedelta
q = json.loads(sys.argv[2])
def ts(s): return datetime.fromisoformat(s.replace('Z', '+00:00'))
start = ts(q['start'] + 'T00:00:00Z') if q.get('start') else None
end = ts(q['end'] + 'T00:00:00Z') + timedelta(days=1) - timedelta(milliseconds=1) if q.get('end') else None
out = []
for f in glob.glob(sys.argv[1] + '/*/items/*/*.json'):
    it = json.load(open(f)); p = it['properties']
    coll = {'s2': 'sentinel-2-l2a', 'landsat': 'landsat-c2-l2'}[f[len(sys.argv[1]) + 1:].split('/')[0]]
    if q.get('collection') and coll != q['collection']: continue
    if 'bbox' in q:
        xs = [c[0] for c in it['geometry']['coordinates'][0]]; ys = [c[1] for c in it['geometry']['coordinates'][0]]
        b = it.get('bbox') or [min(xs), min(ys), max(xs), max(ys)]
        if b[0] > q['bbox'][2] or b[2] < q['bbox'][0] or b[1] > q['bbox'][3] or b[3] < q['bbox'][1]: continue
    t0 = ts(p['datetime'] or p['start_datetime']); t1 = ts(p['datetime'] or p['end_datetime'])
    if start and t1 < start: continue
    if end and t0 > end: continue
    if 'maxCloud' in q and not (p.get('eo:cloud_cover') is not None and p['eo:cloud_cover'] <= q['maxCloud']): continue
    if q.get('platform') and p.get('platform') != q['platform']: continue
    out.append((t0, it['id']))
print(json.dumps([i for _, i in sorted(out)]))
`, dir, JSON.stringify(q)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
}

test('stac_search on a static catalog: bbox, date range, collection, cloud cover and property filters equal an independent python filter; local asset paths resolved', async () => {
  const dir = makeCatalog();
  const out = path.join(dir, 'out');
  const cases: { args: Record<string, unknown>; q: Parameters<typeof expected>[1] }[] = [
    { args: {}, q: {} },
    { args: { bbox: '11.1,46.1,11.4,46.4', datetime: '2023-06-01/2023-06-30' }, q: { bbox: [11.1, 46.1, 11.4, 46.4], start: '2023-06-01', end: '2023-06-30' } },
    { args: { bbox: [11.1, 46.1, 11.4, 46.4], datetime: '2023-06-01/2023-06-30', collection: 'sentinel-2-l2a', max_cloud: 20 }, q: { bbox: [11.1, 46.1, 11.4, 46.4], start: '2023-06-01', end: '2023-06-30', collection: 'sentinel-2-l2a', maxCloud: 20 } },
    { args: { collection: 'landsat-c2-l2', datetime: '2023-06-01/..' }, q: { collection: 'landsat-c2-l2', start: '2023-06-01' } },
    { args: { properties: 'platform=sentinel-2a', max_cloud: 10 }, q: { platform: 'sentinel-2a', maxCloud: 10 } },
  ];
  for (const [k, c] of cases.entries()) {
    const r = await runTool('stac_search', { catalog: dir, ...c.args }, { outDir: path.join(out, String(k)) });
    const ids = (r.stats.items as any[]).map((i) => i.id);
    assert.deepEqual(ids, expected(dir, c.q), `case ${k}: ${JSON.stringify(c.args)}`);
    assert.equal(r.stats.remote_links_skipped, 1, 'the https child link is not followed');
    const doc = JSON.parse(fs.readFileSync(r.outputs.scenes.path, 'utf8'));
    assert.deepEqual(doc.items.map((i: any) => i.id), ids);
  }
  assert.ok(expected(dir, cases[2].q).length >= 2 && expected(dir, cases[2].q).length < 6, 'the combined filter keeps some items and drops others');
  // Assets: relative hrefs resolve against the item file; the existence of the local file is reported.
  const r = await runTool('stac_search', { catalog: path.join(dir, 'catalog.json'), datetime: '2023-06-01/2023-06-11', collection: 'sentinel-2-l2a' }, { outDir: path.join(out, 'a') });
  const doc = JSON.parse(fs.readFileSync(r.outputs.scenes.path, 'utf8'));
  const a = doc.items.find((i: any) => i.id === 'S2A_0601').assets.red;
  assert.equal(a.path, path.join(dir, 'data', 'S2A_0601_B04.tif'));
  assert.equal(a.exists, true);
  assert.equal(doc.items.find((i: any) => i.id === 'S2B_0611').assets.red.exists, false);
  assert.match(r.summary, /^3 items of 6 in catalog\.json match, from 2023-06-01 to 2023-06-11, cloud cover 5–35%; the clearest is S2A_0601 \(2023-06-01, 5%\)\. 3 assets are local files \(2 missing on disk\)\. 1 link to a remote catalog file was not followed\.$/);
  // Bad input names the argument and what to do.
  await assert.rejects(runTool('stac_search', { catalog: path.join(dir, 'nope') }, { outDir: out }), /argument "catalog": .*nope does not exist; give a static STAC catalog/);
  await assert.rejects(runTool('stac_search', { catalog: dir, datetime: '2023-06-30/2023-06-01' }, { outDir: out }), /argument "datetime": the range "2023-06-30\/2023-06-01" ends before it starts/);
  await assert.rejects(runTool('stac_search', { catalog: dir, properties: 'platform' }, { outDir: out }), /argument "properties": "platform" is not a filter/);
  await assert.rejects(runTool('stac_search', { catalog: path.join(dir, 'data') }, { outDir: out }), /has no catalog\.json or collection\.json/);
});

test('stac_search against a STAC API: POSTs bbox/datetime/collections/query to /search, follows next links, filters what the server ignored, resolves asset hrefs', async () => {
  const dir = makeCatalog();
  const items = fs.readdirSync(path.join(dir, 's2', 'items')).map((id) => JSON.parse(fs.readFileSync(path.join(dir, 's2', 'items', id, `${id}.json`), 'utf8')))
    .map((it) => ({ ...it, collection: 'sentinel-2-l2a', links: [{ rel: 'self', href: `/collections/sentinel-2-l2a/items/${it.id}` }] }));
  items[0].assets.local = { href: pathToFileURL(path.join(dir, 'data', 'S2A_0601_B04.tif')).toString(), type: 'image/tiff' };
  const bodies: any[] = [];
  let fail = false, foreign = false;
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => {
      if (fail) { res.writeHead(503, { 'content-type': 'text/plain' }); return res.end('maintenance'); }
      if (req.method !== 'POST' || !req.url?.startsWith('/v1/search')) { res.writeHead(404); return res.end(); }
      const body = JSON.parse(text);
      bodies.push(body);
      // A server that ignores every filter and pages two items at a time.
      const from = body.token ? Number(body.token) : 0;
      const page = items.slice(from, from + 2);
      const links = foreign ? [{ rel: 'next', href: 'http://localhost:1/v1/search', method: 'POST' }]
        : from + 2 < items.length ? [{ rel: 'next', href: '/v1/search', method: 'POST', merge: true, body: { token: String(from + 2) } }] : [];
      res.writeHead(200, { 'content-type': 'application/geo+json' });
      res.end(JSON.stringify({ type: 'FeatureCollection', features: page, links }));
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  try {
    const args = { catalog: base, bbox: '11.1,46.1,11.4,46.4', datetime: '2023-06-01/2023-06-30', collection: 'sentinel-2-l2a', max_cloud: 20 };
    const r = await runTool('stac_search', args, { outDir: path.join(dir, 'o') });
    const want = expected(dir, { bbox: [11.1, 46.1, 11.4, 46.4], start: '2023-06-01', end: '2023-06-30', collection: 'sentinel-2-l2a', maxCloud: 20 });
    assert.deepEqual((r.stats.items as any[]).map((i) => i.id), want);
    assert.equal(r.stats.pages, 3, 'six items in pages of two');
    assert.equal(r.stats.kind, 'api');
    assert.deepEqual(bodies[0], { limit: 100, bbox: [11.1, 46.1, 11.4, 46.4], datetime: '2023-06-01T00:00:00Z/2023-06-30T23:59:59.999Z', collections: ['sentinel-2-l2a'], query: { 'eo:cloud_cover': { lte: 20 } } });
    assert.equal(bodies[1].token, '2');
    assert.equal(bodies[1].collections[0], 'sentinel-2-l2a', 'merge: the next body keeps the search');
    const doc = JSON.parse(fs.readFileSync(r.outputs.scenes.path, 'utf8'));
    const first = doc.items.find((i: any) => i.id === 'S2A_0601');
    // "../../../data/..." against the self link /collections/sentinel-2-l2a/items/S2A_0601.
    assert.equal(first.assets.red.href, `http://127.0.0.1:${(server.address() as AddressInfo).port}/data/S2A_0601_B04.tif`, 'relative href against the self link');
    assert.equal(first.assets.local.path, path.join(dir, 'data', 'S2A_0601_B04.tif'));
    assert.equal(first.assets.local.exists, true);
    foreign = true;
    const f = await runTool('stac_search', { catalog: base }, { outDir: path.join(dir, 'o4') });
    assert.equal(f.stats.pages, 1, 'a next link to another server is not followed');
    assert.match(f.summary, /The API's next page is on another server \(http:\/\/localhost:1\) and was not fetched/);
    fail = true;
    await assert.rejects(runTool('stac_search', args, { outDir: path.join(dir, 'o2') }), /argument "catalog": the STAC API answered 503 .* to POST http:\/\/127\.0\.0\.1:\d+\/v1\/search: maintenance/);
  } finally {
    server.close();
  }
  await assert.rejects(runTool('stac_search', { catalog: 'http://127.0.0.1:9/v1' }, { outDir: path.join(dir, 'o3') }), /argument "catalog": could not reach the STAC API at http:\/\/127\.0\.0\.1:9\/v1\/search/);
});
