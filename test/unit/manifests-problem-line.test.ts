import { test } from 'node:test';
import assert from 'node:assert/strict';
import { problemLine } from '../../src/core/manifests/problem-line';
import { problemMessage } from '../../src/core/manifests/problem';

test("a problem's JSON pointer is shown on its own key's line in a many-tool catalog, JSON or YAML; a missing field on its parent's key", () => {
  const json = JSON.stringify({
    openapi: '3.1.0', info: { title: 't', description: 'the service' },
    paths: { '/lst': { post: { operationId: 'lst', description: 'LST' } }, '/uhi/{city}': { get: { operationId: 'uhi', summary: 'UHI' } } },
  }, null, 2);
  const lines = json.split('\n');
  const at = (s: string) => lines.findIndex((l) => l.includes(s));
  // The missing description of the second operation: its "get", not the first description in the file.
  assert.equal(problemLine(json, '/paths/~1uhi~1{city}/get/description'), at('"get"'));
  assert.equal(problemLine(json, '/paths/~1lst/post/description'), at('"LST"'));
  const mcp = JSON.stringify({ tools: [{ name: 'a', inputSchema: { type: 'object' } }, { name: 'b', inputSchema: { type: 'object', properties: { dem: { type: 'strin' } } } }] }, null, 2);
  assert.equal(problemLine(mcp, '/tools/1/inputSchema/properties/dem/type'), mcp.split('\n').findIndex((l) => l.includes('"strin"')));
  assert.equal(problemLine(mcp, '/tools/1'), mcp.split('\n').findIndex((l) => l.includes('"b"')) - 1);
  const yaml = ['id: a', 'description: d', 'inputs:', '  - name: x', '    type: raster', '  - name: y', '    type: numbr'].join('\n');
  assert.equal(problemLine(yaml, '/inputs/1/type'), 6);
  assert.equal(problemLine(yaml, '/inputs/1/required'), 5);
  assert.equal(problemLine(yaml, '/nothing'), -1);
  assert.equal(problemLine('{"id": ', '/id'), -1);
});

test('a problem\'s JSON pointer reads with OpenAPI routes decoded and quoted', () => {
  assert.equal(problemMessage({ file: 'f.json', path: '/paths/~1jobs~1{job_id}/get/description', severity: 'warning', message: 'no description' }), '/paths/"/jobs/{job_id}"/get/description: no description');
  assert.equal(problemMessage({ file: 'f.json', path: '/paths/~1a~0b/post', severity: 'warning', message: 'x' }), '/paths/"/a~b"/post: x');
  assert.equal(problemMessage({ file: 'f.json', path: '/inputs/0/type', severity: 'error', message: 'bad' }), '/inputs/0/type: bad');
  assert.equal(problemMessage({ file: 'f.json', path: '/tags', severity: 'error', message: '/tags must be array' }), '/tags must be array');
});
