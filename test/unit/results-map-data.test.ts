import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { GeoTiffWriter } from '../../src/core/raster/io/writer';
import { MapData } from '../../src/core/results/map-data';
import proj4 from 'proj4';
import { gdalSkip, pyJson, tmpDir } from '../helpers/raster-gdal';

/** value(x, y) = x + 10000·y, float32, on a UTM grid. */
async function writeGrid(file: string, w: number, h: number): Promise<void> {
  const wr = await GeoTiffWriter.create(file, { width: w, height: h, bands: 1, dtype: 'float32', nodata: -9999, geo: { epsg: 32650, geoTransform: [500000, 10, 0, 4400000, 0, -10], geographic: false } });
  for (let by = 0; by < wr.tilesDown; by++) {
    for (let bx = 0; bx < wr.tilesAcross; bx++) {
      const { w: bw, h: bh } = wr.blockSize(bx, by);
      const z = new Float32Array(bw * bh);
      for (let j = 0; j < bh; j++) for (let i = 0; i < bw; i++) z[j * bw + i] = bx * wr.tile + i + 10000 * (by * wr.tile + j);
      await wr.writeBlock(bx, by, [z]);
    }
  }
  await wr.finish();
}

test('tiles sample every 2^(maxZoom−z)-th pixel, from the file or from the overview alike; pixels equal GDAL', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-map-'));
  try {
    const small = path.join(dir, 'small.tif');
    await writeGrid(small, 600, 500);
    const data = new MapData({ roots: () => [dir], cacheDir: path.join(dir, 'cache') });
    const info = await data.describe({ path: small, bands: [1] });
    assert.equal(info.exists, true);
    assert.equal(info.maxZoom, 2);
    assert.equal(info.overview, false);
    assert.match(info.projection!, /\+proj=utm \+zone=50/);
    const [full] = await data.tile({ path: small, bands: [1] }, 2, 1, 1);
    assert.equal(full[0], 256 + 10000 * 256);
    assert.equal(full[3 * 256 + 5], 261 + 10000 * 259);
    const [z0] = await data.tile({ path: small, bands: [1] }, 0, 0, 0);
    assert.equal(z0[2 * 256 + 3], 12 + 10000 * 8);
    assert.ok(Number.isNaN(z0[200 * 256 + 3]), 'beyond the raster: no data');
    const [v] = await data.pixel({ path: small, bands: [1] }, 123, 45);
    assert.equal(v, 123 + 10000 * 45);
    const gdal = spawnSync('gdallocationinfo', ['-valonly', small, '123', '45'], { encoding: 'utf8' });
    if (gdal.status === 0) assert.equal(Number(gdal.stdout.trim()), v);

    // Wider than the overview limit: the outer zooms come from an overview, with the same samples.
    const wide = path.join(dir, 'wide.tif');
    await writeGrid(wide, 4200, 40);
    assert.equal(await data.prepare(wide), true);
    const wi = await data.describe({ path: wide, bands: [1] });
    assert.equal(wi.overview, true);
    assert.equal(wi.maxZoom, 5);
    const [ov] = await data.tile({ path: wide, bands: [1] }, 1, 0, 0);
    assert.equal(ov[5], 5 * 16);
    assert.equal(ov[2 * 256 + 7], 7 * 16 + 10000 * 32);
    assert.equal(fs.readdirSync(path.join(dir, 'cache')).length, 1);

    // Rewritten in place (a cell run again over its output): a new version, so the renderer's tile
    // cache (keyed on it) does not paint the old file; the host reads the new one.
    await new Promise((r) => setTimeout(r, 20));
    await writeGrid(small, 300, 200);
    const again = await data.describe({ path: small, bands: [1] });
    assert.notEqual(again.version, info.version);
    assert.equal(again.width, 300);
    assert.ok(Number.isNaN((await data.tile({ path: small, bands: [1] }, 2, 1, 1))[0][0]), 'the old tile at 256,256 is outside the new file');

    await assert.rejects(data.vector('/etc/passwd'), /not a file the map reads|outside/);
    const outside = await data.describe({ path: '/etc/hostname.tif', bands: [1] });
    assert.equal(outside.exists, false);
    assert.match(outside.error!, /outside/);
    await data.dispose();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the map draws every CRS the engine reads: EPSG codes of its table and GeoTIFF keys without a code, placed as gdaltransform places them', gdalSkip('map projections against gdaltransform', ['gdaltransform']) ? { skip: gdalSkip('map projections against gdaltransform', ['gdaltransform']) as string } : {}, async () => {
  const dir = tmpDir('gw-map-crs-');
  try {
    // LAEA Europe by code (not a UTM/WGS84 code), and a custom LAEA without any EPSG code.
    const laea = path.join(dir, 'laea_3035.tif');
    await GeoTiffWriter.create(laea, { width: 4, height: 4, bands: 1, dtype: 'float32', geo: { epsg: 3035, geoTransform: [4321000, 100, 0, 3210000, 0, -100], geographic: false } }).then(async (w) => { await w.writeBlock(0, 0, [new Float32Array(16)]); await w.finish(); });
    pyJson(`
import sys, json
from osgeo import gdal, osr
d = gdal.GetDriverByName('GTiff').Create(sys.argv[1] + '/custom.tif', 4, 4, 1, gdal.GDT_Float32)
s = osr.SpatialReference(); s.SetFromUserInput('+proj=laea +lat_0=49.8 +lon_0=6.1 +x_0=100000 +y_0=200000 +ellps=GRS80 +units=m +no_defs')
d.SetProjection(s.ExportToWkt()); d.SetGeoTransform([90000, 50, 0, 215000, 0, -50]); d = None
print(json.dumps(1))
`, dir);
    const data = new MapData({ roots: () => [dir], cacheDir: path.join(dir, 'cache') });
    for (const [file, x, y] of [[laea, 4321200, 3209800], [path.join(dir, 'custom.tif'), 90100, 214900]] as [string, number, number][]) {
      const info = await data.describe({ path: file, bands: [1] });
      assert.match(info.projection ?? '', /\+proj=laea/, `${path.basename(file)}: ${info.projection}`);
      const [lon, lat] = proj4(info.projection!, 'EPSG:4326', [x, y]);
      // Pixel (2, 2) of both files is (x, y): GDAL takes it through the CRS it reads from the file.
      const ref = spawnSync('gdaltransform', ['-t_srs', 'EPSG:4326', '-output_xy', file], { input: '2 2\n', encoding: 'utf8' });
      const [glon, glat] = ref.stdout.trim().split(/\s+/).map(Number);
      assert.ok(Math.abs(lon - glon) < 1e-7 && Math.abs(lat - glat) < 1e-7, `${path.basename(file)}: ${lon},${lat} vs gdaltransform ${glon},${glat}`);
    }
    await data.dispose();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a JPEG 2000 band and a COG on the map: every zoom but the finest from their own overviews, pixels as GDAL reads them', gdalSkip('JPEG 2000 and COG map tiles against GDAL') ? { skip: gdalSkip('JPEG 2000 and COG map tiles against GDAL') as string } : {}, async () => {
  const dir = tmpDir('gw-map-ov-');
  const jp2 = path.join(dir, 'T31TDF_20240612T103021_B04_10m.jp2'), cog = path.join(dir, 'cog.tif');
  // 5000×1200: maxZoom 5; the cached overview is every 4th pixel (zooms 0–3), zoom 4 (every 2nd) reads
  // the file's first overview, zoom 5 the file.
  const want = pyJson(`
import sys, json
from osgeo import gdal, osr
import numpy as np
gdal.UseExceptions()
jp2, cog = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(4)
m = gdal.GetDriverByName('MEM').Create('', 5000, 1200, 1, gdal.GDT_UInt16)
m.SetGeoTransform((399960, 10, 0, 5000040, 0, -10)); s = osr.SpatialReference(); s.ImportFromEPSG(32631); m.SetProjection(s.ExportToWkt())
yy, xx = np.mgrid[0:1200, 0:5000]
# Smooth plus noise, well above 0 (DN 0 is a Sentinel-2 band's no data, at every level).
m.GetRasterBand(1).WriteArray((5000 + 3000 * np.sin(xx / 50.0) * np.cos(yy / 40.0) + rng.integers(0, 200, (1200, 5000))).astype(np.uint16))
gdal.Translate(jp2, m, format='JP2OpenJPEG', creationOptions=['REVERSIBLE=YES', 'QUALITY=100', 'BLOCKXSIZE=512', 'BLOCKYSIZE=512', 'RESOLUTIONS=4'])
gdal.Translate(cog, m, format='COG', creationOptions=['COMPRESS=DEFLATE', 'BLOCKSIZE=256', 'OVERVIEW_RESAMPLING=AVERAGE'])
out = {}
for name, f in (('jp2', jp2), ('cog', cog)):
    d = gdal.Open(f); b = d.GetRasterBand(1)
    o0 = b.GetOverview(0).ReadAsArray(); o1 = b.GetOverview(1).ReadAsArray(); full = b.ReadAsArray()
    out[name] = {'ov0': o0[256:512, 256:512].tolist(), 'ov1': o1[0:256, 0:256].tolist(), 'full': full[256:512, 256:512].tolist(), 'px': int(full[1034, 4345])}
print(json.dumps(out))
`, jp2, cog);
  const data = new MapData({ roots: () => [dir], cacheDir: path.join(dir, 'cache') });
  for (const [name, file] of [['jp2', jp2], ['cog', cog]] as const) {
    const w = want[name];
    const info = await data.describe({ path: file, bands: [1] });
    assert.equal(info.exists, true, `${name}: ${info.error}`);
    assert.equal(info.maxZoom, 5);
    assert.equal(info.overview, true);
    assert.equal(info.epsg, 32631);
    const same = (tile: Float32Array, grid: number[][], what: string) => {
      for (let j = 0; j < 256; j += 7) for (let i = 0; i < 256; i += 11) assert.equal(tile[j * 256 + i], grid[j][i], `${name} ${what} at ${i},${j}`);
    };
    // Zoom 3 (every 4th pixel): the cached overview, built from the file's second overview.
    same((await data.tile({ path: file, bands: [1] }, 3, 0, 0))[0], w.ov1, 'zoom 3');
    // Zoom 4 (every 2nd pixel): a window of the file's first overview.
    same((await data.tile({ path: file, bands: [1] }, 4, 1, 1))[0], w.ov0, 'zoom 4');
    // Zoom 5: the file's own samples.
    same((await data.tile({ path: file, bands: [1] }, 5, 1, 1))[0], w.full, 'zoom 5');
    const [v] = await data.pixel({ path: file, bands: [1] }, 4345, 1034);
    assert.equal(v, w.px);
  }
  await data.dispose();
});
