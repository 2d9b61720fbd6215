/**
 * Warping a raster onto another grid (another resolution, another CRS, or another raster's grid):
 * where each destination pixel falls in the source, which source window a strip needs, and the
 * streamed write. The kernels themselves are in ../algorithms/warp.ts.
 */
import type { GeoInfo, RasterDataset } from '../io/dataset';
import type { WriteSpec } from '../io/writer';
import type { GeoTransform } from '../algorithms/vectorize';
import { invertGeoTransform } from '../algorithms/zonal';
import { Crs, CrsTransform, crsOfGeo, transformer, CrsError, sameCrs } from '../crs/crs';
import { proj4ToGeoKeys } from '../crs/keys-from-proj4';
import { geoKeysToProj4 } from '../crs/geokeys';
import { KERNEL_RADIUS, WarpMethod, averageFootprints, kernelScale, warpPoints, SourceWindow, SeparableKernel, separableRow } from '../algorithms/warp';
import { StatsAccumulator } from '../stats';
// spatial-tools imports this module too (resample): both names are used only at call time.
import { classLegend, writableType, writeStrips } from './spatial-tools';
import type { ToolContext } from './types';

/** The grid a warp writes: size, geotransform, and the georeferencing written with it. */
export interface TargetGrid { width: number; height: number; geo: GeoInfo; crs: Crs | undefined }

/** Pixel size along each axis of a (possibly rotated) geotransform. */
export function pixelSizes(gt: readonly number[]): [number, number] {
  return [Math.hypot(gt[1], gt[4]), Math.hypot(gt[2], gt[5])];
}

/** GeoInfo for writing a grid in `crs`: its EPSG code, or the keys of the raster it came from. */
export function geoFor(crs: Crs, gt: GeoTransform, what: string): GeoInfo {
  if (crs.epsg !== undefined) return { epsg: crs.epsg, geographic: crs.geographic, geoTransform: gt };
  if (crs.keys) return { geographic: crs.geographic, geoTransform: gt, keys: crs.keys };
  // A proj4 string: user-defined GeoTIFF keys, kept only when they read back as the same CRS.
  const keys = crs.def.startsWith('+') ? proj4ToGeoKeys(crs.def, 'GeoWeave user-defined CRS') : undefined;
  const back = keys ? geoKeysToProj4(keys) : undefined;
  if (keys && back && 'def' in back && sameCrs(crs, { def: back.def, label: '', geographic: crs.geographic })) {
    return { geographic: crs.geographic, geoTransform: gt, keys };
  }
  throw new CrsError(`${what}: ${crs.label} has no EPSG code and is not a projection GeoWeave writes as GeoTIFF keys (transverse Mercator, Mercator, Lambert conformal conic, Lambert azimuthal equal-area, Albers, equirectangular, sinusoidal, cylindrical equal-area, lon/lat; metres; WGS84 or an ellipsoid with +towgs84); give an EPSG code, or use align with a reference raster in that CRS`);
}

/** Maps destination pixel positions to source pixel positions (exact affine, or through a CRS transform). */
export class PixelMapper {
  private readonly toSrc: (X: number, Y: number) => [number, number];
  private readonly t: CrsTransform | null;
  /** `tol`: how far (source pixels) interpolated positions may stray from exact ones. */
  constructor(private readonly dst: GeoTransform, src: GeoTransform, t: CrsTransform | null, private readonly tol = 1e-3) {
    this.toSrc = invertGeoTransform(src);
    this.t = t && !t.identity ? t : null;
  }

  get affine(): boolean { return this.t === null; }

  /** Source pixel position of destination pixel position (px, py); NaN when the transform fails. */
  exact(px: number, py: number): [number, number] {
    const g = this.dst;
    let X = g[0] + px * g[1] + py * g[2], Y = g[3] + px * g[4] + py * g[5];
    if (this.t) {
      const p = this.t.forward(X, Y);
      X = p[0]; Y = p[1];
      if (!Number.isFinite(X) || !Number.isFinite(Y)) return [NaN, NaN];
    }
    return this.toSrc(X, Y);
  }

  /**
   * Positions of destination points (x + dx, y) for x = 0..n-1 into out[2k], out[2k+1] from `at`.
   * Through a CRS transform, points are computed exactly every 16 columns and interpolated between
   * when the midpoint agrees within `tol` pixels (else every point of the span is computed).
   */
  row(y: number, dx: number, n: number, out: Float64Array, at: number): void {
    if (!this.t) {
      const [ax, ay] = this.exact(dx, y), [bx, by] = this.exact(dx + 1, y);
      const sx = bx - ax, sy = by - ay;
      for (let k = 0; k < n; k++) { out[at + 2 * k] = ax + k * sx; out[at + 2 * k + 1] = ay + k * sy; }
      return;
    }
    // As gdalwarp's approximate transformer, but to `tol` (1e-3 px; 1e-6 for nearest) instead of 0.125 px:
    // both ends exact, then a span is interpolated when its midpoint and quarter points agree with the
    // exact positions within tol, else it is halved. A projection is smooth along a row, so a whole row
    // usually takes 3-5 exact transforms (a fixed exact point every 16 columns took 1/8 of the pixels).
    const [px, py] = this.exact(dx, y);
    out[at] = px; out[at + 1] = py;
    if (n === 1) return;
    const [qx, qy] = this.exact(dx + n - 1, y);
    out[at + 2 * (n - 1)] = qx; out[at + 2 * (n - 1) + 1] = qy;
    this.span(y, dx, 0, n - 1, out, at);
  }

  /** Fills points a+1..b-1 of a row whose points a and b are set (see row). */
  private span(y: number, dx: number, a: number, b: number, out: Float64Array, at: number): void {
    if (b - a <= 1) return;
    const px = out[at + 2 * a], py = out[at + 2 * a + 1], qx = out[at + 2 * b], qy = out[at + 2 * b + 1];
    const m = (a + b) >> 1;
    const [mx, my] = this.exact(m + dx, y);
    out[at + 2 * m] = mx; out[at + 2 * m + 1] = my;
    const tol = this.tol;
    const near = (k: number, ex: number, ey: number) => {
      const f = (k - a) / (b - a);
      return Math.abs(px + f * (qx - px) - ex) < tol && Math.abs(py + f * (qy - py) - ey) < tol;
    };
    let linear = Number.isFinite(px) && Number.isFinite(qx) && Number.isFinite(py) && Number.isFinite(qy) && near(m, mx, my);
    if (linear && b - a >= 8) {
      const q1 = (a + m) >> 1, q3 = (m + b) >> 1;
      const [ax, ay] = this.exact(q1 + dx, y), [bx, by] = this.exact(q3 + dx, y);
      linear = near(q1, ax, ay) && near(q3, bx, by);
    }
    if (!linear) {
      this.span(y, dx, a, m, out, at);
      this.span(y, dx, m, b, out, at);
      return;
    }
    for (let k = a + 1; k < b; k++) {
      if (k === m) continue;
      const f = (k - a) / (b - a);
      out[at + 2 * k] = px + f * (qx - px); out[at + 2 * k + 1] = py + f * (qy - py);
    }
  }
}

/** The CRS transform from a destination grid's CRS to a source raster's, or null when both are the same (or neither names one). */
export function gridTransform(src: RasterDataset, dstCrs: Crs | undefined, what: string): CrsTransform | null {
  const srcCrs = crsOfGeo(src.geo, src.source);
  if (!dstCrs || !srcCrs) {
    if (dstCrs && !srcCrs) throw new CrsError(`${what}: ${src.source} names no CRS, so it cannot be placed on a grid in ${dstCrs.label}; assign its CRS (gdal_edit.py -a_srs) first`);
    return null;
  }
  const t = transformer(dstCrs, srcCrs);
  return t.identity ? null : t;
}

/**
 * GDAL's kernel scales (destination pixels per source pixel) for warping `src` onto `dst`: the
 * destination size over the source window its outline covers (gdalwarp's ComputeSourceWindow,
 * one chunk), before kernelScale's snapping.
 */
export function warpScales(src: RasterDataset, dst: TargetGrid, mapper: PixelMapper, radius: number): [number, number] {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  const n = 21;
  const visit = (px: number, py: number) => {
    const [x, y] = mapper.exact(px, py);
    if (!Number.isFinite(x) || !Number.isFinite(y)) return;
    x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
  };
  for (let i = 0; i < n; i++) {
    const f = i / (n - 1);
    visit(dst.width * f, 0); visit(dst.width * f, dst.height); visit(0, dst.height * f); visit(dst.width, dst.height * f);
  }
  if (!(x1 > x0 && y1 > y0)) return [1, 1];
  const axis = (lo: number, hi: number, size: number, dstSize: number) => {
    const s0 = Math.max(1e-3, dstSize / (hi - lo));
    const r = s0 < 0.95 ? Math.ceil(radius / s0) : radius;
    const off = Math.max(0, Math.floor(lo) - r);
    const raw = Math.max(0, Math.min(size - off, hi - lo));
    return kernelScale(raw > 0 ? dstSize / raw : 1);
  };
  return [axis(x0, x1, src.width, dst.width), axis(y0, y1, src.height, dst.height)];
}

/** Source types whose samples float32 holds exactly (the warp's source rows are kept as float32 then). */
const EXACT_IN_FLOAT32 = new Set(['uint8', 'int8', 'uint16', 'int16', 'float32']);

/**
 * The source rows the warp's passes read, per band, kept between passes: consecutive passes of a rotated
 * or reprojected grid need windows that overlap by most of their height (a 64-row pass of a grid turned by
 * a few degrees spans hundreds of source rows), so only the rows not held yet are read. Values are the raw
 * samples with nodata (and NaN) as NaN, in float32 when that is exact (half the bytes), else float64.
 * Columns are those of the first window, widened (and the rows read again) when a pass needs more.
 */
class SourceRows {
  private data: Float32Array | Float64Array = new Float32Array(0);
  private y0 = 0; private rows = 0; private x0 = 0; private w = 0;
  private readonly f32: boolean;
  private readonly nd: number | null;
  constructor(private readonly ds: RasterDataset, private readonly band: number, private readonly signal: AbortSignal) {
    this.f32 = EXACT_IN_FLOAT32.has(ds.dtype);
    this.nd = ds.nodata === null ? null : ds.dtype === 'float32' ? Math.fround(ds.nodata) : ds.nodata;
  }

  /** A window holding rows [wy, wy + wh) and columns [wx, wx + ww) of the band. */
  async window(wx: number, wy: number, ww: number, wh: number): Promise<SourceWindow> {
    const ds = this.ds;
    if (wx < this.x0 || wx + ww > this.x0 + this.w) { this.rows = 0; this.x0 = wx; this.w = ww; }
    const have0 = this.y0, have1 = this.y0 + this.rows;
    if (!(wy >= have0 && wy + wh <= have1)) {
      // Read ahead by half a window: the next pass starts lower and needs a little more.
      const want1 = Math.min(ds.height, wy + wh + Math.max(16, wh >> 1));
      const need = want1 - wy;
      const W = this.w;
      let keep0 = Math.max(wy, have0), keep1 = Math.min(want1, have1);
      if (keep1 <= keep0) { keep0 = wy; keep1 = wy; }
      if (this.data.length < need * W || keep0 > wy) {
        const next = this.f32 ? new Float32Array(need * W) : new Float64Array(need * W);
        if (keep1 > keep0) next.set(this.data.subarray((keep0 - have0) * W, (keep1 - have0) * W), (keep0 - wy) * W);
        this.data = next;
      } else if (keep1 > keep0) {
        this.data.copyWithin((keep0 - wy) * W, (keep0 - have0) * W, (keep1 - have0) * W);
      }
      this.y0 = wy; this.rows = need;
      if (keep0 > wy) await this.fill(wy, keep0);
      if (want1 > keep1) await this.fill(Math.max(keep1, wy), want1);
    }
    return { data: this.data, x0: this.x0, y0: this.y0, w: this.w, h: this.rows, fullW: ds.width, fullH: ds.height };
  }

  /** Reads rows [a, b) into the buffer (raw samples, nodata → NaN). */
  private async fill(a: number, b: number): Promise<void> {
    const raw = await this.ds.readWindowRaw(this.band, this.x0, a, this.w, b - a, this.signal);
    const out = this.data, off = (a - this.y0) * this.w, nd = this.nd;
    if (nd === null || nd !== nd) out.set(raw as ArrayLike<number>, off);
    else nodataToNaN(raw, out, off, nd);
  }
}

/** raw → out from `off`, samples equal to nd as NaN (a function of its own: a tight loop over locals). */
function nodataToNaN(raw: ArrayLike<number>, out: Float32Array | Float64Array, off: number, nd: number): void {
  const n = raw.length;
  for (let i = 0; i < n; i++) { const v = raw[i]; out[off + i] = v === nd ? NaN : v; }
}

/** Rows per warp pass: the source window of a strip stays within a few tens of MB. */
const PASS_ROWS = 64;

export interface WarpResult { acc: StatsAccumulator; xScale: number; yScale: number; spec: WriteSpec }

/** Warps every band of `src` onto `dst` with `method` and writes `out`. */
export async function warpRaster(ctx: ToolContext, src: RasterDataset, dst: TargetGrid, method: WarpMethod, out: string, what: string): Promise<WarpResult> {
  // Nearest picks one pixel: positions exact (to 1e-6 pixel) so it picks the pixel gdalwarp -et 0 picks;
  // the interpolating kernels change by at most a thousandth of a pixel's gradient at 1e-3.
  const tol = method === 'nearest' ? 1e-6 : 1e-3;
  const mapper = new PixelMapper(dst.geo.geoTransform, src.geo.geoTransform, gridTransform(src, dst.crs, what), tol);
  const [xScale, yScale] = warpScales(src, dst, mapper, KERNEL_RADIUS[method]);
  const continuous = method !== 'nearest';
  const spec: WriteSpec = {
    width: dst.width, height: dst.height, bands: src.bandCount, dtype: continuous ? 'float32' : writableType(src.dtype), geo: dst.geo,
    nodata: src.nodata ?? (continuous || writableType(src.dtype) === 'float32' ? -9999 : null), descriptions: src.bandDescriptions.map((d) => d ?? ''), scales: src.scales, offsets: src.offsets,
    ...(continuous ? {} : classLegend(src, writableType(src.dtype))),
  };
  const W = dst.width;
  const northUp = (g: readonly number[]) => g[2] === 0 && g[4] === 0;
  if ((method === 'bilinear' || method === 'cubic') && !(xScale >= 0.95 && yScale >= 0.95) && mapper.affine
    && northUp(dst.geo.geoTransform) && northUp(src.geo.geoTransform)) {
    const acc = await writeStrips(ctx, out, spec, separableFill(ctx, src, mapper, W, method, xScale, yScale));
    return { acc, xScale, yScale, spec };
  }
  const radius = Math.ceil(KERNEL_RADIUS[method] / Math.min(1, xScale, yScale)) + 2;
  // Positions of the strip being written, kept for the other bands.
  let cacheY = -1;
  let passes: { r0: number; rows: number; pos: Float64Array; win: [number, number, number, number] | null }[] = [];
  const posPool: Float64Array[] = [];
  const plan = (y0: number, h: number) => {
    passes = [];
    for (let r0 = y0; r0 < y0 + h; r0 += PASS_ROWS) {
      const rows = Math.min(PASS_ROWS, y0 + h - r0);
      const per = method === 'average' ? 4 : 2;
      // Position buffers reused from strip to strip (bands of a strip share them).
      const k = passes.length;
      if (!posPool[k]) posPool[k] = new Float64Array(W * PASS_ROWS * per);
      const pos = posPool[k].subarray(0, W * rows * per);
      if (method === 'average') {
        // Footprints from the pixel's top-left and bottom-right corners (as GDAL's average).
        const tl = new Float64Array(2 * (W + 1)), br = new Float64Array(2 * (W + 1));
        for (let r = 0; r < rows; r++) {
          mapper.row(r0 + r, 0, W + 1, tl, 0);
          mapper.row(r0 + r + 1, 0, W + 1, br, 0);
          for (let x = 0; x < W; x++) {
            const o = (r * W + x) * 4;
            const ax = tl[2 * x], ay = tl[2 * x + 1], bx = br[2 * x + 2], by = br[2 * x + 3];
            pos[o] = Math.min(ax, bx); pos[o + 1] = Math.min(ay, by); pos[o + 2] = Math.max(ax, bx); pos[o + 3] = Math.max(ay, by);
          }
        }
      } else {
        for (let r = 0; r < rows; r++) mapper.row(r0 + r + 0.5, 0.5, W, pos, r * W * 2);
      }
      let x0 = Infinity, yy0 = Infinity, x1 = -Infinity, yy1 = -Infinity;
      for (let i = 0; i < pos.length; i += 2) {
        const x = pos[i], y = pos[i + 1];
        if (x === x && y === y) { if (x < x0) x0 = x; if (x > x1) x1 = x; if (y < yy0) yy0 = y; if (y > yy1) yy1 = y; }
      }
      const wx0 = Math.max(0, Math.floor(x0) - radius), wx1 = Math.min(src.width, Math.ceil(x1) + radius + 1);
      const wy0 = Math.max(0, Math.floor(yy0) - radius), wy1 = Math.min(src.height, Math.ceil(yy1) + radius + 1);
      passes.push({ r0, rows, pos, win: wx1 > wx0 && wy1 > wy0 ? [wx0, wy0, wx1 - wx0, wy1 - wy0] : null });
    }
  };
  // The columns every pass may read (the outline's, with the kernel's radius): one width for the row buffers.
  let cx0 = Infinity, cx1 = -Infinity;
  {
    const n = 41;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const [x] = mapper.exact((dst.width * i) / (n - 1), (dst.height * j) / (n - 1));
        if (Number.isFinite(x)) { cx0 = Math.min(cx0, x); cx1 = Math.max(cx1, x); }
      }
    }
  }
  const colLo = Number.isFinite(cx0) ? Math.max(0, Math.floor(cx0) - radius - 8) : 0;
  const colHi = Number.isFinite(cx1) ? Math.min(src.width, Math.ceil(cx1) + radius + 9) : src.width;
  const sources = new Map<number, SourceRows>();
  const acc = await writeStrips(ctx, out, spec, async (band, y0, h) => {
    if (y0 !== cacheY) { plan(y0, h); cacheY = y0; }
    // Float32 outputs get float32 strips (the values written; no float64 strip to convert).
    const res = spec.dtype === 'float32' ? new Float32Array(W * h).fill(NaN) : new Float64Array(W * h).fill(NaN);
    let rows = sources.get(band);
    if (!rows) { rows = new SourceRows(src, band, ctx.signal); sources.set(band, rows); }
    for (const p of passes) {
      if (!p.win) continue;
      const [wx, wy, ww, wh] = p.win;
      const a = Math.min(wx, colLo), b = Math.max(wx + ww, colHi);
      const s = await rows.window(a, wy, b - a, wh);
      const n = W * p.rows;
      const dstRows = res.subarray((p.r0 - y0) * W, (p.r0 - y0) * W + n);
      if (method === 'average') averageFootprints(s, p.pos, n, dstRows);
      else warpPoints(s, p.pos, n, { method, xScale, yScale }, dstRows);
    }
    return res;
  });
  return { acc, xScale, yScale, spec };
}

/** Source rows read at a time by the separable warp (never across a tile row: each tile is decoded once). */
const CHUNK_ROWS = 128;

/**
 * The strip filler of the separable warp (a north-up grid resampled onto a north-up grid): per band, a
 * ring of horizontal sums of the source rows the current destination row's taps need, filled from
 * source chunks read forward (raw samples, no float64 window), so each source row is summed once and
 * each destination row is a few vector multiply-adds. Values as warpPoints gives them (see
 * SeparableKernel); strips come back as float32, the output's type.
 */
function separableFill(ctx: ToolContext, src: RasterDataset, mapper: PixelMapper, W: number, method: 'bilinear' | 'cubic', xScale: number, yScale: number): (band: number, y0: number, h: number) => Promise<Float32Array> {
  const xy = new Float64Array(2 * W);
  mapper.row(0.5, 0.5, W, xy, 0);
  const xs = new Float64Array(W);
  for (let x = 0; x < W; x++) xs[x] = xy[2 * x];
  const k = new SeparableKernel(xs, src.width, src.height, method, xScale, yScale);
  const R = k.maxRowTaps + 1;
  const cw = k.hi - k.lo;
  const nd = src.nodata === null ? null : src.dtype === 'float32' ? Math.fround(src.nodata) : src.nodata;
  type Slot = { row: number; h: Float64Array; hw: Float64Array; ok: Uint8Array; inf: boolean };
  type BandState = { ring: Slot[]; chunk: ArrayLike<number> | null; buf?: ArrayLike<number>; c0: number; c1: number; inf: boolean };
  const floatSource = src.dtype === 'float32' || src.dtype === 'float64';
  const states = new Map<number, BandState>();
  const wy = new Float64Array(k.maxRowTaps), acc = new Float64Array(W), accW = new Float64Array(W);
  const hs: Float64Array[] = [], hws: Float64Array[] = [];
  const bh = Math.max(1, src.blockHeight);
  return async (band, y0, h) => {
    const out = new Float32Array(W * h).fill(NaN);
    if (cw <= 0) return out;
    let st = states.get(band);
    if (!st) {
      st = { ring: Array.from({ length: R }, () => ({ row: -1, h: new Float64Array(W), hw: new Float64Array(W), ok: new Uint8Array(W), inf: false })), chunk: null, c0: 0, c1: 0, inf: false };
      states.set(band, st);
    }
    const s = st;
    const ensure = async (row: number): Promise<Slot> => {
      const slot = s.ring[row % R];
      if (slot.row === row) return slot;
      if (!s.chunk || row < s.c0 || row >= s.c1) {
        const end = Math.min(src.height, row + CHUNK_ROWS, (Math.floor(row / bh) + 1) * bh);
        // One chunk buffer per band, reused (a fresh 2.5–5 MB array per chunk kept the GC busy).
        s.chunk = await src.readWindowRaw(band, k.lo, row, cw, end - row, ctx.signal, s.buf);
        if (!s.buf || (s.chunk as unknown as { buffer: ArrayBuffer }).buffer !== (s.buf as unknown as { buffer: ArrayBuffer }).buffer) s.buf = s.chunk;
        s.inf = floatSource && SeparableKernel.hasInfinity(s.chunk);
        s.c0 = row; s.c1 = end;
      }
      k.hRow(s.chunk, (row - s.c0) * cw, nd, slot.h, slot.hw, slot.ok, s.inf);
      slot.row = row; slot.inf = s.inf;
      return slot;
    };
    for (let r = 0; r < h; r++) {
      const sy = mapper.exact(0.5, y0 + r + 0.5)[1];
      const t = k.rowTaps(sy, wy);
      if (!t) continue;
      let inf = false;
      for (let j = 0; j < t.n; j++) { const sl = await ensure(t.first + j); hs[j] = sl.h; hws[j] = sl.hw; inf ||= sl.inf; }
      const c = await ensure(t.centre);
      if (inf || t.kept === t.n) separableRow(hs, hws, wy, t.n, c.ok, acc, accW, out, r * W);
      else separableRow(hs.slice(t.skip, t.skip + t.kept), hws.slice(t.skip, t.skip + t.kept), wy.subarray(t.skip, t.skip + t.kept), t.kept, c.ok, acc, accW, out, r * W);
    }
    return out;
  };
}

/**
 * "band 1 mean …, range … to …" of a warped raster, in the band's values: a band stored as scaled
 * integers (MODIS NDVI, DN × 0.0001) is written as it was stored, and its numbers are read with its
 * scale and offset, as every other tool reads them (NDVI mean 0.35, not 3500).
 */
export function bandOneText(r: { mean: number | null; min: number | null; max: number | null }, src: RasterDataset, num: (x: number | null) => string): string {
  const scale = src.scales[0] ?? 1, offset = src.offsets[0] ?? 0;
  const v = (x: number | null) => (x === null ? null : x * scale + offset);
  const [lo, hi] = scale < 0 ? [v(r.max), v(r.min)] : [v(r.min), v(r.max)];
  return `band 1 mean ${num(v(r.mean))}, range ${num(lo)} to ${num(hi)}`;
}
