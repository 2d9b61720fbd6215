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

// gdaldem sums the window in single precision before going to double; doing the same keeps
// near-flat cells (where aspect is sensitive to rounding) identical to gdaldem.
const west = (a: number, d: number, g: number) => f(f(f(a + d) + d) + g);
const east = (c: number, ff: number, i: number) => f(f(f(c + ff) + ff) + i);
const north = (a: number, b: number, c: number) => f(f(f(a + b) + b) + c);
const south = (g: number, hh: number, i: number) => f(f(f(g + hh) + hh) + i);

type Kernel = (a: number, b: number, c: number, d: number, f: number, g: number, hh: number, i: number, e: number) => number;

function apply3x3(z: ArrayLike<number>, grid: TerrainGrid, fn: Kernel, signal?: AbortSignal): Float32Array {
  const { w, h } = grid;
  const out = new Float32Array(w * h).fill(NaN);
  for (let y = 1; y < h - 1; y++) {
    if ((y & 63) === 0 && signal?.aborted) throw signal.reason ?? new Error('aborted');
    const r0 = (y - 1) * w, r1 = y * w, r2 = (y + 1) * w;
    for (let x = 1; x < w - 1; x++) {
      const a = z[r0 + x - 1], b = z[r0 + x], c = z[r0 + x + 1];
      const d = z[r1 + x - 1], e = z[r1 + x], f = z[r1 + x + 1];
      const g = z[r2 + x - 1], hh = z[r2 + x], i = z[r2 + x + 1];
      // NaN propagates through the sum: any nodata in the window gives NaN.
      if ((a + b + c + d + e + f + g + hh + i) !== (a + b + c + d + e + f + g + hh + i)) continue;
      out[r1 + x] = fn(a, b, c, d, f, g, hh, i, e);
    }
  }
  return out;
}

/** Slope in degrees; zFactor multiplies elevations (gdaldem's -s scale divides). */
export function slopeDegrees(z: ArrayLike<number>, grid: TerrainGrid, zFactor = 1, signal?: AbortSignal): Float32Array {
  const { ewres, nsres } = grid;
  return apply3x3(z, grid, (a, b, c, d, ff, g, hh, i) => {
    const dx = f(west(a, d, g) - east(c, ff, i)) / ewres;
    const dy = f(south(g, hh, i) - north(a, b, c)) / nsres;
    return Math.atan(Math.sqrt(dx * dx + dy * dy) * zFactor / 8) * R2D;
  }, signal);
}

/** Aspect in degrees clockwise from north (0..360); flat cells are NaN (gdaldem writes its nodata -9999). */
export function aspectDegrees(z: ArrayLike<number>, grid: TerrainGrid, signal?: AbortSignal): Float32Array {
  return apply3x3(z, grid, (a, b, c, d, ff, g, hh, i) => {
    const dx = f(east(c, ff, i) - west(a, d, g));
    const dy = f(south(g, hh, i) - north(a, b, c));
    if (dx === 0 && dy === 0) return NaN;
    let asp = Math.fround(Math.atan2(dy, -dx) * R2D);
    asp = asp > 90 ? 450 - asp : 90 - asp;
    return asp === 360 ? 0 : asp;
  }, signal);
}

/** Hillshade grey level 1..255 as gdaldem (0 = nodata is left to the caller through NaN). */
export function hillshade(
  z: ArrayLike<number>, grid: TerrainGrid, opts: { azimuth?: number; altitude?: number; zFactor?: number } = {}, signal?: AbortSignal,
): Float32Array {
  const az = (opts.azimuth ?? 315) * Math.PI / 180;
  const alt = (opts.altitude ?? 45) * Math.PI / 180;
  const zs = (opts.zFactor ?? 1) / 8;
  const invEw = 1 / grid.ewres, invNs = 1 / grid.nsres;
  const sinAlt = Math.sin(alt);
  const cosAltZ = Math.cos(alt) * zs;
  const cosAz = Math.cos(az) * cosAltZ, sinAz = Math.sin(az) * cosAltZ;
  const sq = zs * zs;
  return apply3x3(z, grid, (a, b, c, d, ff, g, hh, i) => {
    const x = f(west(a, d, g) - east(c, ff, i)) * invEw;
    const y = f(south(g, hh, i) - north(a, b, c)) * invNs;
    const v = 254 * (sinAlt - (y * cosAz - x * sinAz)) / Math.sqrt(1 + sq * (x * x + y * y));
    return v <= 0 ? 1 : 1 + v;
  }, signal);
}
