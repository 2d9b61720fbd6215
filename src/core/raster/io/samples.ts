/**
 * Sample types: which TIFF SampleFormat/BitsPerSample pairs GeoWeave reads (each checked against
 * GDAL) and how decoded block bytes become numbers. Anything else is refused by name.
 */

export type DType = 'uint8' | 'int8' | 'uint16' | 'int16' | 'uint32' | 'int32' | 'uint64' | 'int64' | 'float32' | 'float64';

export type TypedArray = Uint8Array | Int8Array | Uint16Array | Int16Array | Uint32Array | Int32Array | Float32Array | Float64Array;
type ArrayCtor = { new (n: number | ArrayBufferLike, off?: number, len?: number): TypedArray; BYTES_PER_ELEMENT: number };

/** Array type a band's decoded values live in (64-bit integers as doubles, checked to be exact). */
export const CTORS: Record<DType, ArrayCtor> = {
  uint8: Uint8Array, int8: Int8Array, uint16: Uint16Array, int16: Int16Array,
  uint32: Uint32Array, int32: Int32Array, uint64: Float64Array, int64: Float64Array, float32: Float32Array, float64: Float64Array,
};

/** How the samples of a band are stored. */
export interface SampleType {
  dtype: DType;
  /** Bits per stored sample (1..32 unsigned, 8/16/32/64 signed, 16/32/64 float). */
  bits: number;
  /** 1 unsigned, 2 signed, 3 float. */
  format: 1 | 2 | 3;
  /** Stored as a bit stream (bits not 8, 16, 32 or 64): unpacked row by row. */
  packed: boolean;
  /** IEEE half floats, widened to float32. */
  half: boolean;
}

const FORMAT_NAMES: Record<number, string> = { 1: 'unsigned integer', 2: 'signed integer', 3: 'floating point', 4: 'untyped', 5: 'complex integer', 6: 'complex floating point' };

/**
 * The sample type for TIFF SampleFormat `format` and BitsPerSample `bits`, or an Error whose message
 * says what the file holds and what to do. SampleFormat 4 (untyped) is read as unsigned, as GDAL does.
 */
export function sampleTypeOf(format: number, bits: number): SampleType | Error {
  const what = `${bits}-bit ${FORMAT_NAMES[format] ?? `SampleFormat ${format}`} samples`;
  const convert = 'convert it with gdal_translate -ot Float32 (or Int32) first';
  if (!Number.isInteger(bits) || bits < 1) return new Error(`BitsPerSample ${bits} is not valid`);
  if (format === 5 || format === 6) return new Error(`${what} are not supported (complex values); ${convert}`);
  if (format === 1 || format === 4) {
    if (bits === 64) return { dtype: 'uint64', bits, format: 1, packed: false, half: false };
    if (bits > 32) return new Error(`${what} are not supported; ${convert}`);
    const dtype: DType = bits <= 8 ? 'uint8' : bits <= 16 ? 'uint16' : 'uint32';
    return { dtype, bits, format: 1, packed: bits !== 8 && bits !== 16 && bits !== 32, half: false };
  }
  if (format === 2) {
    const dtype = ({ 8: 'int8', 16: 'int16', 32: 'int32', 64: 'int64' } as Record<number, DType>)[bits];
    if (!dtype) return new Error(`${what} are not supported (signed samples must be 8, 16, 32 or 64 bits); ${convert}`);
    return { dtype, bits, format: 2, packed: false, half: false };
  }
  if (format === 3) {
    if (bits === 16) return { dtype: 'float32', bits, format: 3, packed: false, half: true };
    if (bits === 32) return { dtype: 'float32', bits, format: 3, packed: false, half: false };
    if (bits === 64) return { dtype: 'float64', bits, format: 3, packed: false, half: false };
    return new Error(`${what} are not supported (floats must be 16, 32 or 64 bits); ${convert}`);
  }
  return new Error(`SampleFormat ${format} is not a TIFF sample format (1 unsigned, 2 signed, 3 float)`);
}

/** Bytes per decoded sample as stored in the block (packed types: per unpacked sample). */
export function storedBytes(t: SampleType): number {
  return t.packed ? Math.ceil(t.bits / 8) : t.bits / 8;
}

function halfToFloat(h: number): number {
  const s = h & 0x8000 ? -1 : 1; const e = (h >> 10) & 0x1f; const f = h & 0x3ff;
  if (e === 0) return s * 2 ** -14 * (f / 1024);
  if (e === 31) return f ? NaN : s * Infinity;
  return s * 2 ** (e - 15) * (1 + f / 1024);
}

function swapBytes(b: Uint8Array, size: number): void {
  for (let i = 0; i + size <= b.length; i += size) {
    for (let j = 0; j < size / 2; j++) { const t = b[i + j]; b[i + j] = b[i + size - 1 - j]; b[i + size - 1 - j] = t; }
  }
}

/** Thrown for a 64-bit integer a double cannot hold exactly; the dataset adds the file name. */
export class InexactIntegerError extends Error {}

/**
 * Decoded block bytes → samples. `rowSamples` is the number of samples in one stored row (block
 * width × samples per pixel when interleaved); packed rows start on a byte boundary, as TIFF requires.
 * `bytes` may be modified in place (byte order). 64-bit integers beyond ±2^53 throw, except `nodata`.
 */
export function samplesFromBytes(bytes: Uint8Array, t: SampleType, littleEndian: boolean, rowSamples: number, nodata: number | null): TypedArray {
  if (t.packed) return unpack(bytes, t.bits, rowSamples, littleEndian);
  const size = t.bits / 8;
  let b = bytes;
  if (b.byteLength % size !== 0) b = b.subarray(0, b.byteLength - (b.byteLength % size));
  // A copy (Buffer.slice would only be a view) puts the samples on an aligned offset.
  if (size > 1 && b.byteOffset % size !== 0) b = new Uint8Array(b);
  if (!littleEndian && size > 1) swapBytes(b, size);
  const n = b.byteLength / size;
  if (t.half) {
    const src = new Uint16Array(b.buffer, b.byteOffset, n);
    const f = new Float32Array(n);
    for (let i = 0; i < n; i++) f[i] = halfToFloat(src[i]);
    return f;
  }
  if (t.bits === 64 && t.format !== 3) {
    const src = t.format === 2 ? new BigInt64Array(b.buffer, b.byteOffset, n) : new BigUint64Array(b.buffer, b.byteOffset, n);
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const v = Number(src[i]);
      if ((v > Number.MAX_SAFE_INTEGER || v < -Number.MAX_SAFE_INTEGER) && v !== nodata) {
        throw new InexactIntegerError(`holds the 64-bit integer ${src[i]}, beyond ±2^53 where a double is no longer exact; convert it with gdal_translate -ot Float64 (accepting rounding) or rescale it to a smaller type`);
      }
      out[i] = v;
    }
    return out;
  }
  return new CTORS[t.dtype](b.buffer, b.byteOffset, n);
}

/**
 * Bit-packed unsigned samples (most significant bit first, rows padded to whole bytes) → Uint8/16/32.
 * 24-bit samples follow GDAL: read most significant byte first in little-endian files and least
 * significant byte first in big-endian ones (libtiff swaps their triples on such hosts).
 */
function unpack(bytes: Uint8Array, bits: number, rowSamples: number, littleEndian: boolean): TypedArray {
  const rowBytes = Math.ceil((rowSamples * bits) / 8);
  const rows = Math.floor(bytes.length / rowBytes);
  const n = rows * rowSamples;
  const out = bits <= 8 ? new Uint8Array(n) : bits <= 16 ? new Uint16Array(n) : new Uint32Array(n);
  if (bits === 24) {
    for (let r = 0; r < rows; r++) {
      const base = r * rowBytes, o = r * rowSamples;
      for (let i = 0; i < rowSamples; i++) {
        const p = base + 3 * i;
        out[o + i] = littleEndian ? (bytes[p] << 16) | (bytes[p + 1] << 8) | bytes[p + 2] : (bytes[p + 2] << 16) | (bytes[p + 1] << 8) | bytes[p];
      }
    }
    return out;
  }
  for (let r = 0; r < rows; r++) {
    let bit = r * rowBytes * 8;
    const o = r * rowSamples;
    for (let i = 0; i < rowSamples; i++) {
      let v = 0;
      for (let k = 0; k < bits;) {
        const byte = bytes[bit >>> 3], inByte = bit & 7;
        const take = Math.min(8 - inByte, bits - k);
        v = v * (1 << take) + ((byte >>> (8 - inByte - take)) & ((1 << take) - 1));
        k += take; bit += take;
      }
      out[o + i] = v;
    }
  }
  return out;
}

/**
 * Undoes horizontal differencing (predictor 2) in place, wrapping as libtiff does. The samples must be
 * in host (little-endian) order already: a big-endian file is byte-swapped first, then un-differenced
 * (geotiff.js does it the other way round, which breaks big-endian 16/32-bit data, and has no 64-bit case).
 */
export function undoHorizontal(bytes: Uint8Array, size: number, rowSamples: number, stride: number): void {
  const n = Math.floor(bytes.byteLength / size);
  const b = bytes.byteOffset % size === 0 ? bytes : new Uint8Array(bytes);
  const rows = Math.floor(n / rowSamples);
  const a = size === 1 ? b : size === 2 ? new Uint16Array(b.buffer, b.byteOffset, n) : size === 4 ? new Uint32Array(b.buffer, b.byteOffset, n) : new BigUint64Array(b.buffer, b.byteOffset, n);
  for (let r = 0; r < rows; r++) {
    const base = r * rowSamples;
    if (a instanceof BigUint64Array) for (let i = base + stride; i < base + rowSamples; i++) a[i] = BigInt.asUintN(64, a[i] + a[i - stride]);
    else for (let i = base + stride; i < base + rowSamples; i++) a[i] = a[i] + a[i - stride];
  }
  if (b !== bytes) bytes.set(b);
}

/** Reverses the byte order of every `size`-byte sample in place. */
export function swapSamples(b: Uint8Array, size: number): void { swapBytes(b, size); }
