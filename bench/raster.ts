/**
 * `npm run bench:raster`: NDVI end to end (read, compute, write a float32 tiled DEFLATE GeoTIFF) on a
 * generated 5000×5000 4-band uint16 raster (tiled 512, DEFLATE) by GeoWeave, gdal_calc.py and GDAL+numpy,
 * each as a child process, run round-robin: wall median/min, CPU (user+sys), peak RSS, ratios vs targets.
 * Options: `--runs N` (default 5), `--quiet-wait S` (each round first waits up to S s, default 20, for
 * other processes to leave the CPU), `--profile` (GeoWeave CPU by stage), `--codecs` (output DEFLATE
 * options: size and time; `--codecs-only` just that), `--gdal-zlevel1` (GDAL+numpy also at DEFLATE level 1), `--big` (20000×20000,
 * peak RSS under 1 GB).
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const DATA = path.join(ROOT, 'bench', '.data');
const PY = '/usr/bin/python3';
const CLI = path.join(ROOT, 'out', 'src', 'cli', 'main.js');

interface Measure { wall: number; rssMB: number; cpu: number; others: number }
interface Summary extends Measure { minWall: number; runs: number }

function generate(file: string, size: number): void {
  if (fs.existsSync(file)) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = file + '.tmp.tif';
  console.log(`generating ${path.basename(file)} (${size}×${size}, 4 bands uint16, tiled 512, DEFLATE) ...`);
  // Smooth fields plus noise (compresses like real imagery), written in 512-row strips to bound memory.
  const code = `
from osgeo import gdal, osr
import numpy as np
N = ${size}
d = gdal.GetDriverByName('GTiff').Create(${JSON.stringify(tmp)}, N, N, 4, gdal.GDT_UInt16,
    ['TILED=YES', 'BLOCKXSIZE=512', 'BLOCKYSIZE=512', 'COMPRESS=DEFLATE', 'BIGTIFF=IF_SAFER'])
d.SetGeoTransform((500000, 10, 0, 5000000, 0, -10))
s = osr.SpatialReference(); s.ImportFromEPSG(32633); d.SetProjection(s.ExportToWkt())
rng = np.random.default_rng(7)
for i, n in enumerate(['blue', 'green', 'red', 'nir']):
    d.GetRasterBand(i + 1).SetDescription(n)
xs = np.arange(N)
for y0 in range(0, N, 512):
    h = min(512, N - y0)
    yy = np.arange(y0, y0 + h)[:, None]
    veg = (np.sin(xs[None, :] / 170.0) * np.cos(yy / 230.0) + 1) / 2
    base = [600 + 300 * (1 - veg), 900 + 200 * (1 - veg), 200 + 1200 * (1 - veg), 1500 + 3500 * veg]
    for i in range(4):
        a = np.clip(base[i] + rng.normal(0, 120, (h, N)), 1, 10000).astype(np.uint16)
        d.GetRasterBand(i + 1).WriteArray(a, 0, y0)
d = None
`;
  const r = spawnSync(PY, ['-c', code], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('raster generation failed (needs GDAL python bindings in /usr/bin/python3)');
  fs.renameSync(tmp, file);
}

/** Busy and total CPU ticks of the whole machine so far (from /proc/stat), or null. */
function cpuTicks(): { busy: number; total: number } | null {
  try {
    const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const total = f.reduce((a, b) => a + b, 0);
    return { busy: total - f[3] - (f[4] || 0), total };
  } catch { return null; }
}

const TICK = 100; // USER_HZ on Linux

/**
 * Runs a command under /usr/bin/time -v; returns wall seconds, CPU seconds (user+sys), peak RSS (MB) and the
 * CPU that other processes used meanwhile, as a share of the machine (0..1).
 */
function measure(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Measure> {
  return new Promise((resolve, reject) => {
    const c0 = cpuTicks();
    const t0 = process.hrtime.bigint();
    const p = spawn('/usr/bin/time', ['-v', cmd, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d) => { err += d; });
    p.on('close', (code) => {
      const wall = Number(process.hrtime.bigint() - t0) / 1e9;
      const c1 = cpuTicks();
      if (code !== 0) { reject(new Error(`${cmd} ${args.join(' ')} failed (${code}):\n${err.slice(-2000)}`)); return; }
      const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(err);
      const u = /User time \(seconds\): ([\d.]+)/.exec(err), sy = /System time \(seconds\): ([\d.]+)/.exec(err);
      const cpu = (u ? Number(u[1]) : 0) + (sy ? Number(sy[1]) : 0);
      const others = c0 && c1 && c1.total > c0.total ? Math.max(0, ((c1.busy - c0.busy) / TICK - cpu) / ((c1.total - c0.total) / TICK)) : NaN;
      resolve({ wall, rssMB: m ? Number(m[1]) / 1024 : NaN, cpu, others });
    });
  });
}

/** Waits (up to `maxMs`) until other processes use under `limit` of the machine; returns the last share seen. */
async function waitQuiet(limit: number, maxMs: number): Promise<number | null> {
  const until = Date.now() + maxMs;
  let share: number | null = null;
  do {
    share = await busyElsewhere(500);
    if (share === null || share < limit) return share;
  } while (Date.now() < until);
  return share;
}

function median(xs: number[]): number { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; }

function summarize(ms: Measure[]): Summary {
  return {
    wall: median(ms.map((x) => x.wall)), minWall: Math.min(...ms.map((x) => x.wall)),
    rssMB: median(ms.map((x) => x.rssMB)), cpu: median(ms.map((x) => x.cpu)), others: median(ms.map((x) => x.others)), runs: ms.length,
  };
}

/** Runs the methods round-robin (so load changes hit all of them alike) and reports medians. */
async function interleaved(methods: { name: string; run: () => Promise<Measure> }[], runs: number, quietWaitMs = 0): Promise<Summary[]> {
  const res: Measure[][] = methods.map(() => []);
  for (let i = 0; i < runs; i++) {
    // Each round starts when other processes leave the cores alone (or after quietWaitMs): less noise, same for every method.
    const before = quietWaitMs > 0 ? await waitQuiet(0.1, quietWaitMs) : null;
    for (let k = 0; k < methods.length; k++) res[k].push(await methods[k].run());
    const pct = (v: number | null) => (v === null || Number.isNaN(v) ? 'n/a' : `${(v * 100).toFixed(0)}%`);
    process.stderr.write(`  round ${i + 1}/${runs} (others before ${pct(before)}): ${methods.map((m, k) => `${m.name} ${res[k][i].wall.toFixed(2)} s [others ${pct(res[k][i].others)}]`).join(', ')}\n`);
  }
  return res.map(summarize);
}

/** Share of the machine's CPU time used by (other) processes over `ms` (from /proc/stat), or null. */
async function busyElsewhere(ms = 1000): Promise<number | null> {
  const a = cpuTicks();
  await new Promise((r) => setTimeout(r, ms));
  const b = cpuTicks();
  if (!a || !b || b.total === a.total) return null;
  return (b.busy - a.busy) / (b.total - a.total);
}

function loadLine(): string {
  return os.loadavg().map((v) => v.toFixed(2)).join(' / ');
}

const pad = (s: string, n: number) => s.padEnd(n);
const lpad = (s: string, n: number) => s.padStart(n);

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

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const qa = argv.indexOf('--quiet-wait');
  const quietWaitMs = qa >= 0 && Number(argv[qa + 1]) >= 0 ? Number(argv[qa + 1]) * 1000 : 20_000;
  const at = argv.indexOf('--runs');
  const runs = at >= 0 && Number(argv[at + 1]) > 0 ? Math.floor(Number(argv[at + 1])) : 5;
  if (spawnSync(PY, ['-c', 'from osgeo import gdal'], { stdio: 'ignore' }).status !== 0) {
    console.error('bench:raster needs GDAL python bindings in /usr/bin/python3');
    process.exit(1);
  }
  const src = path.join(DATA, 'ndvi_5000.tif');
  generate(src, 5000);
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
    generate(big, 20000);
    console.log(`\n20000×20000 (${(fs.statSync(big).size / 1e9).toFixed(2)} GB input):`);
    const [b] = await interleaved([{ name: 'GeoWeave 20000²', run: () => measure(process.execPath, [CLI, 'run', 'ndvi', '--arg', `image=${big}`, '--arg', 'red=3', '--arg', 'nir=4', '--out', path.join(out, 'big')]) }], 1, quietWaitMs);
    table([['GeoWeave 20000²', b]]);
    verdict('peak RSS / 1024 MB', b.rssMB / 1024, 1.0);
    fs.rmSync(path.join(out, 'big'), { recursive: true, force: true });
  } else {
    console.log('\n20000×20000 run: not run (pass --big; generates a ~2.5 GB input once under bench/.data/)');
  }
}

main().catch((e) => { console.error(e instanceof Error ? e.message : e); process.exit(1); });
