/**
 * Which pixels of a source fill which pixels of a VRT window, computed as GDAL 3.6 computes them
 * (VRTSimpleSource::GetSrcDstWindow, then GDALRasterBand::IRasterIO's nearest-neighbour stepping),
 * operation for operation, so a mosaic of sources on other grids (gdalbuildvrt's fractional
 * <DstRect>s) reads the same pixels GDAL reads. Pure arithmetic: no I/O.
 */
import type { Rect } from './vrt-parse';

const EPS = 1e-3;
const INT_MAX = 2147483647;

/** The part of a source a request reads (`req*` in source pixels) and where it lands in the buffer (`out*`). */
export interface SourceWindow {
  reqX: number; reqY: number; reqW: number; reqH: number;
  /** The fractional source window GDAL steps through (its "floating point window"). */
  dfX: number; dfY: number; dfW: number; dfH: number;
  outX: number; outY: number; outW: number; outH: number;
}

function roundIfCloseToInt(v: number): number {
  const r = Math.round(v);
  return Math.abs(v - r) < 1e-10 ? r : v;
}

const trunc = (v: number) => (v > INT_MAX ? INT_MAX : Math.trunc(v));

/**
 * One axis of a clipped request: the buffer span the source window [ul, lr] (VRT pixels) lands on,
 * and the fractional source window stretched to those whole buffer pixels (GDAL's "correction on
 * floating-point source window"). Null when it lands on nothing.
 */
function outSpan(ul: number, lr: number, off: number, size: number, buf: number, dstSize: number, srcSize: number, df: number, dfSize: number): { out: number; outSize: number; df: number; dfSize: number } | null {
  const k = buf / size;
  const o = (ul - off) * k;
  const out = o <= 0 ? 0 : trunc(o + EPS);
  const sd = (o - out) / k / dstSize * srcSize;
  df -= sd; dfSize = Math.min(dfSize + sd, INT_MAX);
  let end = (lr - off) * k;
  if (end < o) return null;
  if (end > INT_MAX) end = INT_MAX;
  const nEnd = Math.ceil(end - EPS);
  let outSize = nEnd - out;
  if (outSize > INT_MAX - out || out + outSize > buf) outSize = buf - out;
  dfSize = Math.min(dfSize + (nEnd - end) / k / dstSize * srcSize, INT_MAX);
  return { out, outSize, df, dfSize };
}

/**
 * GetSrcDstWindow for a request of `xSize`×`ySize` VRT pixels at (xOff, yOff) into a buffer of
 * bufW×bufH (equal to the request unless reading a reduced view), for a source of srcW×srcH pixels
 * mapped by `src` → `dst`. Null when the source adds nothing to the request.
 */
export function srcDstWindow(src: Rect, dst: Rect, srcW: number, srcH: number, xOff: number, yOff: number, xSize: number, ySize: number, bufW: number, bufH: number): SourceWindow | null {
  if (src.w === 0 || src.h === 0 || dst.w === 0 || dst.h === 0) return null;
  if (xOff >= dst.x + dst.w || yOff >= dst.y + dst.h || xOff + xSize <= dst.x || yOff + ySize <= dst.y) return null;
  let outX = 0, outY = 0, outW = bufW, outH = bufH;
  let modX = false, modY = false;
  let rx = xOff, ry = yOff, rw = xSize, rh = ySize;
  if (rx < dst.x) { rw = rw + rx - dst.x; rx = dst.x; modX = true; }
  if (ry < dst.y) { rh = rh + ry - dst.y; ry = dst.y; modY = true; }
  if (rx + rw > dst.x + dst.w) { rw = dst.x + dst.w - rx; modX = true; }
  if (ry + rh > dst.y + dst.h) { rh = dst.y + dst.h - ry; modY = true; }
  const sx = src.w / dst.w, sy = src.h / dst.h;
  let dfX = (rx - dst.x) * sx + src.x, dfY = (ry - dst.y) * sy + src.y, dfW = rw * sx, dfH = rh * sy;
  if (![dfX, dfY, dfW, dfH].every(Number.isFinite) || dfX > INT_MAX || dfY > INT_MAX || dfW < 0 || dfH < 0) return null;
  if (dfX < 0) { dfW += dfX; dfX = 0; modX = true; }
  if (dfY < 0) { dfH += dfY; dfY = 0; modY = true; }
  let reqX = Math.floor(dfX), reqY = Math.floor(dfY);
  if (dfX - reqX > 1 - EPS) { reqX++; dfX = reqX; }
  if (dfY - reqY > 1 - EPS) { reqY++; dfY = reqY; }
  let reqW = dfW > INT_MAX ? INT_MAX : Math.floor(dfW + 0.5);
  let reqH = dfH > INT_MAX ? INT_MAX : Math.floor(dfH + 0.5);
  if (reqW === 0) reqW = 1;
  if (reqH === 0) reqH = 1;
  if (reqW > INT_MAX - reqX || reqX + reqW > srcW) { reqW = srcW - reqX; modX = true; }
  if (dfX + dfW > srcW) { dfW = srcW - dfX; modX = true; }
  if (reqH > INT_MAX - reqY || reqY + reqH > srcH) { reqH = srcH - reqY; modY = true; }
  if (dfY + dfH > srcH) { dfH = srcH - dfY; modY = true; }
  if (reqX >= srcW || reqY >= srcH || reqW <= 0 || reqH <= 0) return null;
  if (modX || modY) {
    // SrcToDst of the (possibly clipped) source window's corners.
    const ulx = (dfX - src.x) * (dst.w / src.w) + dst.x, uly = (dfY - src.y) * (dst.h / src.h) + dst.y;
    const lrx = (dfX + dfW - src.x) * (dst.w / src.w) + dst.x, lry = (dfY + dfH - src.y) * (dst.h / src.h) + dst.y;
    if (modX) {
      const a = outSpan(ulx, lrx, xOff, xSize, bufW, dst.w, src.w, dfX, dfW);
      if (!a) return null;
      ({ out: outX, outSize: outW, df: dfX, dfSize: dfW } = a);
    }
    if (modY) {
      const a = outSpan(uly, lry, yOff, ySize, bufH, dst.h, src.h, dfY, dfH);
      if (!a) return null;
      ({ out: outY, outSize: outH, df: dfY, dfSize: dfH } = a);
    }
    if (outW < 1 || outH < 1) return null;
  }
  return { reqX, reqY, reqW, reqH, dfX: roundIfCloseToInt(dfX), dfY: roundIfCloseToInt(dfY), dfW: roundIfCloseToInt(dfW), dfH: roundIfCloseToInt(dfH), outX, outY, outW, outH };
}

/** The source rows or columns GDAL's nearest-neighbour RasterIO reads for each of `n` buffer positions. */
export interface Steps { direct: boolean; cols: Int32Array; rows: Int32Array }

/**
 * GDALRasterBand::IRasterIO's stepping over the window (int reqX.., fractional dfX..) into an
 * outW×outH buffer of a band of rasterW×rasterH: a plain copy when the sizes match and the
 * fractional window is the integer one, else nearest neighbour (columns by accumulation, rows by
 * multiplication, each with GDAL's 1e-10 nudge, clamped to the band).
 */
export function nearestSteps(w: SourceWindow, rasterW: number, rasterH: number): Steps {
  const integer = w.dfX === w.reqX && w.dfY === w.reqY && w.dfW === w.reqW && w.dfH === w.reqH;
  const cols = new Int32Array(w.outW), rows = new Int32Array(w.outH);
  if (integer && w.reqW === w.outW && w.reqH === w.outH) {
    for (let i = 0; i < w.outW; i++) cols[i] = w.reqX + i;
    for (let j = 0; j < w.outH; j++) rows[j] = w.reqY + j;
    return { direct: true, cols, rows };
  }
  const E = 1e-10;
  const incX = w.dfW / w.outW, incY = w.dfH / w.outH;
  const startX = 0.5 * incX + w.dfX + E;
  if (integer && Math.trunc(incX) === incX) {
    const first = Math.trunc(startX);
    for (let i = 0; i < w.outW; i++) cols[i] = first + i * incX;
  } else {
    let x = startX;
    for (let i = 0; i < w.outW; i++, x += incX) cols[i] = Math.trunc(Math.min(Math.max(0, x), rasterW - 1));
  }
  for (let j = 0; j < w.outH; j++) {
    const y = (j + 0.5) * incY + w.dfY + E;
    rows[j] = Math.trunc(Math.min(Math.max(0, y), rasterH - 1));
  }
  return { direct: false, cols, rows };
}

/**
 * GDALBandGetBestOverviewLevel2: the overview (index into `sizes`, largest first) a downsampled read
 * of reqW×reqH into outW×outH goes to, with the window recomputed on it; null for full resolution.
 */
export function bestOverview(w: SourceWindow, rasterW: number, rasterH: number, sizes: { width: number; height: number }[]): { index: number; window: SourceWindow } | null {
  if (!(w.outW < w.reqW || w.outH < w.reqH) || !sizes.length) return null;
  const desired = (w.reqW / w.outW) < (w.reqH / w.outH) || w.outH === 1 ? w.reqW / w.outW : w.reqH / w.outH;
  let best = -1, bestRes = 0;
  for (let i = 0; i < sizes.length; i++) {
    const o = sizes[i];
    if (o.width > rasterW || o.height > rasterH) continue;
    const res = rasterW / o.width < rasterH / o.height ? rasterW / o.width : rasterH / o.height;
    if (res >= desired * 1.2 || res <= bestRes) continue;
    best = i; bestRes = res;
  }
  if (best < 0) return null;
  const o = sizes[best];
  const xr = rasterW / o.width, yr = rasterH / o.height;
  const reqX = Math.min(o.width - 1, Math.trunc(w.reqX / xr + 0.5));
  const reqY = Math.min(o.height - 1, Math.trunc(w.reqY / yr + 0.5));
  let reqW = Math.max(1, Math.trunc(w.reqW / xr + 0.5));
  let reqH = Math.max(1, Math.trunc(w.reqH / yr + 0.5));
  if (reqX + reqW > o.width) reqW = o.width - reqX;
  if (reqY + reqH > o.height) reqH = o.height - reqY;
  return { index: best, window: { ...w, reqX, reqY, reqW, reqH, dfX: w.dfX / xr, dfW: w.dfW / xr, dfY: w.dfY / yr, dfH: w.dfH / yr } };
}
