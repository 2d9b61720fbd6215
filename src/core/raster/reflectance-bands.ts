/**
 * The surface-reflectance fields of MODIS (MOD09GA/MYD09GA, MOD09A1/MYD09A1, MOD09Q1/MYD09Q1,
 * MOD09GQ; MCD43A4's BRDF-adjusted nadir reflectance; MOD13/MYD13's red, NIR, blue and MIR) and
 * VIIRS (VNP09GA, VNP09H1, VNP09A1, VJ1…) land products, by field name, with the band each holds
 * and the role that band plays in an index. A product stores one field per band, so these names
 * are the only place a band's role can come from: no field says "red".
 */

/** A reflectance band of a field: the sensor's name for it, its spectral range (nm) and its role, if an index uses it. */
export interface ReflectanceBand {
  sensor: 'MODIS' | 'VIIRS'; band: string; nm: [number, number]; role?: string;
  /** MOD13/MYD13: a vegetation-index product that keeps only four of the seven bands (so a missing role is no damage). */
  vi?: true;
}

/** MODIS bands 1-7 (the land bands MOD09 carries). Band 5 (1240 nm) plays no role in the indices. */
const MODIS: Record<number, Omit<ReflectanceBand, 'sensor' | 'band'>> = {
  1: { nm: [620, 670], role: 'red' }, 2: { nm: [841, 876], role: 'nir' }, 3: { nm: [459, 479], role: 'blue' },
  4: { nm: [545, 565], role: 'green' }, 5: { nm: [1230, 1250] }, 6: { nm: [1628, 1652], role: 'swir1' }, 7: { nm: [2105, 2155], role: 'swir2' },
};

/**
 * VIIRS imagery (I) and moderate (M) bands of VNP09: I1-I3 on the 500 m grid, M1-M11 on the 1 km
 * one. M1 (412 nm) and M8 (1240 nm) have no role; M2 (445 nm) is the coastal band as OLI's B1 is.
 */
const VIIRS: Record<string, Omit<ReflectanceBand, 'sensor' | 'band'>> = {
  I1: { nm: [600, 680], role: 'red' }, I2: { nm: [846, 885], role: 'nir' }, I3: { nm: [1580, 1640], role: 'swir1' },
  M1: { nm: [402, 422] }, M2: { nm: [436, 454], role: 'coastal' }, M3: { nm: [478, 498], role: 'blue' },
  M4: { nm: [545, 565], role: 'green' }, M5: { nm: [662, 682], role: 'red' }, M7: { nm: [846, 885], role: 'nir' },
  M8: { nm: [1230, 1250] }, M10: { nm: [1580, 1640], role: 'swir1' }, M11: { nm: [2225, 2275], role: 'swir2' },
};

/**
 * MOD13/MYD13's reflectance fields by colour word (`250m 16 days red reflectance`, MOD13A2's
 * `1 km 16 days NIR reflectance`, MOD13A3's `1 km monthly blue reflectance`, MOD13C1's
 * `CMG 0.05 Deg 16 days MIR reflectance`): the MODIS band behind each, per the MOD13 user guide.
 * "MIR" is band 7 (2105–2155 nm), the role swir2, not band 6.
 */
const MOD13_WORD: Record<string, number> = { red: 1, nir: 2, blue: 3, mir: 7 };

/**
 * The band a field holds: MODIS `sur_refl_b01`…`sur_refl_b07` (MOD09GA adds `_1`, the first
 * observation), MCD43A4 `Nadir_Reflectance_Band1`…`Band7` (the same MODIS bands, BRDF-adjusted;
 * not its `BRDF_Albedo_Band_Mandatory_Quality_Band1`…), MOD13 `250m 16 days red reflectance` and
 * the like, VIIRS `SurfReflect_I1`, `SurfReflect_M5` (VNP09GA adds `_1`); undefined for any other
 * field (QA, angles, observation counts, NDVI/EVI). `grid`: the field's grid; MOD13's names count
 * only on a MODIS grid (`MODIS_Grid_16DAY_250m_500m_VI`, `MOD_Grid_monthly_1km_VI`), since VIIRS's
 * VNP13 uses the same words for other bands (its red is I1, its blue M3) on `VIIRS_Grid_…`.
 */
export function reflectanceBand(field: string, grid?: string): ReflectanceBand | undefined {
  const m = /^sur_refl_b0?([1-7])(?:_1)?$/i.exec(field) ?? /^Nadir_Reflectance_Band([1-7])$/.exec(field);
  if (m) return { sensor: 'MODIS', band: `b${m[1]}`, ...MODIS[Number(m[1])] };
  const vi = /^(?:\d+ ?k?m|CMG 0\.05 Deg) (?:16 days|monthly) (red|NIR|blue|MIR) reflectance$/i.exec(field);
  if (vi && grid !== undefined && /^MOD/i.test(grid)) {
    const b = MOD13_WORD[vi[1].toLowerCase()];
    return { sensor: 'MODIS', band: `b${b}`, ...MODIS[b], vi: true };
  }
  const v = /^SurfReflect_([IM]\d{1,2})(?:_1)?$/i.exec(field);
  const b = v?.[1].toUpperCase();
  if (b && VIIRS[b]) return { sensor: 'VIIRS', band: b, ...VIIRS[b] };
  return undefined;
}

/** A band's name for messages: "MODIS band 2 (841–876 nm)", "VIIRS I2 (846–885 nm)". */
export function bandLabel(b: ReflectanceBand): string {
  return `${b.sensor} ${b.sensor === 'MODIS' ? `band ${b.band.slice(1)}` : b.band} (${b.nm[0]}–${b.nm[1]} nm)`;
}
