/**
 * The sections of a GRIB2 message (WMO FM 92, sections 0–8) read into fields: where each field's
 * packed data and bitmap lie in the file, its grid (section 3), packing (section 5) and the names and
 * times GDAL gives it (sections 1 and 4). Only the small sections are read at open; a message may hold
 * several fields (sections 2–7 repeated), each a band as in GDAL. Data is not read here.
 */
import { earthOfShape, type GribGrid } from './grib-grid';
import type { Packing } from './grib-packing';
import { disciplineName, grib2Names, levelNames, type FieldNames } from './grib-names';

/** Reads `n` bytes at file offset `at` (throws naming the file when it ends first). */
export type ReadAt = (at: number, n: number) => Promise<Buffer>;

/** One field of a GRIB message: a band. */
export interface GribField {
  edition: 1 | 2;
  /** 1-based message number in the file (for messages). */
  message: number;
  /** The grid, or why GeoWeave does not read it (a template it does not place). */
  grid: GribGrid | { refused: string };
  packing: Packing;
  /** File offset and length of the packed data. */
  dataAt: number; dataLength: number;
  /** File offset of the bitmap (one bit per grid point, 1 = value present), or −1 when every point has a value. */
  bitmapAt: number;
  names: FieldNames;
  description: string;
  metadata: Record<string, string>;
  /** The nodata GDAL reports: 9999 under a bitmap, the primary missing value of complex packing. */
  nodata: number | null;
}

/** Largest section 1, 3, 4 or 5 read (a section 3 lists its points' counts for quasi-regular grids only). */
const MAX_SMALL_SECTION = 1 << 20;

export const int16sm = (b: Buffer, at: number): number => { const v = b.readUInt16BE(at); return v & 0x8000 ? -(v & 0x7fff) : v; };
export const int32sm = (b: Buffer, at: number): number => { const v = b.readUInt32BE(at); return v >= 0x80000000 ? -(v - 0x80000000) : v; };

/** Seconds per unit of time of GRIB2 code table 4.4 (and GRIB1's table 4, the same codes). */
export const TIME_UNIT_SECONDS: Record<number, number> = { 0: 60, 1: 3600, 2: 86400, 10: 10800, 11: 21600, 12: 43200, 13: 1, 254: 1 };

const CENTRES: Record<number, string> = { 7: 'US-NCEP', 34: 'Japanese Meteorological Agency', 54: 'Canadian Meteorological Service', 74: 'UK Met Office - Exeter', 78: 'Offenbach', 85: 'French Weather Service - Toulouse', 98: 'ECMWF' };
const SIGNF: Record<number, string> = { 0: 'Analysis', 1: 'Start_of_Forecast', 2: 'Verifying_time_of_forecast', 3: 'Observation_time' };
const STATUS: Record<number, string> = { 0: 'Operational', 1: 'Operational_test', 2: 'Research', 3: 'Re-analysis' };
const TYPE: Record<number, string> = { 0: 'Analysis', 1: 'Forecast', 2: 'Analysis_and_forecast', 3: 'Control_forecast', 4: 'Perturbed_forecast' };
const named = (table: Record<number, string>, v: number) => (table[v] ? `${v}(${table[v]})` : String(v));

/** `2024-01-05T12:00:00Z` for epoch seconds. */
export const isoTime = (t: number): string => new Date(t * 1000).toISOString().replace(/\.000Z$/, 'Z');

/** GRIB_IDS as GDAL writes it. */
export function idsText(centre: number, subCentre: number, master: number, local: number, signf: number, ref: number, status: number, type: number): string {
  const parts: string[] = [];
  if (centre !== 65535 && centre !== 255) {
    parts.push(`CENTER=${CENTRES[centre] ? `${centre}(${CENTRES[centre]})` : centre}`);
    if (subCentre !== 65535 && subCentre !== 255) parts.push(`SUBCENTER=${subCentre}`);
  }
  parts.push(`MASTER_TABLE=${master}`, `LOCAL_TABLE=${local}`, `SIGNF_REF_TIME=${named(SIGNF, signf)}`, `REF_TIME=${isoTime(ref)}`, `PROD_STATUS=${named(STATUS, status)}`, `TYPE=${named(TYPE, type)}`);
  return parts.join(' ');
}

/**
 * The description and GRIB_* metadata of a field, from its parameter, level and times; `extra` holds
 * what only GRIB2 fields have (GRIB_DISCIPLINE, GRIB_IDS, GRIB_PDS_*).
 */
export function fieldText(names: FieldNames, level: { description: string; shortName: string }, ref: number, forecast: number, valid: number, extra: Record<string, string> = {}): { description: string; metadata: Record<string, string> } {
  return {
    description: level.description,
    metadata: {
      GRIB_COMMENT: names.comment, GRIB_ELEMENT: names.element, GRIB_FORECAST_SECONDS: String(forecast), ...extra,
      GRIB_REF_TIME: String(ref), GRIB_SHORT_NAME: level.shortName, GRIB_UNIT: names.unit, GRIB_VALID_TIME: String(valid),
    },
  };
}

/** The grid of a section 3, or why it is refused. */
function gridOf(s: Buffer, what: string): GribGrid | { refused: string } {
  const template = s.readUInt16BE(12);
  const routes = 'reproject it to a regular lon/lat grid first (gdalwarp -t_srs EPSG:4326 IN OUT.tif, or cdo remapbil)';
  // Template lengths up to the last octet read here.
  const lengths: Record<number, number> = { 0: 72, 10: 72, 20: 65, 30: 81 };
  if (lengths[template] === undefined) {
    const names: Record<number, string> = { 1: 'rotated lon/lat', 40: 'Gaussian lat/lon', 50: 'spherical harmonics (spectral)', 90: 'space view', 101: 'unstructured' };
    return { refused: `${what} is on grid template 3.${template}${names[template] ? ` (${names[template]})` : ''}, which GeoWeave does not read (it reads 3.0 regular lon/lat, 3.10 Mercator, 3.20 polar stereographic, 3.30 Lambert conformal); ${routes}` };
  }
  if (s.length < lengths[template]) throw new Error(`${what}: its grid section is ${s.length} bytes, too short for template 3.${template} (${lengths[template]})`);
  const earth = earthOfShape(s[14], s.readUInt32BE(16) / 10 ** s[15], s.readUInt32BE(21) / 10 ** s[20], s.readUInt32BE(26) / 10 ** s[25]);
  if (typeof earth === 'string') throw new Error(`${what}: ${earth}`);
  const nx = s.readUInt32BE(30), ny = s.readUInt32BE(34);
  const uint = (at: number, unit: number) => { const v = s.readUInt32BE(at); return v === 0xffffffff ? NaN : v * unit; };
  const deg = (at: number) => int32sm(s, at) * 1e-6;
  if (template === 0) {
    const basic = s.readUInt32BE(38), sub = s.readUInt32BE(42);
    // Angles in millionths of a degree unless a basic angle and its subdivisions are given.
    const unit = basic && sub && basic !== 0xffffffff && sub !== 0xffffffff ? basic / sub : 1e-6;
    return {
      template, nx, ny, earth, scan: s[71],
      lat1: int32sm(s, 46) * unit, lon1: int32sm(s, 50) * unit, lat2: int32sm(s, 55) * unit, lon2: int32sm(s, 59) * unit,
      dx: uint(63, unit), dy: uint(67, unit),
    };
  }
  // Projected grids: the first point in degrees, increments in millimetres (GDAL's projection parameters).
  const base = { template, nx, ny, earth, lat1: deg(38), lon1: deg(42), lat2: NaN, lon2: NaN };
  if (template === 30) {
    const lov = deg(51);
    const proj = `+proj=lcc +lat_0=${deg(47)} +lon_0=${lov > 180 ? lov - 360 : lov} +lat_1=${deg(65)} +lat_2=${deg(69)} +x_0=0 +y_0=0`;
    return { ...base, scan: s[64], dx: uint(55, 1e-3), dy: uint(59, 1e-3), projection: { def: proj, name: 'Lambert conformal (3.30)' } };
  }
  if (template === 20) {
    const south = (s[63] & 0x80) !== 0;
    const proj = `+proj=stere +lat_0=${south ? -90 : 90} +lat_ts=${deg(47)} +lon_0=${deg(51)} +k=1 +x_0=0 +y_0=0`;
    return { ...base, scan: s[64], dx: uint(55, 1e-3), dy: uint(59, 1e-3), projection: { def: proj, name: 'polar stereographic (3.20)' } };
  }
  const proj = `+proj=merc +lat_ts=${deg(47)} +lon_0=0 +x_0=0 +y_0=0`;
  return { ...base, lat2: deg(51), lon2: deg(55), scan: s[59], dx: uint(64, 1e-3), dy: uint(68, 1e-3), projection: { def: proj, name: 'Mercator (3.10)' } };
}

/** The packing of a section 5, or throws naming what is not read. */
function packingOf(s: Buffer, what: string): Packing {
  const count = s.readUInt32BE(5), template = s.readUInt16BE(9);
  if (template === 4) return { template, count, ref: 0, E: 0, D: 0, bits: 0, precision: s[11] };
  if (![0, 2, 3, 40, 41].includes(template)) {
    const names: Record<number, string> = { 42: 'CCSDS (AEC) packing, which GDAL 3.6 does not read either', 50: 'spectral simple packing', 51: 'spectral complex packing', 61: 'simple packing with logarithm pre-processing', 200: 'run length packing' };
    throw new Error(`${what} uses data representation template 5.${template}${names[template] ? ` (${names[template]})` : ''}, which GeoWeave does not read (it reads 5.0, 5.2, 5.3, 5.4, 5.40, 5.41); repack it with grib_set -r -s packingType=grid_simple IN OUT, or convert it with gdal_translate`);
  }
  if (s.length < 21) throw new Error(`${what}: its data representation section is ${s.length} bytes, too short`);
  const p: Packing = { template, count, ref: s.readFloatBE(11), E: int16sm(s, 15), D: int16sm(s, 17), bits: s[19] };
  if (p.bits > 32) throw new Error(`${what}: packs values in ${p.bits} bits; GRIB packs at most 32`);
  if (template === 2 || template === 3) {
    if (s.length < (template === 3 ? 49 : 47)) throw new Error(`${what}: its complex packing section is ${s.length} bytes, too short`);
    const missing = (at: number) => (s[20] === 0 ? s.readFloatBE(at) : s.readUInt32BE(at));
    p.complex = {
      missingMode: s[22], missing1: Math.fround(missing(23)), missing2: Math.fround(missing(27)), groups: s.readUInt32BE(31),
      widthRef: s[35], widthBits: s[36], lengthRef: s.readUInt32BE(37), lengthIncrement: s[41], lastLength: s.readUInt32BE(42), lengthBits: s[46],
      order: template === 3 ? s[47] : 0, extraOctets: template === 3 ? s[48] : 0,
    };
    if (p.complex.order > 2) throw new Error(`${what}: spatial differencing of order ${p.complex.order}; GRIB defines orders 1 and 2`);
    if (p.complex.widthBits > 32 || p.complex.lengthBits > 32) throw new Error(`${what}: group widths or lengths packed in more than 32 bits; the section is damaged`);
  }
  return p;
}

/**
 * The fields of the GRIB2 message at `at` (its section 0 read into `head`, 16 bytes), and the
 * offset after it. `what` names the message in errors.
 */
export async function grib2Fields(read: ReadAt, at: number, end: number, message: number, what: string): Promise<GribField[]> {
  const head = await read(at, 16);
  const discipline = head[6];
  const fields: GribField[] = [];
  let s1: Buffer | undefined, grid: GribGrid | { refused: string } | undefined, s4: Buffer | undefined, packing: Packing | undefined;
  let bitmapAt = -1, lastBitmap = -1;
  let pos = at + 16;
  for (;;) {
    if (pos + 4 > end) throw new Error(`${what}: ends without its end section "7777"; the file is cut short or its length is wrong`);
    const h = await read(pos, Math.min(5, end - pos));
    if (h.toString('latin1', 0, 4) === '7777') break;
    if (h.length < 5) throw new Error(`${what}: a section header runs past the message end`);
    const len = h.readUInt32BE(0), num = h[4];
    if (len < 5 || pos + len > end - 4) throw new Error(`${what}: section ${num} claims ${len} bytes, past the message end (${end - pos - 4} left); the message is damaged`);
    const small = async () => {
      if (len > MAX_SMALL_SECTION) throw new Error(`${what}: section ${num} is ${len} bytes; GeoWeave reads headers of at most ${MAX_SMALL_SECTION} bytes`);
      return read(pos, len);
    };
    switch (num) {
      case 1: s1 = await small(); if (s1.length < 21) throw new Error(`${what}: its identification section is ${len} bytes, too short (21)`); break;
      case 2: break;
      case 3: grid = gridOf(await small(), what); break;
      case 4: s4 = await small(); if (s4.length < 11) throw new Error(`${what}: its product section is ${len} bytes, too short`); break;
      case 5: packing = packingOf(await small(), what); break;
      case 6: {
        const ind = (await read(pos + 5, 1))[0];
        if (ind === 0) bitmapAt = lastBitmap = pos + 6;
        else if (ind === 254) {
          if (lastBitmap < 0) throw new Error(`${what}: reuses a previous bitmap, and the message has none before`);
          bitmapAt = lastBitmap;
        } else if (ind === 255) bitmapAt = -1;
        else throw new Error(`${what}: uses predefined bitmap ${ind}, which GeoWeave does not know`);
        if (ind === 0 && grid && !('refused' in grid) && len - 6 < Math.ceil((grid.nx * grid.ny) / 8)) {
          throw new Error(`${what}: its bitmap is ${len - 6} bytes for ${grid.nx * grid.ny} grid points; the message is damaged`);
        }
        break;
      }
      case 7: {
        if (!s1 || !grid || !s4 || !packing) throw new Error(`${what}: a data section comes before the sections 1, 3, 4 and 5 that describe it`);
        fields.push(fieldOf(s1, grid, s4, packing, discipline, pos + 5, len - 5, bitmapAt, message));
        break;
      }
      default: throw new Error(`${what}: section ${num} is not a GRIB2 section; the message is damaged`);
    }
    pos += len;
  }
  if (!fields.length) throw new Error(`${what}: holds no data section`);
  return fields;
}

function fieldOf(s1: Buffer, grid: GribGrid | { refused: string }, s4: Buffer, packing: Packing, discipline: number, dataAt: number, dataLength: number, bitmapAt: number, message: number): GribField {
  const ref = Date.UTC(s1.readUInt16BE(12), s1[14] - 1, s1[15], s1[16], s1[17], s1[18]) / 1000;
  const pdtn = s4.readUInt16BE(7);
  const category = s4[9], number = s4[10];
  let names = grib2Names(discipline, category, number);
  // Templates 4.0–4.15 share their first 25 octets: forecast time, then the fixed surfaces.
  let forecast = 0, valid = ref, level = levelNames(255, 0);
  if (pdtn <= 15 && s4.length >= 34) {
    const unit = TIME_UNIT_SECONDS[s4[17]] ?? 3600;
    forecast = s4.readUInt32BE(18) * unit;
    valid = ref + forecast;
    const surface = (at: number) => { const v = int32sm(s4, at + 2); const f = s4[at + 1]; return v === -0x7fffffff ? 0 : v / 10 ** (f & 0x80 ? -(f & 0x7f) : f); };
    level = levelNames(s4[22], surface(22), s4[28], surface(28));
    // Statistics over an interval (4.8): valid at the end of the interval.
    if (pdtn === 8 && s4.length >= 41) valid = Date.UTC(s4.readUInt16BE(34), s4[36] - 1, s4[37], s4[38], s4[39], s4[40]) / 1000;
    // degrib names a total precipitation by its period ("APCP06", "06 hr Total precipitation"), and no other statistic.
    if (pdtn === 8 && names.element === 'APCP' && s4.length >= 53) {
      const hh = String(Math.round((s4.readUInt32BE(49) * (TIME_UNIT_SECONDS[s4[48]] ?? 3600)) / 3600)).padStart(2, '0');
      names = { ...names, element: `APCP${hh}`, comment: `${hh} hr ${names.comment}` };
    }
  }
  const text = fieldText(names, level, ref, forecast, valid, {
    GRIB_DISCIPLINE: disciplineName(discipline),
    GRIB_IDS: idsText(s1.readUInt16BE(5), s1.readUInt16BE(7), s1[9], s1[10], s1[11], ref, s1[19], s1[20]),
    GRIB_PDS_PDTN: String(pdtn),
    GRIB_PDS_TEMPLATE_NUMBERS: Array.from(s4.subarray(9)).join(' '),
  });
  const nodata = bitmapAt >= 0 ? 9999 : packing.complex?.missingMode ? packing.complex.missing1 : null;
  return { edition: 2, message, grid, packing, dataAt, dataLength, bitmapAt, names, ...text, nodata };
}
