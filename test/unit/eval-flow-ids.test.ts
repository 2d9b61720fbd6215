import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { main } from '../../src/cli/main';
import { catalogNameReader, readFlowNames } from '../../src/core/eval/flow-ids';
import { parseTasks } from '../../src/core/eval/tasks';
import { fixtureCatalog, tmpDir } from '../fixtures/helpers';

test('log names read as the catalog names its tools: a namespace prefix dropped, letter case ignored, only where exactly one tool fits', () => {
  const read = catalogNameReader(['ndvi', 'zonal_stats', 'native:buffer', 'Slope', 'snow.depth', 'a_map', 'A_map', 'stats']);
  const cases: [string, string | undefined][] = [
    ['ndvi', 'ndvi'],
    ['mcp__eo__ndvi', 'ndvi'], // Claude Code's name for an MCP tool
    ['eo.zonal_stats', 'zonal_stats'],
    ['gateway:native:buffer', 'native:buffer'], // the longest ending that is a tool wins
    ['NDVI', 'ndvi'],
    ['slope', 'Slope'],
    ['mcp__terrain__SLOPE', 'Slope'],
    ['mcp__snow__snow.depth', 'snow.depth'],
    ['a_map', 'a_map'],
    ['A_MAP', undefined], // two tools differ only in case: neither is guessed
    ['zonal_statz', undefined],
    ['my_zonal_stats', undefined], // a single underscore is part of a name, not a namespace
    ['mcp__eo__', undefined],
  ];
  for (const [name, want] of cases) assert.equal(read(name), want, name);
  const { tasks, read: renamed } = readFlowNames(parseTasks(JSON.stringify({ id: 'a', query: 'q', flow: ['mcp__eo__ndvi', 'mcp__eo__ndvi', 'stats', 'NDVI'] })), ['ndvi', 'stats']);
  assert.deepEqual(tasks[0].flow, ['ndvi', 'ndvi', 'stats', 'ndvi']);
  assert.deepEqual(tasks[0].gold, ['ndvi', 'stats']);
  assert.deepEqual([...renamed], [['mcp__eo__ndvi', 'ndvi'], ['NDVI', 'ndvi']]);
});

test('learn on Claude Code logs: MCP-prefixed tool calls are learned as the catalog tools, with one warning naming the names read, and one naming the calls left out', async () => {
  const file = path.join(tmpDir(), 'logs.jsonl');
  const log = (q: string, calls: string[]) => JSON.stringify({ messages: [{ role: 'user', content: q }, { role: 'assistant', content: calls.map((name, i) => ({ type: 'tool_use', id: `t${i}`, name, input: {} })) }] });
  fs.writeFileSync(file, [log('burn scar severity', ['mcp__geo__dnbr', 'mcp__geo__burn_severity']), log('vegetation', ['mcp__geo__ndvi', 'mcp__geo__nope'])].join('\n'));
  let out = '';
  let err = '';
  const state = tmpDir();
  const code = await main(['learn', '--trajectories', file, '--state', state, '--no-fit', '--no-builtin', '--manifests', fixtureCatalog], { out: (t) => { out += t + '\n'; }, err: (t) => { err += t + '\n'; } });
  assert.equal(code, 0, err);
  assert.match(err, /logs\.jsonl: 3 tool names read as the catalog names them: "mcp__geo__dnbr" as "dnbr", "mcp__geo__burn_severity" as "burn_severity", "mcp__geo__ndvi" as "ndvi"/);
  // A call the catalog lacks in a chat log is the assistant's own tool: left out, the rest learned.
  assert.match(err, /logs\.jsonl: calls in the chat logs to 1 tool the catalog does not have, left out of the flows: mcp__geo__nope \(1\)/);
  assert.match(out, /learned 2 trajectories;/);
  const saved = fs.readFileSync(path.join(state, 'learned.json'), 'utf8');
  assert.match(saved, /"dnbr"/);
  assert.doesNotMatch(saved, /mcp__geo/);
});

test("an assistant's own tools in its chat logs (a web search, a code runner) are left out of the flows, not the flows dropped; a flow file's unknown id still is", async () => {
  const file = path.join(tmpDir(), 'logs.jsonl');
  const chat = (q: string, calls: string[]) => JSON.stringify({ messages: [{ role: 'user', content: q }, ...calls.map((name) => ({ role: 'assistant', tool_calls: [{ type: 'function', function: { name, arguments: '{}' } }] }))] });
  fs.writeFileSync(file, [
    chat('burn scar severity', ['web_search', 'dnbr', 'python', 'burn_severity', 'web_search']),
    chat('what is NDVI', ['web_search']),
    JSON.stringify({ query: 'typo', flow: ['ndvi', 'thresold'] }),
  ].join('\n'));
  const { tasks, dropped } = readFlowNames(parseTasks(fs.readFileSync(file, 'utf8'), file), ['dnbr', 'burn_severity', 'ndvi', 'threshold']);
  assert.deepEqual(tasks.map((t) => t.flow), [['dnbr', 'burn_severity'], [], ['ndvi', 'thresold']]);
  assert.deepEqual([...dropped], [['web_search', 3], ['python', 1]]);
  let out = '';
  let err = '';
  const code = await main(['learn', '--trajectories', file, '--state', tmpDir(), '--no-fit', '--no-builtin', '--manifests', fixtureCatalog], { out: (t) => { out += t + '\n'; }, err: (t) => { err += t + '\n'; } });
  assert.equal(code, 0, err);
  assert.match(err, /logs\.jsonl: calls in the chat logs to 2 tools the catalog does not have, left out of the flows: web_search \(3\), python \(1\)/);
  assert.match(err, /logs\.jsonl:3: unknown tool thresold; this trajectory is not learned/);
  assert.match(out, /learned 1 trajectories \(skipped 1 with unknown tools\)/);
});
