/** Spectral index formulas (REFERENCE.md) over float32 band arrays; denominator 0 or nodata (NaN) → NaN. */

export type IndexId = 'ndvi' | 'evi' | 'savi' | 'ndwi' | 'mndwi' | 'ndbi' | 'nbr' | 'ndmi' | 'ndsi' | 'ndci';

export interface IndexDef {
  id: IndexId;
  name: string;
  /** Band roles in the order the kernel takes them. */
  roles: string[];
  /** EVI and SAVI constants assume reflectance 0..1. */
  needsReflectance: boolean;
  description: string;
  /** Thresholds for the summary: share below `low` and above `high`, with words for each. */
  low?: { value: number; words: string };
  high?: { value: number; words: string };
}

export const INDICES: Record<IndexId, IndexDef> = {
  ndvi: { id: 'ndvi', name: 'NDVI', roles: ['nir', 'red'], needsReflectance: false, description: 'normalized difference vegetation index (NIR−Red)/(NIR+Red)',
    low: { value: 0.2, words: 'bare, built-up or water (NDVI < 0.2)' }, high: { value: 0.6, words: 'dense vegetation (NDVI > 0.6)' } },
  evi: { id: 'evi', name: 'EVI', roles: ['nir', 'red', 'blue'], needsReflectance: true, description: 'enhanced vegetation index 2.5(NIR−Red)/(NIR+6Red−7.5Blue+1)',
    low: { value: 0.2, words: 'sparse or no vegetation (EVI < 0.2)' }, high: { value: 0.5, words: 'dense vegetation (EVI > 0.5)' } },
  savi: { id: 'savi', name: 'SAVI', roles: ['nir', 'red'], needsReflectance: true, description: 'soil-adjusted vegetation index (1+L)(NIR−Red)/(NIR+Red+L)',
    low: { value: 0.15, words: 'bare soil or water (SAVI < 0.15)' }, high: { value: 0.45, words: 'dense vegetation (SAVI > 0.45)' } },
  ndwi: { id: 'ndwi', name: 'NDWI', roles: ['green', 'nir'], needsReflectance: false, description: 'McFeeters water index (Green−NIR)/(Green+NIR)',
    high: { value: 0, words: 'likely open water (NDWI > 0)' } },
  mndwi: { id: 'mndwi', name: 'MNDWI', roles: ['green', 'swir1'], needsReflectance: false, description: 'modified water index (Green−SWIR1)/(Green+SWIR1)',
    high: { value: 0, words: 'likely open water (MNDWI > 0)' } },
  ndbi: { id: 'ndbi', name: 'NDBI', roles: ['swir1', 'nir'], needsReflectance: false, description: 'built-up index (SWIR1−NIR)/(SWIR1+NIR)',
    high: { value: 0, words: 'likely built-up or bare (NDBI > 0)' } },
  nbr: { id: 'nbr', name: 'NBR', roles: ['nir', 'swir2'], needsReflectance: false, description: 'normalized burn ratio (NIR−SWIR2)/(NIR+SWIR2)',
    low: { value: 0.1, words: 'burned or bare (NBR < 0.1)' }, high: { value: 0.5, words: 'healthy vegetation (NBR > 0.5)' } },
  ndmi: { id: 'ndmi', name: 'NDMI', roles: ['nir', 'swir1'], needsReflectance: false, description: 'moisture index (NIR−SWIR1)/(NIR+SWIR1)',
    low: { value: 0, words: 'dry, moisture-stressed (NDMI < 0)' }, high: { value: 0.4, words: 'high canopy moisture (NDMI > 0.4)' } },
  ndsi: { id: 'ndsi', name: 'NDSI', roles: ['green', 'swir1'], needsReflectance: false, description: 'snow index (Green−SWIR1)/(Green+SWIR1)',
    high: { value: 0.4, words: 'likely snow or ice (NDSI > 0.4)' } },
  ndci: { id: 'ndci', name: 'NDCI', roles: ['rededge', 'red'], needsReflectance: false, description: 'chlorophyll-a index (RedEdge1−Red)/(RedEdge1+Red)',
    high: { value: 0.2, words: 'high chlorophyll-a (NDCI > 0.2)' } },
};

/** Normalized difference (a−b)/(a+b) with the nodata rules. */
function nd(a: Float32Array, b: Float32Array, out: Float32Array): void {
  for (let i = 0; i < out.length; i++) {
    const x = a[i], y = b[i];
    const d = x + y;
    out[i] = d === 0 || x !== x || y !== y ? NaN : (x - y) / d;
  }
}

/** Computes an index over band arrays given in `INDICES[id].roles` order. */
export function computeIndex(id: IndexId, bands: Float32Array[], params: { L?: number } = {}): Float32Array {
  const n = bands[0].length;
  const out = new Float32Array(n);
  switch (id) {
    case 'evi': {
      const [nir, red, blue] = bands;
      for (let i = 0; i < n; i++) {
        const N = nir[i], R = red[i], B = blue[i];
        const d = N + 6 * R - 7.5 * B + 1;
        out[i] = d === 0 || N !== N || R !== R || B !== B ? NaN : (2.5 * (N - R)) / d;
      }
      return out;
    }
    case 'savi': {
      const L = params.L ?? 0.5;
      const [nir, red] = bands;
      for (let i = 0; i < n; i++) {
        const N = nir[i], R = red[i];
        const d = N + R + L;
        out[i] = d === 0 || N !== N || R !== R ? NaN : ((1 + L) * (N - R)) / d;
      }
      return out;
    }
    default:
      nd(bands[0], bands[1], out);
      return out;
  }
}
