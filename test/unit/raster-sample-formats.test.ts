import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openRaster } from '../../src/core/raster/io/dataset';
import { runTool } from '../../src/core/raster/engine';
import { gdalSkip, pyJson, tmpDir } from '../helpers/raster-gdal';
import { patchShort } from '../helpers/tiff-patch';

/**
 * Writes one small file per sample type × compression × predictor × byte order × layout with GDAL,
 * and prints what GDAL reads from each (every band, every pixel) as JSON.
 */
const MATRIX = String.raw`
import sys, json
from osgeo import gdal
import numpy as np
gdal.UseExceptions()
out = sys.argv[1]
W, H = 37, 29
rng = np.random.default_rng(7)
def values(dt, nbits):
    if nbits and not dt.startswith('Float'): return rng.integers(0, 2 ** nbits, (H, W))
    lo, hi = {'Byte': (0, 255), 'Int8': (-128, 127), 'UInt16': (0, 65535), 'Int16': (-32768, 32767), 'UInt32': (0, 2**32 - 1),
              'Int32': (-2**31, 2**31 - 1), 'UInt64': (0, 2**53 - 1), 'Int64': (-2**53 + 1, 2**53 - 1)}.get(dt, (0, 0))
    if dt.startswith('Float'):
        a = rng.normal(0, 1000, (H, W))
        return a.astype(np.float16 if nbits == 16 else np.float32 if dt == 'Float32' else np.float64).astype(np.float64)
    a = rng.integers(lo, hi, (H, W), dtype=np.int64 if dt != 'UInt64' else np.uint64)
    a[0, :4] = [lo, hi, 0, 1] if lo < 0 else [lo, hi, 1, 2]
    return a
cases = []
types = [('Byte', 0), ('Int8', 0), ('UInt16', 0), ('Int16', 0), ('UInt32', 0), ('Int32', 0), ('UInt64', 0), ('Int64', 0), ('Float32', 0), ('Float32', 16), ('Float64', 0)]
for dt, nb in types:
    pred = 3 if dt.startswith('Float') else 2
    for comp, p in [('NONE', 1), ('DEFLATE', 1), ('DEFLATE', pred), ('LZW', 1), ('LZW', pred), ('ZSTD', pred), ('PACKBITS', 1)]:
        cases.append((dt, nb, comp, p, 'LITTLE', 'tiled', 1, 'PIXEL'))
    cases.append((dt, nb, 'DEFLATE', pred, 'BIG', 'tiled', 1, 'PIXEL'))
    cases.append((dt, nb, 'NONE', 1, 'BIG', 'striped', 3, 'PIXEL'))
    cases.append((dt, nb, 'LZW', pred, 'LITTLE', 'striped', 3, 'PIXEL'))
    cases.append((dt, nb, 'DEFLATE', 1, 'LITTLE', 'tiled', 3, 'BAND'))
for nb in [1, 2, 3, 4, 5, 7, 9, 11, 12, 15, 17, 20, 23, 24, 25, 27, 31]:
    dt = 'Byte' if nb < 8 else 'UInt16' if nb < 16 else 'UInt32'
    for e in ['LITTLE', 'BIG']:
        cases.append((dt, nb, 'NONE' if e == 'BIG' else 'DEFLATE', 1, e, 'tiled' if nb % 2 else 'striped', 1 if nb % 3 else 2, 'PIXEL'))
cases.append(('Float32', 0, 'LERC_DEFLATE', 1, 'LITTLE', 'tiled', 1, 'PIXEL'))
for dt in ['CInt16', 'CInt32', 'CFloat32', 'CFloat64']:
    cases.append((dt, 0, 'NONE', 1, 'LITTLE', 'tiled', 1, 'PIXEL'))
res = []
for k, (dt, nb, comp, p, e, layout, nbands, inter) in enumerate(cases):
    name = '%03d_%s%s_%s_p%d_%s_%s_%d%s.tif' % (k, dt, nb or '', comp, p, e, layout, nbands, inter)
    f = out + '/' + name
    gdt = gdal.GetDataTypeByName(dt if dt != 'Int8' else 'Byte')
    co = ['COMPRESS=' + comp, 'ENDIANNESS=' + e, 'INTERLEAVE=' + inter]
    co += ['TILED=YES', 'BLOCKXSIZE=16', 'BLOCKYSIZE=16'] if layout == 'tiled' else ['BLOCKYSIZE=7']
    if p != 1: co.append('PREDICTOR=%d' % p)
    if nb: co.append('NBITS=%d' % nb)
    if dt == 'Int8': co.append('PIXELTYPE=SIGNEDBYTE')
    d = gdal.GetDriverByName('GTiff').Create(f, W, H, nbands, gdt, co)
    written = []
    for b in range(nbands):
        a = values(dt, nb) if not dt.startswith('C') else rng.integers(0, 100, (H, W))
        d.GetRasterBand(b + 1).WriteArray(a)
        written.append(a.astype(np.float64).ravel())
    d = None
    r = gdal.Open(f)
    read = [r.GetRasterBand(b + 1).ReadAsArray().astype(np.complex128 if dt.startswith('C') else np.float64).real.ravel() for b in range(nbands)]
    js = lambda arrs: [[None if x != x else x for x in a.tolist()] for a in arrs]
    c = {'file': f, 'type': dt, 'nbits': nb, 'complex': dt.startswith('C'), 'bands': js(read)}
    # Where GDAL does not read back what it wrote, keep what was written too.
    if dt != 'Int8' and not all(np.array_equal(x, y, equal_nan=True) for x, y in zip(read, written)): c['wrote'] = js(written)
    res.append(c)
print(json.dumps(res))
`;

test('every sample type GDAL writes is read exactly as GDAL reads it, or refused by name', { skip: gdalSkip('the sample-format matrix') }, async () => {
  const dir = tmpDir();
  const cases: { file: string; type: string; nbits: number; complex: boolean; bands: (number | null)[][]; wrote?: (number | null)[][] }[] = pyJson(MATRIX, dir);
  assert.ok(cases.length > 150, `${cases.length} cases`);
  let exact = 0;
  const gdalMisreads: string[] = [];
  for (const c of cases) {
    const label = path.basename(c.file);
    if (c.complex) {
      await assert.rejects(openRaster(c.file), (e: Error) => e.message.includes(c.file) && /complex .* samples are not supported/.test(e.message), label);
      continue;
    }
    // GDAL 3.6 / libtiff 4.5 does not read back some files it writes itself (big-endian floats with
    // predictor 3): there the reference is what was written.
    const ref = c.wrote ?? c.bands;
    if (c.wrote) gdalMisreads.push(label);
    const ds = await openRaster(c.file);
    try {
      assert.equal(ds.bandCount, ref.length, label);
      for (let b = 0; b < ref.length; b++) {
        const raw = await ds.readWindowRaw(b + 1, 0, 0, ds.width, ds.height);
        const f = await ds.readWindow(b + 1, 0, 0, ds.width, ds.height);
        ref[b].forEach((v, i) => {
          const want = v ?? NaN;
          if (!Object.is(raw[i], want) && raw[i] !== want) assert.fail(`${label} band ${b + 1} pixel ${i}: raw ${raw[i]}, GDAL ${want}`);
          if (!Object.is(f[i], Math.fround(want)) && f[i] !== Math.fround(want)) assert.fail(`${label} band ${b + 1} pixel ${i}: float ${f[i]}, GDAL ${want}`);
        });
      }
      exact++;
    } finally { await ds.close(); }
  }
  assert.ok(gdalMisreads.every((l) => /Float(32|64)\d*_\w+_p3_BIG/.test(l)), `GDAL misreads only big-endian predictor-3 floats: ${gdalMisreads.join(', ')}`);
  assert.equal(exact, cases.filter((c) => !c.complex).length);
});

test('sample types no GDAL writer makes are refused naming the file and the type', { skip: gdalSkip('crafted sample types') }, async () => {
  const dir = tmpDir();
  const [base] = pyJson(String.raw`
import sys, json
from osgeo import gdal
import numpy as np
f = sys.argv[1] + '/base.tif'
d = gdal.GetDriverByName('GTiff').Create(f, 8, 8, 1, gdal.GDT_UInt16, [])
d.GetRasterBand(1).WriteArray(np.arange(64).reshape(8, 8)); d = None
print(json.dumps([f]))`, dir);
  const variants: [string, Record<number, number>, RegExp][] = [
    ['signed 12-bit', { 258: 12, 339: 2 }, /12-bit signed integer samples are not supported/],
    ['24-bit float', { 258: 24, 339: 3 }, /24-bit floating point samples are not supported/],
    ['40-bit unsigned', { 258: 40, 339: 1 }, /40-bit unsigned integer samples are not supported/],
    ['SampleFormat 7', { 339: 7 }, /SampleFormat 7 is not a TIFF sample format/],
    ['zero bits', { 258: 0 }, /BitsPerSample 0 is not valid/],
  ];
  for (const [what, tags, msg] of variants) {
    const f = path.join(dir, `${what.replace(/\W+/g, '_')}.tif`);
    const b = fs.readFileSync(base);
    for (const [tag, v] of Object.entries(tags)) patchShort(b, Number(tag), v);
    fs.writeFileSync(f, b);
    await assert.rejects(openRaster(f), (e: Error) => e.message.startsWith(f) && msg.test(e.message), what);
  }
  // SampleFormat 4 (untyped) with 16 bits reads as unsigned, as GDAL reads it.
  const untyped = path.join(dir, 'untyped.tif');
  fs.writeFileSync(untyped, patchShort(fs.readFileSync(base), 339, 4));
  const [gdalType, gdalValues] = pyJson(`import sys, json\nfrom osgeo import gdal\nd = gdal.Open(sys.argv[1])\nprint(json.dumps([gdal.GetDataTypeName(d.GetRasterBand(1).DataType), d.ReadAsArray().ravel().tolist()]))`, untyped);
  assert.equal(gdalType, 'UInt16');
  const ds = await openRaster(untyped);
  try { assert.deepEqual(Array.from(await ds.readWindowRaw(1, 0, 0, 8, 8)), gdalValues); } finally { await ds.close(); }
});

test('an Int64 DEM: statistics equal numpy on GDAL-read values (was: mean 116 where GDAL says 183.15)', { skip: gdalSkip('Int64 statistics') }, async () => {
  const dir = tmpDir();
  const ref = pyJson(String.raw`
import sys, json
from osgeo import gdal, osr
import numpy as np
f = sys.argv[1] + '/dem64.tif'
yy, xx = np.mgrid[0:300, 0:320]
a = (120 + 60 * np.sin(xx / 30.0) + 0.4 * yy).astype(np.int64)
a[:5, :5] = -9999
d = gdal.GetDriverByName('GTiff').Create(f, 320, 300, 1, gdal.GDT_Int64, ['TILED=YES', 'COMPRESS=DEFLATE', 'PREDICTOR=2'])
d.SetGeoTransform((500000, 30, 0, 4430000, 0, -30)); s = osr.SpatialReference(); s.ImportFromEPSG(32650); d.SetProjection(s.ExportToWkt())
b = d.GetRasterBand(1); b.WriteArray(a); b.SetNoDataValue(-9999); d = None
rd = gdal.Open(f)
r = rd.GetRasterBand(1).ReadAsArray().astype(np.float64)
v = r[r != -9999]
print(json.dumps({'file': f, 'mean': float(v.mean()), 'min': float(v.min()), 'max': float(v.max())}))`, dir);
  const r = await runTool('raster_stats', { image: ref.file }, { outDir: path.join(dir, 'out') });
  assert.ok(Math.abs(Number(r.stats.mean) - ref.mean) < 1e-9 * ref.mean, `mean ${r.stats.mean} vs ${ref.mean}`);
  assert.equal(r.stats.min, ref.min);
  assert.equal(r.stats.max, ref.max);
});

test('64-bit integers beyond ±2^53 are refused naming the file; a nodata of INT64_MIN is not', { skip: gdalSkip('Int64 range') }, async () => {
  const dir = tmpDir();
  const files = pyJson(String.raw`
import sys, json
from osgeo import gdal
import numpy as np
out = []
for name, dt, v, nd in [('big.tif', gdal.GDT_Int64, 2**60, None), ('ndmin.tif', gdal.GDT_Int64, -2**63, -2**63), ('ubig.tif', gdal.GDT_UInt64, 2**64 - 1, None)]:
    f = sys.argv[1] + '/' + name
    a = np.full((4, 5), 7, dtype=np.int64 if dt == gdal.GDT_Int64 else np.uint64); a[1, 2] = v
    d = gdal.GetDriverByName('GTiff').Create(f, 5, 4, 1, dt, [])
    b = d.GetRasterBand(1); b.WriteArray(a)
    if nd is not None: b.SetNoDataValue(nd)
    d = None; out.append(f)
print(json.dumps(out))`, dir);
  for (const f of [files[0], files[2]]) {
    const ds = await openRaster(f);
    try {
      await assert.rejects(ds.readWindow(1, 0, 0, 5, 4), (e: Error) => e.message.startsWith(f) && /64-bit integer \d+, beyond ±2\^53/.test(e.message));
    } finally { await ds.close(); }
  }
  const ds = await openRaster(files[1]);
  try {
    const a = await ds.readWindow(1, 0, 0, 5, 4);
    assert.ok(Number.isNaN(a[7]));
    assert.equal(a.filter((v) => v === 7).length, 19);
  } finally { await ds.close(); }
});
