/**
 * A GRIB grid as GDAL's GRIB driver places it: the earth's shape as its CRS, the geotransform with
 * the corner half a cell beyond the first grid point (GRIB's points are cell centres), rows north
 * up and columns west to east whatever the scanning mode, and 0–360° longitudes brought into
 * −180…180 as GDAL 3.6 does (GRIB_ADJUST_LONGITUDE_RANGE, its default): a grid starting at or past
 * 180° is moved west by 360°; a global grid starting before 180° is cut at the 180° meridian and its
 * eastern half put first, the corner then at −180° less half a cell (GDAL's rule, also for a grid
 * whose columns do not fall on 180° exactly).
 */
import proj4 from 'proj4';
import type { GeoInfo } from './dataset';
import { proj4ToGeoKeys } from '../crs/keys-from-proj4';
import { geoKeysToProj4 } from '../crs/geokeys';

/** The figure of the earth: WGS 84 (EPSG:4326), or an ellipsoid (a sphere when a = b) in metres. */
export type Earth = { wgs84: true } | { a: number; b: number; name: string };

export interface GribGrid {
  /** GRIB2 grid template (GRIB1's lat/lon grid is 0 too). */
  template: number;
  nx: number; ny: number;
  /** First and last grid points and increments, in degrees. */
  lat1: number; lon1: number; lat2: number; lon2: number; dx: number; dy: number;
  /** Scanning mode flags (GRIB2 table 3.4, the same bits as GRIB1's). */
  scan: number;
  earth: Earth;
  /** Projected grids (3.10, 3.20, 3.30): the proj4 projection without its datum; dx, dy are then metres. */
  projection?: { def: string; name: string };
}

/** Scanning mode bits: −i (east to west), +j (south to north), j consecutive, boustrophedon. */
const I_NEGATIVE = 0x80, J_POSITIVE = 0x40, J_CONSECUTIVE = 0x20, BOUSTROPHEDON = 0x10;

/** The earth of GRIB2 code table 3.2 (shape 1, 3, 7 give their own radius or axes, scaled). */
export function earthOfShape(shape: number, radius: number, major: number, minor: number): Earth | string {
  switch (shape) {
    case 0: return { a: 6367470, b: 6367470, name: 'sphere 6367470 m' };
    case 1: return radius > 0 ? { a: radius, b: radius, name: `sphere ${radius} m` } : `shape of the earth 1 with radius ${radius}`;
    case 2: return { a: 6378160, b: 6378160 * (1 - 1 / 297), name: 'IAU 1965 ellipsoid' };
    case 3: return major > 0 && minor > 0 ? { a: major * 1000, b: minor * 1000, name: `ellipsoid ${major} × ${minor} km` } : `shape of the earth 3 with axes ${major}, ${minor} km`;
    case 4: return { a: 6378137, b: 6356752.314140356, name: 'GRS80' };
    case 5: return { wgs84: true };
    case 6: return { a: 6371229, b: 6371229, name: 'sphere 6371229 m' };
    case 7: return major > 0 && minor > 0 ? { a: major, b: minor, name: `ellipsoid ${major} × ${minor} m` } : `shape of the earth 7 with axes ${major}, ${minor} m`;
    case 8: return { a: 6371200, b: 6371200, name: 'sphere 6371200 m' };
    case 9: return { a: 6377563.396, b: 6356256.909, name: 'Airy 1830' };
    default: return `shape of the earth ${shape}, which GRIB's code table 3.2 does not define`;
  }
}

/** The proj4 datum part of an earth (+R for a sphere, as GDAL exports it). */
function datumDef(e: Earth): string {
  if ('wgs84' in e) return '+datum=WGS84';
  if (e.a === 6378137 && Math.abs(e.b - 6356752.314140356) < 1e-6) return '+ellps=GRS80';
  return `+a=${e.a} +b=${e.b}`;
}

const projectedDef = (g: GribGrid) => `${g.projection!.def} ${datumDef(g.earth)} +units=m +no_defs`;

/** The CRS part of GeoInfo for a grid: EPSG:4326 for lon/lat on WGS 84, else user-defined keys of its earth and projection. */
export function gridCrs(g: GribGrid): Pick<GeoInfo, 'epsg' | 'wkt' | 'keys' | 'geographic'> {
  const geographic = !g.projection;
  if (geographic && 'wgs84' in g.earth) return { epsg: 4326, geographic };
  const name = `GRIB ${g.projection?.name ?? 'lon/lat'}, ${'wgs84' in g.earth ? 'WGS 84' : g.earth.name}`;
  const keys = proj4ToGeoKeys(g.projection ? projectedDef(g) : `+proj=longlat ${datumDef(g.earth)} +no_defs`, name);
  const back = keys && geoKeysToProj4(keys);
  if (!keys || !back || !('def' in back)) return { geographic, wkt: name };
  return { wkt: name, keys, geographic };
}

/**
 * Where GDAL puts a projected grid: the first point projected, the top row (Ny − 1) rows above it
 * when the rows go south to north (GDAL's test is the scanning mode being exactly 0x40), the corner
 * half a cell beyond.
 */
export function projectedPlacement(g: GribGrid): GeoInfo['geoTransform'] {
  const [x, y] = proj4(projectedDef(g)).forward([g.lon1, g.lat1]);
  if (!Number.isFinite(x) || !Number.isFinite(y)) throw new Error(`its first grid point (${g.lat1}°, ${g.lon1}°) does not project on ${g.projection!.name}`);
  const top = g.scan === J_POSITIVE ? y + (g.ny - 1) * g.dy : y;
  return [x - g.dx / 2, g.dx, 0, top + g.dy / 2, 0, -g.dy];
}

/** Where GDAL puts a lon/lat grid: its geotransform, and the column its rows are cut at (0: none). */
export function lonLatPlacement(g: GribGrid): { geoTransform: GeoInfo['geoTransform']; split: number } {
  const yMax = Math.max(g.lat1, g.lat2), yMin = Math.min(g.lat1, g.lat2);
  // Scanning east to west, GDAL 3.6 still takes the first (eastern) point for the western edge, while
  // its rows run west to east: kept so, to give GDAL's raster (warp such a file with GDAL itself to check).
  const { lon1, lon2 } = g;
  // GDAL trusts the span between the first and last points over the stated increment, unless they disagree by more than GRIB1's precision.
  let px = g.nx > 1 ? (lon1 > lon2 ? 360 - (lon1 - lon2) : lon2 - lon1) / (g.nx - 1) : g.dx;
  if (!(px >= 0) || Math.abs(px - g.dx) > 0.002) px = g.dx;
  let py = g.ny > 1 ? (yMax - yMin) / (g.ny - 1) : g.dy;
  if (!(py >= 0) || Math.abs(py - g.dy) > 0.002) py = g.dy;
  let minX = lon1, split = 0;
  const global = Math.abs(g.nx * px - 360) < px / 4;
  if (global && minX < 180) {
    split = Math.ceil((180 - minX) / px) % g.nx;
    minX = -180;
  } else if (minX >= 180) minX -= 360;
  return { geoTransform: [minX - px / 2, px, 0, yMax + py / 2, 0, -py], split };
}

/**
 * The values of a message (in its scanning order, one per grid point) as GDAL's rows: north up,
 * west to east, the columns rotated by `split`. Rows stored west to east (nearly every file) are
 * rearranged in place: a big field is not held twice.
 */
export function northUp(values: Float64Array, g: GribGrid, split: number): Float64Array {
  const { nx, ny, scan } = g;
  if (!(scan & (J_CONSECUTIVE | BOUSTROPHEDON | I_NEGATIVE))) {
    const row = new Float64Array(nx);
    const rowAt = (j: number) => values.subarray(j * nx, (j + 1) * nx);
    if (scan & J_POSITIVE) {
      for (let j = 0; j < ny >> 1; j++) { const a = rowAt(j), b = rowAt(ny - 1 - j); row.set(a); a.set(b); b.set(row); }
    }
    if (split) {
      for (let j = 0; j < ny; j++) { const r = rowAt(j); row.set(r); r.set(row.subarray(split)); r.set(row.subarray(0, split), nx - split); }
    }
    return values;
  }
  const out = new Float64Array(nx * ny);
  const jFirst = (scan & J_CONSECUTIVE) !== 0;
  for (let k = 0; k < nx * ny; k++) {
    // k-th point of the scan: its position along the scan's outer and inner directions.
    let i: number, j: number;
    if (jFirst) { i = Math.floor(k / ny); j = k % ny; if (scan & BOUSTROPHEDON && i % 2) j = ny - 1 - j; }
    else { j = Math.floor(k / nx); i = k % nx; if (scan & BOUSTROPHEDON && j % 2) i = nx - 1 - i; }
    const col = scan & I_NEGATIVE ? nx - 1 - i : i;
    const row = scan & J_POSITIVE ? ny - 1 - j : j;
    const c = split ? (col - split + nx) % nx : col;
    out[row * nx + c] = values[k];
  }
  return out;
}
