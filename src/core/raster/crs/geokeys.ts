/**
 * GeoTIFF GeoKeys as written in a file (directory, double and ASCII parameters), and the proj4
 * definition they describe. Outputs on an input's CRS copy the keys as they were, so a CRS without
 * an EPSG code reads back the same in GDAL.
 */
import { DATUMS, ELLIPSOIDS, GEOGRAPHIC_DATUM, epsgConversion, epsgDefinition } from './epsg';
import { trimEnd } from '../io/trim-end';

/** The three GeoTIFF tags as stored: key entries (4 numbers each, header left out), doubles, ASCII. */
export interface GeoKeySet { entries: number[]; doubles: number[]; ascii: string }

const USER_DEFINED = 32767;

/** Value of key `id`: a number, a string, or numbers (several doubles); undefined when absent or out of range. */
export function keyValue(set: GeoKeySet, id: number): number | string | number[] | undefined {
  const e = set.entries;
  for (let k = 0; k + 3 < e.length; k += 4) {
    if (e[k] !== id) continue;
    const loc = e[k + 1], count = e[k + 2], off = e[k + 3];
    if (loc === 0) return off;
    if (loc === 34736) {
      if (off + count > set.doubles.length) return undefined;
      return count === 1 ? set.doubles[off] : set.doubles.slice(off, off + count);
    }
    if (loc === 34737) return off + count <= set.ascii.length ? trimEnd(set.ascii.substring(off, off + count), '|\0') : undefined;
    return undefined;
  }
  return undefined;
}

function num(set: GeoKeySet, ...ids: number[]): number | undefined {
  for (const id of ids) {
    const v = keyValue(set, id);
    if (typeof v === 'number' && Number.isFinite(v)) return v;
  }
  return undefined;
}

/** The datum/ellipsoid part of a proj4 definition, from a geographic CRS code or the datum keys. */
function datumPart(set: GeoKeySet): string | undefined {
  const geog = num(set, 2048);
  if (geog !== undefined && geog !== USER_DEFINED) {
    const d = epsgDefinition(geog);
    if (d) return d.def.split(' ').filter((t) => /^\+(datum|ellps|towgs84|a|b|rf|nadgrids)=/.test(t)).join(' ');
    const datum = GEOGRAPHIC_DATUM[geog];
    if (datum && DATUMS[datum]) return DATUMS[datum];
  }
  const towgs = keyValue(set, 2062);
  const shift = Array.isArray(towgs) && (towgs.length === 3 || towgs.length === 7) ? ` +towgs84=${towgs.join(',')}` : '';
  const datum = num(set, 2050);
  if (datum !== undefined && DATUMS[datum]) return DATUMS[datum] + (DATUMS[datum].includes('towgs84') || DATUMS[datum].includes('datum=') ? '' : shift);
  const ell = num(set, 2056);
  if (ell !== undefined && ELLIPSOIDS[ell]) return ELLIPSOIDS[ell] + shift;
  const a = num(set, 2057), b = num(set, 2058), rf = num(set, 2059);
  if (a !== undefined && rf !== undefined) return rf === 0 ? `+a=${a} +b=${a}${shift}` : `+a=${a} +rf=${rf}${shift}`;
  if (a !== undefined && b !== undefined) return `+a=${a} +b=${b}${shift}`;
  return undefined;
}

/** proj4 parameters of a user-defined projection (ProjCoordTransGeoKey and its parameters), or a reason it has none. */
function projectionPart(set: GeoKeySet): string | { why: string } {
  const conv = num(set, 3074);
  if (conv !== undefined && conv !== USER_DEFINED) {
    const p = epsgConversion(conv);
    return p ?? { why: `its ProjectionGeoKey ${conv} is not a conversion GeoWeave knows` };
  }
  const ct = num(set, 3075);
  const fe = num(set, 3082, 3086, 3090) ?? 0, fn = num(set, 3083, 3087, 3091) ?? 0;
  const xy = `+x_0=${fe} +y_0=${fn}`;
  const lat0 = num(set, 3081, 3085, 3089) ?? 0, lon0 = num(set, 3080, 3084, 3088) ?? 0;
  const k = num(set, 3092, 3093) ?? 1;
  const sp1 = num(set, 3078), sp2 = num(set, 3079);
  switch (ct) {
    case 1: return `+proj=tmerc +lat_0=${lat0} +lon_0=${lon0} +k=${k} ${xy}`;
    case 7: return sp1 !== undefined ? `+proj=merc +lat_ts=${sp1} +lon_0=${lon0} ${xy}` : `+proj=merc +lon_0=${lon0} +k=${k} ${xy}`;
    case 8: return `+proj=lcc +lat_0=${num(set, 3085, 3081) ?? 0} +lon_0=${num(set, 3084, 3080) ?? 0} +lat_1=${sp1 ?? 0} +lat_2=${sp2 ?? sp1 ?? 0} ${xy}`;
    case 9: return `+proj=lcc +lat_1=${lat0} +lat_0=${lat0} +lon_0=${lon0} +k_0=${k} ${xy}`;
    case 10: return `+proj=laea +lat_0=${num(set, 3089, 3081) ?? 0} +lon_0=${num(set, 3088, 3080) ?? 0} ${xy}`;
    case 11: return `+proj=aea +lat_0=${lat0} +lon_0=${lon0} +lat_1=${sp1 ?? 0} +lat_2=${sp2 ?? sp1 ?? 0} ${xy}`;
    case 12: return `+proj=eqdc +lat_0=${lat0} +lon_0=${lon0} +lat_1=${sp1 ?? 0} +lat_2=${sp2 ?? sp1 ?? 0} ${xy}`;
    case 14: return `+proj=stere +lat_0=${num(set, 3089, 3081) ?? 0} +lon_0=${num(set, 3088, 3080) ?? 0} +k=${k} ${xy}`;
    case 15: {
      const ts = num(set, 3081) ?? 90;
      return `+proj=stere +lat_0=${ts < 0 ? -90 : 90} +lat_ts=${ts} +lon_0=${num(set, 3095, 3080) ?? 0} +k=${k} ${xy}`;
    }
    case 16: return `+proj=sterea +lat_0=${lat0} +lon_0=${lon0} +k=${k} ${xy}`;
    case 17: return `+proj=eqc +lat_ts=${sp1 ?? 0} +lat_0=${lat0} +lon_0=${lon0} ${xy}`;
    case 21: return `+proj=ortho +lat_0=${lat0} +lon_0=${lon0} ${xy}`;
    case 24: return `+proj=sinu +lon_0=${lon0} ${xy}`;
    case 28: return `+proj=cea +lat_ts=${sp1 ?? 0} +lon_0=${lon0} ${xy}`;
    default: return { why: ct === undefined ? 'it has no ProjCoordTransGeoKey' : `its coordinate transformation ${ct} (ProjCoordTransGeoKey) is not one GeoWeave maps to proj4` };
  }
}

function unitsPart(set: GeoKeySet): string {
  const u = num(set, 3076);
  if (u === 9002) return '+units=ft';
  if (u === 9003) return '+units=us-ft';
  const size = num(set, 3077);
  if (size !== undefined && size > 0 && size !== 1) return `+to_meter=${size}`;
  return '+units=m';
}

/**
 * The WKT GDAL leaves in a citation key for a CRS the GeoKeys cannot express (Mollweide, Robinson,
 * Eckert…): the model is user-defined and the PCS citation reads "ESRI PE String = PROJCS[…]". GDAL
 * reads the CRS back from there, and proj4 parses that WKT.
 */
function esriPeString(set: GeoKeySet): string | undefined {
  for (const id of [3073, 1026, 2049]) {
    const v = keyValue(set, id);
    const m = typeof v === 'string' ? /ESRI PE String = ((PROJCS|GEOGCS)\[.*\])/.exec(v) : null;
    if (m) return m[1];
  }
  return undefined;
}

/** proj4 definition of the keys, or the reason there is none (unknown method, no datum...). */
export function geoKeysToProj4(set: GeoKeySet): { def: string } | { why: string } {
  const fromKeys = keysToProj4(set);
  const pe = 'why' in fromKeys ? esriPeString(set) : undefined;
  return pe ? { def: pe } : fromKeys;
}

function keysToProj4(set: GeoKeySet): { def: string } | { why: string } {
  const model = num(set, 1024);
  if (model === 2 || (model === undefined && num(set, 2048) !== undefined && num(set, 3072) === undefined)) {
    const code = num(set, 2048);
    if (code !== undefined && code !== USER_DEFINED) {
      const d = epsgDefinition(code);
      if (d) return { def: d.def };
    }
    const datum = datumPart(set);
    return datum ? { def: `+proj=longlat ${datum} +no_defs` } : { why: 'its geographic CRS names no datum or ellipsoid GeoWeave knows' };
  }
  if (model === 1) {
    const code = num(set, 3072);
    if (code !== undefined && code !== USER_DEFINED) {
      const d = epsgDefinition(code);
      return d ? { def: d.def } : { why: `EPSG:${code} is not among the codes GeoWeave knows` };
    }
    const proj = projectionPart(set);
    if (typeof proj !== 'string') return proj;
    const datum = datumPart(set);
    if (!datum) return { why: 'its projected CRS names no datum or ellipsoid GeoWeave knows' };
    return { def: `${proj} ${datum} ${unitsPart(set)} +no_defs` };
  }
  return { why: model === 3 ? 'it is a geocentric CRS' : 'it has no GTModelTypeGeoKey' };
}

/** A copy of `set` that says PixelIsArea (our geotransforms always refer to pixel corners). */
export function asPixelIsArea(set: GeoKeySet): GeoKeySet {
  const entries = set.entries.slice();
  for (let k = 0; k + 3 < entries.length; k += 4) if (entries[k] === 1025 && entries[k + 1] === 0) entries[k + 3] = 1;
  return { entries, doubles: set.doubles.slice(), ascii: set.ascii };
}
