import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { parseNotebook, serializeNotebook, UNREADABLE_KEY } from '../../src/core/notebook/notebook-file';
import { parseToolCell, printToolCall } from '../../src/core/notebook/tool-cell';
import { parseValue, reference } from '../../src/core/notebook/cell-value';
import { resolveReferences, EarlierCell } from '../../src/core/notebook/references';
import { lastRunMarkdown, runFromMetadata } from '../../src/core/notebook/session';
import { tmpDir } from '../fixtures/helpers';

const nbText = (metadata: string, cells = '[]') => `{"format":"geoweave-notebook","version":1,"metadata":${metadata},"cells":${cells}}`;

test('deeply nested metadata opens as an explained, read-only notebook instead of failing at save', () => {
  const deep = '{"a":'.repeat(5000) + '1' + '}'.repeat(5000);
  const nb = parseNotebook(nbText(deep), 'deep.geonb');
  assert.match(String(nb.metadata[UNREADABLE_KEY]), /metadata(\.a)+ nests deeper than 64 levels/);
  assert.throws(() => serializeNotebook(nb), /will not save over a file it could not read/);
  // Built in memory (an edit), it fails with the same clear reason instead of a stack overflow.
  let v: Record<string, unknown> = {};
  const root = v;
  for (let i = 0; i < 5000; i++) { const n = {}; v.a = n; v = n; }
  assert.throws(() => serializeNotebook({ cells: [], metadata: root }), /cannot save the notebook: metadata(\.a)+ nests deeper than 64 levels/);
  // Ordinary nesting is fine.
  const ok = parseNotebook(nbText('{"a":{"b":{"c":[1,{"d":2}]}}}'));
  assert.equal(ok.metadata[UNREADABLE_KEY], undefined);
});

test('"__proto__" keys survive a read and a write, in notebook metadata and in tool-cell mappings', () => {
  const text = nbText('{"__proto__":{"polluted":1},"x":{"__proto__":2}}', '[{"kind":"tool","source":["ndvi"],"metadata":{"__proto__":"kept"}}]');
  const nb = parseNotebook(text);
  const again = parseNotebook(serializeNotebook(nb));
  assert.deepEqual(Object.keys(again.metadata).sort(), ['__proto__', 'x']);
  assert.deepEqual(JSON.parse(serializeNotebook(again)).metadata.__proto__, { polluted: 1 });
  assert.equal(JSON.parse(serializeNotebook(again)).cells[0].metadata.__proto__, 'kept');
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  const cell = parseToolCell('band_math\nmapping: {__proto__: 1, b: 2}\n__proto__: {x: 1}');
  assert.deepEqual(Object.keys(cell.call!.args), ['mapping', '__proto__']);
  assert.deepEqual(Object.keys(cell.call!.args.mapping as object), ['__proto__', 'b']);
  assert.equal(Object.getPrototypeOf(cell.call!.args), Object.prototype);
  assert.deepEqual(parseToolCell(printToolCall(cell.call!)).call, cell.call);
});

test('a number JSON cannot hold is refused by name, never silently changed', () => {
  assert.throws(() => parseValue('1e999'), /1e999 is too large a number/);
  const cell = parseToolCell('threshold\nvalue: 1e999');
  assert.match(cell.problems[0].message, /value: 1e999 is too large a number/);
  assert.deepEqual(parseValue('"1e999"'), '1e999');
  const nb = parseNotebook(nbText('{"scale":1e999}'), 'n.geonb');
  assert.match(String(nb.metadata[UNREADABLE_KEY]), /metadata\.scale holds a number too large for JSON/);
});

test('a byte-order mark at the start of a notebook is accepted', () => {
  const nb = parseNotebook('\uFEFF' + nbText('{}', '[{"kind":"markdown","source":["hi"]}]'));
  assert.equal(nb.metadata[UNREADABLE_KEY], undefined);
  assert.equal(nb.cells[0].source, 'hi');
});

test('a planted lastRun cannot make a reference read outside the workspace or the outputs folder', () => {
  const ws = tmpDir();
  const outDir = path.join(ws, '.geoweave', 'outputs');
  fs.mkdirSync(outDir, { recursive: true });
  const scope = { roots: [ws, outDir] };
  const planted = (p: string): EarlierCell[] => [{ name: 'ndvi', tool: 'ndvi', run: runFromMetadata({ lastRun: { ok: true, tool: 'ndvi', summary: 's', time: 't', outputs: { index: { path: p, type: 'raster' } } } }) }];
  const ref = { image: reference('ndvi', 'index') };
  assert.throws(() => resolveReferences(ref, planted('/etc/shadow'), scope), /image: \$ndvi\.index points at \/etc\/shadow, outside the workspace and the outputs folder.*run cell "ndvi" again/);
  assert.throws(() => resolveReferences(ref, planted(path.join(ws, '..', '..', 'etc', 'shadow')), scope), /outside the workspace/);
  assert.throws(() => resolveReferences(ref, planted('relative/ndvi.tif'), scope), /outside the workspace/);
  assert.throws(() => resolveReferences(ref, planted('https://example.com/x.tif'), scope), /outside the workspace/);
  // A symlink inside the workspace that leads out is followed before the check.
  fs.symlinkSync('/etc', path.join(ws, 'etc-link'));
  assert.throws(() => resolveReferences(ref, planted(path.join(ws, 'etc-link', 'hostname')), scope), /outside the workspace/);
  // Real outputs resolve.
  const real = path.join(outDir, 'ndvi_1.tif');
  fs.writeFileSync(real, 'x');
  assert.deepEqual(resolveReferences(ref, planted(real), scope), { image: real });
  // Malformed outputs are dropped when the record is read.
  const run = runFromMetadata({ lastRun: { ok: true, tool: 'ndvi', outputs: { a: { path: 3, type: 'raster' }, b: { path: '/x', type: 'exe' }, c: { path: real, type: 'raster' } } } });
  assert.deepEqual(Object.keys(run!.outputs), ['c']);
});

test('a recorded summary is shown as text, not as markdown that loads images or links', () => {
  const md = lastRunMarkdown({ ok: true, tool: 'ndvi', outputs: {}, time: '2026-01-01', summary: 'x ![t](https://example.com/p.png) [c](command:workbench.action.terminal.new)\n# big' });
  assert.doesNotMatch(md, /!\[|\]\(/);
  assert.doesNotMatch(md, /\n/);
});
