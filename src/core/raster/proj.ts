/** Lon/lat ↔ CRS coordinates by EPSG code (through proj4 and the codes in crs/epsg.ts). */
import { epsgDefinition } from './crs/epsg';
import { LONLAT, crsFromEpsg, transformer, CrsTransform } from './crs/crs';

const cache = new Map<number, CrsTransform>();

function fromLonLat(epsg: number): CrsTransform {
  let t = cache.get(epsg);
  if (!t) { t = transformer(LONLAT, crsFromEpsg(epsg)); cache.set(epsg, t); }
  return t;
}

/** Transforms a lon/lat point into the given EPSG, or throws naming the CRS. */
export function lonLatTo(epsg: number | undefined, lon: number, lat: number): [number, number] {
  if (epsg === undefined) throw new Error('lon/lat → this raster\'s CRS is not possible: the raster names no CRS; pass the bbox in the raster\'s own coordinates with bbox_crs=native');
  const p = fromLonLat(epsg).forward(lon, lat);
  if (!Number.isFinite(p[0]) || !Number.isFinite(p[1])) throw new Error(`lon/lat ${lon}, ${lat} has no position in EPSG:${epsg}`);
  return p;
}

/** Whether `lonLatTo`/`toLonLat` handle this EPSG code. */
export function convertible(epsg: number | undefined): boolean {
  return epsg !== undefined && epsgDefinition(epsg) !== undefined;
}

/** A point of the given EPSG in lon/lat, or undefined when the CRS is not one `convertible` knows. */
export function toLonLat(epsg: number | undefined, x: number, y: number): [number, number] | undefined {
  if (!convertible(epsg)) return undefined;
  const p = fromLonLat(epsg!).inverse(x, y);
  return Number.isFinite(p[0]) && Number.isFinite(p[1]) ? p : undefined;
}

/** A box [minX, minY, maxX, maxY] in the given EPSG as a lon/lat box (edges sampled, so the curved
 *  outline of a projected box is covered), or undefined when the CRS cannot be converted. */
export function boxToLonLat(epsg: number | undefined, box: [number, number, number, number]): [number, number, number, number] | undefined {
  if (!convertible(epsg)) return undefined;
  const [x0, y0, x1, y1] = box;
  let lo0 = Infinity, la0 = Infinity, lo1 = -Infinity, la1 = -Infinity;
  for (let i = 0; i <= 8; i++) {
    for (let j = 0; j <= 8; j++) {
      if (i % 8 !== 0 && j % 8 !== 0) continue; // the outline only
      const p = toLonLat(epsg, x0 + ((x1 - x0) * i) / 8, y0 + ((y1 - y0) * j) / 8);
      if (!p) continue;
      lo0 = Math.min(lo0, p[0]); lo1 = Math.max(lo1, p[0]); la0 = Math.min(la0, p[1]); la1 = Math.max(la1, p[1]);
    }
  }
  return lo0 <= lo1 && la0 <= la1 ? [lo0, la0, lo1, la1] : undefined;
}
