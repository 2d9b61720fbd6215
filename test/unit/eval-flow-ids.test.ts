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

test('learn on Claude Code logs: MCP-prefixed tool calls are learned as the catalog tools, with one warning naming the names read', async () => {
  const file = path.join(tmpDir(), 'logs.jsonl');
  const log = (q: string, calls: string[]) => JSON.stringify({ messages: [{ role: 'user', content: q }, { role: 'assistant', content: calls.map((name, i) => ({ type: 'tool_use', id: `t${i}`, name, input: {} })) }] });
  fs.writeFileSync(file, [log('burn scar severity', ['mcp__geo__dnbr', 'mcp__geo__burn_severity']), log('vegetation', ['mcp__geo__ndvi', 'mcp__geo__nope'])].join('\n'));
  let out = '';
  let err = '';
  const state = tmpDir();
  const code = await main(['learn', '--trajectories', file, '--state', state, '--no-fit', '--no-builtin', '--manifests', fixtureCatalog], { out: (t) => { out += t + '\n'; }, err: (t) => { err += t + '\n'; } });
  assert.equal(code, 0, err);
  assert.match(err, /logs\.jsonl: 3 tool names read as the catalog names them: "mcp__geo__dnbr" as "dnbr", "mcp__geo__burn_severity" as "burn_severity", "mcp__geo__ndvi" as "ndvi"/);
  assert.match(err, /logs\.jsonl:2: unknown tool mcp__geo__nope; this trajectory is not learned/);
  assert.match(out, /learned 1 trajectories \(skipped 1 with unknown tools\)/);
  const saved = fs.readFileSync(path.join(state, 'learned.json'), 'utf8');
  assert.match(saved, /"dnbr"/);
  assert.doesNotMatch(saved, /mcp__geo/);
});
