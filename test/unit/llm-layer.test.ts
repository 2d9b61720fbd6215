// The optional LLM layer against a local OpenAI-compatible stub (node:http, 127.0.0.1, random port).
// The stub answers from the request content, so a prompt missing the catalog or the steps yields wrong results.
import { describe, it, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { LlmClient, LlmUnavailable, parseJsonReply } from '../../src/core/llm/client';
import { expandTask, expansionMessages, parseExpansion } from '../../src/core/llm/query-expansion';
import { complementaryQueries, parseComplementary } from '../../src/core/llm/complementary';
import type { MemoryState } from '../../src/core/memory/types';

const KEY = 'sk-test-SECRET-0123456789abcdef';

interface Seen {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
}

const seen: Seen[] = [];
let server: http.Server;
let base = '';

function reply(res: http.ServerResponse, status: number, payload: unknown): void {
  const text = JSON.stringify(payload);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function completion(model: string, content: string) {
  return {
    id: 'chatcmpl-stub', object: 'chat.completion', created: 0, model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

/** Expansion answer derived from the prompt: tools whose catalog line matches a task word, plus bait. */
function expansionAnswer(user: string): object {
  const catalog = [...user.matchAll(/^([a-z0-9_]+): (.+)$/gm)].map((m) => ({ id: m[1], name: m[2] }));
  const task = /Task: """([\s\S]*)"""/.exec(user)?.[1] ?? '';
  const burn = /burn|fire|火烧|火灾/i.test(task);
  const water = /flood|water|洪水|水/i.test(task);
  const ids: string[] = [];
  for (const c of catalog) {
    const line = `${c.id} ${c.name}`.toLowerCase();
    if (burn && /burn|nbr/.test(line)) ids.push(c.id.toUpperCase()); // ids in a different case
    if (water && /water|mndwi/.test(line)) ids.push(c.id);
  }
  const named = catalog.find((c) => /area/i.test(c.name));
  return {
    keywords: burn ? ['burn scar', 'wildfire', 'Burn Scar', ''] : water ? ['flood extent', 'open water'] : [],
    indicators: burn ? 'dNBR, NBR' : water ? ['MNDWI'] : [],
    taskType: burn ? 'Burn' : water ? 'flood' : 'spaceship',
    toolIds: [...ids, 'made_up_tool', 'rm -rf /', ...(named ? [named.name] : [])],
  };
}

/** Complementary answer derived from the last step in the prompt. */
function complementaryAnswer(user: string): object {
  const steps = [...user.matchAll(/^\d+\. ([a-z0-9_]+)\(/gm)].map((m) => m[1]);
  const last = steps[steps.length - 1] ?? 'nothing';
  return {
    queries: [
      { rationale: 'quantify', text: `area in hectares of the ${last} result` },
      { rationale: 'Quantify', text: `  statistics   of ${last} by zone ` },
      { rationale: 'quantify', text: `histogram of ${last}` }, // third quantify: over the cap
      { rationale: 'verify', text: `accuracy of ${last} against reference points` },
      { rationale: 'verify', text: `accuracy of ${last} against reference points` }, // duplicate
      { rationale: 'summarize', text: 'not a rationale' },
      { rationale: 'explain', text: '' },
      { rationale: 'compare', text: 42 },
      { rationale: 'extend', text: `vectorize the ${last} mask`, extra: true },
      'just a string',
    ],
    seenSteps: steps,
  };
}

before(async () => {
  server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      let body: any;
      try {
        body = JSON.parse(raw);
      } catch {
        return reply(res, 400, { error: { message: 'body is not JSON' } });
      }
      seen.push({ path: req.url ?? '', headers: req.headers, body });
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        return reply(res, 404, { error: { message: `no route ${req.url}` } });
      }
      const model: string = body.model;
      const user: string = body.messages?.find((m: any) => m.role === 'user')?.content ?? '';
      const auth = String(req.headers.authorization ?? '');
      switch (model) {
        case 'stub-hang':
          return; // never answers
        case 'stub-401':
          // Like real servers, quote the presented key back.
          return reply(res, 401, { error: { message: `Incorrect API key provided: ${auth.replace('Bearer ', '')}`, type: 'invalid_request_error' } });
        case 'stub-500':
          return reply(res, 500, { error: { message: `internal failure while handling ${auth}` } });
        case 'stub-prose':
          return reply(res, 200, completion(model, 'I think the answer is probably burn severity, good luck!'));
        case 'stub-empty':
          return reply(res, 200, { id: 'x', object: 'chat.completion', created: 0, model, choices: [] });
        case 'stub-wrong-shape':
          return reply(res, 200, completion(model, '{"answer": "ndvi"}'));
        case 'stub-no-json-mode':
          if (body.response_format) return reply(res, 400, { error: { message: "'response_format' of type 'json_object' is not supported" } });
          break;
      }
      const answer = /^Catalog \(id: name\)/.test(user) ? expansionAnswer(user)
        : /Latest steps/.test(user) ? complementaryAnswer(user)
        : { echo: user };
      // Fenced JSON with a reasoning preamble, as small local models often reply.
      const content = model === 'stub-plain' ? JSON.stringify(answer)
        : `<think>the analyst wants ${model}</think>\nHere you go:\n\`\`\`json\n${JSON.stringify(answer, null, 2)}\n\`\`\`\n`;
      reply(res, 200, completion(model, content));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  seen.length = 0;
});

const VOCAB = [
  { id: 'ndvi', name: 'NDVI vegetation index', tags: ['greenness-tag-marker'] },
  { id: 'nbr', name: 'Normalized Burn Ratio' },
  { id: 'dnbr', name: 'Differenced NBR (burn)' },
  { id: 'burn_severity', name: 'Burn severity classes' },
  { id: 'mndwi', name: 'Modified NDWI water index' },
  { id: 'area_by_class', name: 'Area by class' },
];

function assertNoKey(err: unknown): void {
  assert.ok(err instanceof LlmUnavailable, `expected LlmUnavailable, got ${inspect(err)}`);
  for (const text of [err.message, String(err), err.stack ?? '', inspect(err), JSON.stringify(err)]) {
    assert.ok(!text.includes(KEY), `key leaked in: ${text}`);
    assert.ok(!text.includes('SECRET-0123'), `part of the key leaked in: ${text}`);
  }
}

async function rejection(p: Promise<unknown>): Promise<LlmUnavailable> {
  try {
    await p;
  } catch (err) {
    assertNoKey(err);
    return err as LlmUnavailable;
  }
  assert.fail('expected the call to throw LlmUnavailable');
}

function withEnvKey<T>(fn: () => Promise<T>): Promise<T> {
  const prev = process.env.OPENAI_API_KEY;
  process.env.OPENAI_API_KEY = KEY;
  return fn().finally(() => {
    if (prev === undefined) delete process.env.OPENAI_API_KEY;
    else process.env.OPENAI_API_KEY = prev;
  });
}

describe('LlmClient', () => {
  it('sends model, messages, temperature 0, JSON mode and the env key as Bearer; parses fenced JSON', () =>
    withEnvKey(async () => {
      const client = new LlmClient({ baseURL: base, model: 'stub-model' });
      const messages = [{ role: 'system' as const, content: 'sys' }, { role: 'user' as const, content: 'hello there' }];
      const value = await client.chatJson(messages);
      assert.deepEqual(value, { echo: 'hello there' });
      assert.equal(seen.length, 1);
      const req = seen[0];
      assert.equal(req.path, '/v1/chat/completions');
      assert.equal(req.body.model, 'stub-model');
      assert.deepEqual(req.body.messages, messages);
      assert.equal(req.body.temperature, 0);
      assert.deepEqual(req.body.response_format, { type: 'json_object' });
      assert.equal(req.headers.authorization, `Bearer ${KEY}`);
      assert.ok(!inspect(client, { depth: 5 }).includes(KEY), 'inspecting the client must not show the key');
    }));

  it('an explicit apiKey wins over the env; no key at all sends no Authorization header', async () => {
    await withEnvKey(async () => {
      await new LlmClient({ baseURL: base, model: 'stub-plain', apiKey: 'explicit-key' }).chatJson([{ role: 'user', content: 'a' }]);
    });
    assert.equal(seen[0].headers.authorization, 'Bearer explicit-key');
    const prev = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      assert.deepEqual(await new LlmClient({ baseURL: base, model: 'stub-plain' }).chatJson([{ role: 'user', content: 'b' }]), { echo: 'b' });
    } finally {
      if (prev !== undefined) process.env.OPENAI_API_KEY = prev;
    }
    assert.equal(seen[1].headers.authorization, undefined);
  });

  it('times out with LlmUnavailable within timeoutMs when the server hangs', () =>
    withEnvKey(async () => {
      const client = new LlmClient({ baseURL: base, model: 'stub-hang', timeoutMs: 300 });
      const t0 = Date.now();
      const err = await rejection(client.chatJson([{ role: 'user', content: 'x' }]));
      const elapsed = Date.now() - t0;
      assert.equal(err.reason, 'timeout');
      assert.match(err.message, /did not answer within 300 ms/);
      assert.ok(err.message.includes(base), err.message);
      // Not before the timeout; the upper bound only catches a hang (CI machines are loaded).
      assert.ok(elapsed >= 250 && elapsed < 300 + 3000, `took ${elapsed} ms`);
      assert.equal(seen.length, 1, 'no retries');
    }));

  it('401 → auth failure naming the URL, never echoing the key the server quoted back', () =>
    withEnvKey(async () => {
      const err = await rejection(new LlmClient({ baseURL: base, model: 'stub-401' }).chatJson([{ role: 'user', content: 'x' }]));
      assert.equal(err.reason, 'auth');
      assert.equal(err.status, 401);
      assert.equal(err.server, base);
      assert.match(err.message, new RegExp(`^LLM server at ${base.replace(/[.]/g, '\\.')} rejected the credentials \\(HTTP 401\\)`));
      assert.match(err.message, /OPENAI_API_KEY/);
    }));

  it('other HTTP errors keep the server text with the key redacted', () =>
    withEnvKey(async () => {
      const err = await rejection(new LlmClient({ baseURL: base, model: 'stub-500' }).chatJson([{ role: 'user', content: 'x' }]));
      assert.equal(err.reason, 'http');
      assert.equal(err.status, 500);
      assert.match(err.message, /HTTP 500: internal failure while handling Bearer \[redacted\]/);
      assert.equal(seen.length, 1, 'no retries');
      // A key with no recognisable shape is still redacted, by value.
      const odd = 'hunter2hunter2';
      const err2 = await rejection(new LlmClient({ baseURL: base, model: 'stub-500', apiKey: odd }).chat([{ role: 'user', content: 'x' }]));
      assert.ok(!err2.message.includes(odd), err2.message);
      assert.match(err2.message, /Bearer \[redacted\]/);
    }));

  it('a server that is down → network failure naming the URL', () =>
    withEnvKey(async () => {
      const probe = http.createServer();
      await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
      const port = (probe.address() as AddressInfo).port;
      await new Promise<void>((r) => probe.close(() => r()));
      const url = `http://127.0.0.1:${port}/v1`;
      const err = await rejection(new LlmClient({ baseURL: url, model: 'm' }).chat([{ role: 'user', content: 'x' }]));
      assert.equal(err.reason, 'network');
      assert.match(err.message, new RegExp(`Cannot reach LLM server at http://127\\.0\\.0\\.1:${port}/v1 \\(ECONNREFUSED\\)`));
    }));

  it('a wrong path → HTTP 404 with a baseURL hint', () =>
    withEnvKey(async () => {
      const err = await rejection(new LlmClient({ baseURL: base.replace(/\/v1$/, ''), model: 'stub-plain' }).chat([{ role: 'user', content: 'x' }]));
      assert.equal(err.status, 404);
      assert.match(err.message, /check baseURL \(usually ending in \/v1\)/);
    }));

  it('replies without JSON or without content → bad-response', () =>
    withEnvKey(async () => {
      const prose = await rejection(new LlmClient({ baseURL: base, model: 'stub-prose' }).chatJson([{ role: 'user', content: 'x' }]));
      assert.equal(prose.reason, 'bad-response');
      assert.match(prose.message, /did not answer with JSON/);
      const empty = await rejection(new LlmClient({ baseURL: base, model: 'stub-empty' }).chat([{ role: 'user', content: 'x' }]));
      assert.equal(empty.reason, 'bad-response');
      assert.match(empty.message, /returned no message content/);
    }));

  it('falls back to prompt-only JSON when the server rejects response_format, and remembers it', () =>
    withEnvKey(async () => {
      const client = new LlmClient({ baseURL: base, model: 'stub-no-json-mode' });
      assert.deepEqual(await client.chatJson([{ role: 'user', content: 'one' }]), { echo: 'one' });
      assert.deepEqual(await client.chatJson([{ role: 'user', content: 'two' }]), { echo: 'two' });
      assert.deepEqual(seen.map((s) => s.body.response_format !== undefined), [true, false, false]);
    }));

  it('a caller abort → LlmUnavailable "aborted" well before the timeout', () =>
    withEnvKey(async () => {
      const client = new LlmClient({ baseURL: base, model: 'stub-hang', timeoutMs: 5000 });
      const ctrl = new AbortController();
      setTimeout(() => ctrl.abort(), 50);
      const t0 = Date.now();
      const err = await rejection(client.chatJson([{ role: 'user', content: 'x' }], { signal: ctrl.signal }));
      assert.equal(err.reason, 'aborted');
      assert.ok(Date.now() - t0 < 1000);
      const pre = await rejection(client.chat([{ role: 'user', content: 'x' }], { signal: AbortSignal.abort() }));
      assert.equal(pre.reason, 'aborted');
    }));

  it('rejects bad config with LlmUnavailable "config" and no credentials in the message', () => {
    assert.throws(() => new LlmClient({ baseURL: 'localhost:8080', model: 'm' }), (e: unknown) =>
      e instanceof LlmUnavailable && e.reason === 'config' && /baseURL "localhost:8080" is not an http\(s\) URL/.test(e.message));
    assert.throws(() => new LlmClient({ baseURL: base, model: ' ' }), /model is empty/);
    assert.throws(() => new LlmClient({ baseURL: base, model: 'm', timeoutMs: 0 }), /timeoutMs must be a positive number/);
    assert.throws(() => new LlmClient({ baseURL: `http://user:${KEY}@127.0.0.1:1/v1`, model: 'm' }), (e: unknown) => {
      assertNoKey(e);
      return /must not embed credentials/.test((e as Error).message);
    });
  });
});

describe('parseJsonReply', () => {
  it('reads plain, fenced, think-prefixed and prose-wrapped JSON', () => {
    assert.deepEqual(parseJsonReply('{"a":1}'), { a: 1 });
    assert.deepEqual(parseJsonReply('```json\n{"a": [1, 2]}\n```'), { a: [1, 2] });
    assert.deepEqual(parseJsonReply('```\n[1,2]\n```'), [1, 2]);
    assert.deepEqual(parseJsonReply('<think>{"no": true}</think>\n{"yes": true}'), { yes: true });
    assert.deepEqual(parseJsonReply('Sure! Here it is: {"k": "v"} Hope that helps.'), { k: 'v' });
    assert.equal(parseJsonReply('no json here'), undefined);
    assert.equal(parseJsonReply('{"broken": '), undefined);
  });
});

describe('expandTask', () => {
  it('sends a compact prompt (ids + names, no tags) and returns validated terms and known tool ids', () =>
    withEnvKey(async () => {
      const client = new LlmClient({ baseURL: base, model: 'stub-model' });
      const out = await expandTask(client, '这片森林火烧后有多严重？', VOCAB);
      const user = seen[0].body.messages[1].content as string;
      assert.match(user, /^Catalog \(id: name\):\nndvi: NDVI vegetation index\nnbr: Normalized Burn Ratio\n/);
      assert.ok(!user.includes('greenness-tag-marker'), 'tags stay out of the prompt');
      assert.ok(user.endsWith('Task: """这片森林火烧后有多严重？"""'));
      assert.deepEqual(out, {
        keywords: ['burn scar', 'wildfire'],
        indicators: ['dNBR', 'NBR'],
        toolHints: ['nbr', 'dnbr', 'burn_severity', 'area_by_class'],
        taskType: 'burn',
      });
    }));

  it('drops ids outside the given vocabulary (the model only sees what it is given)', () =>
    withEnvKey(async () => {
      const client = new LlmClient({ baseURL: base, model: 'stub-plain' });
      const out = await expandTask(client, 'map the flood water', VOCAB.filter((v) => v.id !== 'area_by_class'));
      assert.deepEqual(out.toolHints, ['mndwi']);
      assert.equal(out.taskType, 'flood');
      assert.deepEqual(out.keywords, ['flood extent', 'open water']);
    }));

  it('unknown task types are left out; empty task makes no request', () =>
    withEnvKey(async () => {
      const client = new LlmClient({ baseURL: base, model: 'stub-model' });
      const out = await expandTask(client, 'something unrelated', VOCAB);
      assert.equal(out.taskType, undefined);
      assert.deepEqual(out.toolHints, ['area_by_class']);
      assert.deepEqual(await expandTask(client, '   ', VOCAB), { keywords: [], indicators: [], toolHints: [] });
      assert.equal(seen.length, 1);
    }));

  it('a reply without the expected fields, a hang or a 401 → LlmUnavailable', () =>
    withEnvKey(async () => {
      const shape = await rejection(expandTask(new LlmClient({ baseURL: base, model: 'stub-wrong-shape' }), 'burn', VOCAB));
      assert.equal(shape.reason, 'bad-response');
      const hang = await rejection(expandTask(new LlmClient({ baseURL: base, model: 'stub-hang', timeoutMs: 200 }), 'burn', VOCAB));
      assert.equal(hang.reason, 'timeout');
      const auth = await rejection(expandTask(new LlmClient({ baseURL: base, model: 'stub-401' }), 'burn', VOCAB));
      assert.equal(auth.reason, 'auth');
    }));

  it('parseExpansion maps names to ids and caps the hints', () => {
    const vocab = Array.from({ length: 10 }, (_, i) => ({ id: `t${i}`, name: `Tool ${i}` }));
    const out = parseExpansion({ toolIds: ['Tool 3', 't1', 'T1', 't2', 't4', 't5', 't6', 't7', 't8'] }, vocab);
    assert.deepEqual(out.toolHints, ['t3', 't1', 't2', 't4', 't5', 't6']);
  });

  it('expansionMessages keeps a long task bounded', () => {
    const msgs = expansionMessages('x'.repeat(5000), VOCAB);
    assert.ok(msgs[1].content.length < 1400);
  });
});

describe('complementaryQueries', () => {
  const memory = (steps: string[], windowSize = 2): MemoryState => ({
    task: 'How severe was the fire?',
    windowSize,
    trace: steps.map((tool, i) => ({
      tool,
      argSummary: `image=fire_post.tif`,
      resultSummary: `${tool} done, mean ${i}.5`,
      outputs: [{ name: `${tool}_out`, type: 'raster', roles: ['index'] }],
      ok: true,
      time: '2026-01-01T00:00:00Z',
    })),
  });

  it('uses the task and the working-memory window and validates the reply', () =>
    withEnvKey(async () => {
      const client = new LlmClient({ baseURL: base, model: 'stub-model' });
      const out = await complementaryQueries(client, memory(['cloud_mask', 'dnbr', 'burn_severity']));
      const user = seen[0].body.messages[1].content as string;
      assert.ok(user.startsWith('Task: """How severe was the fire?"""'));
      assert.ok(!user.includes('cloud_mask'), 'steps outside the window stay out of the prompt');
      assert.match(user, /^1\. dnbr\(image=fire_post\.tif\) → dnbr done, mean 1\.5 \[outputs: dnbr_out \(raster; index\)\]$/m);
      assert.match(user, /^2\. burn_severity\(/m);
      assert.deepEqual(out, [
        { rationale: 'quantify', text: 'area in hectares of the burn_severity result' },
        { rationale: 'quantify', text: 'statistics of burn_severity by zone' },
        { rationale: 'verify', text: 'accuracy of burn_severity against reference points' },
        { rationale: 'extend', text: 'vectorize the burn_severity mask' },
      ]);
    }));

  it('no steps → [] without a request; failures → LlmUnavailable', () =>
    withEnvKey(async () => {
      assert.deepEqual(await complementaryQueries(new LlmClient({ baseURL: base, model: 'stub-model' }), memory([])), []);
      assert.equal(seen.length, 0);
      const shape = await rejection(complementaryQueries(new LlmClient({ baseURL: base, model: 'stub-wrong-shape' }), memory(['ndvi'])));
      assert.equal(shape.reason, 'bad-response');
      const hang = await rejection(complementaryQueries(new LlmClient({ baseURL: base, model: 'stub-hang', timeoutMs: 200 }), memory(['ndvi'])));
      assert.equal(hang.reason, 'timeout');
    }));

  it('parseComplementary accepts the keyed form and caps at 2 per rationale', () => {
    const out = parseComplementary({ compare: ['a', 'b', 'c'], explain: 'why', bogus: ['x'] });
    assert.deepEqual(out, [
      { rationale: 'explain', text: 'why' },
      { rationale: 'compare', text: 'a' },
      { rationale: 'compare', text: 'b' },
    ]);
    assert.throws(() => parseComplementary('nope'), LlmUnavailable);
  });
});
