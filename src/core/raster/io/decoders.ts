/** Decoders for geotiff.js: Node's native zlib for DEFLATE (pako is ~2x slower), geotiff.js's own for the rest. */
import { inflateSync } from 'node:zlib';
import { addDecoder, getDecoder, BaseDecoder } from 'geotiff';

class ZlibDecoder extends (BaseDecoder as any) {
  decodeBlock(buffer: ArrayBuffer): ArrayBuffer {
    // One output chunk of the expected tile size avoids zlib's concat copy.
    const p = (this as any).parameters ?? {};
    const bits = Array.isArray(p.bitsPerSample) || ArrayBuffer.isView(p.bitsPerSample) ? Array.from(p.bitsPerSample as ArrayLike<number>) : [Number(p.bitsPerSample) || 8];
    const spp = p.planarConfiguration === 2 ? 1 : bits.length;
    const expected = Math.ceil(((p.tileWidth || 0) * (p.tileHeight || 0) * spp * (bits[0] || 8)) / 8);
    const chunkSize = Math.max(64 * 1024, Math.min(expected + 1024, 256 << 20));
    const out = inflateSync(new Uint8Array(buffer), { chunkSize });
    // A Buffer may be a view into a shared pool; predictors need an exact, own ArrayBuffer.
    if (out.byteOffset === 0 && out.byteLength === out.buffer.byteLength) return out.buffer as ArrayBuffer;
    return out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength) as ArrayBuffer;
  }
}

let registered = false;
export function registerNativeDecoders(): void {
  if (registered) return;
  registered = true;
  addDecoder([8, 32946], async () => ZlibDecoder as any);
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
  return (await getDecoder(compression, params as any)) as unknown as DecoderLike;
}
