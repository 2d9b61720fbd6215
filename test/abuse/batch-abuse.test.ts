/**
 * Hostile batch inputs (a glob or a list for an argument that takes one raster): every one is
 * refused with the argument named, or planned with inputs that stay inside the workspace. Planning
 * only reads folder listings, so it runs in-process; the hostile patterns are what an analyst or a
 * shared notebook could write into a cell.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { expandListGlobs, planBatch, shapesFromKinds } from '../../src/core/notebook/batch';
import { getToolSpec } from '../../src/core/raster/engine';
import { tmpDir } from '../helpers/raster-gdal';

/** A workspace with scenes, a hidden folder, a link out to a folder beside it and a link loop. */
function hostileWorkspace(prefix: string): { ws: string; outside: string } {
  const root = tmpDir(prefix);
  const ws = path.join(root, 'ws'), outside = path.join(root, 'outside');
  fs.mkdirSync(path.join(ws, 'scenes', 'deep', 'er'), { recursive: true });
  fs.mkdirSync(path.join(ws, '.hidden'));
  fs.mkdirSync(outside);
  for (const f of ['scenes/a.tif', 'scenes/b.tif', 'scenes/deep/er/c.tif', '.hidden/h.tif']) fs.writeFileSync(path.join(ws, f), 'x');
  fs.writeFileSync(path.join(outside, 'secret.tif'), 'x');
  fs.symlinkSync(outside, path.join(ws, 'scenes', 'link-out'));
  fs.symlinkSync(path.join(ws, 'scenes'), path.join(ws, 'scenes', 'deep', 'loop'));
  return { ws, outside };
}

test('batch abuse: hostile globs and lists are refused by name or stay inside the workspace', () => {
  const { ws, outside } = hostileWorkspace('gw-batch-abuse-');
  const shapes = shapesFromKinds(getToolSpec('ndvi')!.params);
  const inputs: unknown[] = [
    '../outside/*.tif', `${outside}/*.tif`, '/etc/*', '**/../../outside/*.tif', 'scenes/**/*.tif', '**/*.tif', '**/**/**/**/*.tif',
    'scenes/link-out/*.tif', 'scenes/*\0.tif', '*'.repeat(5000), '[' + 'a'.repeat(100) + '-]*.tif', '{a,b}.tif', '.hidden/*.tif',
    ['../outside/secret.tif', 'scenes/a.tif'], ['scenes/a.tif', 'scenes/a.tif'], Array.from({ length: 1001 }, (_, i) => `s${i}.tif`),
    ['scenes/a.tif', { $ref: { cell: '__proto__', output: 'x' } }], ['scenes/*.tif', 'scenes/b.tif'], [], [''], ['\0'],
  ];
  const wsReal = fs.realpathSync(ws);
  let refused = 0, planned = 0;
  for (const v of inputs) {
    const label = JSON.stringify(v).slice(0, 80);
    let plan;
    try {
      plan = planBatch({ tool: 'ndvi', args: { image: v as never } }, shapes, [], { roots: [ws] }, ws);
    } catch (e) {
      assert.match((e as Error).message, /image/, `${label}: the error names the argument`);
      refused++;
      continue;
    }
    if (!plan) continue;
    planned++;
    assert.ok(plan.items.length <= 1000, `${label}: at most 1000 items`);
    for (const it of plan.items) {
      // Wildcards never lead out of the workspace (`**` does not follow a link out). A pattern whose
      // literal folders lead out ("..", an absolute path, a link it names) names those files itself,
      // as a single path may. A list names files as given (a run checks each like a single input).
      const literalOut = typeof v !== 'string' || v.includes('..') || path.isAbsolute(v) || v.startsWith('scenes/link-out/');
      if (plan.kind === 'glob' && !literalOut) {
        const real = fs.realpathSync(path.resolve(ws, it.input));
        assert.ok(real === wsReal || real.startsWith(wsReal + path.sep), `${label}: ${it.input} is outside the workspace`);
      }
      assert.doesNotMatch(it.name, /[/\\]|^\.\.?$/, `${label}: item name ${it.name} is a plain folder name`);
    }
  }
  assert.ok(refused >= 8 && planned >= 2, `refused ${refused}, planned ${planned}`);
});

test('list abuse: hostile globs for a list input (a time series) are refused by name or stay inside the workspace', () => {
  const { ws, outside } = hostileWorkspace('gw-list-abuse-');
  const shapes = shapesFromKinds(getToolSpec('time_series_trend')!.params);
  const inputs: unknown[] = [
    '../outside/*.tif', `${outside}/*.tif`, '/etc/*', '**/../../outside/*.tif', 'scenes/**/*.tif', '**/*.tif', '**/**/**/**/*.tif',
    'scenes/*/secret.tif', 'scenes/*/*.tif', 'scenes/link-out/*.tif', 'scenes/*\0.tif', '*'.repeat(5000), '{a,b}.tif', '.hidden/*.tif',
    ['scenes/*.tif', 'scenes/b.tif'], ['scenes/*.tif', '../outside/*.tif'], ['none/*.tif', 'scenes/a.tif'], [], ['\0'],
  ];
  const wsReal = fs.realpathSync(ws);
  let refused = 0, expanded = 0;
  for (const v of inputs) {
    const label = JSON.stringify(v).slice(0, 80);
    let files: unknown;
    try {
      files = expandListGlobs({ args: { images: v as never } }, shapes, ws).args.images;
    } catch (e) {
      assert.match((e as Error).message, /^images: /, `${label}: the error names the argument`);
      refused++;
      continue;
    }
    if (files === v) continue;
    expanded++;
    assert.ok(Array.isArray(files) && files.length <= 1000, `${label}: a list of at most 1000 files`);
    const patterns = typeof v === 'string' ? [v] : (v as unknown[]).filter((x): x is string => typeof x === 'string' && /[*?]/.test(x));
    const literalOut = patterns.some((p) => p.includes('..') || path.isAbsolute(p) || p.startsWith('scenes/link-out/'));
    if (literalOut) continue;
    for (const f of files as string[]) {
      if (!/[*?]/.test(label)) continue;
      const real = fs.realpathSync(path.resolve(ws, f));
      assert.ok(real === wsReal || real.startsWith(wsReal + path.sep), `${label}: ${f} is outside the workspace`);
    }
  }
  assert.ok(refused >= 4 && expanded >= 5, `refused ${refused}, expanded ${expanded}`);
});
