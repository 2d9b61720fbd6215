/**
 * Sensor presets: where each band role sits in a stack of a sensor's product, and whether a file
 * fits the preset at all. A preset that does not fit (band count, band descriptions, value range)
 * is refused with the reason; it is never applied to a file it does not describe.
 */
import type { BandSample } from './sensor-guess';

export const SENSORS = ['sentinel2_l2a', 'sentinel2_l1c', 'landsat89_c2l2', 'landsat457_c2l2', 'landsat457_tm', 'naip', 'planetscope_4b'] as const;
export type Sensor = typeof SENSORS[number];

/** Readable names for messages. */
export const SENSOR_NAMES: Record<Sensor, string> = {
  sentinel2_l2a: 'Sentinel-2 L2A',
  sentinel2_l1c: 'Sentinel-2 L1C',
  landsat89_c2l2: 'Landsat 8/9 Collection 2 Level-2',
  landsat457_c2l2: 'Landsat 4-5 TM / 7 ETM+ Collection 2 Level-2',
  landsat457_tm: 'Landsat 4-5 TM / 7 ETM+',
  naip: 'NAIP',
  planetscope_4b: 'PlanetScope 4-band',
};

const S2_L2A_FULL = { coastal: 1, blue: 2, green: 3, red: 4, rededge: 5, nir: 8, swir1: 11, swir2: 12, qa: 13 };
const L457_6 = { blue: 1, green: 2, red: 3, nir: 4, swir1: 5, swir2: 6 };
const L457_7 = { blue: 1, green: 2, red: 3, nir: 4, swir1: 5, thermal: 6, swir2: 7 };
const L89 = { coastal: 1, blue: 2, green: 3, red: 4, nir: 5, swir1: 6, swir2: 7, thermal: 8, qa: 9 };

/** The stacks each preset knows, by band count: role → 1-based band, and what the stack holds. */
const LAYOUTS: Record<Sensor, Record<number, { bands: Record<string, number>; holds: string }>> = {
  sentinel2_l2a: {
    8: { bands: { blue: 1, green: 2, red: 3, rededge: 4, nir: 5, swir1: 6, swir2: 7, qa: 8 }, holds: 'B02, B03, B04, B05, B08, B11, B12, SCL' },
    12: { bands: S2_L2A_FULL, holds: 'B01-B09, B8A, B11, B12' },
    13: { bands: S2_L2A_FULL, holds: 'B01-B09, B8A, B11, B12, SCL' },
  },
  sentinel2_l1c: {
    4: { bands: { blue: 1, green: 2, red: 3, nir: 4 }, holds: 'B02, B03, B04, B08 (10 m)' },
    13: { bands: { coastal: 1, blue: 2, green: 3, red: 4, rededge: 5, nir: 8, swir1: 12, swir2: 13 }, holds: 'B01-B08, B8A, B09, B10, B11, B12' },
  },
  landsat89_c2l2: {
    7: { bands: L89, holds: 'SR_B1-SR_B7' },
    8: { bands: L89, holds: 'SR_B1-SR_B7, ST_B10' },
    9: { bands: L89, holds: 'SR_B1-SR_B7, ST_B10, QA_PIXEL' },
  },
  landsat457_c2l2: {
    6: { bands: L457_6, holds: 'SR_B1-SR_B5, SR_B7' },
    7: { bands: L457_7, holds: 'SR_B1-SR_B5, ST_B6, SR_B7' },
  },
  landsat457_tm: {
    6: { bands: L457_6, holds: 'bands 1-5 and 7' },
    7: { bands: L457_7, holds: 'bands 1-7 (thermal 6th)' },
  },
  naip: { 4: { bands: { red: 1, green: 2, blue: 3, nir: 4 }, holds: 'red, green, blue, NIR' } },
  planetscope_4b: { 4: { bands: { blue: 1, green: 2, red: 3, nir: 4 }, holds: 'blue, green, red, NIR' } },
};

/** Role → band of `sensor` for a file of `bandCount` bands, or undefined when the preset has no such stack. */
export function presetLayout(sensor: Sensor, bandCount: number): Record<string, number> | undefined {
  return LAYOUTS[sensor][bandCount]?.bands;
}

/** Landsat 4-7 Collection 2 band names: SR_B4 is NIR there (red on Landsat 8/9). */
const L457_NAMES: Record<string, string> = { sr_b1: 'blue', sr_b2: 'green', sr_b3: 'red', sr_b4: 'nir', sr_b5: 'swir1', sr_b7: 'swir2', st_b6: 'thermal', b6: 'thermal' };

/** The role a band description names under `sensor` (Landsat 4-7 band names differ from 8/9), else the generic reading. */
export function roleForSensor(desc: string | null | undefined, sensor: Sensor | undefined, generic: (d: string | null | undefined) => string | undefined): string | undefined {
  const d = desc?.trim().toLowerCase() ?? '';
  if ((sensor === 'landsat457_c2l2' || sensor === 'landsat457_tm') && L457_NAMES[d]) return L457_NAMES[d];
  return generic(desc);
}

/** What the file shows: band count, type, descriptions, sampled value range. */
export interface PresetFacts extends BandSample { descriptions: (string | null)[] }

const INTEGER = new Set(['uint8', 'int8', 'uint16', 'int16', 'uint32', 'int32']);

function range(f: PresetFacts): string {
  const v = (x: number) => (Number.isInteger(x) ? String(x) : x.toPrecision(3));
  return `values ${v(f.min)}-${v(f.max)}`;
}

/**
 * Why `sensor` does not fit the file, or undefined when it does. `roleOf` reads a description as
 * a role. The reason says what the file is instead and what to pass.
 */
export function presetMismatch(sensor: Sensor, f: PresetFacts, roleOf: (d: string | null | undefined) => string | undefined): string | undefined {
  const name = SENSOR_NAMES[sensor];
  const stacks = LAYOUTS[sensor];
  const layout = stacks[f.bandCount];
  // Bands that all carry descriptions are found by name; the preset then only scales them.
  const described = f.descriptions.length > 0 && f.descriptions.every((d) => roleForSensor(d, sensor, roleOf) !== undefined);
  if (!layout && !described) {
    const known = Object.entries(stacks).map(([n, l]) => `${n} bands (${l.holds})`).join(' or ');
    let hint = '';
    if (sensor === 'landsat89_c2l2' && (f.bandCount === 6 || f.bandCount === 7)) hint = `; ${f.bandCount} bands is the Landsat 4-7 layout (${LAYOUTS.landsat457_tm[f.bandCount].holds}): use --arg sensor=landsat457_c2l2 for Collection 2 Level-2 surface reflectance or --arg sensor=landsat457_tm for other Landsat 4-7 stacks`;
    else if ((sensor === 'landsat457_c2l2' || sensor === 'landsat457_tm') && f.bandCount >= 7 && f.bandCount <= 9) hint = '; 7 to 9 bands with SR_B1-SR_B7 is the Landsat 8/9 layout: use --arg sensor=landsat89_c2l2';
    return `sensor=${sensor} expects ${known}, but the file has ${f.bandCount} band${f.bandCount === 1 ? '' : 's'}${hint}; or name the bands yourself (--arg red=<band> --arg nir=<band>)`;
  }
  // Band descriptions that name a role must sit where the preset puts that role.
  for (let i = 0; layout && i < f.descriptions.length; i++) {
    const role = roleForSensor(f.descriptions[i], sensor, roleOf);
    const at = role ? layout.bands[role] : undefined;
    if (role && at !== undefined && at !== i + 1) {
      return `band ${i + 1} is described as "${f.descriptions[i]}" (${role}), but sensor=${sensor} puts ${role} in band ${at}; the file is not the ${name} stack (${layout.holds}): leave sensor= out so the descriptions are used`;
    }
  }
  if (!Number.isFinite(f.min) || !Number.isFinite(f.max)) return undefined;
  const integer = INTEGER.has(f.dtype);
  const fraction = !integer && f.max <= 2;
  const eightBit = f.dtype === 'uint8' || (integer && f.max <= 255);
  switch (sensor) {
    case 'landsat89_c2l2':
    case 'landsat457_c2l2':
      if (eightBit) return `${range(f)} in ${f.dtype} are 8-bit digital numbers, not ${name} surface reflectance (UInt16 DN 7273-43636 for reflectance 0-1), so its scaling (DN × 0.0000275 − 0.2) would be wrong${sensor === 'landsat457_c2l2' ? ': use --arg sensor=landsat457_tm, which takes the values as they are' : ''}`;
      if (fraction) return `${range(f)} are already reflectance, so the Collection 2 scaling (DN × 0.0000275 − 0.2) would be applied twice; leave sensor= out and name the bands (--arg red=<band> --arg nir=<band>)`;
      if (integer && f.max <= 12000 && f.min >= -2000) return `${range(f)} look like reflectance × 10000 (Collection 1 or a Sentinel-2-style scale), not Collection 2 Level-2 DNs (7273-43636 for reflectance 0-1), so its scaling would be wrong; name the bands instead (--arg red=<band> --arg nir=<band>)`;
      return undefined;
    case 'sentinel2_l2a':
    case 'sentinel2_l1c':
      if (eightBit) return `${range(f)} in ${f.dtype} are 8-bit values, not ${name} reflectance × 10000, so dividing by 10000 would be wrong; leave sensor= out and name the bands`;
      if (fraction) return `${range(f)} are already reflectance, so dividing by 10000 again would be wrong; leave sensor= out and name the bands`;
      return undefined;
    case 'landsat457_tm':
      if (f.dtype === 'uint16' && f.max > 20000) return `${range(f)} in UInt16 look like Collection 2 Level-2 surface reflectance DNs, which need their scaling: use --arg sensor=landsat457_c2l2`;
      return undefined;
    case 'naip':
      if (!eightBit) return `${range(f)} in ${f.dtype}: NAIP is 8-bit (0-255), so this file is not a NAIP stack; name the bands (--arg red=<band> --arg nir=<band>)`;
      return undefined;
    default:
      return undefined;
  }
}
