import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openRaster } from '../../src/core/raster/io/dataset';
import { writeRaster } from '../../src/core/raster/io/writer';
import { HttpRangeClient, httpOptions, setHttpOptions } from '../../src/core/raster/io/http-client';
import { startMisbehavingServer, MisbehavingServer } from '../helpers/misbehaving-server';

let srv: MisbehavingServer;
let dir: string;
const saved = { ...process.env };

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-http-'));
  const W = 300, H = 200;
  const band = Float32Array.from({ length: W * H }, (_, i) => (i % W) + Math.floor(i / W));
  await writeRaster(path.join(dir, 'r.tif'), { width: W, height: H, bands: 1, dtype: 'float32', blockSize: 256, geo: { epsg: 32650, geographic: false, geoTransform: [500000, 10, 0, 4430000, 0, -10] } }, [band]);
  srv = await startMisbehavingServer(dir, { dripMs: 200 });
  setHttpOptions({ connectTimeoutSeconds: 2, idleTimeoutSeconds: 1, timeoutSeconds: 2, retries: 2 });
});

after(async () => {
  await srv.close();
  for (const k of Object.keys(process.env)) if (k.startsWith('GEOWEAVE_HTTP_') && !(k in saved)) delete process.env[k];
});

/** Opens `url` and returns the error message and how long it took; fails the test if it opens. */
async function failure(url: string): Promise<{ message: string; ms: number }> {
  const t0 = Date.now();
  try {
    await openRaster(url);
  } catch (e) {
    return { message: (e as Error).message, ms: Date.now() - t0 };
  }
  assert.fail(`${url} opened`);
}

test('options come from settings/env, in seconds; malformed values fall back to the defaults', () => {
  const o = httpOptions({ GEOWEAVE_HTTP_CONNECT_TIMEOUT: '3', GEOWEAVE_HTTP_IDLE_TIMEOUT: 'soon', GEOWEAVE_HTTP_TIMEOUT: '0.5', GEOWEAVE_HTTP_RETRIES: '99' });
  assert.equal(o.connectTimeoutMs, 3000);
  assert.equal(o.idleTimeoutMs, 30_000);
  assert.equal(o.requestTimeoutMs, 500);
  assert.equal(o.retries, 10);
  assert.throws(() => setHttpOptions({ retries: -1 }), /GEOWEAVE_HTTP_RETRIES must be a number >= 0/);
});

test('a server that accepts and never answers fails after the idle timeout, naming the URL', async () => {
  const r = await failure(`${srv.base}/stall/r.tif`);
  assert.match(r.message, new RegExp(`${srv.base}/stall/r.tif sent nothing for 1 s`));
  assert.ok(r.ms < 4000, `${r.ms} ms`);
});

test('a server that drips a byte at a time is cut off by the request deadline', async () => {
  const r = await failure(`${srv.base}/drip/r.tif`);
  assert.match(r.message, /drip\/r\.tif did not finish answering within 2 s/);
  assert.ok(r.ms < 5000, `${r.ms} ms`);
});

test('404 and 500 name the status and the URL; 5xx is retried with backoff, 404 is not', async () => {
  const before404 = srv.hits.get('status') ?? 0;
  const r404 = await failure(`${srv.base}/status/404/r.tif`);
  assert.match(r404.message, new RegExp(`HTTP 404 Status from ${srv.base}/status/404/r.tif`));
  assert.equal((srv.hits.get('status') ?? 0) - before404, 1, 'a 404 is asked once');
  const r500 = await failure(`${srv.base}/status/503/r.tif`);
  assert.match(r500.message, /HTTP 503 Status from .*\/status\/503\/r\.tif \(after 3 attempts\)/);
  assert.equal((srv.hits.get('status') ?? 0) - before404, 4);
  assert.ok(r500.ms >= 500, 'backoff between attempts');
});

test('a server that fails twice with 500 and then answers is read, with the same values as the file', async () => {
  const remote = await openRaster(`${srv.base}/flaky/2/r.tif`);
  const local = await openRaster(path.join(dir, 'r.tif'));
  assert.deepEqual(Array.from(await remote.readWindow(1, 10, 20, 30, 5)), Array.from(await local.readWindow(1, 10, 20, 30, 5)));
  await remote.close();
  await local.close();
});

test('redirects: a permanent move is followed, a loop stops after a bounded number of hops', async () => {
  const moved = await openRaster(`${srv.base}/moved/r.tif`);
  assert.equal(moved.width, 300);
  await moved.close();
  const before = srv.hits.get('loop') ?? 0;
  const r = await failure(`${srv.base}/loop/r.tif`);
  assert.match(r.message, /loop\/r\.tif redirects more than 5 times/);
  assert.ok((srv.hits.get('loop') ?? 0) - before <= 6);
});

test('garbage, resets, ignored ranges, overlong and mislabelled answers fail clearly', async () => {
  assert.match((await failure(`${srv.base}/garbage/r.tif`)).message, /garbage\/r\.tif sent an answer that is not valid HTTP/);
  const reset = await failure(`${srv.base}/reset/r.tif`);
  assert.match(reset.message, /cannot read .*reset\/r\.tif: ECONNRESET \(after 3 attempts\)/);
  assert.match((await failure(`${srv.base}/full/r.tif`)).message, /full\/r\.tif ignores range requests \(HTTP 200 to one\)/);
  assert.match((await failure(`${srv.base}/long/r.tif`)).message, /long\/r\.tif (announces \d+ bytes for a range of \d+|sent more than)/);
  assert.match((await failure(`${srv.base}/badrange/r.tif`)).message, /badrange\/r\.tif answered bytes 0-\d+ with Content-Range "bytes 1-/);
});

test('credentials and signed query values never appear in errors', async () => {
  const url = `${srv.base.replace('http://', 'http://alice:s3cr3tpw@')}/status/500/r.tif?X-Amz-Signature=abcdef123456&x=1`;
  const r = await failure(url);
  assert.doesNotMatch(r.message, /s3cr3tpw|alice|abcdef123456/);
  assert.match(r.message, /HTTP 500 Status from http:\/\/127\.0\.0\.1:\d+\/status\/500\/r\.tif\?X-Amz-Signature=\[redacted\]&x=1/);
});

test('a cancelled read stops at once', async () => {
  const client = new HttpRangeClient(`${srv.base}/stall/r.tif`, { ...httpOptions(), idleTimeoutMs: 60_000, requestTimeoutMs: 60_000 });
  const ctrl = new AbortController();
  const t0 = Date.now();
  setTimeout(() => ctrl.abort(), 100);
  await assert.rejects(client.request({ headers: { Range: 'bytes=0-99' }, signal: ctrl.signal }), (e: Error) => e.name === 'AbortError');
  assert.ok(Date.now() - t0 < 2000);
});
