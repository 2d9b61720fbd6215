/**
 * OpenJPEG decoding one codestream at a time: the system's library through GeoWeave's addon
 * (`native/openjp2`, built by npm install where libopenjp2-7-dev is installed: the library GDAL
 * uses, about twice as fast per core), else the WebAssembly build (`@cornerstonejs/codec-openjpeg`),
 * loaded on the first JPEG 2000 read. A WebAssembly module that failed (an OpenJPEG error, or an
 * abort that leaves Emscripten's runtime unusable) is dropped, and the next decode loads a fresh
 * one: one corrupt tile does not break every later read in the session.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Jp2Error } from './codestream';

export interface DecodedTile {
  width: number; height: number; components: number; bits: number; signed: boolean;
  /** Samples, pixel-interleaved when there are several components (8-bit or 16-bit). */
  data: Uint8Array | Int8Array | Uint16Array | Int16Array;
}

interface Decoder {
  getEncodedBuffer(n: number): Uint8Array;
  getDecodedBuffer(): Uint8Array;
  decode(): void;
  /** Decodes without the `level` finest resolutions (quality layers: 0 = all). */
  decodeSubResolution(level: number, layer: number): void;
  getFrameInfo(): { width: number; height: number; bitsPerSample: number; componentCount: number; isSigned: boolean };
  delete?(): void;
}

interface NativeAddon {
  decode(cs: Uint8Array, reduce: number): { width: number; height: number; components: number; bits: number; signed: boolean; data: DecodedTile['data'] };
  version: string;
}

const ADDON_FILE = path.join('native', 'openjp2', 'build', 'Release', 'geoweave_openjp2.node');
let native: NativeAddon | null | undefined;
let nativeStatus = '';

/** The native decoder, or null (GEOWEAVE_JP2=wasm, not built, or it does not load); looked up once per thread. */
export function nativeJp2(): NativeAddon | null {
  if (native !== undefined) return native;
  native = null;
  if (/^wasm$/i.test(process.env.GEOWEAVE_JP2 ?? '')) { nativeStatus = 'WebAssembly (GEOWEAVE_JP2=wasm)'; return native; }
  let file = process.env.GEOWEAVE_OPENJP2_ADDON;
  for (let dir = __dirname; !file; dir = path.dirname(dir)) {
    const f = path.join(dir, ADDON_FILE);
    if (fs.existsSync(f)) file = f;
    else if (path.dirname(dir) === dir) break;
  }
  if (!file) { nativeStatus = `WebAssembly (${ADDON_FILE} not built: it needs libopenjp2-7-dev at npm install)`; return native; }
  try {
    // process.dlopen, not require: bundlers leave it alone, and worker threads load the same file.
    const m = { exports: {} as NativeAddon };
    process.dlopen(m, file);
    if (typeof m.exports.decode !== 'function') throw new Error('not the GeoWeave OpenJPEG addon');
    native = m.exports;
    nativeStatus = `OpenJPEG ${native.version} (${file})`;
  } catch (e) {
    nativeStatus = `WebAssembly (${file} does not load: ${(e as Error).message.split('\n')[0]})`;
  }
  return native;
}

/** Which decoder JPEG 2000 reads use, and why (for logs and the bench). */
export function jp2DecoderStatus(): string { nativeJp2(); return nativeStatus; }

let wasm: Promise<{ J2KDecoder: new () => Decoder }> | undefined;
let decoder: Decoder | undefined;

function load(): Promise<{ J2KDecoder: new () => Decoder }> {
  if (!wasm) {
    let factory: (o: object) => Promise<{ J2KDecoder: new () => Decoder }>;
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      factory = require('@cornerstonejs/codec-openjpeg/decodewasmjs');
    } catch (e) {
      throw new Jp2Error(`the JPEG 2000 decoder (@cornerstonejs/codec-openjpeg) is not installed (${(e as Error).message}); run npm install, or convert the file to GeoTIFF with gdal_translate`);
    }
    // OpenJPEG's [INFO] lines go nowhere; its errors come back as the decode's exception.
    wasm = factory({ print: () => undefined, printErr: () => undefined });
    wasm.catch(() => { wasm = undefined; });
  }
  return wasm;
}

/**
 * Decodes a whole codestream (SOC … EOC). Throws Jp2Error with OpenJPEG's reason. `reduce` r > 0
 * decodes at resolution 1/2^r (`size`, which OpenJPEG's frame info does not give then, is that size).
 */
export async function decodeCodestream(cs: Uint8Array, reduce = 0, size?: { width: number; height: number }, via: 'auto' | 'wasm' = 'auto'): Promise<DecodedTile> {
  const n = via === 'wasm' ? null : nativeJp2();
  if (n) {
    let t;
    try { t = n.decode(cs, reduce); } catch (e) { throw new Jp2Error(`OpenJPEG could not decode it (${(e as Error).message})`); }
    if (size && (t.width !== size.width || t.height !== size.height)) throw new Jp2Error(`decoded a ${t.width}×${t.height} tile where ${size.width}×${size.height} was expected`);
    return t;
  }
  const m = await load();
  try {
    decoder ??= new m.J2KDecoder();
    decoder.getEncodedBuffer(cs.length).set(cs);
    if (reduce > 0) decoder.decodeSubResolution(reduce, 0); else decoder.decode();
    const fi = { ...decoder.getFrameInfo() };
    if (reduce > 0) {
      if (!size) throw new Jp2Error('a reduced-resolution decode needs the size it decodes to');
      fi.width = size.width; fi.height = size.height;
    }
    const out = decoder.getDecodedBuffer();
    const bytes = out.slice();
    const wide = fi.bitsPerSample > 8;
    if (fi.bitsPerSample > 16) throw new Jp2Error(`${fi.bitsPerSample}-bit samples are more than the decoder gives (16)`);
    const data = wide
      ? (fi.isSigned ? new Int16Array(bytes.buffer, 0, bytes.length >> 1) : new Uint16Array(bytes.buffer, 0, bytes.length >> 1))
      : (fi.isSigned ? new Int8Array(bytes.buffer, 0, bytes.length) : bytes);
    if (data.length !== fi.width * fi.height * fi.componentCount) {
      throw new Jp2Error(`decoded ${data.length} samples for a ${fi.width}×${fi.height} tile of ${fi.componentCount} components`);
    }
    return { width: fi.width, height: fi.height, components: fi.componentCount, bits: fi.bitsPerSample, signed: fi.isSigned, data };
  } catch (e) {
    // Emscripten's runtime may be left unusable (ABORT set, heap in an unknown state): start afresh next time.
    try { decoder?.delete?.(); } catch { /* the module is gone anyway */ }
    decoder = undefined; wasm = undefined;
    if (e instanceof Jp2Error) throw e;
    const why = e instanceof Error ? e.message : typeof e === 'number' ? `OpenJPEG error (code ${e})` : String(e);
    throw new Jp2Error(`OpenJPEG could not decode it (${why})`);
  }
}
