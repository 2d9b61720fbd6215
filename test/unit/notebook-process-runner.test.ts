import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { expandArgv, runProcessTool } from '../../src/core/notebook/process-runner';
import type { ToolManifest } from '../../src/core/manifests/types';

import { gdalSkip, pyJson, tmpDir } from '../helpers/raster-gdal';

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

/** The QML as QGIS reads it, parsed by Python's XML parser (an error if it is not well formed). */
function readQml(file: string): { renderer: Record<string, string>; items: Record<string, string>[]; palette: Record<string, string>[] } {
  return pyJson(`
import json, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == 'qgis', root.tag
r = root.find('pipe/rasterrenderer')
print(json.dumps({'renderer': dict(r.attrib), 'items': [dict(i.attrib) for i in r.iter('item')], 'palette': [dict(e.attrib) for e in r.iter('paletteEntry')]}))`, file);
}

/** gdalinfo -stats of band 1: minimum, maximum and the values present (from GDAL's Python bindings). */
function gdalBand(file: string): { min: number; max: number; values: number[] } {
  const info = JSON.parse(spawnSync('gdalinfo', ['-stats', '-json', file], { encoding: 'utf8' }).stdout);
  const values = pyJson(`
import json, sys, numpy as np
from osgeo import gdal
d = gdal.Open(sys.argv[1]); b = d.GetRasterBand(1); a = b.ReadAsArray(); nd = b.GetNoDataValue()
v = np.unique(a if nd is None else a[a != nd])
print(json.dumps([float(x) for x in v[:50]]))`, file);
  fs.rmSync(`${file}.aux.xml`, { force: true });
  return { min: info.bands[0].minimum, max: info.bands[0].maximum, values };
}

test('process runner: a GDAL command\'s GeoTIFF gets a QGIS style from its statistics: a pseudocolor stretch inside the range gdalinfo reads, or a palette of its classes', { skip: gdalSkip('QGIS styles of process outputs') }, async () => {
  const dir = tmp(), out = path.join(dir, 'out');
  // A continuous float surface with nodata, and a class raster of four codes (one of them rare).
  pyJson(`
import json, sys, numpy as np
from osgeo import gdal, osr
def write(name, arr, dtype, nodata):
    d = gdal.GetDriverByName('GTiff').Create(sys.argv[1] + '/' + name, arr.shape[1], arr.shape[0], 1, dtype)
    d.SetGeoTransform([500000, 10, 0, 4600000, 0, -10]); s = osr.SpatialReference(); s.ImportFromEPSG(32633); d.SetProjection(s.ExportToWkt())
    b = d.GetRasterBand(1); b.SetNoDataValue(nodata); b.WriteArray(arr); b = None; d = None
y, x = np.mgrid[0:120, 0:160]
surf = (np.sin(x / 17.0) * 40 + y * 0.7 + 100).astype(np.float32); surf[:5, :5] = -9999
write('surface.tif', surf, gdal.GDT_Float32, -9999)
cls = (1 + (x // 40) % 3 * 2).astype(np.uint8); cls[60, 80] = 9; cls[:3, :] = 0
write('classes.tif', cls, gdal.GDT_Byte, 0)
print(json.dumps(True))`, dir);
  const m: ToolManifest = {
    id: 'translate', description: 'gdal_translate', inputs: [{ name: 'image', type: 'raster' }], outputs: [{ name: 'result', type: 'raster' }],
    runner: { type: 'process', command: 'gdal_translate', args: ['-co', 'TILED=YES', '{image}', '{out}'] },
  };
  const surface = await runProcessTool(m, { image: 'surface.tif' }, { outDir: out, cwd: dir });
  const tif = surface.outputs.result.path;
  assert.equal(surface.outputs.result.style, tif.replace(/\.tif$/, '.qml'));
  assert.ok(fs.existsSync(surface.outputs.result.style!) && fs.existsSync(surface.quicklook!), 'style and quicklook beside the output');
  const g = gdalBand(tif);
  const st = surface.stats as { min: number; max: number; p2: number; p98: number; style: string };
  // gdalinfo -json prints the extremes to three decimals.
  const near = (a: number, b: number) => Math.abs(a - b) <= 5e-4 * Math.max(1, Math.abs(b));
  assert.ok(near(st.min, g.min) && near(st.max, g.max), `GeoWeave ${st.min}..${st.max}, gdalinfo ${g.min}..${g.max}`);
  assert.equal(st.style, 'pseudocolor');
  const q = readQml(surface.outputs.result.style!);
  assert.equal(q.renderer.type, 'singlebandpseudocolor');
  const lo = Number(q.renderer.classificationMin), hi = Number(q.renderer.classificationMax);
  assert.ok(st.min <= lo && lo < hi && hi <= st.max && g.min < hi && lo < g.max, `stretch ${lo}..${hi} inside gdalinfo's ${g.min}..${g.max}`);
  assert.deepEqual([lo, hi], [st.p2, st.p98]);
  assert.ok(q.items.length >= 2 && Number(q.items[0].value) === lo && Number(q.items[q.items.length - 1].value) === hi);

  const classes = await runProcessTool(m, { image: 'classes.tif' }, { outDir: out, cwd: dir });
  const c = gdalBand(classes.outputs.result.path);
  const qc = readQml(classes.outputs.result.style!);
  assert.equal(qc.renderer.type, 'paletted');
  assert.deepEqual(qc.palette.map((e) => Number(e.value)), c.values, 'one entry per class, the rare one too, nodata left out');
  assert.deepEqual([c.min, c.max], [1, 9]);
  assert.ok(qc.palette.every((e) => /^#[0-9a-f]{6}$/.test(e.color) && e.label));
  assert.deepEqual((classes.stats as { classes: number[] }).classes, c.values);
});

/** What QGIS reads of a multiband colour renderer, checked against the GeoTIFF as GDAL opens it. */
function readComposite(qml: string, tif: string): { type: string; bands: number[]; stretch: { min: number; max: number; algorithm: string }[]; p: number[][]; problems: string[] } {
  return pyJson(`
import json, sys, numpy as np, xml.etree.ElementTree as ET
from osgeo import gdal
root = ET.parse(sys.argv[1]).getroot()
problems = []
if root.tag != 'qgis': problems.append('root ' + root.tag)
pipe = root.find('pipe')
r = pipe.find('rasterrenderer')
d = gdal.Open(sys.argv[2])
bands = [int(r.get(k)) for k in ('redBand', 'greenBand', 'blueBand')]
# What QgsMultiBandColorRenderer::create reads: the three band attributes (1-based, in the file),
# opacity and alphaBand; one <xContrastEnhancement> per colour with minValue, maxValue, algorithm.
for k in ('opacity', 'alphaBand'):
    if r.get(k) is None: problems.append('no ' + k)
if not all(1 <= b <= d.RasterCount for b in bands): problems.append('band outside 1..%d' % d.RasterCount)
stretch, p = [], []
for tag, b in zip(('redContrastEnhancement', 'greenContrastEnhancement', 'blueContrastEnhancement'), bands):
    e = r.find(tag)
    if e is None: problems.append('no ' + tag); continue
    stretch.append({'min': float(e.find('minValue').text), 'max': float(e.find('maxValue').text), 'algorithm': e.find('algorithm').text})
    a = d.GetRasterBand(b).ReadAsArray().astype(float); nd = d.GetRasterBand(b).GetNoDataValue()
    v = a[a != nd] if nd is not None else a.ravel()
    p.append([float(np.percentile(v, 2)), float(np.percentile(v, 98)), float(v.min()), float(v.max())])
if [c.tag for c in pipe][0] != 'rasterrenderer': problems.append('renderer not first in pipe')
print(json.dumps({'type': r.get('type'), 'bands': bands, 'stretch': stretch, 'p': p, 'problems': problems}))`, qml, tif);
}

/** The quicklook PNG of a composite against numpy: the image area (below the 16-pixel title,
 *  centred on a canvas at least 320 wide) compared pixel by pixel with the tif's bands stretched as
 *  the `.qml` says; a pixel is transparent where one of the three bands is nodata. */
function comparePng(png: string, tif: string, qml: string): { pixels: number; mismatched: number; transparent: number; distinctChannels: boolean; problems: string[] } {
  return pyJson(`
import json, sys, numpy as np, xml.etree.ElementTree as ET
from osgeo import gdal
r = ET.parse(sys.argv[3]).getroot().find('pipe').find('rasterrenderer')
d = gdal.Open(sys.argv[2]); q = gdal.Open(sys.argv[1]).ReadAsArray().astype(int)
problems = []
w, h = d.RasterXSize, d.RasterYSize
cw = max(w, 320); ox = (cw - w) // 2
if q.shape != (4, 16 + h + 34, cw): problems.append('png shape %s' % (q.shape,))
img = q[:, 16:16 + h, ox:ox + w]
want = np.zeros((4, h, w), dtype=int); valid = np.ones((h, w), dtype=bool)
for i, tag in enumerate(('red', 'green', 'blue')):
    b = d.GetRasterBand(int(r.get(tag + 'Band'))); a = b.ReadAsArray().astype(np.float64); nd = b.GetNoDataValue()
    e = r.find(tag + 'ContrastEnhancement'); lo, hi = float(e.find('minValue').text), float(e.find('maxValue').text)
    want[i] = np.clip(np.trunc((a - lo) / (hi - lo) * 255), 0, 255)
    if nd is not None: valid &= a != nd
want[3] = np.where(valid, 255, 0)
bad = (img[3] != want[3]) | (valid & (img[:3] != want[:3]).any(axis=0))
print(json.dumps({'pixels': int(w * h), 'mismatched': int(bad.sum()), 'transparent': int((img[3] == 0).sum()),
  'distinctChannels': bool((img[0] != img[1]).any() and (img[1] != img[2]).any()), 'problems': problems}))`, png, tif, qml);
}

test('process runner: an output of three or more bands gets a multiband colour style (true colour from its band descriptions, else 1-2-3), each band stretched over its 2–98 % range; one band keeps its own', { skip: gdalSkip('multiband QGIS styles') }, async () => {
  const dir = tmp(), out = path.join(dir, 'out');
  pyJson(`
import json, sys, numpy as np
from osgeo import gdal, osr
y, x = np.mgrid[0:120, 0:160]
def write(name, arrs, descs):
    d = gdal.GetDriverByName('GTiff').Create(sys.argv[1] + '/' + name, 160, 120, len(arrs), gdal.GDT_UInt16)
    d.SetGeoTransform([500000, 10, 0, 4600000, 0, -10]); s = osr.SpatialReference(); s.ImportFromEPSG(32633); d.SetProjection(s.ExportToWkt())
    for i, (a, t) in enumerate(zip(arrs, descs)):
        b = d.GetRasterBand(i + 1); b.SetNoDataValue(0); b.WriteArray(a.astype(np.uint16))
        if t: b.SetDescription(t)
    d = None
# Blue, green, red, NIR (a Sentinel-2-like stack): red is band 3; nodata in a corner.
bands = [300 + x * 2, 500 + y * 3, 800 + x + y, 2000 + (x * y) % 900]
for b in bands: b[:4, :4] = 0
write('scene.tif', bands, ['Blue', 'Green', 'Red', 'NIR'])
write('plain.tif', [100 + x, 200 + y, 300 + x + y], [None, None, None])
print(json.dumps(True))`, dir);
  const m: ToolManifest = {
    id: 'translate', description: 'gdal_translate', inputs: [{ name: 'image', type: 'raster' }], outputs: [{ name: 'result', type: 'raster' }],
    runner: { type: 'process', command: 'gdal_translate', args: ['{image}', '{out}'] },
  };
  const scene = await runProcessTool(m, { image: 'scene.tif' }, { outDir: out, cwd: dir });
  const q = readComposite(scene.outputs.result.style!, scene.outputs.result.path);
  assert.deepEqual(q.problems, []);
  assert.equal(q.type, 'multibandcolor');
  assert.deepEqual(q.bands, [3, 2, 1], 'red, green, blue from the band descriptions');
  q.stretch.forEach((s, i) => {
    const [p2, p98, min, max] = q.p[i];
    assert.equal(s.algorithm, 'StretchToMinimumMaximum');
    // GeoWeave's 2–98 % (on the preview, here every pixel) against numpy's on what GDAL reads.
    assert.ok(Math.abs(s.min - p2) <= 0.01 * (max - min) && Math.abs(s.max - p98) <= 0.01 * (max - min), `band ${q.bands[i]}: ${s.min}..${s.max} vs numpy ${p2}..${p98}`);
    assert.ok(min <= s.min && s.min < s.max && s.max <= max);
  });
  // The quicklook is the same composite: every pixel as numpy stretches the bands GDAL reads over
  // the style's own min and max (QGIS's StretchToMinimumMaximum: truncated, clamped to 0..255).
  const png = comparePng(scene.quicklook!, scene.outputs.result.path, scene.outputs.result.style!);
  assert.deepEqual(png.problems, []);
  assert.equal(png.mismatched, 0, `${png.mismatched} of ${png.pixels} pixels differ from numpy`);
  assert.equal(png.transparent, 16, 'the nodata corner is transparent');
  assert.ok(png.distinctChannels, 'a colour composite, not band 1 in grey');
  const st = scene.stats as { style: string; rgb: { band: number }[] };
  assert.equal(st.style, 'multiband');
  assert.deepEqual(st.rgb.map((c) => c.band), [3, 2, 1]);

  const plain = await runProcessTool(m, { image: 'plain.tif' }, { outDir: out, cwd: dir });
  const qp = readComposite(plain.outputs.result.style!, plain.outputs.result.path);
  assert.deepEqual(qp.problems, []);
  assert.equal(qp.type, 'multibandcolor');
  assert.deepEqual(qp.bands, [1, 2, 3], 'no descriptions: bands 1, 2, 3 as QGIS would');
  const pp = comparePng(plain.quicklook!, plain.outputs.result.path, plain.outputs.result.style!);
  assert.deepEqual(pp.problems, []);
  assert.equal(pp.mismatched, 0);
  assert.equal(pp.transparent, 0);
});

test('compositeBands: true colour only when red, green and blue are all named, on distinct bands', async () => {
  const { compositeBands } = await import('../../src/core/notebook/process-style');
  assert.deepEqual(compositeBands(['Blue', 'Green', 'Red', 'NIR'], 4), [3, 2, 1]);
  assert.deepEqual(compositeBands(['B02', 'B03', 'B04'], 3), [3, 2, 1], 'Sentinel-2 band names are roles too');
  assert.deepEqual(compositeBands(['brightness', 'greenness', 'wetness'], 3), [1, 2, 3]);
  assert.deepEqual(compositeBands(['Red', null, 'Blue'], 3), [1, 2, 3]);
  assert.deepEqual(compositeBands([], 5), [1, 2, 3]);
});
