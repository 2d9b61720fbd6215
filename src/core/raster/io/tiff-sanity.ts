/**
 * Checks on a TIFF's structure before geotiff.js trusts it. geotiff.js allocates an array for every
 * IFD entry from its declared count (a 200-byte file can declare four billion tile offsets), so the
 * first IFD is read here first: entry count, field types, and every out-of-line value inside the file.
 */

/** Bytes per value of each TIFF field type (classic and BigTIFF). */
const TYPE_SIZE: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4, 16: 8, 17: 8, 18: 8 };
/** More entries than any writer uses (GDAL writes about 30). */
const MAX_ENTRIES = 4096;
/** Out-of-line value bytes accepted when the file size is unknown (remote files). */
const MAX_FIELD_BYTES = 256 << 20;

export const TAG_NAMES: Record<number, string> = {
  256: 'ImageWidth', 257: 'ImageLength', 258: 'BitsPerSample', 259: 'Compression', 262: 'PhotometricInterpretation',
  273: 'StripOffsets', 277: 'SamplesPerPixel', 278: 'RowsPerStrip', 279: 'StripByteCounts', 284: 'PlanarConfiguration',
  317: 'Predictor', 322: 'TileWidth', 323: 'TileLength', 324: 'TileOffsets', 325: 'TileByteCounts', 338: 'ExtraSamples',
  339: 'SampleFormat', 33550: 'ModelPixelScale', 33922: 'ModelTiepoint', 34264: 'ModelTransformation',
  320: 'ColorMap', 34735: 'GeoKeyDirectory', 34736: 'GeoDoubleParams', 34737: 'GeoAsciiParams', 42112: 'GDAL_METADATA', 42113: 'GDAL_NODATA',
};

export function tagName(tag: number): string { return TAG_NAMES[tag] ?? `tag ${tag}`; }

/** `valueAt`: where the entry's values start in the file (inside the entry when they fit there). */
export interface IfdEntryInfo { type: number; count: number; valueAt: number }

interface ByteSource { fetch(slices: { offset: number; length: number }[], signal?: AbortSignal): Promise<ArrayBuffer[]> }

/**
 * Reads the first IFD's entry table and checks it; returns tag → {type, count}. Throws an Error whose
 * message names the entry at fault. `fileSize` bounds every offset when known.
 */
export async function scanFirstIfd(source: ByteSource, little: boolean, big: boolean, at: number, fileSize: number | undefined, signal?: AbortSignal): Promise<Map<number, IfdEntryInfo>> {
  const headerEnd = big ? 16 : 8;
  const within = (off: number, len: number) => fileSize === undefined || (off >= 0 && off + len <= fileSize);
  if (!(Number.isSafeInteger(at) && at >= headerEnd) || !within(at, big ? 8 : 2)) {
    throw new Error(`the first IFD offset ${at} is outside the file${fileSize !== undefined ? ` (${fileSize} bytes)` : ''}`);
  }
  const head = new DataView((await source.fetch([{ offset: at, length: big ? 8 : 2 }], signal))[0]);
  const n = big ? Number(head.getBigUint64(0, little)) : head.getUint16(0, little);
  if (n === 0) throw new Error('the first IFD has no entries');
  if (n > MAX_ENTRIES) throw new Error(`the first IFD declares ${n} entries (at most ${MAX_ENTRIES} are read)`);
  const entrySize = big ? 20 : 12;
  const tableAt = at + (big ? 8 : 2);
  if (!within(tableAt, n * entrySize)) throw new Error(`the first IFD's ${n} entries run past the end of the file`);
  const dv = new DataView((await source.fetch([{ offset: tableAt, length: n * entrySize }], signal))[0]);
  const out = new Map<number, IfdEntryInfo>();
  for (let i = 0; i < n; i++) {
    const o = i * entrySize;
    const tag = dv.getUint16(o, little), type = dv.getUint16(o + 2, little);
    const count = big ? Number(dv.getBigUint64(o + 4, little)) : dv.getUint32(o + 4, little);
    const size = TYPE_SIZE[type];
    if (!size) throw new Error(`IFD entry ${tagName(tag)} has unknown field type ${type}`);
    const bytes = size * count;
    let valueAt = tableAt + o + (big ? 12 : 8);
    if (bytes > (big ? 8 : 4)) {
      const off = valueAt = big ? Number(dv.getBigUint64(o + 12, little)) : dv.getUint32(o + 8, little);
      if (!within(off, bytes) || (fileSize === undefined && bytes > MAX_FIELD_BYTES)) {
        throw new Error(`IFD entry ${tagName(tag)} declares ${count} values (${bytes} bytes at offset ${off}), past the end of the file${fileSize !== undefined ? ` (${fileSize} bytes)` : ''}`);
      }
    }
    out.set(tag, { type, count, valueAt });
  }
  return out;
}

/** GeoKeys GeoWeave uses, by name, read defensively: keys beyond the directory's end and values outside their arrays are skipped. */
export async function readGeoKeys(fd: any): Promise<Record<string, unknown>> {
  const dir = (await fd.loadValue('GeoKeyDirectory')) as ArrayLike<number> | undefined;
  if (!dir || dir.length < 4) return {};
  const names: Record<number, string> = {
    1024: 'GTModelTypeGeoKey', 1025: 'GTRasterTypeGeoKey', 1026: 'GTCitationGeoKey',
    2048: 'GeographicTypeGeoKey', 2049: 'GeogCitationGeoKey', 3072: 'ProjectedCSTypeGeoKey', 3073: 'PCSCitationGeoKey',
  };
  const doubles = fd.hasTag('GeoDoubleParams') ? ((await fd.loadValue('GeoDoubleParams')) as ArrayLike<number>) : undefined;
  const ascii = fd.hasTag('GeoAsciiParams') ? String(await fd.loadValue('GeoAsciiParams')) : undefined;
  const keys: Record<string, unknown> = {};
  const declared = Number(dir[3]) || 0;
  const n = Math.min(declared, Math.floor((dir.length - 4) / 4));
  for (let k = 0; k < n; k++) {
    const [id, loc, count, off] = [dir[4 + 4 * k], dir[5 + 4 * k], dir[6 + 4 * k], dir[7 + 4 * k]];
    const name = names[id];
    if (!name) continue;
    if (!loc) keys[name] = off;
    else if (loc === 34737 && ascii !== undefined && off + count <= ascii.length) keys[name] = ascii.substring(off, off + count - 1);
    else if (loc === 34736 && doubles && off + count <= doubles.length && count === 1) keys[name] = doubles[off];
  }
  return keys;
}

/** The GeoKey directory (entries after the 4-number header), double and ASCII parameters as stored; undefined without keys. */
export async function readRawGeoKeys(fd: any): Promise<{ entries: number[]; doubles: number[]; ascii: string } | undefined> {
  const dir = (await fd.loadValue('GeoKeyDirectory')) as ArrayLike<number> | undefined;
  if (!dir || dir.length < 8) return undefined;
  const n = Math.min(Number(dir[3]) || 0, Math.floor((dir.length - 4) / 4), 256);
  const entries = Array.from(dir).slice(4, 4 + 4 * n).map(Number);
  const doubles = fd.hasTag('GeoDoubleParams') ? Array.from((await fd.loadValue('GeoDoubleParams')) as ArrayLike<number>).slice(0, 4096).map(Number) : [];
  const ascii = fd.hasTag('GeoAsciiParams') ? String(await fd.loadValue('GeoAsciiParams')).slice(0, 1 << 16) : '';
  return { entries, doubles, ascii };
}
