/**
 * DEFLATE (zlib format) for tile reads and writes: libdeflate through GeoWeave's native addon
 * (`native/deflate`, built by `npm ci`/`npm install` when libdeflate-dev is installed), about twice as fast as
 * Node's zlib both ways, the same library GDAL links on Debian. When the addon is missing or does not load,
 * Node's zlib does the work and one line says so (main thread only; workers fall back silently).
 *
 * `GEOWEAVE_DEFLATE=zlib` forces Node's zlib (for comparisons); `GEOWEAVE_DEFLATE_ADDON=/path/x.node`
 * names the addon file instead of looking for it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { deflateSync, inflateSync, constants as zlibConstants } from 'node:zlib';

export interface DeflateAddon {
  /** Decompresses a zlib stream into `output`; returns the bytes written (all of `output` with `exact`). */
  inflate(input: Uint8Array, output: Uint8Array, exact?: boolean): number;
  /** Compresses `input` as a zlib stream at libdeflate level 0-12 into `output`; returns the bytes written. */
  deflate(input: Uint8Array, level: number, output: Uint8Array): number;
  deflateBound(level: number, n: number): number;
  /**
   * Undoes TIFF predictor 2 or 3 in place on the whole rows of a decoded block of little-endian samples
   * (absent from addons built before it existed: callers fall back to their JavaScript loops).
   */
  unpredict?(data: Uint8Array, predictor: 2 | 3, rowBytes: number, stride: number, bytes: number): void;
  /**
   * Applies predictor 2 (in place) or 3 (into `out`) to whole rows of little-endian samples (absent from older
   * addons); `stride` (predictor 2, addons from 2026-12-02 on; older ones ignore it): samples per pixel.
   */
  predict?(data: Uint8Array, out: Uint8Array, predictor: 2 | 3, rowBytes: number, bytes: number, stride?: number): void;
  /**
   * Huffman-only DEFLATE as a zlib stream (`native/deflate/huffman.c`; absent from older addons); `rle`
   * (addons from 2026-12-02 on, with huffmanRle): runs of a byte as matches at distance 1, zlib's Z_RLE parsing.
   */
  huffman?(input: Uint8Array, output: Uint8Array, rle?: boolean): number;
  huffmanBound?(n: number): number;
  version: string;
}

const ADDON_FILE = path.join('native', 'deflate', 'build', 'Release', 'geoweave_deflate.node');

let addon: DeflateAddon | null | undefined;
let status = '';
let warn: (message: string) => void = (m) => console.warn(m);

/** Where the fallback message goes (default: console.warn); the extension routes it to its log. */
export function setCodecWarn(fn: (message: string) => void): void { warn = fn; }

/** Walks up from this file (out/src/core/raster/io, or dist/ in the bundle and the packaged extension). */
function findAddon(): string | undefined {
  const forced = process.env.GEOWEAVE_DEFLATE_ADDON;
  if (forced) return forced;
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const f = path.join(dir, ADDON_FILE);
    if (fs.existsSync(f)) return f;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** The addon, or null when DEFLATE goes through Node's zlib (loaded once per thread). */
export function deflateAddon(): DeflateAddon | null {
  if (addon !== undefined) return addon;
  addon = null;
  if (/^zlib$/i.test(process.env.GEOWEAVE_DEFLATE ?? '')) {
    status = "Node's zlib (GEOWEAVE_DEFLATE=zlib)";
    return addon;
  }
  const file = findAddon();
  let why: string;
  if (!file) {
    why = `${ADDON_FILE} not found (it is built by npm install when libdeflate-dev is installed)`;
  } else {
    try {
      // process.dlopen, not require: bundlers leave it alone, and it loads the same file in worker threads.
      const m = { exports: {} as DeflateAddon };
      process.dlopen(m, file);
      if (typeof m.exports.inflate !== 'function' || typeof m.exports.deflate !== 'function') throw new Error('not the GeoWeave DEFLATE addon');
      addon = m.exports;
      status = `libdeflate ${addon.version} (${file})`;
      return addon;
    } catch (e) {
      why = `${file} did not load: ${(e as Error).message.split('\n')[0]}`;
    }
  }
  status = `Node's zlib (${why})`;
  if (isMainThread) warn(`geoweave: DEFLATE through Node's zlib, about 2x slower than the libdeflate addon: ${why}`);
  return addon;
}

/**
 * Undoes predictor 2 or 3 in place through the addon; false when there is no addon (or an old one) and the
 * caller must do it.
 */
export function unpredictNative(data: Uint8Array, predictor: 2 | 3, rowBytes: number, stride: number, bytes: number): boolean {
  const a = deflateAddon();
  if (!a || typeof a.unpredict !== 'function') return false;
  a.unpredict(data, predictor, rowBytes, stride, bytes);
  return true;
}

/** Applies predictor 2 (in place) or 3 (into `out`) through the addon; false when the caller must do it. */
export function predictNative(data: Uint8Array, out: Uint8Array, predictor: 2 | 3, rowBytes: number, bytes: number): boolean {
  const a = deflateAddon();
  if (!a || typeof a.predict !== 'function') return false;
  a.predict(data, out, predictor, rowBytes, bytes);
  return true;
}

/**
 * Predictor 2 in place on pixel-interleaved rows (each sample minus the same band's sample one pixel to the
 * left) through the addon; false when there is no addon, or one built before the stride argument (which
 * would ignore it), and the caller must do it.
 */
export function predictInterleavedNative(data: Uint8Array, rowBytes: number, bytes: number, stride: number): boolean {
  const a = deflateAddon();
  if (!a || typeof a.predict !== 'function' || typeof a.huffman !== 'function') return false;
  a.predict(data, data, 2, rowBytes, bytes, stride);
  return true;
}

/** Which DEFLATE implementation this thread uses, for logs and the bench. */
export function codecStatus(): string {
  deflateAddon();
  return status;
}

/**
 * Inflates a zlib stream whose decoded size is known (a TIFF block): returns exactly `expected` bytes, or
 * fewer when the stream is short (the caller reports that). A longer stream is cut to `expected` (as GDAL
 * reads it) unless `cut` is false, then decoded whole up to a cap of 4× + 1 MB (inflate bombs stop there).
 * Throws on corrupt data. The result owns its ArrayBuffer unless it is shorter than expected or `into` was used.
 */
export function inflateKnown(input: Uint8Array, expected: number, cut = true, into?: Uint8Array): Uint8Array {
  const a = expected > 0 ? deflateAddon() : null;
  if (a) {
    // `into`: a caller's reused buffer (at least `expected` bytes) instead of a new one.
    const out = into && into.length >= expected ? into.subarray(0, expected) : new Uint8Array(Buffer.allocUnsafeSlow(expected).buffer, 0, expected);
    try {
      const n = a.inflate(input, out);
      return n === expected ? out : out.subarray(0, n);
    } catch (e) {
      // A stream longer than the block: zlib below decodes it (rare; GDAL never writes one).
      if ((e as { code?: string }).code !== 'ERR_DEFLATE_OUTPUT_SIZE') throw corrupt(e);
    }
  }
  let buf: Buffer;
  try {
    // One output chunk a little larger than the block: no concat copy.
    buf = inflateSync(input, { chunkSize: Math.max(64 * 1024, Math.min(expected + 1024, 256 << 20)), maxOutputLength: Math.max(0, expected) * 4 + (1 << 20) });
  } catch (e) {
    throw corrupt(e);
  }
  return cut && expected > 0 && buf.length > expected ? buf.subarray(0, expected) : buf;
}

function corrupt(e: unknown): Error {
  const err = new Error(`corrupt DEFLATE data (${(e as Error).message})`);
  (err as { code?: string }).code = (e as { code?: string }).code;
  return err;
}

/**
 * Settings for one compression: libdeflate's level when the addon is loaded, else the zlib options
 * that stand in for it.
 */
export interface DeflateSetting {
  level: number;
  zlib: { level: number; strategy?: number; memLevel?: number };
  /** Use the zlib options even when the addon is loaded (zlib's Z_RLE beats libdeflate on noisy data). */
  preferZlib?: boolean;
  /**
   * The addon's own encoder when it has one (the zlib options, Z_HUFFMAN_ONLY or Z_RLE, stand in for it
   * otherwise): 'huffman' codes literals only, 'rle' also runs of a byte, as zlib's strategies parse; the
   * same kind of stream, within 0.1% of zlib's size on tiles, in a third to a half of its time.
   */
  own?: 'huffman' | 'rle';
}

let outScratch = new Uint8Array(0);

/**
 * Compresses `bytes` as a zlib stream. Returns a fresh Uint8Array that owns its ArrayBuffer (transferable
 * to another thread). Deterministic for a given implementation and setting.
 */
export function deflateBytes(bytes: Uint8Array, setting: DeflateSetting): Uint8Array {
  const h = setting.own ? huffmanAddon(setting.own) : null;
  if (h) {
    const n = huffmanInto(h, bytes, setting.own === 'rle'); // may replace outScratch: read it after
    return outScratch.slice(0, n);
  }
  const a = setting.preferZlib ? null : deflateAddon();
  if (a) {
    const bound = a.deflateBound(setting.level, bytes.length);
    if (outScratch.length < bound) outScratch = new Uint8Array(bound + (bound >> 3));
    const n = a.deflate(bytes, setting.level, outScratch);
    return outScratch.slice(0, n);
  }
  const chunkSize = bytes.length + (bytes.length >> 10) + 1024;
  const out = deflateSync(bytes, { ...setting.zlib, chunkSize });
  // Tiles that compress well should not pin a whole chunk-sized buffer until written; the copy owns its
  // ArrayBuffer (Buffer.from could land in the shared pool, which cannot be transferred to another thread).
  return out.length < chunkSize >> 1 || out.byteOffset !== 0 || out.byteLength !== out.buffer.byteLength ? new Uint8Array(out) : out;
}

/** Compressed size only (for probes that choose a setting). */
export function deflatedSize(bytes: Uint8Array, setting: DeflateSetting): number {
  const h = setting.own ? huffmanAddon(setting.own) : null;
  if (h) return huffmanInto(h, bytes, setting.own === 'rle');
  const a = setting.preferZlib ? null : deflateAddon();
  if (a) {
    const bound = a.deflateBound(setting.level, bytes.length);
    if (outScratch.length < bound) outScratch = new Uint8Array(bound + (bound >> 3));
    return a.deflate(bytes, setting.level, outScratch);
  }
  return deflateSync(bytes, setting.zlib).length;
}

/**
 * The addon when it has the encoder `mode` needs: run-length mode came with the `huffmanRle` marker (an
 * addon built before it would ignore the flag and write literals only, a valid but larger stream).
 */
function huffmanAddon(mode: 'huffman' | 'rle'): Required<Pick<DeflateAddon, 'huffman' | 'huffmanBound'>> | null {
  const a = deflateAddon();
  if (!a || typeof a.huffman !== 'function' || typeof a.huffmanBound !== 'function') return null;
  if (mode === 'rle' && (a as { huffmanRle?: boolean }).huffmanRle !== true) return null;
  return a as Required<DeflateAddon>;
}

/** The addon's stream of `bytes` into outScratch; returns its length. */
function huffmanInto(h: Required<Pick<DeflateAddon, 'huffman' | 'huffmanBound'>>, bytes: Uint8Array, rle: boolean): number {
  const bound = h.huffmanBound(bytes.length);
  if (outScratch.length < bound) outScratch = new Uint8Array(bound + (bound >> 3));
  return h.huffman(bytes, outScratch, rle);
}

export const Z_RLE = zlibConstants.Z_RLE;
