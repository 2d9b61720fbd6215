/**
 * GRIB data sections unpacked into values, as GDAL's GRIB driver (degrib over g2clib) unpacks them:
 * simple packing (GRIB1 and GRIB2 5.0), complex packing with or without spatial differencing (5.2,
 * 5.3), IEEE floats (5.4), and the integer images of PNG (5.41) and JPEG 2000 (5.40) packing. The
 * values come out in the message's scanning order, one per packed point (before the bitmap spreads
 * them over the grid). g2clib works in float32 (its g2float): the scaling is rounded to float32 at
 * each step, as there, so that the samples equal GDAL's rather than differ in the last bits.
 */

/** A packed field's description, from GRIB2 section 5 (or GRIB1's BDS and PDS). */
export interface Packing {
  /** GRIB2 data representation template (0, 2, 3, 4, 40, 41); GRIB1 simple packing is 0. */
  template: number;
  /** Number of packed values. */
  count: number;
  /** Reference value R, binary scale E, decimal scale D, bits per packed value. */
  ref: number; E: number; D: number; bits: number;
  /** 5.4: 1 = float32, 2 = float64. */
  precision?: number;
  /** 5.2/5.3 (complex packing) only. */
  complex?: ComplexParams;
}

export interface ComplexParams {
  /** 0 none, 1 primary, 2 primary and secondary missing values in the data. */
  missingMode: number;
  missing1: number; missing2: number;
  groups: number;
  widthRef: number; widthBits: number;
  lengthRef: number; lengthIncrement: number; lastLength: number; lengthBits: number;
  /** 5.3: order of spatial differencing (0 for 5.2) and octets of its extra descriptors. */
  order: number; extraOctets: number;
}

/** Reads unsigned integers of 0–32 bits from a byte array, most significant bit first. */
export class BitReader {
  private pos: number;
  private readonly endBit: number;
  constructor(private readonly buf: Uint8Array, start: number, end: number, private readonly what: () => string) {
    this.pos = start * 8;
    this.endBit = end * 8;
  }

  read(n: number): number {
    if (n === 0) return 0;
    if (this.pos + n > this.endBit) throw new Error(`${this.what()}: the packed data end before all values were read; the message is cut short or its lengths are wrong`);
    let v = 0, p = this.pos, left = n;
    const buf = this.buf;
    while (left > 0) {
      const off = p % 8, take = Math.min(8 - off, left);
      const bits = (buf[Math.floor(p / 8)] >> (8 - off - take)) & ((1 << take) - 1);
      v = v * (1 << take) + bits;
      p += take;
      left -= take;
    }
    this.pos = p;
    return v;
  }

  /**
   * `count` values of `n` bits into out[at…]: the hot loop of every packing, reading each value from
   * the 32-bit word at its byte (up to 24 bits fit whatever the bit offset).
   */
  readRun(n: number, count: number, out: Uint32Array, at: number): void {
    if (n === 0) { out.fill(0, at, at + count); return; }
    if (this.pos + n * count > this.endBit) throw new Error(`${this.what()}: the packed data end before all values were read; the message is cut short or its lengths are wrong`);
    if (n > 24 || this.endBit > 2 ** 31) {
      for (let k = 0; k < count; k++) out[at + k] = this.read(n);
      return;
    }
    const buf = this.buf, shift = 32 - n;
    let p = this.pos;
    for (let k = 0; k < count; k++, p += n) {
      const i = p >>> 3;
      // Bytes past the end read as 0 (undefined | 0): only bits before endBit are used.
      const word = (buf[i] << 24) | (buf[i + 1] << 16) | (buf[i + 2] << 8) | buf[i + 3];
      out[at + k] = (word << (p & 7)) >>> shift;
    }
    this.pos = p;
  }

  /** A sign-and-magnitude integer of n bits (the sign in the first). */
  readSigned(n: number): number {
    const sign = this.read(1);
    const v = this.read(n - 1);
    return sign ? -v : v;
  }

  /** Skips to the next byte boundary (each group table of complex packing starts on one). */
  align(): void { this.pos = Math.ceil(this.pos / 8) * 8; }
}

/** 2^n and 10^n as g2clib's int_power computes them (a double), then stored as float32. */
function scales(p: Packing): { bscale: number; dscale: number } {
  return { bscale: Math.fround(2 ** p.E), dscale: Math.fround(10 ** -p.D) };
}

/** The float32 value of packed integer X: ((X · 2^E) + R) · 10^−D, each step in float32 as g2clib. */
function scaler(p: Packing): (x: number) => number {
  const { bscale, dscale } = scales(p);
  const ref = Math.fround(p.ref);
  return (x) => Math.fround(Math.fround(Math.fround(Math.fround(x) * bscale) + ref) * dscale);
}

/**
 * Values of a simple-packed field (GRIB2 5.0, GRIB1): `count` integers of `bits` bits each.
 * Zero bits is a constant field (every value the reference).
 */
export function unpackSimple(data: Uint8Array, p: Packing, what: () => string): Float64Array {
  const out = new Float64Array(p.count);
  const value = scaler(p);
  if (p.bits === 0) return out.fill(value(0));
  const ints = new Uint32Array(p.count);
  new BitReader(data, 0, data.length, what).readRun(p.bits, p.count, ints, 0);
  for (let i = 0; i < p.count; i++) out[i] = value(ints[i]);
  return out;
}

/** IEEE floating point (5.4), big-endian: float32 or float64 per value. */
export function unpackIeee(data: Uint8Array, p: Packing, what: () => string): Float64Array {
  const size = p.precision === 2 ? 8 : 4;
  if (data.length < p.count * size) throw new Error(`${what()}: holds ${data.length} bytes of IEEE data for ${p.count} values of ${size} bytes; the message is cut short`);
  const v = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const out = new Float64Array(p.count);
  for (let i = 0; i < p.count; i++) out[i] = size === 8 ? v.getFloat64(i * size) : v.getFloat32(i * size);
  return out;
}

/** Values from the integers of an image codec (PNG, JPEG 2000): scaled as simple packing. */
export function scaleIntegers(ints: ArrayLike<number>, p: Packing): Float64Array {
  const out = new Float64Array(p.count);
  const value = scaler(p);
  for (let i = 0; i < p.count; i++) out[i] = value(ints[i]);
  return out;
}

/**
 * Values of a complex-packed field (5.2, 5.3): groups, each with a reference, a width and a length,
 * packed one table after another; then each group's values; then, with spatial differencing, the
 * first values and the overall minimum undo the differences. Missing values (missingMode 1, 2) are
 * the all-ones value of a group's width (all-ones minus one for the secondary); they come out as the
 * substitute values of section 5 and take no part in the differencing (g2clib's comunpack).
 */
export function unpackComplex(data: Uint8Array, p: Packing, what: () => string): Float64Array {
  const c = p.complex!;
  const n = p.count;
  // No groups: a constant field (as GDAL writes one), every value the reference.
  if (c.groups === 0) return new Float64Array(n).fill(scaler(p)(0));
  const r = new BitReader(data, 0, data.length, what);
  let first1 = 0, first2 = 0, minDiff = 0;
  if (c.order > 0) {
    const bits = c.extraOctets * 8;
    if (bits < 2 || bits > 32) throw new Error(`${what()}: spatial differencing descriptors of ${c.extraOctets} octets; GRIB allows 1 to 4`);
    first1 = r.readSigned(bits);
    if (c.order === 2) first2 = r.readSigned(bits);
    minDiff = r.readSigned(bits);
  }
  const G = c.groups;
  // Every group holds at least one value: more groups than values is a damaged header (and would allocate for nothing).
  if (G > n) throw new Error(`${what()}: ${G} groups for ${n} values; the section 5 header is damaged`);
  // Their references alone take G × bits: a damaged count is refused before its tables are allocated.
  if (G * (p.bits + c.widthBits + c.lengthBits) > data.length * 8) throw new Error(`${what()}: ${G} groups do not fit in its ${data.length} bytes; the message is cut short or damaged`);
  const refs = new Float64Array(G), widths = new Uint8Array(G), lengths = new Float64Array(G);
  r.align();
  for (let g = 0; g < G; g++) refs[g] = r.read(p.bits);
  r.align();
  for (let g = 0; g < G; g++) {
    const w = r.read(c.widthBits) + c.widthRef;
    if (w > 32) throw new Error(`${what()}: group ${g + 1} is ${w} bits wide; GRIB packs at most 32`);
    widths[g] = w;
  }
  r.align();
  let total = 0;
  for (let g = 0; g < G; g++) {
    // The last group's scaled length is packed too, and replaced by the true length (g2clib's comunpack).
    const scaled = r.read(c.lengthBits) * c.lengthIncrement + c.lengthRef;
    lengths[g] = g === G - 1 ? c.lastLength : scaled;
    total += lengths[g];
  }
  if (total !== n) throw new Error(`${what()}: its groups hold ${total} values, section 5 says ${n}; the message is damaged`);
  r.align();
  // Integers of the values present (missing ones skipped), and what each point is: 0 value, 1/2 missing.
  const ints = new Float64Array(n);
  const kind = c.missingMode ? new Uint8Array(n) : undefined;
  let present = 0, at = 0;
  const refMissing1 = 2 ** p.bits - 1;
  const packed = new Uint32Array(n);
  for (let g = 0, k0 = 0; g < G; k0 += lengths[g], g++) r.readRun(widths[g], lengths[g], packed, k0);
  for (let g = 0; g < G; g++) {
    const w = widths[g], len = lengths[g], ref = refs[g];
    if (w === 0) {
      const miss = !c.missingMode ? 0 : ref === refMissing1 ? 1 : c.missingMode === 2 && ref === refMissing1 - 1 ? 2 : 0;
      for (let k = 0; k < len; k++, at++) {
        if (miss) kind![at] = miss;
        else ints[present++] = ref;
      }
      continue;
    }
    const m1 = 2 ** w - 1;
    for (let k = 0; k < len; k++, at++) {
      const x = packed[at];
      if (kind && x === m1) kind[at] = 1;
      else if (kind && c.missingMode === 2 && x === m1 - 1) kind[at] = 2;
      else ints[present++] = x + ref;
    }
  }
  if (c.order === 1 && present > 0) {
    ints[0] = first1;
    for (let i = 1; i < present; i++) ints[i] = ints[i] + minDiff + ints[i - 1];
  } else if (c.order === 2 && present > 0) {
    ints[0] = first1;
    if (present > 1) ints[1] = first2;
    for (let i = 2; i < present; i++) ints[i] = ints[i] + minDiff + 2 * ints[i - 1] - ints[i - 2];
  }
  // Scaled in place (a field of tens of millions of points holds no second copy): with missing points,
  // from the end, where the i-th point's value comes from the j-th integer, j ≤ i.
  const value = scaler(p);
  if (!kind) {
    for (let i = 0; i < n; i++) ints[i] = value(ints[i]);
    return ints;
  }
  for (let i = n - 1, j = present - 1; i >= 0; i--) ints[i] = kind[i] === 0 ? value(ints[j--]) : kind[i] === 1 ? c.missing1 : c.missing2;
  return ints;
}
