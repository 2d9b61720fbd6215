/** resample (bilinear, cubic, reference grids), reproject and align against gdalwarp on the same grids. */
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { runTool } from '../../src/core/raster/engine';
import type { ToolRunResult } from '../../src/core/raster/types';
import { gdalSkip, pyJson, tmpDir } from '../helpers/raster-gdal';

const skip = gdalSkip('warp comparisons with gdalwarp', ['gdalwarp']);
let dir = '';

before(() => {
  if (skip) return;
  dir = tmpDir('gw-warp-');
  pyJson(`
import sys, os, json, numpy as np
from osgeo import gdal, osr
os.chdir(sys.argv[1])
np.random.seed(3)
def srs(d, s):
    r = osr.SpatialReference(); r.SetFromUserInput(s); d.SetProjection(r.ExportToWkt())
def make(name, w, h, nodata=None):
    d = gdal.GetDriverByName('GTiff').Create(name, w, h, 1, gdal.GDT_Float32)
    srs(d, 'EPSG:32632'); d.SetGeoTransform((281000, 30, 0, 5550000, 0, -30))
    yy, xx = np.mgrid[0:h, 0:w]
    a = (100 + 40 * np.sin(xx / 7.0) + 30 * np.cos(yy / 5.0) + np.random.rand(h, w) * 20).astype(np.float32)
    b = d.GetRasterBand(1)
    if nodata is not None:
        a[20:26, 30:41] = nodata; a[0:3, 0:5] = nodata; b.SetNoDataValue(nodata)
    b.WriteArray(a); d = None
def grid(name, w, h, s, gt):
    d = gdal.GetDriverByName('GTiff').Create(name, w, h, 1, gdal.GDT_Byte); srs(d, s); d.SetGeoTransform(gt); d = None
make('smooth.tif', 97, 83)
make('holes.tif', 97, 83, -9999)
grid('ref_laea.tif', 50, 45, 'EPSG:3035', (4030500, 45, 0, 3002800, 0, -45))
grid('ref_60m.tif', 40, 30, 'EPSG:32632', (281100, 60, 0, 5549900, 0, -60))
grid('ref_20m.tif', 90, 70, 'EPSG:32632', (281300, 20, 0, 5549500, 0, -20))
print(json.dumps(1))
`, dir);
});

const COMPARE = `
import sys, json, numpy as np
from osgeo import gdal
a = gdal.Open(sys.argv[1]); b = gdal.Open(sys.argv[2])
A = a.GetRasterBand(1).ReadAsArray().astype(np.float64); B = b.GetRasterBand(1).ReadAsArray().astype(np.float64)
ma = A == a.GetRasterBand(1).GetNoDataValue(); mb = B == b.GetRasterBand(1).GetNoDataValue()
ok = ~ma & ~mb
rng = float(B[~mb].max() - B[~mb].min())
d = np.abs(A - B)[ok]
print(json.dumps({"shape": list(A.shape) == list(B.shape), "gt": np.allclose(a.GetGeoTransform(), b.GetGeoTransform(), rtol=0, atol=1e-9), "srs": a.GetSpatialRef().IsSame(b.GetSpatialRef()) == 1, "mask": int((ma != mb).sum()), "valid": int(ok.sum()), "rel": float(d.max() / rng) if d.size else 0.0}))
`;

/** gdalwarp onto the grid of our output (-te/-ts, exact transforms), then the two compared band 1. */
function againstGdalwarp(r: ToolRunResult, input: string, method: string, srs: string): { rel: number; mask: number; valid: number } {
  const mine = Object.values(r.outputs)[0].path;
  const g = r.stats.geoTransform as number[], W = r.stats.width as number, H = r.stats.height as number;
  const ref = path.join(dir, `gdal_${path.basename(mine)}`);
  const w = spawnSync('gdalwarp', ['-q', '-overwrite', '-t_srs', srs, '-r', method, '-et', '0', '-dstnodata', '-9999',
    '-te', String(g[0]), String(g[3] + g[5] * H), String(g[0] + g[1] * W), String(g[3]), '-ts', String(W), String(H), path.join(dir, input), ref], { encoding: 'utf8' });
  assert.equal(w.status, 0, w.stderr);
  const c = pyJson(COMPARE, mine, ref);
  assert.ok(c.shape && c.gt && c.srs, `${mine}: grid and CRS as gdalwarp's (${JSON.stringify(c)})`);
  return c;
}

async function run(tool: string, args: Record<string, unknown>, name: string): Promise<ToolRunResult> {
  return runTool(tool, args, { outDir: path.join(dir, 'out', name), cwd: dir });
}

test('resample bilinear and cubic equal gdalwarp -r bilinear/cubic (finer, coarser, fractional factors; nodata holes)', { skip }, async () => {
  let worst = 0;
  for (const input of ['smooth.tif', 'holes.tif']) {
    for (const method of ['bilinear', 'cubic']) {
      for (const factor of [2, 0.5, 1.5, 3, 0.7]) {
        const r = await run('resample', { image: input, factor, method }, `${input}-${method}-${factor}`);
        const c = againstGdalwarp(r, input, method, 'EPSG:32632');
        assert.equal(c.mask, 0, `${input} ${method} ×${factor}: nodata where gdalwarp has it`);
        assert.ok(c.rel <= 1e-4, `${input} ${method} ×${factor}: ${c.rel} of the value range`);
        worst = Math.max(worst, c.rel);
      }
    }
  }
  assert.ok(worst <= 1e-6, `worst ${worst}`);
});

test('resample onto a reference grid and align onto a grid in another CRS equal gdalwarp', { skip }, async () => {
  const cases: [string, string, string, string][] = [
    ['resample', 'ref_20m.tif', 'cubic', 'EPSG:32632'],
    ['resample', 'ref_60m.tif', 'average', 'EPSG:32632'],
    ['resample', 'ref_20m.tif', 'average', 'EPSG:32632'],
    ['align', 'ref_laea.tif', 'near', 'EPSG:3035'],
    ['align', 'ref_laea.tif', 'bilinear', 'EPSG:3035'],
    ['align', 'ref_laea.tif', 'cubic', 'EPSG:3035'],
    ['align', 'ref_laea.tif', 'average', 'EPSG:3035'],
    ['align', 'ref_60m.tif', 'bilinear', 'EPSG:32632'],
  ];
  for (const [tool, reference, method, srs] of cases) {
    for (const input of ['smooth.tif', 'holes.tif']) {
      const args = tool === 'resample' ? { image: input, reference, method: method === 'near' ? 'nearest' : method } : { image: input, reference, resampling: method };
      const r = await run(tool, args, `${tool}-${reference}-${method}-${input}`);
      const c = againstGdalwarp(r, input, method, srs);
      assert.equal(c.mask, 0, `${tool} ${input} onto ${reference} (${method}): nodata as gdalwarp`);
      assert.ok(c.rel <= 1e-4, `${tool} ${input} onto ${reference} (${method}): ${c.rel} of the value range`);
      if (method === 'near') assert.equal(c.rel, 0);
    }
  }
  const a = await run('align', { image: 'holes.tif', reference: 'ref_laea.tif', resampling: 'bilinear' }, 'summary');
  assert.match(a.summary, /onto the grid of .*ref_laea\.tif \(EPSG:3035 \(ETRS89-extended \/ LAEA Europe\), 45 m pixels, 50×45/);
});

test('reproject equals gdalwarp -t_srs on the same grid (lon/lat, web Mercator, LAEA at a chosen resolution; near, bilinear, cubic, average)', { skip }, async () => {
  const cases: [string, string, number | undefined][] = [
    ['EPSG:4326', 'bilinear', undefined], ['EPSG:3857', 'near', undefined], ['EPSG:3035', 'cubic', 25], ['EPSG:3035', 'bilinear', 80], ['EPSG:3035', 'average', 70],
  ];
  for (const [crs, method, res] of cases) {
    for (const input of ['smooth.tif', 'holes.tif']) {
      const r = await run('reproject', { image: input, dst_crs: crs, resampling: method, ...(res ? { resolution: res } : {}) }, `rp-${crs.replace(':', '')}-${method}-${input}`);
      const c = againstGdalwarp(r, input, method, crs);
      assert.equal(c.mask, 0, `reproject ${input} → ${crs}: nodata as gdalwarp`);
      assert.ok(c.valid > 1000);
      assert.ok(c.rel <= 1e-4, `reproject ${input} → ${crs} (${method}): ${c.rel} of the value range`);
      if (method === 'near') assert.equal(c.rel, 0);
      if (res) assert.equal((r.stats.geoTransform as number[])[1], res);
    }
  }
  await assert.rejects(run('reproject', { image: 'smooth.tif', dst_crs: 'EPSG:1234567' }, 'bad'), /reproject: argument "dst_crs"/);
  await assert.rejects(run('reproject', { image: 'smooth.tif', dst_crs: '+proj=robin +lon_0=0 +datum=WGS84' }, 'bad'),
    /has no EPSG code and is not a projection GeoWeave writes as GeoTIFF keys .*give an EPSG code, or use align/);
});

test('reproject to a proj4 string without an EPSG code writes GeoTIFF keys GDAL reads as the same CRS, with gdalwarp\'s values', { skip }, async () => {
  const defs = [
    '+proj=laea +lat_0=50 +lon_0=6 +x_0=1000 +y_0=2000 +ellps=GRS80 +units=m',
    '+proj=tmerc +lat_0=49.8333333333333 +lon_0=6.16666666666667 +k=1 +x_0=80000 +y_0=100000 +ellps=intl +towgs84=-189.681,18.3463,-42.7695,-0.33746,-3.09264,2.53861,0.4598 +units=m',
    '+proj=aea +lat_1=45 +lat_2=55 +lat_0=50 +lon_0=6 +datum=WGS84',
    '+proj=lcc +lat_1=49 +lat_2=51 +lat_0=50 +lon_0=6 +x_0=0 +y_0=0 +ellps=GRS80 +towgs84=0,0,0',
    '+proj=longlat +ellps=intl +towgs84=-87,-98,-121',
  ];
  for (const [i, def] of defs.entries()) {
    const r = await run('reproject', { image: 'holes.tif', dst_crs: def, resampling: 'bilinear' }, `rp-def${i}`);
    const c = againstGdalwarp(r, 'holes.tif', 'bilinear', def);
    assert.equal(c.mask, 0, def);
    assert.ok(c.rel <= 1e-4, `${def}: ${c.rel}`);
  }
});
