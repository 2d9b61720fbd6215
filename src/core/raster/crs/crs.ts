/**
 * Coordinate reference systems through proj4: what a raster, a vector file or an argument says its
 * CRS is (EPSG code, GeoTIFF keys, WKT, proj4 string), and point transforms between two of them.
 */
import proj4 from 'proj4';
import type { GeoInfo } from '../io/dataset';
import { epsgDefinition } from './epsg';
import { GeoKeySet, geoKeysToProj4 } from './geokeys';

/** A CRS GeoWeave can transform: its proj4 definition, a label for messages, and where it came from. */
export interface Crs {
  /** proj4 definition (a proj string or WKT). */
  def: string;
  /** "EPSG:32632 (WGS 84 / UTM zone 32N)", "LAEA (no EPSG code)", ... */
  label: string;
  epsg?: number;
  geographic: boolean;
  /** GeoTIFF keys to write for this CRS when it has no EPSG code (copied from the raster it came from). */
  keys?: GeoKeySet;
}

/** A CRS that cannot be read or has no proj4 definition; the message names its source. */
export class CrsError extends Error {}

export const LONLAT: Crs = { def: epsgDefinition(4326)!.def, label: 'EPSG:4326 (WGS 84 lon/lat)', epsg: 4326, geographic: true };

const projCache = new Map<string, proj4.Converter>();

function projOf(def: string): proj4.Converter {
  let p = projCache.get(def);
  if (!p) {
    p = proj4(def);
    if (projCache.size > 64) projCache.clear();
    projCache.set(def, p);
  }
  return p;
}

/** The parsed projection (throws on a definition proj4 cannot use). */
function parsed(def: string): { projName?: string; units?: string } {
  return (proj4 as any).Proj(def) as { projName?: string; units?: string };
}

function isGeographicDef(def: string): boolean {
  const p = parsed(def);
  return p.projName === 'longlat' || p.projName === 'lonlat' || p.projName === 'latlong' || p.projName === 'latlon';
}

/** The EPSG CRS, or a CrsError naming the code and what to pass instead. */
export function crsFromEpsg(code: number, where = 'EPSG code'): Crs {
  const d = epsgDefinition(code);
  if (!d) {
    throw new CrsError(`${where} EPSG:${code} is not among the codes GeoWeave knows (lon/lat datums, UTM zones, web/world Mercator, LAEA and LCC Europe, Conus and Australian Albers, Lambert-93, LUREF, British and Belgian grids, polar stereographic, EASE-Grid 2.0, Equal Earth); give its proj4 string or WKT instead (gdalsrsinfo -o proj4 EPSG:${code})`);
  }
  return { def: d.def, label: `EPSG:${code} (${d.name})`, epsg: code, geographic: isGeographicDef(d.def) };
}

/** PROJ's zero defaults for origin and false easting/northing, which proj4 leaves undefined (NaN results) in some projections. */
function withProjDefaults(def: string): string {
  if (/\+proj=(longlat|latlong|lonlat|latlon)\b/.test(def)) return def;
  const missing = ['x_0', 'y_0', 'lat_0', 'lon_0'].filter((k) => !new RegExp(`\\+${k}=`).test(def));
  return missing.length ? `${def} ${missing.map((k) => `+${k}=0`).join(' ')}` : def;
}

/** The EPSG code a WKT names for the whole CRS (its last AUTHORITY/ID), if any. */
function wktEpsg(wkt: string): number | undefined {
  const m = [...wkt.matchAll(/(?:AUTHORITY|ID)\[\s*"EPSG"\s*,\s*"?(\d+)"?\s*\]/gi)];
  if (!m.length) return undefined;
  // The CRS's own code closes the text: `...,AUTHORITY["EPSG","32632"]]`.
  const last = m[m.length - 1];
  const tail = wkt.slice((last.index ?? 0) + last[0].length).trim();
  return /^\]*$/.test(tail) ? Number(last[1]) : undefined;
}

/**
 * The EPSG code ESRI WKT (a .prj, an ENVI or EHdr header) means by its name alone, for the common
 * cases ESRI writes without an authority: UTM zones on WGS 84, NAD83, NAD27 and ETRS89, and the
 * geographic WGS 84, NAD83 and NAD27. The caller confirms the definition gives the same coordinates.
 */
function esriNamedEpsg(wkt: string): number | undefined {
  const name = wktName(wkt);
  const utm = /^(WGS_1984|NAD_1983|NAD_1927|ETRS_1989)_UTM_Zone_(\d{1,2})([NS])$/i.exec(name);
  if (utm) return utmEpsg(ESRI_DATUMS[utm[1].toUpperCase()], Number(utm[2]), utm[3].toUpperCase() === 'S');
  if (/^GEOGCS\[/i.test(wkt.trim())) return geographicEpsg(({ GCS_WGS_1984: 'WGS84', GCS_North_American_1983: 'NAD83', GCS_North_American_1927: 'NAD27' } as Record<string, Datum>)[name]);
  return undefined;
}

const ESRI_DATUMS: Record<string, Datum> = { WGS_1984: 'WGS84', NAD_1983: 'NAD83', NAD_1927: 'NAD27', ETRS_1989: 'ETRS89' };

/** The datums whose UTM zones and lon/lat CRSs have EPSG codes GeoWeave names from a datum and a zone alone. */
export type Datum = 'WGS84' | 'NAD83' | 'NAD27' | 'ETRS89';

/** The EPSG code of a UTM zone on a datum (NAD zones north only, ETRS89 zones 28–38), or undefined. */
export function utmEpsg(datum: Datum | undefined, zone: number, south: boolean): number | undefined {
  if (!datum || !Number.isInteger(zone) || zone < 1 || zone > 60) return undefined;
  if (datum === 'WGS84') return (south ? 32700 : 32600) + zone;
  if (south) return undefined;
  if (datum === 'NAD83') return zone <= 23 ? 26900 + zone : undefined;
  if (datum === 'NAD27') return zone <= 22 ? 26700 + zone : undefined;
  return zone >= 28 && zone <= 38 ? 25800 + zone : undefined;
}

/** The EPSG code of lon/lat on a datum (WGS 84, NAD83, NAD27), or undefined. */
export function geographicEpsg(datum: Datum | undefined): number | undefined {
  return datum === 'WGS84' ? 4326 : datum === 'NAD83' ? 4269 : datum === 'NAD27' ? 4267 : undefined;
}

function wktName(wkt: string): string {
  const m = /^\s*[A-Z]+\[\s*"([^"]*)"/.exec(wkt);
  return m ? m[1] : 'unnamed';
}

/**
 * A CRS from text as a user or a file gives it: "EPSG:4326", "4326", "OGC:CRS84", a proj4 string
 * ("+proj=utm +zone=32 ..."), or WKT (a .prj file, gdalsrsinfo -o wkt). `what` names the source in errors.
 */
export function parseCrs(text: string, what: string): Crs {
  const s = text.trim();
  if (!s) throw new CrsError(`${what} is empty; give an EPSG code (EPSG:4326), a proj4 string or WKT`);
  if (/^(OGC:|urn:ogc:def:crs:OGC:[^:]*:)?CRS:?84$/i.test(s)) return LONLAT;
  const code = /^(?:EPSG:{1,2}|urn:ogc:def:crs:EPSG:[^:]*:|https?:\/\/www\.opengis\.net\/def\/crs\/EPSG\/0\/)?(\d{4,6})$/i.exec(s);
  if (code) return crsFromEpsg(Number(code[1]), what);
  if (s.startsWith('+')) {
    try {
      const def = withProjDefaults(s);
      return { def, label: `"${s.length > 80 ? `${s.slice(0, 80)}…` : s}"`, geographic: isGeographicDef(def) };
    } catch (e) {
      throw new CrsError(`${what} "${s.slice(0, 80)}" is not a proj4 definition GeoWeave can use (${(e as Error).message})`);
    }
  }
  if (/^(PROJCS|GEOGCS|PROJCRS|GEOGCRS|GEODCRS|PROJECTEDCRS|GEOGRAPHICCRS|BOUNDCRS|COMPD_CS|COMPOUNDCRS)\s*\[/i.test(s)) {
    const epsg = wktEpsg(s);
    if (epsg !== undefined && epsgDefinition(epsg)) return crsFromEpsg(epsg, what);
    // ESRI WKT names its CRS without an authority: the code its name means, where the definition agrees.
    const named = epsg === undefined ? esriNamedEpsg(s) : undefined;
    if (named !== undefined && epsgDefinition(named)) {
      try { if (equivalentDefs(s, epsgDefinition(named)!.def)) return crsFromEpsg(named, what); } catch { /* read as WKT below */ }
    }
    try {
      return { def: s, label: `"${wktName(s)}"${epsg ? ` (EPSG:${epsg})` : ' (no EPSG code)'}`, ...(epsg ? { epsg } : {}), geographic: isGeographicDef(s) };
    } catch (e) {
      throw new CrsError(`${what}: the WKT "${wktName(s)}" is not one proj4 can use (${(e as Error).message}); export it as a proj4 string (gdalsrsinfo -o proj4) and pass that`);
    }
  }
  throw new CrsError(`${what} "${s.slice(0, 80)}" is not a CRS; give an EPSG code (EPSG:32632), a proj4 string (+proj=...) or WKT`);
}

/**
 * The CRS of a raster's georeferencing, or undefined when the file names none. A CRS the keys
 * describe but proj4 cannot use throws, naming the file.
 */
export function crsOfGeo(geo: GeoInfo, file: string): Crs | undefined {
  if (geo.epsg !== undefined) {
    const d = epsgDefinition(geo.epsg);
    if (d) return { def: d.def, label: `EPSG:${geo.epsg} (${d.name})`, epsg: geo.epsg, geographic: isGeographicDef(d.def) };
  }
  if (geo.keys) {
    const r = geoKeysToProj4(geo.keys);
    if ('def' in r) {
      const name = geo.wkt && geo.wkt !== 'unknown' ? `"${geo.wkt.split('|')[0].slice(0, 60)}"` : describeDef(r.def);
      return { def: r.def, label: geo.epsg !== undefined ? `EPSG:${geo.epsg}` : `${name} (no EPSG code)`, ...(geo.epsg !== undefined ? { epsg: geo.epsg } : {}), geographic: isGeographicDef(r.def), keys: geo.keys };
    }
    if (geo.epsg !== undefined) throw new CrsError(`${file}: its CRS EPSG:${geo.epsg} is not among the codes GeoWeave knows; reproject it with gdalwarp -t_srs EPSG:4326 (or a UTM zone) first`);
    throw new CrsError(`${file}: its CRS cannot be used because ${r.why}; reproject it with gdalwarp -t_srs to an EPSG CRS first`);
  }
  if (geo.epsg !== undefined) throw new CrsError(`${file}: its CRS EPSG:${geo.epsg} is not among the codes GeoWeave knows; reproject it with gdalwarp -t_srs EPSG:4326 (or a UTM zone) first`);
  return undefined;
}

/** "+proj=laea" → "LAEA", for labels of CRSs without a name. */
function describeDef(def: string): string {
  const m = /\+proj=(\w+)/.exec(def);
  return m ? m[1].toUpperCase() : 'custom CRS';
}

/** Label of a raster's CRS for messages (never throws). */
export function crsLabelOf(geo: GeoInfo, file = 'raster'): string {
  try {
    return crsOfGeo(geo, file)?.label ?? 'no CRS';
  } catch {
    return geo.epsg !== undefined ? `EPSG:${geo.epsg}` : geo.wkt ?? 'an unreadable CRS';
  }
}

/** Tokens of a proj4 string in a canonical order, for comparisons. */
function canonical(def: string): string {
  if (!def.startsWith('+')) return def.replace(/\s+/g, ' ').trim();
  return def.split(/\s+/).filter((t) => t && t !== '+no_defs' && t !== '+wktext' && t !== '+type=crs').sort().join(' ');
}

const equivalence = new Map<string, boolean>();

/**
 * True when two definitions give the same coordinates (an ESRI .prj for "WGS_1984_UTM_Zone_32N"
 * and EPSG:32632): nine points around the first CRS's false origin, taken to lon/lat and back
 * into both, agree to a millimetre.
 */
function equivalentDefs(a: string, b: string): boolean {
  const key = `${a}\u0000${b}`;
  let hit = equivalence.get(key);
  if (hit !== undefined) return hit;
  hit = false;
  try {
    const pa = parsed(a) as { x0?: number; y0?: number };
    const toA = proj4(LONLAT.def, a) as unknown as proj4.Converter, toB = proj4(LONLAT.def, b) as unknown as proj4.Converter;
    const geographic = isGeographicDef(a);
    const x0 = geographic ? 0 : pa.x0 ?? 0, y0 = geographic ? 0 : pa.y0 ?? 0, d = geographic ? 1 : 100000;
    let compared = 0;
    hit = true;
    for (const dx of [-d, 0, d]) {
      for (const dy of [-d, 0, d]) {
        const ll = toA.inverse([x0 + dx, y0 + dy]) as number[];
        if (!Number.isFinite(ll[0]) || !Number.isFinite(ll[1])) continue;
        const qa = toA.forward(ll) as number[], qb = toB.forward(ll) as number[];
        if (!qa.every(Number.isFinite)) continue;
        compared++;
        const tol = geographic ? 1e-8 : 0.001;
        if (!qb.every(Number.isFinite) || Math.abs(qa[0] - qb[0]) > tol || Math.abs(qa[1] - qb[1]) > tol) { hit = false; break; }
      }
      if (!hit) break;
    }
    if (compared < 3) hit = false;
  } catch {
    hit = false;
  }
  if (equivalence.size > 256) equivalence.clear();
  equivalence.set(key, hit);
  return hit;
}

/** True when two CRSs are the same (same EPSG code, the same definition, or definitions that give the same coordinates). */
export function sameCrs(a: Crs, b: Crs): boolean {
  if (a.epsg !== undefined && b.epsg !== undefined) return a.epsg === b.epsg;
  if (canonical(a.def) === canonical(b.def)) return true;
  return equivalentDefs(a.def, b.def);
}

/** Point transform between two CRSs (x, y in each CRS's units; lon/lat in degrees, lon first). */
export interface CrsTransform {
  forward(x: number, y: number): [number, number];
  inverse(x: number, y: number): [number, number];
  identity: boolean;
}

/** A transform from `from` to `to`; identity when they are the same CRS. */
export function transformer(from: Crs, to: Crs): CrsTransform {
  if (sameCrs(from, to)) return { forward: (x, y) => [x, y], inverse: (x, y) => [x, y], identity: true };
  let conv: proj4.Converter;
  try {
    conv = proj4(from.def, to.def) as unknown as proj4.Converter;
  } catch (e) {
    throw new CrsError(`cannot transform from ${from.label} to ${to.label} (${(e as Error).message})`);
  }
  projOf(from.def); projOf(to.def);
  return {
    forward: (x, y) => conv.forward([x, y]) as [number, number],
    inverse: (x, y) => conv.inverse([x, y]) as [number, number],
    identity: false,
  };
}
