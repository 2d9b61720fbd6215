/** Sensor presets for Landsat 4-7 and Sentinel-2 L1C, the consistency check that refuses a preset
 *  that does not fit the file, and the true pixel size of rotated grids. */
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { runTool } from '../../src/core/raster/engine';
import { gdalSkip, pyJson, PY_READ_BAND, tmpDir } from '../helpers/raster-gdal';

const skip = gdalSkip('sensor preset checks against numpy');
let dir = '';

before(() => {
  if (skip) return;
  dir = tmpDir('gw-sensors-');
  pyJson(`
import sys, os, json, numpy as np
from osgeo import gdal, osr
os.chdir(sys.argv[1])
rng = np.random.default_rng(5)
W, H = 120, 90
yy, xx = np.mgrid[0:H, 0:W]
veg = (np.sin(xx / 17.0) * np.cos(yy / 13.0) + 1) / 2
refl = {'blue': .05 + .03 * (1 - veg), 'green': .08 + .02 * (1 - veg), 'red': .12 * (1 - veg) + .02, 'rededge': .15 + .08 * veg,
        'nir': .15 + .35 * veg, 'swir1': .25 - .12 * veg, 'swir2': .18 - .1 * veg, 'thermal': 0.5 + 0 * veg, 'cirrus': .01 + 0 * veg, 'coastal': .04 + 0 * veg}
def make(name, dtype, order, conv, descriptions=None, nodata=0, rotate=False):
    d = gdal.GetDriverByName('GTiff').Create(name, W, H, len(order), dtype)
    if rotate:
        d.SetGeoTransform((300000, 24, 18, 5500000, 18, -24))
    else:
        d.SetGeoTransform((300000, 30, 0, 5500000, 0, -30))
    s = osr.SpatialReference(); s.ImportFromEPSG(32631); d.SetProjection(s.ExportToWkt())
    for i, role in enumerate(order):
        b = d.GetRasterBand(i + 1)
        a = conv(refl[role] + rng.normal(0, .004, (H, W)), role)
        a[:4, :6] = 0
        b.WriteArray(a)
        if nodata is not None: b.SetNoDataValue(nodata)
        if descriptions: b.SetDescription(descriptions[i])
    d = None
L7 = ['blue', 'green', 'red', 'nir', 'swir1', 'swir2']
# A Landsat 7 ETM+ scene as delivered in digital numbers: 6 bytes bands (1-5, 7), no descriptions.
make('l7_dn.tif', gdal.GDT_Byte, L7, lambda r, role: np.clip(np.round(r * 400 + 10), 1, 255))
# The same scene as Collection 2 Level-2 surface reflectance DNs (reflectance = DN * 0.0000275 - 0.2).
make('l7_c2l2.tif', gdal.GDT_UInt16, L7, lambda r, role: np.round((r + 0.2) / 0.0000275))
make('l7_c2l2_named.tif', gdal.GDT_UInt16, L7, lambda r, role: np.round((r + 0.2) / 0.0000275), ['SR_B1', 'SR_B2', 'SR_B3', 'SR_B4', 'SR_B5', 'SR_B7'])
# Sentinel-2 L1C: 13 bands B01-B12 with B10 (cirrus), TOA reflectance * 10000.
S2 = ['coastal', 'blue', 'green', 'red', 'rededge', 'rededge', 'rededge', 'nir', 'nir', 'nir', 'cirrus', 'swir1', 'swir2']
make('s2_l1c.tif', gdal.GDT_UInt16, S2, lambda r, role: np.round(r * 10000))
# A 4-band file whose descriptions say red, green, blue, nir (NAIP order).
make('rgbn.tif', gdal.GDT_UInt16, ['red', 'green', 'blue', 'nir'], lambda r, role: np.round(r * 10000), ['red', 'green', 'blue', 'nir'])
make('rotated.tif', gdal.GDT_Float32, ['nir'], lambda r, role: r.astype(np.float32), nodata=None, rotate=True)
print(json.dumps(1))
`, dir);
});

const NDVI = PY_READ_BAND + `
red, nd = read(sys.argv[1], int(sys.argv[3])); nir, _ = read(sys.argv[1], int(sys.argv[4]))
scale, offset = float(sys.argv[5]), float(sys.argv[6])
ok = (red != nd) & (nir != nd)
R = red.astype(np.float64) * scale + offset; N = nir.astype(np.float64) * scale + offset
ref = (N - R) / (N + R)
o, ond = read(sys.argv[2])
both = ok & (o != ond)
print(json.dumps({"max": float(np.abs(o[both] - ref[both]).max()), "mask": int(((o != ond) != ok).sum())}))
`;

function ndviAgainstNumpy(file: string, out: string, red: number, nir: number, scale = 1, offset = 0): void {
  const r = pyJson(NDVI, path.join(dir, file), out, String(red), String(nir), String(scale), String(offset));
  assert.equal(r.mask, 0, `${file}: nodata where numpy has it`);
  assert.ok(r.max <= 1e-6, `${file}: NDVI differs from numpy by ${r.max}`);
}

const run = (tool: string, args: Record<string, unknown>, name: string) => runTool(tool, args, { outDir: path.join(dir, 'out', name), cwd: dir });

test('a Landsat 7 DN stack: the Landsat 8/9 preset is refused (band count), the C2 L2 one too (8-bit values); landsat457_tm takes red 3, NIR 4', { skip }, async () => {
  await assert.rejects(run('ndvi', { image: 'l7_dn.tif', sensor: 'landsat89_c2l2' }, 'a'),
    /argument "sensor": Landsat 8\/9 Collection 2 Level-2 \(sensor=landsat89_c2l2\) does not fit .*l7_dn\.tif: sensor=landsat89_c2l2 expects 7 bands .* but the file has 6 bands; 6 bands is the Landsat 4-7 layout \(bands 1-5 and 7\): use --arg sensor=landsat457_c2l2 .* or --arg sensor=landsat457_tm/);
  await assert.rejects(run('ndvi', { image: 'l7_dn.tif', sensor: 'landsat457_c2l2' }, 'b'),
    /does not fit .*l7_dn\.tif: values \d+-\d+ in uint8 are 8-bit digital numbers, not .* surface reflectance .*: use --arg sensor=landsat457_tm/);
  await assert.rejects(run('ndvi', { image: 'l7_dn.tif', sensor: 'sentinel2_l2a' }, 'c'), /sensor=sentinel2_l2a expects 8 bands .* but the file has 6 bands/);
  const r = await run('ndvi', { image: 'l7_dn.tif', sensor: 'landsat457_tm' }, 'd');
  const bands = r.stats.bands as Record<string, { band: number; how: string }>;
  assert.deepEqual([bands.red.band, bands.nir.band], [3, 4]);
  ndviAgainstNumpy('l7_dn.tif', r.outputs.index.path, 3, 4);
});

test('Landsat 4-7 Collection 2 Level-2: scaled as C2 L2 (undescribed or SR_B3/SR_B4 by name); the DN preset is refused for it', { skip }, async () => {
  const r = await run('ndvi', { image: 'l7_c2l2.tif', sensor: 'landsat457_c2l2' }, 'e');
  ndviAgainstNumpy('l7_c2l2.tif', r.outputs.index.path, 3, 4, 0.0000275, -0.2);
  assert.match((r.stats.bands as any).red.how, /landsat457_c2l2 preset band 3; Landsat C2 L2 reflectance DN×0\.0000275−0\.2/);
  const named = await run('ndvi', { image: 'l7_c2l2_named.tif', sensor: 'landsat457_c2l2' }, 'f');
  assert.deepEqual([(named.stats.bands as any).red.how, (named.stats.bands as any).nir.band], [(named.stats.bands as any).red.how, 4]);
  assert.match((named.stats.bands as any).red.how, /description "SR_B3"/);
  ndviAgainstNumpy('l7_c2l2_named.tif', named.outputs.index.path, 3, 4, 0.0000275, -0.2);
  // With no sensor at all, the names say which Landsat it is (no SR_B6: 4-7), as in an Earth Engine export.
  const bare = await run('ndvi', { image: 'l7_c2l2_named.tif' }, 'f2');
  assert.deepEqual([(bare.stats.bands as any).red.band, (bare.stats.bands as any).nir.band], [3, 4]);
  assert.match((bare.stats.bands as any).nir.how, /description "SR_B4"; Landsat C2 L2 reflectance DN×0\.0000275−0\.2 \(band name SR_B4\)/);
  ndviAgainstNumpy('l7_c2l2_named.tif', bare.outputs.index.path, 3, 4, 0.0000275, -0.2);
  const info = await run('raster_info', { image: 'l7_c2l2_named.tif' }, 'f3');
  assert.match(info.summary, /Band roles from descriptions: blue=1, green=2, red=3, nir=4, swir1=5, swir2=6/);
  await assert.rejects(run('ndvi', { image: 'l7_c2l2.tif', sensor: 'landsat457_tm' }, 'g'), /look like Collection 2 Level-2 surface reflectance DNs, which need their scaling: use --arg sensor=landsat457_c2l2/);
});

test('Sentinel-2 L1C: 13 bands with B10, red B04 and NIR B08, TOA reflectance DN/10000', { skip }, async () => {
  const r = await run('ndvi', { image: 's2_l1c.tif', sensor: 'sentinel2_l1c' }, 'h');
  const bands = r.stats.bands as Record<string, { band: number; how: string }>;
  assert.deepEqual([bands.red.band, bands.nir.band], [4, 8]);
  assert.match(bands.red.how, /Sentinel-2 L1C reflectance DN\/10000/);
  ndviAgainstNumpy('s2_l1c.tif', r.outputs.index.path, 4, 8, 0.0001);
  const m = await run('mndwi', { image: 's2_l1c.tif', sensor: 'sentinel2_l1c' }, 'i');
  assert.equal((m.stats.bands as any).swir1.band, 12, 'SWIR1 is B11, the 12th band of an L1C stack (B10 before it)');
});

test('a preset whose band order contradicts the band descriptions is refused, not applied', { skip }, async () => {
  await assert.rejects(run('ndvi', { image: 'rgbn.tif', sensor: 'planetscope_4b' }, 'j'),
    /PlanetScope 4-band \(sensor=planetscope_4b\) does not fit .*rgbn\.tif: band 1 is described as "red" \(red\), but sensor=planetscope_4b puts red in band 3; .*leave sensor= out/);
  await assert.rejects(run('ndvi', { image: 'rgbn.tif', sensor: 'naip' }, 'k'), /NAIP is 8-bit/);
  const ok = await run('ndvi', { image: 'rgbn.tif' }, 'l');
  assert.equal((ok.stats.bands as any).red.band, 1);
});

test('raster_info reports the true pixel size and rotation of a rotated grid', { skip }, async () => {
  const r = await run('raster_info', { image: 'rotated.tif' }, 'm');
  assert.deepEqual(r.stats.pixelSize, [30, 30]);
  assert.ok(Math.abs((r.stats.rotationDegrees as number) - 36.869898) < 1e-5);
  assert.match(r.summary, /at 30 m \(grid rotated 36\.9°\)/);
});

test('the scene from the issue (Landsat 7 ETM+ DNs, 6 bands, no descriptions): landsat89_c2l2 is refused, landsat457_tm computes NDVI from bands 3 and 4', { skip }, async () => {
  const { writeRealLikeData } = await import('../helpers/real-data');
  const d = tmpDir('gw-l7-');
  const { scene } = writeRealLikeData(d, 128);
  await assert.rejects(runTool('ndvi', { image: scene, sensor: 'landsat89_c2l2' }, { outDir: path.join(d, 'out'), cwd: d }),
    /does not fit .*L7_ETMs\.tif: sensor=landsat89_c2l2 expects 7 bands .* but the file has 6 bands; 6 bands is the Landsat 4-7 layout/);
  const r = await runTool('ndvi', { image: scene, sensor: 'landsat457_tm' }, { outDir: path.join(d, 'out'), cwd: d });
  const bands = r.stats.bands as Record<string, { band: number; how: string }>;
  assert.deepEqual([bands.red.band, bands.nir.band], [3, 4]);
  assert.doesNotMatch(bands.red.how, /0\.0000275/, 'no Collection 2 scaling on DNs');
  const manual = await runTool('ndvi', { image: scene, red: 3, nir: 4 }, { outDir: path.join(d, 'out2'), cwd: d });
  assert.equal(r.stats.mean, manual.stats.mean);
});
