/**
 * The first IFD of a local little-endian TIFF, read without geotiff.js: loading geotiff.js (and the
 * worker pool, HTTP sources and decoders it pulls in) costs ~25 ms of CPU per run, a tenth of a whole
 * vectorize_mask at 5000², and a local DEFLATE or uncompressed file never needs it (RawTileReader reads
 * its blocks). `readLightImage` returns an object with the part of geotiff.js's GeoTIFFImage interface
 * the dataset, rawLayoutOf and readGeoInfo use, holding the same values geotiff.js 3 would give (typed
 * arrays by field type, ASCII through TextDecoder, one value as a number except for array tags), or null
 * for anything it does not handle as geotiff.js would (big-endian, unknown field types, rational values,
 * an IFD that fails scanFirstIfd): the caller then opens the file through geotiff.js as before, so
 * errors and unusual files keep their behaviour.
 */
import * as fs from 'node:fs';
import { IfdEntryInfo, scanFirstIfd, TAG_NAMES } from './tiff-sanity';

const TAG_IDS: Record<string, number> = Object.fromEntries(Object.entries(TAG_NAMES).map(([id, name]) => [name, Number(id)]));
/** Tags geotiff.js always returns as arrays (its `isArray` fields among those we read). */
const ARRAY_TAGS = new Set([258, 273, 279, 324, 325, 339]);
/** Out-of-line values larger than this are left to geotiff.js (which defers them). */
const MAX_VALUE_BYTES = 64 << 20;

type Value = number | string | ArrayLike<number>;

/** The slice of geotiff.js's ImageFileDirectory the engine calls. */
export interface LightDirectory {
  hasTag(name: string): boolean;
  loadValue(name: string): Promise<Value | undefined>;
  loadValueIndexed(name: string, index: number): Promise<number | undefined>;
}

export interface LightImage {
  fileDirectory: LightDirectory;
  littleEndian: true;
  isTiled: boolean;
  planarConfiguration: 1 | 2;
  getWidth(): number; getHeight(): number; getSamplesPerPixel(): number;
  getTileWidth(): number; getTileHeight(): number;
  getBitsPerSample(i?: number): number; getSampleFormat(i?: number): number;
}

function idOf(name: string): number {
  const id = TAG_IDS[name];
  // A programming error (a tag the engine reads but TAG_NAMES lacks), not a file problem.
  if (id === undefined) throw new Error(`light IFD reader: no tag id for ${name}`);
  return id;
}

function readAt(fd: number, at: number, n: number): Buffer {
  const b = Buffer.allocUnsafe(n);
  let got = 0;
  while (got < n) {
    const k = fs.readSync(fd, b, got, n - got, at + got);
    if (k <= 0) throw new Error(`short read at ${at + got}`);
    got += k;
  }
  return b;
}

/** One field's values as geotiff.js decodes them; undefined for types it would treat differently (rationals). */
function decode(b: Buffer, type: number, count: number): Value | ArrayLike<number> | undefined {
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  switch (type) {
    case 1: case 7: return new Uint8Array(b.subarray(0, count));
    case 2: return new TextDecoder('utf-8').decode(b.subarray(0, count));
    case 6: return new Int8Array(b.buffer.slice(b.byteOffset, b.byteOffset + count));
    case 3: return Uint16Array.from({ length: count }, (_, i) => dv.getUint16(2 * i, true));
    case 8: return Int16Array.from({ length: count }, (_, i) => dv.getInt16(2 * i, true));
    case 4: case 13: return Uint32Array.from({ length: count }, (_, i) => dv.getUint32(4 * i, true));
    case 9: return Int32Array.from({ length: count }, (_, i) => dv.getInt32(4 * i, true));
    case 11: return Float32Array.from({ length: count }, (_, i) => dv.getFloat32(4 * i, true));
    case 12: return Float64Array.from({ length: count }, (_, i) => dv.getFloat64(8 * i, true));
    case 16: case 18: {
      const out: number[] = new Array(count);
      for (let i = 0; i < count; i++) {
        const v = dv.getBigUint64(8 * i, true);
        if (v > BigInt(Number.MAX_SAFE_INTEGER)) return undefined;
        out[i] = Number(v);
      }
      return out;
    }
    default: return undefined;
  }
}

const SIZE: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 6: 1, 7: 1, 8: 2, 9: 4, 11: 4, 12: 8, 13: 4, 16: 8, 18: 8 };

/**
 * Parses the first IFD of the little-endian TIFF open on `fd`; null when the file is not one this reader
 * handles exactly as geotiff.js would (then open it through geotiff.js). Never throws for file contents.
 */
export async function readLightImage(fd: number, fileSize: number): Promise<{ image: LightImage; entries: Map<number, IfdEntryInfo>; /** The first IFD's link to the next (0: none; -1: not read). */ nextIfd: number } | null> {
  try {
    if (fileSize < 16) return null;
    const head = readAt(fd, 0, 16);
    if (head[0] !== 0x49 || head[1] !== 0x49) return null;
    const magic = head.readUInt16LE(2);
    let big: boolean, first: number;
    if (magic === 42) { big = false; first = head.readUInt32LE(4); }
    else if (magic === 43 && head.readUInt16LE(4) === 8 && head.readUInt16LE(6) === 0) {
      big = true;
      const v = head.readBigUInt64LE(8);
      if (v > BigInt(Number.MAX_SAFE_INTEGER)) return null;
      first = Number(v);
    } else return null;
    const source = {
      fetch: async (slices: { offset: number; length: number }[]) => slices.map(({ offset, length }) => {
        const b = new Uint8Array(length);
        b.set(readAt(fd, offset, length));
        return b.buffer;
      }),
    };
    // The same checks as the geotiff.js path runs (entry count, field types, every value inside the file).
    const entries = await scanFirstIfd(source, true, big, first, fileSize);
    // Each entry's type, count and where its values are (inside the entry when they fit) come from that scan.
    const values = new Map<number, Value>();
    for (const [tag, { type, count, valueAt }] of entries) {
      const size = SIZE[type];
      if (!size) {
        // Rationals and anything else: geotiff.js's representation is not reproduced here.
        if (TAG_NAMES[tag]) return null;
        continue;
      }
      const bytes = size * count;
      if (bytes > MAX_VALUE_BYTES) return null;
      const raw = readAt(fd, valueAt, bytes);
      const v = decode(raw, type, count);
      if (v === undefined) return null;
      values.set(tag, typeof v !== 'string' && count === 1 && !ARRAY_TAGS.has(tag) ? (v as ArrayLike<number>)[0] : v);
    }
    const num = (tag: number): number | undefined => {
      const v = values.get(tag);
      return typeof v === 'number' ? v : undefined;
    };
    const planar = num(284) ?? 1;
    if (planar !== 1 && planar !== 2) return null;
    if (values.has(284) && typeof values.get(284) !== 'number') return null;
    const spp = num(277) ?? 1;
    const bps = values.get(258), fmt = values.get(339);
    if (typeof bps !== 'object' || bps.length < spp) return null;
    if (fmt !== undefined && (typeof fmt !== 'object' || fmt.length < spp)) return null;
    const isTiled = !values.has(273);
    const width = num(256) || 0, height = num(257) || 0;
    const dir: LightDirectory = {
      hasTag: (name) => values.has(idOf(name)),
      loadValue: async (name) => values.get(idOf(name)),
      loadValueIndexed: async (name, index) => {
        const v = values.get(idOf(name));
        return v === undefined || typeof v === 'number' || typeof v === 'string' ? undefined : Number(v[index]);
      },
    };
    const image: LightImage = {
      fileDirectory: dir, littleEndian: true, isTiled, planarConfiguration: planar as 1 | 2,
      getWidth: () => width, getHeight: () => height, getSamplesPerPixel: () => spp,
      getTileWidth: () => (isTiled ? num(322) || 0 : width),
      getTileHeight: () => {
        if (isTiled) return num(323) || 0;
        const rps = num(278);
        return rps ? Math.min(rps, height) : height;
      },
      getBitsPerSample: (i = 0) => (bps as ArrayLike<number>)[i],
      getSampleFormat: (i = 0) => (fmt ? (fmt as ArrayLike<number>)[i] : 1),
    };
    // The link to the next IFD (0: the file holds one image, no overviews or masks; -1: cut off).
    let nextIfd = -1;
    try {
      const n = big ? Number(readAt(fd, first, 8).readBigUInt64LE(0)) : readAt(fd, first, 2).readUInt16LE(0);
      const link = readAt(fd, first + (big ? 8 + 20 * n : 2 + 12 * n), big ? 8 : 4);
      nextIfd = big ? Number(link.readBigUInt64LE(0)) : link.readUInt32LE(0);
    } catch { /* the image may still be whole */ }
    return { image, entries, nextIfd };
  } catch {
    return null;
  }
}
