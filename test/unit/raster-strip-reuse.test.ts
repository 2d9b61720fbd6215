/**
 * A strip reader's reuse (one thread's window and output arrays, halo rows carried over from the previous
 * window, only the blocks the next window reads again kept, evicted block buffers decoded into again) gives
 * the same strips as a reader that starts afresh for every strip: strips in order, and in the order a worker
 * that steals strips from the end of another's run takes them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { DEFAULT_ZLEVEL } from '../../src/core/raster/io/encode';
import { runStripJob, StripJobSpec, StripResult } from '../../src/core/raster/pipeline/strip-job';
import { DatasetCache } from '../../src/core/raster/pipeline/tile-job';
import { needGdal, py, tmpDir } from '../helpers/raster-gdal';

function inputs(dir: string): { dem: string; planar: string; pixel: string } {
  const dem = path.join(dir, 'dem.tif'), planar = path.join(dir, 'planar.tif'), pixel = path.join(dir, 'pixel.tif');
  py(`
from osgeo import gdal
import numpy as np
rng = np.random.default_rng(5)
drv = gdal.GetDriverByName('GTiff')
# A DEM on 256-row blocks (a 512-row strip with its halo spans three or four of them), a nodata patch across a strip edge.
w, h = 1300, 1700
yy, xx = np.mgrid[0:h, 0:w].astype(np.float64)
z = 300 + 80 * np.sin(xx / 97.0) * np.cos(yy / 61.0) + rng.normal(0, 0.5, (h, w))
z[500:530, 200:400] = -9999
d = drv.Create(${JSON.stringify(dem)}, w, h, 1, gdal.GDT_Float32, ['TILED=YES', 'BLOCKXSIZE=256', 'BLOCKYSIZE=256', 'COMPRESS=DEFLATE', 'PREDICTOR=3'])
d.SetGeoTransform((500000, 10, 0, 4000000, 0, -10)); d.GetRasterBand(1).SetNoDataValue(-9999); d.GetRasterBand(1).WriteArray(z.astype(np.float32)); d = None
# Three uint16 bands stored band after band, on 384-row blocks (not a divisor of the 512-row strips).
w, h = 1100, 1300
for f, il, bs in ((${JSON.stringify(planar)}, 'BAND', 384), (${JSON.stringify(pixel)}, 'PIXEL', 128)):
    d = drv.Create(f, w, h, 3, gdal.GDT_UInt16, ['TILED=YES', 'BLOCKXSIZE=%d' % bs, 'BLOCKYSIZE=%d' % bs, 'COMPRESS=DEFLATE', 'PREDICTOR=2', 'INTERLEAVE=' + il])
    d.SetGeoTransform((500000, 10, 0, 4000000, 0, -10))
    for b in range(1, 4):
        d.GetRasterBand(b).WriteArray(rng.integers(1, 60000, (h, w)).astype(np.uint16))
    d = None
`);
  return { dem, planar, pixel };
}

function spec(over: Partial<StripJobSpec> & Pick<StripJobSpec, 'inputs' | 'kernel' | 'inWidth' | 'inHeight' | 'width' | 'height' | 'bands' | 'outDtype'>): StripJobSpec {
  return { tile: 512, fill: over.outDtype === 'float32' ? -9999 : 0, zlevel: DEFAULT_ZLEVEL, nodata: over.outDtype === 'float32' ? -9999 : 0, previewStep: 3, ...over };
}

/** A worker's order: its own run down from the top, then strips stolen from the end of the other run. */
function stolenOrder(n: number): number[] {
  const half = Math.ceil(n / 2);
  const own = Array.from({ length: half }, (_, i) => i);
  const stolen = Array.from({ length: n - half }, (_, i) => n - 1 - i);
  return [...own, ...stolen];
}

function same(a: StripResult, b: StripResult, what: string): void {
  assert.equal(a.by, b.by);
  assert.equal(a.encoded.length, b.encoded.length, what);
  a.encoded.forEach((row, k) => row.forEach((t, bx) => assert.ok(Buffer.from(t).equals(Buffer.from(b.encoded[k][bx])), `${what}: strip ${a.by} band ${k + 1} tile ${bx} differs`)));
  assert.deepEqual(a.preview, b.preview, `${what}: strip ${a.by} preview`);
  assert.deepEqual(a.tallies, b.tallies, `${what}: strip ${a.by} tallies`);
}

test('strip readers that reuse arrays, carry halo rows and recycle blocks give the strips of fresh readers', needGdal(), async () => {
  const dir = tmpDir();
  const f = inputs(dir);
  const cases: [string, StripJobSpec][] = [
    // Scaled input: carried rows must not be scaled twice.
    ['slope, scaled DEM', spec({ inputs: [{ source: f.dem, band: 1, scale: 0.5, offset: 3 }], kernel: { type: 'slope', ewres: 10, nsres: -10, z: 1 }, inWidth: 1300, inHeight: 1700, width: 1300, height: 1700, bands: 1, outDtype: 'float32' })],
    ['hillshade', spec({ inputs: [{ source: f.dem, band: 1 }], kernel: { type: 'hillshade', ewres: 10, nsres: -10, z: 1, azimuth: 315, altitude: 45 }, inWidth: 1300, inHeight: 1700, width: 1300, height: 1700, bands: 1, outDtype: 'uint8' })],
    ['resample average, band-separate', spec({ inputs: [1, 2, 3].map((band) => ({ source: f.planar, band })), kernel: { type: 'resample', method: 'average', fx: 2, fy: 2 }, inWidth: 1100, inHeight: 1300, width: 550, height: 650, bands: 3, outDtype: 'float32' })],
    // Windows off the blocks: each block row is read by two strips.
    ['clip, band-separate', spec({ inputs: [1, 2, 3].map((band) => ({ source: f.planar, band })), kernel: { type: 'clip', c0: 77, r0: 201 }, inWidth: 1100, inHeight: 1300, width: 900, height: 1050, bands: 3, outDtype: 'uint16' })],
    ['clip, pixel-interleaved', spec({ inputs: [1, 2, 3].map((band) => ({ source: f.pixel, band })), kernel: { type: 'clip', c0: 77, r0: 201 }, inWidth: 1100, inHeight: 1300, width: 900, height: 1050, bands: 3, outDtype: 'uint16', interleaved: true })],
  ];
  for (const [name, s] of cases) {
    const n = Math.ceil(s.height / s.tile);
    const fresh: StripResult[] = [];
    for (let by = 0; by < n; by++) {
      const c = new DatasetCache();
      try { fresh.push(await runStripJob(s, by, c, null)); } finally { await c.closeAll(); }
    }
    for (const [order, label] of [[Array.from({ length: n }, (_, i) => i), 'in order'], [stolenOrder(n), 'stolen order']] as [number[], string][]) {
      const c = new DatasetCache();
      try {
        for (const by of order) same(await runStripJob(s, by, c, null), fresh[by], `${name}, ${label}`);
      } finally { await c.closeAll(); }
    }
  }
});
