/** Real-data-like files made with GDAL, as an analyst gets them: a Landsat 7 ETM+ scene stacked
 *  without band descriptions in UTM 29N, an SRTM-like DEM over it, and an NDVI of a Brazilian site
 *  in UTM 23S (far from everything else). Used by unit tests and by the e2e workspace. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { py } from './raster-gdal';

export const L7_SCENE = path.join('landsat', 'L7_ETMs.tif');
export const L7_DEM = path.join('landsat', 'srtm_30m.tif');
export const BRAZIL_NDVI = path.join('brazil', 'ndvi_brazil.tif');

/** Writes the three files under `dir` (folders included); returns their workspace-relative paths. */
export function writeRealLikeData(dir: string, size = 400): { scene: string; dem: string; brazil: string } {
  for (const sub of ['landsat', 'brazil']) fs.mkdirSync(path.join(dir, sub), { recursive: true });
  py(`
import numpy as np
from osgeo import gdal, osr
gdal.UseExceptions()
n = ${size}
rng = np.random.default_rng(7)
y, x = np.mgrid[0:n, 0:n] / n
def smooth(k):
    f = np.zeros((n, n))
    for i in range(1, 6):
        f += np.sin(2 * np.pi * (i * x * rng.uniform(0.5, 1.5) + rng.uniform())) * np.cos(2 * np.pi * (i * y * rng.uniform(0.5, 1.5) + rng.uniform())) / i
    return (f - f.min()) / (f.max() - f.min())
veg = smooth(1)
water = smooth(2) < 0.12
def create(path, bands, dtype, epsg, origin, pixel, nodata=None, descriptions=None):
    drv = gdal.GetDriverByName('GTiff')
    ds = drv.Create(path, n, n, len(bands), dtype, ['COMPRESS=DEFLATE', 'TILED=YES', 'BLOCKXSIZE=256', 'BLOCKYSIZE=256'])
    ds.SetGeoTransform([origin[0], pixel, 0, origin[1], 0, -pixel])
    srs = osr.SpatialReference(); srs.ImportFromEPSG(epsg); ds.SetProjection(srs.ExportToWkt())
    for i, a in enumerate(bands):
        b = ds.GetRasterBand(i + 1)
        if nodata is not None: b.SetNoDataValue(nodata)
        if descriptions: b.SetDescription(descriptions[i])
        b.WriteArray(a)
    ds = None

# Landsat 7 ETM+ digital numbers, bands 1-5 and 7, SLC-off gaps as 0 (nodata); no band descriptions.
noise = lambda s: rng.normal(0, s, (n, n))
dn = [
    70 + 8 * (1 - veg) + noise(2),        # blue
    58 + 10 * (1 - veg) + noise(2),       # green
    35 + 45 * (1 - veg) - 10 * water + noise(2),  # red
    45 + 95 * veg - 35 * water + noise(3),         # NIR
    70 + 50 * (1 - veg) - 60 * water + noise(3),   # SWIR1
    50 + 40 * (1 - veg) - 45 * water + noise(3),   # SWIR2
]
gaps = (np.abs(((np.arange(n)[None, :] * 0.35 + np.arange(n)[:, None]) % 37)) < 2.5)
scene = []
for a in dn:
    a = np.clip(np.round(a), 1, 255).astype(np.uint8)
    a[gaps] = 0
    scene.append(a)
create('${path.join(dir, L7_SCENE)}', scene, gdal.GDT_Byte, 32629, (520000, 4290000), 30, nodata=0)

# An SRTM-like DEM on the same 30 m grid (float32, no band description).
dem = 180 + 650 * smooth(3) + 40 * smooth(4) + noise(1)
create('${path.join(dir, L7_DEM)}', [dem.astype(np.float32)], gdal.GDT_Float32, 32629, (520000, 4290000), 30, nodata=-32768)

# NDVI of a site near Brasília (UTM 23S), described as NDVI.
ndvi = np.clip(0.15 + 0.7 * veg + noise(0.03), -1, 1).astype(np.float32)
create('${path.join(dir, BRAZIL_NDVI)}', [ndvi], gdal.GDT_Float32, 32723, (190000, 8250000), 30, nodata=-9999, descriptions=['NDVI'])
`);
  return { scene: L7_SCENE, dem: L7_DEM, brazil: BRAZIL_NDVI };
}

/** `src` warped onto a coarser pixel (`pixel` metres) in its own CRS: same ground, another grid. */
export function writeCoarserCopy(src: string, dst: string, pixel: number): void {
  py(`
from osgeo import gdal
gdal.UseExceptions()
gdal.Warp('${dst}', '${src}', xRes=${pixel}, yRes=${pixel}, resampleAlg='average', creationOptions=['COMPRESS=DEFLATE', 'TILED=YES'])
`);
}
