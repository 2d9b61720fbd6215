/**
 * `valid_range` (or `valid_min`/`valid_max`) of HDF4 SDS, HDF-EOS5 fields and NetCDF variables:
 * the stored values outside it are not measurements (MOD09 reflectance outside −100…16000, MOD10
 * snow cover's class codes 200–254 beside its 0–100 %, saturated or flagged DNs). GDAL 3.6 differs
 * by driver: its netCDF driver sets them to nodata (HONOUR_VALID_RANGE=YES by default), its HDF4 and
 * HDF5 drivers pass them through, so an analyst averaging a MOD10 field through GDAL averages cloud
 * codes as snow percentages. GeoWeave reads NetCDF as GDAL does (raw samples outside → the fill),
 * and an HDF field's values outside as NaN wherever they are computed with (readWindow: indices,
 * statistics, resampling); raw reads of an HDF field keep the stored codes, as GDAL gives them, so a
 * classification or a QA bit test still sees 250 = cloud.
 */
import type { TypedArray } from './samples';

/** The closed range of valid stored (packed) values. */
export interface ValidRange { min: number; max: number }

const first = (v: unknown): number | undefined => {
  const a = Array.isArray(v) || ArrayBuffer.isView(v) ? Array.from(v as ArrayLike<number>) : typeof v === 'number' ? [v] : [];
  return a.length && typeof a[0] === 'number' && Number.isFinite(a[0]) ? a[0] : undefined;
};

/**
 * The valid range an attribute set declares (`att(name)` gives an attribute's value), in stored
 * units; undefined when none is declared or it is empty (min above max: a writer's mistake, ignored).
 */
export function validRange(att: (name: string) => unknown, float32 = false): ValidRange | undefined {
  const vr = att('valid_range');
  const pair = Array.isArray(vr) || ArrayBuffer.isView(vr) ? Array.from(vr as ArrayLike<number>) : [];
  let min = pair.length >= 2 ? Number(pair[0]) : first(att('valid_min'));
  let max = pair.length >= 2 ? Number(pair[1]) : first(att('valid_max'));
  if (min === undefined && max === undefined) return undefined;
  min = min ?? -Infinity; max = max ?? Infinity;
  if (!(min <= max)) return undefined;
  // A float32 variable's samples are compared with the bounds as float32 holds them, as GDAL does.
  return float32 ? { min: Math.fround(min), max: Math.fround(max) } : { min, max };
}

/** `out[i]` = NaN where the stored sample `raw[i]` is outside `r` (out is readWindow's float32 of raw). */
export function maskOutside(raw: ArrayLike<number>, out: Float32Array, r: ValidRange | undefined): Float32Array {
  if (!r) return out;
  for (let i = 0; i < out.length; i++) { const v = raw[i]; if (v < r.min || v > r.max) out[i] = NaN; }
  return out;
}

/** Stored samples outside `r` replaced by `fill`, as GDAL's netCDF driver reads them. */
export function fillOutside(raw: TypedArray, r: ValidRange | undefined, fill: number | null): TypedArray {
  if (!r || fill === null) return raw;
  for (let i = 0; i < raw.length; i++) { const v = raw[i]; if (v < r.min || v > r.max) raw[i] = fill; }
  return raw;
}
