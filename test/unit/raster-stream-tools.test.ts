/** Strip-streamed morphology, connected_patches, zonal_stats, distance_to and vectorize_mask equal the whole-band algorithms. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { writeSampleWorkspace } from '../../src/core/raster/sample/generate';
import { writeRaster } from '../../src/core/raster/io/writer';
import { openRaster } from '../../src/core/raster/io/dataset';
import { runTool } from '../../src/core/raster/engine';
import { readBand } from '../../src/core/raster/tools/common';
import { mulberry32 } from '../../src/core/raster/algorithms/prng';
import { morphology, toByteMask, MorphOp } from '../../src/core/raster/algorithms/morphology';
import { connectedComponents } from '../../src/core/raster/algorithms/components';
import { zonalByClass, rasterizePolygon, ZoneAccumulator } from '../../src/core/raster/algorithms/zonal';
import { distanceTransform } from '../../src/core/raster/algorithms/distance';
import { pixelSizeMetres } from '../../src/core/raster/algorithms/area';
import type { GeoTransform, Ring } from '../../src/core/raster/algorithms/vectorize';
import { vectorizeMaskWholeBand } from '../helpers/vectorize-whole-band';

const PY = '/usr/bin/python3';
const HAVE_GDAL = spawnSync(PY, ['-c', 'from osgeo import gdal; import numpy']).status === 0;
if (!HAVE_GDAL && process.env.CI) throw new Error('GDAL (python3 osgeo + numpy) is required in CI');

let dir = '';
const out = (name: string) => path.join(dir, 'out', name);
const SW = 700, SH = 530;
const GEO = { epsg: 32650, geoTransform: [500000, 10, 0, 4000000, 0, -10] as GeoTransform, geographic: false };

before(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-stream-'));
  await writeSampleWorkspace(dir);
  const n = await runTool('ndvi', { image: 's2_scene.tif' }, { outDir: dir, cwd: dir });
  const t = await runTool('threshold', { image: n.outputs[Object.keys(n.outputs)[0]].path, op: 'gt', value: 0.6 }, { outDir: dir, cwd: dir });
  fs.renameSync(t.outputs[Object.keys(t.outputs)[0]].path, path.join(dir, 'veg_mask.tif'));
  // Synthetic mask: discs of many sizes, speckle, a nodata corner; tiles of 256 so strips cross tile rows.
  const rnd = mulberry32(11);
  const blobs: number[][] = [];
  for (let k = 0; k < 120; k++) blobs.push([rnd() * SW, rnd() * SH, 1 + rnd() * 25]);
  const m = new Uint8Array(SW * SH), z = new Uint8Array(SW * SH), v = new Float32Array(SW * SH);
  for (let y = 0; y < SH; y++) for (let x = 0; x < SW; x++) {
    const i = y * SW + x;
    let s = rnd() < 0.02 ? 1 : 0;
    for (const [cx, cy, r] of blobs) if ((x - cx) ** 2 + (y - cy) ** 2 < r * r) { s = 1; break; }
    m[i] = x > 640 && y > 480 ? 255 : s;
    z[i] = 1 + ((Math.floor(x / 150) + 3 * Math.floor(y / 120)) % 6);
    v[i] = i % 613 === 0 ? NaN : rnd() * 100 - 20;
  }
  const spec = (dtype: 'uint8' | 'float32', nodata: number) => ({ width: SW, height: SH, bands: 1, dtype, geo: GEO, nodata, blockSize: 256 });
  await writeRaster(path.join(dir, 'synth_mask.tif'), spec('uint8', 255), [m]);
  await writeRaster(path.join(dir, 'synth_zones.tif'), spec('uint8', 0), [z]);
  await writeRaster(path.join(dir, 'synth_vals.tif'), spec('float32', -9999), [v]);
  const X = (px: number) => 500000 + px * 10, Y = (py: number) => 4000000 - py * 10;
  const ring = (pts: number[][]): Ring => pts.map(([x, y]) => [X(x), Y(y)]);
  const feats = [
    { properties: { id: 1 }, geometry: { type: 'Polygon', coordinates: [ring([[10.3, 5.2], [600.7, 40.1], [500.2, 500.9], [20.5, 400.4], [10.3, 5.2]]), ring([[100, 100], [300, 110], [200, 300], [100, 100]])] } },
    // Two parts over the same rows: the streamed sum adds them strip by strip.
    { properties: { id: 2 }, geometry: { type: 'MultiPolygon', coordinates: [[ring([[620, 10], [690, 30], [650, 400], [620, 10]])], [ring([[520, 200], [600, 220], [560, 520], [520, 200]])]] } },
    { properties: { id: 3 }, geometry: { type: 'Polygon', coordinates: [ring([[-50, 450], [200, 480], [100, 600], [-50, 450]])] } },
    { properties: { id: 4 }, geometry: { type: 'Polygon', coordinates: [ring([[900, 10], [950, 10], [950, 40], [900, 10]])] } }, // off the grid
  ].map((f) => ({ type: 'Feature', ...f }));
  fs.writeFileSync(path.join(dir, 'synth_zones.geojson'), JSON.stringify({ type: 'FeatureCollection', crs: { type: 'name', properties: { name: 'urn:ogc:def:crs:EPSG::32650' } }, features: feats }));
});
after(() => { if (dir) fs.rmSync(dir, { recursive: true, force: true }); delete process.env.GEOWEAVE_STRIP_ROWS; delete process.env.GEOWEAVE_MAX_BAND_BYTES; });

async function withEnv<T>(name: string, value: string | undefined, fn: () => Promise<T>): Promise<T> {
  const old = process.env[name];
  if (value === undefined) delete process.env[name]; else process.env[name] = value;
  try { return await fn(); } finally { if (old === undefined) delete process.env[name]; else process.env[name] = old; }
}

async function readWhole(p: string): Promise<{ f: Float32Array; raw: ArrayLike<number>; w: number; h: number; nodata: number | null }> {
  const ds = await openRaster(p);
  try {
    const raw = await ds.readWindowRaw(1, 0, 0, ds.width, ds.height);
    return { f: await readBand(ds, 1), raw, w: ds.width, h: ds.height, nodata: ds.nodata };
  } finally { await ds.close(); }
}

function firstDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return -2;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}

const STRIPS = [undefined, '29', '1']; // default (block-aligned), many odd strips, one row per strip

test('morphology streamed in strips equals the whole-band result (all ops, radii 1-4, masks with nodata)', async () => {
  const cases: [string, MorphOp, number][] = [
    ['veg_mask.tif', 'open', 2], ['veg_mask.tif', 'close', 1], ['synth_mask.tif', 'dilate', 3],
    ['synth_mask.tif', 'erode', 2], ['synth_mask.tif', 'open', 4], ['synth_mask.tif', 'close', 3],
  ];
  for (const [file, op, radius] of cases) {
    const src = await readWhole(path.join(dir, file));
    const mask = toByteMask(src.f);
    const ref = morphology(mask, src.w, src.h, op, radius);
    let before = 0, after = 0;
    for (let i = 0; i < ref.length; i++) { if (mask[i] === 1) before++; if (ref[i] === 1) after++; }
    for (const rows of STRIPS) {
      if (rows === '1' && file !== 'synth_mask.tif') continue;
      const r = await withEnv('GEOWEAVE_STRIP_ROWS', rows, () => runTool('morphology', { image: file, op, radius }, { outDir: out(`morph-${rows}`), cwd: dir }));
      const got = await readWhole(r.outputs.mask.path);
      assert.equal(firstDiff(got.raw, ref), -1, `${file} ${op} r=${radius} strips=${rows ?? 'default'}: first differing pixel`);
      assert.equal(r.stats.pixels_before, before);
      assert.equal(r.stats.pixels_after, after);
      assert.equal(got.nodata, 255);
    }
  }
});

test('connected_patches: two-pass strip labelling equals whole-band flood fill (labels, sizes, centroids, min_pixels)', async () => {
  for (const [file, minPixels] of [['veg_mask.tif', 1], ['synth_mask.tif', 1], ['synth_mask.tif', 15]] as [string, number][]) {
    const src = await readWhole(path.join(dir, file));
    const ref = connectedComponents(toByteMask(src.f), src.w, src.h, { connectivity: 8, minPixels });
    assert.ok(ref.sizes.length > 20, `${file}: enough patches to make the test meaningful (${ref.sizes.length})`);
    for (const rows of STRIPS) {
      const r = await withEnv('GEOWEAVE_STRIP_ROWS', rows, () => runTool('connected_patches', { image: file, min_pixels: minPixels }, { outDir: out(`cc-${rows}`), cwd: dir }));
      const got = await readWhole(r.outputs.labels.path);
      assert.equal(firstDiff(got.raw, ref.labels), -1, `${file} min=${minPixels} strips=${rows ?? 'default'}: first differing label`);
      assert.equal(r.stats.count, ref.sizes.length);
      assert.equal(r.stats.removed, ref.removed);
      assert.deepEqual(r.stats.sizes, ref.sizes);
      const g = GEO.geoTransform;
      const patches = r.stats.patches as { centroid: number[] }[];
      if (file === 'synth_mask.tif') {
        patches.forEach((p, k) => assert.deepEqual(p.centroid, [g[0] + (ref.centroids[k][0] + 0.5) * g[1], g[3] + (ref.centroids[k][1] + 0.5) * g[5]]));
      }
    }
  }
});

test('connected_patches streamed labels read by GDAL equal the whole-band labels', { skip: HAVE_GDAL ? false : 'GDAL python not installed' }, async () => {
  const src = await readWhole(path.join(dir, 'synth_mask.tif'));
  const ref = connectedComponents(toByteMask(src.f), src.w, src.h, { connectivity: 8 });
  const r = await withEnv('GEOWEAVE_STRIP_ROWS', '29', () => runTool('connected_patches', { image: 'synth_mask.tif' }, { outDir: out('cc-gdal'), cwd: dir }));
  const refPath = path.join(dir, 'ref_labels.bin');
  fs.writeFileSync(refPath, Buffer.from(ref.labels.buffer));
  const res = spawnSync(PY, ['-c', `
import sys, numpy as np
from osgeo import gdal
ds = gdal.Open(sys.argv[1]); a = ds.GetRasterBand(1).ReadAsArray()
ref = np.fromfile(sys.argv[2], dtype=np.int32).reshape(a.shape)
print(int((a != ref).sum()), a.max())
`, r.outputs.labels.path, refPath], { encoding: 'utf8' });
  assert.equal(res.status, 0, res.stderr);
  assert.equal(res.stdout.trim(), `0 ${ref.sizes.length}`);
});

test('zonal_stats accumulated strip by strip equals the whole-band statistics (class raster and polygons with holes, multipolygons)', async () => {
  const vals = await readWhole(path.join(dir, 'synth_vals.tif'));
  const zones = await readWhole(path.join(dir, 'synth_zones.tif'));
  const refClass = zonalByClass(vals.f, zones.f);
  const doc = JSON.parse(fs.readFileSync(path.join(dir, 'synth_zones.geojson'), 'utf8'));
  const refPoly = doc.features.map((f: any) => {
    const acc = new ZoneAccumulator();
    const parts: Ring[][] = f.geometry.type === 'Polygon' ? [f.geometry.coordinates] : f.geometry.coordinates;
    for (const p of parts) rasterizePolygon(p, GEO.geoTransform, SW, SH, (i) => acc.add(vals.f[i]));
    return acc.result();
  });
  for (const rows of STRIPS) {
    const c = await withEnv('GEOWEAVE_STRIP_ROWS', rows, () => runTool('zonal_stats', { image: 'synth_vals.tif', zones: 'synth_zones.tif' }, { outDir: out(`zs-${rows}`), cwd: dir }));
    const table = c.stats.table as Record<string, any>[];
    assert.deepEqual(table.map((t) => Number(t.zone)), [...refClass.keys()].sort((a, b) => a - b));
    for (const t of table) {
      const e = refClass.get(Number(t.zone))!.result();
      assert.deepEqual([t.count, t.nodata_pixels, t.min, t.max, t.sum, t.mean, t.std], [e.count, e.pixels - e.count, e.min, e.max, e.sum, e.mean, e.std], `class ${t.zone} strips=${rows ?? 'default'}`);
    }
    const p = await withEnv('GEOWEAVE_STRIP_ROWS', rows, () => runTool('zonal_stats', { image: 'synth_vals.tif', zones: 'synth_zones.geojson' }, { outDir: out(`zs-${rows}`), cwd: dir }));
    const ptable = p.stats.table as Record<string, any>[];
    assert.equal(ptable.length, 4);
    ptable.forEach((t, k) => {
      const e = refPoly[k];
      assert.deepEqual([t.count, t.nodata_pixels, t.min, t.max], [e.count, e.pixels - e.count, e.count ? e.min : null, e.count ? e.max : null], `polygon ${t.id}`);
      if (k === 1) { // parts sharing rows: same values, summed in another order
        for (const key of ['sum', 'mean', 'std'] as const) assert.ok(Math.abs(t[key] - e[key]) <= 1e-9 * Math.abs(e[key]), `polygon 2 ${key}: ${t[key]} vs ${e[key]}`);
      } else if (e.count) assert.deepEqual([t.sum, t.mean, t.std], [e.sum, e.mean, e.std], `polygon ${t.id} strips=${rows ?? 'default'}`);
    });
    assert.equal(ptable[3].count, 0, 'a polygon off the grid has no pixels');
    assert.ok(refPoly[0].pixels > 50000 && refPoly[1].pixels > 1000 && refPoly[2].pixels > 1000);
  }
  // Sample workspace: NIR per field polygon, and NDVI per vegetation-mask class.
  const a = await runTool('zonal_stats', { image: 's2_scene.tif', band: 'nir', zones: 'fields.geojson' }, { outDir: out('zs-a'), cwd: dir });
  const b = await withEnv('GEOWEAVE_STRIP_ROWS', '7', () => runTool('zonal_stats', { image: 's2_scene.tif', band: 'nir', zones: 'fields.geojson' }, { outDir: out('zs-b'), cwd: dir }));
  assert.deepEqual(b.stats, a.stats);
  assert.equal(b.summary, a.summary);
});

test('distance_to in strips (column distances carried down, then up) equals the whole-band transform and its statistics', async () => {
  for (const file of ['veg_mask.tif', 'synth_mask.tif']) {
    const src = await readWhole(path.join(dir, file));
    const ds = await openRaster(path.join(dir, file));
    const px = pixelSizeMetres(ds.geo.geoTransform as GeoTransform, ds.width, ds.height, ds.geo.geographic);
    await ds.close();
    const ref = distanceTransform(toByteMask(src.f), src.w, src.h, px.x, px.y);
    const sorted = Float32Array.from(ref).sort();
    let sum = 0, max = 0;
    for (const v of ref) { sum += v; if (v > max) max = v; }
    for (const rows of STRIPS) {
      const r = await withEnv('GEOWEAVE_STRIP_ROWS', rows, () => runTool('distance_to', { image: file }, { outDir: out(`dist-${rows}`), cwd: dir }));
      const got = await readWhole(r.outputs.distance.path);
      assert.equal(firstDiff(got.raw, ref), -1, `${file} strips=${rows ?? 'default'}: first differing distance`);
      assert.equal(r.stats.mean_m, sum / ref.length);
      assert.equal(r.stats.max_m, max);
      assert.equal(r.stats.median_m, sorted[Math.floor((sorted.length - 1) / 2)]);
      assert.equal(r.stats.p90_m, sorted[Math.floor(0.9 * (sorted.length - 1))]);
    }
  }
});

test('vectorize_mask streams: no whole-band limit, same polygons in any strip height as the whole-band tracer', async () => {
  const src = await readWhole(path.join(dir, 'synth_mask.tif'));
  const ref = vectorizeMaskWholeBand(toByteMask(src.f), src.w, src.h, GEO.geoTransform);
  const canon = (rings: Ring[]) => rings.map((r) => {
    const a = r.slice(0, -1);
    let m = 0;
    for (let i = 1; i < a.length; i++) if (a[i][1] > a[m][1] || (a[i][1] === a[m][1] && a[i][0] < a[m][0])) m = i;
    return [...a.slice(m), ...a.slice(0, m)].join(' ');
  }).map((s, i) => (i ? s : `ext ${s}`)).sort().join('|');
  let first = '';
  for (const rows of STRIPS) {
    // A limit far below the band size no longer matters: the tool holds a few rows, not the band.
    const r = await withEnv('GEOWEAVE_MAX_BAND_BYTES', '100000', () => withEnv('GEOWEAVE_STRIP_ROWS', rows, () =>
      runTool('vectorize_mask', { image: 'synth_mask.tif' }, { outDir: out(`vec-${rows}`), cwd: dir })));
    const text = fs.readFileSync(r.outputs.polygons.path, 'utf8');
    if (!first) first = text; else assert.equal(text, first, `strips=${rows}: same bytes`);
    const feats = JSON.parse(text).features;
    assert.equal(feats.length, ref.length);
    assert.ok(ref.length > 20);
    feats.forEach((f: any, k: number) => {
      assert.equal(f.properties.pixels, ref[k].pixels, `polygon ${k + 1} pixels`);
      assert.equal(canon(f.geometry.coordinates), canon(ref[k].rings), `polygon ${k + 1} rings strips=${rows ?? 'default'}`);
    });
    assert.equal(r.stats.count, ref.length);
  }
});

test('streamed tools stop on abort between strips and leave no files', async () => {
  for (const [tool, args] of [
    ['morphology', { image: 'synth_mask.tif', op: 'close', radius: 3 }],
    ['connected_patches', { image: 'synth_mask.tif' }],
    ['zonal_stats', { image: 'synth_vals.tif', zones: 'synth_zones.geojson' }],
    ['distance_to', { image: 'synth_mask.tif' }],
    ['vectorize_mask', { image: 'synth_mask.tif' }],
  ] as [string, Record<string, unknown>][]) {
    const od = out(`abort-${tool}`);
    const ac = new AbortController();
    let calls = 0;
    const t0 = Date.now();
    await withEnv('GEOWEAVE_STRIP_ROWS', '16', () => assert.rejects(
      runTool(tool, args, { outDir: od, cwd: dir, signal: ac.signal, onProgress: () => { if (++calls === 3) ac.abort(); } }),
      /abort/i,
    ));
    assert.ok(calls >= 3 && calls < 6, `${tool}: stopped within a strip or two of the abort (${calls} progress calls)`);
    assert.ok(Date.now() - t0 < 5000);
    assert.deepEqual(fs.existsSync(od) ? fs.readdirSync(od) : [], [], `${tool}: no partial output`);
  }
});
