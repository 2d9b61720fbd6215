/** Tile encoding for our GeoTIFF writer: predictor + DEFLATE; shared by the writer and the worker pool. */
import { deflateAddon, deflateBytes, deflatedSize, DeflateSetting, predictNative, predictInterleavedNative, Z_RLE } from './native-deflate';
import { count, tick, tock } from './stage-times';
import { constants as zlibConstants } from 'node:zlib';

export type OutDType = 'float32' | 'uint8' | 'uint16' | 'int16' | 'int32';

export const OUT_BYTES: Record<OutDType, number> = { float32: 4, uint8: 1, uint16: 2, int16: 2, int32: 4 };
/** TIFF SampleFormat: 1 unsigned, 2 signed, 3 float. */
export const OUT_FORMAT: Record<OutDType, number> = { float32: 3, uint8: 1, uint16: 1, int16: 2, int32: 2 };
const RANGE: Record<OutDType, [number, number]> = { float32: [-Infinity, Infinity], uint8: [0, 255], uint16: [0, 65535], int16: [-32768, 32767], int32: [-2147483648, 2147483647] };
const CTOR = { float32: Float32Array, uint8: Uint8Array, uint16: Uint16Array, int16: Int16Array, int32: Int32Array };

/**
 * Adaptive DEFLATE (the default): each float tile's first rows are compressed both ways and the tile gets level 4
 * (memLevel 9) when that beats level 1 Z_RLE by 8% on them, else level 1 Z_RLE. Smooth fields such as
 * distances are then within a few percent of GDAL's size (level 1 Z_RLE left them 80% larger) at about
 * the same time, while noisy float tiles (indices, slopes) keep the 2-3x faster Z_RLE for 2-3% more bytes.
 * Deterministic: the choice depends on the tile's bytes only. `npm run bench:raster -- --ndvi --codecs`.
 */
export const ADAPTIVE_ZLEVEL = -1;
export const DEFAULT_ZLEVEL = ADAPTIVE_ZLEVEL;

/** Bytes of the probe that chooses a tile's DEFLATE setting (a 16th of a 512×512 float tile). */
const PROBE_BYTES = 64 << 10;

export function predictorFor(dtype: OutDType): number { return dtype === 'float32' ? 3 : 2; }

/**
 * Converts a w×h block (row-major) into a full tile×tile typed array of `dtype` (edges padded with
 * the fill value), mapping NaN (and out-of-range values for ints) to `fill`.
 */
export function toTile(block: ArrayLike<number>, w: number, h: number, tile: number, dtype: OutDType, fill: number, inPlace = false): ArrayBufferView {
  if (inPlace && dtype === 'float32' && w === tile && h === tile && block instanceof Float32Array) {
    // Full float tile that the caller no longer needs: replace NaN in place instead of copying.
    if (fill === fill) for (let i = 0; i < block.length; i++) { if (block[i] !== block[i]) block[i] = fill; }
    return block;
  }
  const arr = new CTOR[dtype](tile * tile);
  if (w < tile || h < tile) arr.fill(fill as never);
  const isFloat = dtype === 'float32';
  const [lo, hi] = RANGE[dtype];
  for (let y = 0; y < h; y++) {
    const so = y * w, dof = y * tile;
    if (isFloat) {
      for (let x = 0; x < w; x++) { const v = block[so + x]; arr[dof + x] = v !== v ? fill : v; }
    } else {
      for (let x = 0; x < w; x++) {
        const v = block[so + x];
        arr[dof + x] = v !== v ? fill : v <= lo ? lo : v >= hi ? hi : Math.round(v);
      }
    }
  }
  return arr;
}

/**
 * Like toTile for the bw×rows block at column x0 of a strip `w` wide (no intermediate block copy):
 * NaN → fill, integers rounded and clamped, edges padded with fill. The tile is a buffer of this thread
 * reused by the next call (a new one per tile was 1 MB of garbage each): encode it before calling again.
 */
export function stripToTile(strip: ArrayLike<number>, w: number, x0: number, bw: number, rows: number, tile: number, dtype: OutDType, fill: number): ArrayBufferView {
  let arr = tileScratch.get(dtype);
  if (!arr || arr.length !== tile * tile) tileScratch.set(dtype, arr = new CTOR[dtype](tile * tile));
  if (bw < tile || rows < tile) arr.fill(fill as never);
  const [lo, hi] = RANGE[dtype];
  const sameType = strip instanceof CTOR[dtype];
  for (let y = 0; y < rows; y++) {
    const so = y * w + x0, dof = y * tile;
    if (sameType && dtype !== 'float32') {
      // Integer samples of the output's own type: a plain copy (no NaN, already in range).
      arr.set((strip as Uint8Array).subarray(so, so + bw), dof);
    } else if (dtype === 'float32' && sameType) {
      // A row copy (memcpy), then NaN → fill over the tile's own Float32Array: one monomorphic loop instead
      // of a store per pixel through whatever array type the strip is (~5x faster on float strips).
      const t = arr as Float32Array;
      t.set((strip as Float32Array).subarray(so, so + bw), dof);
      for (let x = dof, end = dof + bw; x < end; x++) if (t[x] !== t[x]) t[x] = fill;
    } else if (dtype === 'float32') {
      for (let x = 0; x < bw; x++) { const v = strip[so + x]; arr[dof + x] = v !== v ? fill : v; }
    } else {
      for (let x = 0; x < bw; x++) {
        const v = strip[so + x];
        arr[dof + x] = v !== v ? fill : v <= lo ? lo : v >= hi ? hi : Math.round(v);
      }
    }
  }
  return arr;
}

/**
 * The bw×rows block at pixel column x0 of a pixel-interleaved integer strip (`samples` values per pixel, `w`
 * pixels wide, already of the output's type) as a full pixel-interleaved tile, edges padded with `fill`.
 */
export function interleavedStripToTile(strip: ArrayBufferView & ArrayLike<number>, w: number, x0: number, bw: number, rows: number, tile: number, samples: number, dtype: OutDType, fill: number): ArrayBufferView {
  if (dtype === 'float32' || !(strip instanceof CTOR[dtype])) throw new Error(`interleaved tiles are copied from ${dtype} integer samples of the same type`);
  // One tile buffer per thread and type, reused: the caller predicts and deflates it before the next tile.
  const n0 = tile * tile * samples;
  let arr = interleavedScratch.get(dtype);
  if (!arr || arr.length !== n0) interleavedScratch.set(dtype, arr = new CTOR[dtype](n0));
  if (bw < tile || rows < tile) arr.fill(fill as never);
  const src = strip as unknown as Uint8Array, n = bw * samples;
  for (let y = 0; y < rows; y++) {
    const so = (y * w + x0) * samples;
    arr.set(src.subarray(so, so + n), y * tile * samples);
  }
  return arr;
}

const tileScratch = new Map<OutDType, Uint8Array | Uint16Array | Int16Array | Int32Array | Float32Array>();
const interleavedScratch = new Map<OutDType, Uint8Array | Uint16Array | Int16Array | Int32Array | Float32Array>();

/**
 * Applies the TIFF predictor in place / into a byte buffer and deflates it. `samples` > 1: a pixel-interleaved
 * integer tile (tile × tile × samples), differenced per band as libtiff does (each sample minus the same band's
 * sample one pixel to the left).
 */
export function encodeTile(tileArr: ArrayBufferView, tile: number, dtype: OutDType, level = DEFAULT_ZLEVEL, samples = 1): Uint8Array {
  let t = tick();
  let bytes: Uint8Array;
  if (samples > 1) {
    if (dtype === 'float32') throw new Error('pixel-interleaved float32 tiles are not written (predictor 3 would need the per-band byte stride)');
    bytes = new Uint8Array(tileArr.buffer, tileArr.byteOffset, tileArr.byteLength);
    const B = OUT_BYTES[dtype];
    if (!predictInterleavedNative(bytes, tile * samples * B, B, samples)) predictInterleaved(tileArr as Uint8Array | Uint16Array | Int16Array | Int32Array, tile * samples, samples);
  } else if (dtype === 'float32') {
    if (planes.length < tile * tile * 4) planes = new Uint8Array(tile * tile * 4);
    bytes = planes.length === tile * tile * 4 ? planes : planes.subarray(0, tile * tile * 4);
    // In the addon when it is loaded (the same bytes; about a tenth of the time of the JavaScript loops).
    const src = new Uint8Array(tileArr.buffer, tileArr.byteOffset, tile * tile * 4);
    if (!predictNative(src, bytes, 3, tile * 4, 4)) predictFloat32(new Uint32Array(tileArr.buffer, tileArr.byteOffset, tile * tile), tile, bytes);
  } else {
    // Horizontal differencing (2) on the integer samples, in their own width (wraps like libtiff).
    bytes = new Uint8Array(tileArr.buffer, tileArr.byteOffset, tileArr.byteLength);
    const B = OUT_BYTES[dtype];
    if (!predictNative(bytes, bytes, 2, tile * B, B)) {
      const a = tileArr as unknown as Uint8Array;
      for (let r = 0; r < tile; r++) {
        const base = r * tile;
        for (let i = tile - 1; i > 0; i--) a[base + i] = a[base + i] - a[base + i - 1];
      }
    }
  }
  t = tock('predict', t);
  const out = deflateBytes(bytes, chooseSetting(bytes, dtype, level));
  tock('deflate', t);
  count('encodes');
  return out;
}

// Z_RLE: half the time of level 1 for the same size on predicted tiles; memLevel 9 (larger blocks,
// fewer Huffman trees): another ~15% less time (bench/raster.ts --profile).
const ZLIB_FAST = { level: 1, strategy: Z_RLE, memLevel: 9 };
/** Noisy tiles (imagery, indices, slopes): zlib's Z_RLE is faster than any libdeflate level, within 2% of GDAL's size. */
const FAST: DeflateSetting = { level: 1, zlib: ZLIB_FAST, preferZlib: true, own: 'rle' };
/** Smooth fields (distances, DEM-like floats): libdeflate level 4, or zlib level 4 without the addon. */
const SMOOTH: DeflateSetting = { level: 4, zlib: { level: 4, memLevel: 9 } };
/**
 * Noisy integer tiles (imagery: the probe ≥ 65% of raw): zlib's Huffman-only coding. Differenced imagery has
 * next to no repeats for matching to find, so it gives the same size as Z_RLE (72.1% of raw on the bench
 * scene's uint16 bands, libdeflate level 1 72.0%) in about 70% of the time (3.7 against 5.4 ms a tile).
 * Not for float planes (predictor 3): there Huffman-only is 8% larger and no faster.
 */
const NOISY_INT: DeflateSetting = { level: 1, zlib: { level: 1, strategy: zlibConstants.Z_HUFFMAN_ONLY, memLevel: 9 }, preferZlib: true, own: 'huffman' };
/** Masks, classes, grey levels: libdeflate level 6 is within 4% of GDAL's size at ~1 ms per tile. */
const SPARSE: DeflateSetting = { level: 6, zlib: ZLIB_FAST };

/**
 * The DEFLATE setting of one predicted tile. Level 0 stores; level > 0 is zlib's scale (libdeflate's
 * level of the same number with the addon). Adaptive: a 64 KB probe (the tile's first rows) compressed with
 * Z_RLE tells sparse tiles (< 25% of raw: masks, classes; libdeflate level 6) from noisy ones (≥ 65%:
 * Z_RLE) and smooth float fields (libdeflate level 4); other integer tiles keep Z_RLE. Without the addon, as before: integer tiles Z_RLE, float tiles
 * zlib level 4 when it beats Z_RLE by 8% on the probe. Deterministic: depends on the tile's bytes only.
 */
function chooseSetting(bytes: Uint8Array, dtype: OutDType, level: number): DeflateSetting {
  if (level === 0) return { level: 0, zlib: { level: 0 } };
  if (level > 0) return { level, zlib: { level, strategy: Z_RLE, memLevel: 9 } };
  const probe = bytes.length >= 2 * PROBE_BYTES ? bytes.subarray(0, PROBE_BYTES) : bytes;
  if (deflateAddon()) {
    const r = deflatedSize(probe, FAST) / Math.max(1, probe.length);
    // Integer tiles between the two (hillshade grey levels: 48% of raw) keep Z_RLE, which beats every
    // libdeflate level on horizontally differenced data; float planes (predictor 3) of smooth fields do not.
    if (r < 0.25) return SPARSE;
    if (dtype !== 'float32') return r >= 0.65 ? NOISY_INT : FAST;
    return r >= 0.65 ? FAST : SMOOTH;
  }
  // Integer outputs (masks, classes, grey levels, copies of imagery) gained under 8% in every measurement: no probe.
  if (dtype === 'float32' && bytes.length >= 2 * PROBE_BYTES) {
    if (deflatedSize(probe, SMOOTH) < deflatedSize(probe, FAST) * 0.92) return SMOOTH;
  }
  return FAST;
}

/** Predictor 2 on rows of `rowSamples` pixel-interleaved integers (`stride` per pixel); wraps in the array's own width. */
export function predictInterleaved(a: Uint8Array | Uint16Array | Int16Array | Int32Array, rowSamples: number, stride: number): void {
  for (let base = 0; base < a.length; base += rowSamples) {
    for (let i = base + rowSamples - 1, end = base + stride; i >= end; i--) a[i] = a[i] - a[i - stride];
  }
}

/**
 * TIFF floating-point predictor (3) for a tile×tile float32 tile given as its bit patterns: per row, the bytes
 * are split into planes (most significant first), then each byte becomes the difference to the previous one.
 */
export function predictFloat32(words: Uint32Array, tile: number, bytes: Uint8Array): void {
  // One pass per row: plane p holds byte (3-p) of each word; for i > 0 the previous byte in the
  // concatenated planes is the same plane's previous word, for i = 0 the previous plane's last word.
  for (let r = 0; r < tile; r++) {
    const wb = r * tile, base = r * tile * 4;
    const t1 = base + tile, t2 = base + 2 * tile, t3 = base + 3 * tile;
    let prev = words[wb];
    const last = words[wb + tile - 1];
    bytes[base] = prev >>> 24;
    bytes[t1] = (prev >>> 16) - (last >>> 24);
    bytes[t2] = (prev >>> 8) - (last >>> 16);
    bytes[t3] = prev - (last >>> 8);
    for (let i = 1; i < tile; i++) {
      const w = words[wb + i];
      bytes[base + i] = (w >>> 24) - (prev >>> 24);
      bytes[t1 + i] = (w >>> 16) - (prev >>> 16);
      bytes[t2 + i] = (w >>> 8) - (prev >>> 8);
      bytes[t3 + i] = w - prev;
      prev = w;
    }
  }
}

/** Reused predictor output (the deflate consumes it synchronously). */
let planes = new Uint8Array(0);
