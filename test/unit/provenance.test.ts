/** Provenance of runs: GeoTIFF metadata read back by gdalinfo, the cell metadata round trip, bounds,
 *  the result card's line; QGIS styles next to raster outputs in the quicklook's colours. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { writeSampleWorkspace } from '../../src/core/raster/sample/generate';
import { runNotebook } from '../../src/core/notebook/run-notebook';
import { parseNotebook, serializeNotebook } from '../../src/core/notebook/notebook-file';
import { runFromMetadata } from '../../src/core/notebook/session';
import { boundedArgs, describeInputs, MAX_INPUTS, MAX_ARG_CHARS, provenanceFromMetadata, provenanceLine, sha256File, type RunProvenance } from '../../src/core/raster/provenance';
import { resultView } from '../../src/core/results/view-model';
import { viewFromSaved, boundedView } from '../../src/core/results/saved-result';
import { addGdalMetadata, mergeItems } from '../../src/core/raster/io/tiff-metadata';
import { writeRaster } from '../../src/core/raster/io/writer';
import { classColors, RAMPS, hex } from '../../src/core/results/palettes';
import { gdalSkip, gdalinfoJson, pyJson, tmpDir } from '../helpers/raster-gdal';
import type { NotebookRecord } from '../../src/core/notebook/types';

const skip = gdalSkip('provenance against gdalinfo', ['gdalinfo']);

function notebook(): NotebookRecord {
  return {
    metadata: { memory: { task: 'where is the vegetation dense, and how badly did the fire burn?', trace: [], windowSize: 5 } },
    cells: [
      { kind: 'markdown', source: '# Vegetation and fire' },
      { kind: 'tool', source: 'ndvi\nimage: s2_scene.tif\nsensor: sentinel2_l2a', metadata: { cellId: 'a1' } },
      { kind: 'tool', source: 'threshold as dense\nimage: $ndvi.index\nop: gt\nvalue: 0.6', metadata: { cellId: 'b2' } },
      { kind: 'tool', source: 'dnbr\npre: fire_pre.tif\npost: fire_post.tif', metadata: { cellId: 'c3' } },
      { kind: 'tool', source: 'burn_severity\nimage: $dnbr.dnbr', metadata: { cellId: 'd4' } },
    ],
  };
}

let ran: { dir: string; nb: NotebookRecord } | undefined;
async function ranNotebook(): Promise<{ dir: string; nb: NotebookRecord }> {
  if (ran) return ran;
  const dir = tmpDir('gw-prov-');
  await writeSampleWorkspace(dir);
  const nb = await runNotebook(notebook(), { notebookFile: path.join(dir, 'analysis.geonb'), workspace: dir, now: () => '2026-01-01T00:00:00.000Z' });
  return (ran = { dir, nb });
}

const runOf = (nb: NotebookRecord, i: number) => runFromMetadata(nb.cells[i].metadata)!;

test('a real run writes its provenance into the GeoTIFF: gdalinfo lists the GEOWEAVE_ items', { skip }, async () => {
  const { dir, nb } = await ranNotebook();
  const ndvi = runOf(nb, 1);
  const file = ndvi.outputs.index.path;
  assert.equal(path.dirname(file), path.join(dir, '.geoweave', 'outputs', 'analysis', 'ndvi-a1'));
  const info = gdalinfoJson(file);
  const md = info.metadata[''];
  assert.equal(md.GEOWEAVE_TOOL, 'ndvi');
  assert.equal(md.GEOWEAVE_VERSION, JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', '..', 'package.json'), 'utf8')).version);
  assert.match(md.GEOWEAVE_MANIFEST, /^sha256:[0-9a-f]{12}$/);
  assert.deepEqual(JSON.parse(md.GEOWEAVE_ARGS), { image: 's2_scene.tif', sensor: 'sentinel2_l2a' });
  const inputs = JSON.parse(md.GEOWEAVE_INPUTS);
  const scene = path.join(dir, 's2_scene.tif');
  const st = fs.statSync(scene);
  // The hash is the file's SHA-256 as python's hashlib computes it.
  const pyHash = pyJson('import hashlib, json, sys; print(json.dumps(hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest()))', scene);
  assert.deepEqual(inputs, [{ mtime: st.mtime.toISOString(), path: scene, sha256: pyHash, size: st.size }]);
  // Time and duration are in the cell's record, not in the file: a re-run writes the same bytes.
  assert.deepEqual(Object.keys(md).sort(), ['AREA_OR_POINT', 'GEOWEAVE_ARGS', 'GEOWEAVE_INPUTS', 'GEOWEAVE_MANIFEST', 'GEOWEAVE_TOOL', 'GEOWEAVE_VERSION']);
  assert.ok(ndvi.provenance!.durationMs >= 0 && /^\d{4}-\d\d-\d\dT/.test(ndvi.provenance!.started));
  const again = await runNotebook({ metadata: {}, cells: [notebook().cells[1]] }, { notebookFile: path.join(dir, 'again.geonb'), workspace: dir });
  assert.ok(fs.readFileSync(runOf(again, 0).outputs.index.path).equals(fs.readFileSync(file)), 'the same call on the same input writes the same bytes');
  // What the writer had put there stays: the band description, and the data reads as before.
  assert.equal(info.bands[0].description, 'ndvi');
  assert.equal(info.bands[0].noDataValue, -9999);
  // The threshold cell lists the NDVI file it read (a $ref, resolved) with that file's hash.
  const dense = gdalinfoJson(runOf(nb, 2).outputs.mask.path).metadata[''];
  assert.equal(dense.GEOWEAVE_TOOL, 'threshold');
  const denseInputs = JSON.parse(dense.GEOWEAVE_INPUTS);
  assert.equal(denseInputs[0].path, file);
  assert.equal(denseInputs[0].sha256, createHash('sha256').update(fs.readFileSync(file)).digest('hex'));
  assert.deepEqual(JSON.parse(dense.GEOWEAVE_ARGS), { image: file, op: 'gt', value: 0.6 });
  // Two inputs for dNBR.
  const d = JSON.parse(gdalinfoJson(runOf(nb, 3).outputs.dnbr.path).metadata[''].GEOWEAVE_INPUTS);
  assert.deepEqual(d.map((x: { path: string }) => path.basename(x.path)), ['fire_pre.tif', 'fire_post.tif']);
});

test('provenance survives the notebook file: deterministic, and read back equal', { skip }, async () => {
  const { nb } = await ranNotebook();
  const text = serializeNotebook(nb);
  assert.equal(serializeNotebook(parseNotebook(text)), text, 'saving a reopened notebook changes nothing');
  const back = parseNotebook(text);
  for (const i of [1, 2, 3, 4]) {
    const p = runOf(nb, i).provenance!;
    assert.ok(p, `cell ${i + 1} has provenance`);
    assert.deepEqual(runOf(back, i).provenance, p);
    assert.equal(p.tool, runOf(nb, i).tool);
  }
  // Keys are sorted in the file (stable diffs).
  const prov = JSON.stringify(JSON.parse(text).cells[1].metadata.lastRun.provenance);
  assert.ok(prov.indexOf('"args"') < prov.indexOf('"durationMs"') && prov.indexOf('"durationMs"') < prov.indexOf('"geoweave"'));
});

test('the result card shows provenance as one line; the raw JSON does not repeat it', { skip }, async () => {
  const { nb } = await ranNotebook();
  const run = runOf(nb, 1);
  const view = resultView({ tool: 'ndvi', summary: run.summary, stats: {}, outputs: { index: { path: run.outputs.index.path, type: 'raster' } }, provenance: run.provenance }, {});
  assert.match(view.provenance!, /^ndvi \(manifest sha256:[0-9a-f]{12}\) · GeoWeave \d+\.\d+\.\d+ · \d+(\.\d)? (ms|s) · inputs: s2_scene\.tif 3\.\d MB sha256 [0-9a-f]{12}…$/);
  assert.ok(!JSON.stringify(view.raw).includes('sha256'));
  assert.equal(viewFromSaved(boundedView(view), 't')!.provenance, view.provenance);
  assert.equal(viewFromSaved({ ...view, provenance: { evil: 1 } }, 't')!.provenance, undefined);
});

test('provenance is bounded: long arguments are cut, secrets redacted, at most MAX_INPUTS files listed', async () => {
  const args = boundedArgs({ expr: 'x'.repeat(5000), images: Array.from({ length: 500 }, (_, i) => `f${i}.tif`), url: 'https://user:pw@example.org/a.tif?sig=abc123', __proto__x: 1 });
  assert.equal((args.expr as string).length, MAX_ARG_CHARS + ' (5000 characters)'.length + 1);
  assert.equal((args.images as string[]).length, 65);
  assert.ok(!JSON.stringify(args).includes('pw@') && !JSON.stringify(args).includes('abc123'));
  const dir = tmpDir('gw-prov-b-');
  const files = Array.from({ length: MAX_INPUTS + 3 }, (_, i) => { const f = path.join(dir, `f${i}.bin`); fs.writeFileSync(f, `file ${i}`); return f; });
  const { inputs, omitted } = await describeInputs([...files, files[0], 'https://example.org/x.tif', path.join(dir, 'missing.tif')]);
  assert.equal(inputs.length, MAX_INPUTS);
  assert.equal(omitted, 5);
  assert.equal(inputs[0].sha256, createHash('sha256').update('file 0').digest('hex'));
  const missing = await describeInputs([path.join(dir, 'missing.tif'), 'https://u:p@example.org/x.tif']);
  assert.deepEqual(missing.inputs, [{ path: path.join(dir, 'missing.tif'), note: 'not hashed: ENOENT' }, { path: 'https://example.org/x.tif', note: 'remote: not hashed' }]);
  // A hostile record from a notebook file is cleaned, not trusted.
  const p = provenanceFromMetadata({ tool: 't', geoweave: '1', inputs: [{ path: 'a', sha256: 'not-a-hash', size: 'big' }, 7], args: ['x'], durationMs: 'slow' });
  assert.deepEqual(p, { tool: 't', geoweave: '1', args: {}, inputs: [{ path: 'a' }], started: '', durationMs: 0 });
  assert.equal(provenanceFromMetadata({ tool: 1 }), undefined);
});

test('hashing streams: a 64 MB file is hashed in chunks and the event loop keeps turning', async () => {
  const dir = tmpDir('gw-prov-h-');
  const f = path.join(dir, 'big.bin');
  const chunk = Buffer.alloc(1 << 20, 7);
  const fd = fs.openSync(f, 'w');
  for (let i = 0; i < 64; i++) fs.writeSync(fd, chunk);
  fs.closeSync(fd);
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  const { sha256, size } = await sha256File(f);
  clearInterval(timer);
  assert.equal(size, 64 << 20);
  const ref = createHash('sha256');
  for (let i = 0; i < 64; i++) ref.update(chunk);
  assert.equal(sha256, ref.digest('hex'));
  assert.ok(ticks >= 5, `timers ran while hashing (${ticks})`);
  const ac = new AbortController();
  ac.abort();
  fs.appendFileSync(f, 'x'); // a changed file is hashed again (no cache hit)
  await assert.rejects(sha256File(f, ac.signal), /cancelled/);
});

test('metadata items merge with what the tag held; names are checked', { skip }, async () => {
  const dir = tmpDir('gw-prov-m-');
  const f = path.join(dir, 'a.tif');
  await writeRaster(f, { width: 20, height: 10, bands: 2, dtype: 'float32', geo: { geoTransform: [0, 1, 0, 10, 0, -1], epsg: 32633 } as never, descriptions: ['red', 'nir'], scales: [0.5, 1] }, [new Float32Array(200).fill(2), new Float32Array(200).fill(3)]);
  await addGdalMetadata(f, { GEOWEAVE_TOOL: 'x<&>"y', OTHER: 'first' });
  await addGdalMetadata(f, { OTHER: 'second' });
  const info = gdalinfoJson(f);
  assert.deepEqual(info.metadata[''], { AREA_OR_POINT: 'Area', GEOWEAVE_TOOL: 'x<&>"y', OTHER: 'second' });
  assert.deepEqual(info.bands.map((b: { description: string }) => b.description), ['red', 'nir']);
  assert.equal(info.bands[0].scale, 0.5);
  const vals = pyJson('import json, sys; from osgeo import gdal; d = gdal.Open(sys.argv[1]); print(json.dumps([float(d.GetRasterBand(i).ReadAsArray().mean()) for i in (1, 2)]))', f);
  assert.deepEqual(vals, [2, 3]);
  await assert.rejects(addGdalMetadata(f, { 'bad name': 'x' }), /not a plain name/);
  assert.equal(mergeItems('', { A: '1' }), '<GDALMetadata>\n  <Item name="A">1</Item>\n</GDALMetadata>');
});

/** Parses a QML with python's XML parser: renderer type and its colour entries. */
function readQml(file: string): { type: string; entries: { value: number; color: string; label: string }[] } {
  return pyJson(`
import json, sys
import xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == 'qgis'
r = root.find('pipe/rasterrenderer')
out = {'type': r.get('type'), 'entries': []}
for e in r.iter('paletteEntry'): out['entries'].append({'value': float(e.get('value')), 'color': e.get('color'), 'label': e.get('label')})
for e in r.iter('item'): out['entries'].append({'value': float(e.get('value')), 'color': e.get('color'), 'label': e.get('label')})
print(json.dumps(out))`, file);
}

/** Colours present in a PNG, as #rrggbb (read with GDAL). */
function pngColors(file: string): Set<string> {
  return new Set(pyJson(`
import json, sys, numpy as np
from osgeo import gdal
d = gdal.Open(sys.argv[1])
a = np.stack([d.GetRasterBand(i).ReadAsArray() for i in (1, 2, 3)], -1).reshape(-1, 3)
print(json.dumps(['#%02x%02x%02x' % tuple(int(v) for v in c) for c in np.unique(a, axis=0)]))`, file) as string[]);
}

test('each raster output has a QGIS style in its quicklook colours: pseudocolor for NDVI, paletted classes with labels', { skip }, async () => {
  const { nb } = await ranNotebook();
  const ndvi = runOf(nb, 1).outputs.index.path;
  const q = readQml(ndvi.replace(/\.tif$/, '.qml'));
  assert.equal(q.type, 'singlebandpseudocolor');
  assert.deepEqual(q.entries.map((e) => e.color), RAMPS.index.map(hex));
  assert.deepEqual(q.entries.map((e) => e.value), [-1, -0.6, -0.2, 0.2, 0.6, 1]);
  const png = pngColors(ndvi.replace(/\.tif$/, '.png'));
  assert.ok(png.has(hex(RAMPS.index[0])) && png.has(hex(RAMPS.index[5])), 'the colour bar ends are the style ends');

  const sev = runOf(nb, 4).outputs.severity.path;
  const s = readQml(sev.replace(/\.tif$/, '.qml'));
  assert.equal(s.type, 'paletted');
  assert.deepEqual(s.entries.map((e) => e.label), ['high regrowth', 'low regrowth', 'unburned', 'low severity', 'moderate-low severity', 'moderate-high severity', 'high severity']);
  assert.deepEqual(s.entries.map((e) => e.color), classColors([1, 2, 3, 4, 5, 6, 7], Object.fromEntries(s.entries.map((e) => [String(e.value), e.label]))).map((c) => c.color));
  const sevPng = pngColors(sev.replace(/\.tif$/, '.png'));
  for (const e of s.entries) assert.ok(sevPng.has(e.color), `${e.label} ${e.color} is drawn in the quicklook`);

  const mask = runOf(nb, 2).outputs.mask.path;
  const m = readQml(mask.replace(/\.tif$/, '.qml'));
  assert.equal(m.type, 'paletted');
  assert.deepEqual(m.entries.map((e) => e.value), [0, 1]);
  const maskPng = pngColors(mask.replace(/\.tif$/, '.png'));
  for (const e of m.entries) assert.ok(maskPng.has(e.color), `mask colour ${e.color} is in the quicklook`);
});

test('provenanceLine is compact', () => {
  const p: RunProvenance = { tool: 'slope', geoweave: '0.1.0', args: {}, inputs: [{ path: '/w/dem.tif', size: 2048, sha256: 'a'.repeat(64) }, { path: '/w/b.tif', note: 'remote: not hashed' }], inputsOmitted: 3, started: '', durationMs: 12345 };
  assert.equal(provenanceLine(p), `slope · GeoWeave 0.1.0 · 12 s · inputs: dem.tif 2.0 KB sha256 ${'a'.repeat(12)}…; b.tif remote: not hashed; +3 more`);
});
