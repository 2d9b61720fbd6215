/**
 * Where the blocks of an HFA layer are and how they decode, as GDAL's hfaband.cpp reads them: the
 * `RasterDMS` node's Edms_State table (offset, size, valid flag and compression of every block, in
 * the .img itself), or the `ExternalRasterDMS` node's ImgExternalRaster record for layers in a spill
 * file (`.ige`, blocks of fixed size one after another, layers interleaved block by block, a validity
 * bitmap). Blocks are little-endian, rows of blockWidth samples (1/2/4-bit samples packed
 * least-significant bit first); compressed blocks use ERDAS's run-length coding (ESRI GRID style:
 * a minimum, run counts of 1–4 bytes, values of 0–32 bits stored big-endian).
 */
import type { HfaDictionary } from './hfa-dictionary';
import type { HfaNode } from './hfa-file';
import { CTORS, type DType, type TypedArray } from './samples';

/** The EPT sample types by code (Eimg_Layer.pixelType), with the dtype each reads as. */
export const EPT: { name: string; bits: number; dtype?: DType }[] = [
  { name: 'u1', bits: 1, dtype: 'uint8' }, { name: 'u2', bits: 2, dtype: 'uint8' }, { name: 'u4', bits: 4, dtype: 'uint8' },
  { name: 'u8', bits: 8, dtype: 'uint8' }, { name: 's8', bits: 8, dtype: 'int8' }, { name: 'u16', bits: 16, dtype: 'uint16' },
  { name: 's16', bits: 16, dtype: 'int16' }, { name: 'u32', bits: 32, dtype: 'uint32' }, { name: 's32', bits: 32, dtype: 'int32' },
  { name: 'f32', bits: 32, dtype: 'float32' }, { name: 'f64', bits: 64, dtype: 'float64' },
  { name: 'c64', bits: 64 }, { name: 'c128', bits: 128 },
];

/** A layer's blocks: file offsets (in the .img, or the spill file when `external`), sizes, flags. */
export interface HfaBlockTable {
  offsets: Float64Array; sizes: Float64Array;
  valid: Uint8Array; compressed: Uint8Array;
  /** The spill file the blocks are in, when not the .img. */
  external?: string;
}

/** The block table from an Edms_State record: its `blockinfo` array read straight into typed arrays (millions of blocks in a national layer). */
export function blockTableFromState(dict: HfaDictionary, data: Buffer, blocks: number, bad: (why: string) => Error): HfaBlockTable {
  let at: number | undefined;
  try { at = dict.decode('Edms_State', data, 0, data.length, 'blockinfo').stoppedAt; } catch (e) { throw bad(`its block table (Edms_State) is damaged: ${(e as Error).message}`); }
  const layout = dict.fixedLayout('Edms_VirtualBlockInfo');
  const f = layout?.fields;
  const offset = f?.get('offset'), size = f?.get('size'), logvalid = f?.get('logvalid'), compression = f?.get('compressionType');
  if (at === undefined || !layout || !offset || !size || !logvalid || !compression) throw bad('its block table (Edms_State) has no blockinfo array of Edms_VirtualBlockInfo with offset, size, logvalid and compressionType');
  if (at + 8 > data.length) throw bad('its block table (Edms_State) is cut short');
  const count = data.readUInt32LE(at);
  if (count < blocks) throw bad(`its block table lists ${count} blocks where the layer has ${blocks}; the file is damaged`);
  if (at + 8 + blocks * layout.size > data.length) throw bad(`its block table of ${blocks} blocks does not fit in its node (${data.length} bytes); the file is cut short or damaged`);
  const t: HfaBlockTable = { offsets: new Float64Array(blocks), sizes: new Float64Array(blocks), valid: new Uint8Array(blocks), compressed: new Uint8Array(blocks) };
  const u = (p: number, kind: string) => (kind === 'e' || kind === 's' ? data.readUInt16LE(p) : kind === 'S' ? data.readInt16LE(p) : kind === 'l' ? data.readInt32LE(p) : data.readUInt32LE(p));
  for (let i = 0, p = at + 8; i < blocks; i++, p += layout.size) {
    t.offsets[i] = u(p + offset.at, offset.kind);
    t.sizes[i] = u(p + size.at, size.kind);
    t.valid[i] = u(p + logvalid.at, logvalid.kind) ? 1 : 0;
    t.compressed[i] = u(p + compression.at, compression.kind) ? 1 : 0;
  }
  return t;
}

/** The fields of an ExternalRasterDMS node GDAL reads: the spill file's name, where its data and validity flags start, and this layer's place in the stack. */
export interface HfaExternal { fileName: string; flagsAt: number; dataAt: number; stackCount: number; stackIndex: number }

/**
 * The block table of a layer in a spill file, from its validity bitmap (`flags`: 20 bytes of
 * header, then one bit per block, rows of blocks padded to whole bytes): blocks are uncompressed,
 * `blockBytes` each, the stack's layers interleaved block by block (GDAL's LoadExternalBlockInfo).
 */
export function blockTableFromSpill(ext: HfaExternal, flags: Buffer, across: number, down: number, blockBytes: number, spill: string): HfaBlockTable {
  const blocks = across * down, rowBytes = Math.ceil(across / 8);
  const t: HfaBlockTable = { offsets: new Float64Array(blocks), sizes: new Float64Array(blocks).fill(blockBytes), valid: new Uint8Array(blocks), compressed: new Uint8Array(blocks), external: spill };
  for (let i = 0; i < blocks; i++) {
    const bit = Math.floor(i / across) * rowBytes * 8 + (i % across) + 20 * 8;
    t.valid[i] = (flags[bit >> 3] >> (bit & 7)) & 1;
    t.offsets[i] = ext.dataAt + blockBytes * i * ext.stackCount + ext.stackIndex * blockBytes;
  }
  return t;
}

/** Bytes of an uncompressed block. */
export function blockBytes(bw: number, bh: number, ept: number): number {
  return Math.ceil((bw * bh * EPT[ept].bits) / 8);
}

/** An uncompressed block's samples (little-endian; packed bits spread to one byte each). */
export function decodeRaw(b: Uint8Array, n: number, ept: number): TypedArray {
  const { bits, dtype } = EPT[ept];
  if (bits < 8) {
    const out = new Uint8Array(n), mask = (1 << bits) - 1, per = 8 / bits;
    for (let i = 0; i < n; i++) out[i] = (b[(i / per) | 0] >> ((i % per) * bits)) & mask;
    return out;
  }
  const Ctor = CTORS[dtype!];
  // Copied into an aligned buffer of its own (the read buffer is shared; the host is little-endian).
  const own = new Uint8Array(n * Ctor.BYTES_PER_ELEMENT);
  own.set(b.subarray(0, own.length));
  return new Ctor(own.buffer, 0, n);
}

/**
 * A run-length compressed block, as GDAL's UncompressBlock reads it: a 13-byte header (minimum
 * uint32, run count int32, offset of the values int32, bits per value), then the run counts, then
 * the values (each added to the minimum; floats are their bits as integers). A run count of −1 is
 * a block of values without runs. Returns an error message instead of reading past the data.
 */
export function decodeRle(c: Uint8Array, n: number, ept: number): TypedArray | string {
  const { dtype } = EPT[ept];
  if (!dtype || ept === 10) return `run-length blocks of ${EPT[ept].name} samples are not a kind GDAL reads`;
  if (c.length < 13) return `a compressed block of ${c.length} bytes is shorter than its 13-byte header`;
  const dv = new DataView(c.buffer, c.byteOffset, c.byteLength);
  const min = dv.getUint32(0, true), runs = dv.getInt32(4, true), valuesAt = dv.getInt32(8, true), bits = c[12];
  if (![0, 1, 2, 4, 8, 16, 32].includes(bits)) return `a compressed block stores ${bits}-bit values (0, 1, 2, 4, 8, 16 or 32 are valid)`;
  const out = new (CTORS[dtype])(n);
  // Floats: the value's bits as a 32-bit integer, written through an Int32Array view of the output.
  const put: TypedArray = dtype === 'float32' ? new Int32Array(out.buffer) as unknown as TypedArray : out;
  let bit = 0, vp = 0;
  const value = (): number => {
    let v: number;
    if (bits === 0) v = 0;
    else if (bits < 8) { v = (c[vp + (bit >> 3)] >> (bit & 7)) & ((1 << bits) - 1); bit += bits; }
    else if (bits === 8) v = c[vp++];
    else if (bits === 16) { v = (c[vp] << 8) | c[vp + 1]; vp += 2; } else { v = ((c[vp] << 24) | (c[vp + 1] << 16) | (c[vp + 2] << 8) | c[vp + 3]) >>> 0; vp += 4; }
    return (v + min) | 0;
  };
  if (runs === -1) {
    if (c.length - 13 < Math.ceil((bits * n) / 8)) return `a compressed block holds ${c.length - 13} bytes of values where ${n} ${bits}-bit values need ${Math.ceil((bits * n) / 8)}`;
    vp = 13;
    for (let i = 0; i < n; i++) put[i] = value();
    return narrowBits(out, ept);
  }
  if (runs < 0 || valuesAt < 13) return `a compressed block has ${runs} runs with values at ${valuesAt}; it is damaged`;
  if (valuesAt + Math.ceil((bits * runs) / 8) > c.length) return `a compressed block's ${runs} values run past its ${c.length} bytes`;
  vp = valuesAt;
  let cp = 13, done = 0;
  for (let r = 0; r < runs; r++) {
    if (cp >= c.length) return 'a compressed block\'s run counts run past its end';
    const b0 = c[cp], extra = b0 >> 6;
    if (cp + extra >= c.length) return 'a compressed block\'s run counts run past its end';
    let count = b0 & 0x3f;
    for (let k = 1; k <= extra; k++) count = count * 256 + c[cp + k];
    cp += extra + 1;
    const v = value();
    // A run past the block's end is cut to it, as GDAL does.
    const end = Math.min(n, done + count);
    put.fill(v, done, end);
    done = end;
  }
  return narrowBits(out, ept);
}

/** 1/2/4-bit samples keep their low bits (a 1-bit sample is 1 only for the value 1, as GDAL sets its bit). */
function narrowBits(out: TypedArray, ept: number): TypedArray {
  if (ept === 0) for (let i = 0; i < out.length; i++) out[i] = out[i] === 1 ? 1 : 0;
  else if (ept < 3) for (let i = 0; i < out.length; i++) out[i] &= (1 << EPT[ept].bits) - 1;
  return out;
}
