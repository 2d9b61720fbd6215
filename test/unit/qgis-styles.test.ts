/** The QGIS styles (.qml) GeoWeave writes, opened in a real QGIS (PyQGIS 3.22+, headless): each kind
 *  (single-band pseudocolor, paletted classes and masks, multiband colour of a process output) on
 *  real outputs of the sample workspace. QGIS must load the style beside the file by itself, build
 *  the renderer GeoWeave meant with its colours and min/max (not recomputed), and draw the raster as
 *  GeoWeave's quicklook shows it. Runs when python3-qgis is importable (CI installs it). */
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { writeSampleWorkspace } from '../../src/core/raster/sample/generate';
import { runTool } from '../../src/core/raster/engine';
import { runProcessTool } from '../../src/core/notebook/process-runner';
import { classColors } from '../../src/core/results/palettes';
import type { ToolManifest } from '../../src/core/manifests/types';
import type { ToolRunResult } from '../../src/core/raster/types';
import { PY, gdalSkip, tmpDir } from '../helpers/raster-gdal';

const CHECK = path.resolve(__dirname, '../../../test/helpers/qgis-style-check.py');

/** Why the check cannot run here (undefined when PyQGIS imports); in CI a missing QGIS fails. */
function qgisSkip(): string | false {
  const gdal = gdalSkip('QGIS style checks', ['gdal_translate']);
  if (gdal) return gdal;
  const r = spawnSync(PY, ['-c', 'import qgis.core'], { encoding: 'utf8', env: { ...process.env, QT_QPA_PLATFORM: 'offscreen' } });
  if (r.status === 0) return false;
  if (process.env.CI) throw new Error(`python3-qgis is required in CI (scripts/setup-test-env.sh installs it): ${r.stderr.trim().split('\n').pop()}`);
  return 'python3-qgis not installed (apt-get install python3-qgis): skipping the QGIS style checks';
}
const skip = qgisSkip();

interface Renderer {
  type: string; minMaxLimits: string | null; band?: number; min?: number; max?: number; shaderMin?: number; shaderMax?: number; clip?: boolean; interpolated?: boolean;
  items?: { value: number; color: string }[]; sourceRamp?: boolean; reclassified?: string[] | null;
  classes?: { value: number; color: string; label: string }[];
  bands?: number[]; stretch?: ({ min: number; max: number; algorithm: string } | null)[];
}
interface Report {
  name: string; valid: boolean; defaultStyleLoaded: boolean; styleMessage: string; renderer: Renderer; rendered: string; width: number; height: number;
  compare: { alphaDiffers: number; opaque: number; transparent: number; maxColourDiff: number; problem?: string };
}

/** The numbers a .qml carries, read from the file (what QGIS must keep rather than recompute). */
function qmlNumbers(file: string): { min: number; max: number; items: { value: number; color: string }[] } {
  const x = fs.readFileSync(file, 'utf8');
  const min = Number(/classificationMin="([^"]+)"/.exec(x)?.[1]), max = Number(/classificationMax="([^"]+)"/.exec(x)?.[1]);
  const items = [...x.matchAll(/<item alpha="255" value="([^"]+)" label="[^"]*" color="([^"]+)"\/>/g)].map((m) => ({ value: Number(m[1]), color: m[2] }));
  return { min, max, items };
}

const results = new Map<string, ToolRunResult>();
const reports = new Map<string, Report>();
let renders = '';

before(async () => {
  if (skip) return;
  const ws = tmpDir('gw-qgis-ws-'), out = path.join(ws, 'out');
  renders = tmpDir('gw-qgis-render-');
  await writeSampleWorkspace(ws);
  const run = async (name: string, tool: string, args: Record<string, unknown>) => results.set(name, await runTool(tool, args, { cwd: ws, outDir: path.join(out, name) }));
  await run('ndvi', 'ndvi', { image: 's2_scene.tif' });
  await run('slope', 'slope', { dem: 'dem.tif' });
  await run('dnbr', 'dnbr', { pre: 'fire_pre.tif', post: 'fire_post.tif' });
  await run('severity', 'burn_severity', { image: results.get('dnbr')!.outputs.dnbr.path });
  await run('mask', 'threshold', { image: results.get('ndvi')!.outputs.index.path, op: 'gt', value: 0.6 });
  await run('kmeans', 'kmeans_classify', { image: 's2_scene.tif', k: 4 });
  // Process tools (a GDAL command): a scene of 8 described bands, a class raster and a DEM copied.
  const translate: ToolManifest = {
    id: 'translate', description: 'gdal_translate', inputs: [{ name: 'image', type: 'raster' }], outputs: [{ name: 'result', type: 'raster' }],
    runner: { type: 'process', command: 'gdal_translate', args: ['{image}', '{out}'] },
  };
  const proc = async (name: string, image: string) => results.set(name, await runProcessTool(translate, { image }, { outDir: path.join(out, name), cwd: ws }));
  await proc('process_rgb', 's2_scene.tif');
  await proc('process_classes', results.get('kmeans')!.outputs.classes.path);
  await proc('process_dem', 'dem.tif');

  const cases = [...results].map(([name, r]) => {
    const o = Object.values(r.outputs).find((x) => x.type === 'raster')!;
    return { name, tif: o.path, png: o.path.replace(/\.tiff?$/i, '.png') };
  });
  fs.writeFileSync(path.join(renders, 'cases.json'), JSON.stringify(cases));
  const py = spawnSync(PY, [CHECK, path.join(renders, 'cases.json'), renders], { encoding: 'utf8', maxBuffer: 16 << 20, env: { ...process.env, QT_QPA_PLATFORM: 'offscreen' } });
  if (py.status !== 0) throw new Error(`qgis-style-check.py failed (${py.status}): ${py.stderr}`);
  for (const r of JSON.parse(py.stdout) as Report[]) reports.set(r.name, r);
});

test('QGIS opens every output with the style beside it, keeps its min/max and draws what the quicklook shows', { skip }, () => {
  assert.equal(reports.size, results.size);
  const kinds: Record<string, string> = {
    ndvi: 'singlebandpseudocolor', slope: 'singlebandpseudocolor', dnbr: 'singlebandpseudocolor', process_dem: 'singlebandpseudocolor',
    severity: 'paletted', mask: 'paletted', kmeans: 'paletted', process_classes: 'paletted', process_rgb: 'multibandcolor',
  };
  for (const [name, r] of reports) {
    assert.ok(r.valid, `${name}: QGIS cannot open the GeoTIFF`);
    assert.ok(r.defaultStyleLoaded, `${name}: QGIS did not load the .qml beside the file (${r.styleMessage})`);
    assert.equal(r.renderer.type, kinds[name], name);
    // Limits "None": QGIS keeps GeoWeave's min/max instead of computing its own from the data.
    assert.equal(r.renderer.minMaxLimits, 'None', name);
    assert.ok(fs.statSync(r.rendered).size > 1000, `${name}: rendered image`);
    assert.equal(r.compare.problem, undefined, name);
    assert.equal(r.compare.alphaDiffers, 0, `${name}: nodata drawn differently`);
    assert.ok(r.compare.opaque > 0.9 * r.width * r.height, `${name}: ${r.compare.opaque} opaque pixels`);
    // Ramps: QGIS interpolates like the quicklook and rounds its own way (1 level); classes and
    // stretched composites are exact.
    assert.ok(r.compare.maxColourDiff <= (r.renderer.type === 'singlebandpseudocolor' ? 1 : 0), `${name}: colours differ by ${r.compare.maxColourDiff}`);
  }
});

test('pseudocolor styles: the ramp, range and source ramp GeoWeave wrote, so editing min/max in QGIS keeps the colours', { skip }, () => {
  for (const name of ['ndvi', 'slope', 'dnbr', 'process_dem']) {
    const r = reports.get(name)!.renderer;
    const qml = qmlNumbers(Object.values(results.get(name)!.outputs)[0].path.replace(/\.tiff?$/i, '.qml'));
    assert.deepEqual([r.min, r.max, r.shaderMin, r.shaderMax], [qml.min, qml.max, qml.min, qml.max], name);
    assert.ok(r.interpolated && r.clip === false, `${name}: an interpolated ramp that extends its end colours`);
    assert.deepEqual(r.items, qml.items, name);
    assert.ok(r.sourceRamp, `${name}: no source ramp`);
    assert.deepEqual(r.reclassified, qml.items.map((i) => i.color), `${name}: reclassifying from the source ramp changes the colours`);
  }
  assert.deepEqual([reports.get('ndvi')!.renderer.min, reports.get('ndvi')!.renderer.max], [-1, 1], 'an index over its whole range');
  const d = reports.get('dnbr')!.renderer;
  assert.equal(d.min, -d.max!, 'a difference centred on 0');
  // A process tool's single band: its 2–98 % range from every pixel.
  const dem = results.get('process_dem')!.stats as { p2: number; p98: number };
  assert.deepEqual([reports.get('process_dem')!.renderer.min, reports.get('process_dem')!.renderer.max], [dem.p2, dem.p98]);
});

test('paletted styles: burn severity in the USGS colours with its labels, masks and class maps one entry per value', { skip }, () => {
  const sev = reports.get('severity')!.renderer.classes!;
  const labels = Object.fromEntries((results.get('severity')!.stats as { classes: { code: number; label: string }[] }).classes.map((c) => [String(c.code), c.label]));
  assert.deepEqual(sev.map((c) => c.label), Object.values(labels));
  assert.deepEqual(sev.map((c) => c.color), classColors(sev.map((c) => c.value), labels).map((c) => c.color.toLowerCase()));
  const byLabel = Object.fromEntries(sev.map((c) => [c.label, c.color]));
  const hue = (hex: string) => { const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)); return { r, g, b }; };
  assert.ok(hue(byLabel.unburned).g > hue(byLabel.unburned).r, 'unburned is green');
  assert.ok(hue(byLabel['high severity']).b > hue(byLabel['high severity']).g, 'high severity is purple');
  assert.deepEqual(reports.get('mask')!.renderer.classes!.map((c) => c.value), [0, 1]);
  assert.deepEqual(reports.get('kmeans')!.renderer.classes!.map((c) => c.value), [1, 2, 3, 4]);
  // The process copy of the class map: one entry per value found in every pixel.
  assert.deepEqual(reports.get('process_classes')!.renderer.classes!.map((c) => c.value), (results.get('process_classes')!.stats as { classes: number[] }).classes);
});

test('multiband style of a process output: true colour from the band descriptions, each band stretched over the range GeoWeave chose', { skip }, () => {
  const r = reports.get('process_rgb')!.renderer;
  const rgb = (results.get('process_rgb')!.stats as { rgb: { band: number; min: number; max: number }[] }).rgb;
  assert.deepEqual(r.bands, [3, 2, 1]);
  assert.deepEqual(r.stretch, rgb.map((c) => ({ min: c.min, max: c.max, algorithm: 'StretchToMinimumMaximum' })));
});
