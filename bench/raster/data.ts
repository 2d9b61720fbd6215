/** Bench inputs, generated once with GDAL python under bench/.data/ (deterministic: fixed seeds and formulas). */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export const PY = '/usr/bin/python3';

/** The inputs of one size: 4-band uint16 scene, float32 NDVI, float32 DEM, uint8 mask, uint8 zones. */
export interface BenchInputs { size: number; scene: string; ndvi: string; dem: string; mask: string; zones: string;
  /** The scene's red and NIR as Sentinel-2 delivers bands: lossless JPEG 2000, 1024-pixel tiles, GeoJP2 + GMLJP2. */
  jp2: { red: string; nir: string } }

const CO = "'TILED=YES', 'BLOCKXSIZE=512', 'BLOCKYSIZE=512', 'COMPRESS=DEFLATE', 'BIGTIFF=IF_SAFER'";

function run(code: string, what: string): void {
  const r = spawnSync(PY, ['-c', code], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`${what} generation failed (needs GDAL python bindings in /usr/bin/python3)`);
}

/** 4 bands (B,G,R,NIR) uint16, pixel-interleaved, tiled 512, DEFLATE: smooth fields plus noise (compresses like imagery). */
export function generateScene(file: string, size: number): void {
  if (fs.existsSync(file)) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = file + '.tmp.tif';
  console.log(`generating ${path.basename(file)} (${size}×${size}, 4 bands uint16, tiled 512, DEFLATE) ...`);
  run(`
from osgeo import gdal, osr
import numpy as np
N = ${size}
d = gdal.GetDriverByName('GTiff').Create(${JSON.stringify(tmp)}, N, N, 4, gdal.GDT_UInt16, [${CO}])
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
`, 'scene');
  fs.renameSync(tmp, file);
}

/** The single-band inputs derived on the scene's grid (NDVI float32 with predictor 3, DEM, mask, zones). */
function generateDerived(scene: string, inp: BenchInputs): void {
  const all = [inp.ndvi, inp.dem, inp.mask, inp.zones];
  if (all.every((f) => fs.existsSync(f))) return;
  console.log(`generating NDVI, DEM, mask and zones of ${inp.size}×${inp.size} ...`);
  const tmp = all.map((f) => f + '.tmp.tif');
  run(`
from osgeo import gdal
import numpy as np
src = gdal.Open(${JSON.stringify(scene)})
N = src.RasterXSize
drv = gdal.GetDriverByName('GTiff')
def mk(p, t, opts, nodata=None, desc=None):
    d = drv.Create(p, N, N, 1, t, [${CO}] + opts)
    d.SetGeoTransform(src.GetGeoTransform()); d.SetProjection(src.GetProjection())
    b = d.GetRasterBand(1)
    if nodata is not None: b.SetNoDataValue(nodata)
    if desc: b.SetDescription(desc)
    return d
ndvi = mk(${JSON.stringify(tmp[0])}, gdal.GDT_Float32, ['PREDICTOR=3'], -9999, 'ndvi')
dem = mk(${JSON.stringify(tmp[1])}, gdal.GDT_Float32, ['PREDICTOR=3'], -9999, 'elevation')
mask = mk(${JSON.stringify(tmp[2])}, gdal.GDT_Byte, [], None, 'mask')
zones = mk(${JSON.stringify(tmp[3])}, gdal.GDT_Byte, [], 0, 'zones')
rng = np.random.default_rng(11)
xs = np.arange(N)[None, :].astype(np.float64)
for y0 in range(0, N, 512):
    h = min(512, N - y0)
    yy = np.arange(y0, y0 + h)[:, None].astype(np.float64)
    r = src.GetRasterBand(3).ReadAsArray(0, y0, N, h).astype(np.float32)
    n = src.GetRasterBand(4).ReadAsArray(0, y0, N, h).astype(np.float32)
    with np.errstate(all='ignore'):
        v = (n - r) / (n + r)
    v[~np.isfinite(v)] = -9999
    ndvi.GetRasterBand(1).WriteArray(v, 0, y0)
    z = 400 + 250 * np.sin(xs / 410.0) * np.cos(yy / 330.0) + 60 * np.sin((xs + 2 * yy) / 97.0) + 15 * np.cos((3 * xs - yy) / 41.0) + rng.normal(0, 0.4, (h, N))
    dem.GetRasterBand(1).WriteArray(z.astype(np.float32), 0, y0)
    f = np.sin(xs / 170.0) * np.cos(yy / 230.0) + 0.35 * np.sin(xs / 61.0 + yy / 47.0)
    mask.GetRasterBand(1).WriteArray((f > 1.15).astype(np.uint8), 0, y0)
    q = N // 4
    zones.GetRasterBand(1).WriteArray((np.minimum(xs // q, 3) + 4 * np.minimum(yy // q, 3) + 1).astype(np.uint8) + 0 * (xs + yy).astype(np.uint8), 0, y0)
for d in (ndvi, dem, mask, zones): d.FlushCache()
ndvi = dem = mask = zones = None
`, 'derived inputs');
  all.forEach((f, i) => fs.renameSync(tmp[i], f));
}

export function inputs(dataDir: string, size: number): BenchInputs {
  const scene = path.join(dataDir, `ndvi_${size}.tif`);
  const inp: BenchInputs = {
    size, scene,
    ndvi: path.join(dataDir, `ndvi_f32_${size}.tif`), dem: path.join(dataDir, `dem_${size}.tif`),
    mask: path.join(dataDir, `mask_${size}.tif`), zones: path.join(dataDir, `zones_${size}.tif`),
    jp2: { red: path.join(dataDir, `red_${size}.jp2`), nir: path.join(dataDir, `nir_${size}.jp2`) },
  };
  generateScene(scene, size);
  generateDerived(scene, inp);
  for (const [role, band] of [['red', 3], ['nir', 4]] as const) {
    const f = inp.jp2[role];
    if (fs.existsSync(f)) continue;
    console.log(`generating ${path.basename(f)} (band ${band} as lossless JPEG 2000, 1024-pixel tiles) ...`);
    const r = spawnSync('gdal_translate', ['-q', '-b', String(band), '-of', 'JP2OpenJPEG', '-co', 'REVERSIBLE=YES', '-co', 'QUALITY=100', '-co', 'BLOCKXSIZE=1024', '-co', 'BLOCKYSIZE=1024', scene, `${f}.tmp.jp2`], { stdio: 'inherit' });
    if (r.status !== 0) throw new Error('JPEG 2000 generation failed (needs gdal_translate with the JP2OpenJPEG driver)');
    fs.renameSync(`${f}.tmp.jp2`, f);
  }
  return inp;
}
