/** Our tiled GeoTIFF writer: little-endian, DEFLATE + predictor, GeoKeys, GDAL nodata and band descriptions. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { GeoInfo } from './dataset';
import { encodeTile, stripToTile, toTile, predictorFor, OUT_BYTES, OUT_FORMAT, DEFAULT_ZLEVEL } from './encode';
import { escapeXml } from './geoinfo';
import { openTempExclusive, writeFileAtomic } from './atomic-file';
import { asPixelIsArea } from '../crs/geokeys';
import { ColorTable, colorMapValues, PHOTOMETRIC_PALETTE, TAG_COLORMAP } from './color-table';

export interface WriteSpec { width: number; height: number; bands: number; dtype: 'float32' | 'uint8' | 'uint16' | 'int16' | 'int32'; geo: GeoInfo; nodata?: number | null; descriptions?: string[]; blockSize?: number;
  /** Optional per-band scale/offset written to GDAL_METADATA (so copies of scaled data keep their meaning). */
  scales?: number[]; offsets?: number[];
  /**
   * Pixel-interleaved (PlanarConfiguration 1, GDAL's default for several bands): one tile holds every band,
   * written with writeEncoded(bx, by, 0, encodeTile(…, bands)). Integer types only.
   */
  interleaved?: boolean;
  /**
   * A colour table for a one-band uint8/uint16 output of class values copied 1:1 from a palette input
   * (clip, nearest resample or warp): written as PhotometricInterpretation 3 + ColorMap, so gdalinfo and
   * QGIS show the input's Color Table. Ignored for other outputs (a table of the wrong size included).
   */
  colorTable?: ColorTable;
  /** Category names of band 1 (index = value), written to the GDAL PAM sidecar `<file>.aux.xml` as GDAL does. */
  categoryNames?: string[] | null; }

/** Float outputs get this nodata when the spec leaves it undefined (NaN must map to something GDAL tools agree on). */
export const DEFAULT_FLOAT_NODATA = -9999;

export function effectiveNodata(spec: WriteSpec): number | null {
  if (spec.nodata !== undefined) return spec.nodata;
  return spec.dtype === 'float32' ? DEFAULT_FLOAT_NODATA : null;
}

function fmtNodata(v: number): string {
  if (Number.isNaN(v)) return 'nan';
  return Number.isInteger(v) ? String(v) : String(v);
}

/** Most tiles one output may have (its offset and byte-count arrays are held in memory). */
const MAX_TILES = 1 << 22;

/** Streams tiles to a temporary file; `finish` writes the IFD and renames, `abort` deletes. */
export class GeoTiffWriter {
  readonly path: string;
  readonly tmpPath: string;
  readonly spec: WriteSpec;
  readonly tile: number;
  readonly tilesAcross: number;
  readonly tilesDown: number;
  readonly nodata: number | null;
  private fh: fs.promises.FileHandle;
  private offset = 8;
  private offsets: number[];
  private counts: number[];
  private chain: Promise<unknown> = Promise.resolve();
  private done = false;
  private failed: Error | null = null;
  zlevel = DEFAULT_ZLEVEL;

  private constructor(p: string, tmp: string, spec: WriteSpec, fh: fs.promises.FileHandle) {
    this.path = p; this.tmpPath = tmp; this.spec = spec; this.fh = fh;
    this.tile = spec.blockSize ?? 512;
    this.tilesAcross = Math.ceil(spec.width / this.tile);
    this.tilesDown = Math.ceil(spec.height / this.tile);
    const n = this.tilesAcross * this.tilesDown * this.planes;
    this.offsets = new Array(n).fill(0);
    this.counts = new Array(n).fill(0);
    this.nodata = effectiveNodata(spec);
  }

  static async create(p: string, spec: WriteSpec): Promise<GeoTiffWriter> {
    const { width, height, bands, dtype } = spec;
    if (!(Number.isInteger(width) && width > 0 && Number.isInteger(height) && height > 0 && width <= 0xffffffff && height <= 0xffffffff)) throw new Error(`${p}: invalid output size ${width}x${height}`);
    if (!(Number.isInteger(bands) && bands > 0 && bands <= 0xffff)) throw new Error(`${p}: invalid band count ${bands}`);
    if (!(dtype in OUT_BYTES)) throw new Error(`${p}: unsupported output type "${dtype}"`);
    if (spec.interleaved && dtype === 'float32') throw new Error(`${p}: pixel-interleaved outputs are written for integer types only`);
    const bs = spec.blockSize ?? 512;
    if (bs % 16 !== 0 || bs < 16) throw new Error(`${p}: blockSize must be a multiple of 16, got ${bs}`);
    const tiles = Math.ceil(width / bs) * Math.ceil(height / bs) * (spec.interleaved ? 1 : bands);
    if (tiles > MAX_TILES) throw new Error(`${p}: a ${width}x${height} output with ${bands} band${bands === 1 ? '' : 's'} needs ${tiles} tiles, more than the ${MAX_TILES} GeoWeave writes; clip or resample first`);
    await fs.promises.mkdir(path.dirname(p), { recursive: true });
    const { tmp, fh } = await openTempExclusive(p);
    try {
      return new GeoTiffWriter(p, tmp, spec, fh);
    } catch (e) {
      await fh.close().catch(() => undefined);
      await fs.promises.rm(tmp, { force: true });
      throw e;
    }
  }

  /** Tile planes in the file: one per band, or one for all bands when pixel-interleaved. */
  get planes(): number { return this.spec.interleaved ? 1 : this.spec.bands; }

  private index(bx: number, by: number, band: number): number {
    if (!(Number.isInteger(band) && band >= 0 && band < this.planes)) throw new Error(`${this.path}: tile plane ${band} does not exist (${this.planes} plane${this.planes === 1 ? '' : 's'})`);
    if (!(Number.isInteger(bx) && bx >= 0 && bx < this.tilesAcross && Number.isInteger(by) && by >= 0 && by < this.tilesDown)) {
      throw new Error(`${this.path}: block ${bx},${by} is outside the ${this.tilesAcross}x${this.tilesDown} tile grid`);
    }
    return band * this.tilesAcross * this.tilesDown + by * this.tilesAcross + bx;
  }

  /** Size of block (bx, by) in pixels (edge blocks are smaller). */
  blockSize(bx: number, by: number): { w: number; h: number } {
    return { w: Math.min(this.tile, this.spec.width - bx * this.tile), h: Math.min(this.tile, this.spec.height - by * this.tile) };
  }

  /** Fill used for NaN and padding. */
  get fill(): number {
    const nd = this.nodata;
    return nd === null || Number.isNaN(nd) ? (this.spec.dtype === 'float32' ? NaN : 0) : nd;
  }

  /** Encodes and writes block (bx, by); `bands[i]` is the block's row-major values (w×h of the block). */
  async writeBlock(bx: number, by: number, bands: ArrayLike<number>[]): Promise<void> {
    if (this.spec.interleaved) throw new Error(`${this.path}: a pixel-interleaved output takes encoded tiles (writeEncoded)`);
    if (bands.length !== this.spec.bands) throw new Error(`${this.path}: writeBlock got ${bands.length} bands, expected ${this.spec.bands}`);
    const { w, h } = this.blockSize(bx, by);
    const encoded = bands.map((b) => {
      if (b.length !== w * h) throw new Error(`${this.path}: block ${bx},${by} needs ${w * h} values, got ${b.length}`);
      return encodeTile(toTile(b, w, h, this.tile, this.spec.dtype, this.fill), this.tile, this.spec.dtype, this.zlevel);
    });
    for (let i = 0; i < encoded.length; i++) await this.writeEncoded(bx, by, i, encoded[i]);
  }

  /**
   * Encodes and writes tile row `by` from strips of the whole output width (`bands[i]` holds the row's
   * `rows` × width values): each tile is cut straight from the strip (no block copy, then a tile copy).
   */
  async writeStripRow(by: number, bands: ArrayLike<number>[]): Promise<void> {
    if (this.spec.interleaved) throw new Error(`${this.path}: a pixel-interleaved output takes encoded tiles (writeEncoded)`);
    if (bands.length !== this.spec.bands) throw new Error(`${this.path}: writeStripRow got ${bands.length} bands, expected ${this.spec.bands}`);
    const W = this.spec.width, rows = this.blockSize(0, by).h;
    const pending: Promise<void>[] = [];
    for (let i = 0; i < bands.length; i++) {
      if (bands[i].length !== W * rows) throw new Error(`${this.path}: tile row ${by} needs ${W * rows} values, got ${bands[i].length}`);
      for (let bx = 0; bx < this.tilesAcross; bx++) {
        const { w } = this.blockSize(bx, by);
        const tile = stripToTile(bands[i], W, bx * this.tile, w, rows, this.tile, this.spec.dtype, this.fill);
        pending.push(this.writeEncoded(bx, by, i, encodeTile(tile, this.tile, this.spec.dtype, this.zlevel)));
      }
    }
    await Promise.all(pending);
  }

  /** Writes an already encoded tile (from encodeTile, e.g. produced in a worker). */
  writeEncoded(bx: number, by: number, band: number, data: Uint8Array): Promise<void> {
    const idx = this.index(bx, by, band);
    const run = async () => {
      if (this.done) throw new Error(`${this.path}: writer is already finished`);
      if (this.failed) throw this.failed;
      const at = this.offset;
      this.offset += data.length + (data.length & 1);
      await this.fh.write(data, 0, data.length, at);
      this.offsets[idx] = at; this.counts[idx] = data.length;
    };
    const p = this.chain.then(run, run);
    this.chain = p.catch((e) => { this.failed = e; });
    return p;
  }

  async finish(): Promise<void> {
    await this.chain;
    if (this.failed) { await this.abort(); throw this.failed; }
    if (this.done) return;
    try {
      const ifdAt = this.offset + (this.offset & 1);
      const ifd = buildIfd(this.spec, this.tile, this.offsets, this.counts, this.nodata, ifdAt);
      if (ifdAt + ifd.length > 0xffffffff) throw new Error(`${this.path}: output exceeds 4 GB (BigTIFF is not supported); clip or resample first`);
      const header = Buffer.alloc(8);
      header.write('II', 0, 'latin1'); header.writeUInt16LE(42, 2); header.writeUInt32LE(ifdAt, 4);
      await this.fh.write(ifd, 0, ifd.length, ifdAt);
      await this.fh.write(header, 0, 8, 0);
      await this.fh.close();
      this.done = true;
      await fs.promises.rename(this.tmpPath, this.path);
      const names = this.spec.categoryNames;
      if (names && this.spec.bands === 1 && names.some((n) => n)) await writeFileAtomic(`${this.path}.aux.xml`, pamCategoryNames(names));
    } catch (e) {
      await this.abort();
      throw e;
    }
  }

  async abort(): Promise<void> {
    this.done = true;
    await this.chain.catch(() => undefined);
    try { await this.fh.close(); } catch { /* closed */ }
    await fs.promises.rm(this.tmpPath, { force: true });
  }
}

type Entry = { tag: number; type: number; values: number[] | Buffer };
// TIFF field types: 2 ASCII, 3 SHORT, 4 LONG, 12 DOUBLE.
const TYPE_SIZE: Record<number, number> = { 2: 1, 3: 2, 4: 4, 12: 8 };

function geoKeys(geo: GeoInfo): number[] {
  const keys: number[][] = [];
  const model = geo.geographic ? 2 : 1;
  if (geo.epsg !== undefined) {
    keys.push([1024, 0, 1, model]);
    keys.push([1025, 0, 1, 1]);
    keys.push(geo.geographic ? [2048, 0, 1, geo.epsg] : [3072, 0, 1, geo.epsg]);
  } else {
    keys.push([1025, 0, 1, 1]);
  }
  return [1, 1, 0, keys.length, ...keys.flat()];
}

/** GeoKey tags: an EPSG code as above, or the input's own keys copied when its CRS has no code. */
function geoKeyTags(geo: GeoInfo): Entry[] {
  const k = geo.epsg === undefined && geo.keys && geo.keys.entries.length >= 4 ? asPixelIsArea(geo.keys) : undefined;
  if (!k) return [{ tag: 34735, type: 3, values: geoKeys(geo) }];
  const out: Entry[] = [{ tag: 34735, type: 3, values: [1, 1, 0, Math.floor(k.entries.length / 4), ...k.entries.slice(0, Math.floor(k.entries.length / 4) * 4)] }];
  if (k.doubles.length) out.push({ tag: 34736, type: 12, values: k.doubles });
  if (k.ascii.length) out.push({ tag: 34737, type: 2, values: Buffer.from(k.ascii.endsWith('\0') ? k.ascii : `${k.ascii}\0`, 'latin1') });
  return out;
}

/** Whether `spec` gets its colour table written (one band, an unsigned type of the table's size). */
export function writesColorTable(spec: WriteSpec): boolean {
  const t = spec.colorTable;
  return !!t && spec.bands === 1 && ((spec.dtype === 'uint8' && t.count === 256) || (spec.dtype === 'uint16' && t.count === 65536)) && t.rgb.length === 3 * t.count;
}

/** A GDAL PAM document with band 1's category names, every entry as read (what GDAL writes for SetCategoryNames on a GeoTIFF). */
export function pamCategoryNames(names: readonly string[]): string {
  const items = names.map((n) => (n ? `      <Category>${escapeXml(n)}</Category>` : '      <Category />')).join('\n');
  return `<PAMDataset>\n  <PAMRasterBand band="1">\n    <CategoryNames>\n${items}\n    </CategoryNames>\n  </PAMRasterBand>\n</PAMDataset>\n`;
}

function buildIfd(spec: WriteSpec, tile: number, offsets: number[], counts: number[], nodata: number | null, ifdAt: number): Buffer {
  const n = spec.bands;
  const gt = spec.geo.geoTransform;
  const entries: Entry[] = [
    { tag: 256, type: 4, values: [spec.width] },
    { tag: 257, type: 4, values: [spec.height] },
    { tag: 258, type: 3, values: new Array(n).fill(OUT_BYTES[spec.dtype] * 8) },
    { tag: 259, type: 3, values: [8] },
    { tag: 262, type: 3, values: [writesColorTable(spec) ? PHOTOMETRIC_PALETTE : 1] },
    { tag: 277, type: 3, values: [n] },
    { tag: 284, type: 3, values: [n > 1 && !spec.interleaved ? 2 : 1] },
    { tag: 317, type: 3, values: [predictorFor(spec.dtype)] },
    { tag: 322, type: 3, values: [tile] },
    { tag: 323, type: 3, values: [tile] },
    { tag: 324, type: 4, values: offsets },
    { tag: 325, type: 4, values: counts },
  ];
  if (writesColorTable(spec)) entries.push({ tag: TAG_COLORMAP, type: 3, values: Array.from(colorMapValues(spec.colorTable!)) });
  if (n > 1) entries.push({ tag: 338, type: 3, values: new Array(n - 1).fill(0) });
  entries.push({ tag: 339, type: 3, values: new Array(n).fill(OUT_FORMAT[spec.dtype]) });
  const gcps = spec.geo.ungeoreferenced?.gcps;
  if (gcps) {
    // No geotransform to write (a stand-in would put the raster at the origin of its CRS); the
    // ground control points travel with it, as GDAL copies them.
    if (gcps.length >= 6) entries.push({ tag: 33922, type: 12, values: gcps });
  } else if (gt[2] === 0 && gt[4] === 0) {
    entries.push({ tag: 33550, type: 12, values: [gt[1], -gt[5], 0] });
    entries.push({ tag: 33922, type: 12, values: [0, 0, 0, gt[0], gt[3], 0] });
  } else {
    entries.push({ tag: 34264, type: 12, values: [gt[1], gt[2], 0, gt[0], gt[4], gt[5], 0, gt[3], 0, 0, 0, 0, 0, 0, 0, 1] });
  }
  entries.push(...geoKeyTags(spec.geo));
  const desc = spec.descriptions ?? [];
  const sc = spec.scales ?? [], of = spec.offsets ?? [];
  if (desc.some((d) => d) || sc.some((v) => v !== 1) || of.some((v) => v !== 0)) {
    let items = desc.map((d, i) => (d ? `  <Item name="DESCRIPTION" sample="${i}" role="description">${escapeXml(escapeXml(d))}</Item>\n` : '')).join('');
    for (let i = 0; i < n; i++) {
      if ((sc[i] ?? 1) !== 1 || (of[i] ?? 0) !== 0) {
        items += `  <Item name="OFFSET" sample="${i}" role="offset">${of[i] ?? 0}</Item>\n  <Item name="SCALE" sample="${i}" role="scale">${sc[i] ?? 1}</Item>\n`;
      }
    }
    entries.push({ tag: 42112, type: 2, values: Buffer.from(`<GDALMetadata>\n${items}</GDALMetadata>\0`, 'utf8') });
  }
  if (nodata !== null) entries.push({ tag: 42113, type: 2, values: Buffer.from(fmtNodata(nodata) + '\0', 'latin1') });
  entries.sort((a, b) => a.tag - b.tag);

  const ifdSize = 2 + entries.length * 12 + 4;
  let extra = 0;
  const dataSizes = entries.map((e) => {
    const size = (Buffer.isBuffer(e.values) ? e.values.length : e.values.length) * TYPE_SIZE[e.type];
    return size;
  });
  for (const s of dataSizes) if (s > 4) extra += s + (s & 1);
  const buf = Buffer.alloc(ifdSize + extra);
  buf.writeUInt16LE(entries.length, 0);
  let dataAt = ifdSize;
  entries.forEach((e, i) => {
    const o = 2 + i * 12;
    const count = Buffer.isBuffer(e.values) ? e.values.length : e.values.length;
    buf.writeUInt16LE(e.tag, o); buf.writeUInt16LE(e.type, o + 2); buf.writeUInt32LE(count, o + 4);
    const size = dataSizes[i];
    let at: number;
    if (size <= 4) at = o + 8;
    else { at = dataAt; buf.writeUInt32LE(ifdAt + dataAt, o + 8); dataAt += size + (size & 1); }
    if (Buffer.isBuffer(e.values)) e.values.copy(buf, at);
    else {
      const vals = e.values;
      for (let k = 0; k < vals.length; k++) {
        if (e.type === 3) buf.writeUInt16LE(vals[k], at + k * 2);
        else if (e.type === 4) buf.writeUInt32LE(vals[k], at + k * 4);
        else buf.writeDoubleLE(vals[k], at + k * 8);
      }
    }
  });
  buf.writeUInt32LE(0, 2 + entries.length * 12);
  return buf;
}

/** Convenience for whole in-memory outputs (NaN in float input → nodata). */
export async function writeRaster(p: string, spec: WriteSpec, bands: ArrayLike<number>[]): Promise<void> {
  if (bands.length !== spec.bands) throw new Error(`${p}: writeRaster got ${bands.length} bands, expected ${spec.bands}`);
  for (const b of bands) if (b.length !== spec.width * spec.height) throw new Error(`${p}: band has ${b.length} values, expected ${spec.width * spec.height}`);
  const w = await GeoTiffWriter.create(p, spec);
  try {
    const t = w.tile;
    for (let by = 0; by < w.tilesDown; by++) {
      for (let bx = 0; bx < w.tilesAcross; bx++) {
        const { w: bw, h: bh } = w.blockSize(bx, by);
        const blocks = bands.map((b) => {
          const out = new Float64Array(bw * bh);
          for (let y = 0; y < bh; y++) {
            const so = (by * t + y) * spec.width + bx * t;
            for (let x = 0; x < bw; x++) out[y * bw + x] = b[so + x];
          }
          return out;
        });
        await w.writeBlock(bx, by, blocks);
      }
    }
    await w.finish();
  } catch (e) {
    await w.abort();
    throw e;
  }
}
