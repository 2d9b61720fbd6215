#!/usr/bin/env node
/**
 * How often readiness prefills the right file. For every task of bench/tasks.jsonl whose first step
 * can run on the sample workspace (`geoweave sample`), the file(s) an analyst means are labelled below
 * (by hand, from the task's words: "the DEM", "pre- and post-fire images", "the Landsat 9 scene",
 * "fields.geojson"); the forward readiness of the task's first tool is then compared with them.
 * Tasks whose first step needs data the sample does not have (a classification, an NDVI raster, a
 * time series, SAR, a download) are not labelled.
 *
 *   npm run build && node scripts/readiness-bench.js [--dev] [--out DIR] [--json] [--misses]
 *     --dev       the blind validation set bench/dev.jsonl instead of bench/tasks.jsonl
 *     --out DIR   a compiled tree other than out/ (e.g. another checkout's, to compare)
 */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');

const ROOT = path.resolve(__dirname, '..');
const argv = process.argv.slice(2);
const opt = (name) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
const OUT = path.resolve(opt('--out') ?? path.join(ROOT, 'out'));

const S2 = 's2_scene.tif';
const DEM = 'dem.tif';
const LANDSAT = 'thermal_landsat.tif';
const FIRE = { pre: 'fire_pre.tif', post: 'fire_post.tif' };
const URBAN = ['urban_2018.tif', 'urban_2024.tif'];
const FIELDS = 'fields.geojson';
const PAIRS = [{ before: 'urban_2018.tif', after: 'urban_2024.tif' }, { before: 'fire_pre.tif', after: 'fire_post.tif' }];

/**
 * task id → [first tool with data inputs, expected arguments]. A value may list alternatives; a list
 * of objects gives alternative argument sets ("the two images": either dated pair of the sample).
 */
const LABELS = {
  't-index-01': ['ndvi', { image: S2 }],
  't-index-02': ['savi', { image: S2 }],
  't-index-03': ['evi', { image: S2 }],
  't-index-04': ['ndmi', { image: S2 }],
  't-index-06': ['ndvi', { image: S2 }],
  't-index-07': ['evi', { image: S2 }],
  't-index-08': ['tasseled_cap', { image: LANDSAT }],
  't-index-09': ['ndmi', { image: S2 }],
  't-index-11': ['band_math', { image: S2 }],
  't-index-12': ['savi', { image: S2 }],
  't-mask-07': ['mndwi', { image: S2 }],
  't-mask-08': ['cloud_mask', { image: S2 }],
  't-classify-01': ['kmeans_classify', { image: S2 }],
  't-classify-08': ['cloud_mask', { image: S2 }],
  't-classify-09': ['tasseled_cap', { image: S2 }],
  't-classify-10': ['kmeans_classify', { image: S2 }],
  't-area-02': ['ndvi', { image: S2 }],
  't-area-03': ['land_surface_temperature', { image: LANDSAT }],
  't-area-04': ['raster_stats', { image: DEM }],
  't-area-06': ['slope', { dem: DEM }],
  't-area-08': ['mndwi', { image: S2 }],
  't-area-09': ['ndmi', { image: S2 }],
  't-change-01': ['change_vector_analysis', { before: 'urban_2018.tif', after: 'urban_2024.tif' }],
  't-change-03': ['change_vector_analysis', PAIRS],
  't-change-05': ['change_vector_analysis', { before: FIRE.pre, after: FIRE.post }],
  't-change-09': ['change_vector_analysis', PAIRS],
  't-terrain-01': ['slope', { dem: DEM }],
  't-terrain-02': ['aspect', { dem: DEM }],
  't-terrain-03': ['hillshade', { dem: DEM }],
  't-terrain-05': ['slope', { dem: DEM }],
  't-terrain-07': ['viewshed', { dem: DEM }],
  't-terrain-08': ['slope', { dem: DEM }],
  't-terrain-10': ['hillshade', { dem: DEM }],
  't-terrain-11': ['fill_nodata', { image: DEM }],
  't-terrain-12': ['contour_lines', { dem: DEM }],
  't-water-01': ['cloud_mask', { image: S2 }],
  't-water-03': ['mndwi', { image: S2 }],
  't-water-05': ['mndwi', { image: S2 }],
  't-water-07': ['mndwi', { image: S2 }],
  't-water-09': ['mndwi', { image: S2 }],
  't-water-10': ['ndmi', { image: S2 }],
  't-water-11': ['mndwi', { image: S2 }],
  't-fire-01': ['dnbr', FIRE],
  't-fire-02': ['dnbr', FIRE],
  't-fire-03': ['dnbr', FIRE],
  't-fire-04': ['nbr', { image: FIRE.post }],
  't-fire-05': ['dnbr', FIRE],
  't-fire-08': ['dnbr', FIRE],
  't-fire-09': ['dnbr', FIRE],
  't-fire-10': ['dnbr', FIRE],
  't-urban-01': ['ndbi', { image: URBAN }],
  't-urban-02': ['ndbi', { image: URBAN }],
  't-urban-03': ['ndbi', { image: S2 }],
  't-urban-04': ['ndbi', { image: URBAN }],
  't-urban-06': ['ndbi', { image: URBAN }],
  't-urban-09': ['ndvi', { image: URBAN }],
  't-urban-10': ['ndbi', { image: URBAN }],
  't-agri-01': ['ndvi', { image: S2 }],
  't-agri-02': ['cloud_mask', { image: S2 }],
  't-agri-03': ['ndvi', { image: S2 }],
  't-agri-06': ['ndmi', { image: S2 }],
  't-agri-07': ['savi', { image: S2 }],
  't-agri-08': ['cloud_mask', { image: S2 }],
  't-agri-09': ['ndvi', { image: S2 }],
  't-agri-11': ['ndvi', { image: S2 }],
  't-agri-12': ['cloud_mask', { image: S2 }],
  't-vector-03': ['rasterize_vector', { vector: FIELDS }],
  't-vector-04': ['vector_convert', { vector: FIELDS }],
  't-vector-07': ['dnbr', FIRE],
  't-vector-08': ['rasterize_vector', { vector: FIELDS }],
  't-vector-10': ['vector_convert', { vector: FIELDS }],
  't-vector-11': ['clip_to_vector', { image: S2, cutline: FIELDS }],
  't-export-02': ['ndvi', { image: S2 }],
  't-export-05': ['land_surface_temperature', { image: LANDSAT }],
  't-export-06': ['hillshade', { dem: DEM }],
  't-prep-01': ['cloud_mask', { image: S2 }],
  't-prep-02': ['reproject', { image: S2 }],
  't-prep-04': ['clip_bbox', { image: S2 }],
  't-prep-09': ['resample', { image: S2 }],
  't-prep-11': ['cloud_mask', { image: LANDSAT }],
  't-prep-13': ['reproject', { image: DEM }],
  't-prep-14': ['cloud_mask', { image: S2 }],
  't-thermal-01': ['land_surface_temperature', { image: LANDSAT }],
  't-thermal-02': ['land_surface_temperature', { image: LANDSAT }],
  't-thermal-03': ['land_surface_temperature', { image: LANDSAT }],
  't-thermal-04': ['land_surface_temperature', { image: LANDSAT }],
  't-thermal-07': ['land_surface_temperature', { image: LANDSAT }],
  't-thermal-10': ['land_surface_temperature', { image: LANDSAT }],
  't-wq-01': ['mndwi', { image: S2 }],
  't-wq-02': ['mndwi', { image: S2 }],
  't-wq-03': ['mndwi', { image: S2 }],
  't-wq-04': ['mndwi', { image: S2 }],
  't-wq-05': ['turbidity_index', { image: S2 }],
  't-wq-06': ['ndci', { image: S2 }],
  't-wq-07': ['turbidity_index', { image: S2 }],
  't-wq-08': ['mndwi', { image: S2 }],
  't-wq-10': ['ndci', { image: S2 }],
};

/**
 * The same for the blind validation set bench/dev.jsonl, labelled the same way after the vocabulary
 * of mentions (src/core/data/mentions.ts) was written: a check that it was not fitted to the tasks above.
 * Its tasks name places and sensors; the label is the sample file of that kind ("Landsat 9 C2 L2" →
 * the sample's Landsat scene).
 */
const DEV_LABELS = {
  'dv-index-01': ['cloud_mask', { image: S2 }],
  'dv-index-02': ['dos_atmospheric_correction', { image: LANDSAT }],
  'dv-index-03': ['savi', { image: LANDSAT }],
  'dv-index-04': ['ndmi', { image: S2 }],
  'dv-index-05': ['band_math', { image: S2 }],
  'dv-index-06': ['tasseled_cap', { image: LANDSAT }],
  'dv-mask-02': ['cloud_mask', { image: LANDSAT }],
  'dv-mask-03': ['ndvi', { image: S2 }],
  'dv-mask-08': ['cloud_mask', { image: S2 }],
  'dv-classify-02': ['kmeans_classify', { image: S2 }],
  'dv-classify-03': ['ndvi', { image: S2 }],
  'dv-classify-07': ['dos_atmospheric_correction', { image: LANDSAT }],
  'dv-area-05': ['viewshed', { dem: DEM }],
  'dv-area-07': ['savi', { image: S2 }],
  'dv-area-09': ['ndsi', { image: LANDSAT }],
  'dv-change-05': ['reproject', { image: 'urban_2018.tif' }],
  'dv-change-07': ['cloud_mask', { image: S2 }],
  'dv-terrain-07': ['slope', { dem: DEM }],
  'dv-terrain-08': ['flow_accumulation', { dem: DEM }],
  'dv-terrain-09': ['fill_nodata', { image: DEM }],
  'dv-water-02': ['mndwi', { image: S2 }],
  'dv-water-03': ['mndwi', { image: LANDSAT }],
  'dv-water-05': ['cloud_mask', { image: S2 }],
  'dv-water-07': ['mndwi', { image: LANDSAT }],
  'dv-water-08': ['mndwi', { image: S2 }],
  'dv-fire-03': ['dnbr', FIRE],
  'dv-fire-04': ['dnbr', FIRE],
  'dv-fire-06': ['dnbr', FIRE],
  'dv-fire-07': ['dnbr', FIRE],
  'dv-fire-08': ['cloud_mask', { image: S2 }],
  'dv-fire-09': ['land_surface_temperature', { image: LANDSAT }],
  'dv-urban-02': ['cloud_mask', { image: LANDSAT }],
  'dv-urban-05': ['ndvi', { image: S2 }],
  'dv-urban-06': ['cloud_mask', { image: S2 }],
  'dv-urban-08': ['ndbi', { image: S2 }],
  'dv-agri-02': ['savi', { image: S2 }],
  'dv-agri-06': ['cloud_mask', { image: LANDSAT }],
  'dv-agri-09': ['dos_atmospheric_correction', { image: LANDSAT }],
  'dv-vector-07': ['clip_to_vector', { image: S2, cutline: FIELDS }],
  'dv-export-03': ['dnbr', FIRE],
  'dv-export-06': ['hillshade', { dem: DEM }],
  'dv-export-09': ['clip_bbox', { image: S2 }],
  'dv-prep-01': ['dos_atmospheric_correction', { image: LANDSAT }],
  'dv-prep-07': ['cloud_mask', { image: S2 }],
  'dv-prep-08': ['cloud_mask', { image: LANDSAT }],
  'dv-thermal-01': ['cloud_mask', { image: LANDSAT }],
  'dv-thermal-03': ['land_surface_temperature', { image: LANDSAT }],
  'dv-thermal-05': ['land_surface_temperature', { image: LANDSAT }],
  'dv-thermal-07': ['land_surface_temperature', { image: LANDSAT }],
  'dv-thermal-08': ['clip_bbox', { image: LANDSAT }],
  'dv-thermal-09': ['cloud_mask', { image: LANDSAT }],
  'dv-thermal-10': ['land_surface_temperature', { image: LANDSAT }],
  'dv-wq-01': ['mndwi', { image: S2 }],
  'dv-wq-02': ['mndwi', { image: S2 }],
  'dv-wq-03': ['mndwi', { image: S2 }],
  'dv-wq-08': ['ndci', { image: S2 }],
};

/** Whether the prefilled `args` give every labelled argument one of its expected files. */
function matches(args, expected) {
  const sets = Array.isArray(expected) ? expected : [expected];
  return sets.some((set) => Object.entries(set).every(([k, want]) => {
    const got = typeof args[k] === 'string' ? path.basename(args[k]) : undefined;
    return (Array.isArray(want) ? want : [want]).includes(got);
  }));
}

function show(expected) {
  const sets = Array.isArray(expected) ? expected : [expected];
  return sets.map((s) => Object.entries(s).map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('|') : v}`).join(', ')).join(' or ');
}

async function main() {
  const req = (...p) => require(path.join(OUT, ...p));
  const { GeoWeave } = req('src', 'core', 'geoweave.js');
  const { scanDataFolder } = req('src', 'core', 'data', 'scan.js');
  const { writeSampleWorkspace } = req('src', 'core', 'raster', 'sample', 'generate.js');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'geoweave-readiness-'));
  try {
    const ws = path.join(tmp, 'sample');
    await writeSampleWorkspace(ws);
    const data = await scanDataFolder(ws);
    const gw = await GeoWeave.open({ stateDir: path.join(tmp, 'state'), builtinManifestDir: path.join(ROOT, 'tool-manifests') });
    const dev = argv.includes('--dev');
    const labels = dev ? DEV_LABELS : LABELS;
    const file = dev ? 'dev.jsonl' : 'tasks.jsonl';
    const tasks = fs.readFileSync(path.join(ROOT, 'bench', file), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
    const rows = [];
    for (const t of tasks) {
      const label = labels[t.id];
      if (!label) continue;
      const [tool, expected] = label;
      // As the extension inserts a tool that is not among the shown candidates: the whole catalog ranked.
      const res = await gw.forwardCandidates(t.query, { k: gw.tools.length, data });
      const c = res.candidates.find((x) => x.id === tool);
      const args = c?.readiness.args ?? {};
      const rank = res.candidates.findIndex((x) => x.id === tool) + 1;
      rows.push({ id: t.id, query: t.query, tool, rank, ok: matches(args, expected), expected: show(expected), got: Object.entries(args).filter(([, v]) => typeof v === 'string').map(([k, v]) => `${k}=${path.basename(v)}`).join(', ') });
    }
    await gw.dispose();
    const ok = rows.filter((r) => r.ok).length;
    const byFile = new Map();
    for (const r of rows) {
      const key = r.expected.replace(/^\w+=/, '').split(',')[0];
      const e = byFile.get(key) ?? { n: 0, ok: 0 };
      e.n++; if (r.ok) e.ok++;
      byFile.set(key, e);
    }
    const summary = { file, tasks: tasks.length, labelled: rows.length, rightFile: ok, share: Math.round((ok / rows.length) * 1000) / 1000, build: path.relative(ROOT, OUT) || OUT };
    if (argv.includes('--json')) {
      process.stdout.write(JSON.stringify({ ...summary, rows }, null, 2) + '\n');
      return;
    }
    process.stdout.write(`readiness prefills the right file for ${ok} of ${rows.length} labelled tasks (${(100 * ok / rows.length).toFixed(1)} %), ${tasks.length} tasks in bench/${file}; build ${summary.build}\n`);
    for (const [file, e] of [...byFile.entries()].sort((a, b) => b[1].n - a[1].n)) process.stdout.write(`  ${file.padEnd(42)} ${e.ok}/${e.n}\n`);
    if (argv.includes('--misses')) {
      for (const r of rows.filter((x) => !x.ok)) process.stdout.write(`  miss ${r.id} ${r.tool} (#${r.rank}): want ${r.expected}; got ${r.got || 'nothing'} — "${r.query.slice(0, 90)}"\n`);
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`${e.stack ?? e}\n`);
  process.exitCode = 1;
});
