/**
 * Direct tile reads for local little-endian TIFFs (no compression or DEFLATE, predictor 1/2/3):
 * fs.readSync at the tile's offset, libdeflate (or Node's zlib) into one buffer of the expected size, predictor
 * undone in place. No geotiff.js per tile, so worker threads need not load it at all.
 */
import * as fs from 'node:fs';
import { inflateKnown, unpredictNative } from './native-deflate';
import { count as countEvent, tick, tock } from './stage-times';

/** Serializable description of where a file's blocks are and how they are encoded. */
export interface RawLayout {
  fileSize: number;
  /** 1 none, 8 DEFLATE (32946 is read as 8). */
  compression: 1 | 8;
  predictor: 1 | 2 | 3;
  tiled: boolean;
  width: number; height: number; blockWidth: number; blockHeight: number;
  /** 1 pixel-interleaved (one block holds all samples), 2 one block per sample. */
  planar: 1 | 2;
  samplesPerPixel: number;
  /** Bytes per sample (1, 2, 4 or 8). */
  bytes: number;
  float: boolean;
  offsets: number[]; counts: number[];
  /** Value for sparse blocks (offset or byte count 0), as GDAL: nodata, else 0. */
  sparseFill: number;
}

/** Builds the layout from a geotiff.js image, or null when the fast path does not apply. */
export async function rawLayoutOf(image: any, fileSize: number, nodata: number | null): Promise<RawLayout | null> {
  const fd = image.fileDirectory;
  if (!image.littleEndian) return null;
  let compression = Number((await fd.loadValue('Compression')) ?? 1);
  if (compression === 32946) compression = 8;
  if (compression !== 1 && compression !== 8) return null;
  const predictor = Number((await fd.loadValue('Predictor')) || 1);
  const spp = image.getSamplesPerPixel();
  const bits = image.getBitsPerSample(0);
  const format = image.getSampleFormat(0);
  for (let s = 1; s < spp; s++) if (image.getBitsPerSample(s) !== bits || image.getSampleFormat(s) !== format) return null;
  if (![8, 16, 32, 64].includes(bits)) return null;
  const float = format === 3;
  if (float && bits < 32) return null; // float16 goes through geotiff.js
  if (format !== 1 && format !== 2 && format !== 3) return null;
  if (predictor === 2 && (float || bits > 32)) return null;
  if (predictor === 3 && !float) return null;
  if (predictor !== 1 && predictor !== 2 && predictor !== 3) return null;
  const tiled = !!image.isTiled;
  const offs = await fd.loadValue(tiled ? 'TileOffsets' : 'StripOffsets');
  const cnts = await fd.loadValue(tiled ? 'TileByteCounts' : 'StripByteCounts');
  if (!offs || !cnts) return null;
  const planar = (image.planarConfiguration ?? 1) === 2 ? 2 : 1;
  const width = image.getWidth(), height = image.getHeight();
  const blockWidth = image.getTileWidth(), blockHeight = image.getTileHeight();
  const blocks = Math.ceil(width / blockWidth) * Math.ceil(height / blockHeight) * (planar === 2 ? spp : 1);
  if (offs.length < blocks || cnts.length < blocks) return null;
  const offsets = Array.from(offs as ArrayLike<number | bigint>, Number).slice(0, blocks);
  const counts = Array.from(cnts as ArrayLike<number | bigint>, Number).slice(0, blocks);
  return {
    fileSize, compression, predictor: predictor as 1 | 2 | 3, tiled, width, height, blockWidth, blockHeight,
    planar, samplesPerPixel: spp, bytes: bits / 8, float, offsets, counts,
    sparseFill: nodata === null || Number.isNaN(nodata) ? 0 : nodata,
  };
}

let scratch = Buffer.allocUnsafe(1 << 20);
let rowScratch = new Uint8Array(0);

/** Reads and decodes blocks of one file through a numeric fd (owned or borrowed). */
export class RawTileReader {
  constructor(readonly layout: RawLayout, private fd: number, private name: string) {}

  /** Rows stored in block row `by` (the last strip of a striped file may be short). */
  private rows(by: number): number {
    const L = this.layout;
    return L.tiled ? L.blockHeight : Math.min(L.blockHeight, L.height - by * L.blockHeight);
  }

  /**
   * Decoded bytes of block (bx, by, sample) as little-endian samples: exactly rows × blockWidth × stride × bytes,
   * or fewer when the stored block is short (the caller reports that). With `into` (at least that long), a
   * compressed block is decoded into it (the caller is done with it before the next read into it).
   */
  read(bx: number, by: number, sample: number, into?: Uint8Array): Uint8Array {
    const L = this.layout;
    const across = Math.ceil(L.width / L.blockWidth), down = Math.ceil(L.height / L.blockHeight);
    const index = (L.planar === 2 ? sample * across * down : 0) + by * across + bx;
    const stride = L.planar === 1 ? L.samplesPerPixel : 1;
    const rows = this.rows(by);
    const rowBytes = L.blockWidth * stride * L.bytes;
    const expected = rows * rowBytes;
    const offset = L.offsets[index], count = L.counts[index];
    if (!offset || !count) return sparse(expected, L);
    if (!(offset >= 0 && count >= 0) || offset + count > L.fileSize) {
      throw new Error(`block ${index} (${count} bytes at offset ${offset}) is past the end of the file (${L.fileSize} bytes)`);
    }
    countEvent('decodes');
    let t = tick();
    let out: Uint8Array;
    if (L.compression === 1) {
      out = new Uint8Array(Math.min(count, expected));
      readFully(this.fd, out, out.length, offset, this.name);
      t = tock('read', t);
    } else {
      if (scratch.length < count) scratch = Buffer.allocUnsafe(Math.max(count, scratch.length * 2));
      readFully(this.fd, scratch, count, offset, this.name);
      t = tock('read', t);
      // Straight into a buffer of the block's size (libdeflate, or zlib capped against inflate bombs).
      out = inflateKnown(scratch.subarray(0, count), expected, true, into);
      t = tock('inflate', t);
    }
    if (L.predictor !== 1) {
      // In the addon when it is loaded (a tenth of the time of the loops below, which remain the fallback).
      if (!unpredictNative(out, L.predictor, rowBytes, stride, L.bytes)) unpredictJs(out, L.predictor, rowBytes, stride, L.bytes);
      tock('unpredict', t);
    }
    return out;
  }
}

function readFully(fd: number, buf: Uint8Array, n: number, at: number, name: string): void {
  let got = 0;
  while (got < n) {
    const k = fs.readSync(fd, buf, got, n - got, at + got);
    if (k <= 0) throw new Error(`${name}: unexpected end of file at offset ${at + got}`);
    got += k;
  }
}

function sparse(bytes: number, L: RawLayout): Uint8Array {
  const out = new Uint8Array(bytes);
  if (L.sparseFill !== 0) {
    const n = bytes / L.bytes;
    const v = L.sparseFill;
    if (L.bytes === 8 && !L.float) {
      // 64-bit integers: BigInt stores wrap like the signed type would.
      new BigUint64Array(out.buffer, 0, n).fill(BigInt.asUintN(64, BigInt(Math.trunc(v))));
      return out;
    }
    const a = L.float ? (L.bytes === 4 ? new Float32Array(out.buffer, 0, n) : new Float64Array(out.buffer, 0, n))
      : L.bytes === 1 ? new Uint8Array(out.buffer) : L.bytes === 2 ? new Uint16Array(out.buffer, 0, n) : new Uint32Array(out.buffer, 0, n);
    // Integer nodata may be negative: typed-array stores wrap like the signed type would.
    a.fill(v);
  }
  return out;
}

/** Predictor 2 or 3 undone in place on the whole rows of `b` in JavaScript (the fallback without the addon). */
export function unpredictJs(b: Uint8Array, predictor: 2 | 3, rowBytes: number, stride: number, bytes: number): void {
  const n = Math.floor(b.length / rowBytes);
  if (predictor === 2) undoHorizontal(b, n, rowBytes, stride, bytes);
  else undoFloat(b, n, rowBytes, stride, bytes);
}

/** Predictor 2 (JavaScript fallback): per-sample horizontal accumulation within each row (wrapping, as libtiff). */
function undoHorizontal(b: Uint8Array, rows: number, rowBytes: number, stride: number, bytes: number): void {
  const count = rowBytes / bytes;
  const a = bytes === 1 ? b : bytes === 2 ? new Uint16Array(b.buffer, b.byteOffset, rows * count) : new Uint32Array(b.buffer, b.byteOffset, rows * count);
  for (let r = 0; r < rows; r++) {
    const base = r * count, end = base + count;
    for (let i = base + stride; i < end; i++) a[i] = a[i] + a[i - stride];
  }
}

/** Predictor 3 (JavaScript fallback): undo byte differencing, then reassemble the byte planes (most significant first) into LE words. */
function undoFloat(b: Uint8Array, rows: number, rowBytes: number, stride: number, bytes: number): void {
  if (rowScratch.length < rowBytes) rowScratch = new Uint8Array(rowBytes);
  const s = rowScratch;
  const wc = rowBytes / bytes;
  for (let r = 0; r < rows; r++) {
    const base = r * rowBytes;
    if (stride === 1) {
      // Running sum in a register; the Uint8Array store keeps its low byte (the modulo 256 of the TIFF spec).
      let acc = 0;
      for (let i = 0; i < rowBytes; i++) { acc += b[base + i]; s[i] = acc; }
    } else {
      for (let i = 0; i < stride; i++) s[i] = b[base + i];
      for (let i = stride; i < rowBytes; i++) s[i] = b[base + i] + s[i - stride];
    }
    if (bytes === 4 && (b.byteOffset + base) % 4 === 0) {
      const w = new Uint32Array(b.buffer, b.byteOffset + base, wc);
      const p1 = wc, p2 = 2 * wc, p3 = 3 * wc;
      for (let i = 0; i < wc; i++) w[i] = (s[i] << 24) | (s[p1 + i] << 16) | (s[p2 + i] << 8) | s[p3 + i];
    } else {
      for (let i = 0; i < wc; i++) for (let k = 0; k < bytes; k++) b[base + bytes * i + k] = s[(bytes - k - 1) * wc + i];
    }
  }
}
