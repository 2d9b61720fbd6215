/**
 * OpenJPEG, as WebAssembly (`@cornerstonejs/codec-openjpeg`), decoding one codestream at a time.
 * The module is loaded on the first JPEG 2000 read. A module that failed (an OpenJPEG error, or
 * an abort that leaves Emscripten's runtime unusable) is dropped, and the next decode loads a
 * fresh one: one corrupt tile does not break every later read in the session.
 */
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
export async function decodeCodestream(cs: Uint8Array, reduce = 0, size?: { width: number; height: number }): Promise<DecodedTile> {
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
