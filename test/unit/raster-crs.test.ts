/** Coordinate systems and vector zones, checked against GDAL: proj4 transforms against gdaltransform,
 *  CRSs without an EPSG code through gdalinfo, zones in other CRSs and formats against gdal_rasterize + numpy. */
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';
import { runTool } from '../../src/core/raster/engine';
import { openRaster } from '../../src/core/raster/io/dataset';
import { LONLAT, crsOfGeo, parseCrs, transformer } from '../../src/core/raster/crs/crs';
import { readVectorLayer } from '../../src/core/raster/vector/read';
import { gdalSkip, pyJson, PY, PY_READ_BAND, tmpDir, gdalinfoJson } from '../helpers/raster-gdal';

const skip = gdalSkip('CRS and vector comparisons with GDAL', ['gdaltransform', 'gdal_rasterize', 'ogr2ogr', 'gdalsrsinfo']);
let dir = '';

function sh(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', cwd: dir });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

/** gdaltransform of lon/lat points into `srs` (traditional x/y order). */
function gdaltransform(srs: string, pts: [number, number][], from = 'EPSG:4326'): [number, number][] {
  const out = execFileSync('gdaltransform', ['-s_srs', from, '-t_srs', srs, '-output_xy'], { input: pts.map((p) => p.join(' ')).join('\n') + '\n', encoding: 'utf8' });
  return out.trim().split('\n').map((l) => l.trim().split(/\s+/).map(Number) as [number, number]);
}

const ZONES = [
  // Luxembourg's north, three communes as boxes in lon/lat; Wiltz has a hole.
  { name: 'Clervaux', zid: 467, ring: [[6.00, 50.020], [6.06, 50.020], [6.06, 50.052], [6.00, 50.052], [6.00, 50.020]], hole: null },
  { name: 'Wiltz', zid: 12, ring: [[5.93, 49.985], [6.005, 49.985], [6.005, 50.018], [5.93, 50.018], [5.93, 49.985]], hole: [[5.95, 49.995], [5.97, 49.995], [5.97, 50.005], [5.95, 50.005], [5.95, 49.995]] },
  { name: 'Vianden', zid: 3, ring: [[6.07, 49.94], [6.12, 49.94], [6.09, 49.99], [6.07, 49.94]], hole: null },
];

before(() => {
  if (skip) return;
  dir = tmpDir('gw-crs-');
  // A float raster in UTM 32N over the three zones, with a nodata patch; a custom-LAEA and a custom-TM raster (no EPSG code).
  pyJson(`
import sys, os, json, numpy as np
from osgeo import gdal, osr
os.chdir(sys.argv[1])
np.random.seed(7)
def make(name, srs, gt, w, h, nodata=None):
    d = gdal.GetDriverByName('GTiff').Create(name, w, h, 1, gdal.GDT_Float32, ['TILED=YES', 'BLOCKXSIZE=128', 'BLOCKYSIZE=128'])
    s = osr.SpatialReference(); s.SetFromUserInput(srs); d.SetProjection(s.ExportToWkt()); d.SetGeoTransform(gt)
    yy, xx = np.mgrid[0:h, 0:w]
    a = (100 + 40 * np.sin(xx / 37.0) + 30 * np.cos(yy / 23.0) + np.random.rand(h, w) * 5).astype(np.float32)
    b = d.GetRasterBand(1)
    if nodata is not None:
        a[50:60, 100:130] = nodata; b.SetNoDataValue(nodata)
    b.WriteArray(a); d = None
make('vals_utm.tif', 'EPSG:32632', [281000, 30, 0, 5550000, 0, -30], 420, 480, -9999)
make('laea.tif', '+proj=laea +lat_0=49.8 +lon_0=6.1 +x_0=100000 +y_0=200000 +ellps=GRS80 +units=m +no_defs', [90000, 50, 0, 215000, 0, -50], 80, 60)
make('tm.tif', '+proj=tmerc +lat_0=49.8333333333333 +lon_0=6.16666666666667 +k=1 +x_0=80000 +y_0=100000 +ellps=intl +towgs84=-189.681,18.3463,-42.7695,-0.33746,-3.09264,2.53861,0.4598 +units=m +no_defs', [60000, 25, 0, 120000, 0, -25], 64, 64)
print(json.dumps(1))
`, dir);
  const feats = ZONES.map((z) => ({ type: 'Feature', properties: { name: z.name, zid: z.zid }, geometry: { type: 'Polygon', coordinates: z.hole ? [z.ring, z.hole] : [z.ring] } }));
  fs.writeFileSync(path.join(dir, 'communes.geojson'), JSON.stringify({ type: 'FeatureCollection', features: feats }));
  sh('ogr2ogr', ['-f', 'ESRI Shapefile', '-t_srs', 'EPSG:3035', 'communes_3035.shp', 'communes.geojson']);
  sh('ogr2ogr', ['-f', 'GPKG', '-nln', 'communes', 'communes.gpkg', 'communes.geojson']);
  sh('ogr2ogr', ['-f', 'GPKG', '-t_srs', 'EPSG:2154', '-nln', 'communes_l93', 'communes_l93.gpkg', 'communes.geojson']);
  // KML as GDAL writes it, the same zipped as Google Earth saves a KMZ, and KML as Google Earth writes
  // it: styles, a folder, a MultiGeometry, ExtendedData <Data> for the attribute.
  sh('ogr2ogr', ['-f', 'KML', '-nln', 'communes', 'communes.kml', 'communes.geojson']);
  pyJson(`
import sys, zipfile, json
z = zipfile.ZipFile(sys.argv[1] + '/communes.kmz', 'w', zipfile.ZIP_DEFLATED)
z.write(sys.argv[1] + '/communes.kml', 'doc.kml'); z.writestr('files/pin.png', b'\\x89PNG'); z.close()
print(json.dumps(1))`, dir);
  const coords = (ring: number[][]) => ring.map(([x, y]) => `${x},${y},0`).join(' ');
  const placemark = (z: (typeof ZONES)[number]) => `<Placemark><name>${z.name}</name><styleUrl>#zone</styleUrl>
  <ExtendedData><Data name="zid"><value>${z.zid}</value></Data></ExtendedData>
  <MultiGeometry><Polygon><outerBoundaryIs><LinearRing><coordinates>${coords(z.ring)}</coordinates></LinearRing></outerBoundaryIs>${z.hole ? `<innerBoundaryIs><LinearRing><coordinates>${coords(z.hole)}</coordinates></LinearRing></innerBoundaryIs>` : ''}</Polygon></MultiGeometry></Placemark>`;
  fs.writeFileSync(path.join(dir, 'earth.kml'), `<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2"><Document><name>communes</name>
<Style id="zone"><LineStyle><color>ff0000ff</color><width>2</width></LineStyle><PolyStyle><fill>0</fill></PolyStyle></Style>
<Folder><name>north</name>${ZONES.map(placemark).join('\n')}</Folder></Document></kml>`);
});

test('proj4 transforms equal gdaltransform to the millimetre for the EPSG codes GeoWeave knows', { skip }, () => {
  const cases: [string, [number, number][]][] = [
    ['EPSG:32632', [[6.1, 49.8], [9, 0.5], [11.9, 70]]],
    ['EPSG:32733', [[14, -8], [16.5, -30]]],
    ['EPSG:3857', [[6.1, 49.8], [-120, -45], [179, 80]]],
    ['EPSG:3395', [[6.1, 49.8], [-70, -33]]],
    ['EPSG:3035', [[6.1, 49.8], [-8, 38], [25, 65]]],
    ['EPSG:3034', [[6.1, 49.8], [20, 40]]],
    ['EPSG:5070', [[-96, 40], [-120, 35], [-75, 44]]],
    ['EPSG:3577', [[132, -25], [150, -35]]],
    ['EPSG:2154', [[2.35, 48.85], [5.4, 43.3]]],
    ['EPSG:2169', [[6.03, 50.05], [6.13, 49.61]]],
    ['EPSG:25832', [[9, 52], [11, 48]]],
    ['EPSG:26915', [[-93, 45], [-95, 30]]],
    ['EPSG:3031', [[0, -80], [120, -70]]],
    ['EPSG:3413', [[-45, 75], [10, 80]]],
    ['EPSG:6933', [[6.1, 49.8], [-60, -10]]],
    ['EPSG:8857', [[6.1, 49.8], [140, -30]]],
    ['EPSG:4087', [[6.1, 49.8]]],
  ];
  let worst = 0;
  for (const [code, pts] of cases) {
    const t = transformer(LONLAT, parseCrs(code, 'test'));
    const ref = gdaltransform(code, pts);
    pts.forEach(([lon, lat], i) => {
      const [x, y] = t.forward(lon, lat);
      const d = Math.hypot(x - ref[i][0], y - ref[i][1]);
      worst = Math.max(worst, d);
      assert.ok(d < 0.005, `${code} ${lon},${lat}: ${x},${y} vs gdaltransform ${ref[i]} (${d} m)`);
      const back = t.inverse(x, y);
      assert.ok(Math.abs(back[0] - lon) < 1e-7 && Math.abs(back[1] - lat) < 1e-7, `${code} inverse`);
    });
  }
  assert.ok(worst < 0.005);
});

test('a CRS without an EPSG code: GeoTIFF keys → proj4 equal gdaltransform on the file\'s WKT, and a tool output keeps the same WKT in gdalinfo', { skip }, async () => {
  for (const file of ['laea.tif', 'tm.tif']) {
    const ds = await openRaster(path.join(dir, file));
    let crs;
    try { crs = crsOfGeo(ds.geo, ds.source)!; } finally { await ds.close(); }
    assert.equal(crs.epsg, undefined);
    assert.match(crs.label, /no EPSG code/);
    const wkt = sh('gdalsrsinfo', ['-o', 'wkt1', path.join(dir, file)]).trim();
    const pts: [number, number][] = [[6.03, 50.05], [6.2, 49.7], [5.9, 49.9]];
    const ref = gdaltransform(wkt, pts);
    const t = transformer(LONLAT, crs);
    pts.forEach((p, i) => {
      const q = t.forward(p[0], p[1]);
      assert.ok(Math.hypot(q[0] - ref[i][0], q[1] - ref[i][1]) < 0.005, `${file} ${p}: ${q} vs ${ref[i]}`);
    });
    // clip_bbox (a copy of a window) and threshold (a new float/uint8 raster) both keep the CRS as it was.
    const info = gdalinfoJson(path.join(dir, file));
    const g = info.geoTransform as number[];
    const clip = await runTool('clip_bbox', { image: file, bbox: [g[0] + g[1] * 5, g[3] + g[5] * 40, g[0] + g[1] * 30, g[3] + g[5] * 10] }, { outDir: path.join(dir, 'out-keep'), cwd: dir });
    const thr = await runTool('threshold', { image: file, op: 'gt', value: 110 }, { outDir: path.join(dir, 'out-keep'), cwd: dir });
    for (const o of [clip.outputs.clipped.path, thr.outputs.mask.path]) {
      const oi = gdalinfoJson(o);
      assert.equal(oi.coordinateSystem.wkt, info.coordinateSystem.wkt, `${o} keeps the WKT of ${file}`);
    }
  }
});

const RASTERIZE = PY_READ_BAND + `
v, nd = read(sys.argv[1]); ids, _ = read(sys.argv[2])
v = v.astype(np.float64); ok = v != nd
res = {}
for k in np.unique(ids[ids > 0]):
    m = ids == k; o = m & ok
    res[str(int(k))] = {"pixels": int(m.sum()), "count": int(o.sum()), "mean": float(v[o].mean()), "std": float(v[o].std()), "min": float(v[o].min()), "max": float(v[o].max())}
print(json.dumps(res))
`;

/** gdal_rasterize of attribute zid from `zones` onto a zero copy of the values raster's grid (GDAL reprojects the shapes). */
function referenceIds(zones: string, name: string): string {
  const ids = path.join(dir, `${name}_ids.tif`);
  sh('gdal_create', ['-if', 'vals_utm.tif', '-ot', 'Int32', '-burn', '0', '-bands', '1', ids]);
  sh('gdal_rasterize', ['-q', '-a', 'zid', ...(zones.includes('.gpkg') ? ['-l', name] : []), zones, ids]);
  return ids;
}

const CUT_STATS = PY_READ_BAND + `
v, nd = read(sys.argv[1])
v = v.astype(np.float64)[v != nd]
print(json.dumps({"count": int(v.size), "mean": float(v.mean()), "std": float(v.std()), "min": float(v.min()), "max": float(v.max())}))
`;

test('zonal_stats: lon/lat GeoJSON, a LAEA Shapefile, lon/lat or Lambert-93 GeoPackages and KML/KMZ over a UTM raster equal gdalwarp -cutline + numpy per zone; zones go by their names', { skip }, async () => {
  const cases: [string, string, string][] = [
    ['communes.geojson', 'communes', 'GeoJSON EPSG:4326'],
    ['communes_3035.shp', 'communes_3035', 'Shapefile EPSG:3035'],
    ['communes.gpkg', 'communes', 'GeoPackage EPSG:4326'],
    ['communes_l93.gpkg', 'communes_l93', 'GeoPackage EPSG:2154'],
    ['communes.kml', 'communes', 'KML written by GDAL'],
    ['communes.kmz', 'communes', 'KMZ'],
    ['earth.kml', 'earth', 'KML written as Google Earth does'],
  ];
  for (const [zones, layer, what] of cases) {
    // KML is cut by GDAL from the GeoJSON it was made from (the same lon/lat rings).
    const [refZones, refLayer] = /\.km[lz]$/.test(zones) ? ['communes.geojson', 'communes'] : [zones, layer];
    const r = await runTool('zonal_stats', { image: 'vals_utm.tif', zones }, { outDir: path.join(dir, 'out-zonal', layer), cwd: dir });
    const rows = r.stats.table as any[];
    assert.equal(rows.length, 3, what);
    for (const row of rows) {
      // The zone cut out by gdalwarp on the raster's own grid (it densifies the outline as it reprojects it), then numpy.
      const cut = path.join(dir, `zone_${refLayer}_${row.zid}.tif`);
      sh('gdalwarp', ['-q', '-overwrite', '-cutline', refZones, '-cl', refLayer, '-cwhere', `zid=${row.zid}`, '-dstnodata', '-9999', 'vals_utm.tif', cut]);
      const q = pyJson(CUT_STATS, cut);
      assert.equal(row.count, q.count, `${what} ${row.name}: valid pixels`);
      for (const k of ['mean', 'min', 'max']) assert.ok(Math.abs(row[k] - q[k]) < 1e-4, `${what} ${row.name} ${k}: ${row[k]} vs ${q[k]}`);
      assert.ok(Math.abs(row.std - q.std) < 1e-3, `${what} ${row.name} std`);
    }
    assert.equal(r.stats.name_attribute, 'name');
    assert.match(r.summary, /in (Clervaux|Wiltz|Vianden) to [\d.]+ in (Clervaux|Wiltz|Vianden)/, r.summary);
    assert.doesNotMatch(r.summary, /in zone \d/);
    assert.match(r.summary, /reprojected to the raster's EPSG:32632/);
  }
  // The Shapefile's attributes, CRS and holes are read as GDAL has them.
  const shp = readVectorLayer(path.join(dir, 'communes_3035.shp'));
  assert.match(shp.crs!.def, /LAEA|Lambert_Azimuthal/i);
  assert.deepEqual(shp.features.map((f) => f.props.name), ['Clervaux', 'Wiltz', 'Vianden']);
  assert.equal(shp.features[1].polygons[0].length, 2);
});

test('zonal_stats: zones from a Shapefile and a GeoPackage in the raster\'s CRS equal gdal_rasterize + numpy pixel for pixel', { skip }, async () => {
  sh('ogr2ogr', ['-f', 'ESRI Shapefile', '-t_srs', 'EPSG:32632', 'communes_utm.shp', 'communes.geojson']);
  sh('ogr2ogr', ['-f', 'GPKG', '-t_srs', 'EPSG:32632', '-nln', 'communes_utm', 'communes_utm.gpkg', 'communes.geojson']);
  for (const [zones, layer] of [['communes_utm.shp', 'communes_utm'], ['communes_utm.gpkg', 'communes_utm']]) {
    const ref = pyJson(RASTERIZE, path.join(dir, 'vals_utm.tif'), referenceIds(zones, layer));
    const r = await runTool('zonal_stats', { image: 'vals_utm.tif', zones }, { outDir: path.join(dir, 'out-zonal-utm', zones), cwd: dir });
    for (const row of r.stats.table as any[]) {
      const q = ref[String(row.zid)];
      assert.equal(row.count + row.nodata_pixels, q.pixels, `${zones} ${row.name}: pixels`);
      assert.equal(row.count, q.count, `${zones} ${row.name}: valid pixels`);
      for (const k of ['mean', 'min', 'max']) assert.ok(Math.abs(row[k] - q[k]) < 1e-4, `${zones} ${row.name} ${k}`);
    }
    assert.equal(r.stats.crs_note, undefined, 'no reprojection needed');
  }
});

test('vector zones that cannot be used are refused naming the file and what to do', { skip }, async () => {
  fs.writeFileSync(path.join(dir, 'utm_no_crs.geojson'), JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [[[282000, 5540000], [283000, 5540000], [283000, 5541000], [282000, 5540000]]] } }] }));
  await assert.rejects(runTool('zonal_stats', { image: 'vals_utm.tif', zones: 'utm_no_crs.geojson' }, { outDir: path.join(dir, 'o'), cwd: dir }),
    /argument "zones": .*utm_no_crs\.geojson: has no crs member, so it is lon\/lat \(RFC 7946\).*ogr2ogr -t_srs EPSG:4326/);
  sh('ogr2ogr', ['-f', 'ESRI Shapefile', 'points.shp', 'communes.geojson', '-dialect', 'sqlite', '-sql', 'SELECT ST_Centroid(geometry) AS geometry, name FROM communes']);
  await assert.rejects(runTool('zonal_stats', { image: 'vals_utm.tif', zones: 'points.shp' }, { outDir: path.join(dir, 'o'), cwd: dir }),
    /argument "zones": feature 1 in .*points\.shp is a Point; zones and clip shapes must be polygons/);
  await assert.rejects(runTool('zonal_stats', { image: 'vals_utm.tif', zones: 'missing.shp' }, { outDir: path.join(dir, 'o'), cwd: dir }),
    /argument "zones": .*missing\.shp: file not found/);
});

test('raster CRSs GeoWeave cannot use are refused with the reason', { skip }, () => {
  assert.throws(() => parseCrs('EPSG:99999', 'reproject: argument "dst_crs"'), /reproject: argument "dst_crs" EPSG:99999 is not among the codes GeoWeave knows.*proj4 string or WKT/);
  assert.throws(() => parseCrs('lambert please', 'argument "dst_crs"'), /is not a CRS; give an EPSG code/);
  assert.equal(parseCrs('OGC:CRS84', 'x').epsg, 4326);
  assert.equal(parseCrs('urn:ogc:def:crs:EPSG::32632', 'x').epsg, 32632);
  assert.ok(PY);
});

const SAME = `
import sys, json, numpy as np
from osgeo import gdal
a = gdal.Open(sys.argv[1]); b = gdal.Open(sys.argv[2])
A = a.GetRasterBand(1).ReadAsArray().astype(np.float64); B = b.GetRasterBand(1).ReadAsArray().astype(np.float64)
same_grid = A.shape == B.shape and np.allclose(a.GetGeoTransform(), b.GetGeoTransform(), rtol=0, atol=1e-6)
ma = A == a.GetRasterBand(1).GetNoDataValue(); mb = B == b.GetRasterBand(1).GetNoDataValue()
print(json.dumps({"grid": bool(same_grid), "shape": [list(A.shape), list(B.shape)], "gt": [a.GetGeoTransform(), b.GetGeoTransform()],
  "mask": int((ma != mb).sum()) if same_grid else -1, "diff": float(np.abs(A - B)[~ma & ~mb].max()) if same_grid and (~ma & ~mb).any() else 0.0, "inside": int((~mb).sum())}))
`;

test('clip_to_vector with lon/lat GeoJSON, a LAEA Shapefile, a Lambert-93 GeoPackage or a KMZ over a UTM raster equals gdalwarp -cutline -crop_to_cutline', { skip }, async () => {
  for (const cutline of ['communes.geojson', 'communes_3035.shp', 'communes_l93.gpkg', 'communes.kmz']) {
    const r = await runTool('clip_to_vector', { image: 'vals_utm.tif', cutline }, { outDir: path.join(dir, 'out-clip', cutline), cwd: dir });
    const ref = path.join(dir, `cut_${cutline.replace(/\W/g, '_')}.tif`);
    sh('gdalwarp', ['-q', '-overwrite', '-cutline', cutline.endsWith('.kmz') ? 'communes.geojson' : cutline, '-crop_to_cutline', 'vals_utm.tif', ref]);
    const c = pyJson(SAME, r.outputs.clipped.path, ref);
    assert.ok(c.grid, `${cutline}: same extent and grid as gdalwarp (${JSON.stringify(c.shape)} ${JSON.stringify(c.gt)})`);
    assert.equal(c.mask, 0, `${cutline}: the same pixels inside the polygons`);
    assert.equal(c.diff, 0, `${cutline}: values copied`);
    assert.match(r.summary, /Clipped .* to 3 polygon features/);
  }
});

test('clip_bbox in lon/lat over a raster whose CRS has no EPSG code covers the box as gdaltransform places it', { skip }, async () => {
  const box = [5.975, 49.912, 6.0, 49.925];
  const r = await runTool('clip_bbox', { image: 'laea.tif', bbox: box, bbox_crs: 'lonlat' }, { outDir: path.join(dir, 'out-llclip'), cwd: dir });
  const wkt = sh('gdalsrsinfo', ['-o', 'wkt1', path.join(dir, 'laea.tif')]).trim();
  const corners = gdaltransform(wkt, [[box[0], box[1]], [box[2], box[1]], [box[2], box[3]], [box[0], box[3]]]);
  const g = r.stats.geoTransform as number[], w = (r.stats.window as any).width, h = (r.stats.window as any).height;
  for (const [x, y] of corners) {
    assert.ok(x >= g[0] - 1e-6 && x <= g[0] + w * g[1] + 1e-6 && y <= g[3] + 1e-6 && y >= g[3] + h * g[5] - 1e-6, `corner ${x},${y} inside the clip`);
  }
  // One pixel less on any side would lose a corner: the window is the smallest that holds them.
  const xs = corners.map((c) => c[0]), ys = corners.map((c) => c[1]);
  assert.ok(Math.min(...xs) < g[0] + g[1] && Math.max(...xs) > g[0] + (w - 1) * g[1]);
  assert.ok(Math.max(...ys) > g[3] + g[5] && Math.min(...ys) < g[3] + (h - 1) * g[5]);
  assert.equal(gdalinfoJson(r.outputs.clipped.path).coordinateSystem.wkt, gdalinfoJson(path.join(dir, 'laea.tif')).coordinateSystem.wkt);
});

test('a GeoPackage in WAL mode (as QGIS leaves one it edits) is read without leaving -wal/-shm files, and saved edits still in its -wal are seen', { skip }, () => {
  const wal = path.join(dir, 'wal');
  fs.mkdirSync(wal, { recursive: true });
  fs.copyFileSync(path.join(dir, 'communes.gpkg'), path.join(wal, 'c.gpkg'));
  // Switch to WAL and close: the header says WAL, no -wal file is left.
  execFileSync('/usr/bin/python3', ['-c', "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA journal_mode=WAL'); c.close()", path.join(wal, 'c.gpkg')]);
  assert.equal(fs.readFileSync(path.join(wal, 'c.gpkg'))[18], 2);
  const before = fs.readdirSync(wal).sort();
  const n = readVectorLayer(path.join(wal, 'c.gpkg')).features.length;
  assert.ok(n > 0);
  assert.deepEqual(fs.readdirSync(wal).sort(), before, 'reading left files beside the GeoPackage');
  // A writer that keeps the file open (QGIS with the layer in edit): its saved row is in the -wal only.
  // The snapshot is taken while it is open, and it exits without the checkpoint a clean close would do.
  const snap = path.join(wal, 'snap');
  fs.mkdirSync(snap, { recursive: true });
  execFileSync('/usr/bin/python3', ['-c', String.raw`
import sqlite3, sys, shutil, os
src, snap = sys.argv[1], sys.argv[2]
c = sqlite3.connect(src); c.execute('PRAGMA wal_autocheckpoint=0')
for (t,) in c.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall(): c.execute('DROP TRIGGER "%s"' % t)
c.commit()
c.execute('PRAGMA wal_checkpoint(TRUNCATE)')
c.execute('INSERT INTO communes (geom) SELECT geom FROM communes LIMIT 1'); c.commit()
shutil.copy(src, snap + '/c.gpkg'); shutil.copy(src + '-wal', snap + '/c.gpkg-wal')
os._exit(0)
`, path.join(wal, 'c.gpkg'), snap]);
  assert.ok(fs.statSync(path.join(snap, 'c.gpkg-wal')).size > 0);
  assert.equal(readVectorLayer(path.join(snap, 'c.gpkg')).features.length, n + 1, 'the row saved in the -wal was not seen');
});

test('hostile vector files are refused naming the file: truncated .shp, a .gpkg that is no SQLite, mismatched .dbf', { skip }, async () => {
  const full = fs.readFileSync(path.join(dir, 'communes_3035.shp'));
  for (const f of ['cut.shp', 'cut.dbf', 'cut.prj', 'cut.shx']) fs.copyFileSync(path.join(dir, `communes_3035.${f.split('.')[1]}`), path.join(dir, f));
  fs.writeFileSync(path.join(dir, 'cut.shp'), full.subarray(0, full.length - 40));
  await assert.rejects(runTool('zonal_stats', { image: 'vals_utm.tif', zones: 'cut.shp' }, { outDir: path.join(dir, 'o'), cwd: dir }), /argument "zones": .*cut\.shp: record 3 runs past the end of the file \(the \.shp is truncated\)/);
  fs.writeFileSync(path.join(dir, 'fake.gpkg'), 'not a database at all, just text that is long enough '.repeat(20));
  await assert.rejects(runTool('zonal_stats', { image: 'vals_utm.tif', zones: 'fake.gpkg' }, { outDir: path.join(dir, 'o'), cwd: dir }), /argument "zones": .*fake\.gpkg: not a GeoPackage \(file is not a database\)/);
  fs.copyFileSync(path.join(dir, 'communes_3035.shp'), path.join(dir, 'two.shp'));
  fs.writeFileSync(path.join(dir, 'two.dbf'), fs.readFileSync(path.join(dir, 'points.dbf')).subarray(0, 0x61));
  await assert.rejects(runTool('clip_to_vector', { image: 'vals_utm.tif', cutline: 'two.shp' }, { outDir: path.join(dir, 'o'), cwd: dir }), /argument "cutline": .*two\.(shp|dbf)/);
  await assert.rejects(runTool('clip_to_vector', { image: 'vals_utm.tif', cutline: 'vals_utm.tif' }, { outDir: path.join(dir, 'o'), cwd: dir }), /clip_to_vector: argument "cutline" must be a GeoJSON \(\.geojson\), Shapefile \(\.shp\), GeoPackage .* or KML/);
  await assert.rejects(runTool('zonal_stats', { image: 'vals_utm.tif', zones: 'communes.gpkg#nope' }, { outDir: path.join(dir, 'o'), cwd: dir }), /communes\.gpkg: has no layer "nope" \(communes: POLYGON\)/);
  // KML and KMZ: broken XML, another XML document, projected coordinates, a ZIP without KML, a cut-off ZIP.
  const o = { outDir: path.join(dir, 'o'), cwd: dir };
  fs.writeFileSync(path.join(dir, 'broken.kml'), '<kml><Document><Placemark><name>a</name></Document>');
  await assert.rejects(runTool('zonal_stats', { image: 'vals_utm.tif', zones: 'broken.kml' }, o), /argument "zones": .*broken\.kml: not readable KML \(/);
  fs.writeFileSync(path.join(dir, 'svg.kml'), '<svg xmlns="http://www.w3.org/2000/svg"><rect/></svg>');
  await assert.rejects(runTool('zonal_stats', { image: 'vals_utm.tif', zones: 'svg.kml' }, o), /svg\.kml: not KML \(the root element is <svg>, not <kml>\)/);
  fs.writeFileSync(path.join(dir, 'utm.kml'), '<kml><Placemark><Polygon><outerBoundaryIs><LinearRing><coordinates>281000,5550000 282000,5550000 282000,5549000 281000,5550000</coordinates></LinearRing></outerBoundaryIs></Polygon></Placemark></kml>');
  await assert.rejects(runTool('zonal_stats', { image: 'vals_utm.tif', zones: 'utm.kml' }, o), /utm\.kml: KML coordinates are longitude,latitude in degrees, but these reach 5550000/);
  pyJson(`
import sys, zipfile, json
z = zipfile.ZipFile(sys.argv[1] + '/icons.kmz', 'w'); z.writestr('files/pin.png', b'png'); z.close()
print(json.dumps(1))`, dir);
  await assert.rejects(runTool('zonal_stats', { image: 'vals_utm.tif', zones: 'icons.kmz' }, o), /icons\.kmz: not a readable KMZ \(it holds no \.kml\); unzip it/);
  fs.writeFileSync(path.join(dir, 'cut.kmz'), fs.readFileSync(path.join(dir, 'communes.kmz')).subarray(0, 200));
  await assert.rejects(runTool('zonal_stats', { image: 'vals_utm.tif', zones: 'cut.kmz' }, o), /cut\.kmz: not a readable KMZ \(no ZIP directory\)/);
  // Formats GDAL reads but GeoWeave does not are named, with the conversion.
  sh('ogr2ogr', ['-f', 'FlatGeobuf', 'communes.fgb', 'communes.geojson']);
  await assert.rejects(runTool('zonal_stats', { image: 'vals_utm.tif', zones: 'communes.fgb' }, o), /argument "zones" is a FlatGeobuf file, which GeoWeave does not read; convert it with ogr2ogr -f GPKG/);
});
