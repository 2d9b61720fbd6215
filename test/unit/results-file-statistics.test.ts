/**
 * The raster viewer's value statistics against numpy: every band's minimum, maximum, mean,
 * population standard deviation and valid share over all pixels of a small raster (nodata left out,
 * scale and offset applied); a raster over 16 M pixels read from the smallest overview 1024 pixels
 * across, equal to numpy over GDAL's reading of that overview, and said to be approximate; one
 * without overviews read from every n-th block, equal to GDAL's own approximate statistics.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { fileStatistics } from '../../src/core/results/file-statistics';
import { rasterFileView } from '../../src/core/results/raster-view';
import { needGdal, py, tmpDir } from '../helpers/raster-gdal';

const skip = needGdal();

/** numpy's statistics of each band of `file` (overview `ov` when ≥ 0): [min, max, mean, std, valid %]. */
function numpyStats(file: string, ov = -1): number[][] {
  return JSON.parse(py(`
from osgeo import gdal
import numpy as np, json
d = gdal.Open(${JSON.stringify(file)}); out = []
for i in range(1, d.RasterCount + 1):
    b = d.GetRasterBand(i); nd = b.GetNoDataValue(); sc = b.GetScale() or 1; of = b.GetOffset() or 0
    r = b if ${ov} < 0 else b.GetOverview(${ov})
    a = r.ReadAsArray().astype('f8'); ok = np.ones(a.shape, bool) if nd is None else (a != nd)
    v = a[ok] * sc + of
    out.append([float(v.min()), float(v.max()), float(v.mean()), float(v.std()), 100.0 * ok.sum() / a.size])
print(json.dumps(out))`));
}

function close(got: (string | number | null)[], want: number[], what: string): void {
  const [, , min, max, mean, std, valid] = got as number[];
  [min, max, mean, std, valid].forEach((v, i) => assert.ok(Math.abs(v - want[i]) <= 1e-5 * Math.max(1, Math.abs(want[i])) + (i === 4 ? 0.005 : 0), `${what} column ${i}: ${v} vs numpy ${want[i]}`));
}

test('viewer statistics: every band of a small raster equals numpy; a large one is read from an overview and says so', { ...skip, timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-stats-');
  py(String.raw`
import os
from osgeo import gdal, osr
import numpy as np
gdal.UseExceptions()
os.chdir(${JSON.stringify(dir)})
s = osr.SpatialReference(); s.ImportFromEPSG(32633)
rng = np.random.default_rng(3)
d = gdal.GetDriverByName('GTiff').Create('small.tif', 300, 200, 3, gdal.GDT_UInt16, ['TILED=YES', 'COMPRESS=DEFLATE'])
d.SetGeoTransform((500000, 10, 0, 4600000, 0, -10)); d.SetProjection(s.ExportToWkt())
for i in range(3):
    a = rng.integers(1, 12000, (200, 300)).astype(np.uint16); a[:20, :30 * (i + 1)] = 0
    b = d.GetRasterBand(i + 1); b.WriteArray(a); b.SetNoDataValue(0); b.SetDescription(['Red', 'NIR', 'SWIR1'][i])
    if i == 2: b.SetScale(0.0001); b.SetOffset(-0.1)
d = None
d = gdal.GetDriverByName('GTiff').Create('large.tif', 5000, 4000, 1, gdal.GDT_Byte, ['TILED=YES', 'COMPRESS=DEFLATE'])
d.SetGeoTransform((500000, 10, 0, 4600000, 0, -10)); d.SetProjection(s.ExportToWkt())
yy, xx = np.mgrid[0:4000, 0:5000]
d.GetRasterBand(1).WriteArray(((xx // 7 + yy // 11) % 251).astype(np.uint8)); d.GetRasterBand(1).SetNoDataValue(250)
d.BuildOverviews('AVERAGE', [2, 4, 8])
d = None
d = gdal.GetDriverByName('GTiff').Create('no_overviews.tif', 4500, 4000, 1, gdal.GDT_UInt16, ['TILED=YES', 'COMPRESS=DEFLATE'])
d.SetGeoTransform((500000, 10, 0, 4600000, 0, -10)); d.SetProjection(s.ExportToWkt())
d.GetRasterBand(1).WriteArray(((xx[:, :4500] * 3 + yy[:, :4500] * 5) % 9001 + (xx[:, :4500] // 700) * 400).astype(np.uint16)); d.GetRasterBand(1).SetNoDataValue(7)
d = None
`);
  const small = path.join(dir, 'small.tif');
  const s = await fileStatistics(small);
  assert.equal(s.exact, true);
  assert.equal(s.table.title, 'Band statistics: all 300×200 pixels, scale and offset applied');
  const ref = numpyStats(small);
  assert.deepEqual(s.table.rows.map((r) => [r[0], r[1]]), [[1, 'Red'], [2, 'NIR'], [3, 'SWIR1']]);
  s.table.rows.forEach((r, i) => close(r, ref[i], `small.tif band ${i + 1}`));
  assert.equal(s.histogram, undefined, 'no histogram for a multi-band raster');

  const large = path.join(dir, 'large.tif');
  const l = await fileStatistics(large);
  assert.equal(l.exact, false);
  assert.equal(l.table.title, 'Band statistics: the 1250×1000 overview (approximate)');
  close(l.table.rows[0], numpyStats(large, 1)[0], 'large.tif from its 1/4 overview');
  assert.equal(l.histogram?.title, 'Band 1 values (from an overview)');
  assert.equal(l.histogram?.counts.length, 64);

  // Without overviews, every n-th block as GDAL's approximate statistics read them: the same
  // minimum, maximum, mean and standard deviation as gdal's ComputeStatistics(approx_ok=True).
  const bare = path.join(dir, 'no_overviews.tif');
  const n = await fileStatistics(bare);
  assert.equal(n.exact, false);
  assert.equal(n.table.title, 'Band statistics: 18 of its 288 blocks (approximate)');
  const gdalApprox = JSON.parse(py(`
from osgeo import gdal
import json
d = gdal.Open(${JSON.stringify(bare)})  # kept referenced: a band outlives its dataset only by crashing
print(json.dumps(d.GetRasterBand(1).ComputeStatistics(True)))`)) as number[];
  const [, , min, max, mean, std] = n.table.rows[0] as number[];
  [min, max, mean, std].forEach((v, i) => assert.ok(Math.abs(v - gdalApprox[i]) <= 1e-3 * Math.max(1, Math.abs(gdalApprox[i])), `sampled blocks column ${i}: ${v} vs GDAL approx ${gdalApprox[i]}`));
  assert.equal(n.histogram?.title, 'Band 1 values (from sampled blocks)');

  // The viewer shows them after raster_info's own tables, in Chinese too.
  const view = await rasterFileView(small);
  assert.equal(view.tables[view.tables.length - 1].title, s.table.title);
  const zh = await rasterFileView(large, 'zh');
  assert.equal(zh.tables[zh.tables.length - 1].title, '波段统计：1250×1000 概览（近似值）');
});
