/** Opening GeoTIFFs (local paths or http(s) COGs) and reading band windows tile by tile. */
import * as path from 'node:path';
import * as fs from 'node:fs';
import type { DecoderLike } from './decoders';
import { readGeoInfo, parseGdalMetadata } from './geoinfo';
import { RawLayout, RawTileReader, rawLayoutOf } from './raw-tiles';
// The HTTP client (node:http, node:https) loads for remote rasters only.
const httpClient = () => require('./http-client') as typeof import('./http-client');
const remoteSidecar = () => require('./remote-sidecar') as typeof import('./remote-sidecar');
// SRTM height files load their reader when one is opened (it imports this module's toFloat).
const hgtReader = () => require('./hgt') as typeof import('./hgt');
const asciiGridReader = () => require('./ascii-grid') as typeof import('./ascii-grid');
const dtedReader = () => require('./dted') as typeof import('./dted');
const netcdfReader = () => require('./netcdf') as typeof import('./netcdf');
const hdf4Reader = () => require('./hdf4') as typeof import('./hdf4');
const gribReader = () => require('./grib') as typeof import('./grib');
const enviReader = () => require('./envi') as typeof import('./envi');
const hfaReader = () => require('./hfa') as typeof import('./hfa');
const ehdrReader = () => require('./ehdr') as typeof import('./ehdr');
import { redactUrl } from '../../net/redact';
import { CTORS, DType, InexactIntegerError, SampleType, TypedArray, sampleTypeOf, samplesFromBytes, swapSamples, undoHorizontal } from './samples';
import { IfdEntryInfo, scanFirstIfd, tagName } from './tiff-sanity';
import { readLightImage } from './light-ifd';
import { isJpeg2000 } from './jp2/codestream';
import { bandFileOf } from '../band-files';
import { fileLayer } from '../raster-files';
import { readBlockTable, BlockTable } from './block-table';
import { count as countEvent } from './stage-times';
import type { GeoKeySet } from '../crs/geokeys';
import { ColorTable, CategoryNames, PHOTOMETRIC_PALETTE, TAG_COLORMAP, colorTableFromColorMap, categoryNamesFromPam, readCategoryNames } from './color-table';

export type { DType } from './samples';

export interface GeoInfo { epsg?: number; wkt?: string; geoTransform: [number, number, number, number, number, number]; /* GDAL order */ geographic: boolean;
  /** The file's GeoKeys as stored (see crs/geokeys.ts): outputs on this CRS copy them. */
  keys?: GeoKeySet;
  /**
   * Set when the file has no geotransform: `geoTransform` is then GDAL's stand-in (pixel = unit,
   * y down) and means nothing on a map. `gcps` holds its ground control points as stored
   * (ModelTiepoint, six numbers each), as in Sentinel-1 GRD and other level-1 products; outputs copy them.
   */
  ungeoreferenced?: { gcps: number[] }; }

/** An open raster: metadata plus windowed reads of single bands. */
export interface RasterDataset {
  source: string; width: number; height: number; bandCount: number;
  blockWidth: number; blockHeight: number; dtype: DType; geo: GeoInfo; nodata: number | null;
  bandDescriptions: (string | null)[]; scales: number[]; offsets: number[];
  /**
   * The colour table of a one-band palette TIFF (PhotometricInterpretation 3 + ColorMap), 8-bit RGB as
   * GDAL's GetColorTable() gives it; absent otherwise (also when the ColorMap does not fit the samples:
   * then `warnings` says so, as GDAL ignores such a tag).
   */
  colorTable?: ColorTable;
  /** Category names per band from the GDAL PAM sidecar `<file>.aux.xml` (beside a file or a URL; index = value). */
  categoryNames?: CategoryNames;
  /** Things about the file a reader should know that did not stop it opening (an ignored ColorMap or sidecar). */
  warnings?: string[];
  /** Each band's role where the product's own layout says it (a MODIS/VIIRS reflectance scene: io/reflectance-scene.ts), null where none. */
  bandRoles?: (string | null)[];
  /** Why no band has `role` and what to do, where the layout knows (a scene: the band is on another grid, or missing). */
  missingRole?(role: string): string;
  /** Each band's units as the file states them (HDF and NetCDF `units`), null where it states none. */
  units?: (string | null)[];
  /** Each band's metadata items as gdalinfo lists them (a GRIB field's GRIB_ELEMENT, GRIB_VALID_TIME…). */
  bandMetadata?: Record<string, string>[];
  /** One band window as float32, scale/offset applied, nodata (and NaN) → NaN. band is 1-based. */
  readWindow(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal): Promise<Float32Array>;
  /** Raw typed array of one band window without scaling (for class/mask rasters). */
  /** Raw samples of a window; `into` (of the band's type, at least w×h long) is filled and returned instead of a new array. */
  readWindowRaw(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal, into?: ArrayLike<number>): Promise<ArrayLike<number>>;
  /**
   * readWindowRaw for readers that never come back to a block (full-width strips going down, no overlap):
   * blocks are decoded into one reused buffer and not cached.
   */
  readStripRaw?(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal, into?: ArrayLike<number>): Promise<ArrayLike<number>>;
  /** Several bands of one window with each tile decoded once: raw samples, or float32 as readWindow. */
  readWindows?(bands: number[], x: number, y: number, w: number, h: number, raw: boolean, signal?: AbortSignal): Promise<TypedArray[]>;
  /** Keeps at least `tiles` decoded blocks cached (the working set of an access pattern). */
  reserveTiles?(tiles: number): void;
  /** Several bands stored pixel-interleaved (one block holds every band's samples). */
  readonly pixelInterleaved?: boolean;
  /**
   * Raw samples of every band over a window, pixel-interleaved (w × h × bandCount, bands inside each pixel),
   * copied row by row out of the decoded blocks; only for pixelInterleaved files.
   */
  readInterleaved?(x: number, y: number, w: number, h: number, signal?: AbortSignal, opts?: { into?: TypedArray; keepFromY?: number }): Promise<TypedArray>;
  /**
   * Sets the tile cache to `tiles` decoded blocks (at least 2), dropping the oldest: for readers that go
   * down the raster once in full-width strips, where only the current strip (and a halo row) is ever hit.
   */
  fitTileCache?(tiles: number): void;
  /**
   * Strip readers going down the raster: bands of a window (raw, or float32 as readWindow) into the caller's
   * arrays. Blocks from tile row floor(keepFromY / blockHeight) on are cached (the next window reads them
   * again); the others are decoded into one reused buffer and copied at once (no block kept, no allocation).
   */
  readWindowsInto?(bands: number[], x: number, y: number, w: number, h: number, raw: boolean, outs: TypedArray[], keepFromY: number, signal?: AbortSignal): Promise<void>;
  /** Decoded blocks held in the tile cache now, and their bytes (for GEOWEAVE_MEMTRACE). */
  tileCacheUse?(): { tiles: number; bytes: number };
  /** The decoded block holding the whole window, for kernels that read samples in place (no copy); null when the window spans blocks. */
  blockWindow?(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal): Promise<BlockWindow | null>;
  /** Everything a worker thread needs to reopen this file without geotiff.js; null when not a local DEFLATE/raw little-endian TIFF. */
  describe?(): DatasetDescriptor | null;
  /**
   * Reduced-resolution copies the file holds, largest first, as datasets on their own grids (a COG's
   * or gdaladdo's internal overviews; a JPEG 2000 codestream's resolution levels). Opened on the
   * first call, closed with this dataset; metadata (nodata, scales, descriptions) as this one's.
   */
  overviews?(signal?: AbortSignal): Promise<RasterDataset[]>;
  /** The overviews are reduced reads computed on the fly (a VRT's), not copies the file holds: gdalinfo lists none. */
  readonly computedOverviews?: boolean;
  close(): Promise<void>;
}

/**
 * The georeferencing of a `width`×`height` overview of a `W`×`H` raster: the same origin, pixels
 * W/width and H/height times as large (GDAL's rule), ground control points moved onto its grid.
 */
export function overviewGeo(geo: GeoInfo, W: number, H: number, width: number, height: number): GeoInfo {
  const fx = W / width, fy = H / height;
  const g = geo.geoTransform;
  const out: GeoInfo = { ...geo, geoTransform: [g[0], g[1] * fx, g[2] * fy, g[3], g[4] * fx, g[5] * fy] };
  if (geo.ungeoreferenced) {
    const gcps = geo.ungeoreferenced.gcps.map((v, i) => (i % 6 === 0 ? v / fx : i % 6 === 1 ? v / fy : v));
    out.ungeoreferenced = { gcps };
  }
  return out;
}

/**
 * The dataset to read for a picture of `ds` at least `w`×`h` pixels: its smallest overview that is
 * still that large (GDAL's choice for a downsampled read), or `ds` itself. A broken overview is
 * passed over for the full-resolution data.
 */
export async function overviewFor(ds: RasterDataset, w: number, h: number, signal?: AbortSignal): Promise<RasterDataset> {
  let best = ds;
  let list: RasterDataset[] = [];
  try { list = (await ds.overviews?.(signal)) ?? []; } catch (e) { if (signal?.aborted) throw e; }
  for (const o of list) if (o.width >= w && o.height >= h && o.width * o.height < best.width * best.height) best = o;
  return best;
}

/**
 * Samples of one band window inside a decoded block: pixel (i, j) of the window is
 * data[start + j * rowStride + i * pixelStride]. Values are raw: readWindow's float value is
 * NaN when equal to `nodata`, else fround(v * scale + offset) (just v when scale 1, offset 0 and `exact`).
 */
export interface BlockWindow {
  data: ArrayLike<number>; start: number; pixelStride: number; rowStride: number;
  nodata: number | null; scale: number; offset: number;
  /** Every raw value is exactly representable as float32 (8/16-bit integers, float32). */
  exact: boolean;
}

/** Serializable metadata plus block layout of a local TIFF (see RasterDataset.describe). Workers only read
 *  pixels: the colour table (192 KB for 16 bits) and category names are not sent to them. */
export interface DatasetDescriptor {
  source: string; width: number; height: number; bandCount: number;
  blockWidth: number; blockHeight: number; dtype: DType; geo: GeoInfo; nodata: number | null;
  bandDescriptions: (string | null)[]; scales: number[]; offsets: number[];
  layout: RawLayout;
}

/** Largest raster side and pixel count GeoWeave opens (strips span the width; outputs have one tile per 512×512). */
export const MAX_RASTER_SIDE = 1 << 17;
export const MAX_RASTER_PIXELS = 2 ** 31;

/** IFDs looked at for overviews (GDAL writes one per halving, with a mask IFD each at most). */
const MAX_OVERVIEW_IFDS = 64;

let cacheBytes = 32 << 20;
/** Ceiling for reserveTiles: a strip of a wide many-band raster with its halo still fits. */
const MAX_CACHE_BYTES = 256 << 20;
/** Per-dataset decoded-tile cache budget (workers use a small one: each tile is read once there). */
export function setTileCacheBytes(n: number): void { cacheBytes = n; }

let lightIfd = true;
/** Tests: false opens every file through geotiff.js (to compare the two parsers' metadata). */
export function setLightIfd(on: boolean): void { lightIfd = on; }

export function isRemote(src: string): boolean { return /^https?:\/\//i.test(src); }

/** Error from reading a raster; always names the file. */
export class RasterError extends Error {}

/**
 * Local file source for geotiff.js that refuses reads far past the end of the file: a corrupt count
 * in an IFD would otherwise allocate gigabytes before failing. Short overruns are zero-padded (as geotiff.js expects).
 */
class BoundedFileSource {
  constructor(private fh: fs.promises.FileHandle, private size: number) {}
  get fileSize(): number { return this.size; }
  async fetch(slices: { offset: number; length: number }[], signal?: AbortSignal): Promise<ArrayBuffer[]> {
    return Promise.all(slices.map(async ({ offset, length }) => {
      if (signal?.aborted) throw signal.reason ?? new Error('aborted');
      if (!(offset >= 0 && length >= 0) || offset + length > this.size + 65536) {
        throw new Error(`read of ${length} bytes at offset ${offset} is past the end of the file (${this.size} bytes)`);
      }
      const buf = new Uint8Array(length);
      const n = Math.max(0, Math.min(length, this.size - offset));
      if (n > 0) await this.fh.read(buf, 0, n, offset);
      return buf.buffer;
    }));
  }
  async close(): Promise<void> { await this.fh.close(); }
}

/** geotiff.js on a local file (bounded reads), with the descriptor its source holds. */
async function openTiffFile(file: string, signal?: AbortSignal): Promise<{ tiff: any; fd: number; size: number }> {
  const { GeoTIFF } = await import('geotiff');
  const fh = await fs.promises.open(file, 'r');
  try {
    const size = (await fh.stat()).size;
    return { tiff: await (GeoTIFF as any).fromSource(new BoundedFileSource(fh, size), undefined, signal), fd: fh.fd, size };
  } catch (e) {
    await fh.close().catch(() => undefined);
    throw e;
  }
}

class TiffDataset implements RasterDataset {
  source: string; width = 0; height = 0; bandCount = 0; blockWidth = 0; blockHeight = 0;
  dtype: DType = 'uint8'; geo!: GeoInfo; nodata: number | null = null;
  bandDescriptions: (string | null)[] = []; scales: number[] = []; offsets: number[] = [];
  colorTable?: ColorTable; categoryNames?: CategoryNames; warnings?: string[];
  private tiff: any; private image: any; private decoder!: DecoderLike;
  private planar = 1; private bytes = 1; private little = true;
  private sample!: SampleType;
  private tiled = true;
  /** Predictor undone here rather than by geotiff.js (which has none for 64-bit integers). */
  private ownPredictor = 1;
  private cache = new Map<string, Promise<TypedArray>>();
  private cacheLimit = 64;
  private closed = false;
  private raw: RawTileReader | null = null;
  /** Block offsets and counts of a big-endian file, read by us (see block-table.ts). */
  private blocks: BlockTable | null = null;
  /** Decoded block reused by readStripRaw. */
  private stripScratch = new Uint8Array(0);
  /** Cached blocks the strip readers decoded (their bytes recyclable once evicted), and buffers free for reuse. */
  private streamed = new Map<string, { bytes: Uint8Array; data: TypedArray }>();
  private recycled: Uint8Array[] = [];
  private layout: RawLayout | null = null;
  /** fd opened by initFromDescriptor (no geotiff.js object to close it). */
  private ownFd = -1;

  /** The full URL of a remote raster (`source` is its redacted form, for messages). */
  private url?: string;
  /** Descriptor of the local file geotiff.js reads (-1: none, or remote). */
  private tiffFd = -1;
  /** Set on an overview: the full-resolution dataset it belongs to (which owns the geotiff.js object). */
  private base?: TiffDataset;
  private overviewList?: Promise<TiffDataset[]>;
  /** geotiff.js on an external `<file>.ovr` (closed with this dataset). */
  private ovrTiff: any;
  /** The first IFD links to no other (read by the light reader): no overviews, nothing to open geotiff.js for. */
  private singleIfd = false;

  constructor(source: string, url?: string) { this.source = source; this.url = url; }

  private warn(message: string): void { (this.warnings ??= []).push(message); }

  /** Category names from the PAM sidecar, beside a local file or fetched beside a URL (a broken one
   *  is ignored with a warning naming it; a remote one that is not there, silently). */
  async readSidecar(signal?: AbortSignal): Promise<void> {
    const warn = (m: string) => this.warn(m);
    let names: CategoryNames | undefined;
    if (!this.url) names = readCategoryNames(this.source, this.bandCount, warn);
    else {
      const pam = await remoteSidecar().fetchSidecar(this.url, warn, signal);
      if (pam) names = categoryNamesFromPam(pam.name, pam.text, this.bandCount, warn);
    }
    if (names) this.categoryNames = names;
  }

  describe(): DatasetDescriptor | null {
    if (!this.layout) return null;
    return {
      source: this.source, width: this.width, height: this.height, bandCount: this.bandCount,
      blockWidth: this.blockWidth, blockHeight: this.blockHeight, dtype: this.dtype, geo: this.geo, nodata: this.nodata,
      bandDescriptions: this.bandDescriptions, scales: this.scales, offsets: this.offsets, layout: this.layout,
    };
  }

  /** Reopens a described file (in a worker thread): no IFD parsing, no geotiff.js. */
  initFromDescriptor(d: DatasetDescriptor): void {
    Object.assign(this, {
      width: d.width, height: d.height, bandCount: d.bandCount, blockWidth: d.blockWidth, blockHeight: d.blockHeight,
      dtype: d.dtype, geo: d.geo, nodata: d.nodata, bandDescriptions: d.bandDescriptions, scales: d.scales, offsets: d.offsets,
    });
    this.planar = d.layout.planar; this.little = true; this.tiled = d.layout.tiled;
    this.bytes = d.layout.bytes;
    const st = sampleTypeOf(d.layout.float ? 3 : d.dtype.startsWith('int') ? 2 : 1, d.layout.bytes * 8);
    if (st instanceof Error) throw new RasterError(`${this.source}: ${st.message}`);
    this.sample = st;
    let fd: number;
    try { fd = fs.openSync(this.source, 'r'); } catch (e) { throw new RasterError(`${this.source}: cannot open (${(e as Error).message})`); }
    const size = fs.fstatSync(fd).size;
    if (size !== d.layout.fileSize) {
      fs.closeSync(fd);
      throw new RasterError(`${this.source}: the file changed while it was being processed (${d.layout.fileSize} → ${size} bytes)`);
    }
    this.ownFd = fd;
    this.layout = d.layout;
    this.raw = new RawTileReader(d.layout, fd, this.source);
    const tileBytes = this.blockWidth * this.blockHeight * this.bytes * (this.planar === 1 ? this.bandCount : 1);
    this.cacheLimit = Math.max(2, Math.min(256, Math.floor(cacheBytes / Math.max(1, tileBytes))));
    if (!d.layout.tiled) this.cacheLimit = Math.max(this.cacheLimit, Math.min(Math.ceil(512 / this.blockHeight) + 1, Math.floor((128 << 20) / Math.max(1, tileBytes))));
  }

  async init(signal?: AbortSignal): Promise<void> {
    const name = this.source;
    if (!this.url && lightIfd && await this.initLight()) return;
    let fileSize: number | undefined;
    let fd = -1;
    try {
      if (this.url) this.tiff = await httpClient().openRemoteTiff(this.url, signal);
      else {
        const o = await openTiffFile(name, signal);
        this.tiff = o.tiff; fileSize = o.size; fd = this.tiffFd = o.fd;
      }
    } catch (e) {
      if (this.url && e instanceof httpClient().HttpError) throw new RasterError(e.message);
      throw new RasterError(`${name}: not a readable TIFF (${(e as Error).message})`);
    }
    try {
      const t = this.tiff;
      const size = fileSize ?? (Number.isFinite(t.source?.fileSize) ? t.source.fileSize : undefined);
      const entries = await scanFirstIfd(t.source, t.littleEndian, t.bigTiff, Number(t.firstIFDOffset), size, signal);
      const image = this.image = await t.getImage(0);
      await this.describeImage(image, entries, fd, fileSize, false);
    } catch (e) {
      await this.close().catch(() => undefined);
      throw new RasterError(`${name}: cannot read TIFF structure (${(e as Error).message})`);
    }
  }

  overviews(signal?: AbortSignal): Promise<RasterDataset[]> {
    if (this.base) return Promise.resolve([]);
    if (this.closed) return Promise.reject(new RasterError(`${this.source}: dataset is closed`));
    if (!this.overviewList) {
      this.overviewList = this.openOverviews(signal);
      this.overviewList.catch(() => { this.overviewList = undefined; });
    }
    return this.overviewList;
  }

  /**
   * The reduced-resolution IFDs after the first (NewSubfileType bit 0 set, not a mask); without any,
   * those of an external `<file>.ovr` beside a local file (gdaladdo -ro, QGIS's "Build Pyramids"), as
   * GDAL reads them. Each is read as the first IFD is: tiles straight from the file where it can,
   * geotiff.js's decoders otherwise.
   */
  private async openOverviews(signal?: AbortSignal): Promise<TiffDataset[]> {
    // Every output GeoWeave writes has one IFD (the light reader saw no link to a next one).
    let out: TiffDataset[] = [];
    if (!this.singleIfd) {
      if (!this.tiff) {
        const o = await openTiffFile(this.source, signal).catch((e: Error) => { throw new RasterError(`${this.source}: cannot read its overviews (${e.message})`); });
        this.tiff = o.tiff; this.tiffFd = o.fd;
      }
      out = await this.overviewIfds(this.tiff, this.tiffFd, this.source, 1, signal);
    }
    const ovr = `${this.source}.ovr`;
    if (!out.length && !this.url && fs.existsSync(ovr)) {
      try {
        const o = await openTiffFile(ovr, signal);
        this.ovrTiff = o.tiff;
        out = await this.overviewIfds(o.tiff, o.fd, ovr, 0, signal);
      } catch (e) {
        if (signal?.aborted) throw e;
        this.warn(`${ovr}: not used as overviews (${(e as Error).message})`);
      }
    }
    return out.sort((a, b) => b.width * b.height - a.width * a.height);
  }

  /** Overview datasets of the IFDs from `first` on in `t` (the file `name`, open on `fd`): in the .ovr every IFD but a mask is one. */
  private async overviewIfds(t: any, fd: number, name: string, first: number, signal?: AbortSignal): Promise<TiffDataset[]> {
    const size: number | undefined = Number.isFinite(t.source?.fileSize) ? t.source.fileSize : undefined;
    const out: TiffDataset[] = [];
    let at = Number(t.firstIFDOffset);
    // GDAL writes at most a few dozen levels; a cycle of IFD offsets is cut here.
    for (let i = 0; i <= MAX_OVERVIEW_IFDS && at; i++) {
      if (signal?.aborted) throw signal.reason ?? new Error('aborted');
      let ifd: any;
      try { ifd = await t.requestIFD(i); } catch (e) { this.warn(`${name}: IFD ${i} is unreadable (${(e as Error).message}); the overviews after it are not used`); break; }
      const here = at;
      at = Number(ifd.nextIFDByteOffset);
      if (i < first) continue;
      const kind = Number((await ifd.loadValue('NewSubfileType')) ?? 0);
      if ((first > 0 && (kind & 1) === 0) || (kind & 4) !== 0) continue;
      const v = new TiffDataset(name, name === this.source ? this.url : undefined);
      v.base = this; v.tiff = t;
      try {
        const image = v.image = await t.getImage(i);
        const entries = await scanFirstIfd(t.source, t.littleEndian, t.bigTiff, here, size, signal);
        await v.describeImage(image, entries, fd, size, false);
        if (v.bandCount !== this.bandCount || v.dtype !== this.dtype || v.width > this.width || v.height > this.height) {
          throw new Error(`it is ${v.width}x${v.height} with ${v.bandCount} ${v.dtype} band${v.bandCount === 1 ? '' : 's'}, not a reduced copy of the ${this.width}x${this.height} image`);
        }
      } catch (e) {
        if (signal?.aborted) throw e;
        this.warn(`${name}: overview IFD ${i} is not used (${(e as Error).message})`);
        continue;
      }
      out.push(v);
    }
    return out;
  }

  /**
   * A local little-endian DEFLATE or uncompressed TIFF opened without geotiff.js (light-ifd.ts): true when
   * done. Anything else, and any error on the way, leaves the file to the geotiff.js path (the same values
   * there; its messages for broken files).
   */
  private async initLight(): Promise<boolean> {
    let fd = -1;
    try {
      fd = fs.openSync(this.source, 'r');
      const size = fs.fstatSync(fd).size;
      const light = await readLightImage(fd, size);
      if (light && await this.describeImage(light.image, light.entries, fd, size, true)) {
        this.ownFd = fd;
        this.singleIfd = light.nextIfd === 0;
        return true;
      }
    } catch { /* the geotiff.js path says what is wrong */ }
    if (fd >= 0) try { fs.closeSync(fd); } catch { /* already closed */ }
    this.raw = null; this.layout = null;
    return false;
  }

  /** Georeferencing, nodata, scales, offsets and descriptions of the first IFD. */
  private async describeMetadata(image: any, fdir: any): Promise<void> {
    this.geo = await readGeoInfo(image);
    const ndStr = fdir.hasTag('GDAL_NODATA') ? String(await fdir.loadValue('GDAL_NODATA')).replace(/\0/g, '').trim() : '';
    this.nodata = !ndStr ? null : /^[-+]?nan$/i.test(ndStr) ? NaN : Number.isFinite(Number(ndStr)) ? Number(ndStr) : null;
    const xml = fdir.hasTag('GDAL_METADATA') ? String(await fdir.loadValue('GDAL_METADATA')) : undefined;
    const meta = parseGdalMetadata(xml, this.bandCount);
    this.bandDescriptions = meta.map((m) => m.description);
    this.scales = meta.map((m) => m.scale);
    this.offsets = meta.map((m) => m.offset);
  }

  /**
   * Metadata and block layout from a parsed first IFD (geotiff.js's image, or light-ifd's with the same
   * values). `light`: returns false instead of setting up a geotiff.js decoder when the direct reader does not apply.
   */
  private async describeImage(image: any, entries: Map<number, IfdEntryInfo>, fd: number, fileSize: number | undefined, light: boolean): Promise<boolean> {
    const fdir = image.fileDirectory;
    const name = this.source;
    this.colorTable = undefined; this.warnings = undefined;
    this.width = image.getWidth(); this.height = image.getHeight();
    this.bandCount = image.getSamplesPerPixel();
    this.blockWidth = image.getTileWidth(); this.blockHeight = image.getTileHeight();
    this.planar = image.planarConfiguration ?? 1;
    this.little = image.littleEndian;
    this.tiled = !!image.isTiled;
    const dims = [this.width, this.height, this.bandCount, this.blockWidth, this.blockHeight];
    if (!dims.every((v) => Number.isSafeInteger(v) && v > 0)) {
      throw new Error(`invalid image dimensions (${this.width}x${this.height}, ${this.bandCount} samples per pixel, blocks ${this.blockWidth}x${this.blockHeight})`);
    }
    if (this.width > MAX_RASTER_SIDE || this.height > MAX_RASTER_SIDE || this.width * this.height > MAX_RASTER_PIXELS) {
      throw new Error(`${this.width}x${this.height} pixels is larger than GeoWeave processes (at most ${MAX_RASTER_SIDE} on a side and ${MAX_RASTER_PIXELS} pixels); cut a window first (gdal_translate -srcwin)`);
    }
    if (this.planar !== 1 && this.planar !== 2) throw new Error(`PlanarConfiguration ${this.planar} is not 1 (interleaved) or 2 (separate)`);
    const bits = image.getBitsPerSample(0);
    for (let s = 1; s < this.bandCount; s++) {
      if (image.getBitsPerSample(s) !== bits || image.getSampleFormat(s) !== image.getSampleFormat(0)) throw new Error('bands with different sample types are not supported');
    }
    const st = sampleTypeOf(Number(image.getSampleFormat(0)), Number(bits));
    if (st instanceof Error) throw st;
    this.sample = st;
    this.dtype = st.dtype;
    this.bytes = st.half ? 2 : CTORS[this.dtype].BYTES_PER_ELEMENT;
    if (this.blockWidth * this.blockHeight * this.bytes * (this.planar === 1 ? this.bandCount : 1) > (512 << 20)) {
      throw new Error(`tile size ${this.blockWidth}x${this.blockHeight} is implausibly large`);
    }
    const photometric = Number((await fdir.loadValue('PhotometricInterpretation')) ?? 1);
    const compression = Number((await fdir.loadValue('Compression')) ?? 1);
    if (photometric === 6 && compression !== 7) throw new Error('YCbCr samples without JPEG compression are not supported; convert with gdal_translate -co PHOTOMETRIC=RGB');
    if (photometric === PHOTOMETRIC_PALETTE && entries.has(TAG_COLORMAP)) {
      // The count is checked before the values are loaded (scanFirstIfd has bounded them by the file).
      const have = entries.get(TAG_COLORMAP)!.count;
      const need = Number.isInteger(bits) && bits >= 1 && bits <= 16 ? 3 * 2 ** bits : -1;
      const t = have === need
        ? colorTableFromColorMap((await fdir.loadValue('ColorMap')) as ArrayLike<number> | undefined, Number(bits), Number(image.getSampleFormat(0)), this.bandCount)
        : colorTableFromColorMap({ length: have } as ArrayLike<number>, Number(bits), Number(image.getSampleFormat(0)), this.bandCount);
      if (typeof t === 'string') this.warn(`${name}: ${t}; the colour table is ignored`);
      else this.colorTable = t;
    }
    // Every block needs an offset and a byte count: a short array would leave blocks undefined.
    const across = Math.ceil(this.width / this.blockWidth), down = Math.ceil(this.height / this.blockHeight);
    const blocks = across * down * (this.planar === 2 ? this.bandCount : 1);
    const [offTag, cntTag] = this.tiled ? [324, 325] : [273, 279];
    for (const tag of [offTag, cntTag]) {
      const have = entries.get(tag)?.count ?? 0;
      if (have < blocks) throw new Error(`${tagName(tag)} has ${have} entr${have === 1 ? 'y' : 'ies'} but the ${this.width}x${this.height} image in ${this.blockWidth}x${this.blockHeight} blocks${this.planar === 2 ? ` with ${this.bandCount} separate bands` : ''} needs ${blocks}`);
    }
    if (this.base) {
      // An overview IFD: the grid is the base's, scaled; nodata, scales and names are the base's.
      const b = this.base;
      Object.assign(this, {
        geo: overviewGeo(b.geo, b.width, b.height, this.width, this.height), nodata: b.nodata,
        bandDescriptions: b.bandDescriptions, scales: b.scales, offsets: b.offsets, categoryNames: b.categoryNames,
      });
      if (!this.colorTable) this.colorTable = b.colorTable;
    } else await this.describeMetadata(image, fdir);
    if (fd >= 0 && fileSize !== undefined) {
      const layout = await rawLayoutOf(image, fileSize, this.nodata);
      if (layout) { this.raw = new RawTileReader(layout, fd, name); this.layout = layout; }
    }
    if (!this.raw && light) return false;
    if (!this.raw) {
      if (!this.little) this.blocks = await readBlockTable(this.tiff.source, entries, this.tiled, false);
      const predictor = Number((await fdir.loadValue('Predictor')) || 1);
      if (predictor !== 1 && st.packed) throw new Error(`Predictor ${predictor} with ${bits}-bit samples is not valid TIFF`);
      if (predictor === 2 && (st.bits === 64 || (!this.little && st.bits > 8))) this.ownPredictor = 2;
      try {
        this.decoder = await (await import('./decoders')).decoderFor(image, { predictor: this.ownPredictor === 1 ? undefined : 1 });
      } catch (e) {
        throw new Error(`Compression ${compression} is not supported (${(e as Error).message}); convert with gdal_translate -co COMPRESS=DEFLATE`);
      }
    }
    const tileBytes = this.blockWidth * this.blockHeight * this.bytes * (this.planar === 1 ? this.bandCount : 1);
    this.cacheLimit = Math.max(2, Math.min(256, Math.floor(cacheBytes / Math.max(1, tileBytes))));
    if (!this.tiled) {
      // Strips span the full width: keep one 512-row band of them so tile-shaped windows left to right decode each strip once.
      const band = Math.ceil(512 / this.blockHeight) + 1;
      this.cacheLimit = Math.max(this.cacheLimit, Math.min(band, Math.floor((128 << 20) / Math.max(1, tileBytes))));
    }
    return true;
  }

  get pixelInterleaved(): boolean { return this.planar === 1 && this.bandCount > 1; }

  /**
   * `opts.into`: the caller's array (w × h × bandCount samples of the band type) instead of a new one;
   * `opts.keepFromY`: as readWindowsInto (only the blocks the next window reads again are cached).
   */
  async readInterleaved(x: number, y: number, w: number, h: number, signal?: AbortSignal, opts: { into?: TypedArray; keepFromY?: number } = {}): Promise<TypedArray> {
    if (!this.pixelInterleaved) throw new RasterError(`${this.source}: bands are not stored pixel-interleaved`);
    this.check(1, x, y, w, h);
    const S = this.bandCount, tw = this.blockWidth, th = this.blockHeight;
    const out = this.samplesBuffer(w * h * S, opts.into);
    const jobs: Promise<void>[] = [];
    const stream = opts.keepFromY === undefined ? undefined : this.streamedBlocks(opts.keepFromY);
    const block = (tx: number, ty: number, copy: (d: TypedArray) => void): Promise<void> => {
      if (!stream) return this.tile(tx, ty, 0, signal).then(copy);
      // Fetched (or decoded into the shared scratch) and copied in one synchronous step.
      return Promise.resolve().then(() => { const d = stream(tx, ty, 0); return d instanceof Promise ? d.then(copy) : copy(d); });
    };
    for (let ty = Math.floor(y / th); ty <= Math.floor((y + h - 1) / th); ty++) {
      for (let tx = Math.floor(x / tw); tx <= Math.floor((x + w - 1) / tw); tx++) {
        if (signal?.aborted) throw signal.reason ?? new Error('aborted');
        jobs.push(block(tx, ty, (data) => {
          const rowsInData = Math.floor(data.length / (tw * S));
          const gx0 = Math.max(x, tx * tw), gx1 = Math.min(x + w, (tx + 1) * tw, this.width);
          const gy0 = Math.max(y, ty * th), gy1 = Math.min(y + h, (ty + 1) * th, this.height);
          if (gy1 - ty * th > rowsInData) throw new Error(`tile ${tx},${ty} is short (${rowsInData} rows)`);
          const n = (gx1 - gx0) * S;
          for (let gy = gy0; gy < gy1; gy++) {
            const src = ((gy - ty * th) * tw + (gx0 - tx * tw)) * S;
            out.set(data.subarray(src, src + n) as any, ((gy - y) * w + (gx0 - x)) * S);
          }
        }));
      }
    }
    try {
      await Promise.all(jobs);
    } catch (e) {
      if (signal?.aborted) throw signal.reason ?? e;
      if (e instanceof RasterError) throw e;
      throw new RasterError(`${this.source}: cannot decode bands at x=${x} y=${y} (${(e as Error).message}); the file may be truncated or corrupt`);
    }
    return out;
  }

  /** Samples in one stored row of a block (all samples of a pixel when interleaved). */
  private get rowSamples(): number {
    return this.blockWidth * (this.planar === 1 ? this.bandCount : 1);
  }

  /** Decoded bytes of block (tx, ty, sample) → samples; 64-bit integers a double cannot hold are refused naming the file. */
  private toSamples(bytes: Uint8Array, little: boolean): TypedArray {
    try {
      return samplesFromBytes(bytes, this.sample, little, this.rowSamples, this.nodata);
    } catch (e) {
      if (e instanceof InexactIntegerError) throw new RasterError(`${this.source}: ${e.message}`);
      throw e;
    }
  }

  /** One block through geotiff.js's decoders (everything the direct reader does not cover). */
  private async decodeBlock(tx: number, ty: number, sample: number, signal?: AbortSignal): Promise<TypedArray> {
    const across = Math.ceil(this.width / this.blockWidth), down = Math.ceil(this.height / this.blockHeight);
    const index = (this.planar === 2 ? sample * across * down : 0) + ty * across + tx;
    const fdir = this.image.fileDirectory;
    const offset = this.blocks ? this.blocks.offsets[index] : Number(await fdir.loadValueIndexed(this.tiled ? 'TileOffsets' : 'StripOffsets', index));
    const count = this.blocks ? this.blocks.counts[index] : Number(await fdir.loadValueIndexed(this.tiled ? 'TileByteCounts' : 'StripByteCounts', index));
    const rows = this.tiled ? this.blockHeight : Math.min(this.blockHeight, this.height - ty * this.blockHeight);
    if (!(offset > 0 && count > 0)) {
      // A sparse block reads as nodata (else 0), as in GDAL.
      const fill = this.nodata === null || Number.isNaN(this.nodata) ? 0 : this.nodata;
      return new CTORS[this.dtype](rows * this.rowSamples).fill(fill);
    }
    countEvent('decodes');
    const [slice] = await this.image.source.fetch([{ offset, length: count }], signal);
    const bytes = new Uint8Array(await this.decoder.decode(slice));
    if (this.ownPredictor === 2) {
      const size = this.sample.bits / 8;
      if (!this.little) swapSamples(bytes, size);
      undoHorizontal(bytes, size, this.rowSamples, this.planar === 1 ? this.bandCount : 1);
      return this.toSamples(bytes, true);
    }
    return this.toSamples(bytes, this.little);
  }

  /** Decoded tile (all samples when pixel-interleaved), cached in a small LRU. */
  private tile(tx: number, ty: number, sample: number, signal?: AbortSignal): Promise<TypedArray> {
    const key = this.planar === 1 ? `${tx},${ty}` : `${sample},${tx},${ty}`;
    const hit = this.cache.get(key);
    // A block handed out here may be held by the caller: it is never recycled.
    if (hit) { this.cache.delete(key); this.cache.set(key, hit); this.streamed.delete(key); return hit; }
    const raw = this.raw;
    const p = raw
      ? new Promise<TypedArray>((resolve) => resolve(this.toSamples(raw.read(tx, ty, this.planar === 1 ? 0 : sample), true)))
      : this.decodeBlock(tx, ty, this.planar === 1 ? 0 : sample, signal);
    p.catch(() => this.cache.delete(key));
    this.cache.set(key, p);
    while (this.cache.size > this.cacheLimit) this.evictOldest();
    return p;
  }

  /** Drops the least recently used block; one the strip readers decoded goes to `retired` for reuse. */
  private evictOldest(): void {
    const key = this.cache.keys().next().value as string;
    this.cache.delete(key);
    const st = this.streamed.get(key);
    if (st) { this.streamed.delete(key); if (this.recycled.length < 64) this.recycled.push(st.bytes); }
  }

  private check(band: number, x: number, y: number, w: number, h: number): void {
    if (this.closed) throw new RasterError(`${this.source}: dataset is closed`);
    if (!Number.isInteger(band) || band < 1 || band > this.bandCount) {
      throw new RasterError(`${this.source}: band ${band} is out of range (the file has ${this.bandCount} band${this.bandCount === 1 ? '' : 's'}, numbered 1..${this.bandCount})`);
    }
    if (!(Number.isInteger(x) && Number.isInteger(y) && Number.isInteger(w) && Number.isInteger(h)) || x < 0 || y < 0 || w <= 0 || h <= 0 || x + w > this.width || y + h > this.height) {
      throw new RasterError(`${this.source}: window x=${x} y=${y} w=${w} h=${h} is outside the ${this.width}x${this.height} raster`);
    }
  }

  async readWindowRaw(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal, into?: ArrayLike<number>): Promise<TypedArray> {
    // A caller's buffer (streaming readers reuse one instead of allocating a window per call).
    const out = this.samplesBuffer(w * h, into);
    await this.copyWindow([band], x, y, w, h, [out], [null], signal);
    return out;
  }

  /** `n` samples of the band's type: `into` (or its first `n`) when it is such an array long enough, else a new one. */
  private samplesBuffer(n: number, into?: ArrayLike<number>): TypedArray {
    if (into instanceof CTORS[this.dtype] && into.length >= n) return (into.length === n ? into : into.subarray(0, n)) as TypedArray;
    return new CTORS[this.dtype](n);
  }

  async readStripRaw(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal, into?: ArrayLike<number>): Promise<TypedArray> {
    const raw = this.raw;
    // Only where a block's decoded bytes are its samples as they are (a view, no conversion).
    if (!raw || this.sample.packed || this.sample.half || this.sample.bits === 64) return this.readWindowRaw(band, x, y, w, h, signal, into);
    const out = this.samplesBuffer(w * h, into);
    const stride = this.planar === 1 ? this.bandCount : 1;
    const need = this.blockWidth * this.blockHeight * stride * this.bytes;
    if (this.stripScratch.length < need) this.stripScratch = new Uint8Array(need);
    // Decoded and copied one block at a time, each in one synchronous step, so the scratch is never shared.
    await this.copyWindow([band], x, y, w, h, [out], [null], signal, (tx, ty, sample) => {
      const hit = this.cache.get(this.planar === 1 ? `${tx},${ty}` : `${sample},${tx},${ty}`);
      return hit ?? this.toSamples(raw.read(tx, ty, sample, this.stripScratch), true);
    });
    return out;
  }

  /**
   * Block source for strip readers: a cached block when there is one; else a block of tile row ≥ keepFromY's is
   * decoded into a new array and cached (the next window reads it again), any other into the shared scratch
   * (the caller copies it before the next block is fetched). Undefined where blocks are not decoded directly.
   */
  private streamedBlocks(keepFromY: number): ((tx: number, ty: number, sample: number) => TypedArray | Promise<TypedArray>) | undefined {
    const raw = this.raw;
    if (!raw || this.sample.packed || this.sample.half || this.sample.bits === 64) return undefined;
    const stride = this.planar === 1 ? this.bandCount : 1;
    const need = this.blockWidth * this.blockHeight * stride * this.bytes;
    if (this.stripScratch.length < need) this.stripScratch = new Uint8Array(need);
    const keepTy = Number.isFinite(keepFromY) ? Math.floor(keepFromY / this.blockHeight) : Infinity;
    // Blocks decoded here are handed out synchronously (hits too), so the caller has copied each before the
    // next is fetched: once evicted, their buffers are decoded into again instead of allocating (and leaving
    // garbage for the GC) per block.
    return (tx, ty, sample) => {
      const key = this.planar === 1 ? `${tx},${ty}` : `${sample},${tx},${ty}`;
      const hit = this.cache.get(key);
      if (hit) {
        this.cache.delete(key); this.cache.set(key, hit);
        return this.streamed.get(key)?.data ?? hit;
      }
      if (ty < keepTy) return this.toSamples(raw.read(tx, ty, sample, this.stripScratch), true);
      let into = this.recycled.pop();
      if (into && into.length < need) into = undefined;
      const bytes = raw.read(tx, ty, sample, into);
      const data = this.toSamples(bytes, true);
      this.cache.set(key, Promise.resolve(data));
      // Recyclable only when the block's samples are the bytes themselves (a view, not a converted copy).
      if (data.buffer === bytes.buffer) this.streamed.set(key, { bytes: into && bytes.buffer === into.buffer ? into : bytes, data });
      while (this.cache.size > this.cacheLimit) this.evictOldest();
      return data;
    };
  }

  async readWindowsInto(bands: number[], x: number, y: number, w: number, h: number, raw: boolean, outs: TypedArray[], keepFromY: number, signal?: AbortSignal): Promise<void> {
    outs.forEach((o, k) => {
      if (o.length !== w * h || !(raw ? o instanceof CTORS[this.dtype] : o instanceof Float32Array)) throw new RasterError(`${this.source}: window buffer ${k + 1} does not fit a ${w}x${h} ${raw ? this.dtype : 'float32'} window`);
    });
    await this.copyWindow(bands, x, y, w, h, outs, bands.map((b) => (raw ? null : this.conversion(b))), signal, this.streamedBlocks(keepFromY));
  }

  async readWindow(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal): Promise<Float32Array> {
    const out = new Float32Array(w * h);
    await this.copyWindow([band], x, y, w, h, [out], [this.conversion(band)], signal);
    return out;
  }

  /** How readWindow turns raw samples of `band` into floats. */
  private conversion(band: number): { nd: number | null; scale: number; offset: number } {
    const nd = this.nodata === null ? null : this.dtype === 'float32' ? Math.fround(this.nodata) : this.nodata;
    return { nd: nd === null || Number.isNaN(nd) ? null : nd, scale: this.scales[band - 1] ?? 1, offset: this.offsets[band - 1] ?? 0 };
  }

  async blockWindow(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal): Promise<BlockWindow | null> {
    this.check(band, x, y, w, h);
    const tw = this.blockWidth, th = this.blockHeight;
    const tx = Math.floor(x / tw), ty = Math.floor(y / th);
    if (Math.floor((x + w - 1) / tw) !== tx || Math.floor((y + h - 1) / th) !== ty) return null;
    const stride = this.planar === 1 ? this.bandCount : 1;
    let data: TypedArray;
    try {
      if (signal?.aborted) throw signal.reason ?? new Error('aborted');
      data = await this.tile(tx, ty, band - 1, signal);
      const rowsInData = Math.floor(data.length / (tw * stride));
      if (y + h - ty * th > rowsInData) throw new Error(`tile ${tx},${ty} is short (${rowsInData} rows)`);
    } catch (e) {
      if (signal?.aborted) throw signal.reason ?? e;
      if (e instanceof RasterError) throw e;
      throw new RasterError(`${this.source}: cannot decode band ${band} at x=${x} y=${y} (${(e as Error).message}); the file may be truncated or corrupt`);
    }
    const c = this.conversion(band);
    return {
      data, start: ((y - ty * th) * tw + (x - tx * tw)) * stride + (this.planar === 1 ? band - 1 : 0), pixelStride: stride, rowStride: tw * stride,
      nodata: c.nd, scale: c.scale, offset: c.offset, exact: ['uint8', 'int8', 'uint16', 'int16', 'float32'].includes(this.dtype),
    };
  }

  /**
   * Copies band windows out of the tiles, every tile decoded once for all `bands` (one pass over a
   * pixel-interleaved file); with `convs[k]`, converts to float in the same pass (nodata → NaN, scale/offset).
   */
  private async copyWindow(bands: number[], x: number, y: number, w: number, h: number, outs: TypedArray[], convs: ({ nd: number | null; scale: number; offset: number } | null)[], signal?: AbortSignal,
    block?: (tx: number, ty: number, sample: number) => TypedArray | Promise<TypedArray>): Promise<void> {
    for (const band of bands) this.check(band, x, y, w, h);
    const tw = this.blockWidth, th = this.blockHeight;
    const tx0 = Math.floor(x / tw), tx1 = Math.floor((x + w - 1) / tw);
    const ty0 = Math.floor(y / th), ty1 = Math.floor((y + h - 1) / th);
    const stride = this.planar === 1 ? this.bandCount : 1;
    // Bands `ks` of one decoded tile, row by row with the bands inside: a pixel-interleaved tile row is read
    // from cache for every band (band by band over the whole tile streamed it from memory once per band).
    const copy = (data: TypedArray, tx: number, ty: number, ks: number[]) => {
      const rowsInData = Math.floor(data.length / (tw * stride));
      const gx0 = Math.max(x, tx * tw), gx1 = Math.min(x + w, (tx + 1) * tw, this.width);
      const gy0 = Math.max(y, ty * th), gy1 = Math.min(y + h, (ty + 1) * th, this.height);
      if (gy1 - ty * th > rowsInData) throw new Error(`tile ${tx},${ty} is short (${rowsInData} rows)`);
      const n = gx1 - gx0;
      // Float32 to float32 without scaling: copied as bit patterns, nodata's pattern → NaN's (the float compare and
      // store took about 5 ns a pixel, 6-7 times this). Nodata ±0 takes the float path: -0 must match too.
      const bits = data instanceof Float32Array ? ks.map((k) => {
        const c = convs[k];
        return c && c.scale === 1 && c.offset === 0 && c.nd !== 0 ? { out: new Uint32Array(outs[k].buffer, outs[k].byteOffset, outs[k].length), nd: c.nd === null ? -1 : f32Bits(c.nd) } : null;
      }) : null;
      const srcBits = bits ? new Uint32Array(data.buffer, data.byteOffset, data.length) : null;
      for (let gy = gy0; gy < gy1; gy++) {
        const row = ((gy - ty * th) * tw + (gx0 - tx * tw)) * stride;
        const dst = (gy - y) * w + (gx0 - x);
        for (let j = 0; j < ks.length; j++) {
          const k = ks[j], out = outs[k], conv = convs[k];
          const src = row + (this.planar === 1 ? bands[k] - 1 : 0);
          const b = bits ? bits[j] : null;
          if (b) copyBits(srcBits!, src, stride, b.out, dst, n, b.nd);
          else if (conv) copyConvert(data, src, stride, out as Float32Array, dst, n, conv.nd, conv.scale, conv.offset);
          else if (stride === 1) out.set(data.subarray(src, src + n) as any, dst);
          else for (let i = 0; i < n; i++) out[dst + i] = data[src + i * stride];
        }
      }
    };
    const all = bands.map((_, k) => k);
    const jobs: Promise<void>[] = [];
    for (let ty = ty0; ty <= ty1; ty++) {
      for (let tx = tx0; tx <= tx1; tx++) {
        if (signal?.aborted) throw signal.reason ?? new Error('aborted');
        if (block) {
          // A caller's block source: fetched and copied in one step (it may reuse one buffer).
          const run = (sample: number, ks: number[]) => {
            const d = block(tx, ty, sample);
            return d instanceof Promise ? d.then((v) => copy(v, tx, ty, ks)) : copy(d, tx, ty, ks);
          };
          if (this.planar === 1) jobs.push(Promise.resolve().then(() => run(0, all)));
          else for (let k = 0; k < bands.length; k++) jobs.push(Promise.resolve().then(() => run(bands[k] - 1, [k])));
        } else if (this.planar === 1) {
          jobs.push(this.tile(tx, ty, 0, signal).then((data) => copy(data, tx, ty, all)));
        } else {
          for (let k = 0; k < bands.length; k++) jobs.push(this.tile(tx, ty, bands[k] - 1, signal).then((data) => copy(data, tx, ty, [k])));
        }
      }
    }
    try {
      await Promise.all(jobs);
    } catch (e) {
      if (signal?.aborted) throw signal.reason ?? e;
      if (e instanceof RasterError) throw e;
      throw new RasterError(`${this.source}: cannot decode band${bands.length > 1 ? 's' : ''} ${bands.join(', ')} at x=${x} y=${y} (${(e as Error).message}); the file may be truncated or corrupt`);
    }
  }

  /** Several bands of one window, each tile decoded once; raw samples, or float32 as readWindow gives them. */
  async readWindows(bands: number[], x: number, y: number, w: number, h: number, raw: boolean, signal?: AbortSignal): Promise<TypedArray[]> {
    const outs = bands.map(() => (raw ? new CTORS[this.dtype](w * h) : new Float32Array(w * h)));
    await this.copyWindow(bands, x, y, w, h, outs, bands.map((b) => (raw ? null : this.conversion(b))), signal);
    return outs;
  }

  /**
   * Keeps at least `tiles` decoded blocks (an access pattern's working set: a strip of every band plus a
   * kernel's halo), within a memory ceiling; never shrinks the cache.
   */
  reserveTiles(tiles: number): void {
    const tileBytes = this.blockWidth * this.blockHeight * this.bytes * (this.planar === 1 ? this.bandCount : 1);
    const cap = Math.max(2, Math.floor(MAX_CACHE_BYTES / Math.max(1, tileBytes)));
    this.cacheLimit = Math.max(this.cacheLimit, Math.min(cap, tiles));
  }

  tileCacheUse(): { tiles: number; bytes: number } {
    const tileBytes = this.blockWidth * this.blockHeight * this.bytes * (this.planar === 1 ? this.bandCount : 1);
    return { tiles: this.cache.size, bytes: this.cache.size * tileBytes };
  }

  fitTileCache(tiles: number): void {
    this.cacheLimit = Math.max(2, Math.floor(tiles));
    while (this.cache.size > this.cacheLimit) this.evictOldest();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.cache.clear(); this.streamed.clear(); this.recycled = [];
    this.raw = null;
    // An overview reads through its base's file and geotiff.js object; the base closes them.
    if (this.base) return;
    const views = this.overviewList ? await this.overviewList.catch(() => []) : [];
    for (const v of views) await v.close();
    if (this.ownFd >= 0) { try { fs.closeSync(this.ownFd); } catch { /* already closed */ } this.ownFd = -1; }
    try { await this.tiff?.close?.(); } catch { /* already closed */ }
    try { await this.ovrTiff?.close?.(); } catch { /* already closed */ }
  }
}

function copyConvert(src: TypedArray, so: number, stride: number, dst: Float32Array, d: number, n: number, nd: number | null, scale: number, offset: number): void {
  const plain = scale === 1 && offset === 0;
  if (nd === null) {
    if (plain) for (let i = 0; i < n; i++) dst[d + i] = src[so + i * stride];
    else for (let i = 0; i < n; i++) dst[d + i] = src[so + i * stride] * scale + offset;
  } else if (plain) {
    for (let i = 0; i < n; i++) { const v = src[so + i * stride]; dst[d + i] = v === nd ? NaN : v; }
  } else {
    for (let i = 0; i < n; i++) { const v = src[so + i * stride]; dst[d + i] = v === nd ? NaN : v * scale + offset; }
  }
}

const NAN_BITS = 0x7fc00000;
const bitsScratch = new Float32Array(1);
function f32Bits(v: number): number { bitsScratch[0] = v; return new Uint32Array(bitsScratch.buffer)[0]; }

/** Copies float32 bit patterns; `ndBits` (−1: none) becomes NaN. */
function copyBits(src: Uint32Array, so: number, stride: number, dst: Uint32Array, d: number, n: number, ndBits: number): void {
  if (ndBits < 0 && stride === 1) { dst.set(src.subarray(so, so + n), d); return; }
  if (stride === 1) for (let i = 0; i < n; i++) { const b = src[so + i]; dst[d + i] = b === ndBits ? NAN_BITS : b; }
  else for (let i = 0; i < n; i++) { const b = src[so + i * stride]; dst[d + i] = b === ndBits ? NAN_BITS : b; }
}

/** Raw band values → float32 with scale/offset; nodata and NaN → NaN. */
export function toFloat(raw: ArrayLike<number>, nodata: number | null, scale: number, offset: number, isF32 = false): Float32Array {
  const n = raw.length;
  const out = new Float32Array(n);
  const nd = nodata === null ? null : isF32 ? Math.fround(nodata) : nodata;
  const plain = scale === 1 && offset === 0;
  if (nd === null || Number.isNaN(nd)) {
    if (plain) { for (let i = 0; i < n; i++) out[i] = raw[i]; }
    else for (let i = 0; i < n; i++) out[i] = raw[i] * scale + offset;
  } else if (plain) {
    for (let i = 0; i < n; i++) { const v = raw[i]; out[i] = v === nd ? NaN : v; }
  } else {
    for (let i = 0; i < n; i++) { const v = raw[i]; out[i] = v === nd ? NaN : v * scale + offset; }
  }
  return out;
}

/** What a file that is not a TIFF looks like, from its first bytes (named, not echoed: the file may be private), and what to do. */
function sniff(head: Buffer): string {
  const h = head.toString('latin1');
  const convert = 'convert it with gdal_translate -of GTiff -co TILED=YES -co COMPRESS=DEFLATE IN OUT.tif';
  if (h.startsWith('\x00\x00\x00\x0cjP  ') || (head[0] === 0xff && head[1] === 0x4f && head[2] === 0xff && head[3] === 0x51)) {
    return `it is JPEG 2000, which GeoWeave reads from local files only; download it, or ${convert}`;
  }
  if (h.startsWith('ENVI')) return 'it is an ENVI header whose data file is not beside it under the same name';
  if (h.startsWith('\x89PNG')) return 'it is a PNG image';
  if (head[0] === 0xff && head[1] === 0xd8) return 'it is a JPEG image';
  if (h.startsWith('%PDF')) return 'it is a PDF document';
  if (h.startsWith('PK')) return 'it is a ZIP archive; extract it (GeoWeave: Extract Archive, or geoweave extract FILE) and give the GeoTIFF, JPEG 2000 or .SAFE folder inside';
  if (head[0] === 0x1f && head[1] === 0x8b) return 'it is gzip-compressed; extract it (GeoWeave: Extract Archive, or geoweave extract FILE for a .tar.gz) and give the GeoTIFF inside';
  if (h.startsWith('CDF')) return `it is a NetCDF file of a version GeoWeave does not know (byte 4 is ${head[3]}); ${convert.replace('IN', 'NETCDF:IN:variable')}`;
  if (h.startsWith('{') || h.startsWith('[')) return 'it looks like JSON';
  if (/^[\t\n\r\x20-\x7e]{4}/.test(h)) return 'it looks like text';
  return 'no TIFF signature II*/MM*';
}

/** Opens a GeoTIFF from a path (relative to opts.cwd) or an http(s) URL read with range requests; a local JPEG 2000 file too. */
export async function openRaster(src: string, opts: { cwd?: string; signal?: AbortSignal; vrtDepth?: number } = {}): Promise<RasterDataset> {
  if (typeof src !== 'string' || !src.trim()) throw new RasterError(`raster path is empty`);
  if (src.length > 4096) throw new RasterError(`${src.slice(0, 60)}…: raster path is too long (${src.length} characters)`);
  if (src.includes('\0')) throw new RasterError(`${JSON.stringify(src.slice(0, 200))}: raster path contains a NUL character`);
  let source = src;
  let jp2 = false, vrt = false, hgt = false, asc = false, dted = false, nc = false, hdf4 = false, hfa = false, grib = false;
  // "era5.nc#t2m", "MOD13Q1.hdf#250m 16 days NDVI", "gfs.grib2#5": one layer of a file of several.
  const ncVar = !isRemote(src) ? fileLayer(src) : undefined;
  if (ncVar) src = ncVar.file;
  let envi: { hdr: string; data: string } | undefined, ehdr: typeof envi;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(src);
  if (scheme && !isRemote(src)) {
    throw new RasterError(`${src}: ${scheme[1]}:// URLs are not read; give a local path${scheme[1].toLowerCase() === 'file' ? ' (the part after file://)' : ''} or an http(s) URL`);
  }
  if (!isRemote(src)) {
    source = path.resolve(opts.cwd ?? process.cwd(), src);
    let st: fs.Stats;
    try { st = await fs.promises.stat(source); } catch { throw new RasterError(`${source}: file not found`); }
    if (!st.isFile()) throw new RasterError(`${source}: not a file`);
    if (st.size < 8) throw new RasterError(`${source}: not a TIFF (only ${st.size} bytes)`);
    const fh = await fs.promises.open(source, 'r');
    try {
      const head = Buffer.alloc(16);
      await fh.read(head, 0, 16, 0);
      const ok = (head[0] === 0x49 && head[1] === 0x49 && (head[2] === 42 || head[2] === 43) && head[3] === 0)
        || (head[0] === 0x4d && head[1] === 0x4d && head[2] === 0 && (head[3] === 42 || head[3] === 43));
      if (!ok && isJpeg2000(head)) jp2 = true;
      else if (!ok && /\.hgt$/i.test(source)) hgt = true; // its reader says what is wrong with one that is not
      // ERDAS Imagine by its magic, before ENVI: both use .img, and an HFA file is never ENVI data.
      else if (!ok && hfaReader().isHfa(head)) hfa = true;
      else if (!ok && (envi = enviReader().enviPair(source))) { /* an ENVI header, or the data file one describes */ }
      else if (!ok && (ehdr = ehdrReader().ehdrPair(source))) { /* an ESRI .hdr label, or the .bil/.flt it describes */ }
      else if (!ok && (/\.dt[0-3]$/i.test(source) || head.toString('latin1', 0, 3) === 'UHL')) dted = true; // its reader says what is wrong with one that is not
      else if (!ok && (gribReader().isGrib(head) || /\.(grib2?|grb2?)$/i.test(source))) grib = true; // its reader finds "GRIB" after a WMO header, or says what is wrong
      else if (!ok && asciiGridReader().isAsciiGrid(head)) asc = true;
      else if (!ok && netcdfReader().isNetcdf(head)) nc = true;
      else if (!ok && hdf4Reader().isHdf4(head)) hdf4 = true;
      else if (!ok && await isVrt(fh)) vrt = true;
      else if (!ok) throw new RasterError(`${source}: not a TIFF file (${sniff(head)})`);
      if (ncVar && !nc && !hdf4 && !grib) throw new RasterError(`${source}: "#${ncVar.variable}" names a variable of a NetCDF or HDF file or a GRIB message, and this is not one of those (${ok ? 'it is a TIFF' : sniff(head)})`);
    } finally { await fh.close(); }
  }
  if (vrt) return openVrt(source, opts.vrtDepth ?? 0, opts.signal);
  // The raw and gridded-text readers: made, opened, returned (each says what is wrong with its file).
  const fail = (m: string) => new RasterError(m);
  const opened = async <T extends RasterDataset & { init(signal?: AbortSignal): Promise<void> }>(ds: T): Promise<T> => { await ds.init(opts.signal); return ds; };
  if (hfa) return opened(new (hfaReader().HfaDataset)(source, fail));
  if (envi) return opened(new (enviReader().EnviDataset)(envi, fail));
  if (ehdr) return opened(new (ehdrReader().EhdrDataset)(ehdr, fail));
  if (nc) return opened(await netcdfReader().openNetcdf(source, fail, ncVar?.variable));
  if (hdf4) return opened(await hdf4Reader().openHdf4Raster(source, fail, ncVar?.variable));
  if (dted) return opened(new (dtedReader().DtedDataset)(source, fail));
  if (grib) return opened(new (gribReader().GribDataset)(source, fail, ncVar?.variable));
  if (asc) return opened(new (asciiGridReader().AsciiGridDataset)(source, fail));
  if (hgt) return opened(new (hgtReader().HgtDataset)(source, fail));
  if (isRemote(src) && /\.vrt$/i.test(src.split(/[?#]/)[0])) {
    throw new RasterError(`${redactUrl(src)}: a VRT is read from a local file only (its sources are paths beside it); download it and its sources, or give the GeoTIFF URL`);
  }
  if (jp2) {
    // Loaded on the first JPEG 2000 file: the decoder is WebAssembly that TIFF-only sessions never need.
    const { Jp2Dataset } = require('./jp2/jp2-dataset') as typeof import('./jp2/jp2-dataset');
    const ds = new Jp2Dataset(source, (m) => new RasterError(m));
    await ds.init();
    return sentinel2NoData(ds);
  }
  const ds = isRemote(src) ? new TiffDataset(redactUrl(src), src) : new TiffDataset(source);
  await ds.init(opts.signal);
  try { await ds.readSidecar(opts.signal); } catch (e) { await ds.close().catch(() => undefined); throw e; }
  return sentinel2NoData(ds);
}

/**
 * A Sentinel-2 band file (`…_B04_10m.jp2` as the SAFE holds it, or the same converted to GeoTIFF)
 * that declares no nodata: DN 0 is the product's NODATA value (ESA's Special_Values; GDAL's
 * SENTINEL2 driver says the same), outside the swath and in the granule's empty corners. Read as
 * such, an index over those corners is no data rather than a block of "bare soil" at NDVI 0.
 */
function sentinel2NoData<T extends RasterDataset>(ds: T): T {
  if (ds.nodata !== null || !/^uint(8|16)$/.test(ds.dtype) || ds.bandCount !== 1) return ds;
  const b = bandFileOf(ds.source);
  if (b && b.sensor.startsWith('sentinel2')) ds.nodata = 0;
  return ds;
}

/** A VRT from its file, or from `text` as if it were the file at `source` (a mosaic read back before it is moved into place). */
export async function openVrt(source: string, depth = 0, signal?: AbortSignal, text?: string): Promise<RasterDataset> {
  const { VrtDataset } = require('./vrt/vrt-dataset') as typeof import('./vrt/vrt-dataset');
  const ds = new VrtDataset(source, depth, (file, d, s) => openRaster(file, { signal: s, vrtDepth: d }), (m) => new RasterError(m), text);
  await ds.init(signal);
  return ds;
}

/** What may come before an XML document's root, opened and closed: comments, a declaration, a DOCTYPE. */
const PROLOG_MARKUP: [string, string][] = [['<!--', '-->'], ['<?', '?>'], ['<!', '>']];

/**
 * Whether a file that is not a TIFF is a GDAL VRT: XML whose root is <VRTDataset>, after a
 * declaration, comments or a DOCTYPE in its first 64 KB (scanned, not matched by a regex that could
 * backtrack on a file of comments).
 */
async function isVrt(fh: fs.promises.FileHandle): Promise<boolean> {
  const head = Buffer.alloc(64 << 10);
  const { bytesRead } = await fh.read(head, 0, head.length, 0);
  const h = head.subarray(0, bytesRead).toString('utf8');
  let i = h.charCodeAt(0) === 0xfeff ? 1 : 0;
  for (;;) {
    while (i < h.length && /\s/.test(h[i])) i++;
    const m = PROLOG_MARKUP.find(([open]) => h.startsWith(open, i));
    if (!m) break;
    const end = h.indexOf(m[1], i + m[0].length);
    if (end < 0) return false;
    i = end + m[1].length;
  }
  return h.startsWith('<VRTDataset', i) && /[\s>/]/.test(h[i + 11] ?? '');
}

/** Opens a file described by another thread's `describe()` (synchronous, no geotiff.js). */
export function openDescribed(d: DatasetDescriptor): RasterDataset {
  const ds = new TiffDataset(d.source);
  ds.initFromDescriptor(d);
  return ds;
}
