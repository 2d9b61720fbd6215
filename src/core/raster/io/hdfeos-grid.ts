/**
 * HDF-EOS2 structure metadata: the ODL text of the `StructMetadata.0` (.1, …) global attributes
 * (HDF-EOS5's: the `/HDFEOS INFORMATION/StructMetadata.0` string dataset, its GCTP names prefixed HE5_),
 * listing the grids (name, size, corners, GCTP projection and its parameters, data fields with
 * their dimension lists) and swaths of a MODIS-style file; and a grid's georeferencing as GDAL's
 * HDF4 driver gives it for HDF4_EOS:EOS_GRID: pixel-corner geotransform from UpperLeftPointMtrs and
 * LowerRightMtrs over XDim × YDim, packed degrees (DDDMMMSSS.SS) for GCTP_GEO, and the CRS from
 * the GCTP code, zone, sphere and parameters (angles in packed degrees, as GCTP stores them).
 */
import type { GeoInfo } from './dataset';
import { proj4ToGeoKeys } from '../crs/keys-from-proj4';
import { geoKeysToProj4 } from '../crs/geokeys';

/** A GROUP or OBJECT of ODL text: its KEY=VALUE pairs (values as written) and its nested groups. */
export interface OdlNode { name: string; values: Map<string, string>; children: OdlNode[] }

/** Parses ODL (GROUP=…/END_GROUP, OBJECT=…/END_OBJECT, KEY=VALUE; a value in parentheses may span lines). */
export function parseOdl(text: string): OdlNode {
  const root: OdlNode = { name: '', values: new Map(), children: [] };
  const stack = [root];
  // The text ends at its first NUL (the attribute is padded with them).
  const nul = text.indexOf('\0');
  const lines = (nul >= 0 ? text.slice(0, nul) : text).split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line || line === 'END') continue;
    const eq = line.indexOf('=');
    if (eq < 0) continue;
    const key = line.slice(0, eq).trim();
    let value = line.slice(eq + 1).trim();
    // A tuple continued on the next lines (depth counted per added line: a stray "(" stays linear).
    if (value.startsWith('(')) {
      let open = depth(value, 0);
      while (open.depth > 0 && i + 1 < lines.length) { const more = lines[++i].trim(); value += more; open = depth(more, open.depth, open.quoted); }
    }
    const top = stack[stack.length - 1];
    if (key === 'GROUP' || key === 'OBJECT') {
      const node: OdlNode = { name: value, values: new Map(), children: [] };
      top.children.push(node);
      stack.push(node);
      if (stack.length > 64) break;
    } else if (key === 'END_GROUP' || key === 'END_OBJECT') {
      if (stack.length > 1) stack.pop();
    } else {
      top.values.set(key, value);
    }
  }
  return root;
}

/** Parenthesis depth after `s`, from `d` (and inside quotes or not): quoted parentheses do not count. */
function depth(s: string, d: number, quoted = false): { depth: number; quoted: boolean } {
  for (const ch of s) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && ch === '(') d++;
    else if (!quoted && ch === ')') d--;
  }
  return { depth: d, quoted };
}

/** An ODL value without its quotes. */
export function odlString(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  const m = /^"(.*)"$/.exec(v.trim());
  return m ? m[1] : v.trim();
}

/** The items of an ODL tuple `("a","b")` or `(1,2)`, unquoted. */
export function odlTuple(v: string | undefined): string[] {
  if (v === undefined) return [];
  const inner = v.trim().replace(/^\(/, '').replace(/\)$/, '');
  return inner.split(',').map((s) => odlString(s)!).filter((s) => s !== '');
}

export interface EosField { name: string; dimList: string[]; dataType: string }
/** One grid of GridStructure: what GDgridinfo and GDprojinfo give, and its data fields. */
export interface EosGrid {
  name: string; xdim: number; ydim: number;
  upperLeft?: [number, number]; lowerRight?: [number, number];
  projection: string; zone?: number; sphere?: number; params: number[];
  /** HDF-EOS5's GridOrigin without its prefix (HDFE_GD_UL, the default: rows from the north). */
  origin?: string;
  dims: Map<string, number>; fields: EosField[];
}
export interface EosStructure { grids: EosGrid[]; swaths: { name: string; fields: string[] }[] }

/** Grids and swaths of HDF-EOS structure metadata. */
export function eosStructure(odl: string): EosStructure {
  const root = parseOdl(odl);
  const group = (n: OdlNode, name: string) => n.children.find((c) => c.name === name);
  const objects = (n: OdlNode | undefined) => n?.children ?? [];
  const pair = (v: string | undefined): [number, number] | undefined => {
    const t = odlTuple(v).map(Number);
    return t.length === 2 && t.every(Number.isFinite) ? [t[0], t[1]] : undefined;
  };
  const grids: EosGrid[] = objects(group(root, 'GridStructure')).map((g) => {
    const v = g.values;
    const fields = [...objects(group(g, 'DataField'))].map((o) => ({
      name: odlString(o.values.get('DataFieldName')) ?? '', dimList: odlTuple(o.values.get('DimList')), dataType: odlString(o.values.get('DataType')) ?? '',
    })).filter((f) => f.name);
    const dims = new Map<string, number>();
    for (const o of objects(group(g, 'Dimension'))) {
      const name = odlString(o.values.get('DimensionName'));
      if (name) dims.set(name, Number(o.values.get('Size')));
    }
    const num = (k: string) => (v.has(k) ? Number(v.get(k)) : undefined);
    return {
      name: odlString(v.get('GridName')) ?? g.name, xdim: num('XDim') ?? 0, ydim: num('YDim') ?? 0,
      upperLeft: pair(v.get('UpperLeftPointMtrs')), lowerRight: pair(v.get('LowerRightMtrs')),
      // HDF-EOS5 writes the same GCTP names with a prefix (HE5_GCTP_SNSOID, HE5_HDFE_GD_UL).
      projection: (odlString(v.get('Projection')) ?? '').replace(/^HE5_/, ''), zone: num('ZoneCode'), sphere: num('SphereCode'),
      params: odlTuple(v.get('ProjParams')).map(Number), origin: odlString(v.get('GridOrigin'))?.replace(/^HE5_/, ''), dims, fields,
    };
  });
  const swaths = objects(group(root, 'SwathStructure')).map((s) => ({
    name: odlString(s.values.get('SwathName')) ?? s.name,
    fields: [...objects(group(s, 'GeoField')), ...objects(group(s, 'DataField'))].map((o) => odlString(o.values.get('GeoFieldName') ?? o.values.get('DataFieldName')) ?? '').filter(Boolean),
  }));
  return { grids, swaths };
}

/** GDAL's CPLPackedDMSToDec: DDDMMMSSS.SS → degrees. */
export function packedDmsToDegrees(packed: number): number {
  const sign = packed < 0 ? -1 : 1;
  let s = Math.abs(packed);
  const d = Math.floor(s / 1e6);
  s -= d * 1e6;
  const m = Math.floor(s / 1e3);
  s -= m * 1e3;
  return (sign * (d * 3600 + m * 60 + s)) / 3600;
}

/** GCTP's ellipsoids by SphereCode (sphdz.c): semi-major and semi-minor axes. */
const SPHERES: [number, number][] = [
  [6378206.4, 6356583.8], [6378249.145, 6356514.86955], [6377397.155, 6356078.96284], [6378157.5, 6356772.2],
  [6378388.0, 6356911.94613], [6378135.0, 6356750.519915], [6377276.3452, 6356075.4133], [6378145.0, 6356759.769356],
  [6378137.0, 6356752.31414], [6377563.396, 6356256.91], [6377304.063, 6356103.039], [6377340.189, 6356034.448],
  [6378137.0, 6356752.314245], [6378155.0, 6356773.3205], [6378160.0, 6356774.719], [6378245.0, 6356863.0188],
  [6378270.0, 6356794.343479], [6378166.0, 6356784.283666], [6378150.0, 6356768.337303], [6370997.0, 6370997.0],
];
const WGS84_SPHERE = 12;

/** The proj4 ellipsoid of a grid: ProjParams[0..1] when set (radius, or axes/e²), else its SphereCode. */
function ellipsoid(g: EosGrid): string | undefined {
  const [a, b] = [g.params[0] ?? 0, g.params[1] ?? 0];
  if (a > 0) {
    if (b === 0) return `+a=${a} +b=${a}`;
    if (b > 0 && b < 1) return `+a=${a} +b=${a * Math.sqrt(1 - b)}`;
    return `+a=${a} +b=${b}`;
  }
  const code = g.sphere ?? 0;
  if (code === WGS84_SPHERE) return '+datum=WGS84';
  const axes = SPHERES[code];
  return axes ? `+a=${axes[0]} +b=${axes[1]}` : undefined;
}

const GCTP_NAMES: Record<string, string> = {
  GCTP_SNSOID: 'sinusoidal', GCTP_LAMAZ: 'Lambert azimuthal equal-area', GCTP_PS: 'polar stereographic', GCTP_ALBERS: 'Albers equal-area',
  GCTP_LAMCC: 'Lambert conformal conic', GCTP_TM: 'transverse Mercator', GCTP_MERCAT: 'Mercator', GCTP_EQRECT: 'equirectangular', GCTP_CEA: 'cylindrical equal-area',
};

/** The proj4 definition of a grid's projection (not GEO or UTM), or why there is none. */
function projectionDef(g: EosGrid): string | { why: string } {
  const p = (i: number) => g.params[i] ?? 0;
  const deg = (i: number) => packedDmsToDegrees(p(i));
  const xy = `+x_0=${p(6)} +y_0=${p(7)}`;
  const ell = ellipsoid(g);
  if (!ell) return { why: `its SphereCode ${g.sphere} is not one of GCTP's` };
  switch (g.projection) {
    case 'GCTP_SNSOID': return `+proj=sinu +lon_0=${deg(4)} ${xy} ${ell} +units=m`;
    case 'GCTP_LAMAZ': return `+proj=laea +lat_0=${deg(5)} +lon_0=${deg(4)} ${xy} ${ell} +units=m`;
    case 'GCTP_PS': return `+proj=stere +lat_0=${deg(5) < 0 ? -90 : 90} +lat_ts=${deg(5)} +lon_0=${deg(4)} +k=1 ${xy} ${ell} +units=m`;
    case 'GCTP_ALBERS': return `+proj=aea +lat_1=${deg(2)} +lat_2=${deg(3)} +lat_0=${deg(5)} +lon_0=${deg(4)} ${xy} ${ell} +units=m`;
    case 'GCTP_LAMCC': return `+proj=lcc +lat_1=${deg(2)} +lat_2=${deg(3)} +lat_0=${deg(5)} +lon_0=${deg(4)} ${xy} ${ell} +units=m`;
    case 'GCTP_TM': return `+proj=tmerc +lat_0=${deg(5)} +lon_0=${deg(4)} +k=${p(2) || 1} ${xy} ${ell} +units=m`;
    case 'GCTP_MERCAT': return `+proj=merc +lat_ts=${deg(5)} +lon_0=${deg(4)} ${xy} ${ell} +units=m`;
    case 'GCTP_EQRECT': return `+proj=eqc +lat_ts=${deg(5)} +lon_0=${deg(4)} ${xy} ${ell} +units=m`;
    case 'GCTP_CEA': return `+proj=cea +lat_ts=${deg(5)} +lon_0=${deg(4)} ${xy} ${ell} +units=m`;
    case 'GCTP_ISINUS': case 'GCTP_ISINUS1': return { why: 'it is on the integerized sinusoidal projection (GCTP_ISINUS, MODIS collection 3), which proj4 does not have' };
    default: return { why: `its projection ${g.projection || '(none)'} is not one GeoWeave maps` };
  }
}

/** MODIS's sinusoidal sphere: the CRS name GDAL-written GeoTIFFs of MODIS tiles carry too. */
const MODIS_SPHERE = 6371007.181;

/**
 * A grid's georeferencing, as GDAL gives it for HDF4_EOS:EOS_GRID, and what could not be placed
 * (a projection without a CRS GeoWeave knows: the grid keeps its geotransform, without a CRS).
 */
export function gridGeo(g: EosGrid, file: string): { geo: GeoInfo; warnings: string[] } {
  const warnings: string[] = [];
  let ul = g.upperLeft, lr = g.lowerRight;
  if (g.projection === 'GCTP_GEO') {
    // HDF-EOS's default corners for a geographic grid are the whole globe.
    ul ??= [-180e6, 90e6];
    lr ??= [180e6, -90e6];
    ul = [packedDmsToDegrees(ul[0]), packedDmsToDegrees(ul[1])];
    lr = [packedDmsToDegrees(lr[0]), packedDmsToDegrees(lr[1])];
  }
  if (!ul || !lr || !(g.xdim > 0 && g.ydim > 0)) {
    warnings.push(`${file}: grid "${g.name}" gives no corners (UpperLeftPointMtrs/LowerRightMtrs); it is read without a place on the map`);
    return { geo: { geographic: false, geoTransform: [0, 1, 0, 0, 0, 1], ungeoreferenced: { gcps: [] } }, warnings };
  }
  const gt: GeoInfo['geoTransform'] = [ul[0], (lr[0] - ul[0]) / g.xdim, 0, ul[1], 0, (lr[1] - ul[1]) / g.ydim];
  if (g.projection === 'GCTP_GEO') return { geo: { epsg: 4326, geographic: true, geoTransform: gt }, warnings };
  if (g.projection === 'GCTP_UTM') {
    let zone = g.zone ?? 0;
    if (zone === 0) {
      // Zone 0: the zone of the longitude/latitude in ProjParams[0..1] (packed degrees).
      const lon = packedDmsToDegrees(g.params[0] ?? 0), lat = packedDmsToDegrees(g.params[1] ?? 0);
      zone = (lat < 0 ? -1 : 1) * Math.min(60, Math.floor((lon + 180) / 6) + 1);
    }
    const n = Math.abs(zone), south = zone < 0;
    if (!(n >= 1 && n <= 60)) {
      warnings.push(`${file}: grid "${g.name}" is on UTM zone ${zone}, which does not exist; it is placed without a CRS`);
      return { geo: { geographic: false, geoTransform: gt }, warnings };
    }
    const ell = ellipsoid({ ...g, params: [] });
    if (ell === '+datum=WGS84') return { geo: { epsg: (south ? 32700 : 32600) + n, geographic: false, geoTransform: gt }, warnings };
    return withDef(`+proj=utm +zone=${n}${south ? ' +south' : ''} ${ell ?? '+datum=WGS84'} +units=m`, `UTM zone ${n}${south ? 'S' : 'N'} (HDF-EOS grid)`, gt, g, file, warnings);
  }
  const def = projectionDef(g);
  if (typeof def !== 'string') {
    warnings.push(`${file}: grid "${g.name}" cannot be given a CRS: ${def.why}; it keeps its grid coordinates without one (reproject it with gdalwarp from GDAL's HDF4_EOS:EOS_GRID name)`);
    return { geo: { geographic: false, geoTransform: gt }, warnings };
  }
  const modis = g.projection === 'GCTP_SNSOID' && g.params[0] === MODIS_SPHERE && !g.params[4] && !g.params[6] && !g.params[7];
  return withDef(def, modis ? 'MODIS Sinusoidal' : `${GCTP_NAMES[g.projection] ?? g.projection} (HDF-EOS grid)`, gt, g, file, warnings);
}

/** Georeferencing on a proj4 definition without an EPSG code: as user-defined GeoTIFF keys that read back the same. */
function withDef(def: string, name: string, gt: GeoInfo['geoTransform'], g: EosGrid, file: string, warnings: string[]): { geo: GeoInfo; warnings: string[] } {
  const keys = proj4ToGeoKeys(def, name);
  const back = keys ? geoKeysToProj4(keys) : undefined;
  if (!keys || !back || !('def' in back)) {
    warnings.push(`${file}: grid "${g.name}" is on ${def}, which GeoWeave cannot carry as GeoTIFF keys; it keeps its grid coordinates without a CRS`);
    return { geo: { geographic: false, geoTransform: gt }, warnings };
  }
  return { geo: { wkt: name, geographic: false, geoTransform: gt, keys }, warnings };
}
