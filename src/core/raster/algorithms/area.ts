/** Pixel areas in m²: |det| of the geotransform for projected CRSs, WGS84 ellipsoidal zones by latitude for geographic ones. */
import type { GeoTransform } from './vectorize';

const WGS84_A = 6378137;
const WGS84_F = 1 / 298.257223563;
const E2 = WGS84_F * (2 - WGS84_F);
const E = Math.sqrt(E2);
const B2 = WGS84_A * WGS84_A * (1 - E2);

/** Area-integral helper: area between the equator and latitude φ over Δλ radians is Δλ·b²/2·q(φ). */
function q(phi: number): number {
  const s = Math.sin(phi);
  return s / (1 - E2 * s * s) + Math.log((1 + E * s) / (1 - E * s)) / (2 * E);
}

/** Area in m² of a WGS84 ellipsoid cell spanning lat1..lat2 and dLon (all degrees). */
export function ellipsoidCellArea(lat1: number, lat2: number, dLon: number): number {
  const r = Math.PI / 180;
  return Math.abs(dLon * r) * B2 / 2 * Math.abs(q(lat2 * r) - q(lat1 * r));
}

/**
 * Area of one pixel in each row (m²). Projected: constant |gt1·gt5 − gt2·gt4| (assumes metre units).
 * Geographic (north-up): rows differ by latitude, on the WGS84 ellipsoid.
 */
export function rowPixelAreas(gt: GeoTransform, h: number, geographic: boolean): Float64Array {
  const out = new Float64Array(h);
  if (!geographic) {
    out.fill(Math.abs(gt[1] * gt[5] - gt[2] * gt[4]));
    return out;
  }
  for (let y = 0; y < h; y++) {
    const lat1 = gt[3] + y * gt[5], lat2 = gt[3] + (y + 1) * gt[5];
    out[y] = ellipsoidCellArea(Math.max(-90, Math.min(90, lat1)), Math.max(-90, Math.min(90, lat2)), gt[1]);
  }
  return out;
}

/** Pixel size in metres (x, y) at the raster centre: for distances and slopes on geographic grids. */
export function pixelSizeMetres(gt: GeoTransform, _w: number, h: number, geographic: boolean): { x: number; y: number } {
  if (!geographic) return { x: Math.hypot(gt[1], gt[4]), y: Math.hypot(gt[2], gt[5]) };
  const lat = (gt[3] + (h / 2) * gt[5]) * Math.PI / 180;
  const s = Math.sin(lat);
  const n = WGS84_A / Math.sqrt(1 - E2 * s * s); // prime vertical radius
  const m = WGS84_A * (1 - E2) / Math.pow(1 - E2 * s * s, 1.5); // meridional radius
  const r = Math.PI / 180;
  return { x: Math.abs(gt[1]) * r * n * Math.cos(lat), y: Math.abs(gt[5]) * r * m };
}

export interface ClassArea { value: number; pixels: number; m2: number }

/** Pixels and m² per distinct finite value (classes), given per-row pixel areas. */
export function areaByClass(data: ArrayLike<number>, w: number, h: number, rowArea: Float64Array, y0 = 0, acc = new Map<number, ClassArea>()): Map<number, ClassArea> {
  for (let y = 0; y < h; y++) {
    const a = rowArea[y0 + y];
    let last = NaN, entry: ClassArea | undefined;
    for (let x = 0; x < w; x++) {
      const v = data[y * w + x];
      if (v !== v) continue;
      if (v !== last || !entry) {
        entry = acc.get(v);
        if (!entry) { entry = { value: v, pixels: 0, m2: 0 }; acc.set(v, entry); }
        last = v;
      }
      entry.pixels++;
      entry.m2 += a;
    }
  }
  return acc;
}
