/** Single-channel land surface temperature from brightness temperature with NDVI-based emissivity. */
export const LST_DEFAULTS = { ndviSoil: 0.2, ndviVeg: 0.5, lambda: 10.895e-6, rho: 1.438e-2 };

/** Emissivity ε = 0.004·Pv + 0.986, Pv = ((NDVI − NDVIs)/(NDVIv − NDVIs))² clamped to 0..1. */
export function emissivity(ndvi: number, p = LST_DEFAULTS): number {
  let f = (ndvi - p.ndviSoil) / (p.ndviVeg - p.ndviSoil);
  f = f < 0 ? 0 : f > 1 ? 1 : f;
  return 0.004 * f * f + 0.986;
}

/** LST in °C from BT (kelvin), red and NIR reflectance. */
export function landSurfaceTemperature(bt: ArrayLike<number>, red: ArrayLike<number>, nir: ArrayLike<number>, out?: Float32Array, p = LST_DEFAULTS): Float32Array {
  const r = out ?? new Float32Array(bt.length);
  for (let i = 0; i < bt.length; i++) {
    const s = nir[i] + red[i];
    const T = bt[i];
    if (T !== T || s !== s || s === 0 || T <= 0) { r[i] = NaN; continue; }
    const e = emissivity((nir[i] - red[i]) / s, p);
    r[i] = T / (1 + (p.lambda * T / p.rho) * Math.log(e)) - 273.15;
  }
  return r;
}

/** °C from a surface temperature already in kelvin (Landsat C2 L2 ST_B10 after its scale/offset): units only. */
export function surfaceKelvinToCelsius(st: ArrayLike<number>, out?: Float32Array): Float32Array {
  const r = out ?? new Float32Array(st.length);
  for (let i = 0; i < st.length; i++) {
    const T = st[i];
    r[i] = T === T && T > 0 ? T - 273.15 : NaN;
  }
  return r;
}

/**
 * Whether a thermal band holds surface temperature (convert units only) rather than at-sensor
 * brightness temperature (needs the emissivity correction). C2 L2 ST_B10 is LST: USGS already
 * corrected it with ASTER GED emissivity, so correcting again would bias it by about +1 K.
 */
export function isSurfaceTemperatureBand(description: string | null | undefined, sensor: unknown): boolean {
  const d = (description ?? '').trim().toLowerCase();
  if (/^st_b1[01]$|^(lst|st)$|surface[ _-]?temp/.test(d)) return true;
  if (/(^|[^a-z])bt([^a-z]|$)|bright/.test(d)) return false;
  return sensor === 'landsat89_c2l2';
}
