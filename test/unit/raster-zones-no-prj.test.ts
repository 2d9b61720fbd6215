/** Zones from a Shapefile that lost its .prj: lon/lat coordinates far from a projected raster are read
 *  as EPSG:4326 and said so, instead of every zone coming out empty; coordinates on the raster keep
 *  the raster's CRS as before. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runTool } from '../../src/core/raster/engine';
import { writeRaster } from '../../src/core/raster/io/writer';
import { localizeSummary } from '../../src/core/results/summary-language';
import { gdalSkip } from '../helpers/raster-gdal';

const skip = gdalSkip('Shapefiles written by ogr2ogr', ['ogr2ogr']);

/** A Shapefile of one rectangle given in `srs`, then its .prj removed. */
function shapefileWithoutPrj(dir: string, name: string, ring: number[][], srs: string): string {
  const gj = path.join(dir, `${name}.geojson`);
  fs.writeFileSync(gj, JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: { field: 'A' }, geometry: { type: 'Polygon', coordinates: [ring] } }] }));
  const shp = path.join(dir, `${name}.shp`);
  const r = spawnSync('ogr2ogr', ['-f', 'ESRI Shapefile', '-s_srs', srs, '-t_srs', srs, shp, gj], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  fs.rmSync(path.join(dir, `${name}.prj`), { force: true });
  return shp;
}

test('zonal statistics over a Shapefile without .prj in lon/lat on a UTM raster: read as EPSG:4326, said in English and Chinese', { skip }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-noprj-'));
  try {
    // 200×200 pixels of 10 m in UTM 32N from (600000, 5010240); value = column index.
    const n = 200;
    const img = path.join(dir, 'values.tif');
    await writeRaster(img, { width: n, height: n, bands: 1, dtype: 'float32', geo: { geoTransform: [600000, 10, 0, 5010240, 0, -10], epsg: 32632, geographic: false }, nodata: -9999 },
      [Float32Array.from({ length: n * n }, (_, i) => i % n)]);
    // Columns 50-99, rows 50-99 of the raster, as lon/lat (ogr2ogr reprojects the UTM corners).
    const utm = path.join(dir, 'utm.geojson');
    fs.writeFileSync(utm, JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: [[[600500, 5009740], [601000, 5009740], [601000, 5009240], [600500, 5009240], [600500, 5009740]]] } }] }));
    const ll = path.join(dir, 'll.geojson');
    assert.equal(spawnSync('ogr2ogr', ['-f', 'GeoJSON', '-s_srs', 'EPSG:32632', '-t_srs', 'EPSG:4326', ll, utm]).status, 0);
    const ring = JSON.parse(fs.readFileSync(ll, 'utf8')).features[0].geometry.coordinates[0];
    const shp = shapefileWithoutPrj(dir, 'fields', ring, 'EPSG:4326');
    const r = await runTool('zonal_stats', { image: img, zones: shp }, { outDir: path.join(dir, 'o1'), cwd: dir });
    const csv = fs.readFileSync(r.outputs.table.path, 'utf8').trim().split('\n');
    const row = Object.fromEntries(csv[0].split(',').map((k, i) => [k, csv[1].split(',')[i]]));
    assert.ok(Math.abs(Number(row.count) - 2500) <= 60, `about 50×50 pixels in the zone (${row.count})`);
    assert.ok(Math.abs(Number(row.mean) - 74.5) < 1, `the mean column index of columns 50-99 (${row.mean})`);
    assert.match(r.summary, /fields\.shp declares no CRS \(no \.prj\), and its coordinates \(10\.2\d+, 45\.2\d+ to 10\.2\d+, 45\.2\d+\) are longitude and latitude, far from the raster in EPSG:32632 \(WGS 84 \/ UTM zone 32N\): they were read as EPSG:4326 \(WGS 84 lon\/lat\)/);
    const zh = localizeSummary(r, 'zh');
    assert.ok(zh.translated, zh.text);
    assert.match(zh.text, /没有声明坐标系（无 \.prj），其坐标（.* 至 .*）是经纬度，与 EPSG:32632 \(WGS 84 \/ UTM zone 32N\) 下的栅格相距甚远：已按 EPSG:4326 \(WGS 84 lon\/lat\) 读取/);
    // Coordinates that do lie on the raster in its own CRS keep being read in it.
    const own = shapefileWithoutPrj(dir, 'own', [[600500, 5009740], [601000, 5009740], [601000, 5009240], [600500, 5009240], [600500, 5009740]], 'EPSG:32632');
    const o = await runTool('zonal_stats', { image: img, zones: own }, { outDir: path.join(dir, 'o2'), cwd: dir });
    assert.match(o.summary, /own\.shp declares no CRS \(no \.prj\): its coordinates were taken to be in the raster's CRS/);
    assert.match(fs.readFileSync(o.outputs.table.path, 'utf8'), /,2500,/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
