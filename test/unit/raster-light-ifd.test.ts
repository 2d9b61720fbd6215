import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openRaster, setLightIfd } from '../../src/core/raster/io/dataset';
import { readLightImage } from '../../src/core/raster/io/light-ifd';
import { needGdal, py, tmpDir } from '../helpers/raster-gdal';

/**
 * light-ifd.ts opens local DEFLATE/uncompressed TIFFs without geotiff.js: every file GDAL writes in the
 * layouts below must give the same metadata, block layout and pixels both ways; files it does not handle
 * (big-endian, LZW) still open, through geotiff.js.
 */
test('light IFD reader: same metadata, layout and pixels as the geotiff.js path; other files fall back', needGdal(), async () => {
  const dir = tmpDir();
  const files = py(`
import numpy as np, os, json
from osgeo import gdal, osr
gdal.UseExceptions()
d = ${JSON.stringify(dir)}
out = []
def make(name, w, h, bands, typ, co, nodata=None, srs=32633, descr=False, scale=False, point=False, wkt=None):
    p = os.path.join(d, name)
    ds = gdal.GetDriverByName('GTiff').Create(p, w, h, bands, typ, co)
    ds.SetGeoTransform([500000.5, 10, 0, 5000000.25, 0, -10])
    s = osr.SpatialReference()
    if wkt: s.ImportFromWkt(wkt)
    else: s.ImportFromEPSG(srs)
    ds.SetProjection(s.ExportToWkt())
    if point: ds.SetMetadataItem('AREA_OR_POINT', 'Point')
    rng = np.random.default_rng(len(name))
    for b in range(1, bands + 1):
        band = ds.GetRasterBand(b)
        a = (rng.random((h, w)) * 1000 - (200 if typ in (gdal.GDT_Int16, gdal.GDT_Float32, gdal.GDT_Float64) else 0))
        band.WriteArray(a)
        if nodata is not None: band.SetNoDataValue(nodata)
        if descr: band.SetDescription(f'band {b}')
        if scale: band.SetScale(0.5); band.SetOffset(-3)
    ds = None
    out.append(p)
make('u16_pixel_pred2.tif', 300, 200, 4, gdal.GDT_UInt16, ['TILED=YES', 'BLOCKXSIZE=128', 'BLOCKYSIZE=64', 'COMPRESS=DEFLATE', 'PREDICTOR=2', 'INTERLEAVE=PIXEL'], nodata=0, descr=True)
make('f32_strips_pred3.tif', 257, 130, 1, gdal.GDT_Float32, ['COMPRESS=DEFLATE', 'PREDICTOR=3', 'BLOCKYSIZE=7'], nodata=-9999, point=True)
make('i16_band_bigtiff.tif', 200, 150, 3, gdal.GDT_Int16, ['TILED=YES', 'COMPRESS=DEFLATE', 'INTERLEAVE=BAND', 'BIGTIFF=YES'], scale=True, srs=4326)
make('u8_plain.tif', 99, 77, 1, gdal.GDT_Byte, [], srs=3035)
make('f64_custom_crs.tif', 64, 48, 1, gdal.GDT_Float64, ['TILED=YES', 'BLOCKXSIZE=16', 'BLOCKYSIZE=16', 'COMPRESS=DEFLATE'], nodata=float('nan'),
     wkt='PROJCS["custom",GEOGCS["WGS 84",DATUM["WGS_1984",SPHEROID["WGS 84",6378137,298.257223563]],PRIMEM["Greenwich",0],UNIT["degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],PARAMETER["latitude_of_origin",0],PARAMETER["central_meridian",13.7],PARAMETER["scale_factor",0.9996],PARAMETER["false_easting",500000],PARAMETER["false_northing",0],UNIT["metre",1]]')
make('u16_lzw.tif', 80, 60, 1, gdal.GDT_UInt16, ['COMPRESS=LZW'])
make('u16_bigendian.tif', 80, 60, 1, gdal.GDT_UInt16, ['ENDIANNESS=BIG', 'COMPRESS=DEFLATE'])
print(json.dumps(out))
`);
  for (const f of JSON.parse(files) as string[]) {
    const fd = fs.openSync(f, 'r');
    const light = await readLightImage(fd, fs.fstatSync(fd).size);
    fs.closeSync(fd);
    const handled = !/lzw|bigendian/.test(path.basename(f));
    if (/bigendian/.test(f)) assert.equal(light, null, `${f}: big-endian is left to geotiff.js`);
    else assert.ok(light, `${f}: parsed`);
    setLightIfd(false);
    const viaGeotiff = await openRaster(f);
    setLightIfd(true);
    const viaLight = await openRaster(f);
    try {
      const a = viaGeotiff.describe!(), b = viaLight.describe!();
      if (handled) {
        assert.ok(a && b, `${f}: both have a direct layout`);
        assert.deepEqual(JSON.parse(JSON.stringify(b)), JSON.parse(JSON.stringify(a)), `${f}: same descriptor`);
      } else assert.equal(b, null, `${f}: no direct layout (read through geotiff.js decoders)`);
      for (const k of ['width', 'height', 'bandCount', 'blockWidth', 'blockHeight', 'dtype', 'nodata', 'bandDescriptions', 'scales', 'offsets', 'geo'] as const) {
        assert.deepEqual(viaLight[k], viaGeotiff[k], `${f}: ${k}`);
      }
      for (let band = 1; band <= viaLight.bandCount; band++) {
        const w = viaLight.width, h = viaLight.height;
        assert.deepEqual(await viaLight.readWindowRaw(band, 0, 0, w, h), await viaGeotiff.readWindowRaw(band, 0, 0, w, h), `${f}: band ${band} pixels`);
      }
    } finally { await viaGeotiff.close(); await viaLight.close(); }
  }
});

test('light IFD reader: files it cannot read as geotiff.js would give null, never an exception', async () => {
  const dir = tmpDir();
  const cases: [string, Buffer][] = [
    ['short', Buffer.from('II*\0')],
    ['motorola', Buffer.from([0x4d, 0x4d, 0, 42, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0])],
    ['ifd past end', Buffer.from([0x49, 0x49, 42, 0, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])],
    ['zero entries', Buffer.from([0x49, 0x49, 42, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])],
  ];
  // An entry whose count points far past the end of the file.
  const huge = Buffer.alloc(64);
  huge.write('II', 0, 'latin1'); huge.writeUInt16LE(42, 2); huge.writeUInt32LE(8, 4); huge.writeUInt16LE(1, 8);
  huge.writeUInt16LE(324, 10); huge.writeUInt16LE(4, 12); huge.writeUInt32LE(0xfffffff, 14); huge.writeUInt32LE(30, 18);
  cases.push(['huge count', huge]);
  for (const [name, bytes] of cases) {
    const f = path.join(dir, `${name.replace(/ /g, '_')}.tif`);
    fs.writeFileSync(f, bytes);
    const fd = fs.openSync(f, 'r');
    try { assert.equal(await readLightImage(fd, bytes.length), null, name); } finally { fs.closeSync(fd); }
  }
});
