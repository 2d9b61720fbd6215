/** slope/aspect/hillshade against gdaldem on the sample DEM (GDAL-read arrays via /usr/bin/python3). */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { buildLandscape, EPSG, GEOTRANSFORM, SIZE } from '../../src/core/raster/sample/landscape';
import { writeRaster } from '../../src/core/raster/io/writer';
import { runTool } from '../../src/core/raster/engine';
import { gdalSkip, pyJson } from '../helpers/raster-gdal';

const skip = gdalSkip('comparisons against gdaldem', ['gdaldem']);

/** Compares two rasters away from a 2-pixel border: max |a-b| (or circular for aspect), nodata agreement. */
const COMPARE = `
import sys, json, numpy as np
from osgeo import gdal
da = gdal.Open(sys.argv[1]); db = gdal.Open(sys.argv[2])  # keep datasets alive while bands are used
a = da.GetRasterBand(1); b = db.GetRasterBand(1)
A = a.ReadAsArray().astype(np.float64); B = b.ReadAsArray().astype(np.float64)
circ = sys.argv[3] == 'circular'
na = A == a.GetNoDataValue(); nb = B == b.GetNoDataValue()
inner = np.zeros(A.shape, bool); inner[2:-2, 2:-2] = True
both = inner & ~na & ~nb
d = np.abs(A - B)
if circ: d = np.minimum(d, 360 - d)
print(json.dumps({"max": float(d[both].max()), "n": int(both.sum()), "nodata_mismatch": int((inner & (na != nb)).sum()),
  "edge_nodata": bool(na[0, :].all() and na[:, 0].all() and na[-1, :].all() and na[:, -1].all()),
  "nodata": [a.GetNoDataValue(), b.GetNoDataValue()], "flat": int((inner & na).sum())}))
`;

let dir = '';
before(async () => {
  if (skip) return;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-terrain-'));
  const L = buildLandscape(42);
  await writeRaster(path.join(dir, 'dem.tif'), {
    width: SIZE, height: SIZE, bands: 1, dtype: 'float32', nodata: -9999, descriptions: ['elevation'],
    geo: { epsg: EPSG, geoTransform: GEOTRANSFORM, geographic: false },
  }, [L.dem]);
  // A flat plateau so aspect's flat-cell convention is exercised, and a nodata hole.
  const plateau = Float32Array.from(L.dem);
  for (let y = 100; y < 140; y++) for (let x = 100; x < 140; x++) plateau[y * SIZE + x] = 300;
  for (let y = 300; y < 305; y++) for (let x = 300; x < 305; x++) plateau[y * SIZE + x] = NaN;
  await writeRaster(path.join(dir, 'dem_flat.tif'), {
    width: SIZE, height: SIZE, bands: 1, dtype: 'float32', nodata: -9999, descriptions: ['elevation'],
    geo: { epsg: EPSG, geoTransform: GEOTRANSFORM, geographic: false },
  }, [plateau]);
});
after(() => { if (dir) fs.rmSync(dir, { recursive: true, force: true }); });

function gdaldem(mode: string, src: string, dst: string, extra: string[] = []): void {
  const r = spawnSync('gdaldem', [mode, '-q', src, dst, ...extra], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
}

test('slope matches gdaldem slope within 0.01° (edges and nodata windows nodata)', { skip }, async () => {
  for (const dem of ['dem.tif', 'dem_flat.tif']) {
    const out = path.join(dir, `out-${dem}`);
    const r = await runTool('slope', { dem }, { outDir: out, cwd: dir });
    gdaldem('slope', path.join(dir, dem), path.join(dir, `gdal-slope-${dem}`));
    const c = pyJson(COMPARE, r.outputs.slope.path, path.join(dir, `gdal-slope-${dem}`), 'linear');
    assert.ok(c.max <= 0.01, `max slope difference ${c.max}°`);
    assert.ok(c.n > 300000);
    assert.equal(c.nodata_mismatch, 0);
    assert.ok(c.edge_nodata);
    assert.match(r.summary, /Slope averages \d+\.\d°/);
  }
});

test('aspect matches gdaldem aspect within 0.01° circularly; flat cells follow gdaldem (nodata)', { skip }, async () => {
  for (const dem of ['dem.tif', 'dem_flat.tif']) {
    const out = path.join(dir, `out-${dem}`);
    const r = await runTool('aspect', { dem }, { outDir: out, cwd: dir });
    gdaldem('aspect', path.join(dir, dem), path.join(dir, `gdal-aspect-${dem}`));
    const c = pyJson(COMPARE, r.outputs.aspect.path, path.join(dir, `gdal-aspect-${dem}`), 'circular');
    assert.ok(c.max <= 0.01, `max aspect difference ${c.max}°`);
    assert.equal(c.nodata_mismatch, 0, 'flat/nodata cells agree with gdaldem');
    if (dem === 'dem_flat.tif') assert.ok(c.flat >= 38 * 38, `flat plateau interior is nodata (${c.flat})`);
  }
});

test('hillshade matches gdaldem hillshade within 1 grey level, default and custom sun', { skip }, async () => {
  const cases: [Record<string, unknown>, string[]][] = [
    [{}, []],
    [{ azimuth: 120, altitude: 30, z_factor: 3 }, ['-az', '120', '-alt', '30', '-z', '3']],
  ];
  for (const [k, [args, flags]] of cases.entries()) {
    const out = path.join(dir, `out-hs-${k}`);
    const r = await runTool('hillshade', { dem: 'dem_flat.tif', ...args }, { outDir: out, cwd: dir });
    const ref = path.join(dir, `gdal-hs-${k}.tif`);
    gdaldem('hillshade', path.join(dir, 'dem_flat.tif'), ref, flags);
    const c = pyJson(COMPARE, r.outputs.hillshade.path, ref, 'linear');
    assert.ok(c.max <= 1, `max hillshade difference ${c.max}`);
    assert.equal(c.nodata_mismatch, 0);
    assert.deepEqual(c.nodata, [0, 0]);
  }
});
