import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { openRaster } from '../../src/core/raster/io/dataset';
import { needGdal, py, readF64, tmpDir } from '../helpers/raster-gdal';

// GDAL writes files in many layouts; we read windows that straddle tile edges and compare with GDAL's own read.
const CASES: { name: string; type: string; np: string; opts: string[]; nodata?: number; scale?: [number, number] }[] = [
  { name: 'deflate_pred2_uint16_pixel', type: 'UInt16', np: 'uint16', opts: ['TILED=YES', 'BLOCKXSIZE=128', 'BLOCKYSIZE=128', 'COMPRESS=DEFLATE', 'PREDICTOR=2', 'INTERLEAVE=PIXEL'], nodata: 0 },
  { name: 'lzw_int16_band', type: 'Int16', np: 'int16', opts: ['TILED=YES', 'BLOCKXSIZE=256', 'BLOCKYSIZE=256', 'COMPRESS=LZW', 'PREDICTOR=2', 'INTERLEAVE=BAND'], nodata: -32768 },
  { name: 'deflate_pred3_float32', type: 'Float32', np: 'float32', opts: ['TILED=YES', 'COMPRESS=DEFLATE', 'PREDICTOR=3'], nodata: -9999 },
  { name: 'uint8_strips_raw', type: 'Byte', np: 'uint8', opts: ['COMPRESS=NONE'] },
  { name: 'packbits_uint8_strips', type: 'Byte', np: 'uint8', opts: ['COMPRESS=PACKBITS', 'BLOCKYSIZE=7'], nodata: 255 },
  { name: 'zstd_int32', type: 'Int32', np: 'int32', opts: ['TILED=YES', 'COMPRESS=ZSTD'] },
  { name: 'bigendian_float64', type: 'Float64', np: 'float64', opts: ['ENDIANNESS=BIG', 'TILED=YES'] },
  // Hundreds of blocks: the offsets lie past geotiff.js's first fetch, where it reads them little-endian.
  { name: 'bigendian_many_strips', type: 'Int16', np: 'int16', opts: ['ENDIANNESS=BIG', 'BLOCKYSIZE=1', 'INTERLEAVE=BAND', 'COMPRESS=DEFLATE'], nodata: -32768 },
  { name: 'bigendian_many_tiles_pred2', type: 'UInt16', np: 'uint16', opts: ['ENDIANNESS=BIG', 'TILED=YES', 'BLOCKXSIZE=16', 'BLOCKYSIZE=16', 'COMPRESS=DEFLATE', 'PREDICTOR=2', 'INTERLEAVE=PIXEL'] },
  { name: 'scaled_uint16', type: 'UInt16', np: 'uint16', opts: ['TILED=YES', 'COMPRESS=DEFLATE'], nodata: 0, scale: [0.0000275, -0.2] },
];

test('reads GDAL-written GeoTIFFs (compressions, predictors, interleaving, types) exactly as GDAL does', needGdal(), async () => {
  const dir = tmpDir();
  for (const c of CASES) {
    const file = path.join(dir, `${c.name}.tif`);
    const dump = path.join(dir, `${c.name}.f64`);
    py(`
from osgeo import gdal, osr
import numpy as np
rng = np.random.default_rng(3)
W, H = 300, 270
d = gdal.GetDriverByName('GTiff').Create(${JSON.stringify(file)}, W, H, 3, gdal.GDT_${c.type}, ${JSON.stringify(c.opts)})
d.SetGeoTransform((300000, 30, 0, 4000000, 0, -30))
s = osr.SpatialReference(); s.ImportFromEPSG(32617); d.SetProjection(s.ExportToWkt())
info = np.iinfo(np.${c.np}) if np.issubdtype(np.${c.np}, np.integer) else None
for i in range(1, 4):
    if info is not None:
        a = rng.integers(max(info.min, -30000), min(info.max, 60000), (H, W), endpoint=True).astype(np.${c.np})
    else:
        a = (rng.normal(0, 1000, (H, W))).astype(np.${c.np})
    b = d.GetRasterBand(i)
    ${c.nodata !== undefined ? `b.SetNoDataValue(${c.nodata}); a[5:9, 7:20] = ${c.nodata}` : 'pass'}
    b.WriteArray(a)
    b.SetDescription('band%d' % i)
    ${c.scale ? `b.SetScale(${c.scale[0]}); b.SetOffset(${c.scale[1]})` : 'pass'}
d = None
d = gdal.Open(${JSON.stringify(file)})
out = []
for i in range(1, 4):
    b = d.GetRasterBand(i)
    out.append(b.ReadAsArray(37, 101, 190, 150).astype(np.float64).ravel())
np.concatenate(out).tofile(${JSON.stringify(dump)})
`);
    const ref = readF64(dump);
    const ds = await openRaster(file);
    assert.equal(ds.width, 300, c.name); assert.equal(ds.height, 270, c.name); assert.equal(ds.bandCount, 3, c.name);
    assert.equal(ds.geo.epsg, 32617, c.name);
    assert.deepEqual(ds.geo.geoTransform, [300000, 30, 0, 4000000, 0, -30], c.name);
    assert.deepEqual(ds.bandDescriptions, ['band1', 'band2', 'band3'], c.name);
    assert.equal(ds.nodata, c.nodata ?? null, c.name);
    if (c.scale) { assert.equal(ds.scales[0], c.scale[0]); assert.equal(ds.offsets[0], c.scale[1]); }
    const n = 190 * 150;
    for (let b = 1; b <= 3; b++) {
      const raw = await ds.readWindowRaw(b, 37, 101, 190, 150);
      const f = await ds.readWindow(b, 37, 101, 190, 150);
      for (let i = 0; i < n; i++) {
        const want = ref[(b - 1) * n + i];
        if (raw[i] !== want) assert.fail(`${c.name} band ${b} pixel ${i}: raw ${raw[i]} != GDAL ${want}`);
        const isNd = c.nodata !== undefined && want === c.nodata;
        const expect = isNd ? NaN : Math.fround(c.scale ? want * c.scale[0] + c.scale[1] : want);
        if (!(Object.is(f[i], expect) || (Number.isNaN(f[i]) && Number.isNaN(expect)))) assert.fail(`${c.name} band ${b} pixel ${i}: float ${f[i]} != ${expect}`);
      }
    }
    await ds.close();
  }
});

test('geographic CRS and PixelIsPoint rasters georeference like GDAL', needGdal(), async () => {
  const dir = tmpDir();
  const file = path.join(dir, 'geo.tif');
  const point = path.join(dir, 'point.tif');
  const dump = path.join(dir, 'gt.f64');
  py(`
from osgeo import gdal, osr
import numpy as np
d = gdal.GetDriverByName('GTiff').Create(${JSON.stringify(file)}, 40, 30, 1, gdal.GDT_Float32)
d.SetGeoTransform((10.5, 0.01, 0, 45.2, 0, -0.01))
s = osr.SpatialReference(); s.ImportFromEPSG(4326); d.SetProjection(s.ExportToWkt())
d.GetRasterBand(1).Fill(1)
d = None
gdal.SetConfigOption('GTIFF_POINT_GEO_IGNORE', 'NO')
d = gdal.GetDriverByName('GTiff').Create(${JSON.stringify(point)}, 40, 30, 1, gdal.GDT_Byte)
d.SetMetadataItem('AREA_OR_POINT', 'Point')
d.SetGeoTransform((500000, 10, 0, 4000000, 0, -10))
s = osr.SpatialReference(); s.ImportFromEPSG(32633); d.SetProjection(s.ExportToWkt())
d = None
np.array(gdal.Open(${JSON.stringify(point)}).GetGeoTransform(), dtype=np.float64).tofile(${JSON.stringify(dump)})
`);
  const g = await openRaster(file);
  assert.equal(g.geo.epsg, 4326);
  assert.equal(g.geo.geographic, true);
  assert.deepEqual(g.geo.geoTransform.map((v) => Math.round(v * 1e9) / 1e9), [10.5, 0.01, 0, 45.2, 0, -0.01]);
  await g.close();
  const p = await openRaster(point);
  assert.deepEqual(p.geo.geoTransform, Array.from(readF64(dump)));
  await p.close();
});
