/** Landsat 8/9 Collection 2 Level-2-like scene over the sample landscape: SR_B1..SR_B7, ST_B10, QA_PIXEL at 30 m. */
import { Cover, Landscape, GEOTRANSFORM, PIXEL } from './landscape';
import { mulberry32, gaussian } from '../algorithms/prng';
import type { GeoTransform } from '../algorithms/vectorize';

/** Landsat pixels are 3×3 landscape pixels. */
export const LANDSAT_FACTOR = 3;
export const LANDSAT_PIXEL = PIXEL * LANDSAT_FACTOR;
export const LANDSAT_GEOTRANSFORM: GeoTransform = [GEOTRANSFORM[0], LANDSAT_PIXEL, 0, GEOTRANSFORM[3], 0, -LANDSAT_PIXEL];
/** Band descriptions in USGS naming, in the order of the landsat89_c2l2 preset stack. */
export const LANDSAT_BANDS = ['SR_B1', 'SR_B2', 'SR_B3', 'SR_B4', 'SR_B5', 'SR_B6', 'SR_B7', 'ST_B10', 'QA_PIXEL'] as const;

export const SR_SCALE = 0.0000275, SR_OFFSET = -0.2;
export const ST_SCALE = 0.00341802, ST_OFFSET = 149.0;

/** QA_PIXEL bits (Collection 2): flags, then 2-bit confidences (0 none, 1 low, 2 medium, 3 high). */
const QA = { fill: 1, dilated: 1 << 1, cirrus: 1 << 2, cloud: 1 << 3, shadow: 1 << 4, clear: 1 << 6, water: 1 << 7 };
const conf = (cloud: number, shadow: number, snow: number, cirrus: number) => (cloud << 8) | (shadow << 10) | (snow << 12) | (cirrus << 14);

const TOWN = { x: 440, y: 150 };

/**
 * Clear-sky surface temperature (°C) of a summer late morning (~10:30 overpass, air ~28 °C): water and
 * forest cool, vigorous crops cooler than fallow, bare soil, roads and dark roofs hottest, a town heat
 * island, a 6.5 K/km lapse rate on the hills, and cooler ground in cloud shadow.
 */
export function surfaceTemperatureC(L: Landscape, seed: number): Float32Array {
  const { w, h } = L;
  const n = w * h;
  const rand = mulberry32(seed);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const t = L.texture[i];
    const x = i % w, y = (i - x) / w;
    const cover = L.cover[i];
    let T: number;
    switch (cover) {
      case Cover.River: T = 23 + 0.5 * t; break;
      case Cover.Lake: T = 24.5 + 0.8 * t; break;
      case Cover.Forest: T = 27.5 + 1.2 * t; break;
      case Cover.Grass: T = 33 + 1.5 * t; break;
      case Cover.Bare: T = 41 + 2 * t; break;
      case Cover.Crop: T = 41 - 14 * L.vigour[i] + t; break;
      case Cover.Building: {
        // Same roof hash as spectra.ts: gardens are cool, dark roofs hotter than bright ones.
        const block = Math.sin(Math.floor(x / 7) * 12.9898 + Math.floor(y / 7) * 78.233) * 43758.5453;
        const f = block - Math.floor(block);
        T = f < 0.12 ? 31 : 46 - 10 * f;
        break;
      }
      case Cover.Road: T = 44 + t; break;
      default: T = 34;
    }
    const water = cover === Cover.River || cover === Cover.Lake;
    T -= 6.5 * (L.dem[i] - 150) / 1000;
    if (!water) T += 2.5 * Math.exp(-((Math.hypot(x - TOWN.x, (y - TOWN.y) * 1.15) / 90) ** 2));
    if (L.cloud[i] === 3) T -= water ? 1 : 5;
    out[i] = T + 0.25 * gaussian(rand);
  }
  return out;
}

/** Cloud tops of the fair-weather cumulus (~3 km) are far colder than the ground. */
const CLOUD_TOP_C = 6;

/** SR_B2..SR_B7 (blue, green, red, NIR, SWIR1, SWIR2) from the rendered bands (no red edge on OLI). */
const FROM_S2 = [0, 1, 2, 4, 5, 6];

export interface LandsatScene { width: number; height: number; bands: Uint16Array[] }

/**
 * Nine uint16 bands on the 30 m grid: reflectance (already cloud-mixed, 10 m) and temperature are
 * averaged over 3×3 blocks, the thermal field is smoothed once more (TIRS is 100 m, delivered at 30 m),
 * then encoded with the C2 L2 scale/offset. Fill (DN 0, QA_PIXEL 1) covers a small north-east corner.
 */
export function renderLandsat(L: Landscape, refl: Float32Array[], seed: number): LandsatScene {
  const f = LANDSAT_FACTOR;
  const W = Math.floor(L.w / f), H = Math.floor(L.h / f), N = W * H;
  const ts = surfaceTemperatureC(L, seed);
  const sr = Array.from({ length: 7 }, () => new Float32Array(N));
  const tK = new Float32Array(N);
  const thick = new Uint8Array(N), thin = new Uint8Array(N), shade = new Uint8Array(N), wet = new Uint8Array(N);
  const opacity = new Float32Array(N);
  for (let Y = 0; Y < H; Y++) {
    for (let X = 0; X < W; X++) {
      const I = Y * W + X;
      let tSum = 0, op = 0;
      const s = [0, 0, 0, 0, 0, 0, 0];
      for (let dy = 0; dy < f; dy++) {
        for (let dx = 0; dx < f; dx++) {
          const i = (Y * f + dy) * L.w + X * f + dx;
          for (let k = 0; k < 7; k++) s[k] += refl[k][i];
          const c = L.cloud[i];
          const a = c === 1 || c === 2 ? L.cloudOpacity[i] : 0;
          tSum += ts[i] * (1 - a) + (CLOUD_TOP_C + 2 * L.texture[i]) * a;
          if (c === 2) thick[I]++;
          else if (c === 1) { thin[I]++; op += a; }
          else if (c === 3) shade[I]++;
          if (L.cover[i] === Cover.River || L.cover[i] === Cover.Lake) wet[I]++;
        }
      }
      const m = f * f;
      // Coastal aerosol (443 nm) follows blue, slightly darker over land, with a little residual path radiance.
      sr[0][I] = 0.92 * s[0] / m + 0.004;
      for (let k = 0; k < 6; k++) sr[k + 1][I] = s[FROM_S2[k]] / m;
      tK[I] = tSum / m + 273.15;
      opacity[I] = thin[I] ? op / thin[I] : 0;
    }
  }
  const st = smooth121(tK, W, H);
  const half = (m: Uint8Array, I: number) => m[I] * 2 > f * f;
  const cloudy = new Uint8Array(N);
  for (let I = 0; I < N; I++) cloudy[I] = half(thick, I) || (thick[I] + thin[I]) * 2 > f * f && opacity[I] >= 0.45 ? 1 : 0;
  const dilated = dilate(cloudy, W, H, 3);
  const bands = Array.from({ length: 9 }, () => new Uint16Array(N));
  for (let Y = 0; Y < H; Y++) {
    for (let X = 0; X < W; X++) {
      const I = Y * W + X;
      if ((W - 1 - X) + Y < 12) { bands[8][I] = QA.fill; continue; }
      for (let k = 0; k < 7; k++) bands[k][I] = encode((sr[k][I] - SR_OFFSET) / SR_SCALE);
      bands[7][I] = encode((st[I] - ST_OFFSET) / ST_SCALE);
      let q: number;
      if (cloudy[I]) q = QA.cloud | (half(thick, I) ? conf(3, 1, 1, 1) : conf(2, 1, 1, 1));
      else if ((thick[I] + thin[I]) * 2 > f * f) q = QA.cirrus | QA.clear | conf(1, 1, 1, 3);
      else if (dilated[I]) q = QA.dilated | conf(1, 1, 1, 1);
      else if (half(shade, I)) q = QA.shadow | QA.clear | conf(1, 3, 1, 1);
      else q = QA.clear | conf(1, 1, 1, 1);
      if (!cloudy[I] && half(wet, I)) q |= QA.water;
      bands[8][I] = q;
    }
  }
  return { width: W, height: H, bands };
}

function encode(dn: number): number {
  return Math.max(1, Math.min(65535, Math.round(dn)));
}

/** Separable [1 2 1]/4 smoothing with edge clamping. */
function smooth121(a: Float32Array, w: number, h: number): Float32Array {
  const tmp = new Float32Array(a.length), out = new Float32Array(a.length);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const r = y * w;
      tmp[r + x] = (a[r + Math.max(0, x - 1)] + 2 * a[r + x] + a[r + Math.min(w - 1, x + 1)]) / 4;
    }
  }
  for (let y = 0; y < h; y++) {
    const up = Math.max(0, y - 1) * w, dn = Math.min(h - 1, y + 1) * w;
    for (let x = 0; x < w; x++) out[y * w + x] = (tmp[up + x] + 2 * tmp[y * w + x] + tmp[dn + x]) / 4;
  }
  return out;
}

/** Pixels within `r` (Chebyshev) of a set pixel, excluding the set pixels (the QA "dilated cloud" ring). */
function dilate(m: Uint8Array, w: number, h: number, r: number): Uint8Array {
  const out = new Uint8Array(m.length);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (!m[y * w + x]) continue;
      for (let yy = Math.max(0, y - r); yy <= Math.min(h - 1, y + r); yy++) {
        for (let xx = Math.max(0, x - r); xx <= Math.min(w - 1, x + r); xx++) if (!m[yy * w + xx]) out[yy * w + xx] = 1;
      }
    }
  }
  return out;
}
