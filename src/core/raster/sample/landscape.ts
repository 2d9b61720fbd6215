/** The synthetic landscape behind every sample file: land cover, fields, DEM, clouds, burn scar, town growth. */
import { mulberry32 } from '../algorithms/prng';
import { rasterizePolygon } from '../algorithms/zonal';
import { distanceTransform } from '../algorithms/distance';
import type { GeoTransform, Ring } from '../algorithms/vectorize';
import { FractalNoise } from './noise';

export const SIZE = 600;
export const PIXEL = 10;
export const EPSG = 32650;
/** Upper-left corner in UTM 50N (north-east of Beijing's plain, ~40.0°N 117.0°E). */
export const GEOTRANSFORM: GeoTransform = [500000, PIXEL, 0, 4430000, 0, -PIXEL];

export enum Cover { Grass = 0, River = 1, Lake = 2, Forest = 3, Crop = 4, Building = 5, Road = 6, Bare = 7 }

export interface Field { id: number; crop: string; vigour: number; ring: Ring }

export interface Landscape {
  w: number; h: number;
  cover: Uint8Array;
  /** Field index (0-based) per pixel, -1 outside fields. */
  fieldOf: Int16Array;
  fields: Field[];
  /** Crop vigour 0..1 for cropland pixels (fields and the farmland near town). */
  vigour: Float32Array;
  dem: Float32Array;
  /** 0 clear, 1 thin/medium cloud, 2 thick cloud, 3 shadow. */
  cloud: Uint8Array;
  /** Cloud optical thickness 0..1 where cloud > 0. */
  cloudOpacity: Float32Array;
  /** Burn severity 0..1 (0 = unburned) for the post-fire scene. */
  burn: Float32Array;
  /** 1 where the town grew between 2018 and 2024. */
  growth: Uint8Array;
  /** Shared texture noise −1..1. */
  texture: Float32Array;
  /** Pixels with no data in the S2 scene (a swath edge in the north-west corner). */
  swathGap: Uint8Array;
}

export function riverX(y: number): number {
  return 330 + 60 * Math.sin((2 * Math.PI * y) / 350) + 25 * Math.sin((2 * Math.PI * y) / 130 + 0.7);
}

const CROPS: { crop: string; lo: number; hi: number }[] = [
  { crop: 'maize', lo: 0.75, hi: 0.95 },
  { crop: 'wheat', lo: 0.6, hi: 0.85 },
  { crop: 'soybean', lo: 0.45, hi: 0.7 },
  { crop: 'rice', lo: 0.55, hi: 0.8 },
  { crop: 'fallow', lo: 0.05, hi: 0.15 },
];

export function buildLandscape(seed = 42): Landscape {
  const w = SIZE, h = SIZE, n = w * h;
  const rand = mulberry32(seed);
  const tex = new FractalNoise(w, h, 40, 4, seed + 1).grid(w, h);
  const hills = new FractalNoise(w, h, 160, 4, seed + 2);
  const lakeEdge = new FractalNoise(w, h, 30, 2, seed + 3);
  const cover = new Uint8Array(n);
  const dem = new Float32Array(n);
  const riverDist = new Float32Array(n);

  // Terrain: hills rising to the west, a valley along the river, flat lake surface.
  for (let y = 0; y < h; y++) {
    const rx = riverX(y);
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const d = Math.abs(x - rx);
      riverDist[i] = d;
      const west = Math.max(0, (rx - x) / rx); // 0 at the river, 1 at the western edge
      let z = 120 + 90 * (1 - y / h) * 0.5 + 260 * west * west + 130 * hills.at(x, y) * (0.3 + west);
      z -= 45 * Math.exp(-((d / 70) ** 2)); // valley
      z -= 4 * Math.exp(-((d / 5) ** 2)); // channel
      dem[i] = z;
    }
  }
  // River channel and lake.
  for (let y = 0; y < h; y++) {
    const halfW = 3.5 + 1.5 * Math.sin(y / 37);
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (riverDist[i] <= halfW) cover[i] = Cover.River;
      const ex = (x - 130) / 72, ey = (y - 470) / 46;
      if (ex * ex + ey * ey + 0.25 * lakeEdge.at(x, y) < 1) cover[i] = Cover.Lake;
    }
  }
  // Lake surface at the lowest shore level; the shore slopes gently up from it over ~150 m.
  const lakeMask = new Uint8Array(n);
  for (let i = 0; i < n; i++) if (cover[i] === Cover.Lake) lakeMask[i] = 1;
  const toLake = distanceTransform(lakeMask, w, h, 1, 1);
  const shore: number[] = [];
  for (let i = 0; i < n; i++) if (toLake[i] > 0 && toLake[i] <= 1.5) shore.push(dem[i]);
  shore.sort((a, b) => a - b);
  const lakeLevel = shore[Math.floor(shore.length / 2)];
  for (let i = 0; i < n; i++) {
    const d = toLake[i];
    if (d === 0) dem[i] = lakeLevel - 0.5;
    else if (d < 40) { const t = d / 40; const s = t * t * (3 - 2 * t); dem[i] = lakeLevel + (dem[i] - lakeLevel) * s + 0.1 * d; }
  }

  // Forest on the western hills and slopes, patchy.
  for (let i = 0; i < n; i++) {
    if (cover[i] !== Cover.Grass) continue;
    const x = i % w;
    const zRel = dem[i] - 150;
    if (zRel + 60 * tex[i] > 110 && x < riverX((i - x) / w) - 20) cover[i] = Cover.Forest;
    else if (tex[i] > 0.55) cover[i] = Cover.Bare;
  }

  // Town east of the river: buildings on a street grid, roads out of town.
  const town = { x: 440, y: 150, r: 62 };
  const townNoise = new FractalNoise(w, h, 25, 2, seed + 4);
  const inTown = (x: number, y: number, r: number) => Math.hypot(x - town.x, (y - town.y) * 1.15) + 12 * townNoise.at(x, y) < r;
  const roadAt = (x: number, y: number) => ((x - town.x + 400) % 22 < 2) || ((y - town.y + 400) % 22 < 2);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (cover[i] === Cover.River || cover[i] === Cover.Lake) continue;
      if (inTown(x, y, town.r)) cover[i] = roadAt(x, y) ? Cover.Road : Cover.Building;
      // Main roads: west across the river to the hills, and south along the farmland.
      if (Math.abs(y - 150 - 0.08 * (x - 440)) < 1.2 && x < 440) cover[i] = Cover.Road;
      if (Math.abs(x - 375) < 1.2 && y > 150) cover[i] = Cover.Road;
    }
  }

  // Fields: a 3×4 block south-east, separated by tracks; plus farmland between town and fields.
  const fields: Field[] = [];
  const fieldOf = new Int16Array(n).fill(-1);
  const vigour = new Float32Array(n);
  const gt = GEOTRANSFORM;
  const cols = [392, 456, 522, 588], rows = [318, 384, 452, 520, 588];
  // Shared jittered boundaries (one per inner edge), so neighbouring fields never overlap.
  const colEdge = rows.slice(0, 4).map(() => cols.map((c, k) => (k > 0 && k < 3 ? c + (rand() - 0.5) * 10 : c)));
  const rowEdge = cols.slice(0, 3).map(() => rows.map((r, k) => (k > 0 && k < 4 ? r + (rand() - 0.5) * 10 : r)));
  let id = 1;
  for (let r = 0; r < 4; r++) {
    for (let c = 0; c < 3; c++) {
      const x0 = colEdge[r][c] + 2, x1 = colEdge[r][c + 1] - 2;
      const y0 = rowEdge[c][r] + 2, y1 = rowEdge[c][r + 1] - 2;
      const kind = CROPS[Math.floor(rand() * CROPS.length)];
      const vig = kind.lo + (kind.hi - kind.lo) * rand();
      // A slightly skewed quadrilateral (less than the 2-pixel margin, so tracks stay between fields).
      const skew = (rand() - 0.5) * 3;
      const px: [number, number][] = [[x0 + skew, y0], [x1, y0 - skew / 2], [x1 - skew, y1], [x0, y1 + skew / 2]];
      // Centimetre coordinates: no pixel centre falls exactly on an edge, so every rasteriser agrees.
      const ring: Ring = px.map(([xx, yy]) => [Math.round((gt[0] + xx * gt[1]) * 100) / 100, Math.round((gt[3] + yy * gt[5]) * 100) / 100]);
      // counter-clockwise in map coordinates (RFC 7946 exterior)
      ring.reverse();
      ring.push([ring[0][0], ring[0][1]]);
      fields.push({ id: id++, crop: kind.crop, vigour: vig, ring });
    }
  }
  fields.forEach((f, k) => {
    rasterizePolygon([f.ring], gt, w, h, (i) => {
      if (cover[i] === Cover.River || cover[i] === Cover.Road) return;
      fieldOf[i] = k;
      cover[i] = Cover.Crop;
      const x = i % w, y = (i - x) / w;
      // within-field variation: a stressed corner and fine texture
      vigour[i] = Math.max(0.02, Math.min(1, f.vigour * (1 - 0.25 * Math.max(0, tex[i])) + 0.03 * Math.sin(x / 3 + y / 5)));
    });
  });
  for (let y = 228; y < 306; y++) {
    for (let x = 385; x < w; x++) {
      const i = y * w + x;
      if (cover[i] === Cover.Grass || cover[i] === Cover.Bare) {
        cover[i] = Cover.Crop;
        vigour[i] = 0.55 + 0.2 * Math.sin(x / 29) * Math.cos(y / 23) + 0.05 * tex[i];
      }
    }
  }

  // Town growth 2018 → 2024: new blocks to the south and east over farmland.
  const growth = new Uint8Array(n);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (cover[i] === Cover.River || cover[i] === Cover.Lake || cover[i] === Cover.Building || cover[i] === Cover.Road) continue;
      const grown = (inTown(x, y, 92) && y > town.y - 10 && x > riverX(y) + 8) || (x > 500 && x < 560 && y > 232 && y < 290);
      if (grown) growth[i] = 1;
    }
  }

  // Clouds (three cumulus groups) with shadows offset to the south-east by the low sun.
  const cloudN = new FractalNoise(w, h, 28, 3, seed + 5);
  const cloud = new Uint8Array(n), cloudOpacity = new Float32Array(n);
  const centres = [{ x: 210, y: 90, r: 48 }, { x: 520, y: 410, r: 34 }, { x: 90, y: 300, r: 40 }];
  const shadowDx = 26, shadowDy = 18;
  const thickness = new Float32Array(n);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let t = 0;
      for (const c of centres) {
        const d = Math.hypot(x - c.x, y - c.y) / c.r;
        t = Math.max(t, 1 - d + 0.45 * cloudN.at(x, y));
      }
      thickness[y * w + x] = t;
    }
  }
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const t = thickness[i];
      if (t > 0.35) { cloud[i] = 2; cloudOpacity[i] = Math.min(1, 0.75 + t * 0.3); }
      else if (t > 0.12) { cloud[i] = 1; cloudOpacity[i] = 0.25 + (t - 0.12) * 2; }
    }
  }
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      const sx = x - shadowDx, sy = y - shadowDy;
      if (cloud[i] !== 0 || sx < 0 || sy < 0) continue;
      if (thickness[sy * w + sx] > 0.3) cloud[i] = 3;
    }
  }

  // Burn scar on the forested hills (post-fire scene): graded severity, highest at the core.
  const burnN = new FractalNoise(w, h, 35, 3, seed + 6);
  const burn = new Float32Array(n);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (cover[i] === Cover.River || cover[i] === Cover.Lake) continue;
      const d = Math.hypot((x - 150) / 105, (y - 200) / 80);
      const s = 1.15 - d + 0.35 * burnN.at(x, y);
      if (s > 0.15) burn[i] = Math.min(1, (s - 0.15) * 1.3);
    }
  }

  const swathGap = new Uint8Array(n);
  for (let y = 0; y < 45; y++) for (let x = 0; x < 45 - y; x++) swathGap[y * w + x] = 1;

  return { w, h, cover, fieldOf, fields, vigour, dem, cloud, cloudOpacity, burn, growth, texture: tex, swathGap };
}
