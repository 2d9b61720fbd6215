/**
 * GDAL virtual rasters read as GDAL 3.6 reads them: gdalbuildvrt mosaics on one grid, on mixed
 * grids (fractional source rectangles, coarser than the sources so their overviews are read, finer,
 * a target extent past the sources), source and VRT nodata, band stacks (-separate), gdal_translate
 * VRTs that scale or change the type, alpha bands, VRTs of VRTs and of JPEG 2000 bands. Every band
 * of every file, whole and in windows across source edges, equals GDAL's ReadAsArray sample for
 * sample; tools run on them; what GeoWeave does not compute (pixel functions, warped VRTs, lookup
 * tables, other resamplings) and broken sources are refused naming the file and what to do.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openRaster } from '../../src/core/raster/io/dataset';
import { runTool } from '../../src/core/raster/engine';
import { srcDstWindow } from '../../src/core/raster/io/vrt/vrt-window';
import { copyWord } from '../../src/core/raster/io/vrt/vrt-dataset';
import { needGdal, py, tmpDir } from '../helpers/raster-gdal';

const MAKE = String.raw`
import sys, os
from osgeo import gdal, osr
import numpy as np
gdal.UseExceptions()
d0 = sys.argv[1]
os.chdir(d0)
srs = osr.SpatialReference(); srs.ImportFromEPSG(32633)
def mk(name, x0, y0, w, h, res, dt, nd=None, bands=1, seed=0, ovr=None, co=('TILED=YES',), fmt='GTiff'):
    drv = gdal.GetDriverByName('MEM')
    d = drv.Create('', w, h, bands, dt)
    d.SetGeoTransform((x0, res, 0, y0, 0, -res)); d.SetProjection(srs.ExportToWkt())
    rng = np.random.default_rng(seed)
    for b in range(bands):
        if dt == gdal.GDT_Float32: a = rng.normal(0, 1000, (h, w)).astype(np.float32)
        elif dt == gdal.GDT_Int16: a = rng.integers(-3000, 3000, (h, w)).astype(np.int16)
        else: a = rng.integers(1, 4000, (h, w)).astype(np.uint16)
        if nd is not None:
            a[:5, :7] = nd; d.GetRasterBand(b + 1).SetNoDataValue(nd)
        d.GetRasterBand(b + 1).WriteArray(a)
    if fmt == 'GTiff':
        gdal.Translate(name, d, creationOptions=list(co))
        if ovr:
            o = gdal.Open(name, gdal.GA_Update); o.BuildOverviews('NEAREST', ovr); o = None
    else:
        gdal.Translate(name, d, format=fmt, creationOptions=list(co))
U16, F32, I16 = gdal.GDT_UInt16, gdal.GDT_Float32, gdal.GDT_Int16
mk('a.tif', 500000, 4000000, 300, 200, 10, U16, bands=2, seed=1)
mk('b.tif', 502000, 3999000, 250, 260, 10, U16, bands=2, seed=2)
mk('c.tif', 500000, 4000000, 300, 200, 10, U16, nd=0, bands=2, seed=3)
mk('d.tif', 501005, 3999503, 120, 90, 20, U16, nd=0, bands=2, seed=4)
mk('f1.tif', 500000, 4000000, 400, 300, 10, F32, nd=-9999, seed=5, ovr=[2, 4, 8])
mk('f2.tif', 503333, 3998777, 333, 301, 7.5, F32, nd=-9999, seed=6, ovr=[2, 4, 8])
mk('i1.tif', 500000, 4000000, 400, 300, 10, I16, nd=-32768, seed=7, ovr=[2, 4])
mk('i2.tif', 501010, 3999020, 250, 200, 10, I16, nd=-32768, seed=8)
mk('j.jp2', 500000, 4000000, 700, 600, 10, U16, seed=9, co=('REVERSIBLE=YES', 'QUALITY=100', 'BLOCKXSIZE=256', 'BLOCKYSIZE=256', 'RESOLUTIONS=4'), fmt='JP2OpenJPEG')
os.makedirs('tiles', exist_ok=True)
mk('tiles/T33_B04.tif', 500000, 4000000, 600, 500, 10, U16, seed=10)
mk('tiles/T33_B08.tif', 500000, 4000000, 600, 500, 10, U16, seed=11)
O = gdal.BuildVRTOptions
gdal.BuildVRT('same_grid.vrt', ['a.tif', 'b.tif'])
gdal.BuildVRT('mixed_grid.vrt', ['c.tif', 'd.tif'])
gdal.BuildVRT('coarse.vrt', ['f1.tif', 'f2.tif'], options=O(xRes=37, yRes=37))
gdal.BuildVRT('fine.vrt', ['f1.tif', 'f2.tif'], options=O(xRes=3.3, yRes=3.3))
gdal.BuildVRT('extent.vrt', ['i1.tif', 'i2.tif'], options=O(outputBounds=(499000, 3996000, 506000, 4001000)))
gdal.BuildVRT('coarse_int.vrt', ['i1.tif', 'i2.tif'], options=O(xRes=25, yRes=25))
gdal.BuildVRT('srcnodata.vrt', ['i1.tif', 'i2.tif'], options=O(srcNodata=0, VRTNodata=7))
gdal.BuildVRT('stack.vrt', ['tiles/T33_B04.tif', 'tiles/T33_B08.tif'], options=O(separate=True))
gdal.BuildVRT('alpha.vrt', ['c.tif', 'd.tif'], options=O(addAlpha=True))
gdal.BuildVRT('nested.vrt', ['same_grid.vrt', 'b.tif'])
gdal.BuildVRT('jp2.vrt', ['j.jp2'], options=O(xRes=43, yRes=43))
gdal.Translate('scaled.vrt', 'a.tif', format='VRT', outputType=gdal.GDT_Byte, scaleParams=[[0, 1000, 0, 255]])
gdal.Translate('typed.vrt', 'f1.tif', format='VRT', outputType=gdal.GDT_Int16)
gdal.Translate('typed_u8.vrt', 'i1.tif', format='VRT', outputType=gdal.GDT_Byte)
`;

/** GDAL's samples of each band of `file` over each window [x, y, w, h] or [x, y, w, h, bufW, bufH] (float64, nodata as stored). */
function gdalWindows(dir: string, file: string, wins: number[][]): Float64Array[][] {
  const out = py(String.raw`
from osgeo import gdal
import numpy as np, json, base64
gdal.UseExceptions()
d = gdal.Open(${JSON.stringify(path.join(dir, file))})
res = []
for win in ${JSON.stringify(wins)}:
    x, y, w, h = win[:4]
    bw, bh = (win[4], win[5]) if len(win) > 4 else (w, h)
    res.append([base64.b64encode(d.GetRasterBand(b).ReadAsArray(x, y, w, h, buf_xsize=bw, buf_ysize=bh).astype(np.float64).tobytes()).decode() for b in range(1, d.RasterCount + 1)])
print(json.dumps(res))
`);
  return (JSON.parse(out) as string[][]).map((bands) => bands.map((b) => { const buf = Buffer.from(b, 'base64'); return new Float64Array(buf.buffer, buf.byteOffset, buf.byteLength / 8); }));
}

let made: string | undefined;
function fixtures(): string {
  if (made) return made;
  const dir = tmpDir('gw-vrt-');
  py(`import sys\nsys.argv = ['', ${JSON.stringify(dir)}]\n${MAKE}`);
  return (made = dir);
}

const FILES = ['same_grid.vrt', 'mixed_grid.vrt', 'coarse.vrt', 'fine.vrt', 'extent.vrt', 'coarse_int.vrt', 'srcnodata.vrt', 'stack.vrt', 'alpha.vrt', 'nested.vrt', 'jp2.vrt', 'scaled.vrt', 'typed.vrt', 'typed_u8.vrt'];

test('every band of every VRT, whole and in windows across source edges, equals GDAL sample for sample', needGdal(), async () => {
  const dir = fixtures();
  for (const f of FILES) {
    const ds = await openRaster(path.join(dir, f));
    try {
      const W = ds.width, H = ds.height;
      const wins = [[0, 0, W, H], [3, 7, Math.min(50, W - 3), Math.min(40, H - 7)], [W - 37, H - 29, 37, 29], [Math.floor(W / 3), Math.floor(H / 4), Math.floor(W / 2), Math.floor(H / 2)], [W - 1, 0, 1, H]];
      const ref = gdalWindows(dir, f, wins);
      const info = JSON.parse(py(`from osgeo import gdal\nimport json\nd = gdal.Open(${JSON.stringify(path.join(dir, f))})\nprint(json.dumps([[d.GetRasterBand(b).GetNoDataValue(), gdal.GetDataTypeName(d.GetRasterBand(b).DataType)] for b in range(1, d.RasterCount + 1)] + [list(d.GetGeoTransform()), d.RasterXSize, d.RasterYSize]))`));
      assert.deepEqual([ds.width, ds.height], [info[info.length - 2], info[info.length - 1]], f);
      assert.deepEqual(ds.geo.geoTransform, info[info.length - 3], `${f} geotransform`);
      for (const [k, [x, y, w, h]] of wins.entries()) {
        for (let b = 1; b <= ds.bandCount; b++) {
          const ours = await ds.readWindowRaw(b, x, y, w, h);
          const nd = info[b - 1][0] as number | null;
          const theirs = ref[k][b - 1];
          let bad = 0, first = -1;
          for (let i = 0; i < theirs.length; i++) {
            // Bands that differ in nodata (a stack, an alpha band) read as floats with NaN for each band's nodata.
            const t = Number.isNaN(ds.nodata as number) && nd !== null && theirs[i] === nd ? NaN : theirs[i];
            if (!(ours[i] === t || (Number.isNaN(t) && Number.isNaN(ours[i])))) { bad++; if (first < 0) first = i; }
          }
          assert.equal(bad, 0, `${f} band ${b} window ${[x, y, w, h]}: ${bad} of ${theirs.length} samples differ (first at ${first}: ours ${ours[first]}, GDAL ${theirs[first]})`);
        }
      }
      // Float reads: nodata → NaN, the band's scale and offset applied.
      const fl = await ds.readWindow(1, 0, 0, W, H);
      const nd1 = info[0][0] as number | null;
      for (let i = 0; i < fl.length; i += 97) {
        const t = ref[0][0][i];
        if (nd1 !== null && t === nd1) assert.ok(Number.isNaN(fl[i]), `${f} float nodata at ${i}`);
        else assert.equal(fl[i], Math.fround(t), `${f} float at ${i}`);
      }
    } finally { await ds.close(); }
  }
});

test('VRT metadata: the CRS from <SRS>, band types and nodata as GDAL gives them', needGdal(), async () => {
  const dir = fixtures();
  const same = await openRaster(path.join(dir, 'same_grid.vrt'));
  assert.equal(same.geo.epsg, 32633); assert.equal(same.dtype, 'uint16'); assert.equal(same.nodata, null); assert.equal(same.bandCount, 2);
  await same.close();
  const ext = await openRaster(path.join(dir, 'extent.vrt'));
  assert.equal(ext.dtype, 'int16'); assert.equal(ext.nodata, -32768);
  await ext.close();
  // A band stack whose bands differ in nodata reads as floats, each band's nodata NaN.
  // gdalbuildvrt -separate writes no band descriptions: a band stacked from a product's band file is named by its role.
  const stack = await openRaster(path.join(dir, 'stack.vrt'));
  assert.deepEqual(stack.bandDescriptions, ['red', 'nir']);
  await stack.close();
  const alpha = await openRaster(path.join(dir, 'alpha.vrt'));
  assert.equal(alpha.bandCount, 3); assert.equal(alpha.dtype, 'float32'); assert.ok(Number.isNaN(alpha.nodata as number));
  await alpha.close();
});

test('GetSrcDstWindow as GDAL: a request clipped to a fractional destination rectangle', () => {
  // gdalbuildvrt's second source in mixed_grid.vrt: 120×89.9 source pixels onto 160×119.87 VRT pixels at (67, 33.13).
  const src = { x: 0, y: 0, w: 120, h: 89.9 }, dst = { x: 67, y: 33.1333333333333, w: 160, h: 119.866666666667 };
  const w = srcDstWindow(src, dst, 120, 90, 0, 0, 227, 153, 227, 153)!;
  assert.deepEqual([w.reqX, w.reqY, w.reqW, w.reqH, w.outX, w.outY, w.outW, w.outH], [0, 0, 120, 90, 67, 33, 160, 120]);
  assert.equal(srcDstWindow(src, dst, 120, 90, 0, 0, 60, 30, 60, 30), null);
  // Rounding to an integer type as GDALCopyWords: half away from zero, clamped, NaN → 0; float32 sums in single precision.
  assert.deepEqual([copyWord(2.5, 'int16', false), copyWord(-2.5, 'int16', false), copyWord(70000, 'uint16', false), copyWord(-3, 'uint8', false), copyWord(NaN, 'int32', false)], [3, -3, 65535, 0, 0]);
});

test('tools run on VRTs: NDVI over a -separate band stack equals numpy, a clip equals gdal_translate, raster_info describes the mosaic', needGdal(), async () => {
  const dir = fixtures();
  const out = tmpDir('gw-vrt-out-');
  const r = await runTool('ndvi', { image: path.join(dir, 'stack.vrt') }, { outDir: out });
  const file = Object.values(r.outputs).find((o) => o.path.endsWith('.tif'))!.path;
  assert.equal(path.basename(file), 'stack_ndvi.tif');
  // The run's provenance lists the VRT and, after it, the files it reads: the pixels came from them.
  const inputs = r.provenance!.inputs;
  assert.deepEqual(inputs.map((i) => [path.relative(dir, i.path), i.via ? path.basename(i.via) : undefined]), [['stack.vrt', undefined], ['tiles/T33_B04.tif', 'stack.vrt'], ['tiles/T33_B08.tif', 'stack.vrt']]);
  assert.ok(inputs.every((i) => /^[0-9a-f]{64}$/.test(i.sha256 ?? '')), 'every file hashed');
  const diff = JSON.parse(py(`
from osgeo import gdal
import numpy as np, json
r = gdal.Open(${JSON.stringify(path.join(dir, 'tiles/T33_B04.tif'))}).ReadAsArray().astype('f8'); n = gdal.Open(${JSON.stringify(path.join(dir, 'tiles/T33_B08.tif'))}).ReadAsArray().astype('f8')
o = gdal.Open(${JSON.stringify(file)}); a = o.ReadAsArray().astype('f8'); a[a == o.GetRasterBand(1).GetNoDataValue()] = np.nan
print(json.dumps([float(np.nanmax(np.abs(a - (n - r) / (n + r)))), int(np.isnan(a).sum())]))`));
  assert.ok(diff[0] < 1e-6, `NDVI differs from numpy by ${diff[0]}`);
  assert.equal(diff[1], 0);

  const clip = await runTool('clip_bbox', { image: path.join(dir, 'mixed_grid.vrt'), bbox: [500600, 3998000, 503000, 3999700] }, { outDir: out });
  const clipped = Object.values(clip.outputs).find((o) => o.path.endsWith('.tif'))!.path;
  const same = py(`
from osgeo import gdal
import numpy as np
gdal.UseExceptions()
o = gdal.Open(${JSON.stringify(clipped)}); gt = o.GetGeoTransform(); v = gdal.Open(${JSON.stringify(path.join(dir, 'mixed_grid.vrt'))}); vg = v.GetGeoTransform()
x, y = round((gt[0] - vg[0]) / vg[1]), round((gt[3] - vg[3]) / vg[5])
ref = v.ReadAsArray(x, y, o.RasterXSize, o.RasterYSize)
print(bool(np.array_equal(o.ReadAsArray(), ref)), o.RasterXSize, o.RasterYSize)`).trim();
  assert.match(same, /^True \d+ \d+$/, `clip of the VRT differs from GDAL's reading of the same window: ${same}`);

  const info = await runTool('raster_info', { image: path.join(dir, 'coarse.vrt') }, { outDir: out });
  assert.match(info.summary, /EPSG:32633/);
  assert.match(info.summary, /37 m/);
  // Its reduced views are read on the fly, not held in the file: gdalinfo lists no overviews, and neither does raster_info.
  assert.deepEqual(info.stats.overviews, []);
  assert.doesNotMatch(info.summary, /Overviews/);
  // The raster viewer ("Open With…" on a .vrt) shows the same, writing nothing.
  const { rasterFileView } = await import('../../src/core/results/raster-view');
  const view = await rasterFileView(path.join(dir, 'coarse.vrt'));
  assert.equal(view.summary, info.summary);
  assert.deepEqual(view.map?.layers.map((l) => l.path), [path.join(dir, 'coarse.vrt')]);
});

test('what a VRT asks GDAL to compute, and broken sources, are refused naming the file and what to do', needGdal(), async () => {
  const dir = fixtures();
  const write = (name: string, body: string) => { const f = path.join(dir, name); fs.writeFileSync(f, body); return f; };
  const band = (inner: string, attrs = 'dataType="UInt16" band="1"') => `<VRTDataset rasterXSize="300" rasterYSize="200"><VRTRasterBand ${attrs}>${inner}</VRTRasterBand></VRTDataset>`;
  const src = (extra = '', file = 'a.tif', kind = 'SimpleSource') => `<${kind}><SourceFilename relativeToVRT="1">${file}</SourceFilename><SourceBand>1</SourceBand>${extra}</${kind}>`;
  const cases: [string, string, RegExp][] = [
    ['derived.vrt', band('<PixelFunctionType>sum</PixelFunctionType>' + src(), 'dataType="Float32" band="1" subClass="VRTDerivedRasterBand"'), /VRTDerivedRasterBand.*pixel function.*gdal_translate/],
    ['warped.vrt', '<VRTDataset subClass="VRTWarpedDataset" rasterXSize="10" rasterYSize="10"></VRTDataset>', /VRTWarpedDataset.*gdal_translate/],
    ['missing.vrt', band(src('', 'nowhere.tif')), /missing\.vrt: its source .*nowhere\.tif cannot be read: .*file not found/],
    ['band9.vrt', band(src().replace('<SourceBand>1', '<SourceBand>9')), /band9\.vrt: a source reads band 9 of .*a\.tif, which has 2 bands/],
    ['averaged.vrt', band(src('', 'a.tif', 'AveragedSource')), /AveragedSource/],
    ['bilinear.vrt', band(src().replace('<SimpleSource>', '<SimpleSource resampling="bilinear">')), /resamples with "bilinear".*nearest/],
    ['lut.vrt', band(src('<LUT>0:0,1000:255</LUT>', 'a.tif', 'ComplexSource')), /<LUT>/],
    ['self.vrt', band(src('', 'self.vrt')), /nested more than 8 deep/],
    ['broken.vrt', '<VRTDataset rasterXSize="3" rasterYSize="3"><VRTRasterBand', /broken\.vrt: not a readable VRT/],
    ['nobands.vrt', '<VRTDataset rasterXSize="3" rasterYSize="3"></VRTDataset>', /no <VRTRasterBand>/],
    ['size.vrt', '<VRTDataset rasterXSize="-3" rasterYSize="3"><VRTRasterBand band="1"/></VRTDataset>', /rasterXSize="-3".*integer/],
    ['props.vrt', band(src('<SourceProperties RasterXSize="999" RasterYSize="200" DataType="UInt16"/>')), /says .*a\.tif is 999x200, but the file is 300x200/],
    ['vsi.vrt', band(src('', '/vsizip/x.zip/a.tif').replace(' relativeToVRT="1"', '')), /GDAL virtual file.*gdal_translate/],
    ['complex.vrt', band(src(), 'dataType="CFloat32" band="1"'), /dataType "CFloat32"/],
  ];
  for (const [name, body, re] of cases) {
    const f = write(name, body);
    await assert.rejects(async () => {
      const ds = await openRaster(f);
      try { await ds.readWindowRaw(1, 0, 0, 10, 10); } finally { await ds.close(); }
    }, (e: Error) => { assert.match(e.message, re, name); assert.ok(e.message.includes(name), `${name}: the error names the file: ${e.message}`); return true; });
  }
  await assert.rejects(openRaster('https://example.invalid/mosaic.vrt'), /VRT is read from a local file only/);
  // An XML declaration and comments before <VRTDataset> are a VRT all the same; a path relative to the VRT's folder is found.
  fs.mkdirSync(path.join(dir, 'sub'), { recursive: true });
  const decl = write('sub/decl.vrt', `<?xml version="1.0"?>\n<!-- written by hand -->\n${band(src('', '../a.tif'))}`);
  const ds = await openRaster(decl);
  const a = await openRaster(path.join(dir, 'a.tif'));
  assert.deepEqual(Array.from(await ds.readWindowRaw(1, 10, 10, 20, 5)), Array.from(await a.readWindowRaw(1, 10, 10, 20, 5)));
  await ds.close(); await a.close();
});

test('mosaic_vrt writes the VRT gdalbuildvrt writes: GDAL reads both to the same grid and pixels, and so does GeoWeave', needGdal(), async () => {
  const dir = fixtures();
  const out = tmpDir('gw-vrt-mosaic-');
  // Sentinel-2 band files (T33_B04, T33_B08) declare no nodata, and GeoWeave reads their DN 0 as nodata as ESA
  // defines it: its stack says so (NODATA 0) where gdalbuildvrt's does not, the pixels being the same.
  const cases: { images: string[]; args: Record<string, unknown>; ref: string; s2?: boolean }[] = [
    { images: ['a.tif', 'b.tif'], args: {}, ref: `gdal.BuildVRT(r, ['a.tif', 'b.tif'])` },
    { images: ['c.tif', 'd.tif'], args: {}, ref: `gdal.BuildVRT(r, ['c.tif', 'd.tif'])` },
    { images: ['f1.tif', 'f2.tif'], args: { resolution: 'highest' }, ref: `gdal.BuildVRT(r, ['f1.tif', 'f2.tif'], options=gdal.BuildVRTOptions(resolution='highest'))` },
    { images: ['f2.tif', 'f1.tif'], args: { resolution: 'lowest' }, ref: `gdal.BuildVRT(r, ['f2.tif', 'f1.tif'], options=gdal.BuildVRTOptions(resolution='lowest'))` },
    { images: ['i1.tif', 'i2.tif'], args: {}, ref: `gdal.BuildVRT(r, ['i1.tif', 'i2.tif'])` },
    { images: ['tiles/T33_B04.tif', 'tiles/T33_B08.tif'], args: { separate: true }, ref: `gdal.BuildVRT(r, ['tiles/T33_B04.tif', 'tiles/T33_B08.tif'], options=gdal.BuildVRTOptions(separate=True))`, s2: true },
  ];
  for (const [k, c] of cases.entries()) {
    const sub = path.join(out, String(k));
    const r = await runTool('mosaic_vrt', { images: c.images.map((f) => path.join(dir, f)), ...c.args }, { outDir: sub });
    const ours = r.outputs.mosaic.path;
    assert.ok(fs.existsSync(ours) && ours.endsWith('.vrt'), ours);
    assert.deepEqual(fs.readdirSync(sub).filter((f) => f.startsWith('.')), [], 'no staging folder is left');
    const cmp = py(`
import os
from osgeo import gdal
import numpy as np
gdal.UseExceptions()
os.chdir(${JSON.stringify(dir)})
r = ${JSON.stringify(path.join(sub, 'ref.vrt'))}
${c.ref}
a = gdal.Open(${JSON.stringify(ours)}); b = gdal.Open(r)
same = a.RasterXSize == b.RasterXSize and a.RasterYSize == b.RasterYSize and a.RasterCount == b.RasterCount and np.allclose(a.GetGeoTransform(), b.GetGeoTransform(), rtol=1e-12, atol=0)
for i in range(1, a.RasterCount + 1):
    same = same and np.array_equal(a.GetRasterBand(i).ReadAsArray(), b.GetRasterBand(i).ReadAsArray()) and a.GetRasterBand(i).GetNoDataValue() == (${c.s2 ? '0' : 'b.GetRasterBand(i).GetNoDataValue()'})
print(same, a.RasterXSize, a.RasterYSize, a.RasterCount)`).trim();
    assert.match(cmp, /^True /, `case ${k} (${c.images.join(', ')} ${JSON.stringify(c.args)}): GDAL reads our VRT differently from gdalbuildvrt's: ${cmp}`);
    const ref = gdalWindows(sub, 'ref.vrt', [[0, 0, r.stats.width as number, r.stats.height as number]])[0];
    const ds = await openRaster(ours);
    try {
      for (let b = 1; b <= ds.bandCount; b++) {
        const mine = await ds.readWindowRaw(b, 0, 0, ds.width, ds.height);
        let bad = 0;
        for (let i = 0; i < mine.length; i++) if (!(mine[i] === ref[b - 1][i] || (Number.isNaN(mine[i]) && ds.nodata !== null))) bad++;
        assert.equal(bad, 0, `case ${k} band ${b}`);
      }
    } finally { await ds.close(); }
  }
  // A stack of Sentinel-2 band files names its bands by role, so an index finds red and NIR by itself.
  const stack = path.join(out, '5', 'T33_B04_stack.vrt');
  const ndvi = await runTool('ndvi', { image: stack }, { outDir: out });
  assert.match(ndvi.summary, /Mean NDVI/);
  // What gdalbuildvrt refuses is refused, naming the file.
  const bad = py(`
from osgeo import gdal, osr
import numpy as np
gdal.UseExceptions()
import os; os.chdir(${JSON.stringify(dir)})
s = osr.SpatialReference(); s.ImportFromEPSG(32632)
d = gdal.GetDriverByName('GTiff').Create('utm32.tif', 20, 20, 2, gdal.GDT_UInt16); d.SetGeoTransform((500000, 10, 0, 4000000, 0, -10)); d.SetProjection(s.ExportToWkt()); d = None
s.ImportFromEPSG(32633)
d = gdal.GetDriverByName('GTiff').Create('rot.tif', 20, 20, 2, gdal.GDT_UInt16); d.SetGeoTransform((500000, 10, 1, 4000000, 1, -10)); d.SetProjection(s.ExportToWkt()); d = None
print('ok')`).trim();
  assert.equal(bad, 'ok');
  await assert.rejects(runTool('mosaic_vrt', { images: [path.join(dir, 'a.tif'), path.join(dir, 'utm32.tif')] }, { outDir: out }), /utm32\.tif is in EPSG:32632.*a\.tif in EPSG:32633.*reproject/);
  await assert.rejects(runTool('mosaic_vrt', { images: [path.join(dir, 'a.tif'), path.join(dir, 'f1.tif')] }, { outDir: out }), /f1\.tif has 1 band, .*a\.tif 2.*separate=true/);
  await assert.rejects(runTool('mosaic_vrt', { images: [path.join(dir, 'a.tif'), path.join(dir, 'rot.tif')] }, { outDir: out }), /rot\.tif is on a rotated grid/);
});

test('a VRT on the map: its full-resolution tiles and pixel values are GDAL\'s reading of the mosaic', needGdal(), async () => {
  const dir = fixtures();
  const { MapData } = await import('../../src/core/results/map-data');
  const data = new MapData({ roots: () => [dir], cacheDir: path.join(tmpDir('gw-vrt-map-'), 'cache') });
  const file = path.join(dir, 'mixed_grid.vrt');
  const info = await data.describe({ path: file, bands: [1] });
  assert.equal(info.exists, true);
  assert.deepEqual([info.width, info.height], [227, 153]);
  const [tile] = await data.tile({ path: file, bands: [1] }, info.maxZoom, 0, 0);
  const ref = gdalWindows(dir, 'mixed_grid.vrt', [[0, 0, 227, 153]])[0][0];
  for (const [x, y] of [[0, 0], [70, 40], [226, 152], [100, 130]]) {
    const want = ref[y * 227 + x];
    const got = tile[y * 256 + x];
    if (want === 0) assert.ok(Number.isNaN(got), `nodata at ${x},${y}`); else assert.equal(got, want, `${x},${y}`);
    const [v] = await data.pixel({ path: file, bands: [1] }, x, y);
    if (want !== 0) assert.equal(v, want, `pixel ${x},${y}`);
  }
});

test('reduced views of a mosaic read as GDAL reads a VRT into a smaller buffer: each source from the overview GDAL picks', needGdal(), async () => {
  const dir = fixtures();
  for (const f of ['same_grid.vrt', 'mixed_grid.vrt', 'coarse.vrt', 'fine.vrt', 'extent.vrt', 'coarse_int.vrt', 'srcnodata.vrt', 'nested.vrt']) {
    const ds = await openRaster(path.join(dir, f));
    try {
      const views = await ds.overviews!();
      assert.ok(views.length >= 1, `${f}: ${ds.width}x${ds.height} has reduced views`);
      for (const [k, v] of views.entries()) {
        const fac = 2 ** (k + 1);
        assert.deepEqual([v.width, v.height], [Math.ceil(ds.width / fac), Math.ceil(ds.height / fac)], `${f} view ${k}`);
        // The whole view, and a window inside it; GDAL reads the VRT pixels under them into buffers of the view's size.
        const wins = [[0, 0, v.width, v.height], [1, 2, Math.max(1, v.width - 3), Math.max(1, v.height - 4)]];
        const gwins = wins.map(([x, y, w, h]) => [x * fac, y * fac, Math.min(ds.width, (x + w) * fac) - x * fac, Math.min(ds.height, (y + h) * fac) - y * fac, w, h]);
        const ref = gdalWindows(dir, f, gwins);
        for (const [i, [x, y, w, h]] of wins.entries()) {
          for (let b = 1; b <= ds.bandCount; b++) {
            const ours = await v.readWindowRaw(b, x, y, w, h);
            let bad = 0;
            for (let p = 0; p < w * h; p++) if (ours[p] !== ref[i][b - 1][p]) bad++;
            assert.equal(bad, 0, `${f} view 1/${fac} window ${[x, y, w, h]} band ${b}: ${bad} of ${w * h} differ`);
          }
        }
      }
    } finally { await ds.close(); }
  }
});
