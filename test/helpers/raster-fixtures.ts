/** Test rasters generated with GDAL python (deterministic): an 8-band Sentinel-2-like scene and variants. */
import * as path from 'node:path';
import { py } from './raster-gdal';

export const S2_BANDS = ['blue', 'green', 'red', 'rededge', 'nir', 'swir1', 'swir2', 'scl'];

/**
 * 8-band uint16 scene 700×650 (tiles 256, DEFLATE+predictor 2, nodata 0): reflectance-like DNs with
 * nodata pixels, zero-denominator pixels, an SCL band with cloud classes. Returns its path.
 */
export function makeS2(dir: string, name = 's2.tif', opts: { interleave?: 'PIXEL' | 'BAND'; compress?: string; descriptions?: boolean } = {}): string {
  const p = path.join(dir, name);
  py(`
from osgeo import gdal, osr
import numpy as np
rng = np.random.default_rng(42)
W, H = 700, 650
d = gdal.GetDriverByName('GTiff').Create(${JSON.stringify(p)}, W, H, 8, gdal.GDT_UInt16,
    ['TILED=YES', 'BLOCKXSIZE=256', 'BLOCKYSIZE=256', 'COMPRESS=${opts.compress ?? 'DEFLATE'}', 'PREDICTOR=2', 'INTERLEAVE=${opts.interleave ?? 'PIXEL'}'])
d.SetGeoTransform((500000, 10, 0, 4430000, 0, -10))
s = osr.SpatialReference(); s.ImportFromEPSG(32650); d.SetProjection(s.ExportToWkt())
yy, xx = np.mgrid[0:H, 0:W]
veg = (np.sin(xx / 40.0) * np.cos(yy / 55.0) + 1) / 2
names = ${JSON.stringify(S2_BANDS)}
base = {'blue': 600 + 300 * (1 - veg), 'green': 900 + 200 * (1 - veg), 'red': 1200 * (1 - veg) + 200,
        'rededge': 1500 + 800 * veg, 'nir': 1500 + 3500 * veg, 'swir1': 2500 - 1200 * veg, 'swir2': 1800 - 1000 * veg}
for i, n in enumerate(names):
    if n == 'scl':
        a = rng.choice([4, 5, 6, 3, 8, 9, 10, 11], size=(H, W), p=[.4, .2, .1, .05, .1, .05, .05, .05]).astype(np.uint16)
        a[:20, :30] = 0
    else:
        a = np.clip(base[n] + rng.normal(0, 150, (H, W)), 1, 10000).astype(np.uint16)
        a[:20, :30] = 0
        if n == 'red':
            a[100:103, 200:260] = 0
    b = d.GetRasterBand(i + 1)
    b.WriteArray(a)
    b.SetNoDataValue(0)
    if ${opts.descriptions === false ? 'False' : 'True'}:
        b.SetDescription(n)
d = None
`);
  return p;
}
