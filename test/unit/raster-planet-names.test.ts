/**
 * Planet products whose bands carry no descriptions, as delivered (`…_3B_AnalyticMS_SR_8b_clip.tif`,
 * `…_3B_AnalyticMS_SR_harmonized.tif`): the scan gives their bands the roles Planet's layout puts
 * there, readiness prefills red 6 and NIR 8 for the SuperDove stack, and NDVI run without any band
 * argument equals numpy over those bands. An 8-band stack under another name (WorldView orders its
 * bands otherwise) gets no roles.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeRaster, runTool } from '../../src/core/raster/engine';
import { executability } from '../../src/core/retrieval/executability';
import type { ToolManifest } from '../../src/core/manifests/types';
import { planetLayout } from '../../src/core/raster/planet-names';
import { needGdal, py, tmpDir } from '../helpers/raster-gdal';

const skip = needGdal();
const SD = '20240601_101010_24_2474_3B_AnalyticMS_SR_8b_clip.tif';
const PS = '20240601_101010_24_2474_3B_AnalyticMS_SR_harmonized.tif';

test('Planet names: SuperDove and PlanetScope stacks get their layout, NDVI from bands 6 and 8 equals numpy', { ...skip, timeout: 120_000 }, async () => {
  const dir = tmpDir('gw-planet-');
  py(String.raw`
import os
from osgeo import gdal, osr
import numpy as np
os.chdir(${JSON.stringify(dir)})
s = osr.SpatialReference(); s.ImportFromEPSG(32633)
rng = np.random.default_rng(5)
for name, n in [(${JSON.stringify(SD)}, 8), (${JSON.stringify(PS)}, 4), ('worldview_8band.tif', 8)]:
    d = gdal.GetDriverByName('GTiff').Create(name, 120, 90, n, gdal.GDT_UInt16)
    d.SetGeoTransform((400000, 3, 0, 5000000, 0, -3)); d.SetProjection(s.ExportToWkt())
    for b in range(n):
        d.GetRasterBand(b + 1).WriteArray(rng.integers(200 + 300 * b, 900 + 400 * b, (90, 120)).astype(np.uint16))
    d = None
`);
  const sd = await describeRaster(SD, dir);
  assert.deepEqual(sd.bands?.map((b) => b.role ?? null), ['coastal', 'blue', null, 'green', null, 'red', 'rededge', 'nir']);
  assert.equal(sd.guess, undefined, 'the layout is the product\'s, not a guess');
  const ps = await describeRaster(PS, dir);
  assert.deepEqual(ps.bands?.map((b) => b.role ?? null), ['blue', 'green', 'red', 'nir']);
  const wv = await describeRaster('worldview_8band.tif', dir);
  assert.ok(wv.bands?.every((b) => !b.role), 'an 8-band stack under another name gets no roles');

  const ndviManifest = JSON.parse(fs.readFileSync(path.join(__dirname, '../../../tool-manifests/ndvi.json'), 'utf8')) as ToolManifest;
  const r = executability(ndviManifest, { items: [sd] }, { task: `NDVI of ${SD}` });
  assert.equal(r.ready, true, r.notes.join(' | '));
  assert.deepEqual(r.args, { image: SD, red: 6, nir: 8 });

  // Run without band arguments: the engine reads the layout from the name too.
  const run = await runTool('ndvi', { image: SD }, { outDir: path.join(dir, 'out'), cwd: dir });
  const diff = Number(py(`
from osgeo import gdal
import numpy as np
d = gdal.Open(${JSON.stringify(path.join(dir, SD))}); r = d.GetRasterBand(6).ReadAsArray().astype('f8'); n = d.GetRasterBand(8).ReadAsArray().astype('f8')
o = gdal.Open(${JSON.stringify(run.outputs.index.path)}); v = o.GetRasterBand(1).ReadAsArray().astype('f8')
print(float(np.nanmax(np.abs(v - (n - r) / (n + r)))))`).trim());
  assert.ok(diff < 1e-6, `NDVI differs from numpy by ${diff}`);
});

test('Planet layouts by name and band count only', () => {
  assert.equal(planetLayout('x/20230101_3B_AnalyticMS_SR_8b_harmonized_clip.tif', 8)?.bands.nir, 8);
  assert.equal(planetLayout('20230101_3B_AnalyticMS.tif', 4)?.bands.red, 3);
  assert.equal(planetLayout('20230101_3A_Analytic.tif', 5)?.bands.rededge, 4);
  assert.equal(planetLayout('20230101_3B_Visual.tif', 3)?.bands.blue, 3);
  assert.equal(planetLayout('20230101_3B_AnalyticMS_SR_8b.tif', 4), undefined, 'a count that is not the layout\'s');
  assert.equal(planetLayout('analysis_results.tif', 4), undefined);
});
