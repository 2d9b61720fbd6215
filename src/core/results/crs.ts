/** proj4 definitions for the CRSs GeoWeave knows by EPSG code; pure, used by the host and the map renderer. */

/** A proj4 definition for WGS84, Web Mercator and WGS84 UTM codes, else the file's WKT (proj4 reads WKT 1). */
export function projectionOf(epsg: number | undefined, wkt?: string): string | undefined {
  if (epsg === 4326) return '+proj=longlat +datum=WGS84 +no_defs';
  if (epsg === 3857) return '+proj=merc +a=6378137 +b=6378137 +lat_ts=0 +lon_0=0 +x_0=0 +y_0=0 +k=1 +units=m +nadgrids=@null +no_defs';
  if (epsg && epsg > 32600 && epsg <= 32660) return `+proj=utm +zone=${epsg - 32600} +datum=WGS84 +units=m +no_defs`;
  if (epsg && epsg > 32700 && epsg <= 32760) return `+proj=utm +zone=${epsg - 32700} +south +datum=WGS84 +units=m +no_defs`;
  return wkt || undefined;
}

/** The EPSG code a GeoJSON `crs` member names ("EPSG:32650", "urn:ogc:def:crs:EPSG::32650", CRS84 → 4326). */
export function geojsonEpsg(crsName: unknown): number | undefined {
  if (typeof crsName !== 'string') return undefined;
  if (/CRS84$/i.test(crsName)) return 4326;
  const m = /EPSG:+(\d{4,6})$/i.exec(crsName);
  return m ? Number(m[1]) : undefined;
}
