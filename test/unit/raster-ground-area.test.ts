/** Areas on the ground, not on the map: Web Mercator rows against the exact ellipsoidal area of
 *  their lon/lat rectangles (edges placed by gdaltransform), a US-feet State Plane grid in m², and
 *  UTM / equal-area grids keeping their map area. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { runTool } from '../../src/core/raster/engine';
import { gdalSkip, pyJson, tmpDir } from '../helpers/raster-gdal';

const skip = gdalSkip('ground areas against an ellipsoid formula and GDAL', ['gdaltransform']);

/** A uint8 class raster (all class 1, a block of class 2) on `srs`, its grid placed from a lon/lat corner by GDAL. */
const MAKE = `
import sys, json, numpy as np
from osgeo import gdal, osr
name, srs, lon, lat, px, w, h = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7])
s = osr.SpatialReference(); s.SetFromUserInput(srs); s.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
ll = osr.SpatialReference(); ll.ImportFromEPSG(4326); ll.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
x0, y0, _ = osr.CoordinateTransformation(ll, s).TransformPoint(lon, lat)
d = gdal.GetDriverByName('GTiff').Create(name, w, h, 1, gdal.GDT_Byte)
d.SetGeoTransform((x0, px, 0, y0, 0, -px)); d.SetProjection(s.ExportToWkt())
a = np.ones((h, w), np.uint8); a[: h // 3, : w // 2] = 2
d.GetRasterBand(1).WriteArray(a); d = None
# The raster's edges in lon/lat (Mercator rows are lon/lat rectangles), and its exact area on the WGS84 ellipsoid.
back = osr.CoordinateTransformation(s, ll)
(lon0, lat0, _), (lon1, lat1, _) = back.TransformPoint(x0, y0), back.TransformPoint(x0 + w * px, y0 - h * px)
a_, f = 6378137.0, 1 / 298.257223563
e2 = f * (2 - f); e = e2 ** 0.5; b2 = a_ * a_ * (1 - e2)
def q(phi):
    s_ = np.sin(np.radians(phi)); return s_ / (1 - e2 * s_ * s_) + np.log((1 + e * s_) / (1 - e * s_)) / (2 * e)
area = abs(np.radians(lon1 - lon0)) * b2 / 2 * abs(q(lat0) - q(lat1))
print(json.dumps({"ellipsoid_m2": float(area), "pixels": w * h}))
`;

async function total(dir: string, file: string): Promise<{ m2: number; pixelArea: string }> {
  const r = await runTool('area_by_class', { image: file }, { outDir: path.join(dir, 'out', path.basename(file)), cwd: dir });
  const m2 = r.stats.total_m2 as number;
  return { m2, pixelArea: String(r.stats.pixel_area) };
}

test('Web Mercator areas are ground areas: the sum over rows equals the ellipsoidal area of the lon/lat rectangle, not the 1.7× larger map area', { skip }, async () => {
  const dir = tmpDir('gw-area-');
  const f = path.join(dir, 'merc.tif');
  const ref = pyJson(MAKE, f, 'EPSG:3857', '116.9', '40.2', '30', '900', '1800');
  const { m2, pixelArea } = await total(dir, f);
  const mapArea = ref.pixels * 900;
  assert.ok(Math.abs(m2 / ref.ellipsoid_m2 - 1) < 5e-4, `ground ${m2} vs ellipsoid ${ref.ellipsoid_m2}`);
  assert.ok(mapArea / m2 > 1.65, 'the map area is much larger at 40°N');
  assert.match(pixelArea, /m² on the ground, per row \(the map area of a pixel is 900 CRS units²\)/);
});

test('a US-feet State Plane grid (an EPSG code outside GeoWeave\'s table) gives areas in m², not ft²; UTM and equal-area grids keep their map area', { skip }, async () => {
  const dir = tmpDir('gw-area-');
  const ft = path.join(dir, 'ny_ft.tif');
  const r = pyJson(MAKE, ft, 'EPSG:2263', '-73.9', '40.8', '100', '200', '150');
  const usFoot = 1200 / 3937;
  const { m2 } = await total(dir, ft);
  assert.ok(Math.abs(m2 / (r.pixels * (100 * usFoot) ** 2) - 1) < 1e-9, `${m2} m² for ${r.pixels} pixels of 100 US ft`);
  for (const [srs, lon, lat] of [['EPSG:32650', '117', '40'], ['EPSG:3035', '10', '50']]) {
    const f = path.join(dir, `${srs.replace(':', '')}.tif`);
    const q = pyJson(MAKE, f, srs, lon, lat, '30', '300', '200');
    const t = await total(dir, f);
    assert.equal(t.m2, q.pixels * 900, `${srs}: map area kept`);
    assert.equal(t.pixelArea, '900 m² (projected)');
  }
});

test('a CRS the GeoKeys cannot express (Mollweide) is read from the ESRI PE string GDAL leaves in the citation, placing points as gdaltransform does', { skip }, async () => {
  const dir = tmpDir('gw-area-');
  const f = path.join(dir, 'moll.tif');
  pyJson(MAKE, f, 'ESRI:54009', '117', '40', '1000', '40', '30');
  const { openRaster } = await import('../../src/core/raster/io/dataset');
  const { crsOfGeo, transformer, LONLAT } = await import('../../src/core/raster/crs/crs');
  const ds = await openRaster(f);
  try {
    const crs = crsOfGeo(ds.geo, f)!;
    assert.match(crs.label, /World_Mollweide.*no EPSG code/);
    const t = transformer(LONLAT, crs);
    const { execFileSync } = await import('node:child_process');
    const pts: [number, number][] = [[117, 40], [-60.5, -33.2], [10, 70]];
    const ref = execFileSync('gdaltransform', ['-s_srs', 'EPSG:4326', '-t_srs', 'ESRI:54009', '-output_xy'], { input: pts.map((p) => p.join(' ')).join('\n') + '\n', encoding: 'utf8' })
      .trim().split('\n').map((l) => l.trim().split(/\s+/).map(Number));
    pts.forEach((p, i) => {
      const [x, y] = t.forward(p[0], p[1]);
      assert.ok(Math.hypot(x - ref[i][0], y - ref[i][1]) < 0.01, `${p}: ${x},${y} vs ${ref[i]}`);
    });
  } finally { await ds.close(); }
  // Mollweide keeps areas: the map area stays.
  const t = await total(dir, f);
  assert.equal(t.pixelArea, '1000000 m² (projected)');
});

test('distance_to on Web Mercator measures ground metres: from the top row to the bottom row as the meridian arc between their latitudes, not the map distance', { skip }, async () => {
  const dir = tmpDir('gw-area-');
  const f = path.join(dir, 'target.tif');
  const script = MAKE.replace('a = np.ones((h, w), np.uint8); a[: h // 3, : w // 2] = 2', 'a = np.zeros((h, w), np.uint8); a[0, :] = 1')
    .replace('print(json.dumps({"ellipsoid_m2": float(area), "pixels": w * h}))', '');
  const ref = pyJson(script + `
# Meridian arc between the centres of the first and last rows (Web Mercator rows: latitude from y on the sphere of radius a).
R = 6378137.0
lat_of = lambda y: np.degrees(2 * np.arctan(np.exp(y / R)) - np.pi / 2)
top, bottom = lat_of(y0 - 0.5 * px), lat_of(y0 - (h - 0.5) * px)
phis = np.radians(np.linspace(bottom, top, 20001))
m = a_ * (1 - e2) / (1 - e2 * np.sin(phis) ** 2) ** 1.5
arc = float(np.trapz(m, phis))
print(json.dumps({"arc": arc, "map": (h - 1) * px}))
`, f, 'EPSG:3857', '116.9', '40.2', '30', '60', '1200');
  const r = await runTool('distance_to', { image: f }, { outDir: path.join(dir, 'out'), cwd: dir });
  const max = r.stats.max_m as number;
  assert.ok(Math.abs(max / ref.arc - 1) < 0.01, `max distance ${max} m vs meridian arc ${ref.arc} m`);
  assert.ok(ref.map / max > 1.25, 'the map distance is about 1/cos(40°) longer');
});
