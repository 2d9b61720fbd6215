/** clip_bbox writes a pixel-interleaved input pixel-interleaved (as gdal_translate does); GDAL reads it back equal to gdal_translate -projwin. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { runTool } from '../../src/core/raster/engine';
import { needGdal, py, tmpDir, gdalinfoJson } from '../helpers/raster-gdal';

const CASES = [
  // uint16 over the whole range (the predictor's differences wrap), 4 bands with descriptions; uint8 RGB; int16 with nodata.
  { name: 'u16', type: 'UInt16', bands: 4, lo: 0, hi: 65535, nodata: null },
  { name: 'u8', type: 'Byte', bands: 3, lo: 0, hi: 255, nodata: null },
  { name: 'i16', type: 'Int16', bands: 2, lo: -32768, hi: 32767, nodata: -32768 },
  // Float bands stay band-separate (predictor 3 is written per band plane).
  { name: 'f32', type: 'Float32', bands: 2, lo: -1, hi: 1, nodata: -9999 },
];

test('clip_bbox of a pixel-interleaved input: interleaved tiles GDAL reads equal to gdal_translate -projwin, inline and in workers', needGdal(), async () => {
  const dir = tmpDir();
  const saved = process.env.GEOWEAVE_WORKERS;
  try {
    for (const c of CASES) {
      const src = path.join(dir, `${c.name}.tif`);
      py(`
from osgeo import gdal, osr
import numpy as np
rng = np.random.default_rng(3)
w, h = 1100, 900
d = gdal.GetDriverByName('GTiff').Create(${JSON.stringify(src)}, w, h, ${c.bands}, gdal.GDT_${c.type}, ['TILED=YES', 'BLOCKXSIZE=128', 'BLOCKYSIZE=128', 'COMPRESS=DEFLATE', 'PREDICTOR=2' if '${c.type}' != 'Float32' else 'PREDICTOR=3', 'INTERLEAVE=PIXEL'])
d.SetGeoTransform((400000, 20, 0, 5100000, 0, -20)); s = osr.SpatialReference(); s.ImportFromEPSG(32632); d.SetProjection(s.ExportToWkt())
yy, xx = np.mgrid[0:h, 0:w]
for b in range(1, ${c.bands} + 1):
    smooth = (np.sin(xx / (17.0 + b)) + np.cos(yy / 29.0)) / 2
    noise = rng.random((h, w))
    a = ${c.lo} + (${c.hi} - ${c.lo}) * np.clip(0.5 + smooth * 0.45 + (noise - 0.5) * 0.1, 0, 1)
    if b == 1: a[100:140, 300:380] = ${c.hi}; a[400:420, :] = ${c.lo}
    if ${c.nodata === null ? 'False' : 'True'}: a[200:230, 250:600] = ${c.nodata ?? 0}
    band = d.GetRasterBand(b)
    band.WriteArray(a.astype(gdal.GetDataTypeName(gdal.GDT_${c.type}).lower().replace('byte', 'uint8')))
    band.SetDescription('band%d' % b)
    if ${c.nodata === null ? 'False' : 'True'}: band.SetNoDataValue(${c.nodata ?? 0})
d = None`);
      // 700×600 pixels from column 137, row 61: not on the input's 128-pixel blocks, edge tiles in both directions.
      const bbox = [400000 + 137 * 20, 5100000 - 661 * 20, 400000 + 837 * 20, 5100000 - 61 * 20];
      const ref = path.join(dir, `${c.name}_ref.tif`);
      execFileSync('gdal_translate', ['-q', '-projwin', String(bbox[0]), String(bbox[3]), String(bbox[2]), String(bbox[1]), '-co', 'TILED=YES', '-co', 'COMPRESS=DEFLATE', src, ref]);
      for (const workers of ['0', '2']) {
        process.env.GEOWEAVE_WORKERS = workers;
        const r = await runTool('clip_bbox', { image: src, bbox: bbox.join(',') }, { outDir: path.join(dir, `${c.name}-w${workers}`) });
        const out = r.outputs.clipped.path;
        const a = gdalinfoJson(out), b = gdalinfoJson(ref);
        const what = `${c.name} with GEOWEAVE_WORKERS=${workers}`;
        assert.equal(a.metadata?.IMAGE_STRUCTURE?.INTERLEAVE, c.type === 'Float32' ? 'BAND' : 'PIXEL', what);
        assert.deepEqual(a.size, [700, 600], what);
        assert.deepEqual(a.geoTransform, b.geoTransform, what);
        assert.deepEqual(a.bands.map((x: any) => [x.type, x.description, x.noDataValue]), b.bands.map((x: any) => [x.type, x.description, x.noDataValue]), what);
        const same = py(`
from osgeo import gdal
import numpy as np
a, b = gdal.Open(${JSON.stringify(out)}), gdal.Open(${JSON.stringify(ref)})
ok = all(np.array_equal(a.GetRasterBand(i).ReadAsArray(), b.GetRasterBand(i).ReadAsArray()) for i in range(1, ${c.bands} + 1))
v = b.GetRasterBand(1).ReadAsArray().astype(np.float64)
nd = b.GetRasterBand(1).GetNoDataValue()
v = v[v != nd] if nd is not None else v.ravel()
print(int(ok), repr(float(v.mean())), repr(float(v.min())), repr(float(v.max())), v.size)`).trim().split(' ');
        assert.equal(same[0], '1', `${what}: pixels differ from gdal_translate`);
        // Statistics and the quicklook are still taken from band 1 as it is written.
        assert.ok(Math.abs((r.stats.mean as number) - Number(same[1])) <= 1e-6 * Math.max(1, Math.abs(Number(same[1]))), `${what}: mean ${r.stats.mean} vs ${same[1]}`);
        assert.equal(r.stats.min, Number(same[2]), what); assert.equal(r.stats.max, Number(same[3]), what);
        assert.equal(r.stats.valid, Number(same[4]), what);
        assert.ok(r.quicklook && r.quicklook.endsWith('.png'), what);
      }
    }
  } finally {
    if (saved === undefined) delete process.env.GEOWEAVE_WORKERS; else process.env.GEOWEAVE_WORKERS = saved;
  }
});
