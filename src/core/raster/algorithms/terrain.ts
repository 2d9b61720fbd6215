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

// Each kernel has its own loop: one shared loop calling a per-kernel function is a megamorphic call V8
// does not inline (about twice the time per pixel).

function checkAbortRow(y: number, signal?: AbortSignal): void {
  if ((y & 63) === 0 && signal?.aborted) throw signal.reason ?? new Error('aborted');
}

/** Slope in degrees; zFactor multiplies elevations (gdaldem's -s scale divides). */
export function slopeDegrees(z: ArrayLike<number>, grid: TerrainGrid, zFactor = 1, signal?: AbortSignal): Float32Array {
  const { w, h, ewres, nsres } = grid;
  const out = new Float32Array(w * h).fill(NaN);
  for (let y = 1; y < h - 1; y++) {
    checkAbortRow(y, signal);
    const r0 = (y - 1) * w, r1 = y * w, r2 = (y + 1) * w;
    for (let x = 1; x < w - 1; x++) {
      const a = z[r0 + x - 1], b = z[r0 + x], c = z[r0 + x + 1];
      const d = z[r1 + x - 1], e = z[r1 + x], ff = z[r1 + x + 1];
      const g = z[r2 + x - 1], hh = z[r2 + x], i = z[r2 + x + 1];
      // NaN propagates through the sum: any nodata in the window gives NaN.
      const sum = a + b + c + d + e + ff + g + hh + i;
      if (sum !== sum) continue;
      const dx = f(f(f(f(a + d) + d) + g) - f(f(f(c + ff) + ff) + i)) / ewres;
      const dy = f(f(f(f(g + hh) + hh) + i) - f(f(f(a + b) + b) + c)) / nsres;
      out[r1 + x] = Math.atan(Math.sqrt(dx * dx + dy * dy) * zFactor / 8) * R2D;
    }
  }
  return out;
}

/** Aspect in degrees clockwise from north (0..360); flat cells are NaN (gdaldem writes its nodata -9999). */
export function aspectDegrees(z: ArrayLike<number>, grid: TerrainGrid, signal?: AbortSignal): Float32Array {
  const { w, h } = grid;
  const out = new Float32Array(w * h).fill(NaN);
  for (let y = 1; y < h - 1; y++) {
    checkAbortRow(y, signal);
    const r0 = (y - 1) * w, r1 = y * w, r2 = (y + 1) * w;
    for (let x = 1; x < w - 1; x++) {
      const a = z[r0 + x - 1], b = z[r0 + x], c = z[r0 + x + 1];
      const d = z[r1 + x - 1], e = z[r1 + x], ff = z[r1 + x + 1];
      const g = z[r2 + x - 1], hh = z[r2 + x], i = z[r2 + x + 1];
      const sum = a + b + c + d + e + ff + g + hh + i;
      if (sum !== sum) continue;
      const dx = f(f(f(f(c + ff) + ff) + i) - f(f(f(a + d) + d) + g));
      const dy = f(f(f(f(g + hh) + hh) + i) - f(f(f(a + b) + b) + c));
      if (dx === 0 && dy === 0) continue;
      let asp = f(Math.atan2(dy, -dx) * R2D);
      asp = asp > 90 ? 450 - asp : 90 - asp;
      out[r1 + x] = asp === 360 ? 0 : asp;
    }
  }
  return out;
}

/** Hillshade grey level 1..255 as gdaldem (0 = nodata is left to the caller through NaN). */
export function hillshade(
  z: ArrayLike<number>, grid: TerrainGrid, opts: { azimuth?: number; altitude?: number; zFactor?: number } = {}, signal?: AbortSignal,
): Float32Array {
  const { w, h } = grid;
  const az = (opts.azimuth ?? 315) * Math.PI / 180;
  const alt = (opts.altitude ?? 45) * Math.PI / 180;
  const zs = (opts.zFactor ?? 1) / 8;
  const invEw = 1 / grid.ewres, invNs = 1 / grid.nsres;
  const sinAlt = Math.sin(alt);
  const cosAltZ = Math.cos(alt) * zs;
  const cosAz = Math.cos(az) * cosAltZ, sinAz = Math.sin(az) * cosAltZ;
  const sq = zs * zs;
  const out = new Float32Array(w * h).fill(NaN);
  for (let y = 1; y < h - 1; y++) {
    checkAbortRow(y, signal);
    const r0 = (y - 1) * w, r1 = y * w, r2 = (y + 1) * w;
    for (let x = 1; x < w - 1; x++) {
      const a = z[r0 + x - 1], b = z[r0 + x], c = z[r0 + x + 1];
      const d = z[r1 + x - 1], e = z[r1 + x], ff = z[r1 + x + 1];
      const g = z[r2 + x - 1], hh = z[r2 + x], i = z[r2 + x + 1];
      const sum = a + b + c + d + e + ff + g + hh + i;
      if (sum !== sum) continue;
      const xx = f(f(f(f(a + d) + d) + g) - f(f(f(c + ff) + ff) + i)) * invEw;
      const yy = f(f(f(f(g + hh) + hh) + i) - f(f(f(a + b) + b) + c)) * invNs;
      const v = 254 * (sinAlt - (yy * cosAz - xx * sinAz)) / Math.sqrt(1 + sq * (xx * xx + yy * yy));
      out[r1 + x] = v <= 0 ? 1 : 1 + v;
    }
  }
  return out;
}
