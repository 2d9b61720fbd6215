// The LLM layer wired into retrieval, against a local OpenAI-compatible stub on 127.0.0.1.
// The stub reads the catalog and the task from the prompt, so a prompt without them gets no hints.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { GeoWeave } from '../../src/core/geoweave';
import { createMemory, addStep } from '../../src/core/memory/memory';
import { llmFrom } from '../../src/cli/common';
import { parseArgs, UsageError } from '../../src/cli/args';
import { logSink, tmpDir } from '../fixtures/helpers';

// Invented words: nothing in the catalog matches them lexically or by meaning.
const NOVICE = 'please florp the zintle blorbs of my wubbet';

let server: http.Server;
let base = '';
let calls = 0;

function completion(content: string) {
  return { id: 'x', object: 'chat.completion', created: 0, model: 'stub', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] };
}

before(async () => {
  server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      calls++;
      const body = JSON.parse(raw);
      const user: string = body.messages.find((m: { role: string }) => m.role === 'user')?.content ?? '';
      let answer: unknown = {};
      if (/^Catalog \(id: name\)/.test(user)) {
        const ids = new Set([...user.matchAll(/^([a-z0-9_]+): /gm)].map((m) => m[1]));
        const task = /Task: """([\s\S]*)"""/.exec(user)?.[1] ?? '';
        // "florp the zintle blorbs" means: how many hectares does each class cover.
        answer = /zintle/.test(task) && ids.has('area_by_class')
          ? { keywords: ['area per class', 'hectares'], indicators: ['area'], taskType: 'land_cover', toolIds: ['area_by_class', 'not_a_tool'] }
          : { keywords: [], indicators: [], toolIds: [] };
      } else if (/Latest steps/.test(user)) {
        answer = { queries: [{ rationale: 'verify', text: 'accuracy of the class map against reference points' }] };
      }
      const text = JSON.stringify(completion(JSON.stringify(answer)));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const stateDir = tmpDir();

test('with the LLM on, a task in words nothing matches gets the right tool from the hints', async () => {
  const plain = await GeoWeave.open({ stateDir });
  const withLlm = await GeoWeave.open({ stateDir, llm: { baseURL: base, model: 'stub' } });
  try {
    const off = await plain.forwardCandidates(NOVICE, { k: 5 });
    assert.equal(off.llm, undefined);
    assert.ok(!off.candidates.slice(0, 3).some((c) => c.id === 'area_by_class'), off.candidates.map((c) => c.id).join(', '));
    const on = await withLlm.forwardCandidates(NOVICE, { k: 5 });
    assert.equal(on.llm, 'used');
    assert.equal(on.candidates[0].id, 'area_by_class', on.candidates.map((c) => c.id).join(', '));
    assert.match(on.candidates[0].reason, /proposed by the LLM/);
    assert.equal(on.query, NOVICE, 'the result names the analyst\'s task, not the expanded text');
    // The expansion is cached per task: a second call does not ask again.
    const before2 = calls;
    await withLlm.forwardCandidates(NOVICE, { k: 5 });
    assert.equal(calls, before2);

    // Backward: the LLM's complementary query joins the template queries.
    const m = createMemory(NOVICE);
    addStep(m, { tool: 'kmeans_classify', argSummary: '', resultSummary: '5 clusters', outputs: [{ name: 'classes', type: 'raster', path: 'classes.tif', roles: ['class'] }], ok: true, time: '2026-01-01T00:00:00Z' });
    const next = await withLlm.complementarySuggestions(m, { k: 10 });
    assert.equal(next.llm, 'used');
    assert.equal(next.queries.length, 6);
    assert.ok(next.queries.some((q) => q.rationale === 'verify' && q.text.startsWith('accuracy of the class map against reference points')));
    assert.ok(next.ranked.slice(0, 3).some((s) => s.id === 'area_by_class'), next.ranked.map((s) => s.id).join(', '));
  } finally {
    await plain.dispose();
    await withLlm.dispose();
  }
});

test('with the LLM server down, results equal the builtin path and one warning is logged', async () => {
  // A port that was just closed: connections are refused.
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const sink = logSink();
  const plain = await GeoWeave.open({ stateDir });
  const down = await GeoWeave.open({ stateDir, log: sink.log, llm: { baseURL: `http://127.0.0.1:${port}/v1`, model: 'stub', timeoutMs: 3000 } });
  try {
    const task = 'map the burn severity of the forest fire';
    const a = await plain.forwardCandidates(task, { k: 10 });
    const b = await down.forwardCandidates(task, { k: 10 });
    assert.equal(b.llm, 'unavailable');
    assert.deepEqual(b.candidates, a.candidates);
    const m = createMemory(task);
    addStep(m, { tool: 'dnbr', argSummary: '', resultSummary: 'dNBR mean 0.3', outputs: [{ name: 'dnbr', type: 'raster', path: 'dnbr.tif', roles: ['dnbr', 'index'] }], ok: true, time: '2026-01-01T00:00:00Z' });
    const c1 = await plain.complementarySuggestions(m, { k: 10 });
    const c2 = await down.complementarySuggestions(m, { k: 10 });
    assert.equal(c2.llm, 'unavailable');
    assert.deepEqual(c2.ranked, c1.ranked);
    assert.deepEqual(c2.queries, c1.queries);
    const warnings = sink.warnings().filter((w) => /LLM/.test(w));
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0], new RegExp(`127\\.0\\.0\\.1:${port}`));
  } finally {
    await plain.dispose();
    await down.dispose();
  }
});

test('CLI: --llm-base-url and --llm-model go together; the key comes from OPENAI_API_KEY', () => {
  assert.equal(llmFrom(parseArgs(['suggest', 'x'])), undefined);
  assert.deepEqual(llmFrom(parseArgs(['--llm-base-url', 'http://127.0.0.1:9/v1', '--llm-model', 'm']), { OPENAI_API_KEY: 'k' }),
    { baseURL: 'http://127.0.0.1:9/v1', model: 'm', apiKey: 'k' });
  assert.throws(() => llmFrom(parseArgs(['--llm-model', 'm'])), (e: unknown) => e instanceof UsageError && /--llm-base-url/.test((e as Error).message));
  assert.throws(() => llmFrom(parseArgs(['--llm-base-url', 'ftp://x', '--llm-model', 'm'])), UsageError);
});
