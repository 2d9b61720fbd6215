/** dNBR and the USGS burn severity classes (Key & Benson 2006). */
export const BURN_CLASSES = [
  { code: 1, label: 'high regrowth', lower: -Infinity, upper: -0.25 },
  { code: 2, label: 'low regrowth', lower: -0.25, upper: -0.1 },
  { code: 3, label: 'unburned', lower: -0.1, upper: 0.1 },
  { code: 4, label: 'low severity', lower: 0.1, upper: 0.27 },
  { code: 5, label: 'moderate-low severity', lower: 0.27, upper: 0.44 },
  { code: 6, label: 'moderate-high severity', lower: 0.44, upper: 0.66 },
  { code: 7, label: 'high severity', lower: 0.66, upper: Infinity },
] as const;

/** Codes 4..7 are burned. */
export const BURNED_MIN_CODE = 4;

export function nbr(nir: ArrayLike<number>, swir2: ArrayLike<number>, out?: Float32Array): Float32Array {
  const r = out ?? new Float32Array(nir.length);
  for (let i = 0; i < nir.length; i++) {
    const s = nir[i] + swir2[i];
    r[i] = s === 0 || s !== s ? NaN : (nir[i] - swir2[i]) / s;
  }
  return r;
}

/** dNBR = NBR_pre − NBR_post, computed in float64 from the four reflectances. */
export function dnbr(
  nirPre: ArrayLike<number>, swir2Pre: ArrayLike<number>,
  nirPost: ArrayLike<number>, swir2Post: ArrayLike<number>, out?: Float32Array,
): Float32Array {
  const r = out ?? new Float32Array(nirPre.length);
  for (let i = 0; i < r.length; i++) {
    const s0 = nirPre[i] + swir2Pre[i], s1 = nirPost[i] + swir2Post[i];
    if (s0 === 0 || s1 === 0 || s0 !== s0 || s1 !== s1) { r[i] = NaN; continue; }
    r[i] = (nirPre[i] - swir2Pre[i]) / s0 - (nirPost[i] - swir2Post[i]) / s1;
  }
  return r;
}

// Breaks as float32: dNBR rasters are float32, and numpy/GDAL compare them in float32 (0.1f, not 0.1).
const T = [-0.25, -0.1, 0.1, 0.27, 0.44, 0.66].map(Math.fround);

export function burnSeverity(d: ArrayLike<number>, out?: Uint8Array): Uint8Array {
  const r = out ?? new Uint8Array(d.length);
  for (let i = 0; i < d.length; i++) {
    const v = d[i];
    r[i] = v !== v ? 0
      : v < T[0] ? 1 : v < T[1] ? 2 : v < T[2] ? 3 : v < T[3] ? 4 : v < T[4] ? 5 : v < T[5] ? 6 : 7;
  }
  return r;
}
