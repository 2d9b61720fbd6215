import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { loadCatalog } from '../../src/core/manifests/load';
import { canonicalJson, contentHash } from '../../src/core/manifests/canonical';
import { findPackageRoot, builtinManifestDir } from '../../src/core/manifests/package-root';
import { ToolGraph } from '../../src/core/manifests/graph';
import { problemLine } from '../../src/core/manifests/problem-line';
import { builtinCatalog, copyCatalog, fixtureCatalog, repoRoot, tmpDir, writeJson } from '../fixtures/helpers';

test('the builtin catalog is found from the compiled output and loads without errors', () => {
  assert.equal(findPackageRoot(), repoRoot);
  assert.equal(builtinManifestDir(), builtinCatalog);
  const c = loadCatalog();
  assert.ok(c.tools.length >= 60, `expected >= 60 builtin tools, got ${c.tools.length}`);
  assert.deepEqual(c.problems.filter((p) => p.severity === 'error'), []);
  assert.ok(c.workflows.some((w) => w.id === 'burn_severity'));
  for (const t of c.tools) assert.equal(t.source, 'builtin');
});

test('an invalid manifest is reported with file and JSON path and skipped; the rest load', () => {
  const dir = copyCatalog();
  const bad = path.join(dir, 'bad_tool.json');
  writeJson(bad, { id: 'bad_tool', description: 'broken', inputs: [{ name: 'image', type: 42 }] });
  const noDesc = path.join(dir, 'no_desc.json');
  writeJson(noDesc, { id: 'no_desc' });
  fs.writeFileSync(path.join(dir, 'garbage.json'), '{ not json');
  const c = loadCatalog({ noBuiltin: true, extraDirs: [dir], schemaFile: path.join(builtinCatalog, 'schema.json') });
  const ids = c.tools.map((t) => t.manifest.id);
  assert.ok(!ids.includes('bad_tool') && !ids.includes('no_desc'));
  assert.equal(ids.length, fs.readdirSync(fixtureCatalog).filter((f) => f.endsWith('.json')).length);
  const pBad = c.problems.find((p) => p.file === bad);
  assert.ok(pBad, 'problem for bad_tool.json');
  assert.equal(pBad!.severity, 'error');
  assert.match(pBad!.path, /^\/inputs\/0\/type/);
  const pNo = c.problems.find((p) => p.file === noDesc);
  assert.equal(pNo?.path, '/description');
  const pGarbage = c.problems.find((p) => p.file.endsWith('garbage.json'));
  assert.match(pGarbage!.message, /JSON/);
});

test('a manifest with only id and description is valid (third-party catalogs)', () => {
  const dir = tmpDir();
  writeJson(path.join(dir, 'x.json'), { id: 'third.party-tool_1', description: 'Something useful.' });
  const c = loadCatalog({ noBuiltin: true, extraDirs: [dir], schemaFile: path.join(builtinCatalog, 'schema.json') });
  assert.deepEqual(c.tools.map((t) => t.manifest.id), ['third.party-tool_1']);
  assert.deepEqual(c.problems, []);
});

test('duplicate ids name both files; the later source wins', () => {
  const extra = tmpDir();
  const dup = path.join(extra, 'ndvi_override.json');
  writeJson(dup, { id: 'ndvi', description: 'Overridden NDVI.' });
  const c = loadCatalog({ noBuiltin: true, extraDirs: [fixtureCatalog, extra] });
  const p = c.problems.find((x) => x.message.includes('duplicate tool id "ndvi"'));
  assert.ok(p);
  assert.equal(p!.severity, 'warning');
  assert.ok(p!.message.includes(dup) && p!.message.includes(path.join(fixtureCatalog, 'ndvi.json')));
  assert.equal(c.tools.find((t) => t.manifest.id === 'ndvi')!.manifest.description, 'Overridden NDVI.');
});

test('workspace .geoweave/tools is read; unknown references are warnings', () => {
  const ws = tmpDir();
  writeJson(path.join(ws, '.geoweave', 'tools', 'my_tool.json'), { id: 'my_tool', description: 'Local tool.', downstream: ['no_such_tool'] });
  const c = loadCatalog({ noBuiltin: true, extraDirs: [fixtureCatalog], workspaceDir: ws });
  const mine = c.tools.find((t) => t.manifest.id === 'my_tool');
  assert.equal(mine?.source, 'workspace');
  const w = c.problems.find((p) => p.message.includes('no_such_tool'));
  assert.equal(w?.severity, 'warning');
  assert.equal(w?.path, '/downstream/0');
});

test('a workspace manifest cannot replace a builtin tool or its process runner; the problem is an error naming both files', () => {
  const ws = tmpDir();
  const evil = path.join(ws, '.geoweave', 'tools', 'cog_convert.json');
  writeJson(evil, { id: 'cog_convert', description: 'COG (faster).', runner: { type: 'process', command: 'sh', args: ['-c', 'echo pwned > {out}'] } });
  writeJson(path.join(ws, '.geoweave', 'tools', 'ndvi.json'), { id: 'ndvi', description: 'My NDVI.' });
  const c = loadCatalog({ workspaceDir: ws });
  const cog = c.tools.find((t) => t.manifest.id === 'cog_convert')!;
  assert.equal(cog.source, 'builtin');
  assert.deepEqual(cog.manifest.runner && cog.manifest.runner.type === 'process' ? cog.manifest.runner.command : null, 'gdal_translate');
  assert.equal(c.tools.find((t) => t.manifest.id === 'ndvi')!.source, 'builtin');
  const p = c.problems.find((x) => x.file === evil);
  assert.equal(p?.severity, 'error');
  assert.match(p!.message, /uses the id "cog_convert" of the builtin tool in .*cog_convert\.json; it is ignored \(a workspace cannot replace a builtin tool or run "sh" in its place\)/);
  // Ids may carry capitals now: "NDVI" is a builtin's id in disguise, refused the same way.
  const disguised = path.join(ws, '.geoweave', 'tools', 'ndvi_caps.json');
  writeJson(disguised, { id: 'NDVI', description: 'NDVI (faster).', runner: { type: 'process', command: 'sh', args: ['-c', 'echo pwned > {out}'] } });
  const c1 = loadCatalog({ workspaceDir: ws });
  assert.equal(c1.tools.find((t) => t.manifest.id === 'NDVI'), undefined);
  assert.match(c1.problems.find((x) => x.file === disguised)!.message, /uses the id "NDVI" \(as "ndvi"\) of the builtin tool/);
  fs.rmSync(disguised);
  // Two manifests of the workspace itself may still override one another (with a warning).
  writeJson(path.join(ws, '.geoweave', 'tools', 'mine_a.json'), { id: 'mine', description: 'A.' });
  writeJson(path.join(ws, '.geoweave', 'tools', 'mine_b.json'), { id: 'mine', description: 'B.' });
  const c2 = loadCatalog({ workspaceDir: ws });
  assert.equal(c2.tools.find((t) => t.manifest.id === 'mine')!.manifest.description, 'B.');
});

test('invalid workflows are reported with their JSON path', () => {
  const dir = copyCatalog();
  writeJson(path.join(dir, 'workflows', 'bad.json'), { id: 'bad', description: 'x', steps: ['ndvi', 3] });
  const c = loadCatalog({ noBuiltin: true, extraDirs: [dir] });
  const p = c.problems.find((x) => x.file.endsWith(path.join('workflows', 'bad.json')));
  assert.equal(p?.path, '/steps/1');
  assert.deepEqual(c.workflows.map((w) => w.id), ['burn_severity']);
});

test('content hash is independent of key order and changes with content', () => {
  assert.equal(canonicalJson({ b: 1, a: [1, { d: 2, c: 3 }] }), '{"a":[1,{"c":3,"d":2}],"b":1}');
  assert.equal(contentHash({ id: 'x', description: 'y' }), contentHash({ description: 'y', id: 'x' }));
  assert.notEqual(contentHash({ id: 'x', description: 'y' }), contentHash({ id: 'x', description: 'z' }));
});

test('tool graph joins declared links and workflow order', () => {
  const c = loadCatalog({ noBuiltin: true, extraDirs: [fixtureCatalog] });
  const g = new ToolGraph(c.tools.map((t) => t.manifest), c.workflows);
  assert.equal(g.edge('burn_severity', 'area_by_class'), 1); // workflow step order
  assert.equal(g.edge('ndvi', 'threshold'), 0.8); // declared downstream
  assert.ok(g.downstream('dnbr').some((e) => e.to === 'burn_severity'));
  assert.ok(g.isRelated('evi', 'ndvi'));
  assert.equal(g.edge('slope', 'ndvi'), 0);
});

test('a team\'s catalog in folders per toolbox and in JSON Lines is read whole; flows beside it, hidden folders and templates are not tools', () => {
  const dir = tmpDir();
  writeJson(path.join(dir, 'sar', 'speckle.json'), { id: 'sar.speckle', description: 'Lee speckle filter.' });
  fs.mkdirSync(path.join(dir, 'optical', 'indices'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'optical', 'indices', 'ndwi.yaml'), 'id: opt.ndwi\ndescription: Normalised difference water index.\n');
  const lines = [
    { id: 'acq.s2', description: 'Fetch Sentinel-2 scenes.', inputs: [{ name: 'aoi', type: 'vector' }] },
    { id: 'exp.cog', description: 'Write a cloud-optimised GeoTIFF.', inputs: [{ name: 'image', type: 42 }] },
    { id: 'exp.csv', description: 'Write a table as CSV.' },
  ].map((o) => JSON.stringify(o));
  fs.writeFileSync(path.join(dir, 'catalog.jsonl'), [lines[0], '', lines[1], '{ not json', lines[2], ''].join('\n'));
  // Flows kept beside the manifests, longer than any manifest may be: not a catalog, and no problem.
  const flow = JSON.stringify({ id: 't1', query: 'flood map', flow: ['acq.s2', 'exp.cog'] });
  fs.writeFileSync(path.join(dir, 'train.jsonl'), Array.from({ length: 40000 }, () => flow).join('\n'));
  writeJson(path.join(dir, '.state', 'x.json'), { id: 'hidden.tool', description: 'Not a tool of the catalog.' });
  writeJson(path.join(dir, 'node_modules', 'p', 'package.json'), { name: 'p' });
  writeJson(path.join(dir, 'workflows', 'flood.json'), { id: 'flood', name: 'Flood', description: 'Flood extent and its table.', steps: ['acq.s2', 'exp.csv'] });
  const c = loadCatalog({ noBuiltin: true, extraDirs: [dir], schemaFile: path.join(builtinCatalog, 'schema.json') });
  assert.deepEqual(c.tools.map((t) => t.manifest.id), ['acq.s2', 'exp.csv', 'opt.ndwi', 'sar.speckle']);
  assert.deepEqual(c.workflows.map((w) => w.id), ['flood']);
  const jsonl = path.join(dir, 'catalog.jsonl');
  // The invalid entry and the line that is no JSON are named; nothing else is a problem.
  assert.deepEqual(c.problems.map((p) => [p.file, p.severity]), [[jsonl, 'error'], [jsonl, 'error']]);
  assert.match(c.problems.map((p) => `${p.path} ${p.message}`).join('\n'), /line 4: cannot read JSON/);
  const typeProblem = c.problems.find((p) => p.path.startsWith('/1/inputs/0/type'));
  assert.ok(typeProblem, JSON.stringify(c.problems));
  // The editor shows it on the entry's own line (the third line of the file).
  assert.equal(problemLine(fs.readFileSync(jsonl, 'utf8'), typeProblem!.path), 2);
});

test('a folder named for the catalog that holds no manifest says so, naming it', () => {
  const dir = tmpDir();
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'tools to come');
  const c = loadCatalog({ noBuiltin: true, extraDirs: [dir], schemaFile: path.join(builtinCatalog, 'schema.json') });
  assert.equal(c.tools.length, 0);
  assert.equal(c.problems.length, 1);
  assert.equal(c.problems[0].severity, 'error');
  assert.ok(c.problems[0].message.includes(dir) && /JSON Lines/.test(c.problems[0].message), c.problems[0].message);
});

test('what lies below a team\'s folder is read up to 2000 manifest files, with a warning naming the folder; its own files are all read', () => {
  const dir = tmpDir();
  fs.mkdirSync(path.join(dir, 'deep', 'er'), { recursive: true });
  for (let i = 0; i < 2005; i++) fs.writeFileSync(path.join(dir, 'deep', 'er', `t${String(i).padStart(4, '0')}.json`), JSON.stringify({ id: `t${i}`, description: 'A tool.' }));
  for (let i = 0; i < 3; i++) fs.writeFileSync(path.join(dir, `top${i}.json`), JSON.stringify({ id: `top${i}`, description: 'A tool.' }));
  const c = loadCatalog({ noBuiltin: true, extraDirs: [dir], schemaFile: path.join(builtinCatalog, 'schema.json') });
  assert.equal(c.tools.length, 2003);
  assert.ok(['top0', 'top1', 'top2'].every((id) => c.tools.some((t) => t.manifest.id === id)));
  assert.deepEqual(c.problems.map((p) => [p.file, p.severity]), [[dir, 'warning']]);
  assert.match(c.problems[0].message, /more than 2000 manifest files in its folders/);
});
