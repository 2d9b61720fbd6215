/**
 * A JPEG 2000 raster (.jp2, as Sentinel-2 SAFE products store their bands, or a bare .j2k) as a
 * RasterDataset. Windows decode the codestream tiles they touch, each cut out as a codestream of
 * its own (codestream.ts) and decoded by OpenJPEG (openjpeg.ts); decoded tiles stay in a small
 * cache. Components are bands; nodata, scale, offset and descriptions come from GDAL's PAM sidecar
 * (`<file>.aux.xml`), as GDAL keeps them for JP2.
 */
import { windowProblem } from '../window-check';
import * as fs from 'fs';
import type { GeoInfo, RasterDataset } from '../dataset';
import { CTORS, type DType, type TypedArray } from '../samples';
import { categoryNamesFromPam, MAX_PAM_BYTES, type CategoryNames } from '../color-table';
import { Jp2Error, imageSizeAt, readJp2Layout, tileCodestream, tileRect, type Jp2Layout } from './codestream';
import type { DecodedTile } from './openjpeg';
import { decodeTile, poolSize } from './decode-pool';
import { nativeJp2 } from './openjpeg';
import { elements, firstInner, geoFromGeoJp2, geoFromGml } from './georef';
import { MAX_RASTER_PIXELS, MAX_RASTER_SIDE, overviewGeo } from '../dataset';
import { parseCrs } from '../../crs/crs';

/** Decoded tiles kept per file: a 1024² Sentinel-2 tile is 2 MB, so a strip of a 10980-wide band fits. */
const CACHE_BYTES = 48 << 20;
/** Samples of one tile decoded at once (an untiled 10980² Sentinel-2 band is 120 M; OpenJPEG's heap tops out at 2 GB). */
const MAX_TILE_SAMPLES = 160_000_000;

export class Jp2Dataset implements RasterDataset {
  width = 0; height = 0; bandCount = 0; blockWidth = 0; blockHeight = 0;
  dtype: DType = 'uint8'; geo!: GeoInfo; nodata: number | null = null;
  bandDescriptions: (string | null)[] = []; scales: number[] = []; offsets: number[] = [];
  categoryNames?: CategoryNames; warnings?: string[];
  private fd = -1; private size = 0; private layout!: Jp2Layout;
  private cache = new Map<number, Promise<DecodedTile>>();
  private cacheLimit = 2;
  private closed = false;
  /** Resolution level read (0: full size; r: 1/2^r, the wavelet's low-pass, as GDAL's JP2 overviews). */
  private level = 0;
  /** The full-size dataset this resolution level belongs to (it owns the file descriptor). */
  private parent?: Jp2Dataset;
  private levelViews?: Jp2Dataset[];

  /** `fail` turns a reason into the caller's error type (RasterError, naming the file). */
  constructor(readonly source: string, private fail: (message: string) => Error) {}

  /**
   * The codestream's resolution levels, largest first, as datasets of their own (GDAL's overviews of
   * a JP2): a tile at level r decodes without its r finest wavelet levels, so a quicklook of a
   * 10980² band reads 1/4^r of the samples and skips most of the decoding. Closed with this one.
   */
  async overviews(): Promise<RasterDataset[]> {
    if (this.parent) return [];
    if (this.closed) throw this.fail(`${this.source}: dataset is closed`);
    if (!this.levelViews) {
      // The levels GDAL lists as overviews: while the level above is over 128 pixels on a side, and
      // (several tiles) its tiles halve evenly, so the levels' tiles stay aligned.
      const L = this.layout, one = L.tilesAcross * L.tilesDown === 1;
      this.levelViews = [];
      let w = this.width, h = this.height, tw = L.siz.xtsiz, th = L.siz.ytsiz;
      for (let r = 1; r <= L.levels && (w > 128 || h > 128) && (one || (tw % 2 === 0 && th % 2 === 0)); r++) {
        const v = this.atLevel(r);
        this.levelViews.push(v);
        w = v.width; h = v.height; tw = Math.floor(tw / 2); th = Math.floor(th / 2);
      }
    }
    return this.levelViews;
  }

  private atLevel(r: number): Jp2Dataset {
    const v = new Jp2Dataset(this.source, this.fail);
    const { width, height } = imageSizeAt(this.layout.siz, r);
    const s = this.layout.siz;
    Object.assign(v, {
      fd: this.fd, size: this.size, layout: this.layout, level: r, parent: this,
      width, height, bandCount: this.bandCount, dtype: this.dtype, nodata: this.nodata,
      bandDescriptions: this.bandDescriptions, scales: this.scales, offsets: this.offsets, categoryNames: this.categoryNames,
      blockWidth: Math.min(Math.ceil(s.xtsiz / 2 ** r), width), blockHeight: Math.min(Math.ceil(s.ytsiz / 2 ** r), height),
      geo: overviewGeo(this.geo, this.width, this.height, width, height),
    });
    const tileBytes = v.blockWidth * v.blockHeight * this.bandCount * CTORS[this.dtype].BYTES_PER_ELEMENT;
    v.cacheLimit = Math.max(2, Math.floor(CACHE_BYTES / Math.max(1, tileBytes)));
    return v;
  }

  async init(): Promise<void> {
    try {
      this.fd = fs.openSync(this.source, 'r');
      this.size = fs.fstatSync(this.fd).size;
      this.layout = readJp2Layout(this.fd, this.size);
    } catch (e) {
      await this.close();
      throw this.fail(`${this.source}: not a readable JPEG 2000 file (${(e as Error).message})`);
    }
    const { siz } = this.layout;
    const c0 = siz.comps[0];
    const odd = siz.comps.findIndex((c) => c.dx !== 1 || c.dy !== 1);
    if (odd >= 0) { await this.close(); throw this.fail(`${this.source}: component ${odd + 1} is sub-sampled (${siz.comps[odd].dx}×${siz.comps[odd].dy}), which GeoWeave does not read; convert it with gdal_translate -of GTiff`); }
    if (siz.comps.some((c) => c.bits !== c0.bits || c.signed !== c0.signed)) { await this.close(); throw this.fail(`${this.source}: its components have different sample types; convert it with gdal_translate -of GTiff`); }
    // The WebAssembly OpenJPEG build decodes one or three components (a Sentinel-2 band, a true-colour image);
    // the native one any number (RGBI orthophotos, Pleiades and SPOT multispectral).
    if (siz.comps.length !== 1 && siz.comps.length !== 3 && !nativeJp2()) { await this.close(); throw this.fail(`${this.source}: it has ${siz.comps.length} bands, and GeoWeave's WebAssembly JPEG 2000 decoder reads files of one band or three (install libopenjp2-7-dev and run npm install for the native one, which reads any); or convert it with gdal_translate -of GTiff -co TILED=YES -co COMPRESS=DEFLATE IN OUT.tif`); }
    if (c0.bits > 16) { await this.close(); throw this.fail(`${this.source}: ${c0.bits}-bit samples are more than GeoWeave's JPEG 2000 decoder reads (16); convert it with gdal_translate -of GTiff`); }
    this.width = siz.xsiz - siz.xosiz; this.height = siz.ysiz - siz.yosiz;
    if (this.width > MAX_RASTER_SIDE || this.height > MAX_RASTER_SIDE || this.width * this.height > MAX_RASTER_PIXELS) {
      await this.close();
      throw this.fail(`${this.source}: ${this.width}x${this.height} pixels is larger than GeoWeave processes (at most ${MAX_RASTER_SIDE} on a side and ${MAX_RASTER_PIXELS} pixels); cut a window first (gdal_translate -srcwin)`);
    }
    // A tile is decoded whole: a Sentinel-2 tile is 1024², an untiled 10980² band 120 M samples.
    const tilePixels = Math.min(siz.xtsiz, this.width) * Math.min(siz.ytsiz, this.height) * siz.comps.length;
    if (tilePixels > MAX_TILE_SAMPLES) {
      await this.close();
      throw this.fail(`${this.source}: its codestream tiles are ${siz.xtsiz}x${siz.ytsiz}, more than GeoWeave decodes at once; retile it (gdal_translate -of JP2OpenJPEG -co BLOCKXSIZE=1024 -co BLOCKYSIZE=1024) or convert it to GeoTIFF`);
    }
    this.bandCount = siz.comps.length;
    this.dtype = c0.bits <= 8 ? (c0.signed ? 'int8' : 'uint8') : (c0.signed ? 'int16' : 'uint16');
    // Blocks as the tiles fall on the image: the first may be cut by the image offset, so a block grid
    // with the tile size is only exact when the tile grid starts at the image origin.
    this.blockWidth = Math.min(siz.xtsiz, this.width); this.blockHeight = Math.min(siz.ytsiz, this.height);
    const tileBytes = siz.xtsiz * siz.ytsiz * this.bandCount * CTORS[this.dtype].BYTES_PER_ELEMENT;
    this.cacheLimit = Math.max(2, Math.floor(CACHE_BYTES / Math.max(1, tileBytes)));
    const pam = this.readPamText();
    // GDAL's order for JP2: the PAM sidecar, then GeoJP2, then GMLJP2.
    let geo: GeoInfo | undefined = pam ? this.geoFromPam(pam) : undefined;
    try { if (!geo && this.layout.geoJp2) geo = await geoFromGeoJp2(this.layout.geoJp2); } catch (e) { this.warn(`${this.source}: its GeoJP2 box is unreadable (${(e as Error).message}); GMLJP2 is used if present`); }
    if (!geo && this.layout.gmlXml) geo = geoFromGml(this.layout.gmlXml);
    this.geo = geo ?? { geoTransform: [0, 1, 0, 0, 0, 1], geographic: false, ungeoreferenced: { gcps: [] } };
    this.bandDescriptions = Array(this.bandCount).fill(null);
    this.scales = Array(this.bandCount).fill(1);
    this.offsets = Array(this.bandCount).fill(0);
    if (pam) this.readPamBands(pam);
  }

  private warn(message: string): void { (this.warnings ??= []).push(message); }

  /** `<file>.aux.xml`, where GDAL keeps what a JP2 cannot hold (nodata, scale, and a bare codestream's georeferencing). */
  private readPamText(): string | undefined {
    const aux = `${this.source}.aux.xml`;
    try {
      const st = fs.statSync(aux);
      if (!st.isFile()) return undefined;
      if (st.size > MAX_PAM_BYTES) { this.warn(`${aux}: ${st.size} bytes is too large for a PAM sidecar; it is ignored`); return undefined; }
      return fs.readFileSync(aux, 'utf8');
    } catch { return undefined; }
  }

  /** The sidecar's GeoTransform and SRS (an EPSG CRS: one without a code is left out, with a warning). */
  private geoFromPam(xml: string): GeoInfo | undefined {
    const gt = firstInner(xml, 'GeoTransform')?.split(',').map(Number);
    if (!gt || gt.length !== 6 || gt.some((v) => !Number.isFinite(v)) || gt[1] * gt[5] - gt[2] * gt[4] === 0) return undefined;
    const srs = firstInner(xml, 'SRS')?.replace(/&quot;/g, '"').replace(/&amp;/g, '&').trim();
    const geo: GeoInfo = { geoTransform: gt as GeoInfo['geoTransform'], geographic: false };
    if (srs) {
      try {
        const crs = parseCrs(srs, `${this.source}.aux.xml SRS`);
        if (crs.epsg !== undefined) { geo.epsg = crs.epsg; geo.geographic = crs.geographic; }
        else this.warn(`${this.source}.aux.xml: its SRS has no EPSG code GeoWeave knows, so the raster's CRS is unknown; assign one with gdal_edit.py -a_srs EPSG:XXXX`);
      } catch (e) { this.warn(`${this.source}.aux.xml: ${(e as Error).message}`); }
    }
    return geo;
  }

  /** Nodata, scale, offset, description and category names from the PAM sidecar's bands. */
  private readPamBands(xml: string): void {
    for (const el of elements(xml, 'PAMRasterBand')) {
      const b = Number(/\bband="(\d+)"/.exec(el.attrs)?.[1]) - 1;
      if (!(b >= 0 && b < this.bandCount)) continue;
      const tag = (name: string) => { const t = firstInner(el.inner, name); return t !== undefined && !t.includes('<') ? t.trim() : undefined; };
      const nd = tag('NoDataValue');
      if (nd !== undefined && b === 0) this.nodata = /^[-+]?nan$/i.test(nd) ? NaN : Number.isFinite(Number(nd)) ? Number(nd) : null;
      const sc = Number(tag('Scale')), of = Number(tag('Offset'));
      if (tag('Scale') !== undefined && Number.isFinite(sc)) this.scales[b] = sc;
      if (tag('Offset') !== undefined && Number.isFinite(of)) this.offsets[b] = of;
      const d = tag('Description');
      if (d) this.bandDescriptions[b] = d;
    }
    // From the text already read (readCategoryNames would read the sidecar a second time).
    const names = categoryNamesFromPam(`${this.source}.aux.xml`, xml, this.bandCount, (w) => this.warn(w));
    if (names) this.categoryNames = names;
  }

  /**
   * Decoded tile (tx, ty) of the codestream's tile grid, cached. A miss also starts the tiles after it
   * in row order, one per decoder thread: readers go along rows, and the threads work while the
   * caller copies.
   */
  private tile(tx: number, ty: number, signal?: AbortSignal): Promise<DecodedTile> {
    const key = ty * this.layout.tilesAcross + tx;
    const hit = this.cache.get(key);
    if (hit) { this.cache.delete(key); this.cache.set(key, hit); return hit; }
    const p = this.decode(tx, ty, signal);
    const ahead = Math.min(poolSize(), this.cacheLimit - 2);
    const total = this.layout.tilesAcross * this.layout.tilesDown;
    for (let k = key + 1; k <= key + ahead && k < total; k++) {
      if (!this.cache.has(k)) this.decode(k % this.layout.tilesAcross, Math.floor(k / this.layout.tilesAcross), signal).catch(() => undefined);
    }
    return p;
  }

  private decode(tx: number, ty: number, signal?: AbortSignal): Promise<DecodedTile> {
    const key = ty * this.layout.tilesAcross + tx;
    const p = (async () => {
      const r = tileRect(this.layout.siz, tx, ty, this.level);
      const w = r.x1 - r.x0, h = r.y1 - r.y0;
      if (this.parent?.closed) throw new Jp2Error('the dataset is closed');
      const cs = tileCodestream(this.fd, this.size, this.layout, tx, ty);
      // A tile the codestream leaves out decodes as zeros (as OpenJPEG leaves it in a whole-image decode).
      if (!cs) return { width: w, height: h, components: this.bandCount, bits: 0, signed: false, data: new CTORS[this.dtype](w * h * this.bandCount) as DecodedTile['data'] };
      const t = await decodeTile(cs, signal, this.level, { width: w, height: h });
      if (t.width !== w || t.height !== h || t.components !== this.bandCount) {
        throw new Jp2Error(`tile ${key} decoded to ${t.width}×${t.height}×${t.components}, not ${w}×${h}×${this.bandCount}`);
      }
      return t;
    })();
    p.catch(() => this.cache.delete(key));
    this.cache.set(key, p);
    while (this.cache.size > this.cacheLimit) this.cache.delete(this.cache.keys().next().value as number);
    return p;
  }

  private check(band: number, x: number, y: number, w: number, h: number): void {
    if (this.closed || this.parent?.closed) throw this.fail(`${this.source}: dataset is closed`);
    const problem = windowProblem(this, band, x, y, w, h);
    if (problem) throw this.fail(problem);
  }


  /** Copies bands of a window out of the tiles it touches (each decoded once), raw or converted as readWindow. */
  private async copyWindow(bands: number[], x: number, y: number, w: number, h: number, outs: TypedArray[], float: boolean, signal?: AbortSignal): Promise<void> {
    for (const b of bands) this.check(b, x, y, w, h);
    const { siz, tilesAcross, tilesDown } = this.layout;
    const L = this.level;
    // Image coordinates → tile grid: tiles are anchored on the reference grid, the image starts at (XOsiz, YOsiz).
    const txOf = (ix: number) => tileOf(ix + Math.ceil(siz.xosiz / 2 ** L), siz.xtosiz, siz.xtsiz, L, tilesAcross);
    const tyOf = (iy: number) => tileOf(iy + Math.ceil(siz.yosiz / 2 ** L), siz.ytosiz, siz.ytsiz, L, tilesDown);
    const S = this.bandCount;
    const jobs: Promise<void>[] = [];
    for (let ty = tyOf(y); ty <= tyOf(y + h - 1); ty++) {
      for (let tx = txOf(x); tx <= txOf(x + w - 1); tx++) {
        if (signal?.aborted) throw signal.reason ?? new Error('aborted');
        jobs.push(this.tile(tx, ty, signal).then((t) => {
          if (signal?.aborted) throw signal.reason ?? new Error('aborted');
          const r = tileRect(siz, tx, ty, L);
          const gx0 = Math.max(x, r.x0), gx1 = Math.min(x + w, r.x1), gy0 = Math.max(y, r.y0), gy1 = Math.min(y + h, r.y1);
          const n = gx1 - gx0;
          bands.forEach((band, k) => {
            const out = outs[k], c = band - 1;
            const nd = float && this.nodata !== null && !Number.isNaN(this.nodata) ? this.nodata : null;
            const scale = float ? this.scales[c] : 1, offset = float ? this.offsets[c] : 0;
            for (let gy = gy0; gy < gy1; gy++) {
              const src = ((gy - r.y0) * t.width + (gx0 - r.x0)) * S + c, dst = (gy - y) * w + (gx0 - x);
              if (!float) {
                if (S === 1) out.set(t.data.subarray(src, src + n) as any, dst);
                else for (let i = 0; i < n; i++) out[dst + i] = t.data[src + i * S];
              } else {
                for (let i = 0; i < n; i++) {
                  const v = t.data[src + i * S];
                  out[dst + i] = v === nd ? NaN : v * scale + offset;
                }
              }
            }
          });
        }));
      }
    }
    try {
      await Promise.all(jobs);
    } catch (e) {
      if (signal?.aborted) throw signal.reason ?? e;
      throw this.fail(`${this.source}: cannot decode band${bands.length > 1 ? 's' : ''} ${bands.join(', ')} at x=${x} y=${y} (${(e as Error).message}); the file may be truncated or corrupt`);
    }
  }

  async readWindow(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal): Promise<Float32Array> {
    const out = new Float32Array(w * h);
    await this.copyWindow([band], x, y, w, h, [out], true, signal);
    return out;
  }

  async readWindowRaw(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal, into?: ArrayLike<number>): Promise<TypedArray> {
    const Ctor = CTORS[this.dtype];
    const out = into instanceof Ctor && into.length >= w * h ? (into.length === w * h ? into : (into as TypedArray).subarray(0, w * h)) as TypedArray : new Ctor(w * h);
    await this.copyWindow([band], x, y, w, h, [out], false, signal);
    return out;
  }

  async readWindows(bands: number[], x: number, y: number, w: number, h: number, raw: boolean, signal?: AbortSignal): Promise<TypedArray[]> {
    const outs = bands.map(() => (raw ? new CTORS[this.dtype](w * h) : new Float32Array(w * h)));
    await this.copyWindow(bands, x, y, w, h, outs, !raw, signal);
    return outs;
  }

  reserveTiles(tiles: number): void {
    const tileBytes = this.blockWidth * this.blockHeight * this.bandCount * CTORS[this.dtype].BYTES_PER_ELEMENT;
    this.cacheLimit = Math.max(this.cacheLimit, Math.min(Math.floor((256 << 20) / Math.max(1, tileBytes)), tiles));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.cache.clear();
    for (const v of this.levelViews ?? []) await v.close();
    // A resolution level shares its parent's descriptor.
    if (this.parent) return;
    if (this.fd >= 0) { try { fs.closeSync(this.fd); } catch { /* already closed */ } this.fd = -1; }
  }
}

/**
 * The tile (along one axis) holding reference-grid coordinate `at` of resolution r: the last k whose
 * start, ceil((origin + k·size) / 2^r), is at or before it.
 */
function tileOf(at: number, origin: number, size: number, r: number, count: number): number {
  const start = (k: number) => Math.ceil((origin + k * size) / 2 ** r);
  let k = Math.max(0, Math.min(count - 1, Math.floor((at * 2 ** r - origin) / size)));
  while (k + 1 < count && start(k + 1) <= at) k++;
  while (k > 0 && start(k) > at) k--;
  return k;
}
