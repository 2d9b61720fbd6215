/**
 * `npm run bench:raster`: NDVI end to end (read, compute, write float32 GeoTIFF) on a generated
 * 5000×5000 4-band uint16 raster (tiled 512, DEFLATE) by GeoWeave, gdal_calc.py and GDAL+numpy;
 * wall time and peak RSS of each as a child process, and the ratios against the targets.
 * `--big` also runs GeoWeave on 20000×20000 (peak RSS must stay under 1 GB). `--runs N` repeats (median).
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const DATA = path.join(ROOT, 'bench', '.data');
const PY = '/usr/bin/python3';
const CLI = path.join(ROOT, 'out', 'src', 'cli', 'main.js');

interface Measure { wall: number; rssMB: number; cpu: number }

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

/** Runs a command under /usr/bin/time -v; returns wall seconds and peak RSS (MB). */
function measure(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Measure> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const p = spawn('/usr/bin/time', ['-v', cmd, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d) => { err += d; });
    p.on('close', (code) => {
      const wall = Number(process.hrtime.bigint() - t0) / 1e9;
      if (code !== 0) { reject(new Error(`${cmd} ${args.join(' ')} failed (${code}):\n${err.slice(-2000)}`)); return; }
      const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(err);
      const u = /User time \(seconds\): ([\d.]+)/.exec(err), sy = /System time \(seconds\): ([\d.]+)/.exec(err);
      resolve({ wall, rssMB: m ? Number(m[1]) / 1024 : NaN, cpu: (u ? Number(u[1]) : 0) + (sy ? Number(sy[1]) : 0) });
    });
  });
}

function median(xs: number[]): number { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; }

function summarize(name: string, ms: Measure[]): Measure {
  const m = { wall: median(ms.map((x) => x.wall)), rssMB: median(ms.map((x) => x.rssMB)), cpu: median(ms.map((x) => x.cpu)) };
  console.log(`${name.padEnd(22)} wall ${m.wall.toFixed(2)} s (min ${Math.min(...ms.map((x) => x.wall)).toFixed(2)})   CPU ${m.cpu.toFixed(2)} s   peak RSS ${m.rssMB.toFixed(0)} MB`);
  return m;
}

/** Runs the methods round-robin (so load changes hit all of them alike) and reports medians. */
async function interleaved(methods: { name: string; run: () => Promise<Measure> }[], runs: number): Promise<Measure[]> {
  const res: Measure[][] = methods.map(() => []);
  for (let i = 0; i < runs; i++) for (let k = 0; k < methods.length; k++) res[k].push(await methods[k].run());
  return methods.map((m, k) => summarize(m.name, res[k]));
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const runs = Number(argv[argv.indexOf('--runs') + 1]) > 0 && argv.includes('--runs') ? Number(argv[argv.indexOf('--runs') + 1]) : 3;
  if (spawnSync(PY, ['-c', 'from osgeo import gdal'], { stdio: 'ignore' }).status !== 0) {
    console.error('bench:raster needs GDAL python bindings in /usr/bin/python3');
    process.exit(1);
  }
  const src = path.join(DATA, 'ndvi_5000.tif');
  generate(src, 5000);
  const out = path.join(DATA, 'out');
  fs.mkdirSync(out, { recursive: true });
  console.log(`\nNDVI end to end on ${path.relative(ROOT, src)} (${(fs.statSync(src).size / 1e6).toFixed(0)} MB), median of ${runs} runs, ${require('node:os').cpus().length} cores`);

  const gwRun = () => measure(process.execPath, [CLI, 'run', 'ndvi', '--arg', `image=${src}`, '--arg', 'red=3', '--arg', 'nir=4', '--out', path.join(out, 'gw')]);
  const calcRun = () => measure('gdal_calc.py', [
    '-A', src, '--A_band=3', '-B', src, '--B_band=4', '--calc=(B.astype(numpy.float32)-A)/(B.astype(numpy.float32)+A)',
    '--type=Float32', '--NoDataValue=-9999', '--co=TILED=YES', '--co=COMPRESS=DEFLATE', '--co=PREDICTOR=3', '--overwrite', `--outfile=${path.join(out, 'calc.tif')}`, '--quiet',
  ]);
  const npCode = `
import sys
from osgeo import gdal
import numpy as np
d = gdal.Open(sys.argv[1])
r = d.GetRasterBand(3).ReadAsArray().astype(np.float32)
n = d.GetRasterBand(4).ReadAsArray().astype(np.float32)
with np.errstate(all='ignore'):
    v = (n - r) / (n + r)
v[~np.isfinite(v)] = -9999
o = gdal.GetDriverByName('GTiff').Create(sys.argv[2], d.RasterXSize, d.RasterYSize, 1, gdal.GDT_Float32, ['TILED=YES', 'COMPRESS=DEFLATE', 'PREDICTOR=3'])
o.SetGeoTransform(d.GetGeoTransform()); o.SetProjection(d.GetProjection())
b = o.GetRasterBand(1); b.SetNoDataValue(-9999); b.WriteArray(v)
o = None
`;
  const npRun = () => measure(PY, ['-c', npCode, src, path.join(out, 'numpy.tif')]);
  const load0 = require('node:os').loadavg()[0];
  const [gw, calc, np] = await interleaved([
    { name: 'GeoWeave', run: gwRun }, { name: 'gdal_calc.py', run: calcRun }, { name: 'GDAL+numpy (whole)', run: npRun },
  ], runs);
  console.log(`(load average ${load0.toFixed(1)} before, ${require('node:os').loadavg()[0].toFixed(1)} after: other processes on the machine inflate wall times)`);


  const r1 = gw.wall / calc.wall, r2 = gw.wall / np.wall, r3 = gw.rssMB / np.rssMB;
  const ok = (b: boolean) => (b ? 'OK  ' : 'MISS');
  console.log('\nratios (GeoWeave / other):');
  console.log(`  ${ok(r1 <= 0.8)} wall vs gdal_calc.py   ${r1.toFixed(2)}  (target <= 0.80)`);
  console.log(`  ${ok(r2 <= 1.0)} wall vs GDAL+numpy     ${r2.toFixed(2)}  (target <= 1.00)`);
  console.log(`  ${ok(r3 <= 0.5)} peak RSS vs GDAL+numpy ${r3.toFixed(2)}  (target <= 0.50)`);
  console.log(`  (CPU seconds: GeoWeave ${gw.cpu.toFixed(2)} on ${require('node:os').cpus().length} threads, gdal_calc.py ${calc.cpu.toFixed(2)}, GDAL+numpy ${np.cpu.toFixed(2)})`);

  if (argv.includes('--big')) {
    const big = path.join(DATA, 'ndvi_20000.tif');
    generate(big, 20000);
    console.log(`\n20000×20000 (${(fs.statSync(big).size / 1e9).toFixed(2)} GB input):`);
    const [b] = await interleaved([{ name: 'GeoWeave 20000²', run: () => measure(process.execPath, [CLI, 'run', 'ndvi', '--arg', `image=${big}`, '--arg', 'red=3', '--arg', 'nir=4', '--out', path.join(out, 'big')]) }], 1);
    console.log(`  ${ok(b.rssMB < 1024)} peak RSS ${b.rssMB.toFixed(0)} MB (target < 1024 MB)`);
    fs.rmSync(path.join(out, 'big'), { recursive: true, force: true });
  } else {
    console.log('\n20000×20000 run: not run (pass --big; generates a ~2.5 GB input once under bench/.data/)');
  }
}

main().catch((e) => { console.error(e instanceof Error ? e.message : e); process.exit(1); });
