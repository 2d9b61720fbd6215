// Polygon rasterization where edges pass exactly through pixel centres: which pixel is inside must
// be GDAL's choice (gdal_rasterize, and gdalwarp -cutline which rasterizes the same way), or a clip
// or a zone differs from GDAL's along its outline (the bench's hexagon differed on 250 pixels).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { rasterizePolygon } from '../../src/core/raster/algorithms/zonal';
import type { GeoTransform, Ring } from '../../src/core/raster/algorithms/vectorize';
import { gdalSkip, py, tmpDir } from '../helpers/raster-gdal';

const skip = gdalSkip('rasterization ties against gdal_rasterize', ['gdal_rasterize']);

test('pixel centres on polygon edges are inside or outside as gdal_rasterize decides', { skip }, () => {
  const dir = tmpDir('gw-ties-');
  const W = 40, H = 30;
  const gt: GeoTransform = [1000, 10, 0, 2000, 0, -10];
  // Vertices on pixel centres and pixel corners: vertical edges through centres (x = k + 0.5),
  // sloped edges through a centre every other row, a horizontal edge on a row of centres.
  const px = (c: number, r: number): [number, number] => [gt[0] + c * gt[1], gt[3] + r * gt[5]];
  const polys: Ring[] = [
    [px(2.5, 2.5), px(12.5, 2.5), px(12.5, 12.5), px(2.5, 12.5), px(2.5, 2.5)],
    [px(15, 3), px(35.5, 7.5), px(30.5, 27.5), px(17.5, 20), px(15, 3)],
    [px(3, 15), px(10.5, 15.5), px(6.5, 28.5), px(3, 15)],
  ];
  const ours = new Uint8Array(W * H);
  polys.forEach((ring, k) => rasterizePolygon([ring], gt, W, H, (i) => { ours[i] = k + 1; }));

  const geojson = path.join(dir, 'polys.geojson');
  fs.writeFileSync(geojson, JSON.stringify({
    type: 'FeatureCollection',
    features: polys.map((ring, k) => ({ type: 'Feature', properties: { id: k + 1 }, geometry: { type: 'Polygon', coordinates: [ring] } })),
  }));
  const out = JSON.parse(py(`
from osgeo import gdal
import json
gdal.UseExceptions()
d = gdal.GetDriverByName('MEM').Create('', ${W}, ${H}, 1, gdal.GDT_Byte)
d.SetGeoTransform(${JSON.stringify(gt)})
v = gdal.OpenEx(${JSON.stringify(geojson)})
gdal.Rasterize(d, v, attribute='id')
print(json.dumps(d.GetRasterBand(1).ReadAsArray().ravel().tolist()))
`));
  const differ: string[] = [];
  for (let i = 0; i < W * H; i++) if (ours[i] !== out[i]) differ.push(`(${i % W},${Math.floor(i / W)}) ours ${ours[i]} gdal ${out[i]}`);
  assert.ok(ours.some((v) => v) && out.some((v: number) => v), 'both rasterized something');
  assert.deepEqual(differ, [], `pixels that differ from gdal_rasterize: ${differ.slice(0, 10).join('; ')}`);
});

test('a ring whose edges cross each row thousands of times (a star of 3001 chords) covers the pixels gdal_rasterize covers', { skip }, () => {
  const dir = tmpDir('gw-star-');
  const W = 120, H = 90;
  const gt: GeoTransform = [500000, 10, 0, 4430000, 0, -10];
  // Vertices one radian apart on an ellipse: every edge is a chord, so a row meets most of them,
  // and the fill is even-odd over thousands of crossings (coverage counted, not sorted). A few
  // vertices sit on pixel centres and corners, for the tie rules.
  const ring: Ring = Array.from({ length: 3000 }, (_, i) => [500600 + 550 * Math.cos(i), 4429550 - 420 * Math.sin(i)] as [number, number]);
  ring.splice(100, 0, [500605, 4429555], [500300, 4429500], [500905, 4429205]);
  ring.push(ring[0]);
  const mid = 45.5;
  let crossings = 0;
  for (let k = 0; k + 1 < ring.length; k++) {
    const y0 = (gt[3] - ring[k][1]) / 10, y1 = (gt[3] - ring[k + 1][1]) / 10;
    if ((y0 <= mid && mid < y1) || (y1 <= mid && mid < y0)) crossings++;
  }
  assert.ok(crossings > 500, `row 45 meets ${crossings} edges`);
  const ours = new Uint8Array(W * H);
  rasterizePolygon([ring], gt, W, H, (i) => { ours[i]++; });
  const geojson = path.join(dir, 'star.geojson');
  fs.writeFileSync(geojson, JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [ring] } }] }));
  const out = JSON.parse(py(`
from osgeo import gdal
import json
gdal.UseExceptions()
d = gdal.GetDriverByName('MEM').Create('', ${W}, ${H}, 1, gdal.GDT_Byte)
d.SetGeoTransform(${JSON.stringify(gt)})
gdal.Rasterize(d, gdal.OpenEx(${JSON.stringify(geojson)}), burnValues=[1])
print(json.dumps(d.GetRasterBand(1).ReadAsArray().ravel().tolist()))
`));
  const differ: string[] = [];
  for (let i = 0; i < W * H; i++) if (ours[i] !== out[i]) differ.push(`(${i % W},${Math.floor(i / W)}) ours ${ours[i]} gdal ${out[i]}`);
  const inside = ours.reduce((a, v) => a + v, 0);
  assert.ok(inside > 500 && inside < W * H - 500, `${inside} pixels inside: a pattern, not all or nothing`);
  assert.deepEqual(differ, [], `pixels that differ from gdal_rasterize (each visited once): ${differ.slice(0, 10).join('; ')}`);
});
