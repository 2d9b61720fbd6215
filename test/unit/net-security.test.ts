import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { redactText, redactUrl } from '../../src/core/net/redact';
import { effectiveEndpoint, endpointKey, keyDecision } from '../../src/core/net/endpoint-trust';
import { boundedFetch } from '../../src/core/net/bounded-fetch';
import { OpenAIEmbedder } from '../../src/core/embed/openai';
import { LlmClient } from '../../src/core/llm/client';
import { repoRoot } from '../fixtures/helpers';

const KEY = 'sk-live-abcdefghijklmnop';
let server: http.Server;
let base: string;
const auth: (string | undefined)[] = [];

before(async () => {
  server = http.createServer((req, res) => {
    auth.push(req.headers.authorization);
    req.resume();
    req.on('end', () => {
      if (req.url?.startsWith('/echo')) {
        // A hostile or careless server quoting the credentials back.
        res.writeHead(500, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ error: { message: `bad request from ${req.headers.authorization}` } }));
      }
      if (req.url?.startsWith('/huge')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(1 << 20, 32);
        let n = 0;
        const pump = () => { while (n < 100 && res.write(chunk)) n++; if (n < 100) res.once('drain', pump); else res.end('{}'); };
        return pump();
      }
      if (req.url?.startsWith('/nan')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end('{"object":"list","data":[{"index":0,"embedding":[1,"x",3]}]}');
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: [{ object: 'embedding', index: 0, embedding: [1, 0, 0] }], model: 'm' }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => new Promise<void>((r) => server.close(() => r())));

test('URLs and text lose credentials, signatures, bearer tokens and key-shaped strings', () => {
  assert.equal(redactUrl('https://alice:pw@example.com/v1?sig=abc&x=1'), 'https://example.com/v1?sig=[redacted]&x=1');
  const t = redactText(`GET https://bob:hunter2@h.example/cog.tif?X-Amz-Signature=deadbeef&X-Amz-Credential=AKIA/x failed; Authorization: Bearer ${KEY}; api_key=zzzzzzzzzz; key ${KEY}`, ['hunter2']);
  for (const secret of ['hunter2', 'deadbeef', 'AKIA', KEY, 'zzzzzzzzzz']) assert.ok(!t.includes(secret), `${secret} in ${t}`);
  assert.match(t, /https:\/\/\[redacted\]@h\.example\/cog\.tif\?X-Amz-Signature=\[redacted\]/);
});

test('the key goes to the default or a user-set endpoint, to a workspace-set one only once confirmed', () => {
  const def = 'https://api.openai.com/v1';
  assert.deepEqual(keyDecision({ defaultValue: def }, []), { url: def, decision: 'send' });
  assert.deepEqual(keyDecision({ defaultValue: def, globalValue: 'http://127.0.0.1:8080/v1' }, []), { url: 'http://127.0.0.1:8080/v1', decision: 'send' });
  const planted = { defaultValue: def, workspaceValue: 'https://collector.example/v1' };
  assert.equal(effectiveEndpoint(planted).source, 'workspace');
  assert.equal(keyDecision(planted, []).decision, 'ask');
  assert.equal(keyDecision(planted, [endpointKey('https://COLLECTOR.example/v1/')]).decision, 'send');
  assert.equal(keyDecision({ ...planted, workspaceFolderValue: 'https://other.example/v1' }, [endpointKey('https://collector.example/v1')]).decision, 'ask', 'the folder value wins and is not confirmed');
  // A workspace that repeats the user's own endpoint changes nothing.
  assert.equal(keyDecision({ defaultValue: def, globalValue: 'https://mine.example/v1', workspaceValue: 'https://mine.example/v1/' }, []).decision, 'send');
  assert.equal(keyDecision({ defaultValue: def, workspaceValue: 'file:///etc/passwd' }, []).decision, 'never');
});

test('every setting that names a server, a folder, a file or a model is restricted in untrusted workspaces', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
  const restricted = new Set<string>(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations);
  const props = Object.keys(pkg.contributes.configuration.properties);
  const naming = props.filter((k) => /(baseURL|Folder|Folders|File|transformers\.model|allowDownload|\.embedder)$/.test(k));
  assert.ok(naming.length >= 8, naming.join(', '));
  for (const k of naming) assert.ok(restricted.has(k), `${k} is not in restrictedConfigurations`);
  for (const k of restricted) assert.ok(props.includes(k), `${k} is not a setting`);
});

test('an embedder told to send no key sends none, even with OPENAI_API_KEY set', async () => {
  const saved = process.env.OPENAI_API_KEY;
  process.env.OPENAI_API_KEY = KEY;
  try {
    auth.length = 0;
    const e = await OpenAIEmbedder.connect({ kind: 'openai', baseURL: `${base}/v1`, model: 'm', apiKey: '' }, { maxRetries: 0 });
    await e.embed(['x']);
    assert.ok(auth.length >= 1);
    assert.ok(auth.every((a) => a === undefined), `sent ${auth.join(', ')}`);
    // Undefined still means "use the environment" (the CLI).
    auth.length = 0;
    await (await OpenAIEmbedder.connect({ kind: 'openai', baseURL: `${base}/v1`, model: 'm' }, { maxRetries: 0 })).embed(['x']);
    assert.equal(auth[0], `Bearer ${KEY}`);
  } finally {
    if (saved === undefined) delete process.env.OPENAI_API_KEY;
    else process.env.OPENAI_API_KEY = saved;
  }
});

test('embedder errors never show user:password@ or the key, even when the server echoes it', async () => {
  await assert.rejects(OpenAIEmbedder.connect({ kind: 'openai', baseURL: `http://u:pa55word@127.0.0.1:1/v1`, model: 'm', apiKey: KEY }, { maxRetries: 0 }),
    (e: Error) => /must not hold credentials/.test(e.message) && !e.message.includes('pa55word'));
  await assert.rejects(OpenAIEmbedder.connect({ kind: 'openai', baseURL: `${base}/echo`, model: 'm', apiKey: KEY }, { maxRetries: 0 }),
    (e: Error) => /HTTP 500/.test(e.message) && !e.message.includes(KEY) && !e.message.includes('abcdefghijklmnop'));
  await assert.rejects(OpenAIEmbedder.connect({ kind: 'openai', baseURL: `${base}/nan`, model: 'm', apiKey: KEY }, { maxRetries: 0 }),
    /not finite numbers/);
});

test('an endless answer is cut off instead of filling memory', async () => {
  const f = boundedFetch(4 << 20);
  const res = await f(`${base}/huge`);
  await assert.rejects(res.arrayBuffer(), /more than the 4194304 bytes accepted/);
  const llm = new LlmClient({ baseURL: `${base}/huge`, model: 'm', apiKey: KEY, timeoutMs: 20_000 });
  await assert.rejects(llm.chat([{ role: 'user', content: 'hi' }]), (e: Error) => !e.message.includes(KEY));
});
