/** GDAL helpers for raster tests: availability (skip outside CI, fail in CI), python GDAL+numpy, temp dirs. */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const PY = '/usr/bin/python3';
let cached: string | null | undefined;

/** null when GDAL (CLI + python bindings) is usable, else the reason. */
export function gdalMissing(): string | null {
  if (cached !== undefined) return cached;
  const info = spawnSync('gdalinfo', ['--version'], { encoding: 'utf8' });
  if (info.status !== 0) return (cached = 'gdalinfo not found');
  const py = spawnSync(PY, ['-c', 'from osgeo import gdal; import numpy'], { encoding: 'utf8' });
  if (py.status !== 0) return (cached = `${PY} has no osgeo/numpy`);
  return (cached = null);
}

/** Options for node:test: skip with a message when GDAL is missing, except in CI where the test must fail. */
export function needGdal(): { skip?: string } {
  const why = gdalMissing();
  if (!why) return {};
  if (process.env.CI) return {}; // run and fail loudly in CI
  return { skip: `GDAL unavailable (${why}); install gdal-bin and python3-gdal to run this test` };
}

/**
 * GDAL and ecCodes, which write the GRIB fixtures: a skip without either, except in CI
 * (setup-test-env.sh installs libeccodes-tools), where the test runs and fails loudly.
 */
export function needGdalAndEccodes(): { skip?: string } {
  const gdal = needGdal();
  if (gdal.skip) return gdal;
  const eccodes = spawnSync('grib_set', ['-V'], { encoding: 'utf8' }).status === 0;
  return !eccodes && !process.env.CI ? { skip: 'ecCodes (grib_set) missing; apt-get install libeccodes-tools' } : {};
}

/** Runs a command line (ecCodes' grib_set, grib_copy, grib_filter…), its output as text; throws on failure. */
export function runTool(...args: string[]): string {
  return execFileSync(args[0], args.slice(1), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

export function assertGdal(): void {
  const why = gdalMissing();
  if (why) throw new Error(`GDAL is required in CI: ${why}`);
}

/** Runs python code with GDAL+numpy; returns stdout. */
export function py(code: string, cwd?: string): string {
  assertGdal();
  return execFileSync(PY, ['-c', code], { encoding: 'utf8', cwd, maxBuffer: 1 << 28 });
}

export function gdalinfoJson(file: string): any {
  return JSON.parse(execFileSync('gdalinfo', ['-json', file], { encoding: 'utf8', maxBuffer: 1 << 26 }));
}

const made: string[] = [];
process.on('exit', () => { for (const d of made) fs.rmSync(d, { recursive: true, force: true }); });

/** A fresh temp folder, removed when the test process exits. */
export function tmpDir(prefix = 'gw-raster-'): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(d);
  return d;
}

/** Reads a raw little-endian float64 dump written by numpy's tofile. */
export function readF64(file: string): Float64Array {
  const b = fs.readFileSync(file);
  return new Float64Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

/** A band window as GDAL reads it (raw samples, as float64): the reference the readers' tests compare with.
 *  `file` may be any name GDAL opens (`NETCDF:"f.nc":var`); the whole band when no window is given. */
export function gdalWindow(file: string, band = 1, win?: [number, number, number, number]): Float64Array {
  const w = win ? win.join(', ') : '';
  return readF64(py(`
from osgeo import gdal
import tempfile
d = gdal.Open(${JSON.stringify(file)}); a = d.GetRasterBand(${band}).ReadAsArray(${w}).astype('f8')
f = tempfile.mktemp(); a.tofile(f); print(f)`).trim());
}

/** Band windows as GDAL reads them (raw samples as float64), in one python run: `[band, [x, y, w, h]]` each. */
export function gdalWindows(name: string, reads: [number, [number, number, number, number]][]): Float64Array[] {
  const files = JSON.parse(py(`
import json, tempfile
from osgeo import gdal
d = gdal.Open(${JSON.stringify(name)}); out = []
for b, w in ${JSON.stringify(reads)}:
    f = tempfile.mktemp(); d.GetRasterBand(b).ReadAsArray(*w).astype('f8').tofile(f); out.append(f)
print(json.dumps(out))`)) as string[];
  return files.map((f) => { const a = readF64(f); fs.rmSync(f); return a; });
}

/** Python snippet: band arrays of `path` as float64 with nodata → nan, in a dict `bands[i]` (1-based). */
export const PY_READ = `
from osgeo import gdal
import numpy as np
def read(p, scale=True):
    d = gdal.Open(p)
    out = {}
    for i in range(1, d.RasterCount + 1):
        b = d.GetRasterBand(i)
        a = b.ReadAsArray().astype(np.float64)
        nd = b.GetNoDataValue()
        if nd is not None:
            a[a == (np.float32(nd) if b.DataType == gdal.GDT_Float32 else nd)] = np.nan
        if scale:
            a = a * (b.GetScale() or 1.0) + (b.GetOffset() or 0.0)
        out[i] = a
    return out
`;

/**
 * node:test's `skip` for a GDAL comparison: false when GDAL (CLI, python osgeo + numpy, and the
 * named command-line `tools`) is usable, else a message naming what is skipped. In CI a missing
 * GDAL throws instead: CI must never skip these.
 */
export function gdalSkip(what: string, tools: string[] = []): string | false {
  const why = gdalMissing() ?? tools.map((t) => (spawnSync('sh', ['-c', `command -v ${t}`]).status === 0 ? '' : `${t} not found`)).find(Boolean) ?? null;
  if (!why) return false;
  if (process.env.CI) throw new Error(`GDAL is required in CI (${why})`);
  return `GDAL unavailable (${why}): skipping ${what}`;
}

/** Runs a python script (GDAL + numpy) with `args` as its argv and parses its stdout as JSON. */
export function pyJson(script: string, ...args: string[]): any {
  const r = spawnSync(PY, ['-c', script, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`python failed (status ${r.status}, ${r.signal ?? r.error?.message ?? ''}): ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** Python prelude: `read(path, band)` → (array, nodata). Each dataset stays referenced while its
 *  bands are in use (GDAL python segfaults otherwise). */
export const PY_READ_BAND = `
import sys, json, numpy as np
from osgeo import gdal, ogr
_keep = []
def read(p, band=1):
    ds = gdal.Open(p); _keep.append(ds)
    b = ds.GetRasterBand(band)
    return b.ReadAsArray(), b.GetNoDataValue()
`;

/** Same pixels (bytes), grid, projection, nodata, band descriptions and metadata, except the
 *  arguments a run's provenance records (two spellings of one call: band names or indices). */
export function sameRasterButArgs(a: string, b: string): boolean {
  return pyJson(`
import json, sys
from osgeo import gdal
def sig(p):
    d = gdal.Open(p)
    bands = [d.GetRasterBand(i) for i in range(1, d.RasterCount + 1)]
    md = {k: v for k, v in d.GetMetadata().items() if k != 'GEOWEAVE_ARGS'}
    return [d.ReadRaster().hex(), d.GetGeoTransform(), d.GetProjection(), md, [(b.GetNoDataValue(), b.GetDescription(), b.DataType, b.GetMetadata()) for b in bands]]
print(json.dumps(sig(sys.argv[1]) == sig(sys.argv[2])))`, a, b) as boolean;
}

/**
 * Writes band `b` of `src` to `dst` as a single-band uint16 GeoTIFF without its description, with
 * `add` DN added to every non-zero DN (a baseline 04.00 Sentinel-2 band) and, when given, GDAL's own
 * scale/offset metadata on the band.
 */
export function splitBand(src: string, b: number, dst: string, add = 0, own?: { scale: number; offset: number }): void {
  fs.mkdirSync(path.dirname(dst), { recursive: true });
  pyJson(`
import sys, json, numpy as np
from osgeo import gdal
s = gdal.Open(sys.argv[1]); a = s.GetRasterBand(int(sys.argv[2])).ReadAsArray().astype(np.int64)
nd = s.GetRasterBand(int(sys.argv[2])).GetNoDataValue()
v = np.where(a == 0, 0, a + int(sys.argv[4])).astype(np.uint16)
d = gdal.GetDriverByName('GTiff').Create(sys.argv[3], s.RasterXSize, s.RasterYSize, 1, gdal.GDT_UInt16, ['TILED=YES', 'COMPRESS=DEFLATE'])
d.SetGeoTransform(s.GetGeoTransform()); d.SetProjection(s.GetProjection()); d.GetRasterBand(1).WriteArray(v)
if nd is not None: d.GetRasterBand(1).SetNoDataValue(nd)
if sys.argv[5] != '': d.GetRasterBand(1).SetScale(float(sys.argv[5])); d.GetRasterBand(1).SetOffset(float(sys.argv[6]))
d = None
print(json.dumps(True))
`, src, String(b), dst, String(add), own ? String(own.scale) : '', own ? String(own.offset) : '');
}

/** Python: NDVI of red `argv[1]`, NIR `argv[2]` as DN × argv[4] + argv[5] against the output `argv[3]`: max |diff| over valid pixels. */
export const PY_NDVI_SCALED = PY_READ_BAND + `
red, nd = read(sys.argv[1]); nir, _ = read(sys.argv[2]); out, ond = read(sys.argv[3])
s, o = float(sys.argv[4]), float(sys.argv[5])
r = red.astype(np.float64) * s + o; n = nir.astype(np.float64) * s + o
ok = (red != 0) & (nir != 0) & (out != ond)
ref = (n - r) / (n + r)
print(json.dumps({"max": float(np.abs(ref[ok] - out[ok]).max()), "n": int(ok.sum())}))
`;
