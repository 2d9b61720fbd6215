import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { loadCatalog, MAX_EXAMPLES, MAX_FOLDER_FILES } from '../../src/core/manifests/load';
import { GeoWeave } from '../../src/core/geoweave';
import { builtinCatalog, fixtureCatalog, tmpDir, writeJson } from '../fixtures/helpers';

const schemaFile = path.join(builtinCatalog, 'schema.json');
const tool = (id: string, extra: object = {}) => ({ id, name: id, description: `The ${id} tool.`, ...extra });

function workspaceWith(files: Record<string, string>): string {
  const ws = tmpDir();
  const dir = path.join(ws, '.geoweave', 'tools');
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return ws;
}

test('a manifest with 200k examples is refused by size, quickly, and one with many is capped with a warning', async () => {
  const huge = JSON.stringify(tool('huge', { examples: Array.from({ length: 200_000 }, (_, i) => `example task number ${i}`) }));
  const many = JSON.stringify(tool('many', { examples: Array.from({ length: 80 }, (_, i) => `example ${i}`) }));
  const ws = workspaceWith({ 'huge.json': huge, 'many.json': many });
  const t0 = Date.now();
  const c = loadCatalog({ noBuiltin: true, extraDirs: [fixtureCatalog], workspaceDir: ws, schemaFile });
  assert.ok(Date.now() - t0 < 5000);
  assert.ok(!c.tools.some((t) => t.manifest.id === 'huge'));
  assert.match(c.problems.find((p) => p.file.endsWith('huge.json'))!.message, /bytes, more than a manifest may have \(2048 KB\); not read/);
  const m = c.tools.find((t) => t.manifest.id === 'many')!;
  assert.equal(m.manifest.examples!.length, MAX_EXAMPLES);
  assert.match(c.problems.find((p) => p.file.endsWith('many.json'))!.message, /80 examples; only the first 50 are indexed/);
  // And the engine opens on it in seconds, not minutes.
  const gw = await GeoWeave.open({ noBuiltin: true, extraManifestDirs: [fixtureCatalog], workspaceDir: ws, stateDir: tmpDir() });
  assert.ok(gw.getTool('many') && !gw.getTool('huge'));
  await gw.dispose();
});

test('a workspace folder with thousands of manifests is read up to a cap, with a warning', () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < MAX_FOLDER_FILES + 100; i++) files[`t${String(i).padStart(4, '0')}.json`] = JSON.stringify(tool(`t${i}`));
  const ws = workspaceWith(files);
  const c = loadCatalog({ noBuiltin: true, extraDirs: [fixtureCatalog], workspaceDir: ws, schemaFile });
  assert.equal(c.tools.filter((t) => t.source === 'workspace').length, MAX_FOLDER_FILES);
  assert.ok(c.problems.some((p) => p.severity === 'warning' && /more than 500 manifest files; the rest of the folder is not read/.test(p.message)));
});

test('a byte-order mark is accepted; ids that name JavaScript object members are refused', () => {
  const ws = workspaceWith({
    'bom.json': '\uFEFF' + JSON.stringify(tool('bom_tool')),
    'proto.json': JSON.stringify(tool('__proto__')),
    'ctor.json': JSON.stringify(tool('constructor')),
  });
  writeJson(path.join(ws, '.geoweave', 'tools', 'workflows', 'w.json'), { id: 'w', description: 'd', steps: ['bom_tool'] });
  fs.writeFileSync(path.join(ws, '.geoweave', 'tools', 'workflows', 'w.json'), '\uFEFF' + fs.readFileSync(path.join(ws, '.geoweave', 'tools', 'workflows', 'w.json'), 'utf8'));
  const c = loadCatalog({ noBuiltin: true, extraDirs: [fixtureCatalog], workspaceDir: ws, schemaFile });
  assert.ok(c.tools.some((t) => t.manifest.id === 'bom_tool'), c.problems.map((p) => p.message).join('\n'));
  assert.ok(c.workflows.some((w) => w.id === 'w'));
  assert.ok(!c.tools.some((t) => t.manifest.id === '__proto__' || t.manifest.id === 'constructor'));
  assert.match(c.problems.find((p) => p.file.endsWith('ctor.json'))!.message, /"constructor" is reserved/);
});
