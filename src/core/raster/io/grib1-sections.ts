/**
 * A GRIB1 message (WMO FM 92 edition 1, as ERA5 comes from CDS in GRIB1 and older archives) read into
 * a field: the product definition section (parameter, level, times), the grid description (regular
 * lon/lat only), the optional bitmap and the binary data section (simple grid-point packing only).
 * Named and placed as GDAL's GRIB driver does (degrib): descriptions "2[m] HTGL (Specified height
 * level above ground)", the earth a sphere of 6367470 m unless the grid says oblate (IAU 1965).
 */
import type { Earth, GribGrid } from './grib-grid';
import type { Packing } from './grib-packing';
import { grib1Names } from './grib-names';
import { fieldText, int16sm, TIME_UNIT_SECONDS, type GribField, type ReadAt } from './grib2-sections';

/** GRIB1 level types (table 3): short name, long name, unit; `layer` types hold two one-octet values. */
const LEVELS: Record<number, { short: string; long: string; unit: string; layer?: boolean }> = {
  1: { short: 'SFC', long: 'Ground or water surface', unit: '-' }, 100: { short: 'ISBL', long: 'Isobaric surface', unit: 'hPa' },
  102: { short: 'MSL', long: 'Mean sea level', unit: '-' }, 103: { short: 'GPML', long: 'Specified altitude above MSL', unit: 'm' },
  105: { short: 'HTGL', long: 'Specified height level above ground', unit: 'm' }, 109: { short: 'HYBL', long: 'Hybrid level', unit: '-' },
  111: { short: 'DBLL', long: 'Depth below land surface', unit: 'cm' }, 112: { short: 'DBLY', long: 'layer between 2 depths below land surface', unit: 'cm', layer: true },
  200: { short: 'EATM', long: 'Entire atmosphere (considered as a single layer)', unit: '-' },
};

/** An IBM System/360 single-precision float (GRIB1's reference value). */
export function ibmFloat(b: Buffer, at: number): number {
  const sign = b[at] & 0x80 ? -1 : 1, exp = b[at] & 0x7f;
  const mant = b.readUIntBE(at + 1, 3);
  return sign * (mant / 0x1000000) * 16 ** (exp - 64);
}

const int24sm = (b: Buffer, at: number): number => { const v = b.readUIntBE(at, 3); return v & 0x800000 ? -(v & 0x7fffff) : v; };

export async function grib1Field(read: ReadAt, at: number, end: number, message: number, what: string): Promise<GribField> {
  let pos = at + 8;
  const section = async (name: string, min: number) => {
    if (pos + 3 > end) throw new Error(`${what}: ends before its ${name}; the file is cut short`);
    const len = (await read(pos, 3)).readUIntBE(0, 3);
    if (len < min || pos + len > end) throw new Error(`${what}: its ${name} claims ${len} bytes (${end - pos} left in the message); the message is damaged`);
    const start = pos;
    pos += len;
    return { start, len };
  };
  const pdsAt = await section('product definition section', 28);
  if (pdsAt.len > 1 << 16) throw new Error(`${what}: its product definition section is ${pdsAt.len} bytes`);
  const pds = await read(pdsAt.start, pdsAt.len);
  const flags = pds[7];
  if (!(flags & 0x80)) throw new Error(`${what}: has no grid description (it names predefined grid ${pds[6]}), which GeoWeave does not know; convert it with grib_set -s edition=2 or cdo -f nc copy`);
  const gdsAt = await section('grid description section', 32);
  if (gdsAt.len > 1 << 16) throw new Error(`${what}: its grid description section is ${gdsAt.len} bytes`);
  const gds = await read(gdsAt.start, gdsAt.len);
  let bitmapAt = -1;
  if (flags & 0x40) {
    const bms = await section('bitmap section', 6);
    const b = await read(bms.start, 6);
    if (b.readUInt16BE(4) !== 0) throw new Error(`${what}: uses predefined bitmap ${b.readUInt16BE(4)}, which GeoWeave does not know`);
    bitmapAt = bms.start + 6;
    const points = gds.readUInt16BE(6) * gds.readUInt16BE(8);
    if (bms.len - 6 < Math.ceil(points / 8)) throw new Error(`${what}: its bitmap is ${bms.len - 6} bytes for ${points} grid points; the message is damaged`);
  }
  const bdsAt = await section('binary data section', 11);
  const bds = await read(bdsAt.start, 11);
  const bdsFlags = bds[3];
  if (bdsFlags & 0xc0) throw new Error(`${what}: is packed as ${bdsFlags & 0x80 ? 'spherical harmonics' : 'second-order (complex) packing'}, which GeoWeave does not read for GRIB1; convert it with grib_set -s edition=2,packingType=grid_simple IN OUT`);

  const type = gds[5];
  let grid: GribGrid | { refused: string };
  if (type !== 0) {
    const names: Record<number, string> = { 1: 'Mercator', 3: 'Lambert conformal', 4: 'Gaussian lat/lon', 5: 'polar stereographic', 10: 'rotated lon/lat', 50: 'spherical harmonics' };
    grid = { refused: `${what} is on GRIB1 grid type ${type}${names[type] ? ` (${names[type]})` : ''}, which GeoWeave does not read (it reads regular lon/lat, type 0); reproject it first (gdalwarp -t_srs EPSG:4326 IN OUT.tif, or cdo remapbil)` };
  } else {
    const earth: Earth = gds[16] & 0x40 ? { a: 6378160, b: 6356775, name: 'IAU 1965 ellipsoid' } : { a: 6367470, b: 6367470, name: 'sphere 6367470 m' };
    const angle = (v: number) => v / 1000;
    const di = gds.readUInt16BE(23), dj = gds.readUInt16BE(25);
    grid = {
      template: 0, nx: gds.readUInt16BE(6), ny: gds.readUInt16BE(8), earth, scan: gds[27],
      lat1: angle(int24sm(gds, 10)), lon1: angle(int24sm(gds, 13)), lat2: angle(int24sm(gds, 17)), lon2: angle(int24sm(gds, 20)),
      dx: di === 0xffff ? NaN : angle(di), dy: dj === 0xffff ? NaN : angle(dj),
    };
    if (grid.nx === 0xffff || grid.ny === 0xffff) grid = { refused: `${what} is on a quasi-regular (reduced) grid, which GeoWeave does not read; regrid it first (cdo setgridtype,regular)` };
  }
  const bits = bds[10];
  if (bits > 32) throw new Error(`${what}: packs values in ${bits} bits; GRIB packs at most 32`);
  const dataLength = bdsAt.len - 11;
  const unused = bdsFlags & 0x0f;
  const D = int16sm(pds, 26);
  // The values packed: the bits of the data section (less its unused bits at the end) over the width.
  const count = bits ? Math.floor((dataLength * 8 - unused) / bits) : (grid && !('refused' in grid) ? grid.nx * grid.ny : 0);
  const packing: Packing = { template: 0, count, ref: ibmFloat(bds, 6), E: int16sm(bds, 4), D, bits };
  if (bdsFlags & 0x20) throw new Error(`${what}: holds integer values (BDS flag), which GeoWeave does not read for GRIB1`);

  const year = (pds[24] - 1) * 100 + pds[12];
  const ref = Date.UTC(year, pds[13] - 1, pds[14], pds[15], pds[16]) / 1000;
  const unit = TIME_UNIT_SECONDS[pds[17]] ?? 3600;
  // Time range 10: P1 is two octets; 2, 3, 4 (ranges, averages, accumulations) end at P2.
  const range = pds[20];
  const forecast = (range === 10 ? pds.readUInt16BE(18) : range >= 2 && range <= 5 ? pds[19] : pds[18]) * unit;
  const names = grib1Names(pds[3], pds[8], pds[4]);
  const lt = pds[9], l = LEVELS[lt];
  const value = l?.layer ? `${pds[10]}-${pds[11]}` : String(pds.readUInt16BE(10));
  const level = l ? { description: `${value}[${l.unit}] ${l.short} (${l.long})`, shortName: `${value}-${l.short}` }
    : { description: `${value}[-] RESERVED (Reserved)`, shortName: `${value}-RESERVED` };
  const text = fieldText(names, level, ref, forecast, ref + forecast);
  return { edition: 1, message, grid, packing, dataAt: bdsAt.start + 11, dataLength, bitmapAt, names, ...text, nodata: bitmapAt >= 0 ? 9999 : null };
}
