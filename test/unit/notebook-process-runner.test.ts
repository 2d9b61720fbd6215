import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { expandArgv, runProcessTool } from '../../src/core/notebook/process-runner';
import type { ToolManifest } from '../../src/core/manifests/types';

import { tmpDir } from '../helpers/raster-gdal';

/** A temp folder removed when the test process exits. */
const tmp = () => tmpDir('gw-proc-');

/** A manifest whose command is node running `script` with the templated arguments after it. */
function nodeTool(script: string, args: string[], inputs: ToolManifest['inputs'] = [{ name: 'image', type: 'raster' }]): ToolManifest {
  return { id: 'fake', description: 'test tool', inputs, outputs: [{ name: 'result', type: 'raster' }], runner: { type: 'process', command: process.execPath, args: ['-e', script, '--', ...args] } };
}

const listing = (d: string) => (fs.existsSync(d) ? fs.readdirSync(d) : []);

test('process runner: a command that writes {out} and exits non-zero leaves nothing in the output folder', async () => {
  const dir = tmp(), out = path.join(dir, 'out');
  const m = nodeTool("require('fs').writeFileSync(process.argv.at(-1), 'half'); process.stderr.write('disk full'); process.exit(3)", ['{image}', '{out}']);
  await assert.rejects(runProcessTool(m, { image: 'in.tif' }, { outDir: out, cwd: dir }), /fake: .* exited with code 3: disk full/);
  assert.deepEqual(listing(out), []);
});

test('process runner: exit 0 without writing {out} is an error, not "wrote X"', async () => {
  const dir = tmp(), out = path.join(dir, 'out');
  const m = nodeTool('process.exit(0)', ['{image}', '{out}']);
  await assert.rejects(runProcessTool(m, { image: 'in.tif' }, { outDir: out, cwd: dir }), /fake: .* exited with code 0 but did not write fake_\d+\.tif/);
  assert.deepEqual(listing(out), []);
});

test('process runner: the output and the command\'s sidecar files land in the output folder; names do not collide', async () => {
  const dir = tmp(), out = path.join(dir, 'out');
  const m = nodeTool("const fs = require('fs'); const o = process.argv.at(-1); fs.writeFileSync(o, 'x'); fs.writeFileSync(o + '.aux.xml', '<x/>')", ['{image}', '{out}']);
  const a = await runProcessTool(m, { image: 'in.tif' }, { outDir: out, cwd: dir });
  const b = await runProcessTool(m, { image: 'in.tif' }, { outDir: out, cwd: dir });
  assert.notEqual(a.outputs.result.path, b.outputs.result.path);
  for (const r of [a, b]) {
    assert.equal(path.dirname(r.outputs.result.path), out);
    assert.ok(fs.existsSync(r.outputs.result.path) && fs.existsSync(r.outputs.result.path + '.aux.xml'));
    assert.match(r.summary, new RegExp(`wrote ${path.basename(r.outputs.result.path).replace('.', '\\.')}`));
  }
  assert.equal(listing(out).filter((f) => f.startsWith('.')).length, 0, 'no staging folder left');
});

test('process runner: values that would become options are refused before the command runs', async () => {
  const dir = tmp(), out = path.join(dir, 'out'), marker = path.join(dir, 'ran');
  const m = nodeTool(`require('fs').writeFileSync(${JSON.stringify(marker)}, process.argv.slice(1).join('|')); require('fs').writeFileSync(process.argv.at(-1), 'x')`,
    ['-t_srs', '{dst_crs}', '{image}', '{out}'], [{ name: 'image', type: 'raster' }, { name: 'dst_crs', type: 'string' }]);
  await assert.rejects(runProcessTool(m, { image: 'in.tif', dst_crs: '--config' }, { outDir: out, cwd: dir }), /fake: argument "dst_crs" is "--config", which starts with "-" and would be read as an option/);
  await assert.rejects(runProcessTool(m, { image: 'in.tif', dst_crs: 'EPSG:4326\n-co' }, { outDir: out, cwd: dir }), /argument "dst_crs" contains a line break/);
  await assert.rejects(runProcessTool(m, { image: 'in.tif', dst_crs: 'x', constructor: 'y' }, { outDir: out, cwd: dir }), /fake: unknown argument "constructor"/);
  assert.ok(!fs.existsSync(marker), 'the command must not have run');
  // A raster path that starts with "-" is a file, made absolute; a negative number is a value.
  const r = await runProcessTool(m, { image: '-in.tif', dst_crs: '-1' }, { outDir: out, cwd: dir });
  assert.equal(fs.readFileSync(marker, 'utf8').split('|').slice(0, 3).join('|'), `-t_srs|-1|${path.join(dir, '-in.tif')}`);
  assert.ok(fs.existsSync(r.outputs.result.path));
});

test('expandArgv: lists spread into one element each, numbers are checked, quotes cannot leave an embedded value', () => {
  assert.deepEqual(expandArgv('{images}', { images: ['/a.tif', '/b c.tif'] }, '/o'), ['/a.tif', '/b c.tif']);
  assert.throws(() => expandArgv('{images}', { images: ['/a.tif', '-of'] }, '/o', 'mosaic'), /mosaic: argument "images" is "-of"/);
  assert.throws(() => expandArgv('SELECT * FROM "{layer}"', { layer: 'x" UNION SELECT 1 --' }, '/o', 'buf'), /buf: argument "layer" may not contain quotes/);
  assert.deepEqual(expandArgv('COMPRESS={compress}', { compress: 'DEFLATE' }, '/o'), ['COMPRESS=DEFLATE']);
  assert.throws(() => expandArgv('{x}', Object.create({ x: 'inherited' }), '/o'), /argument "x" is needed/);
});

test('process runner: a GDAL command\'s GeoTIFF says how it was made (gdalinfo lists the GEOWEAVE_ items), and the run records it', async (t) => {
  if (spawnSync('gdal_translate', ['--version']).status !== 0) { t.skip('GDAL is not installed'); return; }
  const dir = tmp(), out = path.join(dir, 'out');
  const src = path.join(dir, 'in.tif');
  assert.equal(spawnSync('gdal_create', ['-of', 'GTiff', '-outsize', '40', '30', '-bands', '1', '-burn', '7', '-a_srs', 'EPSG:32633', '-a_ullr', '500000', '4600000', '500400', '4599700', src]).status, 0);
  const m: ToolManifest = {
    id: 'translate_byte', description: 'gdal_translate to Byte', inputs: [{ name: 'image', type: 'raster' }], outputs: [{ name: 'result', type: 'raster' }],
    runner: { type: 'process', command: 'gdal_translate', args: ['-ot', 'Byte', '{image}', '{out}'] },
  };
  const r = await runProcessTool(m, { image: 'in.tif' }, { outDir: out, cwd: dir });
  assert.equal(r.provenance?.tool, 'translate_byte');
  assert.match(r.provenance?.manifest ?? '', /^sha256:[0-9a-f]{12}$/);
  assert.equal(r.provenance?.inputs.length, 1);
  assert.equal(r.provenance?.inputs[0].path, src);
  const sha = createHash('sha256').update(fs.readFileSync(src)).digest('hex');
  assert.equal(r.provenance?.inputs[0].sha256, sha);
  const info = JSON.parse(spawnSync('gdalinfo', ['-json', r.outputs.result.path], { encoding: 'utf8' }).stdout);
  const md = info.metadata?.[''] ?? {};
  assert.equal(md.GEOWEAVE_TOOL, 'translate_byte');
  assert.match(md.GEOWEAVE_INPUTS, new RegExp(sha));
  assert.deepEqual(JSON.parse(md.GEOWEAVE_ARGS), { image: 'in.tif' });
  // The pixels are the command's: GDAL still reads the file as it wrote it.
  assert.equal(info.bands[0].type, 'Byte');
  const stats = spawnSync('gdalinfo', ['-stats', '-json', r.outputs.result.path], { encoding: 'utf8' });
  assert.equal(JSON.parse(stats.stdout).bands[0].maximum, 7);
});
