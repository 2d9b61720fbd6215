/**
 * One GRIB field decoded to its grid's values (in the message's scanning order): the packed data
 * read and unpacked by its template, spread over the grid by the bitmap (missing points are 9999, as
 * degrib gives them), and Kelvin fields turned into °C as GDAL reports them.
 */
import type { GribGrid } from './grib-grid';
import type { GribField, ReadAt } from './grib2-sections';
import { BitReader, scaleIntegers, unpackComplex, unpackIeee, unpackSimple, type Packing } from './grib-packing';
import { decodePngRows } from './grib-png';

/**
 * Points of one field decoded at most: a 0.05° global grid (7200 × 3601). Decoding takes about 13
 * bytes a point at its peak (the packed integers, the values), so at most ~420 MB.
 */
export const MAX_FIELD_POINTS = 32 << 20;
/** The value degrib gives points the bitmap marks missing (and GDAL's nodata then). */
export const BITMAP_MISSING = 9999;

export async function decodeField(read: ReadAt, f: GribField, grid: GribGrid, signal?: AbortSignal): Promise<Float64Array> {
  const points = grid.nx * grid.ny;
  const p = f.packing;
  if (points > MAX_FIELD_POINTS) throw new Error(`a field of ${points} points is more than GeoWeave decodes at once (${MAX_FIELD_POINTS}); cut it with gdal_translate -srcwin first`);
  if (p.count > points) throw new Error(`section 5 says ${p.count} values for a grid of ${points} points; the message is damaged`);
  if (f.bitmapAt < 0 && p.count !== points) throw new Error(`holds ${p.count} values for a grid of ${points} points, and no bitmap; the message is damaged`);
  // Simple packing's data has a known size: a damaged count cannot make it read or allocate past the message.
  if ((p.template === 0) && f.dataLength * 8 < p.count * p.bits) throw new Error(`its data section holds ${f.dataLength} bytes, and ${p.count} values of ${p.bits} bits need ${Math.ceil((p.count * p.bits) / 8)}; the message is cut short or damaged`);
  const data = await read(f.dataAt, f.dataLength);
  signal?.throwIfAborted();
  const what = () => (f.edition === 2 ? 'section 7' : 'the binary data section');
  let values: Float64Array;
  switch (p.template) {
    case 0: values = unpackSimple(data, p, what); break;
    case 2: case 3: values = unpackComplex(data, p, what); break;
    case 4: values = unpackIeee(data, p, what); break;
    case 40: values = await unpackImage(data, p, 'jpeg2000'); break;
    case 41: values = await unpackImage(data, p, 'png'); break;
    default: throw new Error(`data representation template 5.${p.template} is not read`);
  }
  signal?.throwIfAborted();
  let missing: Uint8Array | undefined;
  if (f.bitmapAt >= 0) {
    const bits = await read(f.bitmapAt, Math.ceil(points / 8));
    const all = new Float64Array(points);
    missing = new Uint8Array(points);
    let j = 0;
    for (let i = 0; i < points; i++) {
      if (bits[i >> 3] & (0x80 >> (i & 7))) {
        if (j >= values.length) throw new Error(`its bitmap marks more points present than the ${values.length} values packed; the message is damaged`);
        all[i] = values[j++];
      } else { all[i] = BITMAP_MISSING; missing[i] = 1; }
    }
    // Fewer points present than values packed: the extra values are not used (as g2clib; GRIB1 counts its
    // values from the data section's bits, which may hold padding beyond the last).
    values = all;
  }
  if (f.names.kelvin) {
    const miss = p.complex?.missingMode ? [p.complex.missing1, p.complex.missing2] : [];
    for (let i = 0; i < values.length; i++) if (!missing?.[i] && !miss.includes(values[i])) values[i] -= 273.15;
  }
  return values;
}

/** Values from a PNG (5.41) or JPEG 2000 (5.40) image of the packed integers; zero bits is a constant field. */
async function unpackImage(data: Uint8Array, p: Packing, codec: 'png' | 'jpeg2000'): Promise<Float64Array> {
  if (p.bits === 0 || p.count === 0) return scaleIntegers(new Uint32Array(p.count), p);
  let ints: ArrayLike<number>;
  if (codec === 'png') {
    const rows = decodePngRows(data);
    if (rows.length * 8 < p.count * p.bits) throw new Error(`its PNG image holds ${rows.length} bytes, and ${p.count} values of ${p.bits} bits need ${Math.ceil((p.count * p.bits) / 8)}`);
    const u = new Uint32Array(p.count);
    new BitReader(rows, 0, rows.length, () => 'its PNG image').readRun(p.bits, p.count, u, 0);
    ints = u;
  }
  else {
    // Loaded only for JPEG 2000 fields: the decoder is an addon or WebAssembly that other reads never need.
    const { decodeCodestream } = require('./jp2/openjpeg') as typeof import('./jp2/openjpeg');
    const t = await decodeCodestream(data);
    if (t.components !== 1) throw new Error(`its JPEG 2000 image has ${t.components} components; GRIB packs one`);
    ints = t.data;
  }
  if (ints.length < p.count) throw new Error(`its ${codec === 'png' ? 'PNG' : 'JPEG 2000'} image holds ${ints.length} values, section 5 says ${p.count}`);
  return scaleIntegers(ints, p);
}
