/**
 * Abuse: MCP servers (an `mcp` runner, started as `.vscode/mcp.json` says) that misbehave, and
 * configurations that are broken or hostile. The servers print logs on stdout, send a 100 MB line,
 * never answer, die, ignore SIGTERM, ask GeoWeave for sampling, flood progress, answer with the
 * wrong ids, link /etc/passwd, pollute prototypes; servers on the older HTTP+SSE transport send
 * their messages elsewhere, answer HTML, redirect, close the stream, flood it or never answer. Handled means a clear error that names the tool
 * and the server (or a correct result), within the time bound (a stalled call is cancelled, as the
 * analyst would), no server process left running, and nothing left in the output folder.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as path from 'path';
import { Tally } from './tally';
import { tmpDir } from './state-support';
import { runMcpTool, serverCatalogFile } from '../../src/core/notebook/mcp-runner';
import { readMcpConfig, resolveLaunch } from '../../src/core/notebook/mcp-config';
import type { ToolManifest } from '../../src/core/manifests/types';
import type { ToolRunResult } from '../../src/core/raster/types';

const CANCEL_MS = 1500;
const BOUND_MS = 20_000;

/** A raw JSON-RPC server (no SDK) that misbehaves as MODE says; it writes its pid to PIDS. */
const SERVER = `
const fs = require('fs');
const mode = process.env.MODE;
fs.appendFileSync(process.env.PIDS, process.pid + '\\n');
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\\n');
if (mode === 'exit-now') { process.stderr.write('boom: cannot open the tile cache\\n'); process.exit(1); }
if (mode === 'ignore-term') process.on('SIGTERM', () => {});
let buf = '';
process.stdin.on('data', (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\\n')) >= 0) {
    const line = buf.slice(0, i); buf = buf.slice(i + 1);
    if (!line.trim()) continue;
    const m = JSON.parse(line);
    if (m.method === 'initialize') {
      if (mode === 'silent-init') continue;
      if (mode === 'stdout-noise') process.stdout.write('INFO loading model weights...\\n');
      send({ id: m.id, result: { protocolVersion: '2025-03-26', capabilities: { tools: {} }, serverInfo: { name: mode } } });
      continue;
    }
    if (m.id === undefined) continue;
    if (m.method !== 'tools/call') { send({ id: m.id, result: {} }); continue; }
    const args = m.params.arguments;
    const ok = (extra = {}) => send({ id: m.id, result: { content: [{ type: 'text', text: 'done' }], ...extra } });
    switch (mode) {
      case 'stdout-noise': process.stdout.write('WARN tile 3 is empty\\n'); ok({ structuredContent: { mean: 0.5 } }); break;
      case 'huge-line': process.stdout.write('{"jsonrpc":"2.0","id":' + m.id + ',"result":{"content":[{"type":"text","text":"' + 'x'.repeat(100 << 20) + '"}]}}\\n'); break;
      case 'no-content': send({ id: m.id, result: {} }); break;
      case 'sampling': send({ id: 900, method: 'sampling/createMessage', params: { messages: [] } }); send({ id: 901, method: 'elicitation/create', params: {} }); setTimeout(() => ok({ structuredContent: { mean: 1 } }), 200); break;
      case 'ignore-term': case 'silent-call': break;
      case 'bad-json': process.stdout.write('{not json\\n{"also": \\n'); break;
      case 'error-reply': send({ id: m.id, error: { code: -32602, message: 'Invalid params: band must be <= 4' } }); break;
      case 'is-error-huge': send({ id: m.id, result: { isError: true, content: [{ type: 'text', text: 'tile failed: ' + 'y'.repeat(1 << 20) }] } }); break;
      case 'links': ok({ content: [{ type: 'resource_link', uri: 'file:///etc/passwd', name: 'passwd' }, { type: 'resource_link', uri: 'file://' + process.env.OLD, name: 'old' }, { type: 'resource_link', uri: 'https://example.org/x.tif', name: 'remote' }, { type: 'resource_link', uri: 'file:///%zz', name: 'bad' }], structuredContent: { path: '/etc/shadow', other: 'file:///dev/zero' } }); break;
      case 'progress-flood': for (let k = 0; k < 20000; k++) send({ method: 'notifications/progress', params: { progressToken: k % 2 ? 'nobody' : m.params._meta.progressToken, progress: 1e308, total: k % 3 ? 0 : -1 } }); ok(); break;
      case 'wrong-id': send({ id: String(m.id), result: { content: [] } }); send({ id: m.id + 1000, result: { content: [] } }); break;
      case 'proto': process.stdout.write('{"jsonrpc":"2.0","id":' + m.id + ',"result":{"content":[{"type":"text","text":"ok"}],"structuredContent":{"__proto__":{"polluted":1},"mean":2}}}\\n'); break;
      case 'bad-utf8': process.stdout.write(Buffer.concat([Buffer.from('{"jsonrpc":"2.0","id":' + m.id + ',"result":{"content":[{"type":"text","text":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}]}}\\n')])); break;
      case 'write-then-hang': fs.writeFileSync(args.output_path, 'partial tiff'); break;
      case 'image-garbage': ok({ content: [{ type: 'image', mimeType: 'image/png', data: '!!!not base64' }, { type: 'image', mimeType: 'image/svg+xml', data: 'PHN2Zz4=' }] }); break;
      default: ok();
    }
  }
});
`;

/**
 * Hostile servers on the older HTTP+SSE transport, one per path (GET /sse-<mode>); a second server
 * on another port (another origin) counts the requests that reach it. `open` counts the streams
 * still open, which must fall to 0 (every session GeoWeave opened, it closed).
 */
async function sseServers(): Promise<{ port: number; stolen: () => number; open: () => number; close: () => void }> {
  let stolen = 0;
  const thief = http.createServer((req, res) => { stolen++; res.end(); });
  await new Promise<void>((r) => thief.listen(0, '127.0.0.1', r));
  const thiefPort = (thief.address() as AddressInfo).port;
  const streams = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const mode = /^\/sse-([a-z-]+)/.exec(req.url ?? '')?.[1];
    if (req.method === 'POST') {
      // Messages are taken and never answered (the silent modes), except initialize for 'silent-call'.
      let body = '';
      req.on('data', (d) => { body += d; });
      req.on('end', () => {
        res.writeHead(202).end();
        const m = JSON.parse(body || '{}');
        const stream = [...streams].find((s) => (s as unknown as { mode: string }).mode === mode);
        if (mode === 'silent-call' && m.method === 'initialize' && stream) stream.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2024-11-05', capabilities: {} } })}\n\n`);
      });
      return;
    }
    if (mode === 'html') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>login</html>');
    if (mode === 'redirect') return void res.writeHead(302, { location: `http://127.0.0.1:${thiefPort}/sse` }).end();
    if (mode === 'error') return void res.writeHead(500, { 'content-type': 'text/plain' }).end('upstream tile service down');
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    (res as unknown as { mode: string }).mode = mode ?? '';
    streams.add(res);
    res.on('close', () => streams.delete(res));
    const endpoint = (to: string) => res.write(`event: endpoint\ndata: ${to}\n\n`);
    if (mode === 'elsewhere') endpoint(`http://127.0.0.1:${thiefPort}/messages?sessionId=1`);
    else if (mode === 'bad-endpoint') endpoint('http://[::1');
    else if (mode === 'closes') { endpoint(`/messages/sse-${mode}`); res.end(); }
    else if (mode === 'huge') {
      endpoint(`/messages/sse-${mode}`);
      res.write('event: message\n');
      const line = `data: ${'x'.repeat(1 << 20)}\n`;
      let n = 0;
      const more = () => { while (n < 100 && !res.destroyed) { n++; if (!res.write(line)) return void res.once('drain', more); } };
      more();
    } else if (mode !== 'no-endpoint') endpoint(`/messages/sse-${mode}`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    stolen: () => stolen,
    open: () => streams.size,
    close: () => { for (const s of streams) s.destroy(); server.close(); thief.close(); },
  };
}

const MODES = ['stdout-noise', 'huge-line', 'silent-init', 'no-content', 'sampling', 'exit-now', 'ignore-term', 'silent-call', 'bad-json', 'error-reply', 'is-error-huge', 'links', 'progress-flood', 'wrong-id', 'proto', 'bad-utf8', 'write-then-hang', 'image-garbage'];

test('misbehaving MCP servers and broken configurations: bounded, clear, no process or file left', { timeout: 300_000 }, async () => {
  const tally = new Tally();
  const root = tmpDir();
  const script = path.join(root, 'server.js');
  fs.writeFileSync(script, SERVER);
  const pids = path.join(root, 'pids.txt');
  const old = path.join(root, 'old.tif');
  fs.writeFileSync(old, 'II*\0');
  fs.utimesSync(old, new Date('2020-01-01'), new Date('2020-01-01'));
  const sse = await sseServers();
  const servers: Record<string, unknown> = {};
  for (const mode of ['elsewhere', 'bad-endpoint', 'closes', 'huge', 'no-endpoint', 'silent-call', 'html', 'redirect', 'error']) {
    servers[`sse-${mode}`] = { type: 'sse', url: `http://127.0.0.1:${sse.port}/sse-${mode}`, headers: { Authorization: 'Bearer k-7731' } };
  }
  for (const mode of MODES) servers[mode] = { command: process.execPath, args: [script], env: { MODE: mode, PIDS: pids, OLD: old } };
  servers.missing = { command: 'no-such-mcp-server-binary' };
  servers.remote = { type: 'websocket', url: 'ws://127.0.0.1:9/' };
  servers.needs = { command: process.execPath, args: [script], env: { MODE: 'default', PIDS: pids, TOKEN: '${input:token}' } };
  servers.unknownvar = { command: process.execPath, args: ['${config:python.path}'] };
  servers.badenv = { command: process.execPath, args: [script], env: { A: { nested: true } } };
  servers.badargs = { command: process.execPath, args: 'server.js' };
  servers.nocwd = { command: process.execPath, args: [script], cwd: '${workspaceFolder}/no/such/folder' };
  fs.mkdirSync(path.join(root, '.vscode'));
  fs.writeFileSync(path.join(root, '.vscode', 'mcp.json'), JSON.stringify({ servers }));
  const tool = (server: string): ToolManifest => ({
    id: `t_${server.replace(/-/g, '_')}`, description: 'a tool',
    inputs: [{ name: 'band', type: 'number' }, { name: 'output_path', type: 'string', description: 'where to write the GeoTIFF' }],
    runner: { type: 'mcp', server, tool: 't' },
  });
  const alive = (pid: number) => { try { process.kill(pid, 0); return true; } catch { return false; } };
  const trial = async (area: string, input: string, m: ToolManifest, mentions: string[], opts: { cancel?: boolean; result?: (r: ToolRunResult) => string | undefined } = {}) => {
    const out = path.join(root, `out-${tally.trials.length}`);
    const before = fs.existsSync(pids) ? fs.readFileSync(pids, 'utf8').trim().split('\n').filter(Boolean).length : 0;
    const stop = new AbortController();
    const timer = opts.cancel ? setTimeout(() => stop.abort(), CANCEL_MS) : undefined;
    const t0 = Date.now();
    let message = '';
    let result: ToolRunResult | undefined;
    try {
      await Promise.race([
        runMcpTool(m, { band: 2 }, { outDir: out, cwd: root, signal: stop.signal }).then((r) => { result = r; }),
        new Promise((_, reject) => setTimeout(() => reject(new Error('HANG')), BOUND_MS)),
      ]);
    } catch (e) {
      message = (e as Error).message;
    } finally {
      clearTimeout(timer);
    }
    // Every server this trial started must be gone (a cancelled one within the SIGKILL grace).
    const started = fs.existsSync(pids) ? fs.readFileSync(pids, 'utf8').trim().split('\n').filter(Boolean).slice(before).map(Number) : [];
    for (let i = 0; i < 40 && started.some(alive); i++) await new Promise((r) => setTimeout(r, 100));
    const running = started.filter(alive);
    const left = (fs.existsSync(out) ? fs.readdirSync(out) : []).filter((f) => !(result && Object.values(result.outputs).some((o) => path.basename(o.path) === f)));
    const ms = Date.now() - t0;
    if (message === 'HANG') tally.add(area, input, 'hang', `${ms} ms`);
    else if (running.length) tally.add(area, input, 'partial', `server ${running.join(', ')} still runs`);
    else if (({} as Record<string, unknown>).polluted !== undefined) tally.add(area, input, 'escape', 'Object.prototype polluted');
    else if (result) {
      const why = opts.result ? opts.result(result) : 'it gave a result';
      if (why) tally.add(area, input, 'crashed', why);
      else if (left.length) tally.add(area, input, 'partial', left.join(', '));
      else tally.add(area, input, 'handled');
    } else if (left.length) tally.add(area, input, 'partial', left.join(', '));
    else if (!message.startsWith(`${m.id}:`) || !mentions.every((w) => message.includes(w)) || message.length > 2000) tally.add(area, input, 'crashed', `${message.slice(0, 300)} (wanted ${mentions.join(', ')})`);
    else tally.add(area, input, 'handled');
  };
  const servers1 = 'misbehaving MCP server';
  const fine = (r: ToolRunResult) => (Object.keys(r.outputs).length ? `unexpected outputs ${Object.keys(r.outputs)}` : undefined);
  await trial(servers1, 'logs printed on stdout', tool('stdout-noise'), [], { result: (r) => (r.stats.mean === 0.5 ? fine(r) : `stats ${JSON.stringify(r.stats)}`) });
  await trial(servers1, 'a 100 MB message', tool('huge-line'), ['"huge-line"', 'larger than 64 MB']);
  await trial(servers1, 'no answer to initialize (cancelled)', tool('silent-init'), ['cancelled'], { cancel: true });
  await trial(servers1, 'a call answered without content', tool('no-content'), ['"no-content"', 'without content']);
  await trial(servers1, 'sampling and elicitation requests to GeoWeave', tool('sampling'), [], { result: (r) => (r.stats.mean === 1 ? fine(r) : `stats ${JSON.stringify(r.stats)}`) });
  await trial(servers1, 'a server that exits at start', tool('exit-now'), ['"exit-now"', 'exited with code 1', 'boom: cannot open the tile cache']);
  await trial(servers1, 'a call that never ends, SIGTERM ignored (cancelled)', tool('ignore-term'), ['cancelled'], { cancel: true });
  await trial(servers1, 'a call that never ends (cancelled)', tool('silent-call'), ['cancelled'], { cancel: true });
  await trial(servers1, 'broken JSON lines, then silence (cancelled)', tool('bad-json'), ['cancelled'], { cancel: true });
  await trial(servers1, 'a JSON-RPC error', tool('error-reply'), ['"error-reply" refused', 'Invalid params: band must be <= 4', 'code -32602']);
  await trial(servers1, 'a 1 MB error text', tool('is-error-huge'), ['is-error-huge/t reported an error', 'tile failed']);
  await trial(servers1, 'links to /etc/passwd, a file older than the call, a remote and a broken URI; paths to /etc/shadow and /dev/zero', tool('links'), [], { result: fine });
  await trial(servers1, '20000 progress notifications with bogus tokens and values', tool('progress-flood'), [], { result: fine });
  await trial(servers1, 'answers with the wrong ids (cancelled)', tool('wrong-id'), ['cancelled'], { cancel: true });
  await trial(servers1, 'a __proto__ key in the structured answer', tool('proto'), [], { result: (r) => (r.stats.mean === 2 && !Object.prototype.hasOwnProperty.call(Object.getPrototypeOf(r.stats), 'polluted') ? fine(r) : `stats ${JSON.stringify(r.stats)}`) });
  await trial(servers1, 'invalid UTF-8 in a text', tool('bad-utf8'), [], { result: fine });
  await trial(servers1, 'a half-written output, then no answer (cancelled)', tool('write-then-hang'), ['cancelled'], { cancel: true });
  await trial(servers1, 'an image that is not base64, an SVG image', tool('image-garbage'), [], { result: (r) => (r.quicklook ? `kept ${r.quicklook}` : undefined) });

  const legacy = 'MCP server on the older HTTP+SSE transport';
  await trial(legacy, 'its messages sent to another address', tool('sse-elsewhere'), ['"sse-elsewhere" named http://127.0.0.1:', 'not its own address']);
  await trial(legacy, 'an endpoint that is not an address', tool('sse-bad-endpoint'), ['"sse-bad-endpoint" named "http://[::1"']);
  await trial(legacy, 'the stream closed at once', tool('sse-closes'), ['"sse-closes" closed its event stream']);
  await trial(legacy, 'a 100 MB event', tool('sse-huge'), ['"sse-huge" sent a message larger than 64 MB']);
  await trial(legacy, 'no endpoint event', tool('sse-no-endpoint'), ['"sse-no-endpoint" named no endpoint for its messages within 10 s', 'HTTP+SSE transport']);
  await trial(legacy, 'a call never answered (cancelled)', tool('sse-silent-call'), ['cancelled'], { cancel: true });
  await trial(legacy, 'an HTML login page instead of a stream', tool('sse-html'), ['"sse-html" answered with text/html, not an event stream', '/sse']);
  await trial(legacy, 'a redirect to another address', tool('sse-redirect'), ['cannot reach the MCP server "sse-redirect"']);
  await trial(legacy, 'a 500 when the stream is opened', tool('sse-error'), ['"sse-error" answered 500', 'upstream tile service down']);
  for (let i = 0; i < 30 && sse.open(); i++) await new Promise((r) => setTimeout(r, 100));
  tally.add(legacy, 'streams left open, requests to the other address', sse.open() || sse.stolen() ? 'partial' : 'handled', `${sse.open()} open, ${sse.stolen()} stolen`);
  sse.close();

  const cfg = 'MCP configuration';
  await trial(cfg, 'a command that does not exist', tool('missing'), ['"missing"', 'was not found', 'no-such-mcp-server-binary']);
  await trial(cfg, 'a transport GeoWeave does not speak (websocket)', tool('remote'), ['server "remote"', '"type": "websocket", which GeoWeave does not speak']);
  await trial(cfg, 'an ${input:...} nobody gives', tool('needs'), ['${input:token}', 'GEOWEAVE_MCP_INPUT_TOKEN']);
  await trial(cfg, 'a variable VS Code fills but GeoWeave does not', tool('unknownvar'), ['${config:python.path}', 'does not fill in']);
  await trial(cfg, 'an env value that is an object', tool('badenv'), ['"env"."A" must be a string']);
  await trial(cfg, 'args that is a string', tool('badargs'), ['"args" must be a list of strings']);
  await trial(cfg, 'a cwd that does not exist', tool('nocwd'), ['"cwd"', 'does not exist']);
  await trial(cfg, 'a server no configuration names', tool('nowhere'), ['no MCP server "nowhere"', 'it configures']);
  await trial(cfg, 'a server named __proto__', tool('__proto__'), ['no MCP server "__proto__"']);
  // Files that are not configurations: named with why, never thrown.
  const broken = tmpDir();
  fs.mkdirSync(path.join(broken, '.vscode'));
  for (const [input, text, wants] of [
    ['a configuration that is not JSON', '{"servers": {', 'cannot read it'],
    ['a configuration without servers', '{"inputs": []}', 'has no "servers"'],
    ['a configuration that is a list', '[1, 2]', 'has no "servers"'],
  ] as const) {
    fs.writeFileSync(path.join(broken, '.vscode', 'mcp.json'), text);
    const c = readMcpConfig(broken);
    const ok = c.servers.size === 0 && c.problems.length === 1 && c.problems[0].includes(wants) && c.problems[0].includes('mcp.json');
    let msg = '';
    try { await resolveLaunch(c, 'eo', broken); } catch (e) { msg = (e as Error).message; }
    tally.add(cfg, input, ok && msg.includes(wants) ? 'handled' : 'crashed', `${c.problems.join('; ')} / ${msg}`);
  }
  // A server name cannot lead the catalog file out of .geoweave/tools.
  const file = serverCatalogFile(root, '../../etc/x');
  tally.add(cfg, 'a server named ../../etc/x', path.dirname(file) === path.join(root, '.geoweave', 'tools') ? 'handled' : 'escape', file);

  console.log(tally.summary());
  assert.deepEqual(tally.failures(), []);
});
