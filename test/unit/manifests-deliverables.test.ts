import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { GeoWeave } from '../../src/core/geoweave';
import { loadCatalog } from '../../src/core/manifests/load';
import { opaqueId } from '../../src/core/eval/bare';
import { memoryFromFlow } from '../../src/core/eval/memory-from-flow';
import type { ToolManifest } from '../../src/core/manifests/types';
import { builtinCatalog, tmpDir, writeJson } from '../fixtures/helpers';

/** The builtin catalog with every tool id replaced (references too), manifests otherwise as they are. */
function renamedCatalog(): { dir: string; id: (x: string) => string } {
  const dir = tmpDir('gw-renamed-');
  const id = (x: string) => opaqueId(x, 'other-team');
  for (const t of loadCatalog({ builtinDir: builtinCatalog }).tools) {
    const m: ToolManifest = JSON.parse(JSON.stringify(t.manifest));
    m.id = id(m.id);
    for (const f of ['prerequisites', 'downstream', 'related'] as const) if (m[f]) m[f] = m[f]!.map(id);
    writeJson(path.join(dir, `${m.id}.json`), m);
  }
  return { dir, id };
}

test('knowledge about tools lives in manifests: a catalog with other tool ids keeps deliverables, named indicators and class picks', async () => {
  const { dir, id } = renamedCatalog();
  const gw = await GeoWeave.open({ noBuiltin: true, extraManifestDirs: [dir], stateDir: tmpDir(), practice: false });
  try {
    const next = async (task: string, done: string[]) => (await gw.complementarySuggestions(memoryFromFlow(gw, task, done.map(id)), { k: 63 })).ranked;
    const part = (r: Awaited<ReturnType<typeof next>>, tool: string, p: string) => r.find((s) => s.id === id(tool))?.parts[p];
    // "as polygons" asks for the tools that declare `delivers: polygons`
    const a = await next('outline the flooded area as polygons', ['mndwi', 'threshold']);
    assert.equal(part(a, 'vectorize_mask', 'deliver'), 1);
    assert.equal(part(a, 'zonal_stats', 'deliver'), 0);
    // a named indicator brings up the tool that `computes` it, under any id
    const b = await next('mean NDMI inside each orchard block', ['cloud_mask']);
    assert.equal(part(b, 'ndmi', 'named'), 1);
    assert.equal(part(b, 'ndvi', 'named'), 0);
    // one class named over a class map: the tool that delivers a class pick
    const c = await next('how much cropland is there', ['landcover_worldcover']);
    assert.equal(part(c, 'threshold', 'pick'), 1);
  } finally {
    await gw.dispose();
  }
});

test('a tool\'s own indicator names count when the task writes them; short capital names only in capitals', async () => {
  const dir = tmpDir();
  writeJson(path.join(dir, 'hand_index.json'), { id: 'hand_index', description: 'Height above the nearest drainage from a DEM.', computes: ['HAND'], inputs: [{ name: 'dem', type: 'raster' }] });
  writeJson(path.join(dir, 'flow_acc.json'), { id: 'flow_acc', description: 'Flow accumulation.', computes: ['flow accumulation'], inputs: [{ name: 'dem', type: 'raster' }] });
  writeJson(path.join(dir, 'dem_fill.json'), { id: 'dem_fill', description: 'Fills sinks.', inputs: [{ name: 'dem', type: 'raster' }] });
  const gw = await GeoWeave.open({ noBuiltin: true, extraManifestDirs: [dir], stateDir: tmpDir(), practice: false });
  try {
    const named = async (task: string, tool: string) => (await gw.complementarySuggestions(memoryFromFlow(gw, task, ['dem_fill']), { k: 3 })).ranked.find((s) => s.id === tool)?.parts.named;
    assert.equal(await named('flood-prone land by HAND below 5 m', 'hand_index'), 1);
    assert.equal(await named('on the other hand, where is it flat', 'hand_index'), 0);
    assert.equal(await named('where does Flow Accumulation peak', 'flow_acc'), 1);
  } finally {
    await gw.dispose();
  }
});

test('an unknown deliverable kind is a warning naming the file and the kind; the manifest still loads', () => {
  const dir = tmpDir();
  writeJson(path.join(dir, 'x.json'), { id: 'x_tool', description: 'Does x.', delivers: ['preview', 'pdf_report'] });
  const c = loadCatalog({ noBuiltin: true, extraDirs: [dir] });
  assert.equal(c.tools.length, 1);
  assert.deepEqual(c.tools[0].manifest.delivers, ['preview']);
  const p = c.problems.find((x) => x.path === '/delivers/1');
  assert.ok(p && p.severity === 'warning' && /unknown deliverable "pdf_report"/.test(p.message) && p.file.endsWith('x.json'), JSON.stringify(c.problems));
  assert.ok(fs.existsSync(path.join(builtinCatalog, 'fusion.json')) && !loadCatalog({}).problems.some((q) => q.file.endsWith('fusion.json')), 'fusion.json is not read as a manifest');
});
