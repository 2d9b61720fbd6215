/**
 * Arguments are parsed once, by the engine: a tool's `ctx.args` holds numbers, absolute paths and
 * role maps typed from its `params` (ArgsOf), whatever form the CLI or a notebook cell gave them in.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runTool, validateArgs } from '../../src/core/raster/engine';
import { BUILTIN_TOOLS } from '../../src/core/raster/tools/registry';
import { hillshadeTool } from '../../src/core/raster/tools/hillshade';
import { medianCompositeTool } from '../../src/core/raster/tools/median_composite';
import { defineTool, type ArgsOf, type BuiltinTool } from '../../src/core/raster/tools/types';
import { tmpDir } from '../helpers/raster-gdal';

const PARAMS = {
  image: { kind: 'raster', required: true },
  azimuth: { kind: 'number', default: 315 },
  altitude: { kind: 'number', min: 0, max: 90 },
  scenes: { kind: 'raster_list' },
  bbox: { kind: 'bbox' },
  side: { kind: 'string', enum: ['left', 'right'], default: 'left' },
  catalog: { kind: 'string', path: true },
} as const;

/** A tool that records the arguments it was run with. */
function recorder(seen: ArgsOf<typeof PARAMS>[]): BuiltinTool {
  return defineTool({
    id: 'test_typed_args',
    params: PARAMS,
    async run(ctx) {
      // Typed reads: no Number(), no String(), no default repeated here.
      const azimuth: number = ctx.args.azimuth;
      const side: 'left' | 'right' = ctx.args.side;
      seen.push({ ...ctx.args, azimuth, side });
      return { tool: 'test_typed_args', outputs: {}, stats: {}, summary: '' };
    },
  });
}

async function withTool<T>(tool: BuiltinTool, fn: () => Promise<T>): Promise<T> {
  BUILTIN_TOOLS.push(tool);
  try { return await fn(); } finally { BUILTIN_TOOLS.splice(BUILTIN_TOOLS.indexOf(tool), 1); }
}

test('CLI strings reach the tool typed: "270" as a number, a role-map JSON string as a resolved map, relative paths absolute', async () => {
  const dir = tmpDir();
  const seen: ArgsOf<typeof PARAMS>[] = [];
  await withTool(recorder(seen), async () => {
    await runTool('test_typed_args', {
      image: '{"Red": "bands/B04.tif", "nir": "bands/B08.tif"}', azimuth: '270', scenes: 'a.tif, sub/b.tif', bbox: '1,2,3,4', side: 'RIGHT', catalog: ' stac ',
    }, { outDir: path.join(dir, 'out'), cwd: dir });
    await runTool('test_typed_args', { image: 'scene.tif', catalog: 'https://example.com/v1' }, { outDir: path.join(dir, 'out'), cwd: dir });
  });
  assert.deepEqual(seen[0], {
    image: { red: path.join(dir, 'bands/B04.tif'), nir: path.join(dir, 'bands/B08.tif') },
    azimuth: 270,
    scenes: [path.join(dir, 'a.tif'), path.join(dir, 'sub/b.tif')],
    bbox: [1, 2, 3, 4],
    side: 'right',
    catalog: path.join(dir, 'stac'),
  });
  // Defaults come from the spec, once; an argument without one stays absent.
  assert.deepEqual(seen[1], { image: path.join(dir, 'scene.tif'), azimuth: 315, side: 'left', catalog: 'https://example.com/v1' });
  assert.equal(typeof seen[1].azimuth, 'number');
});

test('a builtin tool\'s spec types its arguments: hillshade gets numbers and an absolute DEM path', () => {
  const dir = tmpDir();
  const args = validateArgs(hillshadeTool, { dem: 'dem.tif', azimuth: '270', z_factor: '2.5' }, dir);
  assert.deepEqual(args, { dem: path.join(dir, 'dem.tif'), azimuth: 270, z_factor: 2.5, altitude: 45 });
});

test('range limits in the spec give the named error before the tool runs', async () => {
  const dir = tmpDir();
  const seen: ArgsOf<typeof PARAMS>[] = [];
  await withTool(recorder(seen), async () => {
    await assert.rejects(runTool('test_typed_args', { image: 'x.tif', altitude: '95' }, { outDir: dir, cwd: dir }),
      /^Error: test_typed_args: argument "altitude" must be a number between 0 and 90, got "95"$/);
  });
  assert.equal(seen.length, 0);
  assert.throws(() => validateArgs(hillshadeTool, { dem: 'dem.tif', altitude: -1 }, dir), /hillshade: argument "altitude" must be a number between 0 and 90, got -1/);
  const kmeans = BUILTIN_TOOLS.find((t) => t.id === 'kmeans_classify')!;
  assert.throws(() => validateArgs(kmeans, { image: 'x.tif', k: 1 }, dir), /kmeans_classify: argument "k" must be an integer between 2 and 50, got 1/);
});

test('a tool that reads one file refuses a role map by name, instead of opening "[object Object]"', async () => {
  const dir = tmpDir();
  await assert.rejects(runTool('raster_info', { image: { red: 'B04.tif' } }, { outDir: dir, cwd: dir }),
    /raster_info: argument "image" must be one raster file or URL \(raster_info does not take a \{role: path\} mapping\)/);
  await assert.rejects(runTool('align', { image: 'a.tif', reference: '{"red": "B04.tif"}' }, { outDir: dir, cwd: dir }),
    /align: argument "reference" must be one raster file or URL/);
});

test('a list parameter that allows patterns reaches the tool as the matching files, sorted', () => {
  const dir = tmpDir();
  fs.mkdirSync(path.join(dir, 'scenes'));
  for (const f of ['s2_b.tif', 's2_a.tif', 'other.tif']) fs.writeFileSync(path.join(dir, 'scenes', f), '');
  const args = validateArgs(medianCompositeTool, { images: 'scenes/s2_*.tif, scenes/other.tif' }, dir);
  assert.deepEqual(args.images, ['s2_a.tif', 's2_b.tif', 'other.tif'].map((f) => path.join(dir, 'scenes', f)));
  assert.throws(() => validateArgs(medianCompositeTool, { images: 'scenes/none_*.tif' }, dir),
    /^Error: median_composite: argument "images": ".*none_\*\.tif" matches no file in /);
});
