import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { loadCatalog } from '../../src/core/manifests/load';
import { builtinCatalog, tmpDir } from '../fixtures/helpers';

const schemaFile = path.join(builtinCatalog, 'schema.json');
const load = (dir: string) => loadCatalog({ noBuiltin: true, extraDirs: [dir], schemaFile });

test('YAML manifests load as their JSON form does: the same manifest, the same content hash', () => {
  const json = tmpDir('gw-yaml-');
  const yaml = tmpDir('gw-yaml-');
  for (const f of fs.readdirSync(builtinCatalog).filter((n) => /^(ndvi|slope|zonal_stats)\.json$/.test(n))) fs.copyFileSync(path.join(builtinCatalog, f), path.join(json, f));
  // The same three tools written by hand in YAML, with comments, block lists and a folded description.
  for (const f of fs.readdirSync(json)) {
    const m = JSON.parse(fs.readFileSync(path.join(json, f), 'utf8'));
    fs.writeFileSync(path.join(yaml, f.replace(/\.json$/, f === 'slope.json' ? '.yml' : '.yaml')), `# ${m.id}, as a team would write it\n${toYaml(m, 0)}`);
  }
  const a = load(json);
  const b = load(yaml);
  assert.deepEqual(b.problems.filter((p) => p.severity === 'error'), []);
  assert.equal(b.tools.length, 3);
  const byId = (c: typeof a) => new Map(c.tools.map((t) => [t.manifest.id, t]));
  for (const [id, t] of byId(a)) {
    const y = byId(b).get(id);
    assert.ok(y, id);
    assert.deepEqual(y.manifest, t.manifest, id);
    assert.equal(y.hash, t.hash, id);
  }
});

test('a YAML catalog: several documents are a list of tools; YAML 1.2 scalars ("no" stays a word); warnings as for JSON', () => {
  const dir = tmpDir('gw-yaml-');
  fs.writeFileSync(path.join(dir, 'catalog.yaml'), [
    '# Our flood team\'s tools',
    'id: water_depth',
    'name: Water depth',
    'description: Water depth from a flood extent and a terrain model.',
    'inputs:',
    '  - {name: extent, type: GeoTIFF}',
    '  - name: dem',
    '    type: raster',
    '---',
    'id: no',
    'name: Norway mask',
    'description: Land mask of Norway.',
    'tags: [no, yes, off]',
    '---',
    '',
  ].join('\n'));
  const c = load(dir);
  assert.deepEqual(c.problems.filter((p) => p.severity === 'error'), []);
  const ids = c.tools.map((t) => t.manifest.id).sort();
  assert.deepEqual(ids, ['no', 'water_depth']);
  const depth = c.tools.find((t) => t.manifest.id === 'water_depth')!.manifest;
  assert.deepEqual(depth.inputs?.map((i) => i.type), ['raster', 'raster']);
  assert.deepEqual(c.tools.find((t) => t.manifest.id === 'no')!.manifest.tags, ['no', 'yes', 'off']);
  // The foreign type is read as ours with a warning that names the file and the list entry.
  assert.ok(c.problems.some((p) => p.severity === 'warning' && p.file.endsWith('catalog.yaml') && p.path.startsWith('/0/inputs/0')), JSON.stringify(c.problems));
});

test('bad YAML is an error naming the file and the line; an alias bomb, a duplicate key and a code tag are refused; nothing else is lost', () => {
  const dir = tmpDir('gw-yaml-');
  fs.writeFileSync(path.join(dir, 'good.yaml'), 'id: good\nname: Good\ndescription: A tool that loads.\n');
  fs.writeFileSync(path.join(dir, 'broken.yaml'), 'id: broken\ndescription: [unclosed\nname: x\n');
  fs.writeFileSync(path.join(dir, 'twice.yml'), 'id: twice\ndescription: One.\ndescription: Two.\n');
  fs.writeFileSync(path.join(dir, 'code.yaml'), 'id: code\ndescription: !!js/function "function () { return 1 }"\n');
  const lol = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
  for (let i = 1; i < 9; i++) lol.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${String.fromCharCode(96 + i)}`).join(',')}]`);
  fs.writeFileSync(path.join(dir, 'bomb.yaml'), `id: bomb\ndescription: Laughs.\nextra:\n${lol.map((l) => `  ${l}`).join('\n')}\n`);
  fs.writeFileSync(path.join(dir, 'empty.yaml'), '# nothing here\n');
  const c = load(dir);
  assert.deepEqual(c.tools.map((t) => t.manifest.id), ['good']);
  const err = (name: string) => c.problems.find((p) => p.severity === 'error' && path.basename(p.file) === name);
  for (const name of ['broken.yaml', 'twice.yml', 'code.yaml', 'bomb.yaml', 'empty.yaml']) assert.ok(err(name), `${name}: ${JSON.stringify(c.problems)}`);
  assert.match(err('broken.yaml')!.message, /cannot read YAML: .*line \d+/);
  assert.match(err('twice.yml')!.message, /unique|duplicate/i);
  assert.match(err('bomb.yaml')!.message, /alias/i);
});

/** A small YAML writer for the round-trip test (block maps and lists, quoted strings). */
function toYaml(v: unknown, indent: number): string {
  const pad = ' '.repeat(indent);
  if (Array.isArray(v)) return v.map((x) => (x && typeof x === 'object' ? `${pad}-\n${toYaml(x, indent + 2)}` : `${pad}- ${scalar(x)}\n`)).join('');
  return Object.entries(v as Record<string, unknown>).map(([k, x]) => {
    if (x && typeof x === 'object') return (Array.isArray(x) && !x.length) || (!Array.isArray(x) && !Object.keys(x).length) ? `${pad}${k}: ${Array.isArray(x) ? '[]' : '{}'}\n` : `${pad}${k}:\n${toYaml(x, indent + 2)}`;
    return `${pad}${k}: ${scalar(x)}\n`;
  }).join('');
}

function scalar(x: unknown): string {
  return typeof x === 'string' ? JSON.stringify(x) : String(x);
}
