/**
 * Block offsets and byte counts read from the IFD here, in the file's byte order. geotiff.js 3.0.5
 * reads a lazily loaded array (the offsets of a file with more blocks than its first fetch covers)
 * as little-endian whatever the file says, so a big-endian GeoTIFF of a few hundred blocks decoded
 * from offsets like 2684747776 in a 1.4 MB file. Only big-endian files take this path.
 */
import type { IfdEntryInfo } from './tiff-sanity';

interface ByteSource { fetch(slices: { offset: number; length: number }[], signal?: AbortSignal): Promise<ArrayBuffer[]> }

export interface BlockTable { offsets: Float64Array; counts: Float64Array }

/** SHORT, LONG and LONG8 (the types TIFF allows for offsets and counts), as doubles. */
async function readUnsigned(source: ByteSource, e: IfdEntryInfo, little: boolean, signal?: AbortSignal): Promise<Float64Array> {
  const size = e.type === 3 ? 2 : e.type === 4 ? 4 : e.type === 16 ? 8 : 0;
  if (!size) throw new Error(`block offsets or byte counts have field type ${e.type} (SHORT, LONG or LONG8 expected)`);
  const dv = new DataView((await source.fetch([{ offset: e.valueAt, length: size * e.count }], signal))[0]);
  const out = new Float64Array(e.count);
  for (let i = 0; i < e.count; i++) {
    out[i] = size === 2 ? dv.getUint16(i * 2, little) : size === 4 ? dv.getUint32(i * 4, little) : Number(dv.getBigUint64(i * 8, little));
  }
  return out;
}

export async function readBlockTable(source: ByteSource, entries: Map<number, IfdEntryInfo>, tiled: boolean, little: boolean, signal?: AbortSignal): Promise<BlockTable> {
  const [offTag, cntTag] = tiled ? [324, 325] : [273, 279];
  const off = entries.get(offTag), cnt = entries.get(cntTag);
  if (!off || !cnt) throw new Error(`${tiled ? 'TileOffsets or TileByteCounts' : 'StripOffsets or StripByteCounts'} is missing`);
  return { offsets: await readUnsigned(source, off, little, signal), counts: await readUnsigned(source, cnt, little, signal) };
}
