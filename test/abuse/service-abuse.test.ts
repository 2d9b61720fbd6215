/**
 * Abuse: a team's REST service (an `http` runner, as an OpenAPI document gives one) that misbehaves,
 * and OpenAPI documents whose addresses are hostile. The service stalls, drips, redirects in circles
 * or to file://, answers 4xx/5xx, resets, sends garbage, an endless or malformed JSON body; the
 * documents point at file://, javascript:, an address with a password, or try to climb the path.
 * Handled means an error that names the tool and the address (never a password), within the time
 * bound (a stalled call is cancelled, as the analyst would), and nothing left in the output folder.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import * as http from 'http';
import type { AddressInfo } from 'net';
import { Tally } from './tally';
import { tmpDir } from './state-support';
import { startMisbehavingServer } from '../helpers/misbehaving-server';
import { runHttpTool } from '../../src/core/notebook/http-runner';
import { loadCatalog } from '../../src/core/manifests/load';
import type { ToolManifest } from '../../src/core/manifests/types';

const PASSWORD = 'pw-5e4d3c2b';
/** A stalled call is cancelled after this; a handled trial ends within BOUND_MS. */
const CANCEL_MS = 1500;
const BOUND_MS = 20_000;

test('a misbehaving service behind an http runner, and OpenAPI documents with hostile addresses: bounded, clear, nothing left', { timeout: 300_000 }, async () => {
  const tally = new Tally();
  const root = tmpDir();
  const srv = await startMisbehavingServer(root, { dripMs: 300 });
  const host = srv.base.replace('http://', '');
  const tool = (id: string, url: string, method: 'GET' | 'POST' = 'GET'): ToolManifest => ({
    id, description: id, inputs: [{ name: 'city', type: 'string' }, { name: 'band', type: 'string' }],
    runner: { type: 'http', method, url, ...(method === 'POST' ? { body: 'json' as const } : {}) },
  });
  const trial = async (area: string, input: string, m: ToolManifest, args: Record<string, unknown>, mentions: string[], cancel = false) => {
    const out = path.join(root, `out-${tally.trials.length}`);
    const stop = new AbortController();
    const timer = cancel ? setTimeout(() => stop.abort(), CANCEL_MS) : undefined;
    const t0 = Date.now();
    let message = '';
    let ok = false;
    try {
      await Promise.race([
        runHttpTool(m, args, { outDir: out, cwd: root, signal: stop.signal }).then(() => { ok = true; }),
        new Promise((_, reject) => setTimeout(() => reject(new Error('HANG')), BOUND_MS)),
      ]);
    } catch (e) {
      message = (e as Error).message;
    } finally {
      clearTimeout(timer);
    }
    const left = fs.existsSync(out) ? fs.readdirSync(out) : [];
    const ms = Date.now() - t0;
    if (message === 'HANG') tally.add(area, input, 'hang', `${ms} ms`);
    else if (message.includes(PASSWORD)) tally.add(area, input, 'escape', message);
    else if (ok) tally.add(area, input, 'crashed', 'it gave a result');
    else if (left.length) tally.add(area, input, 'partial', left.join(', '));
    else if (!message.startsWith(`${m.id}:`) || !mentions.every((w) => message.includes(w))) tally.add(area, input, 'crashed', `${message} (wanted ${mentions.join(', ')})`);
    else tally.add(area, input, 'handled');
  };
  try {
    const svc = 'misbehaving service';
    for (const code of [400, 401, 403, 404, 422, 500, 502, 503]) await trial(svc, `HTTP ${code}`, tool('status', `${srv.base}/status/${code}`), {}, [host, `answered ${code}`, 'as requested']);
    await trial(svc, 'a server that never answers (cancelled)', tool('stall', `${srv.base}/stall/x`), {}, ['cancelled'], true);
    // (A 206 without a media type: refused at its first byte, before the drip goes on.)
    await trial(svc, 'a byte every 300 ms', tool('drip', `${srv.base}/drip/x`), {}, [host, 'no media type'], true);
    await trial(svc, 'a redirect loop', tool('loop', `${srv.base}/loop/x`), {}, [host, 'redirect']);
    await trial(svc, 'a redirect to file:///etc/passwd', tool('tofile', `${srv.base}/tofile`), {}, [host, 'redirect']);
    await trial(svc, 'a permanent redirect', tool('moved', `${srv.base}/moved/x`, 'POST'), { city: 'milano' }, [host, 'redirect']);
    await trial(svc, 'connection resets', tool('reset', `${srv.base}/reset/x`), {}, [host, 'cannot call']);
    await trial(svc, 'garbage instead of HTTP', tool('garbage', `${srv.base}/garbage/x`), {}, [host, 'cannot call']);
    await trial(svc, 'an endless JSON answer (200 MB)', tool('huge', `${srv.base}/huge`), {}, [host, 'larger than the 67108864 bytes accepted']);
    await trial(svc, 'a JSON answer that is not JSON', tool('notjson', `${srv.base}/json/notjson`), {}, [host, 'not valid JSON']);
    await trial(svc, 'a password in the url', tool('creds', `http://abuser:${PASSWORD}@${host}/echo`), {}, ['user name or password', host]);
    await trial(svc, 'a file:// url', tool('file', 'file:///etc/passwd'), {}, ['only http and https']);
    await trial(svc, 'a url that is not one', tool('nourl', 'http://[::1'), {}, ['not an address']);
    await trial(svc, 'a path parameter of ".." (would climb the path)', tool('climb', `${srv.base}/status/{city}/x`), { city: '..' }, [host, 'answered 404']);
    await trial(svc, 'a path parameter with slashes, a query and a fragment', tool('slashes', `${srv.base}/status/{city}`), { city: '500/../../etc?x=1#f' }, [host, 'answered 500']);
    await trial(svc, 'a prototype key as the argument', tool('proto', `${srv.base}/status/500`), JSON.parse('{"__proto__": {"polluted": 1}}'), ['unknown argument "__proto__"']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    // Jobs (202 and a Location, as OGC API - Processes runs them) that misbehave.
    const jobs = http.createServer((req, res) => {
      const u = req.url ?? '/';
      const job = (location: string) => { res.writeHead(202, { location }); res.end(); };
      if (req.method === 'POST') {
        const kind = u.split('/')[2];
        if (kind === 'file') return job('file:///etc/passwd');
        if (kind === 'elsewhere') return job('http://198.51.100.3/jobs/1');
        return job(`/jobs/${kind}`);
      }
      if (req.method === 'DELETE') { res.writeHead(200); res.end(); return; }
      // /jobs/<kind> only: /jobs/<kind>/results is not there.
      const kind = u.split('/').length === 3 ? u.split('/')[2] : '';
      res.setHeader('content-type', 'application/json');
      if (kind === 'big') { res.end(`{"status": "running", "pad": "${'x'.repeat(3 << 20)}"}`); return; }
      if (kind === 'nostatus') { res.end('{"state": "done"}'); return; }
      if (kind === 'numberstatus') { res.end('{"status": 42}'); return; }
      if (kind === 'notjson') { res.end('<html>busy</html>'); return; }
      if (kind === 'forever') { res.end('{"status": "running", "progress": 1e308}'); return; }
      if (kind === 'jsresults') { res.end('{"status": "successful", "links": [{"rel": "results", "href": "javascript:alert(1)"}]}'); return; }
      if (kind === 'protolinks') { res.end('{"status": "successful", "links": {"__proto__": {"rel": "results"}}}'); return; }
      res.statusCode = 404;
      res.end('{"detail": "Not Found"}');
    });
    await new Promise<void>((r) => jobs.listen(0, '127.0.0.1', r));
    const jobHost = `127.0.0.1:${(jobs.address() as AddressInfo).port}`;
    const jobTool = (kind: string) => tool(`job_${kind}`, `http://${jobHost}/run/${kind}`, 'POST');
    try {
      const area = 'service jobs';
      await trial(area, 'a job at file:///etc/passwd', jobTool('file'), {}, ['another address']);
      await trial(area, 'a job at another host', jobTool('elsewhere'), {}, ['198.51.100.3', 'another address']);
      await trial(area, 'a 3 MB job status', jobTool('big'), {}, [jobHost, 'larger than the 1048576 bytes accepted']);
      await trial(area, 'a job status without a status', jobTool('nostatus'), {}, [jobHost, 'without a "status"']);
      await trial(area, 'a status that is a number', jobTool('numberstatus'), {}, [jobHost, 'without a "status"']);
      await trial(area, 'a job status that is HTML', jobTool('notjson'), {}, [jobHost, 'did not answer with a job status in JSON']);
      await trial(area, 'a job that runs forever, progress 1e308 (cancelled)', jobTool('forever'), {}, ['cancelled'], true);
      await trial(area, 'results at javascript:', jobTool('jsresults'), {}, ['another address']);
      await trial(area, 'links as a prototype object (results at <job>/results: 404)', jobTool('protolinks'), {}, [jobHost, 'answered 404']);
      await trial(area, 'a job that is not there', jobTool('gone'), {}, [jobHost, 'answered 404']);
    } finally {
      jobs.closeAllConnections();
      jobs.close();
    }

    // What the service was asked for: ".." encoded, never the parent path.
    assert.equal(srv.hits.get('etc') ?? 0, 0);

    // OGC results that give outputs by reference, with hostile links: a link that is not http(s) or
    // holds a password is not followed (it stays a value); one that fails, is not a file GeoWeave
    // shows, or is endless fails the run, naming the output, and leaves nothing.
    const refs = http.createServer((req, res) => {
      const u = req.url ?? '/';
      const kind = u.split('/')[2];
      if (req.method === 'POST') {
        res.setHeader('content-type', 'application/json');
        const links: Record<string, unknown> = {
          file: { a: { href: 'file:///etc/passwd' }, b: { href: 'javascript:alert(1)' }, c: { href: `http://abuser:${PASSWORD}@127.0.0.1:9/x.tif` }, d: { href: 'http://[::1' }, n: 3 },
          many: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`o${i}`, { href: '/files/gone.tif' }])),
          html: { page: { href: '/files/page.html' } },
          gone: { lst: { href: '/files/gone.tif' } },
          endless: { lst: { href: '/files/endless.tif' } },
          proto: JSON.parse('{"__proto__": {"href": "/files/gone.tif"}, "n": 1}'),
        };
        res.end(JSON.stringify(links[kind] ?? {}));
        return;
      }
      if (u === '/files/page.html') { res.writeHead(200, { 'content-type': 'text/html' }); res.end('<html>login</html>'); return; }
      if (u === '/files/endless.tif') {
        res.writeHead(200, { 'content-type': 'image/tiff' });
        res.write(Buffer.from([0x49, 0x49, 0x2a, 0]));
        const t = setInterval(() => res.write(Buffer.alloc(1 << 16)), 50);
        res.on('close', () => clearInterval(t));
        return;
      }
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"detail": "Not Found"}');
    });
    await new Promise<void>((r) => refs.listen(0, '127.0.0.1', r));
    const refHost = `127.0.0.1:${(refs.address() as AddressInfo).port}`;
    const refTool = (kind: string): ToolManifest => ({ id: `ref_${kind}`, description: kind, inputs: [], runner: { type: 'http', method: 'POST', url: `http://${refHost}/run/${kind}`, body: 'ogc' } });
    try {
      const area = 'OGC outputs by reference';
      const skipped = async (input: string, kind: string, values: string[]) => {
        const out = path.join(root, `out-${tally.trials.length}`);
        try {
          const r = await runHttpTool(refTool(kind), {}, { outDir: out, cwd: root });
          const left = fs.existsSync(out) ? fs.readdirSync(out) : [];
          const shown = JSON.stringify(r.stats) + r.summary;
          if (Object.keys(r.outputs).length || left.length) tally.add(area, input, 'partial', left.join(', '));
          else if (!values.every((k) => k in r.stats)) tally.add(area, input, 'crashed', `stats ${shown.slice(0, 200)}`);
          else if (({} as Record<string, unknown>).href !== undefined) tally.add(area, input, 'escape', 'Object.prototype polluted');
          else tally.add(area, input, 'handled');
        } catch (e) {
          tally.add(area, input, 'crashed', (e as Error).message);
        }
      };
      await skipped('links to file:, javascript:, an address with a password, a broken address', 'file', ['a', 'b', 'c', 'd', 'n']);
      await skipped('a __proto__ output with a link', 'proto', ['n']);
      await trial(area, '40 links (20 followed), all 404', refTool('many'), {}, [refHost, 'output "o0"', 'answered 404']);
      await trial(area, 'a link to an HTML login page', refTool('html'), {}, ['output "page"', 'text/html', 'not a GeoTIFF, GeoJSON or CSV']);
      await trial(area, 'a link that is not there', refTool('gone'), {}, ['output "lst"', 'answered 404']);
      await trial(area, 'an endless GeoTIFF (cancelled)', refTool('endless'), {}, ['cancelled'], true);
    } finally {
      refs.closeAllConnections();
      refs.close();
    }

    // OpenAPI documents: a hostile address gives no runner (catalog-only, one warning), never a call elsewhere.
    const docs = 'OpenAPI addresses';
    const dir = path.join(root, 'tools');
    fs.mkdirSync(dir);
    const spec = (servers: unknown) => ({ openapi: '3.0.3', info: { title: 't', version: '1' }, servers, paths: { '/a': { get: { operationId: 'op', description: 'an operation' } } } });
    const cases: [string, unknown, string | undefined][] = [
      ['file://', [{ url: 'file:///etc/passwd' }], undefined],
      ['javascript:', [{ url: 'javascript:alert(1)' }], undefined],
      ['a password in the address', [{ url: `http://abuser:${PASSWORD}@example.org` }], undefined],
      ['a variable with no default', [{ url: 'http://{host}/v1', variables: { host: {} } }], undefined],
      ['a variable named __proto__', [{ url: 'http://{__proto__}/v1', variables: JSON.parse('{"__proto__": {"default": "example.org"}}') }], 'http://example.org/v1/a'],
      ['servers that is not a list', { url: 'http://example.org' }, undefined],
      ['a server that is a number', [42], undefined],
      ['a variable default that is an object', [{ url: 'http://{h}/', variables: { h: { default: { evil: 1 } } } }], undefined],
    ];
    for (const [input, servers, want] of cases) {
      fs.writeFileSync(path.join(dir, 'spec.json'), JSON.stringify(spec(servers)));
      try {
        const c = loadCatalog({ noBuiltin: true, extraDirs: [dir] });
        const runner = c.tools[0]?.manifest.runner;
        const url = runner?.type === 'http' ? runner.url : undefined;
        const leaked = JSON.stringify(c.problems).includes(PASSWORD);
        if (leaked) tally.add(docs, input, 'escape', JSON.stringify(c.problems));
        else if (c.tools.length !== 1 || url !== want) tally.add(docs, input, 'crashed', `${c.tools.length} tools, url ${url}`);
        else if (!want && !c.problems.some((p) => /catalog-only/.test(p.message))) tally.add(docs, input, 'crashed', 'no warning');
        else tally.add(docs, input, 'handled');
      } catch (e) {
        tally.add(docs, input, 'crashed', (e as Error).message);
      }
    }
  } finally {
    await srv.close();
  }
  console.log(tally.summary());
  assert.ok(tally.trials.length >= 40, `${tally.trials.length} trials`);
  assert.deepEqual(tally.failures(), []);
});
