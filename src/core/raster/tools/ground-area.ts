/**
 * Pixel areas on the ground, in m². A projected grid's map area |gt1·gt5 − gt2·gt4| is the ground
 * area only where the projection keeps areas and its unit is the metre: Web Mercator inflates areas
 * by 1/cos²(latitude) (1.70× at 40°N), polar stereographic and conformal conics by other factors,
 * and a State Plane grid in US feet measures ft². So pixels are measured on the WGS84 ellipsoid
 * from their corners in lon/lat; where every sample is within 1% of the map area (UTM, equal-area
 * projections) the map area stays, as GDAL and numpy users compute it.
 */
import type { RasterDataset } from '../io/dataset';

const TOLERANCE = 0.01;
const A = 6378137;
const F = 1 / 298.257223563;
const E2 = F * (2 - F);
const RAD = Math.PI / 180;

/** UTM zones (WGS84, ETRS89, NAD83) distort areas by at most a few tenths of a percent in their zone: no check, and no proj4 to load. */
function isUtm(epsg: number | undefined): boolean {
  return epsg !== undefined && ((epsg >= 32601 && epsg <= 32660) || (epsg >= 32701 && epsg <= 32760) || (epsg >= 25828 && epsg <= 25838) || (epsg >= 26901 && epsg <= 26923));
}

type ToLonLat = (x: number, y: number) => [number, number];

/** The two edge vectors of pixel (x, y) from its corner, in local metres on the ellipsoid: [ex, ey] along the row, [fx, fy] down the column. */
function pixelEdges(toLonLat: ToLonLat, g: readonly number[], x: number, y: number): [number, number, number, number] {
  const at = (px: number, py: number) => toLonLat(g[0] + px * g[1] + py * g[2], g[3] + px * g[4] + py * g[5]);
  const p0 = at(x, y), p1 = at(x + 1, y), p3 = at(x, y + 1);
  const lat = ((p0[1] + p3[1]) / 2) * RAD;
  const s = Math.sin(lat);
  const n = (A / Math.sqrt(1 - E2 * s * s)) * Math.cos(lat);
  const m = (A * (1 - E2)) / Math.pow(1 - E2 * s * s, 1.5);
  const dLon = (a: number, b: number) => ((((b - a) % 360) + 540) % 360) - 180;
  return [dLon(p0[0], p1[0]) * RAD * n, (p1[1] - p0[1]) * RAD * m, dLon(p0[0], p3[0]) * RAD * n, (p3[1] - p0[1]) * RAD * m];
}

/** Ground area (m²) of pixel (x, y). */
function pixelGroundArea(toLonLat: ToLonLat, g: readonly number[], x: number, y: number): number {
  const [ex, ey, fx, fy] = pixelEdges(toLonLat, g, x, y);
  return Math.abs(ex * fy - ey * fx);
}

/** Metres per map unit from ProjLinearUnitsGeoKey (3076): international and US survey feet; 1 otherwise. */
export function linearUnitMetres(ds: RasterDataset): number {
  const keys = ds.geo.keys;
  if (!keys) return 1;
  const { keyValue } = require('../crs/geokeys') as typeof import('../crs/geokeys');
  const u = keyValue(keys, 3076);
  return u === 9002 ? 0.3048 : u === 9003 ? 1200 / 3937 : 1;
}

/**
 * Map → lon/lat for a projected grid; 'none' when the file names no CRS (map units are all there is),
 * 'unusable' for a CRS proj4 cannot use (an EPSG code outside GeoWeave's table), where the linear unit
 * key still says whether a map unit is a foot.
 */
function lonLatOf(ds: RasterDataset): ToLonLat | 'none' | 'unusable' {
  const { crsOfGeo, transformer, LONLAT } = require('../crs/crs') as typeof import('../crs/crs');
  try {
    const crs = crsOfGeo(ds.geo, ds.source);
    if (!crs) return 'none';
    const t = transformer(crs, LONLAT);
    return (x, y) => t.forward(x, y);
  } catch {
    return 'unusable';
  }
}

const rowCache = new WeakMap<RasterDataset, Float64Array>();

/** Ground area of one pixel in each row of a projected grid (m²): the mean of five pixels across the row when the projection distorts areas. */
export function groundRowAreas(ds: RasterDataset): Float64Array {
  const hit = rowCache.get(ds);
  if (hit) return hit;
  const g = ds.geo.geoTransform;
  const w = ds.width, h = ds.height;
  const mapArea = Math.abs(g[1] * g[5] - g[2] * g[4]);
  const out = new Float64Array(h).fill(mapArea);
  rowCache.set(ds, out);
  if (isUtm(ds.geo.epsg)) return out;
  const toLonLat = lonLatOf(ds);
  if (toLonLat === 'none') return out;
  if (toLonLat === 'unusable') {
    const unit = linearUnitMetres(ds);
    if (unit !== 1) out.fill(mapArea * unit * unit);
    return out;
  }
  const across = (f: number) => Math.min(w - 1, Math.floor((w - 1) * f));
  let distorted = false;
  for (let i = 0; i <= 4 && !distorted; i++) {
    for (let j = 0; j <= 4; j++) {
      const a = pixelGroundArea(toLonLat, g, across(i / 4), Math.min(h - 1, Math.floor(((h - 1) * j) / 4)));
      if (!Number.isFinite(a)) return out; // outside the projection's domain: keep map units
      if (Math.abs(a / mapArea - 1) > TOLERANCE) { distorted = true; break; }
    }
  }
  if (!distorted) return out;
  const cols = [0.1, 0.3, 0.5, 0.7, 0.9].map(across);
  for (let y = 0; y < h; y++) {
    let sum = 0;
    for (const x of cols) sum += pixelGroundArea(toLonLat, g, x, y);
    out[y] = sum / cols.length;
  }
  return out;
}

/** The mean ground area of a pixel (m²), for summaries that give one area for a count of pixels. */
export function meanGroundPixelArea(ds: RasterDataset): number {
  const rows = groundRowAreas(ds);
  let s = 0;
  for (let y = 0; y < rows.length; y++) s += rows[y];
  return rows.length ? s / rows.length : 0;
}

/**
 * Ground size (m) of a pixel at the raster's centre on a projected grid, for distances and slopes:
 * the lengths of its edges on the ellipsoid where the projection stretches them by more than 1%
 * (Web Mercator by 1/cos(latitude)), the map size otherwise. `units`: also convert a foot grid to
 * metres (distances); terrain keeps map units there, as elevations in feet go with them.
 */
export function groundPixelSize(ds: RasterDataset, units: boolean): { x: number; y: number; note?: string } {
  const g = ds.geo.geoTransform;
  const map = { x: Math.hypot(g[1], g[4]), y: Math.hypot(g[2], g[5]) };
  if (isUtm(ds.geo.epsg)) return map;
  const toLonLat = lonLatOf(ds);
  if (toLonLat === 'none') return map;
  const unit = linearUnitMetres(ds);
  const per = units ? 1 : unit;
  if (toLonLat === 'unusable') return { x: (map.x * unit) / per, y: (map.y * unit) / per };
  const [ex, ey, fx, fy] = pixelEdges(toLonLat, g, Math.floor(ds.width / 2), Math.floor(ds.height / 2));
  const ground = { x: Math.hypot(ex, ey), y: Math.hypot(fx, fy) };
  if (!Number.isFinite(ground.x) || !Number.isFinite(ground.y)) return map;
  const stretched = Math.abs(ground.x / (map.x * unit) - 1) > TOLERANCE || Math.abs(ground.y / (map.y * unit) - 1) > TOLERANCE;
  if (!stretched) return { x: (map.x * unit) / per, y: (map.y * unit) / per };
  return { x: ground.x / per, y: ground.y / per, note: `pixel size on the ground ${ground.x.toFixed(2)} x ${ground.y.toFixed(2)} m at the centre (the projection's map size is ${map.x} x ${map.y})` };
}
