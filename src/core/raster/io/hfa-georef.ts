/**
 * The georeferencing of an HFA layer as GDAL's HFA driver reads it: the geotransform from
 * `Map_Info` (Eprj_MapInfo: its upper-left is the centre of the first pixel, so the corner is half a
 * pixel up and left; "ds" units are seconds of arc), and the CRS from `Projection`
 * (Eprj_ProParameters: ERDAS's projection number, zone and 15 parameters, angles in radians) with its
 * `Datum` (Eprj_Datum), as GDAL's HFAPCSStructToOSR maps them, with the parameters of the ESRI PE
 * string GDAL also writes (`ProjectionX`, which GDAL reads first) where it names the same projection,
 * and the PE string alone where the parameters name no projection read here. A CRS becomes an EPSG code when
 * it is one GeoWeave knows (UTM zones, lon/lat, Conus Albers…), else user-defined GeoTIFF keys.
 */
import type { GeoInfo } from './dataset';
import type { HfaRecord } from './hfa-dictionary';
import { crsFromEpsg, geographicEpsg, parseCrs, sameCrs, utmEpsg, type Datum } from '../crs/crs';
import { geoKeysToProj4 } from '../crs/geokeys';
import { proj4ToGeoKeys } from '../crs/keys-from-proj4';

const R2D = 180 / Math.PI;
const RAD2ARCSEC = 648000 / Math.PI;
/** EPSG codes of projected CRSs GeoWeave knows that an HFA file's parameters are compared with. */
const PROJECTED_CANDIDATES = [5070, 6350, 3577, 3035, 3034, 2154, 3031, 3413, 3857, 3395, 6933, 4087, 27700, 2169, 31370];
/** ERDAS projection numbers (Eprj_ProParameters.proNumber) read here, by name for messages. */
const PROJECTIONS: Record<number, string> = {
  0: 'Geographic (Lat/Lon)', 1: 'UTM', 3: 'Albers Conical Equal Area', 4: 'Lambert Conformal Conic', 5: 'Mercator',
  6: 'Polar Stereographic', 9: 'Transverse Mercator', 11: 'Lambert Azimuthal Equal-area', 16: 'Sinusoidal', 17: 'Equirectangular',
};

/** The geotransform of a Map_Info record (GDAL's HFADataset::GetGeoTransform). */
export function mapInfoGeoTransform(mi: HfaRecord): { gt: GeoInfo['geoTransform']; units: string } | undefined {
  const ul = mi.upperLeftCenter as HfaRecord | null, lr = mi.lowerRightCenter as HfaRecord | null, px = mi.pixelSize as HfaRecord | null;
  if (!ul || !lr || !px) return undefined;
  const [ulx, uly, lry, w, h] = [ul.x, ul.y, lr.y, px.width, px.height].map(Number);
  if (![ulx, uly, lry, w, h].every(Number.isFinite)) return undefined;
  const sx = w === 0 ? 1 : w;
  let sy = uly >= lry ? -h : h;
  if (sy === 0) sy = 1;
  let gt: GeoInfo['geoTransform'] = [ulx - sx * 0.5, sx, 0, uly - sy * 0.5, 0, sy];
  const units = typeof mi.units === 'string' ? mi.units : '';
  if (units.toLowerCase() === 'ds') gt = gt.map((v) => v / 3600) as GeoInfo['geoTransform'];
  return { gt, units };
}

/** The datum's proj4 parameters and its name in GeoWeave's EPSG tables. */
function datumDef(pro: HfaRecord, datum: HfaRecord | undefined): { def: string; named?: Datum } | string {
  const name = String(datum?.datumname ?? '').trim().toUpperCase().replace(/[\s_-]/g, '');
  if (name === 'WGS84') return { def: '+datum=WGS84', named: 'WGS84' };
  if (name === 'NAD83' || name === 'NORTHAMERICAN1983' || name === 'DNORTHAMERICAN1983') return { def: '+ellps=GRS80 +towgs84=0,0,0,0,0,0,0', named: 'NAD83' };
  if (name === 'NAD27' || name === 'NORTHAMERICAN1927' || name === 'DNORTHAMERICAN1927') return { def: '+datum=NAD27', named: 'NAD27' };
  const sph = pro.proSpheroid as HfaRecord | null;
  const a = Number(sph?.a), b = Number(sph?.b);
  if (!(a > 0 && b > 0 && b <= a)) return `its spheroid "${sph?.sphereName ?? ''}" has no axes`;
  let def = `+a=${a} +b=${b}`;
  const p = Array.isArray(datum?.params) ? (datum!.params as number[]) : [];
  // A parametric datum's shift to WGS 84, rotations in radians written as GDAL's SetTOWGS84 takes them.
  if (datum?.type === 'EPRJ_DATUM_PARAMETRIC' && p.length >= 7 && p.every(Number.isFinite)) {
    def += ` +towgs84=${[p[0], p[1], p[2], -p[3] * RAD2ARCSEC, -p[4] * RAD2ARCSEC, -p[5] * RAD2ARCSEC, p[6] * 1e6].join(',')}`;
  }
  return { def };
}

/** The proj4 definition of the projection parameters, or why there is none. */
function projectionDef(pro: HfaRecord, ell: string, units: string): string | { why: string } {
  const n = Number(pro.proNumber);
  const p = Array.isArray(pro.proParams) ? (pro.proParams as number[]) : [];
  if (n !== 0 && n !== 1 && p.length < 8) return { why: `its ${PROJECTIONS[n] ?? `projection ${n}`} has ${p.length} parameters (8 or more expected)` };
  const deg = (i: number) => p[i] * R2D, xy = `+x_0=${p[6]} +y_0=${p[7]}`;
  const u = units.toLowerCase();
  const unit = u === 'feet' || u === 'us_survey_feet' ? '+units=us-ft' : u === 'international_feet' ? '+units=ft' : '+units=m';
  if (n !== 0 && unit === '+units=m' && u && u !== 'meters' && u !== 'meter' && u !== 'metres') return { why: `its map units are "${units}"` };
  switch (n) {
    case 0: return `+proj=longlat ${ell} +no_defs`;
    case 1: {
      const zone = Number(pro.proZone);
      if (!(Number.isInteger(zone) && zone >= 1 && zone <= 60)) return { why: `UTM zone ${pro.proZone} does not exist` };
      // The hemisphere is in proParams[3] (negative for south), as GDAL reads it.
      return `+proj=utm +zone=${zone}${(p[3] ?? 0) < 0 ? ' +south' : ''} ${ell} ${unit} +no_defs`;
    }
    case 3: return `+proj=aea +lat_0=${deg(5)} +lon_0=${deg(4)} +lat_1=${deg(2)} +lat_2=${deg(3)} ${xy} ${ell} ${unit} +no_defs`;
    case 4: return `+proj=lcc +lat_0=${deg(5)} +lon_0=${deg(4)} +lat_1=${deg(2)} +lat_2=${deg(3)} ${xy} ${ell} ${unit} +no_defs`;
    case 5: return `+proj=merc +lat_ts=${deg(5)} +lon_0=${deg(4)} ${xy} ${ell} ${unit} +no_defs`;
    case 6: return `+proj=stere +lat_0=${p[5] < 0 ? -90 : 90} +lat_ts=${deg(5)} +lon_0=${deg(4)} +k=1 ${xy} ${ell} ${unit} +no_defs`;
    case 9: return `+proj=tmerc +lat_0=${deg(5)} +lon_0=${deg(4)} +k=${p[2]} ${xy} ${ell} ${unit} +no_defs`;
    case 11: return `+proj=laea +lat_0=${deg(5)} +lon_0=${deg(4)} ${xy} ${ell} ${unit} +no_defs`;
    case 16: return `+proj=sinu +lon_0=${deg(4)} ${xy} ${ell} ${unit} +no_defs`;
    case 17: return `+proj=eqc +lat_ts=${deg(5)} +lat_0=0 +lon_0=${deg(4)} ${xy} ${ell} ${unit} +no_defs`;
    default: return { why: `ERDAS projection number ${n} ("${pro.proName ?? ''}") is not one GeoWeave reads` };
  }
}

/** ESRI PROJECTION names of the PE string, by the ERDAS projection number they are. */
const PE_METHODS: Record<string, number> = {
  albers: 3, lambert_conformal_conic: 4, mercator: 5, stereographic_north_pole: 6, stereographic_south_pole: 6, polar_stereographic: 6,
  transverse_mercator: 9, lambert_azimuthal_equal_area: 11, sinusoidal: 16, equidistant_cylindrical: 17, plate_carree: 17,
};
/** proj4 parameters of ESRI PARAMETER names, per method (a standard parallel is lat_ts where there is one). */
function peKey(name: string, n: number): string | undefined {
  switch (name) {
    case 'false_easting': return 'x_0';
    case 'false_northing': return 'y_0';
    case 'central_meridian': case 'longitude_of_center': return 'lon_0';
    case 'latitude_of_origin': case 'latitude_of_center': return n === 6 ? undefined : 'lat_0';
    case 'scale_factor': return n === 9 ? 'k' : undefined;
    case 'standard_parallel_1': return n === 3 || n === 4 ? 'lat_1' : n === 5 || n === 6 || n === 17 ? 'lat_ts' : undefined;
    case 'standard_parallel_2': return n === 3 || n === 4 ? 'lat_2' : undefined;
    default: return undefined;
  }
}

/**
 * The definition with the PE string's parameters where it names the same projection: GDAL reads
 * the PE string first, and GDAL's own writer leaves some parameters out of Eprj_ProParameters
 * (an equirectangular's standard parallel). The datum stays the parameters' (GDAL copies their shift too).
 */
function withPeParameters(def: string, n: number, pe: string | undefined): string {
  const method = pe && /PROJECTION\[\s*"([^"]+)"/i.exec(pe)?.[1].toLowerCase();
  if (!method || PE_METHODS[method] !== n) return def;
  let out = def;
  for (const m of pe!.matchAll(/PARAMETER\[\s*"([^"]+)"\s*,\s*([-+0-9.eE]+)\s*\]/g)) {
    const key = peKey(m[1].toLowerCase(), n), v = Number(m[2]);
    if (!key || !Number.isFinite(v)) continue;
    out = new RegExp(`\\+${key}=`).test(out) ? out.replace(new RegExp(`\\+${key}=\\S+`), `+${key}=${v}`) : `${out} +${key}=${v}`;
  }
  if (n === 6) {
    const ts = Number(/\+lat_ts=(\S+)/.exec(out)?.[1]);
    if (Number.isFinite(ts)) out = out.replace(/\+lat_0=\S+/, `+lat_0=${ts < 0 ? -90 : 90}`);
  }
  return out;
}

/** The CRS part of GeoInfo for a definition: an EPSG code GeoWeave knows that gives the same coordinates, else GeoTIFF keys. */
function crsOf(def: string, name: string, n: number, pro: HfaRecord, named: Datum | undefined): Pick<GeoInfo, 'epsg' | 'wkt' | 'keys' | 'geographic'> | string {
  const crs = parseCrs(def, name);
  const candidates: number[] = [];
  if (n === 0) { const e = geographicEpsg(named); if (e) candidates.push(e); }
  else if (n === 1) { const e = utmEpsg(named, Number(pro.proZone), def.includes('+south')); if (e) candidates.push(e); }
  else candidates.push(...PROJECTED_CANDIDATES);
  for (const code of candidates) {
    try { if (sameCrs(crs, crsFromEpsg(code))) return { epsg: code, geographic: crs.geographic }; } catch { /* not this one */ }
  }
  const keys = proj4ToGeoKeys(def, name);
  const back = keys ? geoKeysToProj4(keys) : undefined;
  if (!keys || !back || !('def' in back)) return `${def} cannot be carried as GeoTIFF keys`;
  return { wkt: name, keys, geographic: crs.geographic };
}

/**
 * The CRS of a layer from its Projection and Datum records and the PE string, with a warning when
 * there is one GeoWeave cannot use. `units` are Map_Info's.
 */
export function hfaCrs(pro: HfaRecord | undefined, datum: HfaRecord | undefined, pe: string | undefined, units: string):
  { crs?: Pick<GeoInfo, 'epsg' | 'wkt' | 'keys' | 'geographic'>; warning?: string } {
  let why = 'it has no Projection node';
  if (pro) {
    const ell = datumDef(pro, datum);
    const n = Number(pro.proNumber);
    const base = typeof ell === 'string' ? { why: ell } : projectionDef(pro, ell.def, n === 0 ? '' : units);
    const def = typeof base === 'string' ? withPeParameters(base, n, pe) : base;
    if (typeof def === 'string' && typeof ell !== 'string') {
      try {
        const c = crsOf(def, String(pro.proName || PROJECTIONS[n] || 'ERDAS projection'), n, pro, ell.named);
        if (typeof c !== 'string') return { crs: c };
        why = c;
      } catch (e) { why = `${def} is not a definition proj4 can use (${(e as Error).message})`; }
    } else why = typeof def === 'string' ? why : def.why;
  }
  if (pe) {
    try {
      const c = parseCrs(pe, 'ESRI PE string');
      if (c.epsg) return { crs: { epsg: c.epsg, geographic: c.geographic } };
      const keys = c.def.startsWith('+') ? proj4ToGeoKeys(c.def, c.label) : undefined;
      if (keys) return { crs: { wkt: c.label, keys, geographic: c.geographic } };
    } catch { /* the parameters' reason stands */ }
  }
  return { warning: `its coordinate system cannot be read (${why}); the raster is placed without one (reproject it with gdalwarp -t_srs EPSG:4326 first)` };
}
