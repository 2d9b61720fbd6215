/**
 * JPEG 2000 rasters (Sentinel-2 SAFE bands, GDAL-written .jp2 and bare .j2k) read as GDAL reads
 * them: the same samples for every window, the same geotransform and CRS (GeoJP2, GMLJP2, PAM), and a
 * SAFE folder of .jp2 bands giving the same NDVI as the same bands as GeoTIFF (DN 0, Sentinel-2's
 * NODATA, read as no data).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openRaster, RasterError } from '../../src/core/raster/io/dataset';
import { runTool } from '../../src/core/raster/engine';
import { scanDataFolder } from '../../src/core/data/scan';
import { needGdal, py, tmpDir, gdalinfoJson } from '../helpers/raster-gdal';
import { spawnSync, execFileSync } from 'node:child_process';
import { decodeCodestream, nativeJp2, jp2DecoderStatus } from '../../src/core/raster/io/jp2/openjpeg';
import { readJp2Layout, tileCodestream } from '../../src/core/raster/io/jp2/codestream';

const DATASET_JS = path.join(__dirname, '..', '..', 'src', 'core', 'raster', 'io', 'dataset.js');

test('the native OpenJPEG addon decodes every tile as the WebAssembly build does; it reads 2- and 4-band files as GDAL does', needGdal(), async (t) => {
  if (!nativeJp2()) {
    // CI builds it (GEOWEAVE_REQUIRE_NATIVE=1); elsewhere it needs libopenjp2-7-dev at npm install.
    assert.ok(!process.env.CI, `the native OpenJPEG addon is required in CI: ${jp2DecoderStatus()}`);
    t.skip(jp2DecoderStatus());
    return;
  }
  const dir = tmpDir();
  const files: Record<string, string[]> = {
    'lossless.jp2': ['REVERSIBLE=YES', 'QUALITY=100', 'BLOCKXSIZE=256', 'BLOCKYSIZE=256'],
    'lossy.jp2': ['QUALITY=20', 'BLOCKXSIZE=300', 'BLOCKYSIZE=200'],
    'rgb.jp2': ['QUALITY=30', 'BLOCKXSIZE=512', 'BLOCKYSIZE=512'],
  };
  for (const [name, co] of Object.entries(files)) {
    const f = path.join(dir, name), bands = name === 'rgb.jp2' ? 3 : 1;
    py(`
from osgeo import gdal
import numpy as np
rng = np.random.default_rng(3)
m = gdal.GetDriverByName('MEM').Create('', 900, 700, ${bands}, gdal.GDT_${bands === 3 ? 'Byte' : 'UInt16'})
yy, xx = np.mgrid[0:700, 0:900]
for b in range(1, ${bands} + 1):
    m.GetRasterBand(b).WriteArray(((np.sin(xx / 40.0 + b) + np.cos(yy / 25.0) + 2) * ${bands === 3 ? 60 : 4000} + rng.integers(0, 9, (700, 900))).astype(np.${bands === 3 ? 'uint8' : 'uint16'}))
gdal.Translate(${JSON.stringify(f)}, m, format='JP2OpenJPEG', creationOptions=${JSON.stringify(co)})
`);
    const fd = fs.openSync(f, 'r');
    try {
      const size = fs.fstatSync(fd).size, layout = readJp2Layout(fd, size);
      let tiles = 0;
      for (let ty = 0; ty < layout.tilesDown; ty++) for (let tx = 0; tx < layout.tilesAcross; tx++) {
        const cs = tileCodestream(fd, size, layout, tx, ty)!;
        for (const reduce of [0, 1]) {
          const a = await decodeCodestream(cs, reduce).catch((e: Error) => e);
          if (reduce && a instanceof Error) continue;
          const wsize = reduce && !(a instanceof Error) ? { width: a.width, height: a.height } : undefined;
          const b = await decodeCodestream(cs, reduce, wsize, 'wasm');
          assert.ok(!(a instanceof Error), `${name} tile ${tx},${ty}: ${a}`);
          assert.deepEqual([a.width, a.height, a.components, a.bits, a.signed], [b.width, b.height, b.components, b.bits, b.signed], `${name} tile ${tx},${ty} reduce ${reduce}`);
          assert.ok(Buffer.from(a.data.buffer, a.data.byteOffset, a.data.byteLength).equals(Buffer.from(b.data.buffer, b.data.byteOffset, b.data.byteLength)), `${name} tile ${tx},${ty} reduce ${reduce}: samples differ`);
        }
        tiles++;
      }
      assert.ok(tiles >= 4, `${name}: ${tiles} tiles`);
    } finally { fs.closeSync(fd); }
  }
  // Two and four bands (RGBI orthophotos, Pleiades multispectral): every band equals GDAL's decoding (gdal_translate to GeoTIFF).
  for (const [name, bands, type, co] of [['two.jp2', 2, 'UInt16', ['REVERSIBLE=YES', 'QUALITY=100']], ['rgbi.jp2', 4, 'Byte', ['QUALITY=25', 'BLOCKXSIZE=512', 'BLOCKYSIZE=512']]] as const) {
    const f = path.join(dir, name), tif = `${f}.tif`;
    py(`
from osgeo import gdal, osr
import numpy as np
rng = np.random.default_rng(4)
m = gdal.GetDriverByName('MEM').Create('', 1100, 650, ${bands}, gdal.GDT_${type})
m.SetGeoTransform((650000, 0.5, 0, 6860000, 0, -0.5)); s = osr.SpatialReference(); s.ImportFromEPSG(2154); m.SetProjection(s.ExportToWkt())
for b in range(1, ${bands} + 1):
    m.GetRasterBand(b).WriteArray(rng.integers(0, ${type === 'Byte' ? 255 : 4000}, (650, 1100)).astype(np.${type === 'Byte' ? 'uint8' : 'uint16'}))
gdal.Translate(${JSON.stringify(f)}, m, format='JP2OpenJPEG', creationOptions=${JSON.stringify(co)})
`);
    execFileSync('gdal_translate', ['-q', f, tif]);
    const [j, g] = [await openRaster(f), await openRaster(tif)];
    try {
      assert.equal(j.bandCount, bands);
      assert.deepEqual(j.geo.geoTransform, g.geo.geoTransform);
      for (let b = 1; b <= bands; b++) {
        for (const [x, y, w, h] of [[0, 0, 1100, 650], [500, 300, 600, 350]]) {
          const [p, q] = [await j.readWindowRaw(b, x, y, w, h), await g.readWindowRaw(b, x, y, w, h)];
          let bad = 0; for (let i = 0; i < p.length; i++) if (p[i] !== q[i]) bad++;
          assert.equal(bad, 0, `${name} band ${b} window ${[x, y, w, h]}: ${bad} samples differ from gdal_translate's`);
        }
      }
    } finally { await j.close(); await g.close(); }
  }
});

const CASES = [
  // Sentinel-2's layout: 15-bit reflectance in lossless 1024-pixel tiles (here 256), GeoJP2 + GMLJP2.
  { name: 'u16.jp2', type: 'UInt16', bands: 1, epsg: 32631, co: ['REVERSIBLE=YES', 'QUALITY=100', 'BLOCKXSIZE=256', 'BLOCKYSIZE=256'] },
  // GMLJP2 alone, lon/lat (EPSG axis order: latitude first in the GML), 3 interleaved components.
  { name: 'rgb.jp2', type: 'Byte', bands: 3, epsg: 4326, co: ['REVERSIBLE=YES', 'QUALITY=100', 'BLOCKXSIZE=200', 'BLOCKYSIZE=160', 'GeoJP2=NO'] },
  // Signed, tiles not square, TLM and PLT index markers (left out of a tile's codestream).
  { name: 'i16.jp2', type: 'Int16', bands: 1, epsg: 3035, co: ['REVERSIBLE=YES', 'QUALITY=100', 'BLOCKXSIZE=128', 'BLOCKYSIZE=200', 'TLM=YES', 'PLT=YES'] },
  // Lossy (9/7 wavelet): the samples GDAL's OpenJPEG decodes.
  { name: 'lossy.jp2', type: 'UInt16', bands: 1, epsg: 32633, co: ['QUALITY=20', 'BLOCKXSIZE=512', 'BLOCKYSIZE=512'] },
  // One tile for the whole image.
  { name: 'untiled.jp2', type: 'UInt16', bands: 1, epsg: 32633, co: ['REVERSIBLE=YES', 'QUALITY=100', 'BLOCKXSIZE=1300', 'BLOCKYSIZE=1100'] },
  // A bare codestream: its georeferencing and nodata live in the PAM sidecar GDAL writes.
  { name: 'bare.j2k', type: 'UInt16', bands: 1, epsg: 32633, co: ['REVERSIBLE=YES', 'QUALITY=100', 'CODEC=J2K', 'BLOCKXSIZE=512', 'BLOCKYSIZE=512'], nodata: 7 },
];

test('JPEG 2000 files read as GDAL reads them: samples of windows across tiles, geotransform, CRS, nodata', needGdal(), async () => {
  const dir = tmpDir();
  for (const c of CASES) {
    const file = path.join(dir, c.name);
    py(`
from osgeo import gdal, osr
import numpy as np
rng = np.random.default_rng(5)
w, h = 1300, 1100
m = gdal.GetDriverByName('MEM').Create('', w, h, ${c.bands}, gdal.GDT_${c.type})
gt = (5.9, 0.0001, 0, 49.9, 0, -0.0001) if ${c.epsg} == 4326 else (400000, 10, 0, 5100000, 0, -10)
m.SetGeoTransform(gt); s = osr.SpatialReference(); s.ImportFromEPSG(${c.epsg}); m.SetProjection(s.ExportToWkt())
yy, xx = np.mgrid[0:h, 0:w]
lo, hi = {'Byte': (0, 255), 'UInt16': (0, 20000), 'Int16': (-9000, 9000)}['${c.type}']
for b in range(1, ${c.bands} + 1):
    a = lo + (hi - lo) * np.clip(0.5 + 0.3 * np.sin(xx / (23.0 + b)) * np.cos(yy / 31.0) + 0.2 * (rng.random((h, w)) - 0.5), 0, 1)
    m.GetRasterBand(b).WriteArray(a.astype({'Byte': np.uint8, 'UInt16': np.uint16, 'Int16': np.int16}['${c.type}']))
    ${'nodata' in c ? `m.GetRasterBand(b).SetNoDataValue(${c.nodata})` : 'pass'}
gdal.Translate(${JSON.stringify(file)}, m, format='JP2OpenJPEG', creationOptions=${JSON.stringify(c.co)})
d = gdal.Open(${JSON.stringify(file)})
for b in range(1, d.RasterCount + 1):
    d.GetRasterBand(b).ReadAsArray().astype(np.float64).tofile(${JSON.stringify(file)} + '.b%d' % b)
`);
    const info = gdalinfoJson(file);
    const ds = await openRaster(file);
    try {
      assert.deepEqual([ds.width, ds.height, ds.bandCount], [1300, 1100, c.bands], c.name);
      assert.equal(ds.dtype, { Byte: 'uint8', UInt16: 'uint16', Int16: 'int16' }[c.type], c.name);
      assert.deepEqual(ds.geo.geoTransform, info.geoTransform, `${c.name}: geotransform`);
      assert.equal(ds.geo.epsg, c.epsg, `${c.name}: CRS`);
      assert.equal(ds.nodata, info.bands[0].noDataValue ?? null, `${c.name}: nodata`);
      for (let b = 1; b <= c.bands; b++) {
        const ref = fs.readFileSync(`${file}.b${b}`);
        const gdalVals = new Float64Array(ref.buffer.slice(ref.byteOffset, ref.byteOffset + ref.byteLength));
        // The whole band, then windows that start inside a tile and cross tile edges (and the last, cut tiles).
        for (const [x, y, w, h] of [[0, 0, 1300, 1100], [97, 151, 640, 333], [1190, 1020, 110, 80], [255, 0, 2, 1100]]) {
          const got = await ds.readWindowRaw(b, x, y, w, h);
          let bad = 0;
          for (let j = 0; j < h; j++) for (let i = 0; i < w; i++) if (got[j * w + i] !== gdalVals[(y + j) * 1300 + x + i]) bad++;
          assert.equal(bad, 0, `${c.name} band ${b} window ${[x, y, w, h]}: ${bad} samples differ from GDAL`);
        }
      }
      if ('nodata' in c) {
        const f = await ds.readWindow(1, 0, 0, 1300, 1100);
        const raw = await ds.readWindowRaw(1, 0, 0, 1300, 1100);
        for (let i = 0; i < raw.length; i++) if (raw[i] === c.nodata) assert.ok(Number.isNaN(f[i]), 'nodata reads as NaN');
      }
    } finally { await ds.close(); }
  }
});

test('a broken JPEG 2000 file fails naming the file and what is wrong; the decoder works on the next file', needGdal(), async () => {
  const dir = tmpDir();
  const good = path.join(dir, 'good.jp2');
  py(`
from osgeo import gdal
import numpy as np
m = gdal.GetDriverByName('MEM').Create('', 600, 500, 1, gdal.GDT_UInt16)
m.GetRasterBand(1).WriteArray((np.arange(600 * 500) % 4000).reshape(500, 600).astype(np.uint16))
m.SetGeoTransform((400000, 10, 0, 5100000, 0, -10))
gdal.Translate(${JSON.stringify(good)}, m, format='JP2OpenJPEG', creationOptions=['REVERSIBLE=YES', 'QUALITY=100', 'BLOCKXSIZE=256', 'BLOCKYSIZE=256'])
`);
  const bytes = fs.readFileSync(good);
  // Truncated: cut in the middle of the tiles.
  const cut = path.join(dir, 'cut.jp2');
  fs.writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length * 0.6)));
  await assert.rejects(openRaster(cut), (e: Error) => e instanceof RasterError && e.message.includes(cut) && /truncated|past the end/.test(e.message));
  // 238 wavelet levels in COD (at most 32): refused on opening, naming the file and the field.
  const cod = bytes.indexOf(Buffer.from([0xff, 0x52]), bytes.indexOf(Buffer.from([0xff, 0x4f, 0xff, 0x51])));
  const levels = path.join(dir, 'levels.jp2');
  const b1 = Buffer.from(bytes);
  b1[cod + 9] = 0xee;
  fs.writeFileSync(levels, b1);
  await assert.rejects(openRaster(levels), (e: Error) => e instanceof RasterError && e.message.includes(levels) && /238 decomposition levels/.test(e.message));
  // A coding style OpenJPEG refuses (code-blocks of 2^14 × 2^14 samples): the file opens (its layout
  // is sound), and the read fails naming it.
  const bad = path.join(dir, 'bad.jp2');
  const b2 = Buffer.from(bytes);
  b2[cod + 10] = 12; b2[cod + 11] = 12;
  fs.writeFileSync(bad, b2);
  const ds = await openRaster(bad);
  await assert.rejects(ds.readWindowRaw(1, 0, 0, 600, 500), (e: Error) => e instanceof RasterError && e.message.includes(bad) && /cannot decode/.test(e.message));
  await ds.close();
  // A text file named .jp2 is not JPEG 2000: the TIFF sniffing names what it is.
  const txt = path.join(dir, 'notes.jp2');
  fs.writeFileSync(txt, 'these are field notes, not an image\n');
  await assert.rejects(openRaster(txt), (e: Error) => e.message.includes(txt) && /looks like text/.test(e.message));
  // Two bands: the WebAssembly decoder reads one or three and says so, with the conversion that helps
  // (the native one reads any number: the next test).
  const two = path.join(dir, 'two.jp2');
  py(`
from osgeo import gdal
m = gdal.GetDriverByName('MEM').Create('', 60, 50, 2, gdal.GDT_UInt16)
gdal.Translate(${JSON.stringify(two)}, m, format='JP2OpenJPEG', creationOptions=['REVERSIBLE=YES', 'QUALITY=100'])
`);
  const wasmOnly = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(DATASET_JS)}).openRaster(${JSON.stringify(two)}).then(() => console.log('opened'), (e) => console.log(e.message))`], { env: { ...process.env, GEOWEAVE_JP2: 'wasm' }, encoding: 'utf8' });
  assert.ok(wasmOnly.stdout.includes(two) && /2 bands.*WebAssembly.*libopenjp2-7-dev.*gdal_translate -of GTiff/.test(wasmOnly.stdout), wasmOnly.stdout + wasmOnly.stderr);
  // A cancelled read rejects with the run's reason, and the file reads on afterwards.
  const ds2 = await openRaster(good);
  const ac = new AbortController();
  const pending = ds2.readWindowRaw(1, 0, 0, 600, 500, ac.signal);
  ac.abort(new Error('cancelled by the analyst'));
  await assert.rejects(pending, /cancelled by the analyst/);
  assert.equal((await ds2.readWindowRaw(1, 599, 499, 1, 1))[0], (499 * 600 + 599) % 4000);
  await ds2.close();
  const ok = await openRaster(good);
  const v = await ok.readWindowRaw(1, 300, 260, 2, 1);
  assert.deepEqual(Array.from(v), [(260 * 600 + 300) % 4000, (260 * 600 + 301) % 4000]);
  await ok.close();
});

test('a Sentinel-2 SAFE of .jp2 bands: found by the data scan as one product, NDVI equal to the same bands as GeoTIFF', needGdal(), async () => {
  const dir = tmpDir();
  const granule = (root: string, ext: string) => path.join(dir, root, 'S2B_MSIL2A_20240612T103021_N0510_R108_T31TDF_20240612T130000.SAFE', 'GRANULE', 'L2A_T31TDF_A038000_20240612T103021', 'IMG_DATA');
  for (const [root, ext] of [['jp2', 'jp2'], ['tif', 'tif']]) {
    const img = granule(root, ext);
    fs.mkdirSync(path.join(img, 'R10m'), { recursive: true });
    fs.mkdirSync(path.join(img, 'R20m'), { recursive: true });
    py(`
from osgeo import gdal, osr
import numpy as np
rng = np.random.default_rng(11)
def band(path, w, h, res, seed, fmt):
    m = gdal.GetDriverByName('MEM').Create('', w, h, 1, gdal.GDT_UInt16)
    m.SetGeoTransform((399960, res, 0, 4500000, 0, -res)); s = osr.SpatialReference(); s.ImportFromEPSG(32631); m.SetProjection(s.ExportToWkt())
    yy, xx = np.mgrid[0:h, 0:w]
    a = 1000 + 800 * seed + 600 * np.sin(xx / 37.0 + seed) * np.cos(yy / 41.0) + rng.integers(0, 300, (h, w))
    a[:40, :90] = 0
    m.GetRasterBand(1).WriteArray(a.astype(np.uint16))
    if fmt == 'jp2':
        gdal.Translate(path, m, format='JP2OpenJPEG', creationOptions=['REVERSIBLE=YES', 'QUALITY=100', 'BLOCKXSIZE=256', 'BLOCKYSIZE=256'])
    else:
        gdal.Translate(path, m, format='GTiff', creationOptions=['TILED=YES', 'COMPRESS=DEFLATE'])
img = ${JSON.stringify(img)}
for tok, seed in [('B02', 0), ('B03', 1), ('B04', 2), ('B08', 5)]:
    band('%s/R10m/T31TDF_20240612T103021_%s_10m.${ext}' % (img, tok), 700, 600, 10, seed, '${ext}')
for tok, seed in [('B05', 3), ('B11', 4), ('B12', 2)]:
    band('%s/R20m/T31TDF_20240612T103021_%s_20m.${ext}' % (img, tok), 350, 300, 20, seed, '${ext}')
`);
  }
  const runs = [];
  for (const root of ['jp2', 'tif']) {
    const safe = path.dirname(path.dirname(path.dirname(granule(root, root))));
    // The analyst names the SAFE folder; the engine finds the granule's 10 m bands.
    runs.push(await runTool('ndvi', { image: safe }, { outDir: path.join(dir, `out-${root}`) }));
  }
  const [jp2, tif] = runs;
  assert.match(jp2.summary, /NDVI/);
  assert.equal(py(`
from osgeo import gdal
import numpy as np
a = gdal.Open(${JSON.stringify(jp2.outputs.index.path)}).ReadAsArray(); b = gdal.Open(${JSON.stringify(tif.outputs.index.path)}).ReadAsArray()
print(int(np.sum(~((a == b) | (np.isnan(a) & np.isnan(b))))), int(np.sum(~np.isnan(a))))`).trim().split(' ')[0], '0', 'NDVI from .jp2 bands equals NDVI from the same bands as GeoTIFF');
  assert.deepEqual(gdalinfoJson(jp2.outputs.index.path).geoTransform, gdalinfoJson(tif.outputs.index.path).geoTransform);
  // DN 0 is Sentinel-2's NODATA (the files declare none): the empty corner is no data, not NDVI 0.
  assert.equal(py(`
from osgeo import gdal
import numpy as np
d = gdal.Open(${JSON.stringify(jp2.outputs.index.path)}); b = d.GetRasterBand(1); a = b.ReadAsArray(); nd = b.GetNoDataValue()
bad = np.isnan(a) | (a == nd)
print(int(bad[:40, :90].sum()), int(bad.sum()))`).trim(), '3600 3600');
  // The workspace scan goes into the SAFE and sees one Sentinel-2 product with the bands by role.
  const scan = await scanDataFolder(path.join(dir, 'jp2'));
  const product = scan.items.find((i) => i.product);
  assert.ok(product, `a product among ${scan.items.map((i) => i.path).join(', ')}`);
  assert.match(product!.product!.sensor, /Sentinel-2/);
  assert.deepEqual(Object.keys(product!.product!.files).sort(), ['blue', 'green', 'nir', 'red', 'rededge', 'swir1', 'swir2']);
  assert.match(product!.product!.files.red, /R10m[\\/]T31TDF_20240612T103021_B04_10m\.jp2$/);
  // Shown as the SAFE the analyst downloaded, which the engine reads as its product.
  assert.match(product!.path, /\.SAFE$/);
  const again = await runTool('ndvi', { image: product!.path }, { outDir: path.join(dir, 'out-scan'), cwd: path.join(dir, 'jp2') });
  assert.equal(again.outputs.index.path.endsWith('S2B_MSIL2A_20240612T103021_N0510_R108_T31TDF_20240612T130000_ndvi.tif'), true, again.outputs.index.path);
});
