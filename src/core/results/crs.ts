/** proj4 definitions for the CRSs GeoWeave knows by EPSG code; pure, used by the host and the map renderer. */
import { epsgDefinition } from '../raster/crs/epsg';

/**
 * A proj4 definition for an EPSG code the engine knows (its table in core/raster/crs/epsg.ts: lon/lat
 * datums, UTM families, web/world Mercator, the European, American, Australian and national grids),
 * else `def` (the host's definition of a CRS without a code). Kept free of proj4 itself so the
 * renderer bundle can use it.
 */
export function projectionOf(epsg: number | undefined, def?: string): string | undefined {
  const known = epsg ? epsgDefinition(epsg) : undefined;
  return known?.def ?? (def || undefined);
}

/** The EPSG code a GeoJSON `crs` member names ("EPSG:32650", "urn:ogc:def:crs:EPSG::32650", CRS84 → 4326). */
export function geojsonEpsg(crsName: unknown): number | undefined {
  if (typeof crsName !== 'string') return undefined;
  if (/CRS84$/i.test(crsName)) return 4326;
  const m = /EPSG:+(\d{4,6})$/i.exec(crsName);
  return m ? Number(m[1]) : undefined;
}
