import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { OpenAIEmbedder } from '../../src/core/embed/openai';
import { createEmbedder } from '../../src/core/embed/factory';

const KEY = 'sk-test-key-123';
const DIM = 6;

interface Seen {
  auth?: string;
  body: { model: string; input: string[]; encoding_format?: string; dimensions?: number };
}

const seen: Seen[] = [];
let server: http.Server;
let baseURL: string;

/** Deterministic fake embedding: character-code histogram folded into `dim` slots, NOT normalised. */
function fakeVector(text: string, dim: number): number[] {
  const v = new Array<number>(dim).fill(0.5);
  for (const ch of text) v[ch.codePointAt(0)! % dim] += 1;
  return v;
}

function expected(text: string, dim: number): number[] {
  const v = fakeVector(text, dim);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

before(async () => {
  server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const send = (status: number, body: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') return send(404, { error: { message: 'no route' } });
      const body = JSON.parse(raw) as Seen['body'];
      seen.push({ auth: req.headers.authorization, body });
      if (req.headers.authorization !== `Bearer ${KEY}`) {
        return send(401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } });
      }
      if (body.model === 'missing-model') return send(404, { error: { message: 'model not found' } });
      if (body.model === 'broken') return send(500, { error: { message: 'boom' } });
      const dim = body.dimensions ?? DIM;
      const inputs = Array.isArray(body.input) ? body.input : [body.input];
      // answer in reverse order: clients must sort by index
      const data = inputs
        .map((t, index) => ({ object: 'embedding', index, embedding: fakeVector(t, dim) }))
        .reverse();
      send(200, { object: 'list', data, model: body.model, usage: { prompt_tokens: 1, total_tokens: 1 } });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

after(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});

test('sends model, input and encoding_format float; returns the server vectors normalised, in order', async () => {
  seen.length = 0;
  const e = await OpenAIEmbedder.connect({ kind: 'openai', baseURL, model: 'stub-embed', apiKey: KEY }, { batchSize: 2 });
  assert.equal(e.id, 'openai:stub-embed');
  assert.equal(e.dimension, DIM, 'dimension discovered from the probe response');
  const texts = ['NDVI of fields', 'slope from DEM', '洪水', ''];
  const vecs = await e.embed(texts);
  assert.equal(vecs.length, 4);
  vecs.forEach((v, i) => {
    const want = expected(texts[i] || ' ', DIM);
    assert.equal(v.length, DIM);
    for (let j = 0; j < DIM; j++) assert.ok(Math.abs(v[j] - want[j]) < 1e-6, `text ${i} slot ${j}`);
  });
  // probe + two batches of two
  assert.equal(seen.length, 3);
  for (const s of seen) {
    assert.equal(s.auth, `Bearer ${KEY}`);
    assert.equal(s.body.model, 'stub-embed');
    assert.equal(s.body.encoding_format, 'float');
    assert.equal(s.body.dimensions, undefined);
  }
  assert.deepEqual(seen[1].body.input, ['NDVI of fields', 'slope from DEM']);
  assert.deepEqual(seen[2].body.input, ['洪水', ' ']);
});

test('passes dimensions, reads the key from OPENAI_API_KEY, and works through the factory', async () => {
  seen.length = 0;
  const old = process.env.OPENAI_API_KEY;
  process.env.OPENAI_API_KEY = KEY;
  try {
    const e = await createEmbedder({ kind: 'openai', baseURL, model: 'stub-embed', dimensions: 4 });
    assert.equal(e.id, 'openai:stub-embed@4');
    assert.equal(e.dimension, 4);
    const [v] = await e.embed(['water']);
    assert.deepEqual(Array.from(v).map((x) => +x.toFixed(6)), expected('water', 4).map((x) => +x.toFixed(6)));
    assert.ok(seen.every((s) => s.body.dimensions === 4 && s.auth === `Bearer ${KEY}`));
  } finally {
    if (old === undefined) delete process.env.OPENAI_API_KEY;
    else process.env.OPENAI_API_KEY = old;
  }
});

test('a rejected key becomes a clear message that does not leak the key', async () => {
  const wrong = 'sk-wrong-secret-999';
  await assert.rejects(
    OpenAIEmbedder.connect({ kind: 'openai', baseURL, model: 'stub-embed', apiKey: wrong }, { maxRetries: 0 }),
    (err: Error) => {
      assert.equal(err.message.includes(wrong), false);
      assert.match(err.message, new RegExp(`the embeddings server at ${baseURL.replace(/[.]/g, '\\.')} rejected the API key`));
      return true;
    },
  );
});

test('404, 500 and unreachable servers map to clear messages', async () => {
  await assert.rejects(
    OpenAIEmbedder.connect({ kind: 'openai', baseURL, model: 'missing-model', apiKey: KEY }, { maxRetries: 0 }),
    /no embeddings endpoint or no model "missing-model" \(HTTP 404\)/,
  );
  await assert.rejects(
    OpenAIEmbedder.connect({ kind: 'openai', baseURL, model: 'broken', apiKey: KEY }, { maxRetries: 0 }),
    /answered HTTP 500: boom/,
  );
  // a port nobody listens on: bind then close to get one
  const tmp = http.createServer();
  await new Promise<void>((r) => tmp.listen(0, '127.0.0.1', () => r()));
  const port = (tmp.address() as AddressInfo).port;
  await new Promise<void>((r) => tmp.close(() => r()));
  await assert.rejects(
    OpenAIEmbedder.connect({ kind: 'openai', baseURL: `http://127.0.0.1:${port}/v1`, model: 'm', apiKey: KEY }, { maxRetries: 0 }),
    /cannot reach the embeddings server at http:\/\/127\.0\.0\.1:\d+\/v1/,
  );
});

test('without a probe the dimension comes from the first response; abort stops before sending', async () => {
  const e = await OpenAIEmbedder.connect({ kind: 'openai', baseURL, model: 'stub-embed', apiKey: KEY }, { probe: false });
  assert.equal(e.dimension, 0);
  seen.length = 0;
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(e.embed(['x'], ac.signal));
  assert.equal(seen.length, 0);
  await e.embed(['x']);
  assert.equal(e.dimension, DIM);
});
