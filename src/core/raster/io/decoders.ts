/** Decoders for geotiff.js: libdeflate (or Node's zlib) for DEFLATE (pako is 2-4x slower), geotiff.js's own for the rest. */
import { inflateKnown } from './native-deflate';
import { addDecoder, getDecoder, BaseDecoder } from 'geotiff';
import { jpegFrameSize, lercDecode, LercLib, lzwDecode, packbitsDecode } from './safe-decoders';

/** Decoded size of a full block from the decoder parameters (rows padded to whole bytes). */
function expectedBytes(p: any): number {
  const bits = Array.isArray(p.bitsPerSample) || ArrayBuffer.isView(p.bitsPerSample) ? Array.from(p.bitsPerSample as ArrayLike<number>) : [Number(p.bitsPerSample) || 8];
  const spp = p.planarConfiguration === 2 ? 1 : bits.length;
  return Math.ceil(((p.tileWidth || 0) * spp * (bits[0] || 8)) / 8) * (p.tileHeight || 0);
}

class ZlibDecoder extends (BaseDecoder as any) {
  decodeBlock(buffer: ArrayBuffer): ArrayBuffer {
    // Into one buffer of the expected block size (longer streams are decoded whole up to a cap, as before).
    const expected = expectedBytes((this as any).parameters ?? {});
    const out = inflateKnown(new Uint8Array(buffer), expected, false);
    // A Buffer may be a view into a shared pool; predictors need an exact, own ArrayBuffer.
    if (out.byteOffset === 0 && out.byteLength === out.buffer.byteLength) return out.buffer as ArrayBuffer;
    return out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength) as ArrayBuffer;
  }
}

/**
 * ZSTD through zstddec (as geotiff.js), but with the block's expected size: geotiff.js lets zstddec
 * guess it, and on a corrupt or truncated frame zstddec's streaming fallback loops forever.
 */
let zstd: { decode(a: Uint8Array, size?: number): Uint8Array } | null = null;
class SafeZstdDecoder extends (BaseDecoder as any) {
  decodeBlock(buffer: ArrayBuffer): ArrayBuffer {
    const expected = expectedBytes((this as any).parameters ?? {});
    if (!(expected > 0)) throw new Error('ZSTD block of unknown size');
    let out: Uint8Array;
    try { out = zstd!.decode(new Uint8Array(buffer), expected); } catch (e) { throw new Error(`corrupt ZSTD block (${(e as Error).message})`); }
    if (out.byteLength > expected || out.byteLength === 0) throw new Error(`corrupt ZSTD block (${out.byteLength} bytes decoded, ${expected} expected)`);
    return out.byteOffset === 0 && out.byteLength === out.buffer.byteLength ? out.buffer as ArrayBuffer : new Uint8Array(out).buffer as ArrayBuffer;
  }
}

class SafeLzwDecoder extends (BaseDecoder as any) {
  decodeBlock(buffer: ArrayBuffer): ArrayBuffer {
    return lzwDecode(new Uint8Array(buffer), expectedBytes((this as any).parameters ?? {})).slice().buffer as ArrayBuffer;
  }
}

class SafePackbitsDecoder extends (BaseDecoder as any) {
  decodeBlock(buffer: ArrayBuffer): ArrayBuffer {
    return packbitsDecode(new Uint8Array(buffer), expectedBytes((this as any).parameters ?? {})).slice().buffer as ArrayBuffer;
  }
}

let lerc: LercLib | null = null;
class SafeLercDecoder extends (BaseDecoder as any) {
  decodeBlock(buffer: ArrayBuffer): ArrayBuffer {
    const p = (this as any).parameters ?? {};
    const add = Number(p.LercParameters?.[1] ?? 0);
    const cap = expectedBytes(p) * 2 + (1 << 20);
    return lercDecode(new Uint8Array(buffer), add, cap, { w: p.tileWidth, h: p.tileHeight }, p.planarConfiguration === 1, lerc!, (a, n) => {
      const out = zstd!.decode(a, n);
      if (out.byteLength === 0 || out.byteLength > n) throw new Error('corrupt ZSTD layer in a LERC block');
      return out;
    });
  }
}

async function loadZstd(): Promise<void> {
  if (zstd) return;
  // eslint-disable-next-line @typescript-eslint/no-var-requires
  const { ZSTDDecoder } = require('zstddec/stream') as { ZSTDDecoder: new () => { init(): Promise<void>; decode(a: Uint8Array, size?: number): Uint8Array } };
  const d = new ZSTDDecoder();
  await d.init();
  zstd = d;
}

let registered = false;
export function registerNativeDecoders(): void {
  if (registered) return;
  registered = true;
  addDecoder([8, 32946], async () => ZlibDecoder as any);
  addDecoder(50000, async () => { await loadZstd(); return SafeZstdDecoder as any; });
  addDecoder(5, async () => SafeLzwDecoder as any);
  addDecoder(32773, async () => SafePackbitsDecoder as any);
  addDecoder(34887, async () => {
    await loadZstd();
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    lerc ??= require('lerc') as LercLib;
    return SafeLercDecoder as any;
  });
}

export interface DecoderLike { decode(buffer: ArrayBuffer): Promise<ArrayBuffer> }

/**
 * Builds the decoder for an image the way geotiff.js does internally (its parameter helper is not exported).
 * `predictor` overrides the file's (1 when the caller undoes the predictor itself).
 */
export async function decoderFor(image: any, opts: { predictor?: number } = {}): Promise<DecoderLike> {
  registerNativeDecoders();
  const fd = image.fileDirectory;
  const compression = (await fd.loadValue('Compression')) ?? 1;
  const tiled = !fd.hasTag('StripOffsets');
  const params: Record<string, unknown> = {
    tileWidth: tiled ? await fd.loadValue('TileWidth') : await fd.loadValue('ImageWidth'),
    tileHeight: tiled ? await fd.loadValue('TileLength') : ((await fd.loadValue('RowsPerStrip')) || (await fd.loadValue('ImageLength'))),
    planarConfiguration: await fd.loadValue('PlanarConfiguration'),
    bitsPerSample: await fd.loadValue('BitsPerSample'),
    predictor: opts.predictor ?? ((await fd.loadValue('Predictor')) || 1),
  };
  if (compression === 7) params.JPEGTables = await fd.loadValue('JPEGTables');
  if (compression === 34887) params.LercParameters = await fd.loadValue('LercParameters');
  if (compression === 50001) params.samplesPerPixel = Number(await fd.loadValue('SamplesPerPixel')) || 4;
  const decoder = (await getDecoder(compression, params as any)) as unknown as DecoderLike;
  if (compression !== 6 && compression !== 7) return decoder;
  // The JPEG decoder allocates for the frame its header declares: refuse frames larger than the block.
  const tw = Number(params.tileWidth), th = Number(params.tileHeight);
  return {
    decode(buffer: ArrayBuffer): Promise<ArrayBuffer> {
      const f = jpegFrameSize(new Uint8Array(buffer));
      if (f && (f.width > tw + 16 || f.height > th + 16)) throw new Error(`JPEG frame of ${f.width}x${f.height} in a ${tw}x${th} block`);
      return decoder.decode(buffer);
    },
  };
}
