/**
 * Block decoders that stop at the block's size. geotiff.js's LZW and PackBits decoders grow a plain
 * JS array until the input ends: a corrupt LZW stream grew one past V8's limit and aborted the
 * process (an uncatchable fatal error). These write into a buffer of the expected size and stop
 * there; LERC's extra ZSTD/DEFLATE layer is bounded too, and JPEG frames larger than the tile are
 * refused before the JPEG decoder allocates for them.
 */
import { inflateSync } from 'node:zlib';

const CLEAR = 256, EOI = 257;

/**
 * TIFF LZW (MSB-first codes of 9..12 bits, "early change" as libtiff writes it). Output stops at
 * `max` bytes; a code that is not yet in the table is an error.
 */
export function lzwDecode(input: Uint8Array, max: number): Uint8Array {
  const out = new Uint8Array(max);
  const prefix = new Int32Array(4096), suffix = new Uint8Array(4096), first = new Uint8Array(4096), length = new Int32Array(4096);
  for (let i = 0; i < 256; i++) { prefix[i] = -1; suffix[i] = i; first[i] = i; length[i] = 1; }
  let next = 258, width = 9, old = -1, o = 0, bit = 0;
  const totalBits = input.length * 8;
  const read = (): number => {
    if (bit + width > totalBits) return EOI;
    let v = 0;
    for (let k = 0; k < width;) {
      const byte = input[bit >>> 3], inByte = bit & 7, take = Math.min(8 - inByte, width - k);
      v = (v << take) | ((byte >>> (8 - inByte - take)) & ((1 << take) - 1));
      k += take; bit += take;
    }
    return v;
  };
  /** Writes the string of `code` at the output position; returns false when the output is full. */
  const emit = (code: number): boolean => {
    const n = length[code];
    if (o + n > max) {
      // Fill what fits (the block is complete) and stop.
      const tmp = new Uint8Array(n);
      for (let c = code, i = n - 1; i >= 0; c = prefix[c], i--) tmp[i] = suffix[c];
      out.set(tmp.subarray(0, max - o), o); o = max;
      return false;
    }
    for (let c = code, i = o + n - 1; i >= o; c = prefix[c], i--) out[i] = suffix[c];
    o += n;
    return o < max;
  };
  for (;;) {
    const code = read();
    if (code === EOI) break;
    if (code === CLEAR) { next = 258; width = 9; old = -1; continue; }
    if (old === -1) {
      if (code > 255) throw new Error(`corrupt LZW data (code ${code} after a clear code)`);
      if (!emit(code)) break;
      old = code;
      continue;
    }
    let entry: number;
    if (code < next && code !== CLEAR && code !== EOI) {
      entry = code;
      if (next < 4096) { prefix[next] = old; suffix[next] = first[code]; first[next] = first[old]; length[next] = length[old] + 1; next++; }
    } else if (code === next && next < 4096) {
      prefix[next] = old; suffix[next] = first[old]; first[next] = first[old]; length[next] = length[old] + 1;
      entry = next++;
    } else {
      throw new Error(`corrupt LZW data (code ${code}, table has ${next} entries)`);
    }
    if (!emit(entry)) break;
    old = code;
    if (next + 1 >= 1 << width && width < 12) width++;
  }
  return o === max ? out : out.subarray(0, o);
}

/** PackBits, output stopping at `max` bytes. */
export function packbitsDecode(input: Uint8Array, max: number): Uint8Array {
  const out = new Uint8Array(max);
  let o = 0, i = 0;
  while (i < input.length && o < max) {
    const h = (input[i++] << 24) >> 24;
    if (h >= 0) {
      const n = Math.min(h + 1, input.length - i, max - o);
      out.set(input.subarray(i, i + n), o); o += n; i += h + 1;
    } else if (h !== -128) {
      if (i >= input.length) break;
      const n = Math.min(1 - h, max - o);
      out.fill(input[i++], o, o + n); o += n;
    }
  }
  return o === max ? out : out.subarray(0, o);
}

/** Width and height of the first frame header (SOFn) in a JPEG stream, or null. */
export function jpegFrameSize(b: Uint8Array): { width: number; height: number } | null {
  let i = 2;
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) { i++; continue; }
    const m = b[i + 1];
    if (m === 0xff || m === 0x01 || (m >= 0xd0 && m <= 0xd9)) { i += 2; continue; }
    const len = (b[i + 2] << 8) | b[i + 3];
    if (m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc) {
      return { height: (b[i + 5] << 8) | b[i + 6], width: (b[i + 7] << 8) | b[i + 8] };
    }
    if (m === 0xda) return null;
    i += 2 + len;
  }
  return null;
}

export interface LercLib {
  decode(b: ArrayBuffer, o?: { returnPixelInterleavedDims?: boolean }): { pixels: unknown[] };
}

/** Rows and columns from a Lerc2 header ("Lerc2 ", version, [checksum], rows, cols), or null for other blobs. */
function lerc2Size(b: Uint8Array): { width: number; height: number } | null {
  if (b.length < 22 || String.fromCharCode(...b.subarray(0, 5)) !== 'Lerc2') return null;
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const version = dv.getInt32(6, true);
  const at = version >= 3 ? 14 : 10;
  return { height: dv.getInt32(at, true), width: dv.getInt32(at + 4, true) };
}

/**
 * LERC with its optional DEFLATE/ZSTD layer bounded to `cap` bytes, the blob's size checked against
 * the tile before decoding. `zstd(a, cap)` decodes a ZSTD frame into at most `cap` bytes.
 */
export function lercDecode(input: Uint8Array, add: number, cap: number, tile: { w: number; h: number }, interleaved: boolean,
  lerc: LercLib, zstd: (a: Uint8Array, cap: number) => Uint8Array): ArrayBuffer {
  let blob = input;
  if (add === 1) blob = inflateSync(input, { maxOutputLength: cap });
  else if (add === 2) blob = zstd(input, cap);
  else if (add !== 0) throw new Error(`LERC extra compression ${add} is not supported`);
  const buf = blob.byteOffset === 0 && blob.byteLength === blob.buffer.byteLength ? blob.buffer as ArrayBuffer : new Uint8Array(blob).buffer as ArrayBuffer;
  const size = lerc2Size(blob);
  if (!size) throw new Error('not a LERC2 blob');
  if (size.width !== tile.w || !(size.height >= 1 && size.height <= tile.h)) throw new Error(`LERC blob of ${size.width}x${size.height} in a ${tile.w}x${tile.h} block`);
  let px: { buffer: ArrayBuffer; byteOffset: number; byteLength: number };
  try {
    px = lerc.decode(buf, { returnPixelInterleavedDims: interleaved }).pixels[0] as typeof px;
  } catch (e) {
    // The LERC library throws strings.
    throw new Error(`corrupt LERC block (${e instanceof Error ? e.message : String(e)})`);
  }
  if (!px?.buffer) throw new Error('corrupt LERC block (no pixels)');
  return px.byteOffset === 0 && px.byteLength === px.buffer.byteLength ? px.buffer : px.buffer.slice(px.byteOffset, px.byteOffset + px.byteLength);
}
