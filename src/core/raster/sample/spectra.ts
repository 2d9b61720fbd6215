/** Surface reflectance spectra (blue, green, red, rededge, nir, swir1, swir2) per cover type. */
import { Cover, Landscape } from './landscape';
import { mulberry32, gaussian } from '../algorithms/prng';

export type Spectrum = [number, number, number, number, number, number, number];

export const BAND_NAMES = ['blue', 'green', 'red', 'rededge', 'nir', 'swir1', 'swir2'] as const;

export const SPECTRA: Record<string, Spectrum> = {
  river: [0.055, 0.06, 0.04, 0.035, 0.022, 0.012, 0.008],
  lake: [0.045, 0.065, 0.035, 0.05, 0.025, 0.01, 0.007],
  forest: [0.022, 0.045, 0.025, 0.11, 0.34, 0.16, 0.07],
  grass: [0.04, 0.075, 0.065, 0.16, 0.29, 0.24, 0.14],
  bare: [0.085, 0.11, 0.15, 0.19, 0.24, 0.33, 0.27],
  crop: [0.03, 0.075, 0.035, 0.17, 0.45, 0.2, 0.085],
  soil: [0.075, 0.1, 0.13, 0.17, 0.22, 0.3, 0.24],
  roofBright: [0.16, 0.17, 0.18, 0.19, 0.21, 0.28, 0.25],
  roofDark: [0.07, 0.075, 0.08, 0.09, 0.11, 0.17, 0.15],
  road: [0.075, 0.085, 0.095, 0.105, 0.12, 0.16, 0.145],
  char: [0.035, 0.04, 0.05, 0.06, 0.08, 0.17, 0.21],
  cloud: [0.5, 0.5, 0.52, 0.53, 0.55, 0.38, 0.26],
};

function mix(a: Spectrum, b: Spectrum, t: number, out: number[]): void {
  for (let k = 0; k < 7; k++) out[k] = a[k] * (1 - t) + b[k] * t;
}

export interface SceneOptions {
  seed: number;
  /** 'urban2024' uses the grown town; 'postfire' burns the scar. */
  variant?: 'base' | 'postfire' | 'urban2024';
  clouds?: boolean;
  /** Global brightness factor (illumination/phenology between dates). */
  gain?: number;
  swathGap?: boolean;
}

/** Seven reflectance bands (Float32Array each) for the landscape. */
export function renderReflectance(L: Landscape, opts: SceneOptions): Float32Array[] {
  const { w, h } = L;
  const n = w * h;
  const rand = mulberry32(opts.seed);
  const bands = BAND_NAMES.map(() => new Float32Array(n));
  const s: number[] = new Array(7).fill(0);
  const gain = opts.gain ?? 1;
  for (let i = 0; i < n; i++) {
    const t = L.texture[i];
    let cover = L.cover[i];
    if (opts.variant === 'urban2024' && L.growth[i]) cover = ((i % w) % 22 < 2 || Math.floor(i / w) % 22 < 2) ? Cover.Road : Cover.Building;
    switch (cover) {
      case Cover.River: mix(SPECTRA.river, SPECTRA.lake, 0.3 + 0.2 * t, s); break;
      case Cover.Lake: mix(SPECTRA.lake, SPECTRA.river, 0.2 + 0.2 * t, s); break;
      case Cover.Forest: mix(SPECTRA.forest, SPECTRA.grass, 0.15 + 0.15 * t, s); break;
      case Cover.Grass: mix(SPECTRA.grass, SPECTRA.bare, 0.25 + 0.2 * t, s); break;
      case Cover.Bare: mix(SPECTRA.bare, SPECTRA.grass, 0.3 - 0.2 * t, s); break;
      case Cover.Crop: mix(SPECTRA.soil, SPECTRA.crop, L.vigour[i], s); break;
      case Cover.Building: {
        const x = i % w, y = (i - x) / w;
        // Roofs vary block by block; some gardens.
        const block = Math.sin(Math.floor(x / 7) * 12.9898 + Math.floor(y / 7) * 78.233) * 43758.5453;
        const f = block - Math.floor(block);
        if (f < 0.12) mix(SPECTRA.grass, SPECTRA.crop, 0.4, s);
        else mix(SPECTRA.roofDark, SPECTRA.roofBright, f, s);
        break;
      }
      case Cover.Road: mix(SPECTRA.road, SPECTRA.roofDark, 0.2, s); break;
      default: mix(SPECTRA.grass, SPECTRA.bare, 0.3, s);
    }
    if (opts.variant === 'postfire' && L.burn[i] > 0 && cover !== Cover.Building && cover !== Cover.Road) {
      const b = L.burn[i];
      mix(s as Spectrum, SPECTRA.char, 0.15 + 0.85 * b, s);
    }
    const speckle = 1 + 0.03 * gaussian(rand);
    for (let k = 0; k < 7; k++) bands[k][i] = s[k] * gain * speckle * (1 + 0.024 * (rand() + rand() - 1)); // triangular, sd ≈ 1%
    if (opts.clouds && L.cloud[i] !== 0) {
      if (L.cloud[i] === 3) for (let k = 0; k < 7; k++) bands[k][i] *= 0.38;
      else {
        const a = L.cloudOpacity[i];
        for (let k = 0; k < 7; k++) bands[k][i] = bands[k][i] * (1 - a) + SPECTRA.cloud[k] * a * (1 + 0.05 * t);
      }
    }
  }
  return bands;
}

/** Sentinel-2 scene classification (SCL) consistent with the rendered scene. */
export function sceneClassification(L: Landscape, vegetated: (i: number) => boolean): Uint8Array {
  const n = L.w * L.h;
  const scl = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if (L.swathGap[i]) { scl[i] = 0; continue; }
    const c = L.cloud[i];
    if (c === 2) scl[i] = 9;
    else if (c === 1) scl[i] = L.cloudOpacity[i] < 0.45 ? 10 : 8;
    else if (c === 3) scl[i] = 3;
    else if (L.cover[i] === Cover.River || L.cover[i] === Cover.Lake) scl[i] = 6;
    else scl[i] = vegetated(i) ? 4 : 5;
  }
  return scl;
}

/** Reflectance → DN (×10000, 1..65535; 0 stays nodata). */
export function toDN(refl: Float32Array, gap?: Uint8Array): Uint16Array {
  const out = new Uint16Array(refl.length);
  for (let i = 0; i < refl.length; i++) {
    if (gap && gap[i]) continue;
    out[i] = Math.max(1, Math.min(65535, Math.round(refl[i] * 10000)));
  }
  return out;
}
