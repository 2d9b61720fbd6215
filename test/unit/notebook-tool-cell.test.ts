import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseToolCell, printToolCall } from '../../src/core/notebook/tool-cell';
import { parseValue, printValue, reference } from '../../src/core/notebook/cell-value';
import type { ArgValue, ToolCall } from '../../src/core/notebook/types';

test('parses header, name, comments and JSON-ish values', () => {
  const src = [
    '# vegetation index on the scene',
    'ndvi as veg',
    'image: s2_scene.tif',
    'sensor: sentinel2_l2a',
    'red: 3',
    'nir: nir',
    'bands: [1, 2, red]',
    'mapping: {red: b4.tif, nir: "b 8.tif"}',
    'expression: (b5 - b4) / (b5 + b4)',
    'mask: $cloud_mask.mask',
    'invert: false',
    'label: "42"',
  ].join('\n');
  const { call, problems } = parseToolCell(src);
  assert.deepEqual(problems, []);
  assert.deepEqual(call, {
    tool: 'ndvi',
    name: 'veg',
    args: {
      image: 's2_scene.tif', sensor: 'sentinel2_l2a', red: 3, nir: 'nir', bands: [1, 2, 'red'],
      mapping: { red: 'b4.tif', nir: 'b 8.tif' }, expression: '(b5 - b4) / (b5 + b4)',
      mask: { $ref: { cell: 'cloud_mask', output: 'mask' } }, invert: false, label: '42',
    },
  });
});

test('print then parse gives the same call back (round trip)', () => {
  const values: ArgValue[] = [
    'plain.tif', 'with space.tif', '', ' padded ', '12', 'true', 'null', '$notref', '#hash', '[bracket', 'a,b', 'quote"d',
    0, -1.5, 1e-7, 12345678901, true, false, null,
    [], [1, 'two', [3, 'x,y']], {}, { a: 1, 'b c': ['d', { e: null }] },
    reference('ndvi', 'index'), [reference('a', 'b'), 'c'], { zones: reference('fields_2', 'table') },
    'unicode 植被 ✓', 'back\\slash', 'line\nbreak',
  ];
  values.forEach((v, i) => {
    const call: ToolCall = { tool: 'band_math', args: { [`a${i}`]: v } };
    const text = printToolCall(call);
    const back = parseToolCell(text);
    assert.deepEqual(back.problems, [], `value ${JSON.stringify(v)} printed as ${text}`);
    assert.deepEqual(back.call, call, `value ${JSON.stringify(v)} printed as ${text}`);
  });
  const named: ToolCall = { tool: 'threshold', name: 'hot', args: { image: reference('lst', 'lst'), op: 'gt', value: 35 } };
  assert.equal(printToolCall(named), 'threshold as hot\nimage: $lst.lst\nop: gt\nvalue: 35');
  assert.deepEqual(parseToolCell(printToolCall(named)).call, named);
});

test('bare strings are printed without quotes when that reads back the same', () => {
  assert.equal(printValue('s2_scene.tif'), 's2_scene.tif');
  assert.equal(printValue('12'), '"12"');
  assert.equal(printValue(['a b', 'c,d']), '[a b, "c,d"]');
  assert.deepEqual(parseValue('  [a b , c]  '), ['a b', 'c']);
});

test('syntax problems are positioned on their line and name the argument', () => {
  const { call, problems } = parseToolCell('ndvi\nimage: [a, b\nred 3\nnir: $bad\nimage: x.tif');
  assert.equal(call?.tool, 'ndvi');
  const byLine = new Map(problems.map((p) => [p.line, p.message]));
  assert.match(byLine.get(1) ?? '', /^image: .*"," or "\]"/);
  assert.match(byLine.get(2) ?? '', /expected "argument: value"/);
  assert.match(byLine.get(3) ?? '', /nir: "\$bad" is not a reference/);
  assert.match(byLine.get(4) ?? '', /argument "image" is given twice/);
  assert.ok(problems.every((p) => p.severity === 'error'));
});

test('an empty cell or a bad header is an error, not a silent no-op', () => {
  assert.match(parseToolCell('').problems[0].message, /empty tool cell/);
  assert.match(parseToolCell('# only a comment\n').problems[0].message, /empty tool cell/);
  const bad = parseToolCell('run ndvi please\nimage: a.tif');
  assert.equal(bad.call, undefined);
  assert.match(bad.problems[0].message, /first line names the tool/);
});

test('layout ranges point at the tool id and argument names', () => {
  const { layout } = parseToolCell('  ndvi as veg\nimage:   s2.tif');
  assert.deepEqual(layout.header?.toolRange, { line: 0, start: 2, end: 6 });
  assert.deepEqual(layout.header?.nameRange, { line: 0, start: 10, end: 13 });
  assert.deepEqual(layout.args[0].nameRange, { line: 1, start: 0, end: 5 });
  assert.deepEqual(layout.args[0].valueRange, { line: 1, start: 9, end: 15 });
});
