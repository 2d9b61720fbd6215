/**
 * A GDAL virtual raster (.vrt) as a RasterDataset: each window is filled as GDAL 3.6 fills it (the
 * band's nodata or 0, then every source in order laid over it: SimpleSource copies, ComplexSource
 * skips its NODATA pixels and scales), through the sources' own readers, so a gdalbuildvrt mosaic
 * or band stack (-separate) of GeoTIFFs, JPEG 2000 bands or other VRTs is read without converting it.
 */
import * as fs from 'node:fs';
import { AsyncLocalStorage } from 'node:async_hooks';
import { overviewGeo, type GeoInfo, type RasterDataset } from '../dataset';
import { CTORS, type DType, type TypedArray } from '../samples';
import { parseVrt, VrtError, MAX_VRT_BYTES, type VrtBand, type VrtSource, type VrtSpec } from './vrt-parse';
import { bestOverview, nearestSteps, srcDstWindow } from './vrt-window';
import { parseCrs } from '../../crs/crs';
import { bandFileOf } from '../../band-files';

/** VRTs read through other VRTs at most this deep (GDAL stops at 32 calls; a file that reads itself stops here). */
export const MAX_VRT_DEPTH = 8;
/** Source files held open at once (a mosaic of thousands of tiles reopens the ones it needs). */
const MAX_OPEN_SOURCES = 64;
/**
 * Source windows read for one window of the outermost VRT, through every level of nesting: VRTs
 * whose sources fan out into VRTs multiply (8 sources of 8 sources … seven deep is 2 million reads).
 */
export const MAX_SOURCE_READS = 100_000;
const readBudget = new AsyncLocalStorage<{ left: number; top: string }>();

type Opener = (file: string, depth: number, signal?: AbortSignal) => Promise<RasterDataset>;

const RANGES: Partial<Record<DType, [number, number]>> = {
  uint8: [0, 255], int8: [-128, 127], uint16: [0, 65535], int16: [-32768, 32767],
  uint32: [0, 4294967295], int32: [-2147483648, 2147483647],
};

/**
 * GDALCopyWords from a floating value to `dtype`: NaN → 0, half away from zero (up for unsigned
 * types), clamped; `f32` when the value is a float32 (GDAL adds 0.5f in single precision then).
 */
export function copyWord(v: number, dtype: DType, f32: boolean): number {
  if (dtype === 'float32') return Math.fround(v);
  if (dtype === 'float64') return v;
  const r = RANGES[dtype];
  if (!r) return v;
  if (Number.isNaN(v)) return 0;
  const add = (a: number, b: number) => (f32 ? Math.fround(a + b) : a + b);
  const x = r[0] === 0 ? add(v, 0.5) : (v >= 0 ? add(v, 0.5) : add(v, -0.5));
  return Math.trunc(Math.min(r[1], Math.max(r[0], x)));
}

const isFloat = (d: DType) => d === 'float32' || d === 'float64';

export class VrtDataset implements RasterDataset {
  width = 0; height = 0; bandCount = 0; blockWidth = 0; blockHeight = 0;
  dtype: DType = 'uint8'; geo!: GeoInfo; nodata: number | null = null;
  bandDescriptions: (string | null)[] = []; scales: number[] = []; offsets: number[] = [];
  warnings?: string[];
  private spec!: VrtSpec;
  /** Bands differ in type or nodata: raw reads are floats with NaN for each band's nodata. */
  private normalized = false;
  private open = new Map<string, { ds: Promise<RasterDataset>; users: number; used: number }>();
  private clock = 0;
  private closed = false;
  /** A reduced view reads every factor-th pixel of `root` (1: the VRT itself). */
  private factor = 1;
  private root: VrtDataset = this;
  private views?: VrtDataset[];
  readonly computedOverviews = true;

  /** `text`: the VRT's XML when it is not (yet) at `source`; relative source paths resolve against `source`'s folder all the same. */
  constructor(readonly source: string, private depth: number, private opener: Opener, private fail: (m: string) => Error, private text?: string) {}

  async init(signal?: AbortSignal): Promise<void> {
    if (this.depth > MAX_VRT_DEPTH) throw this.fail(`${this.source}: VRTs nested more than ${MAX_VRT_DEPTH} deep (does a VRT list itself as a source?)`);
    if (this.text === undefined) {
      const st = await fs.promises.stat(this.source);
      if (st.size > MAX_VRT_BYTES) throw this.fail(`${this.source}: ${st.size} bytes is more than the ${MAX_VRT_BYTES >> 20} MB read as a VRT`);
    }
    let spec: VrtSpec;
    try { spec = parseVrt(this.source, this.text ?? await fs.promises.readFile(this.source, 'utf8')); } catch (e) {
      throw e instanceof VrtError ? this.fail(e.message) : e;
    }
    this.spec = spec;
    this.width = spec.width; this.height = spec.height; this.bandCount = spec.bands.length;
    this.blockWidth = spec.blockWidth ?? Math.min(spec.width, 512);
    this.blockHeight = spec.blockHeight ?? Math.min(spec.height, 512);
    // A band stacked from one product's band file (gdalbuildvrt -separate …_B04.jp2 …_B08.jp2) has no
    // description; its file's role ("red") is what the index tools look bands up by.
    this.bandDescriptions = spec.bands.map((b) => b.description ?? roleOfSources(b));
    this.scales = spec.bands.map((b) => b.scale);
    this.offsets = spec.bands.map((b) => b.offset);
    const b0 = spec.bands[0];
    const sameNodata = (a: number | null, b: number | null) => a === b || (a !== null && b !== null && Number.isNaN(a) && Number.isNaN(b));
    this.normalized = spec.bands.some((b) => b.dtype !== b0.dtype || !sameNodata(b.nodata, b0.nodata));
    if (this.normalized) {
      this.dtype = spec.bands.some((b) => b.dtype === 'float64' || b.dtype === 'int32' || b.dtype === 'uint32') ? 'float64' : 'float32';
      this.nodata = spec.bands.some((b) => b.nodata !== null) ? NaN : null;
    } else {
      this.dtype = b0.dtype; this.nodata = b0.nodata;
    }
    if (spec.warnings.length) this.warnings = [...spec.warnings];
    this.geo = await this.georef(signal);
    await this.describeFromSources(signal);
  }

  /**
   * gdalbuildvrt copies no band descriptions: a band without one takes its first source's ("red",
   * "nir"), so a mosaic of scenes finds its bands by role as each scene does. A source that does not
   * open leaves it unnamed (reading it names the file).
   */
  private async describeFromSources(signal?: AbortSignal): Promise<void> {
    for (const [i, b] of this.spec.bands.entries()) {
      const s = b.sources[0];
      if (this.bandDescriptions[i] !== null || !s) continue;
      try {
        const ds = await this.acquire(s.file, signal);
        try { this.bandDescriptions[i] = ds.bandDescriptions[s.band - 1] ?? null; } finally { this.release(s.file); }
      } catch { /* named when read */ }
    }
  }

  private async georef(signal?: AbortSignal): Promise<GeoInfo> {
    const gt = this.spec.geoTransform;
    if (!gt) return { geoTransform: [0, 1, 0, 0, 0, 1], geographic: false, ungeoreferenced: { gcps: [] } };
    const geo: GeoInfo = { geoTransform: [...gt] as GeoInfo['geoTransform'], geographic: false };
    if (!this.spec.srs) return geo;
    let crs;
    try { crs = parseCrs(this.spec.srs, `${this.source} <SRS>`); } catch (e) { throw this.fail((e as Error).message); }
    geo.geographic = crs.geographic;
    if (crs.epsg !== undefined) { geo.epsg = crs.epsg; return geo; }
    // No EPSG code in the WKT: gdalbuildvrt copies its sources' CRS, so the first source's GeoKeys say it as the file did.
    const first = this.spec.bands.flatMap((b) => b.sources)[0];
    if (first) {
      const ds = await this.acquire(first.file, signal);
      try {
        if (ds.geo.keys) geo.keys = ds.geo.keys;
        if (ds.geo.wkt) geo.wkt = ds.geo.wkt;
      } finally { this.release(first.file); }
    }
    return geo;
  }

  /**
   * Reduced views at 2, 4, 8… (down to about 128 pixels a side), each read as GDAL reads a VRT into a
   * smaller buffer: every source resamples its part by nearest neighbour from the source's overview
   * GDAL would pick, so a quicklook of a mosaic of Sentinel-2 tiles reads their resolution levels.
   */
  async overviews(): Promise<RasterDataset[]> {
    if (this.root !== this) return [];
    if (this.closed) throw this.fail(`${this.source}: dataset is closed`);
    if (!this.views) {
      this.views = [];
      for (let f = 2; Math.ceil(this.width / (f / 2)) > 128 || Math.ceil(this.height / (f / 2)) > 128; f *= 2) {
        const w = Math.ceil(this.width / f), h = Math.ceil(this.height / f);
        if (w < 1 || h < 1) break;
        const v = Object.create(VrtDataset.prototype) as VrtDataset;
        Object.assign(v, this, {
          factor: f, root: this, views: undefined, width: w, height: h,
          blockWidth: Math.min(w, this.blockWidth), blockHeight: Math.min(h, this.blockHeight),
          geo: overviewGeo(this.geo, this.width, this.height, w, h),
          bandDescriptions: this.bandDescriptions,
        });
        this.views.push(v);
      }
    }
    return this.views;
  }

  private async acquire(file: string, signal?: AbortSignal): Promise<RasterDataset> {
    if (this.root !== this) return this.root.acquire(file, signal);
    if (this.closed) throw this.fail(`${this.source}: dataset is closed`);
    let e = this.open.get(file);
    if (!e) {
      const ds = this.opener(file, this.depth + 1, signal).catch((err: Error) => {
        this.open.delete(file);
        throw this.fail(`${this.source}: its source ${file} cannot be read: ${err.message}`);
      });
      e = { ds, users: 0, used: 0 };
      this.open.set(file, e);
      this.evict();
    }
    e.users++; e.used = ++this.clock;
    return e.ds;
  }

  private release(file: string): void {
    if (this.root !== this) { this.root.release(file); return; }
    const e = this.open.get(file);
    if (e) e.users--;
  }

  private evict(): void {
    if (this.open.size <= MAX_OPEN_SOURCES) return;
    const idle = [...this.open.entries()].filter(([, e]) => e.users === 0).sort((a, b) => a[1].used - b[1].used);
    for (const [file, e] of idle) {
      if (this.open.size <= MAX_OPEN_SOURCES) break;
      this.open.delete(file);
      void e.ds.then((d) => d.close(), () => undefined);
    }
  }

  private check(band: number, x: number, y: number, w: number, h: number): void {
    if (this.closed || this.root.closed) throw this.fail(`${this.source}: dataset is closed`);
    if (!(Number.isInteger(band) && band >= 1 && band <= this.bandCount)) throw this.fail(`${this.source}: band ${band} does not exist (${this.bandCount} band${this.bandCount === 1 ? '' : 's'})`);
    if (!(Number.isInteger(x) && Number.isInteger(y) && Number.isInteger(w) && Number.isInteger(h) && w > 0 && h > 0 && x >= 0 && y >= 0 && x + w <= this.width && y + h <= this.height)) {
      throw this.fail(`${this.source}: window ${x},${y} ${w}x${h} is outside the ${this.width}x${this.height} raster`);
    }
  }

  /** One band's window in the band's own type, as GDAL's VRTSourcedRasterBand::IRasterIO fills it. */
  private readBand(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal): Promise<TypedArray> {
    // One budget for the outermost read and every VRT it reads through.
    if (!readBudget.getStore()) return readBudget.run({ left: MAX_SOURCE_READS, top: this.source }, () => this.readBand(band, x, y, w, h, signal));
    const f = this.factor;
    if (f === 1) return this.fillBand(band, x, y, w, h, w, h, signal);
    // A reduced view: the VRT window under the view's pixels, read into a buffer of the view's size.
    const W = this.root.width, H = this.root.height;
    const x0 = x * f, y0 = y * f;
    return this.fillBand(band, x0, y0, Math.min(W, (x + w) * f) - x0, Math.min(H, (y + h) * f) - y0, w, h, signal);
  }

  /**
   * A window of w×h VRT pixels at (x, y) into a bw×bh buffer (smaller when reading a reduced view),
   * as VRTSourcedRasterBand::IRasterIO does: each source resamples into its part of the buffer.
   */
  private async fillBand(band: number, x: number, y: number, w: number, h: number, bw: number, bh: number, signal?: AbortSignal): Promise<TypedArray> {
    const b = this.spec.bands[band - 1];
    const out = new CTORS[b.dtype](bw * bh);
    if (b.nodata !== null && b.nodata !== 0) out.fill(copyWord(b.nodata, b.dtype, false));
    const budget = readBudget.getStore()!;
    for (const s of b.sources) {
      signal?.throwIfAborted();
      // A source whose destination misses the window is not opened (a mosaic of thousands of tiles).
      if (s.dst && (x >= s.dst.x + s.dst.w || y >= s.dst.y + s.dst.h || x + w <= s.dst.x || y + h <= s.dst.y)) continue;
      if (--budget.left < 0) {
        throw this.fail(`${budget.top}: reading one window takes more than ${MAX_SOURCE_READS} source windows (VRTs whose sources are VRTs of many sources); build the mosaic from the files themselves`);
      }
      try {
        await this.overlay(b, s, out, x, y, w, h, bw, bh, signal);
      } catch (e) {
        const err = e as Error;
        if (err?.name === 'AbortError' || signal?.aborted || String(err?.message).startsWith(`${this.source}:`)) throw e;
        throw this.fail(`${this.source}: reading its source ${s.file} failed: ${err?.message ?? err}`);
      }
    }
    return out;
  }

  private async overlay(b: VrtBand, s: VrtSource, out: TypedArray, x: number, y: number, w: number, h: number, bw: number, bh: number, signal?: AbortSignal): Promise<void> {
    const ds = await this.acquire(s.file, signal);
    try {
      if (s.band > ds.bandCount) throw this.fail(`${this.source}: a source reads band ${s.band} of ${s.file}, which has ${ds.bandCount} band${ds.bandCount === 1 ? '' : 's'}`);
      if (s.size && (s.size.width !== ds.width || s.size.height !== ds.height)) {
        throw this.fail(`${this.source}: it says ${s.file} is ${s.size.width}x${s.size.height}, but the file is ${ds.width}x${ds.height} (was it replaced? build the VRT again)`);
      }
      const full = { x: 0, y: 0, w: ds.width, h: ds.height };
      const win = srcDstWindow(s.src ?? full, s.dst ?? full, ds.width, ds.height, x, y, w, h, bw, bh);
      if (!win) return;
      let rd: RasterDataset = ds, rw = win;
      if (win.outW < win.reqW || win.outH < win.reqH) {
        const ovs = await ds.overviews?.(signal) ?? [];
        const pick = bestOverview(win, ds.width, ds.height, ovs);
        if (pick) { rd = ovs[pick.index]; rw = pick.window; }
      }
      const { cols, rows } = nearestSteps(rw, rd.width, rd.height);
      let c0 = Infinity, c1 = -1, r0 = Infinity, r1 = -1;
      for (const c of cols) { if (c < c0) c0 = c; if (c > c1) c1 = c; }
      for (const r of rows) { if (r < r0) r0 = r; if (r > r1) r1 = r; }
      const cw = c1 - c0 + 1;
      const raw = await rd.readWindowRaw(s.band, c0, r0, cw, r1 - r0 + 1, signal);
      const complex = s.nodata !== undefined || s.useMask || s.scaleRatio !== 1 || s.scaleOffset !== 0;
      const srcFloat32 = ds.dtype === 'float32';
      if (!complex) {
        // SimpleSource: the source's samples converted to the band's type (GDALCopyWords).
        const same = ds.dtype === b.dtype || (!isFloat(b.dtype) && !isFloat(ds.dtype) && fits(ds.dtype, b.dtype));
        for (let j = 0; j < rw.outH; j++) {
          const so = (rows[j] - r0) * cw - c0, d = (rw.outY + j) * bw + rw.outX;
          if (same) for (let i = 0; i < rw.outW; i++) out[d + i] = raw[so + cols[i]];
          else for (let i = 0; i < rw.outW; i++) out[d + i] = copyWord(raw[so + cols[i]], b.dtype, srcFloat32);
        }
        return;
      }
      // ComplexSource: values in a float32 working type (float64 for 32-bit integer and float64 bands).
      const wide = b.dtype === 'int32' || b.dtype === 'uint32' || b.dtype === 'float64';
      const work = (v: number) => (wide ? v : Math.fround(v));
      let nd: number | undefined = s.nodata;
      if (nd === undefined && s.useMask && ds.nodata !== null) nd = ds.nodata;
      if (nd !== undefined && !Number.isNaN(nd) && !wide && Math.abs(nd) > 3.4028234663852886e38) nd = undefined;
      const ndW = nd === undefined ? undefined : work(nd);
      const ndNaN = ndW !== undefined && Number.isNaN(ndW);
      const linear = s.scaleRatio !== 1 || s.scaleOffset !== 0;
      for (let j = 0; j < rw.outH; j++) {
        const so = (rows[j] - r0) * cw - c0, d = (rw.outY + j) * bw + rw.outX;
        for (let i = 0; i < rw.outW; i++) {
          let f = work(raw[so + cols[i]]);
          if (ndNaN ? Number.isNaN(f) : (ndW !== undefined && realEqual(f, ndW))) continue;
          if (linear) f = work(f * s.scaleRatio + s.scaleOffset);
          out[d + i] = b.dtype === 'uint8' ? Math.trunc(Math.min(255, Math.max(0, Math.fround(f + 0.5)))) || 0 : copyWord(f, b.dtype, !wide);
        }
      }
    } finally {
      this.release(s.file);
    }
  }

  async readWindowRaw(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal, into?: ArrayLike<number>): Promise<TypedArray> {
    this.check(band, x, y, w, h);
    const data = await this.readBand(band, x, y, w, h, signal);
    const raw = this.normalized ? this.asFloat(band, data) : data;
    const Ctor = CTORS[this.dtype];
    if (into instanceof Ctor && into.length >= w * h) { (into as TypedArray).set(raw); return into.length === w * h ? into as TypedArray : (into as TypedArray).subarray(0, w * h); }
    return raw;
  }

  /** A band's samples as floats of the dataset's type, the band's nodata as NaN (bands that differ in type or nodata). */
  private asFloat(band: number, data: TypedArray): TypedArray {
    const nd = this.spec.bands[band - 1].nodata;
    const out = new CTORS[this.dtype](data.length);
    for (let i = 0; i < data.length; i++) { const v = data[i]; out[i] = nd !== null && (v === nd || (Number.isNaN(nd) && Number.isNaN(v))) ? NaN : v; }
    return out;
  }

  async readWindow(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal): Promise<Float32Array> {
    this.check(band, x, y, w, h);
    const data = await this.readBand(band, x, y, w, h, signal);
    const b = this.spec.bands[band - 1];
    const nd = b.nodata === null ? null : b.dtype === 'float32' ? Math.fround(b.nodata) : b.nodata;
    const out = new Float32Array(data.length);
    const plain = b.scale === 1 && b.offset === 0;
    for (let i = 0; i < data.length; i++) {
      const v = data[i];
      out[i] = Number.isNaN(v) || (nd !== null && v === nd) ? NaN : plain ? v : v * b.scale + b.offset;
    }
    return out;
  }

  async readWindows(bands: number[], x: number, y: number, w: number, h: number, raw: boolean, signal?: AbortSignal): Promise<TypedArray[]> {
    const outs: TypedArray[] = [];
    for (const b of bands) outs.push(raw ? await this.readWindowRaw(b, x, y, w, h, signal) : await this.readWindow(b, x, y, w, h, signal));
    return outs;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // A view shares its VRT's open sources; closing the VRT closes them.
    if (this.root !== this) return;
    const all = [...this.open.values()];
    this.open.clear();
    await Promise.all(all.map((e) => e.ds.then((d) => d.close(), () => undefined)));
  }
}

/** The band role every source of `b` names in its file name (first band of a band file), if they agree. */
function roleOfSources(b: VrtBand): string | null {
  const roles = new Set(b.sources.map((s) => (s.band === 1 ? bandFileOf(s.file)?.role : undefined)));
  const [r] = roles;
  return roles.size === 1 && r ? r : null;
}

/** Whether every value of integer type `a` fits integer type `b` (copied without clamping). */
function fits(a: DType, b: DType): boolean {
  const ra = RANGES[a], rb = RANGES[b];
  return !!ra && !!rb && ra[0] >= rb[0] && ra[1] <= rb[1];
}

/** GDAL 3.6's ARE_REAL_EQUAL (equal within 2 float32 epsilons of their magnitude). */
const FLT_EPSILON = 1.1920928955078125e-7;
function realEqual(a: number, b: number): boolean {
  return a === b || Math.abs(a - b) < FLT_EPSILON * Math.abs(a + b) * 2;
}
