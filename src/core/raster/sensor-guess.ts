/** A guess at the sensor of a multi-band raster that carries no band descriptions, from its band
 *  count, data type and value range. Always presented as a guess: the bands it names are where that
 *  sensor's usual product puts them, not something the file says. */
import type { DType, RasterDataset } from './io/dataset';

/** What the file shows about itself: enough to tell a Landsat 7 DN stack from a Sentinel-2 L2A one. */
export interface BandSample {
  bandCount: number;
  dtype: DType;
  /** Smallest and largest valid value seen in a sample of the bands (nodata excluded). */
  min: number;
  max: number;
}

export interface SensorGuess {
  /** Short id of the layout, e.g. `landsat7_etm`. */
  sensor: string;
  /** Readable name, e.g. "Landsat 7 ETM+ (bands 1-5, 7)". */
  label: string;
  /** 1-based band per role in that layout. */
  bands: Record<string, number>;
  /** What the guess rests on, e.g. "6 bands of UInt8, values 0-255". */
  why: string;
}

const DTYPE_NAME: Record<string, string> = {
  uint8: 'UInt8', int8: 'Int8', uint16: 'UInt16', int16: 'Int16', uint32: 'UInt32', int32: 'Int32', float32: 'Float32', float64: 'Float64',
};

const LANDSAT_TM_REFLECTIVE = { blue: 1, green: 2, red: 3, nir: 4, swir1: 5, swir2: 6 };
const LANDSAT_TM_ALL = { blue: 1, green: 2, red: 3, nir: 4, swir1: 5, thermal: 6, swir2: 7 };
const LANDSAT_OLI = { coastal: 1, blue: 2, green: 3, red: 4, nir: 5, swir1: 6, swir2: 7 };
const S2_L2A_12 = { coastal: 1, blue: 2, green: 3, red: 4, rededge: 5, nir: 8, swir1: 11, swir2: 12 };
const S2_10_20 = { blue: 1, green: 2, red: 3, rededge: 4, nir: 7, swir1: 9, swir2: 10 };

function fmt(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toPrecision(3);
}

/** The likely layout of an undescribed multi-band raster, or undefined when nothing fits well. */
export function guessSensor(s: BandSample): SensorGuess | undefined {
  if (!(s.bandCount >= 3) || !Number.isFinite(s.min) || !Number.isFinite(s.max)) return undefined;
  const why = `${s.bandCount} bands of ${DTYPE_NAME[s.dtype] ?? s.dtype}, values ${fmt(s.min)}–${fmt(s.max)}`;
  const integer = s.dtype !== 'float32' && s.dtype !== 'float64';
  // Digital numbers of an 8-bit sensor, or reflectance scaled by 10 000, or reflectance as a fraction.
  const dn8 = s.dtype === 'uint8' || (integer && s.min >= 0 && s.max <= 255);
  const scaled = integer && !dn8 && s.min >= -2000 && s.max <= 20000;
  const c2l2 = s.dtype === 'uint16' && s.max > 20000;
  const fraction = !integer && s.min >= -0.5 && s.max <= 2 && s.max > 0.05;
  const reflectance = dn8 || scaled || c2l2 || fraction;
  if (!reflectance) return undefined;
  const guess = (sensor: string, label: string, bands: Record<string, number>): SensorGuess => ({ sensor, label, bands, why });
  switch (s.bandCount) {
    case 3:
      return dn8 ? guess('rgb', 'an RGB photo (red, green, blue)', { red: 1, green: 2, blue: 3 }) : undefined;
    case 4:
      return dn8 ? guess('naip', 'NAIP (red, green, blue, NIR)', { red: 1, green: 2, blue: 3, nir: 4 })
        : guess('planetscope_4b', 'PlanetScope 4-band (blue, green, red, NIR)', { blue: 1, green: 2, red: 3, nir: 4 });
    case 6:
      return dn8 || scaled || fraction ? guess('landsat7_etm', 'Landsat 7 ETM+ or 4-5 TM (bands 1-5 and 7)', LANDSAT_TM_REFLECTIVE) : undefined;
    case 7:
      if (dn8) return guess('landsat7_etm', 'Landsat 7 ETM+ or 4-5 TM (bands 1-7, thermal 6th)', LANDSAT_TM_ALL);
      return guess('landsat89_oli', 'Landsat 8-9 OLI (SR_B1-SR_B7)', LANDSAT_OLI);
    case 10:
      return dn8 ? undefined : guess('sentinel2_10_20m', 'Sentinel-2 10 m and 20 m bands (B2-B8A, B11, B12)', S2_10_20);
    case 12:
    case 13:
      return dn8 ? undefined : guess('sentinel2_l2a', 'Sentinel-2 L2A (B1-B12)', S2_L2A_12);
    default:
      return undefined;
  }
}

/** Band count, data type and the value range of a central window of every band (nodata left out). */
export async function sampleBands(ds: RasterDataset, side = 256): Promise<BandSample> {
  const w = Math.min(side, ds.width), h = Math.min(side, ds.height);
  const x = Math.floor((ds.width - w) / 2), y = Math.floor((ds.height - h) / 2);
  let min = Infinity, max = -Infinity;
  for (let b = 1; b <= ds.bandCount; b++) {
    const a = await ds.readWindow(b, x, y, w, h);
    for (let i = 0; i < a.length; i++) {
      const v = a[i];
      if (v !== v) continue;
      if (v < min) min = v;
      if (v > max) max = v;
    }
  }
  return { bandCount: ds.bandCount, dtype: ds.dtype, min, max };
}
