/**
 * GeoTIFF keys for a proj4 string without an EPSG code (user-defined projection keys, as GDAL
 * writes them), for the projections geokeys.ts reads back. The caller checks the round trip.
 */
import type { GeoKeySet } from './geokeys';

/** ProjCoordTransGeoKey codes and their parameters: [GeoKey, proj4 names, default (null: written only when given)]. */
type Param = [number, string[], number | null];
const XY: Param[] = [[3082, ['x_0'], 0], [3083, ['y_0'], 0]];
const METHODS: Record<string, { ct: number; params: Param[] }> = {
  tmerc: { ct: 1, params: [[3081, ['lat_0'], 0], [3080, ['lon_0'], 0], [3092, ['k', 'k_0'], 1], ...XY] },
  merc: { ct: 7, params: [[3078, ['lat_ts'], null], [3080, ['lon_0'], 0], [3092, ['k', 'k_0'], null], ...XY] },
  lcc: { ct: 8, params: [[3085, ['lat_0'], 0], [3084, ['lon_0'], 0], [3078, ['lat_1'], 0], [3079, ['lat_2', 'lat_1'], 0], [3086, ['x_0'], 0], [3087, ['y_0'], 0]] },
  laea: { ct: 10, params: [[3089, ['lat_0'], 0], [3088, ['lon_0'], 0], ...XY] },
  aea: { ct: 11, params: [[3081, ['lat_0'], 0], [3080, ['lon_0'], 0], [3078, ['lat_1'], 0], [3079, ['lat_2', 'lat_1'], 0], ...XY] },
  eqc: { ct: 17, params: [[3078, ['lat_ts'], 0], [3081, ['lat_0'], 0], [3080, ['lon_0'], 0], ...XY] },
  sinu: { ct: 24, params: [[3080, ['lon_0'], 0], ...XY] },
  cea: { ct: 28, params: [[3078, ['lat_ts'], 0], [3080, ['lon_0'], 0], ...XY] },
  // Polar stereographic with a standard parallel (variant B, as GRIB and NSIDC grids give it): only at a pole, checked below.
  stere: { ct: 15, params: [[3081, ['lat_ts'], null], [3095, ['lon_0'], 0], ...XY] },
};

/** proj4 ellipsoid names → EPSG ellipsoid codes (GDAL names the datum after them: "Unknown based on GRS80 ellipsoid"). */
const ELLPS: Record<string, number> = { WGS84: 7030, GRS80: 7019, intl: 7022, bessel: 7004, clrk66: 7008, airy: 7001, krass: 7024 };
/** The ellipsoid names GDAL puts into the datum name of such a CRS ("Unknown based on GRS80 ellipsoid"). */
const ELLPS_NAME: Record<string, string> = {
  WGS84: 'WGS84', GRS80: 'GRS80', intl: 'International 1924 (Hayford 1909, 1910)', bessel: 'Bessel 1841', clrk66: 'Clarke 1866', airy: 'Airy 1830', krass: 'Krassovsky, 1942',
};

function tokens(def: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const t of def.trim().split(/\s+/)) {
    const kv = /^\+([a-z_0-9]+)(?:=(.*))?$/i.exec(t);
    if (kv) m.set(kv[1], kv[2] ?? '');
  }
  return m;
}

/** Keys for `def` (a "+proj=..." string), or undefined when its method or datum is not one written here. */
export function proj4ToGeoKeys(def: string, citation: string): GeoKeySet | undefined {
  const t = tokens(def);
  let proj = t.get('proj') ?? '';
  if (proj === 'utm') {
    const zone = Number(t.get('zone'));
    if (!Number.isInteger(zone) || zone < 1 || zone > 60) return undefined;
    t.set('lat_0', '0'); t.set('lon_0', String(zone * 6 - 183)); t.set('k', '0.9996'); t.set('x_0', '500000'); t.set('y_0', t.has('south') ? '10000000' : '0');
    proj = 'tmerc';
  }
  const geographic = proj === 'longlat' || proj === 'latlong' || proj === 'lonlat' || proj === 'latlon';
  const method = METHODS[proj];
  if (!geographic && !method) return undefined;
  if (proj === 'stere' && !(Math.abs(Number(t.get('lat_0'))) === 90 && t.has('lat_ts') && Math.sign(Number(t.get('lat_ts'))) === Math.sign(Number(t.get('lat_0'))))) return undefined;
  // The datum: WGS84 as code 4326; other ellipsoids as user-defined with their axes and shift.
  const datum = t.get('datum'), ellps = t.get('ellps');
  let axes: [number, number] | undefined;
  let ellipsoid: number | undefined;
  if (datum === 'WGS84' || (ellps === 'WGS84' && !t.has('towgs84'))) axes = undefined;
  else if (ellps && ELLPS[ellps]) ellipsoid = ELLPS[ellps];
  else if (t.has('a') && (t.has('rf') || t.has('b'))) {
    const a = Number(t.get('a')), rf = t.has('rf') ? Number(t.get('rf')) : a / (a - Number(t.get('b')));
    axes = [a, Number.isFinite(rf) ? rf : 0];
  } else return undefined;
  if (datum && datum !== 'WGS84') return undefined;
  const towgs = t.get('towgs84')?.split(',').map(Number);
  if (towgs && !(towgs.length === 3 || towgs.length === 7) ) return undefined;
  if (t.has('units') && t.get('units') !== 'm') return undefined;
  if (t.has('to_meter') && Number(t.get('to_meter')) !== 1) return undefined;

  const entries: number[] = [];
  const doubles: number[] = [];
  let ascii = '';
  const short = (id: number, v: number) => entries.push(id, 0, 1, v);
  const dbl = (id: number, v: number) => { entries.push(id, 34736, 1, doubles.length); doubles.push(v); };
  const text = (id: number, s: string) => { entries.push(id, 34737, s.length + 1, ascii.length); ascii += `${s}|`; };
  short(1024, geographic ? 2 : 1);
  short(1025, 1);
  text(1026, citation);
  if (!axes && ellipsoid === undefined) {
    short(2048, 4326);
  } else {
    short(2048, 32767);
    short(2050, 32767);
    short(2054, 9102);
    if (ellipsoid !== undefined) {
      // GDAL reads the datum's name from this citation; without it the datum is "unnamed" and not the same CRS.
      const shift = t.get('towgs84');
      text(2049, `GCS Name = unknown|Datum = Unknown based on ${ELLPS_NAME[ellps!]} ellipsoid${shift ? ` using towgs84=${shift}` : ''}|Primem = Greenwich|`);
      short(2056, ellipsoid);
    }
    else { short(2056, 32767); dbl(2057, axes![0]); dbl(2059, axes![1]); }
    if (towgs) { entries.push(2062, 34736, towgs.length, doubles.length); doubles.push(...towgs); }
  }
  if (!geographic) {
    short(3072, 32767);
    short(3074, 32767);
    short(3075, method.ct);
    short(3076, 9001);
    for (const [key, names, fallback] of method.params) {
      const given = names.map((n) => t.get(n)).find((v) => v !== undefined);
      if (given === undefined && fallback === null) continue;
      const n = Number(given ?? fallback);
      if (!Number.isFinite(n)) return undefined;
      dbl(key, n);
    }
    if (proj === 'merc' && !t.has('lat_ts') && !t.has('k') && !t.has('k_0')) dbl(3092, 1);
  }
  // Keys in ascending order, as the GeoTIFF spec asks.
  const order = Array.from({ length: entries.length / 4 }, (_, i) => i).sort((a, b) => entries[4 * a] - entries[4 * b]);
  return { entries: order.flatMap((i) => entries.slice(4 * i, 4 * i + 4)), doubles, ascii };
}
