/** One glob implementation (core/data/globs.ts) for the notebook's batches and list inputs and the
 *  engine's list parameters: the same pattern gives the same files everywhere. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { expandGlob, globBase, isGlob, GlobLimitError } from '../../src/core/data/globs';
import * as batch from '../../src/core/notebook/batch';
import { expandGlobs } from '../../src/core/raster/arg-globs';
import { validateArgs } from '../../src/core/raster/engine';
import { medianCompositeTool } from '../../src/core/raster/tools/median_composite';
import { tmpDir } from '../fixtures/helpers';

function tree(files: string[]): string {
  const dir = tmpDir('gw-globs-');
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), '');
  }
  return dir;
}

test('a cell batch, a cell list input and the engine read a pattern the same way', () => {
  const dir = tree(['scenes/s2_b.tif', 'scenes/s2_a.tif', 'scenes/.s2_hidden.tif', 'scenes/2019/s2_c.tif', 'scenes/other.tif', '.geoweave/outputs/s2_z.tif']);
  for (const pattern of ['scenes/s2_*.tif', 'scenes/**/s2_*.tif', '**/s2_?.tif', 'scenes/*/s2_*.tif', 'scenes/.s2_*.tif']) {
    const shared = expandGlob(pattern, dir);
    assert.deepEqual(batch.expandGlob(pattern, dir), shared, pattern);
    assert.deepEqual(expandGlobs([path.join(dir, pattern)], 'where'), shared, pattern);
    const engine = validateArgs(medianCompositeTool, { images: pattern }, dir).images;
    assert.deepEqual(engine, shared, pattern);
    const cell = batch.expandListGlobs({ args: { images: pattern } }, { images: 'list' }, dir).args.images as unknown as string[];
    assert.deepEqual(cell.map((f) => path.join(dir, f)), shared, pattern);
  }
  const rel = (p: string) => expandGlob(p, dir).map((f) => path.relative(dir, f));
  assert.deepEqual(rel('scenes/s2_*.tif'), ['scenes/s2_a.tif', 'scenes/s2_b.tif'], 'hidden files only when named; sorted');
  assert.deepEqual(rel('**/s2_*.tif'), ['scenes/2019/s2_c.tif', 'scenes/s2_a.tif', 'scenes/s2_b.tif'], '** skips .geoweave');
  assert.deepEqual(rel('scenes/.s2_*.tif'), ['scenes/.s2_hidden.tif']);
  assert.equal(batch.isGlob, isGlob);
});

test('engine errors keep naming the tool, the argument and the folder; URLs and plain paths pass through', () => {
  const dir = tree(['scenes/a.tif']);
  const where = 'median_composite: argument "images"';
  assert.throws(() => expandGlobs([path.join(dir, 'scenes', 'none_*.tif')], where), new RegExp(`^Error: ${where}: ".*none_\\*\\.tif" matches no file in ${path.join(dir, 'scenes')}$`));
  assert.throws(() => expandGlobs([path.join(dir, 'nope', '*.tif')], where), new RegExp(`^Error: ${where}: folder ${path.join(dir, 'nope')} of ".*" does not exist$`));
  assert.deepEqual(expandGlobs(['https://example.test/a.tif?x=1', path.join(dir, 'scenes', 'a.tif')], where), ['https://example.test/a.tif?x=1', path.join(dir, 'scenes', 'a.tif')]);
  assert.equal(globBase('scenes/2019/*.tif', dir), path.join(dir, 'scenes', '2019'));
  assert.equal(globBase(path.join(dir, '**', '*.tif'), '/'), dir);
});

test('the entry budget stops a pattern that would read too much; maxMatches stops the search early', () => {
  const dir = tree(Array.from({ length: 30 }, (_, i) => `d${i}/x.tif`));
  assert.throws(() => expandGlob('**/*.tif', dir, { maxEntries: 10 }), (e: unknown) => e instanceof GlobLimitError && /more than 10 files and folders/.test((e as Error).message));
  assert.equal(expandGlob('**/*.tif', dir, { maxMatches: 5 }).length, 6, 'stops once more than maxMatches matched');
  assert.equal(expandGlob('**/*.tif', dir).length, 30);
});
