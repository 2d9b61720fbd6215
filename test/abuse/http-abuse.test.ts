/**
 * Abuse: a misbehaving HTTP server on 127.0.0.1 behind every network path GeoWeave has: a COG URL
 * read by `run` (range requests), the OpenAI-compatible embeddings server (`--embedder openai`)
 * and the optional chat model (`--llm-base-url`). It stalls, drips, redirects in circles or to
 * file://, answers 4xx/5xx, resets, sends garbage, endless bodies or malformed JSON, and quotes the
 * key back. Handled means an error that names the status or the URL within the time bound (or, for
 * the optional LLM, suggestions without it), no output file left, and no password or key in any output.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { Tally } from './tally';
import { CATALOG_ARGS, cli, cliOutcome, pool, prng, tmpDir } from './state-support';
import { startMisbehavingServer } from '../helpers/misbehaving-server';
import { writeRaster } from '../../src/core/raster/io/writer';

const SEED = Number(process.env.GEOWEAVE_ABUSE_SEED ?? 11);
const KEY = 'sk-abuse-0123456789abcdef';
const PASSWORD = 'pw-9f8e7d6c';
const HTTP = ['--http-connect-timeout', '2', '--http-idle-timeout', '1', '--http-timeout', '3'];

interface Trial { area: string; input: string; args: string[]; env?: NodeJS.ProcessEnv; expect: 'ok' | 'error' | 'fallback'; mentions: string[]; out?: string }

test('a misbehaving server behind COG URLs, the embeddings server and the LLM: bounded, clear, nothing leaked', { timeout: 240_000 }, async () => {
  const tally = new Tally();
  const r = prng(SEED);
  const root = tmpDir();
  const served = path.join(root, 'served');
  fs.mkdirSync(served);
  const W = 300, H = 200;
  await writeRaster(path.join(served, 'r.tif'), { width: W, height: H, bands: 1, dtype: 'float32', blockSize: 256, geo: { epsg: 32650, geographic: false, geoTransform: [500000, 10, 0, 4430000, 0, -10] } },
    [Float32Array.from({ length: W * H }, (_, i) => (i % W) / W)]);
  const srv = await startMisbehavingServer(served, { dripMs: 200 + r.int(600) });
  const host = srv.base.replace('http://', '');
  const state = tmpDir();
  const warm = await cli(['index', 'build', '--state', state, ...CATALOG_ARGS]);
  assert.equal(warm.status, 0, warm.stderr);

  const trials: Trial[] = [];
  const cog = (input: string, urlPath: string, expect: 'ok' | 'error', retries = 1, creds = false) => {
    const url = `http://${creds ? `abuser:${PASSWORD}@` : ''}${host}${urlPath}`;
    trials.push({ area: 'COG over HTTP', input, args: ['run', 'raster_stats', '--arg', `image=${url}`, ...HTTP, '--http-retries', String(retries), '--json'], expect, mentions: [`${host}${urlPath.split('?')[0]}`] });
  };
  cog('a server that never answers', '/stall/r.tif', 'error');
  cog('a server that never answers (with credentials)', '/stall/r.tif', 'error', 1, true);
  cog('a byte every few hundred ms', '/drip/r.tif', 'error');
  cog('a redirect loop', '/loop/r.tif', 'error');
  cog('a redirect to file:///etc/passwd', '/tofile', 'error');
  for (const code of [400, 401, 403, 404, 410, 416, 429, 500, 502, 503, 504].sort(() => r.next() - 0.5).slice(0, 7)) cog(`HTTP ${code}`, `/status/${code}/r.tif`, 'error');
  cog('HTTP 500 with credentials and a signed query', `/status/500/r.tif?X-Amz-Signature=${PASSWORD}`, 'error', 1, true);
  for (const n of [1, 2]) cog(`${n} × 500, then the file`, `/flaky/${n}/r.tif`, 'ok', 2);
  cog('5 × 500 (more than the retries)', '/flaky/5/r.tif', 'error', 2);
  cog('connection resets', '/reset/r.tif', 'error');
  cog('garbage instead of HTTP', '/garbage/r.tif', 'error');
  cog('the whole file instead of a range', '/full/r.tif', 'error');
  cog('more bytes than the range', '/long/r.tif', 'error');
  cog('a Content-Range for other bytes', '/badrange/r.tif', 'error');
  cog('a permanent redirect to the file', '/moved/r.tif', 'ok');
  trials.push({ area: 'COG over HTTP', input: 'a host that does not route', args: ['run', 'raster_info', '--arg', 'image=http://10.255.255.1/r.tif', ...HTTP, '--http-retries', '0'], expect: 'error', mentions: ['10.255.255.1'] });

  const embed = (input: string, prefix: string, env: NodeJS.ProcessEnv = {}) => trials.push({
    area: 'embeddings server', input, expect: 'error', mentions: [host],
    args: ['suggest', 'how steep is the terrain', '--embedder', 'openai'],
    env: { OPENAI_BASE_URL: `http://${host}${prefix}/v1`, GEOWEAVE_OPENAI_MODEL: 'm', OPENAI_API_KEY: KEY, ...env },
  });
  embed('HTTP 500 (the SDK retries)', '/status/500');
  embed('HTTP 401', '/status/401');
  embed('HTTP 404', '/status/404');
  embed('the key quoted back in a 400', '/echo');
  embed('garbage instead of HTTP', '/garbage');
  embed('connection resets', '/reset');
  embed('an endless answer', '/huge');
  embed('a vector with a string in it', '/json/nanvec');
  embed('no vectors for the texts', '/json/wrongcount');
  embed('vectors without an index', '/json/noindex');
  embed('a body that is not JSON', '/json/notjson');
  embed('a redirect loop', '/loop');
  trials.push({ area: 'embeddings server', input: 'user:password@ in the base URL', expect: 'error', mentions: [host], args: ['suggest', 'how steep is the terrain', '--embedder', 'openai'],
    env: { OPENAI_BASE_URL: `http://abuser:${PASSWORD}@${host}/ok/v1`, GEOWEAVE_OPENAI_MODEL: 'm', OPENAI_API_KEY: KEY } });

  const llm = (input: string, prefix: string) => trials.push({
    area: 'LLM server', input, expect: 'fallback', mentions: [host],
    args: ['suggest', 'how steep is the terrain', '--llm-base-url', `http://${host}${prefix}/v1`, '--llm-model', 'm'], env: { OPENAI_API_KEY: KEY },
  });
  llm('a server that never answers (8 s budget)', '/stall');
  llm('HTTP 500', '/status/500');
  llm('the key quoted back in a 400', '/echo');
  llm('garbage instead of HTTP', '/garbage');
  llm('an endless answer', '/huge');
  llm('no choices', '/json/nochoices');
  llm('a body that is not JSON', '/json/notjson');
  llm('a redirect loop', '/loop');

  // Mostly waiting on timeouts, not CPU: four at a time.
  await pool(trials, 4, async (t, i) => {
    const out = path.join(root, `out-${i}`);
    const own = path.join(root, `state-${i}`);
    fs.cpSync(state, own, { recursive: true });
    const args = t.args[0] === 'run' ? [...t.args, '--out', out] : [...t.args, '--state', own, ...CATALOG_ARGS];
    const res = await cli(args, { env: { ...t.env }, timeoutMs: 45_000 });
    let { outcome, detail } = cliOutcome(res, t.mentions);
    if (outcome === 'handled') {
      if (t.expect === 'ok' && res.status !== 0) { outcome = 'crashed'; detail = `should have succeeded: ${res.stderr.slice(0, 300)}`; }
      else if (t.expect === 'error' && res.status === 0) { outcome = 'crashed'; detail = `should have failed: ${res.stdout.slice(0, 200)}`; }
      else if (t.expect === 'fallback' && (res.status !== 0 || !/^\s*1\s+\S+/m.test(res.stdout) || !/LLM/.test(res.stderr))) { outcome = 'crashed'; detail = `no builtin fallback with a warning (exit ${res.status}): ${res.stderr.slice(0, 300)}`; }
    }
    if (outcome === 'handled' && t.expect === 'error' && t.args[0] === 'run' && fs.existsSync(out) && fs.readdirSync(out).length) {
      outcome = 'partial'; detail = `left ${fs.readdirSync(out).join(', ')}`;
    }
    const all = res.stdout + res.stderr;
    if (all.includes(PASSWORD) || all.includes(KEY) || all.includes(KEY.slice(-12))) { outcome = 'escape'; detail = `a password or the key reached the output: ${all.slice(0, 300)}`; }
    tally.add(t.area, t.input, outcome, detail);
    fs.rmSync(own, { recursive: true, force: true });
  });
  await srv.close();

  console.log(tally.summary());
  assert.ok(tally.trials.length >= 40, `${tally.trials.length} trials`);
  assert.deepEqual(tally.failures(), []);
  fs.rmSync(root, { recursive: true, force: true });
});
