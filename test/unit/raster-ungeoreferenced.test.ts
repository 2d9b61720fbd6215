/** Rasters without a geotransform (control points only, as Sentinel-1 GRD; or nothing at all), checked with GDAL:
 *  per-pixel tools run and keep the control points, tools that need map coordinates refuse by name. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import * as fs from 'node:fs';
import { runTool, describeRaster } from '../../src/core/raster/engine';
import { needGdal, py, pyJson, tmpDir } from '../helpers/raster-gdal';

function make(dir: string): { gcp: string; plain: string; zones: string } {
  const gcp = path.join(dir, 'grd.tif'), plain = path.join(dir, 'plain.tif'), zones = path.join(dir, 'zones.geojson');
  py(`
from osgeo import gdal, osr
import numpy as np
yy, xx = np.mgrid[0:300, 0:400]
a = (100 + 50 * np.sin(xx / 23.0) + 30 * np.cos(yy / 17.0)).astype(np.float32)
d = gdal.GetDriverByName('GTiff').Create(${JSON.stringify(gcp)}, 400, 300, 1, gdal.GDT_Float32, ['TILED=YES'])
s = osr.SpatialReference(); s.ImportFromEPSG(4326)
gcps = [gdal.GCP(6.0, 50.2, 0, 0, 0), gdal.GCP(6.5, 50.25, 0, 400, 0), gdal.GCP(5.95, 49.9, 0, 0, 300), gdal.GCP(6.45, 49.95, 0, 400, 300)]
d.SetGCPs(gcps, s.ExportToWkt())
d.GetRasterBand(1).WriteArray(a); d = None
d = gdal.GetDriverByName('GTiff').Create(${JSON.stringify(plain)}, 400, 300, 1, gdal.GDT_Float32)
d.GetRasterBand(1).WriteArray(a); d = None
`);
  fs.writeFileSync(zones, JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: { name: 'a' }, geometry: { type: 'Polygon', coordinates: [[[6.1, 50], [6.2, 50], [6.2, 50.1], [6.1, 50]]] } }] }));
  return { gcp, plain, zones };
}

const GDAL_VIEW = `
import sys, json
from osgeo import gdal
import numpy as np
d = gdal.Open(sys.argv[1]); s = gdal.Open(sys.argv[2])
print(json.dumps({
  "gt": d.GetGeoTransform(can_return_null=True),
  "gcps": [[g.GCPPixel, g.GCPLine, g.GCPX, g.GCPY] for g in d.GetGCPs()],
  "src_gcps": [[g.GCPPixel, g.GCPLine, g.GCPX, g.GCPY] for g in s.GetGCPs()],
  "gcp_wgs84": 'WGS 84' in d.GetGCPProjection(),
  "same_mask": bool(((s.GetRasterBand(1).ReadAsArray() > 120) == (d.GetRasterBand(1).ReadAsArray() == 1)).all()),
}))`;

test('a raster placed by control points: threshold runs and its output keeps the control points and their CRS (GDAL reads them back)', needGdal(), async () => {
  const dir = tmpDir('gw-nogeo-');
  const { gcp } = make(dir);
  const r = await runTool('threshold', { image: gcp, value: 120, op: 'gt' }, { outDir: path.join(dir, 'out') });
  const v = pyJson(GDAL_VIEW, r.outputs.mask.path, gcp);
  assert.equal(v.gt, null, 'no geotransform is invented');
  assert.deepEqual(v.gcps, v.src_gcps);
  assert.equal(v.gcps.length, 4);
  assert.ok(v.gcp_wgs84);
  assert.ok(v.same_mask, 'values as numpy has them');
  assert.doesNotMatch(r.summary, /\bha\b|km²/, 'no area from a stand-in pixel size');
  const info = await runTool('raster_info', { image: gcp }, { outDir: path.join(dir, 'out') });
  assert.match(info.summary, /placed by 4 ground control points \(no map grid/);
  assert.equal(info.stats.geoTransform, null);
  const item = await describeRaster(gcp);
  assert.equal(item.extent, undefined, 'no extent at 0°N 0°E');
  assert.equal(item.lonLat, undefined);
});

test('tools that need map coordinates refuse a raster without a geotransform, naming the file and the gdalwarp / gdal_edit.py fix', needGdal(), async () => {
  const dir = tmpDir('gw-nogeo-');
  const { gcp, plain, zones } = make(dir);
  const o = { outDir: path.join(dir, 'out') };
  const placed = /grd\.tif is placed by 4 ground control points, not on a map grid \(as Sentinel-1 GRD and other level-1 products are\), and .* needs map coordinates; warp it onto a grid first: gdalwarp -t_srs EPSG:<code>/;
  await assert.rejects(runTool('slope', { dem: gcp }, o), placed);
  await assert.rejects(runTool('clip_bbox', { image: gcp, bbox: '6.1,50,6.2,50.1', bbox_crs: 'lonlat' }, o), placed);
  await assert.rejects(runTool('zonal_stats', { image: gcp, zones }, o), placed);
  await assert.rejects(runTool('reproject', { image: gcp, dst_crs: 'EPSG:32632' }, o), placed);
  await assert.rejects(runTool('resample', { image: gcp, factor: 2 }, o), placed);
  await assert.rejects(runTool('reclassify', { image: gcp, breaks: '100,150' }, o), placed);
  await assert.rejects(runTool('distance_to', { image: gcp }, o), placed);
  await assert.rejects(runTool('hillshade', { dem: plain }, o), /plain\.tif has no georeferencing \(no geotransform or control points\), and .* needs map coordinates; set them first: gdal_edit\.py -a_srs EPSG:<code> -a_ullr/);
  // Per-pixel work on a raster with no georeferencing at all writes none.
  const r = await runTool('band_math', { image: plain, expression: 'b1 * 2' }, o);
  assert.equal(pyJson(GDAL_VIEW, r.outputs.result.path, plain).gt, null);
  assert.deepEqual(fs.readdirSync(o.outDir).filter((f) => /\.tmp/.test(f)), []);
});
