/** Lon/lat → CRS coordinates for the CRSs clip_bbox supports: WGS84 UTM (EPSG:326xx/327xx) and EPSG:4326. */

const A = 6378137, F = 1 / 298.257223563;

/** Transverse Mercator forward (Krüger series, sub-millimetre within a zone) on WGS84. */
export function lonLatToUtm(lon: number, lat: number, zone: number, south: boolean): [number, number] {
  const n = F / (2 - F);
  const A1 = (A / (1 + n)) * (1 + n * n / 4 + n ** 4 / 64);
  const alpha = [n / 2 - (2 / 3) * n * n + (5 / 16) * n ** 3, (13 / 48) * n * n - (3 / 5) * n ** 3, (61 / 240) * n ** 3];
  const phi = (lat * Math.PI) / 180;
  const lam = ((lon - (zone * 6 - 183)) * Math.PI) / 180;
  const e = Math.sqrt(F * (2 - F));
  const t = Math.sinh(Math.atanh(Math.sin(phi)) - e * Math.atanh(e * Math.sin(phi)));
  const xiP = Math.atan2(t, Math.cos(lam));
  const etaP = Math.atanh(Math.sin(lam) / Math.sqrt(1 + t * t));
  let xi = xiP, eta = etaP;
  for (let j = 1; j <= 3; j++) {
    xi += alpha[j - 1] * Math.sin(2 * j * xiP) * Math.cosh(2 * j * etaP);
    eta += alpha[j - 1] * Math.cos(2 * j * xiP) * Math.sinh(2 * j * etaP);
  }
  const k0 = 0.9996;
  const x = 500000 + k0 * A1 * eta;
  const y = k0 * A1 * xi + (south ? 10000000 : 0);
  return [x, y];
}

/** Transforms a lon/lat point into the given EPSG, or throws naming the CRS. */
export function lonLatTo(epsg: number | undefined, lon: number, lat: number): [number, number] {
  if (epsg === 4326) return [lon, lat];
  if (epsg !== undefined && ((epsg > 32600 && epsg <= 32660) || (epsg > 32700 && epsg <= 32760))) {
    return lonLatToUtm(lon, lat, epsg % 100, epsg > 32700);
  }
  throw new Error(`lon/lat → ${epsg ? `EPSG:${epsg}` : 'this raster\'s CRS'} is not supported (only WGS84 UTM EPSG:326xx/327xx and EPSG:4326); pass the bbox in the raster's own CRS with bbox_crs=native, or reproject first`);
}
