import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTasks, TaskFileError } from '../../src/core/eval/tasks';

const line = (o: unknown) => JSON.stringify(o);

test("an assistant's chat logs are read as tasks: the analyst's request before the first tool call, and the tool calls in order, in the OpenAI, Anthropic, Responses, Gemini and MCP forms", () => {
  const openai = {
    id: 'chat-1',
    messages: [
      { role: 'system', content: 'You are the GIS assistant of the agency. Use the tools.' },
      { role: 'user', content: 'NO2 over Milan in January from Sentinel-5P' },
      { role: 'assistant', content: 'Fetching the orbits first.', tool_calls: [{ id: 'c1', type: 'function', function: { name: 's5p_search', arguments: '{}' } }, { id: 'c2', type: 'function', function: { name: 'aoi_lookup', arguments: '{"city":"Milano"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: '31 orbits' },
      { role: 'tool', tool_call_id: 'c2', content: 'ok' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c3', type: 'function', function: { name: 's5p_no2_column', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c3', content: 'mean 8.1e-5 mol/m2' },
      { role: 'user', content: 'also post the map to #air' },
      { role: 'assistant', content: null, function_call: { name: 'post_teams_message', arguments: '{}' } },
      { role: 'assistant', content: 'Done: January mean 81 µmol/m².' },
    ],
  };
  const anthropic = {
    id: 'chat-2',
    system: 'You are the GIS assistant.',
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Hottest districts during the July heatwave?' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Looking for a Landsat scene.' }, { type: 'tool_use', id: 'toolu_1', name: 'landsat_search', input: { month: 7 } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'LC09 2026-07-14' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_2', name: 'lst_from_landsat', input: {} }, { type: 'tool_use', id: 'toolu_3', name: 'zonal_by_district', input: {} }] },
    ],
  };
  const responses = { input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'UHI of Turin' }] }, { type: 'function_call', call_id: 'x', name: 'uhi_intensity', arguments: '{}' }, { type: 'function_call_output', call_id: 'x', output: '3.1 K' }] };
  const gemini = { contents: [{ role: 'user', parts: [{ text: 'tree canopy per district in Lyon' }] }, { role: 'model', parts: [{ functionCall: { name: 'canopy_from_lidar', args: {} } }, { functionCall: { name: 'zonal_by_district', args: {} } }] }] };
  const mcp = { messages: [{ role: 'user', content: 'ozone forecast for tomorrow' }, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'cams_forecast', arguments: {} } }] };
  const tasks = parseTasks([openai, anthropic, responses, gemini, mcp].map(line).join('\n'), 'logs.jsonl');
  assert.deepEqual(tasks.map((t) => [t.id, t.query, t.flow]), [
    // The later "also post the map" is not part of the task as first put; its tool call is part of the flow.
    ['chat-1', 'NO2 over Milan in January from Sentinel-5P', ['s5p_search', 'aoi_lookup', 's5p_no2_column', 'post_teams_message']],
    ['chat-2', 'Hottest districts during the July heatwave?', ['landsat_search', 'lst_from_landsat', 'zonal_by_district']],
    ['line3', 'UHI of Turin', ['uhi_intensity']],
    ['line4', 'tree canopy per district in Lyon', ['canopy_from_lidar', 'zonal_by_district']],
    ['line5', 'ozone forecast for tomorrow', ['cams_forecast']],
  ]);
  assert.deepEqual(tasks[0].gold, ['s5p_search', 'aoi_lookup', 's5p_no2_column', 'post_teams_message']);
});

test('other benchmarks\' task lines read too: a question or instruction as the task, a flow as one string of steps', () => {
  const tasks = parseTasks([
    line({ id: 'a', question: 'heat exposure of the over-75s', steps: 'lst_from_landsat -> zonal_by_district -> census_join' }),
    line({ id: 'b', instruction: 'NO2 map', tools: 's5p_search, s5p_no2_column' }),
    line({ id: 'c', query: 'canopy', flow: 'canopy_from_lidar → zonal_by_district | report_pdf' }),
  ].join('\n'));
  assert.deepEqual(tasks.map((t) => [t.query, t.flow]), [
    ['heat exposure of the over-75s', ['lst_from_landsat', 'zonal_by_district', 'census_join']],
    ['NO2 map', ['s5p_search', 's5p_no2_column']],
    ['canopy', ['canopy_from_lidar', 'zonal_by_district', 'report_pdf']],
  ]);
});

test('a chat log with no request or no tool call is refused by its line, saying what is missing', () => {
  assert.throws(() => parseTasks(line({ messages: [{ role: 'system', content: 'x' }, { role: 'assistant', tool_calls: [{ function: { name: 'a' } }] }] }), 'logs.jsonl'), (e: Error) => e instanceof TaskFileError && /logs\.jsonl:1: a chat log with no user message/.test(e.message));
  assert.throws(() => parseTasks(line({ messages: [{ role: 'user', content: 'hello' }, { role: 'assistant', content: 'hi' }] }), 'logs.jsonl'), (e: Error) => e instanceof TaskFileError && /logs\.jsonl:1: a chat log with no tool call; nothing to learn/.test(e.message));
  assert.throws(() => parseTasks(line({ flow: ['a'] }), 'f.jsonl'), /f\.jsonl:1: "query" must be a non-empty string \(the task as the analyst put it; or give an assistant chat log with "messages"\)/);
});
