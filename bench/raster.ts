/**
 * `npm run bench:raster`: every builtin tool with a GDAL (or numpy) counterpart against it, each side a child
 * process, run round-robin on the same generated inputs: CPU (user+sys), wall and peak RSS ratios, output
 * sizes, and how the outputs agree. Options: `--runs N` (default 3), `--large` (10000² as well as 5000²;
 * `--sizes 5000,10000` to choose), `--tools a,b` (only these), `--quiet-wait S` (each round first waits up
 * to S s, default 5, for other processes to leave the CPU), `--profile` (one more GeoWeave run per tool with
 * GEOWEAVE_PROFILE=1: CPU by stage and tile decodes against the input's tile count), `--codec-ab` (a third
 * contestant in the same rounds: GeoWeave with GEOWEAVE_DEFLATE=zlib, i.e. without the libdeflate addon).
 * The workers column is the worker-thread count of GeoWeave's raster run (0 = inline; GEOWEAVE_WORKERS=N pins
 * it for the children). GEOWEAVE_MEMTRACE=1 on a single run prints each thread's peak heap, ArrayBuffer and
 * tile-cache bytes of a strip run.
 *
 * `--ndvi`: the NDVI detail instead (GeoWeave, gdal_calc.py, GDAL+numpy; `--runs` default 5, `--quiet-wait`
 * default 20, `--profile`, `--codecs` output DEFLATE options: size and time, `--codecs-only`,
 * `--gdal-zlevel1`, `--big` 20000×20000 peak RSS under 1 GB).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { busyElsewhere, interleaved, loadLine, lpad, measure, pad, Summary } from './raster/measure';
import { generateScene, inputs, PY } from './raster/data';
import { toolCases } from './raster/tools';

const ROOT = path.resolve(__dirname, '..', '..');
const DATA = path.join(ROOT, 'bench', '.data');
const CLI = path.join(ROOT, 'out', 'src', 'cli', 'main.js');

function table(rows: [string, Summary][]): void {
  console.log(`${pad('method', 26)}${lpad('wall median', 12)}${lpad('wall min', 10)}${lpad('CPU u+s', 10)}${lpad('peak RSS', 11)}${lpad('others*', 9)}`);
  for (const [name, m] of rows) {
    const o = Number.isNaN(m.others) ? 'n/a' : `${(m.others * 100).toFixed(0)}%`;
    console.log(`${pad(name, 26)}${lpad(m.wall.toFixed(2) + ' s', 12)}${lpad(m.minWall.toFixed(2) + ' s', 10)}${lpad(m.cpu.toFixed(2) + ' s', 10)}${lpad(m.rssMB.toFixed(0) + ' MB', 11)}${lpad(o, 9)}`);
  }
  console.log('* others: median share of the machine\'s CPU used by other processes during the runs');
}

function verdict(label: string, ratio: number, target: number): boolean {
  const ok = ratio <= target;
  console.log(`  ${ok ? 'PASS' : 'FAIL'}  ${pad(label, 36)} ${ratio.toFixed(2)}  (target <= ${target.toFixed(2)})`);
  return ok;
}

/** Output size, and max |GeoWeave − GDAL+numpy| over pixels valid in both (nodata must agree). */
function compareOutputs(gwOut: string, npOut: string): { maxDiff: number; nodataMismatch: number } {
  const code = `
import sys
from osgeo import gdal
import numpy as np
def rd(p):
    d = gdal.Open(p); b = d.GetRasterBand(1); a = b.ReadAsArray().astype(np.float64); nd = b.GetNoDataValue()
    if nd is not None: a[a == nd] = np.nan
    return a
a, b = rd(sys.argv[1]), rd(sys.argv[2])
both = ~np.isnan(a) & ~np.isnan(b)
print(float(np.abs(a[both] - b[both]).max()), int((np.isnan(a) != np.isnan(b)).sum()))
`;
  const r = spawnSync(PY, ['-c', code, gwOut, npOut], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`output comparison failed (${r.status ?? r.signal}): ${r.stderr}`);
  const [d, m] = r.stdout.trim().split(/\s+/).map(Number);
  return { maxDiff: d, nodataMismatch: m };
}

/** Re-encodes the NDVI output's tiles with several DEFLATE settings: size and time (one thread). */
async function codecs(file: string): Promise<void> {
  const { openRaster } = await import('../src/core/raster/io/dataset');
  const zlib = await import('node:zlib');
  const ds = await openRaster(file);
  const T = 512;
  const tiles: Float32Array[] = [];
  for (let ty = 0; ty < Math.min(4, Math.floor(ds.height / T)); ty++) {
    for (let tx = 0; tx < Math.min(5, Math.floor(ds.width / T)); tx++) tiles.push((await ds.readWindowRaw(1, tx * T, ty * T, T, T)) as Float32Array);
  }
  await ds.close();
  const { predictFloat32 } = await import('../src/core/raster/io/encode');
  const pred3 = (f: Float32Array) => { const b = new Uint8Array(f.length * 4); predictFloat32(new Uint32Array(f.buffer), T, b); return b; };
  const raw = tiles.reduce((a, t) => a + t.byteLength, 0);
  console.log(`\noutput DEFLATE options on ${tiles.length} NDVI tiles (${(raw / 1e6).toFixed(0)} MB float32; one thread; best of 3):`);
  const Z = zlib.constants;
  const options: [string, boolean, object][] = [
    ['predictor 3, level 1, Z_RLE, memLevel 9 (ours)', true, { level: 1, strategy: Z.Z_RLE, memLevel: 9 }],
    ['predictor 3, level 1, Z_RLE, memLevel 8', true, { level: 1, strategy: Z.Z_RLE }],
    ['predictor 3, level 1, default strategy', true, { level: 1 }],
    ['predictor 3, level 1, Z_HUFFMAN_ONLY', true, { level: 1, strategy: Z.Z_HUFFMAN_ONLY, memLevel: 9 }],
    ['predictor 3, level 6 (GDAL default level)', true, { level: 6 }],
    ['no predictor, level 1, Z_RLE', false, { level: 1, strategy: Z.Z_RLE, memLevel: 9 }],
    ['no predictor, level 1, default strategy', false, { level: 1 }],
  ];
  // Best of 3 passes (the machine may be shared); predictor time counted separately.
  let predMs = Infinity;
  for (let rep = 0; rep < 3; rep++) {
    const t0 = process.hrtime.bigint();
    for (const t of tiles) pred3(t);
    predMs = Math.min(predMs, Number(process.hrtime.bigint() - t0) / 1e6 / tiles.length);
  }
  const predicted = tiles.map(pred3), plain = tiles.map((t) => new Uint8Array(t.buffer.slice(0)));
  console.log(`  (predictor 3 itself: ${predMs.toFixed(2)} ms/tile)`);
  for (const [name, p, opt] of options) {
    let size = 0, ms = Infinity;
    for (let rep = 0; rep < 3; rep++) {
      size = 0;
      const t0 = process.hrtime.bigint();
      for (const b of p ? predicted : plain) size += zlib.deflateSync(b, opt).length;
      ms = Math.min(ms, Number(process.hrtime.bigint() - t0) / 1e6 / tiles.length);
    }
    console.log(`  ${pad(name, 46)} ${lpad((size / raw * 100).toFixed(1) + '% of raw', 14)}  deflate ${lpad(ms.toFixed(1), 5)} ms/tile${p ? ` (+${predMs.toFixed(1)} predictor)` : ''}`);
  }
}

async function ndviDetail(argv: string[]): Promise<void> {
  const qa = argv.indexOf('--quiet-wait');
  const quietWaitMs = qa >= 0 && Number(argv[qa + 1]) >= 0 ? Number(argv[qa + 1]) * 1000 : 20_000;
  const at = argv.indexOf('--runs');
  const runs = at >= 0 && Number(argv[at + 1]) > 0 ? Math.floor(Number(argv[at + 1])) : 5;
  if (spawnSync(PY, ['-c', 'from osgeo import gdal'], { stdio: 'ignore' }).status !== 0) {
    console.error('bench:raster needs GDAL python bindings in /usr/bin/python3');
    process.exit(1);
  }
  const src = path.join(DATA, 'ndvi_5000.tif');
  generateScene(src, 5000);
  const out = path.join(DATA, 'out');
  if (argv.includes('--codecs-only')) {
    const f = path.join(out, 'gw', 'ndvi_5000_ndvi.tif');
    if (!fs.existsSync(f)) throw new Error(`${f} is missing: run the benchmark once first`);
    await codecs(f);
    return;
  }
  fs.mkdirSync(out, { recursive: true });
  const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  const other = await busyElsewhere();
  const loadStart = loadLine();
  console.log(`\nNDVI end to end on ${path.relative(ROOT, src)} (${(fs.statSync(src).size / 1e6).toFixed(0)} MB, 5000×5000×4 uint16, tiled 512, DEFLATE)`);
  console.log(`output: float32, tiled 512, DEFLATE + predictor 3, nodata -9999 (all three methods); ${runs} runs each, round-robin; ${cores} cores`);
  console.log(`load average at start (1/5/15 min): ${loadStart}; CPU busy with other processes in the second before: ${other === null ? 'n/a' : (other * 100).toFixed(0) + '%'}`);
  if (quietWaitMs) console.log(`each round waits up to ${quietWaitMs / 1000} s for other processes to use < 10% of the CPU (--quiet-wait S; 0 = off)`);

  const gwOutDir = path.join(out, 'gw');
  const gwArgs = [CLI, 'run', 'ndvi', '--arg', `image=${src}`, '--arg', 'red=3', '--arg', 'nir=4', '--out', gwOutDir];
  const gwRun = () => measure(process.execPath, gwArgs);
  const calcRun = () => measure('gdal_calc.py', [
    '-A', src, '--A_band=3', '-B', src, '--B_band=4', '--calc=(B.astype(numpy.float32)-A)/(B.astype(numpy.float32)+A)',
    '--type=Float32', '--NoDataValue=-9999', '--co=TILED=YES', '--co=COMPRESS=DEFLATE', '--co=PREDICTOR=3', '--overwrite', `--outfile=${path.join(out, 'calc.tif')}`, '--quiet',
  ]);
  const npCode = (zlevel: number | null) => `
import sys
from osgeo import gdal
import numpy as np
d = gdal.Open(sys.argv[1])
r = d.GetRasterBand(3).ReadAsArray().astype(np.float32)
n = d.GetRasterBand(4).ReadAsArray().astype(np.float32)
with np.errstate(all='ignore'):
    v = (n - r) / (n + r)
v[~np.isfinite(v)] = -9999
o = gdal.GetDriverByName('GTiff').Create(sys.argv[2], d.RasterXSize, d.RasterYSize, 1, gdal.GDT_Float32, ['TILED=YES', 'COMPRESS=DEFLATE', 'PREDICTOR=3'${zlevel ? `, 'ZLEVEL=${zlevel}'` : ''}])
o.SetGeoTransform(d.GetGeoTransform()); o.SetProjection(d.GetProjection())
b = o.GetRasterBand(1); b.SetNoDataValue(-9999); b.WriteArray(v)
o = None
`;
  const npOut = path.join(out, 'numpy.tif');
  const npRun = () => measure(PY, ['-c', npCode(null), src, npOut]);
  const methods = [
    { name: 'GeoWeave (2 workers)'.replace('2', String(cores)), run: gwRun },
    { name: 'gdal_calc.py', run: calcRun },
    { name: 'GDAL+numpy (whole)', run: npRun },
  ];
  if (argv.includes('--gdal-zlevel1')) methods.push({ name: 'GDAL+numpy ZLEVEL=1', run: () => measure(PY, ['-c', npCode(1), src, path.join(out, 'numpy_z1.tif')]) });
  const res = await interleaved(methods, runs, quietWaitMs);
  const [gw, calc, np] = res;
  const loadEnd = loadLine();
  console.log('');
  table(methods.map((m, k) => [m.name, res[k]]));
  console.log(`load average at end: ${loadEnd}`);

  console.log('\ntargets (GeoWeave / other):');
  [
    verdict('wall (median) vs gdal_calc.py', gw.wall / calc.wall, 0.8),
    verdict('wall (median) vs GDAL+numpy', gw.wall / np.wall, 1.0),
    verdict('peak RSS vs GDAL+numpy', gw.rssMB / np.rssMB, 0.5),
  ];
  console.log(`  (wall min/min: ${(gw.minWall / calc.minWall).toFixed(2)} vs gdal_calc.py, ${(gw.minWall / np.minWall).toFixed(2)} vs GDAL+numpy)`);
  console.log(`  CPU time (user+sys; less sensitive to load, GeoWeave's is spread over ${cores} threads): ${(gw.cpu / calc.cpu).toFixed(2)} vs gdal_calc.py, ${(gw.cpu / np.cpu).toFixed(2)} vs GDAL+numpy`);
  const busy = Math.max(...[loadStart, loadEnd].map((l) => Number(l.split(' / ')[0])));
  const othersMax = Math.max(...res.map((m) => (Number.isNaN(m.others) ? 0 : m.others)));
  if (othersMax > 0.1 || (other ?? 0) > 0.1) {
    console.log(`  note: other processes used up to ${(othersMax * 100).toFixed(0)}% of the machine during the runs (load ${busy.toFixed(1)} on ${cores} cores):`);
    console.log(`  wall times are inflated, GeoWeave's most (it needs both cores); the CPU ratios above are the load-insensitive comparison`);
  }

  const sizes: [string, string][] = [['GeoWeave', path.join(gwOutDir, 'ndvi_5000_ndvi.tif')], ['gdal_calc.py', path.join(out, 'calc.tif')], ['GDAL+numpy', npOut]];
  if (argv.includes('--gdal-zlevel1')) sizes.push(['GDAL+numpy ZLEVEL=1', path.join(out, 'numpy_z1.tif')]);
  console.log(`\noutput sizes: ${sizes.map(([n, f]) => `${n} ${(fs.statSync(f).size / 1e6).toFixed(1)} MB`).join(', ')} (raw float32: 100.0 MB)`);
  const cmp = compareOutputs(sizes[0][1], npOut);
  console.log(`GeoWeave vs GDAL+numpy output: max |diff| ${cmp.maxDiff.toExponential(2)}, nodata mismatches ${cmp.nodataMismatch}`);

  if (argv.includes('--profile')) {
    const r = spawnSync(process.execPath, gwArgs, { env: { ...process.env, GEOWEAVE_PROFILE: '1' }, encoding: 'utf8' });
    const line = (r.stderr || '').split('\n').find((l) => l.includes('[geoweave profile]'));
    console.log(`\nGeoWeave stages (one more run, GEOWEAVE_PROFILE=1; thread time incl. waits when the machine is busy):\n  ${line ?? '(no profile line)'}`);
  }
  if (argv.includes('--codecs')) await codecs(sizes[0][1]);

  if (argv.includes('--big')) {
    const big = path.join(DATA, 'ndvi_20000.tif');
    generateScene(big, 20000);
    console.log(`\n20000×20000 (${(fs.statSync(big).size / 1e9).toFixed(2)} GB input):`);
    const [b] = await interleaved([{ name: 'GeoWeave 20000²', run: () => measure(process.execPath, [CLI, 'run', 'ndvi', '--arg', `image=${big}`, '--arg', 'red=3', '--arg', 'nir=4', '--out', path.join(out, 'big')]) }], 1, quietWaitMs);
    table([['GeoWeave 20000²', b]]);
    verdict('peak RSS / 1024 MB', b.rssMB / 1024, 1.0);
    fs.rmSync(path.join(out, 'big'), { recursive: true, force: true });
  } else {
    console.log('\n20000×20000 run: not run (pass --big; generates a ~2.5 GB input once under bench/.data/)');
  }
}

/** Tiles of a raster's first IFD (all bands of a pixel-interleaved tile are one decode). */
function tileCount(file: string): number {
  const r = spawnSync(PY, ['-c', `
import sys
from osgeo import gdal
d = gdal.Open(sys.argv[1]); b = d.GetRasterBand(1); bx, by = b.GetBlockSize()
il = d.GetMetadataItem('INTERLEAVE', 'IMAGE_STRUCTURE')
n = -(-d.RasterXSize // bx) * -(-d.RasterYSize // by)
print(n * (d.RasterCount if il == 'BAND' and d.RasterCount > 1 else 1))
`, file], { encoding: 'utf8' });
  return Number(r.stdout.trim());
}

function fileMB(f: string): number { return f && fs.existsSync(f) ? fs.statSync(f).size / 1e6 : NaN; }

interface Row { size: number; tool: string; counterpart: string; gw: Summary; gdal: Summary; zlib?: Summary; gwMB: number; gdalMB: number; agree: string; profile?: string }

async function toolsTable(argv: string[]): Promise<void> {
  const val = (name: string) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
  const runs = Number(val('--runs')) > 0 ? Math.floor(Number(val('--runs'))) : 3;
  const quietWaitMs = Number(val('--quiet-wait')) >= 0 && val('--quiet-wait') !== undefined ? Number(val('--quiet-wait')) * 1000 : 5_000;
  const sizes = (val('--sizes') ?? (argv.includes('--large') ? '5000,10000' : '5000')).split(',').map(Number);
  const only = val('--tools')?.split(',');
  const ab = argv.includes('--codec-ab');
  if (spawnSync(PY, ['-c', 'from osgeo import gdal'], { stdio: 'ignore' }).status !== 0) {
    console.error('bench:raster needs GDAL python bindings in /usr/bin/python3');
    process.exit(1);
  }
  const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  const other = await busyElsewhere();
  console.log(`\nbuiltin tools vs GDAL/numpy; ${runs} runs each, round-robin per tool, medians; ${cores} cores`);
  console.log(`load average at start (1/5/15 min): ${loadLine()}; CPU busy with other processes in the second before: ${other === null ? 'n/a' : (other * 100).toFixed(0) + '%'}`);
  const rows: Row[] = [];
  for (const size of sizes) {
    const inp = inputs(DATA, size);
    const cases = toolCases(inp, CLI, path.join(DATA, 'out')).filter((c) => !only || only.includes(c.tool));
    for (const c of cases) {
      process.stderr.write(`${c.tool} ${size}² vs ${c.counterpart}\n`);
      // With --codec-ab the zlib run goes first in each round, so the outputs left to compare are the addon's.
      const methods = [
        ...(ab ? [{ name: 'GeoWeave zlib', run: () => measure(process.execPath, c.gwArgs, { ...process.env, GEOWEAVE_DEFLATE: 'zlib' }) }] : []),
        { name: 'GeoWeave', run: () => measure(process.execPath, c.gwArgs) },
        { name: c.counterpart, run: () => measure(c.gdal.cmd, c.gdal.args) },
      ];
      const res = await interleaved(methods, runs, quietWaitMs);
      const zlib = ab ? res[0] : undefined;
      const [gw, gdal] = ab ? res.slice(1) : res;
      const row: Row = { size, tool: c.tool, counterpart: c.counterpart, gw, gdal, zlib, gwMB: fileMB(c.gwOut), gdalMB: fileMB(c.gdalOut), agree: c.compare(gw.stdout, gdal.stdout) };
      if (argv.includes('--profile')) {
        const r = spawnSync(process.execPath, c.gwArgs, { env: { ...process.env, GEOWEAVE_PROFILE: '1' }, encoding: 'utf8' });
        const line = (r.stderr || '').split('\n').filter((l) => l.includes('[geoweave profile]')).join(' | ');
        const input = c.gwArgs.find((a) => a.startsWith('image=') || a.startsWith('dem='))?.split('=')[1];
        row.profile = `${line.replace(/\[geoweave profile\] ?/g, '') || '(no profile line)'}${input ? `; input has ${tileCount(input)} tiles` : ''}`;
      }
      rows.push(row);
      const z = zlib ? ` (GeoWeave zlib: CPU ${(zlib.cpu / gdal.cpu).toFixed(2)}, wall ${(zlib.wall / gdal.wall).toFixed(2)})` : '';
      process.stderr.write(`  → workers ${gw.workers || '-'}, CPU ratio ${(gw.cpu / gdal.cpu).toFixed(2)}, wall ratio ${(gw.wall / gdal.wall).toFixed(2)}${z}; ${row.agree}\n`);
    }
  }
  console.log('');
  console.log(`${pad('tool', 19)}${pad('size', 7)}${pad('vs', 36)}${lpad('workers', 8)}${lpad('CPU GW', 8)}${lpad('CPU ref', 9)}${lpad('CPU ×', 7)}${lpad('wall GW', 9)}${lpad('wall ref', 10)}${lpad('wall ×', 8)}${lpad('RSS GW', 9)}${lpad('RSS ref', 9)}${lpad('RSS ×', 7)}${lpad('size ×', 8)}  outputs`);
  for (const r of rows) {
    const f = (v: number) => v.toFixed(2);
    console.log(`${pad(r.tool, 19)}${pad(String(r.size), 7)}${pad(r.counterpart, 36)}${lpad(r.gw.workers || '-', 8)}${lpad(f(r.gw.cpu), 8)}${lpad(f(r.gdal.cpu), 9)}${lpad(f(r.gw.cpu / r.gdal.cpu), 7)}${lpad(f(r.gw.wall), 9)}${lpad(f(r.gdal.wall), 10)}${lpad(f(r.gw.wall / r.gdal.wall), 8)}`
      + `${lpad(r.gw.rssMB.toFixed(0), 9)}${lpad(r.gdal.rssMB.toFixed(0), 9)}${lpad(f(r.gw.rssMB / r.gdal.rssMB), 7)}${lpad(Number.isNaN(r.gwMB / r.gdalMB) ? '-' : f(r.gwMB / r.gdalMB), 8)}  ${r.agree}`);
  }
  console.log('(CPU and wall in s, RSS in MB; × = GeoWeave / reference; size × = output file size ratio; workers = worker threads of GeoWeave\'s raster run(s), 0 = inline, a/b = runs differed, - = not a pooled raster run; GEOWEAVE_WORKERS pins it)');
  if (ab) {
    console.log('\nSame rounds, GeoWeave with GEOWEAVE_DEFLATE=zlib (Node\'s zlib, no addon):');
    console.log(`${pad('tool', 15)}${pad('size', 7)}${lpad('CPU zlib', 10)}${lpad('CPU ×ref', 10)}${lpad('wall ×ref', 11)}${lpad('addon/zlib CPU', 16)}`);
    for (const r of rows.filter((x) => x.zlib)) {
      const zl = r.zlib!;
      console.log(`${pad(r.tool, 15)}${pad(String(r.size), 7)}${lpad(zl.cpu.toFixed(2), 10)}${lpad((zl.cpu / r.gdal.cpu).toFixed(2), 10)}${lpad((zl.wall / r.gdal.wall).toFixed(2), 11)}${lpad((r.gw.cpu / zl.cpu).toFixed(2), 16)}`);
    }
  }
  const others = Math.max(...rows.flatMap((r) => [r.gw.others, r.gdal.others]).filter((v) => !Number.isNaN(v)), 0);
  if (others > 0.1) console.log(`note: other processes used up to ${(others * 100).toFixed(0)}% of the machine during the runs: wall ratios are inflated (GeoWeave's most, it uses both cores); CPU ratios are the load-insensitive comparison`);
  if (argv.includes('--profile')) {
    console.log('\nGeoWeave profile (one more run each, GEOWEAVE_PROFILE=1; CPU ms by stage over all threads, tile decodes):');
    for (const r of rows) console.log(`  ${pad(r.tool, 15)}${pad(String(r.size), 7)}${r.profile}`);
  }
  console.log('\ntargets:');
  const verdict = (label: string, ratio: number, target: number) => console.log(`  ${ratio <= target ? 'PASS' : 'FAIL'}  ${pad(label, 44)} ${ratio.toFixed(2)}  (target <= ${target.toFixed(2)})`);
  for (const r of rows) verdict(`${r.tool} ${r.size}² CPU vs ${r.counterpart}`, r.gw.cpu / r.gdal.cpu, 1.0);
  for (const r of rows.filter((x) => x.size >= 10000)) verdict(`${r.tool} ${r.size}² peak RSS vs ${r.counterpart}`, r.gw.rssMB / r.gdal.rssMB, 0.5);
  for (const r of rows.filter((x) => x.tool === 'ndvi')) verdict(`ndvi ${r.size}² wall vs gdal_calc.py`, r.gw.wall / r.gdal.wall, 0.6);
  const s5 = rows.find((r) => r.tool === 'slope' && r.size === 5000), s10 = rows.find((r) => r.tool === 'slope' && r.size === 10000);
  if (s5 && s10) verdict('slope CPU 10000² / 5000²', s10.gw.cpu / s5.gw.cpu, 4.3);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    // The options are documented once, in this file's header comment (`--help` used to start a full run).
    const head = fs.readFileSync(path.join(ROOT, 'bench', 'raster.ts'), 'utf8').split('*/')[0];
    console.log(head.replace(/^\/\*\*\n?/, '').split('\n').map((l) => l.replace(/^ \* ?/, '')).join('\n').trim());
    return;
  }
  if (argv.includes('--ndvi') || argv.includes('--codecs-only')) await ndviDetail(argv);
  else await toolsTable(argv);
}

main().catch((e) => { console.error(e instanceof Error ? e.message : e); process.exit(1); });
