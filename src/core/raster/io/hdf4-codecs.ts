/**
 * The compression coders of HDF4 compressed elements (hcomp.c): DEFLATE (a zlib stream, which
 * Node's inflate reads), run-length (crle.c) and skipping Huffman (cskphuff.c). N-bit and SZIP are
 * named in the error with what to do. Output stops at the element's declared length.
 */
import { inflateSync } from 'node:zlib';

const CODERS: Record<number, string> = { 0: 'none', 1: 'RLE', 2: 'N-bit', 3: 'skipping Huffman', 4: 'DEFLATE', 5: 'SZIP', 7: 'JPEG' };

/** A compressed element's coder and its parameter (the skip size of skipping Huffman). */
export interface Coder { type: number; name: string; skip: number }

/** The coder of a compressed element's header from `at` (model type, coder type, coder parameters). */
export function coderOf(head: Buffer, at: number, fail: (m: string) => Error): Coder {
  if (head.length < at + 4) throw fail('has a compression header cut short; the file is damaged');
  const model = head.readUInt16BE(at), type = head.readUInt16BE(at + 2);
  if (model !== 0) throw fail(`uses compression model ${model}, which HDF4 does not define; the file is damaged`);
  const name = CODERS[type] ?? `coder ${type}`;
  if (type !== 0 && type !== 1 && type !== 3 && type !== 4) {
    throw fail(`is compressed with ${name}, which GeoWeave does not decode; rewrite it with DEFLATE (hrepack -t '*:GZIP 6' IN.hdf OUT.hdf, from hdf4-tools) or convert the field with gdal_translate`);
  }
  const skip = type === 3 && head.length >= at + 8 ? head.readUInt32BE(at + 4) : 1;
  if (type === 3 && !(skip >= 1 && skip <= 64)) throw fail(`has a skipping-Huffman skip size of ${skip}; the file is damaged`);
  return { type, name, skip };
}

/** The `length` bytes a compressed element holds. */
export function decodeElement(packed: Buffer, coder: Coder, length: number): Buffer {
  switch (coder.type) {
    case 0: return fit(packed, length);
    case 4: {
      if (length === 0) return Buffer.alloc(0);
      // maxOutputLength: a stream that would inflate past the declared size stops with an error, not gigabytes.
      return fit(inflateSync(packed, { maxOutputLength: length }), length);
    }
    case 1: return rleDecode(packed, length);
    case 3: return skipHuffmanDecode(packed, length, coder.skip);
    default: throw new Error(`${coder.name} is not decoded`);
  }
}

function fit(b: Buffer, length: number): Buffer {
  if (b.length < length) throw new Error(`${b.length} bytes decoded where ${length} are stored`);
  return b.length === length ? b : b.subarray(0, length);
}

/** HDF4 run-length: a count byte with the top bit set is a run of (count & 0x7f) + 3 copies of the next byte; else count + 1 literal bytes. */
export function rleDecode(input: Uint8Array, length: number): Buffer {
  const out = Buffer.alloc(length);
  let o = 0, i = 0;
  while (o < length) {
    if (i >= input.length) throw new Error(`run-length data ends after ${o} of ${length} bytes`);
    const c = input[i++];
    if (c & 0x80) {
      const n = Math.min((c & 0x7f) + 3, length - o);
      if (i >= input.length) throw new Error('run-length data ends inside a run');
      out.fill(input[i++], o, o + n);
      o += n;
    } else {
      const n = Math.min(c + 1, length - o);
      if (i + n > input.length) throw new Error('run-length data ends inside literal bytes');
      out.set(input.subarray(i, i + n), o);
      i += c + 1; o += n;
    }
  }
  return out;
}

const SUCCMAX = 256, TWICEMAX = 513;

/**
 * Skipping Huffman: adaptive (splay-tree) Huffman codes, one tree per byte position modulo `skip`
 * (the sample size, so each byte of a sample has its own statistics); bits most significant first.
 */
export function skipHuffmanDecode(input: Uint8Array, length: number, skip: number): Buffer {
  const left = Array.from({ length: skip }, () => new Uint16Array(SUCCMAX));
  const right = Array.from({ length: skip }, () => new Uint16Array(SUCCMAX));
  const up = Array.from({ length: skip }, () => new Uint16Array(TWICEMAX));
  for (let k = 0; k < skip; k++) {
    for (let i = 0; i < TWICEMAX; i++) up[k][i] = (i >> 1) & 0xff;
    for (let j = 0; j < SUCCMAX; j++) { left[k][j] = 2 * j; right[k][j] = 2 * j + 1; }
  }
  const out = Buffer.alloc(length);
  const bits = input.length * 8;
  let bit = 0, pos = 0;
  for (let n = 0; n < length; n++) {
    const L = left[pos], R = right[pos], U = up[pos];
    let a = 0;
    do {
      if (bit >= bits) throw new Error(`skipping-Huffman data ends after ${n} of ${length} bytes`);
      a = (input[bit >>> 3] >>> (7 - (bit & 7))) & 1 ? R[a] : L[a];
      bit++;
    } while (a < SUCCMAX);
    const plain = a - SUCCMAX;
    // Splay the leaf towards the root (cskphuff.c HCIcskphuff_splay).
    a = plain + SUCCMAX;
    do {
      const c = U[a];
      if (c !== 0) {
        const d = U[c];
        let b = L[d];
        if (c === b) { b = R[d]; R[d] = a; } else L[d] = a;
        if (a === L[c]) L[c] = b; else R[c] = b;
        U[a] = d; U[b] = c;
        a = d;
      } else a = c;
    } while (a !== 0);
    pos = (pos + 1) % skip;
    out[n] = plain;
  }
  return out;
}
