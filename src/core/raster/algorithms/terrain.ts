/** Horn (1981) slope, aspect and hillshade, reproducing gdaldem (no -compute_edges: edges and windows touching nodata are NaN). */

export interface TerrainGrid {
  w: number;
  h: number;
  /** Pixel sizes as in the geotransform (ewres = gt[1], nsres = gt[5], usually negative), in the units of z. */
  ewres: number;
  nsres: number;
}

const R2D = 180 / Math.PI;
const f = Math.fround;

// gdaldem sums the window in single precision before going to double (west = f(f(f(a + d) + d) + g), and so
// on); doing the same keeps near-flat cells (where aspect is sensitive to rounding) identical to gdaldem.
// The four sums are the same float32 expressions over one column (west, east) or one row (north, south) of
// the 3×3 window, so each kernel walks a row with the window in registers: per pixel it loads one new
// column (3 values) and computes one column sum and two row sums, instead of 9 loads and 4 sums.
// A window touches nodata when the double sum of its 9 values is NaN (a NaN, or +∞ with −∞: whatever the
// order of the additions, and finite float32 values cannot overflow a double); the 3 column sums give it.
//
// Each kernel has its own loop: one shared loop calling a per-kernel function is a megamorphic call V8
// does not inline (about twice the time per pixel).

function checkAbortRow(y: number, signal?: AbortSignal): void {
  if ((y & 63) === 0 && signal?.aborted) throw signal.reason ?? new Error('aborted');
}

/**
 * Output rows y0..y1-1 of a w×h DEM window `z` go to `out` from row 0 (row y at (y − y0) × w); the first and
 * last rows and columns of the window have no full 3×3 window and are left as they are (NaN-filled by the callers).
 */
export interface RowRange { y0: number; y1: number }

function rows(grid: TerrainGrid, r?: RowRange): [number, number] {
  return [Math.max(1, r?.y0 ?? 0), Math.min(grid.h - 1, r?.y1 ?? grid.h)];
}

/** Slope in degrees into `out` (see RowRange); zFactor multiplies elevations (gdaldem's -s scale divides). */
export function slopeInto(z: Float32Array, grid: TerrainGrid, zFactor: number, out: Float32Array, range?: RowRange, signal?: AbortSignal): void {
  const { w, ewres, nsres } = grid;
  const [ya, yb] = rows(grid, range);
  const oy = range?.y0 ?? 0;
  const k = zFactor / 8;
  for (let y = ya; y < yb; y++) {
    checkAbortRow(y, signal);
    const r0 = (y - 1) * w, r1 = y * w, r2 = (y + 1) * w, o = (y - oy) * w;
    let a = z[r0], b = z[r0 + 1], d = z[r1], e = z[r1 + 1], g = z[r2], hh = z[r2 + 1];
    let cw = f(f(f(a + d) + d) + g), cm = f(f(f(b + e) + e) + hh);
    let nw = a + d + g, nm = b + e + hh;
    for (let x = 1; x < w - 1; x++) {
      const c = z[r0 + x + 1], ff = z[r1 + x + 1], i = z[r2 + x + 1];
      const ce = f(f(f(c + ff) + ff) + i), ne = c + ff + i;
      const s = nw + nm + ne;
      if (s === s) {
        const dx = f(cw - ce) / ewres;
        const dy = f(f(f(f(g + hh) + hh) + i) - f(f(f(a + b) + b) + c)) / nsres;
        out[o + x] = Math.atan(Math.sqrt(dx * dx + dy * dy) * k) * R2D;
      }
      a = b; b = c; d = e; e = ff; g = hh; hh = i; cw = cm; cm = ce; nw = nm; nm = ne;
    }
  }
}

/** Aspect in degrees clockwise from north (0..360) into `out` (see RowRange); flat cells are left (NaN: gdaldem writes its nodata -9999). */
export function aspectInto(z: Float32Array, grid: TerrainGrid, out: Float32Array, range?: RowRange, signal?: AbortSignal): void {
  const { w } = grid;
  const [ya, yb] = rows(grid, range);
  const oy = range?.y0 ?? 0;
  for (let y = ya; y < yb; y++) {
    checkAbortRow(y, signal);
    const r0 = (y - 1) * w, r1 = y * w, r2 = (y + 1) * w, o = (y - oy) * w;
    let a = z[r0], b = z[r0 + 1], d = z[r1], e = z[r1 + 1], g = z[r2], hh = z[r2 + 1];
    let cw = f(f(f(a + d) + d) + g), cm = f(f(f(b + e) + e) + hh);
    let nw = a + d + g, nm = b + e + hh;
    for (let x = 1; x < w - 1; x++) {
      const c = z[r0 + x + 1], ff = z[r1 + x + 1], i = z[r2 + x + 1];
      const ce = f(f(f(c + ff) + ff) + i), ne = c + ff + i;
      const s = nw + nm + ne;
      if (s === s) {
        const dx = f(ce - cw);
        const dy = f(f(f(f(g + hh) + hh) + i) - f(f(f(a + b) + b) + c));
        if (dx !== 0 || dy !== 0) {
          let asp = f(Math.atan2(dy, -dx) * R2D);
          asp = asp > 90 ? 450 - asp : 90 - asp;
          out[o + x] = asp === 360 ? 0 : asp;
        }
      }
      a = b; b = c; d = e; e = ff; g = hh; hh = i; cw = cm; cm = ce; nw = nm; nm = ne;
    }
  }
}

interface ShadeParams { sinAlt: number; cosAz: number; sinAz: number; sq: number; invEw: number; invNs: number }

function shadeParams(grid: TerrainGrid, opts: { azimuth?: number; altitude?: number; zFactor?: number }): ShadeParams {
  const az = (opts.azimuth ?? 315) * Math.PI / 180;
  const alt = (opts.altitude ?? 45) * Math.PI / 180;
  const zs = (opts.zFactor ?? 1) / 8;
  const cosAltZ = Math.cos(alt) * zs;
  return { sinAlt: Math.sin(alt), cosAz: Math.cos(az) * cosAltZ, sinAz: Math.sin(az) * cosAltZ, sq: zs * zs, invEw: 1 / grid.ewres, invNs: 1 / grid.nsres };
}

/** Hillshade grey level (float, 1..255) into `out` (see RowRange); windows touching nodata are left (NaN). */
export function hillshadeInto(z: Float32Array, grid: TerrainGrid, opts: { azimuth?: number; altitude?: number; zFactor?: number }, out: Float32Array, range?: RowRange, signal?: AbortSignal): void {
  const { w } = grid;
  const { sinAlt, cosAz, sinAz, sq, invEw, invNs } = shadeParams(grid, opts);
  const [ya, yb] = rows(grid, range);
  const oy = range?.y0 ?? 0;
  for (let y = ya; y < yb; y++) {
    checkAbortRow(y, signal);
    const r0 = (y - 1) * w, r1 = y * w, r2 = (y + 1) * w, o = (y - oy) * w;
    let a = z[r0], b = z[r0 + 1], d = z[r1], e = z[r1 + 1], g = z[r2], hh = z[r2 + 1];
    let cw = f(f(f(a + d) + d) + g), cm = f(f(f(b + e) + e) + hh);
    let nw = a + d + g, nm = b + e + hh;
    for (let x = 1; x < w - 1; x++) {
      const c = z[r0 + x + 1], ff = z[r1 + x + 1], i = z[r2 + x + 1];
      const ce = f(f(f(c + ff) + ff) + i), ne = c + ff + i;
      const s = nw + nm + ne;
      if (s === s) {
        const xx = f(cw - ce) * invEw;
        const yy = f(f(f(f(g + hh) + hh) + i) - f(f(f(a + b) + b) + c)) * invNs;
        const v = 254 * (sinAlt - (yy * cosAz - xx * sinAz)) / Math.sqrt(1 + sq * (xx * xx + yy * yy));
        out[o + x] = v <= 0 ? 1 : 1 + v;
      }
      a = b; b = c; d = e; e = ff; g = hh; hh = i; cw = cm; cm = ce; nw = nm; nm = ne;
    }
  }
}

/**
 * Hillshade as bytes into `out` (see RowRange): the shade rounded to nearest as GDAL converts it to Byte
 * (1..255); windows touching nodata are left (0 in a fresh array). The window sums are taken in double, not
 * single precision as in hillshadeInto: gdaldem's own hillshade sums in another order and divides by an
 * approximate square root, so neither is exact to it (both within one grey level), and this loop is 3x faster.
 */
export function hillshadeBytesInto(z: Float32Array, grid: TerrainGrid, opts: { azimuth?: number; altitude?: number; zFactor?: number }, out: Uint8Array, range?: RowRange, signal?: AbortSignal): void {
  const { w } = grid;
  const { sinAlt, cosAz, sinAz, sq, invEw, invNs } = shadeParams(grid, opts);
  const [ya, yb] = rows(grid, range);
  const oy = range?.y0 ?? 0;
  // 254·(sinAlt − (yy·cosAz − xx·sinAz)) with xx, yy the scaled gradients, folded into the constants.
  const kx = 254 * sinAz * invEw, ky = 254 * cosAz * invNs, k0 = 254 * sinAlt;
  const sx = sq * invEw * invEw, sy = sq * invNs * invNs;
  for (let y = ya; y < yb; y++) {
    checkAbortRow(y, signal);
    const r0 = (y - 1) * w, r1 = y * w, r2 = (y + 1) * w, o = (y - oy) * w;
    let a = z[r0], b = z[r0 + 1], d = z[r1], e = z[r1 + 1], g = z[r2], hh = z[r2 + 1];
    let cw = a + 2 * d + g, cm = b + 2 * e + hh;
    for (let x = 1; x < w - 1; x++) {
      const c = z[r0 + x + 1], ff = z[r1 + x + 1], i = z[r2 + x + 1];
      const ce = c + 2 * ff + i;
      // A NaN (or +∞ with −∞) among the 8 neighbours makes dx or dy NaN or infinite, the shade NaN, and a NaN
      // stored in a Uint8Array is 0 (nodata); the centre is not in the sums, so it is checked.
      if (e === e) {
        const dx = cw - ce, dy = (g + 2 * hh + i) - (a + 2 * b + c);
        const v = (k0 - (dy * ky - dx * kx)) / Math.sqrt(1 + sx * dx * dx + sy * dy * dy);
        const r = Math.floor(v + 1.5);
        out[o + x] = v <= 0 ? 1 : r > 255 ? 255 : r;
      }
      a = b; b = c; d = e; e = ff; g = hh; hh = i; cw = cm; cm = ce;
    }
  }
}

function asF32(z: ArrayLike<number>): Float32Array {
  return z instanceof Float32Array ? z : new Float32Array(z);
}

/** Slope in degrees; zFactor multiplies elevations (gdaldem's -s scale divides). */
export function slopeDegrees(z: ArrayLike<number>, grid: TerrainGrid, zFactor = 1, signal?: AbortSignal): Float32Array {
  const out = new Float32Array(grid.w * grid.h).fill(NaN);
  slopeInto(asF32(z), grid, zFactor, out, undefined, signal);
  return out;
}

/** Aspect in degrees clockwise from north (0..360); flat cells are NaN (gdaldem writes its nodata -9999). */
export function aspectDegrees(z: ArrayLike<number>, grid: TerrainGrid, signal?: AbortSignal): Float32Array {
  const out = new Float32Array(grid.w * grid.h).fill(NaN);
  aspectInto(asF32(z), grid, out, undefined, signal);
  return out;
}

/** Hillshade grey level 1..255 as gdaldem (0 = nodata is left to the caller through NaN). */
export function hillshade(
  z: ArrayLike<number>, grid: TerrainGrid, opts: { azimuth?: number; altitude?: number; zFactor?: number } = {}, signal?: AbortSignal,
): Float32Array {
  const out = new Float32Array(grid.w * grid.h).fill(NaN);
  hillshadeInto(asF32(z), grid, opts, out, undefined, signal);
  return out;
}
