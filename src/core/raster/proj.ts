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

/** Transverse Mercator inverse (Krüger series) on WGS84: UTM metres → lon/lat degrees. */
export function utmToLonLat(x: number, y: number, zone: number, south: boolean): [number, number] {
  const n = F / (2 - F);
  const A1 = (A / (1 + n)) * (1 + n * n / 4 + n ** 4 / 64);
  const beta = [n / 2 - (2 / 3) * n * n + (37 / 96) * n ** 3, (1 / 48) * n * n + (1 / 15) * n ** 3, (17 / 480) * n ** 3];
  const delta = [2 * n - (2 / 3) * n * n - 2 * n ** 3, (7 / 3) * n * n - (8 / 5) * n ** 3, (56 / 15) * n ** 3];
  const k0 = 0.9996;
  const xi = (y - (south ? 10000000 : 0)) / (k0 * A1);
  const eta = (x - 500000) / (k0 * A1);
  let xiP = xi, etaP = eta;
  for (let j = 1; j <= 3; j++) {
    xiP -= beta[j - 1] * Math.sin(2 * j * xi) * Math.cosh(2 * j * eta);
    etaP -= beta[j - 1] * Math.cos(2 * j * xi) * Math.sinh(2 * j * eta);
  }
  const chi = Math.asin(Math.sin(xiP) / Math.cosh(etaP));
  let phi = chi;
  for (let j = 1; j <= 3; j++) phi += delta[j - 1] * Math.sin(2 * j * chi);
  const lam = Math.atan2(Math.sinh(etaP), Math.cos(xiP));
  return [zone * 6 - 183 + (lam * 180) / Math.PI, (phi * 180) / Math.PI];
}

/** Whether `lonLatTo`/`toLonLat` handle this EPSG code. */
export function convertible(epsg: number | undefined): boolean {
  return epsg === 4326 || (epsg !== undefined && ((epsg > 32600 && epsg <= 32660) || (epsg > 32700 && epsg <= 32760)));
}

/** A point of the given EPSG in lon/lat, or undefined when the CRS is not one `convertible` knows. */
export function toLonLat(epsg: number | undefined, x: number, y: number): [number, number] | undefined {
  if (epsg === 4326) return [x, y];
  if (!convertible(epsg)) return undefined;
  return utmToLonLat(x, y, epsg! % 100, epsg! > 32700);
}

/** A box [minX, minY, maxX, maxY] in the given EPSG as a lon/lat box (edges sampled, so the curved
 *  outline of a UTM box is covered), or undefined when the CRS cannot be converted. */
export function boxToLonLat(epsg: number | undefined, box: [number, number, number, number]): [number, number, number, number] | undefined {
  if (!convertible(epsg)) return undefined;
  const [x0, y0, x1, y1] = box;
  let lo0 = Infinity, la0 = Infinity, lo1 = -Infinity, la1 = -Infinity;
  for (let i = 0; i <= 8; i++) {
    for (let j = 0; j <= 8; j++) {
      if (i % 8 !== 0 && j % 8 !== 0) continue; // the outline only
      const p = toLonLat(epsg, x0 + ((x1 - x0) * i) / 8, y0 + ((y1 - y0) * j) / 8)!;
      lo0 = Math.min(lo0, p[0]); lo1 = Math.max(lo1, p[0]); la0 = Math.min(la0, p[1]); la1 = Math.max(la1, p[1]);
    }
  }
  return [lo0, la0, lo1, la1];
}
