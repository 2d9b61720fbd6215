/**
 * MODIS and VIIRS land quality fields read as cloud/quality masks, told apart by the field name
 * after `#` (a product stores its QA as fields of its own, and no field says which bits mean what):
 *
 * - MOD09 state (`state_1km`, `sur_refl_state_500m/250m`) and the VIIRS 8-day state VNP09H1
 *   `SurfReflect_State_500m` / VNP09A1 `SurfReflect_State` / `SurfReflect_State_1km`, which follow
 *   the MOD09 state layout (VNP09 user guide v1.1 / v2.0, section "State QA": bits 0-1 cloud state,
 *   2 shadow, 8-9 cirrus, 10 internal cloud, 12 MOD35 snow/ice, 13 adjacent to cloud, 15 internal snow).
 * - MOD13/MYD13 `… pixel reliability` (MOD13 user guide, C6/C6.1, table "Pixel reliability"):
 *   0 good, 1 marginal, 2 snow/ice, 3 cloudy, -1 fill.
 * - MOD13/MYD13 `… VI Quality` (the same guide, table "VI Quality", as recalled): bits 0-1 MODLAND
 *   QA (00 good, 01 check other QA, 10 probably cloudy, 11 not produced for other reasons: nodata
 *   here), bits 6-7 aerosol quantity (11 high), bit 8 adjacent cloud, bit 10 mixed clouds, bit 14
 *   possible snow/ice, bit 15 possible shadow.
 * - MCD43A4 `BRDF_Albedo_Band_Mandatory_Quality_Band1…7` (and VNP43IA4/MA4's `…_I1`, `…_M5`):
 *   0 full BRDF inversion, 1 magnitude inversion, 255 fill (MCD43 user guide, C6).
 * - VIIRS VNP09GA `SurfReflect_QF1_1`, `SurfReflect_QF2_1` (no `_1` in VNP09 swath-derived grids):
 *   VIIRS Surface Reflectance User's Guide (Vermote et al., version 1.1, 2016; the bit tables kept in
 *   2.0) as recalled: QF1 bits 2-3 cloud mask confidence (00 confident clear, 01 probably clear,
 *   10 probably cloudy, 11 confident cloudy); QF2 bit 3 cloud shadow, bit 5 snow/ice, bit 6 thin
 *   cirrus (reflective test), bit 7 thin cirrus (emissive test). QF7 (adjacent cloud, aerosol
 *   quantity) is not read: as for MOD09 state, adjacency is not cloud.
 *
 * `rule` says what counts beside cloud, the same word for every product, and is written in the
 * tool's stats and summary: `cloud` (default: cloud, shadow, cirrus; MOD13 cloudy), `cloud_snow`
 * (also snow/ice, which MODIS land users drop for vegetation work), `strict` (also marginal / probably
 * clear / small cirrus / adjacent to cloud: only good-quality pixels stay 0).
 */
import * as path from 'node:path';

export const QA_RULES = ['cloud', 'cloud_snow', 'strict'] as const;
export type QaRule = typeof QA_RULES[number];

export type LandQaKind = 'modis_state' | 'mod13_reliability' | 'mod13_vi_quality' | 'mcd43_quality' | 'viirs_qf';

export interface LandQaField {
  kind: LandQaKind;
  /** The field's name after `#` (with its grid prefix when the path gave one). */
  field: string;
  /** VIIRS QF: which of QF1/QF2 this field is. */
  qf?: 1 | 2;
}

/** The field name after the last `#` of a source, or undefined. */
function fieldOf(source: string): string | undefined {
  const i = source.lastIndexOf('#');
  return i < 0 ? undefined : source.slice(i + 1);
}

/** VIIRS land files (VNP…, VJ1…, VJ2…, HDF5): their `pixel reliability` is VNP13's other scale, not MOD13's. */
function isViirsFile(source: string): boolean {
  const base = path.basename(source.slice(0, source.lastIndexOf('#') < 0 ? undefined : source.lastIndexOf('#')));
  return /^V(?:NP|J\d)/i.test(base) || /\.(?:h5|he5)$/i.test(base);
}

/** The land QA field a source names after `#`, or undefined (another field, or none named). */
export function landQaField(source: string): LandQaField | undefined {
  const f = fieldOf(source);
  if (f === undefined) return undefined;
  const name = f.slice(f.lastIndexOf('/') + 1);
  if (/^(?:state_1km(?:_1)?|sur_refl_state_(?:500m|250m)|SurfReflect_State(?:_500m|_1km)?)$/i.test(name)) return { kind: 'modis_state', field: f };
  if (/^(?:\d+ ?k?m|CMG 0\.05 Deg) (?:16 days|monthly) pixel reliability$/i.test(name) && !isViirsFile(source)) return { kind: 'mod13_reliability', field: f };
  if (/^(?:\d+ ?k?m|CMG 0\.05 Deg) (?:16 days|monthly) VI Quality$/i.test(name) && !isViirsFile(source)) return { kind: 'mod13_vi_quality', field: f };
  if (/^BRDF_Albedo_Band_Mandatory_Quality_(?:Band[1-7]|[IM]\d{1,2})$/i.test(name)) return { kind: 'mcd43_quality', field: f };
  const qf = /^SurfReflect_QF([12])(?:_1)?$/i.exec(name);
  if (qf) return { kind: 'viirs_qf', field: f, qf: Number(qf[1]) as 1 | 2 };
  return undefined;
}

/** The other VIIRS QF field of the pair (QF1 ↔ QF2, the same suffix and grid prefix): the source that names it. */
export function viirsSibling(source: string, qf: 1 | 2): string {
  const i = source.lastIndexOf('#');
  return source.slice(0, i + 1) + source.slice(i + 1).replace(/(SurfReflect_QF)[12]/i, `$1${qf === 1 ? 2 : 1}`);
}

/** What a mask of `kind` under `rule` flags, for the summary: words first (translated), the bit rule in parentheses. */
export function qaWhat(kind: LandQaKind, rule: QaRule, qfs: (1 | 2)[] = [1, 2]): string {
  switch (kind) {
    case 'modis_state':
      return rule === 'cloud' ? 'cloud, cloud shadow or cirrus (MODIS state: cloudy or mixed, shadow, average or high cirrus, internal cloud flag)'
        : rule === 'cloud_snow' ? 'cloud, cloud shadow, cirrus or snow/ice (MODIS state: cloudy or mixed, shadow, average or high cirrus, internal cloud flag, MOD35 or internal snow flag, rule cloud_snow)'
          : 'cloud, cloud shadow, cirrus, snow/ice or next to cloud (MODIS state: cloudy or mixed, shadow, any cirrus, internal cloud flag, snow flags, adjacent to cloud, rule strict)';
    case 'mod13_reliability':
      return rule === 'cloud' ? 'cloudy (MOD13 pixel reliability 3, snow/ice 2 and marginal 1 kept as 0)'
        : rule === 'cloud_snow' ? 'cloudy or snow/ice (MOD13 pixel reliability 2 or 3, marginal 1 kept as 0, rule cloud_snow)'
          : 'not good quality (MOD13 pixel reliability 1 marginal, 2 snow/ice or 3 cloudy, rule strict)';
    case 'mod13_vi_quality':
      return rule === 'cloud' ? 'cloud or cloud shadow (MOD13 VI Quality: MODLAND QA 10 probably cloudy, bit 10 mixed clouds, bit 15 possible shadow, MODLAND 11 not produced is nodata)'
        : rule === 'cloud_snow' ? 'cloud, cloud shadow or snow/ice (MOD13 VI Quality: MODLAND QA 10, bit 10 mixed clouds, bit 15 possible shadow, bit 14 possible snow/ice, rule cloud_snow)'
          : 'not good quality (MOD13 VI Quality: MODLAND QA 01 or 10, mixed clouds, shadow, snow/ice, bit 8 adjacent cloud, high aerosol, rule strict)';
    case 'mcd43_quality':
      return 'magnitude inversion, lower quality (MCD43 mandatory quality 1, 0 is full BRDF inversion)';
    case 'viirs_qf': {
      const parts: string[] = [];
      if (qfs.includes(1)) parts.push(rule === 'strict' ? 'QF1 cloud confidence probably clear, probably or confidently cloudy' : 'QF1 cloud confidence probably or confidently cloudy');
      if (qfs.includes(2)) parts.push(`QF2 cloud shadow, thin cirrus${rule === 'cloud' ? '' : ', snow/ice'}`);
      const words = !qfs.includes(2) ? (rule === 'strict' ? 'cloud or possible cloud' : 'cloud')
        : !qfs.includes(1) ? (rule === 'cloud' ? 'cloud shadow or cirrus' : 'cloud shadow, cirrus or snow/ice')
          : rule === 'cloud' ? 'cloud, cloud shadow or cirrus' : rule === 'cloud_snow' ? 'cloud, cloud shadow, cirrus or snow/ice' : 'cloud, possible cloud, cloud shadow, cirrus or snow/ice';
      return `${words} (VIIRS ${parts.join(' + ')}${rule === 'cloud' ? '' : `, rule ${rule}`})`;
    }
  }
}

// -----------------------------------------------------------------------------------------------
// Per-pixel rules (kernels.ts runs them on float windows: NaN is nodata, the result 1, 0 or NaN).

/** MOD09 (and VNP09H1/A1) state bits. */
export function stateFlag(x: number, rule: QaRule): number {
  if (x !== x) return NaN;
  const state = x & 3, cirrus = (x >> 8) & 3;
  if (state === 1 || state === 2 || (x & 4) || cirrus >= 2 || (x & 1024)) return 1;
  if (rule === 'cloud') return 0;
  // Bit 12 MOD35 snow/ice, bit 15 the internal snow mask.
  if ((x & 4096) || (x & 32768)) return 1;
  if (rule === 'cloud_snow') return 0;
  // Small cirrus, adjacent to cloud.
  return cirrus === 1 || (x & 8192) ? 1 : 0;
}

/** MOD13 pixel reliability; anything outside 0..3 (the fill −1, a damaged value) is nodata. */
export function reliabilityFlag(x: number, rule: QaRule): number {
  if (x !== x || x < 0 || x > 3 || x !== Math.floor(x)) return NaN;
  return x === 3 || (x === 2 && rule !== 'cloud') || (x === 1 && rule === 'strict') ? 1 : 0;
}

/** MOD13 VI Quality bits; MODLAND QA 11 (not produced) and the fill 65535 are nodata. */
export function viQualityFlag(x: number, rule: QaRule): number {
  if (x !== x || x === 65535) return NaN;
  const modland = x & 3;
  if (modland === 3) return NaN;
  if (modland === 2 || (x & 1024) || (x & 32768)) return 1;
  if (rule === 'cloud') return 0;
  if (x & 16384) return 1;
  if (rule === 'cloud_snow') return 0;
  return modland === 1 || (x & 256) || ((x >> 6) & 3) === 3 ? 1 : 0;
}

/** MCD43 mandatory quality: 0 full inversion, 1 magnitude inversion; anything else (255 fill) nodata. */
export function mandatoryQualityFlag(x: number): number {
  return x === 0 ? 0 : x === 1 ? 1 : NaN;
}

/** VIIRS QF1 (cloud confidence, bits 2-3). */
export function qf1Flag(x: number, rule: QaRule): number {
  if (x !== x) return NaN;
  const conf = (x >> 2) & 3;
  return conf >= 2 || (conf === 1 && rule === 'strict') ? 1 : 0;
}

/** VIIRS QF2 (bit 3 shadow, bits 6-7 thin cirrus, bit 5 snow/ice). */
export function qf2Flag(x: number, rule: QaRule): number {
  if (x !== x) return NaN;
  return (x & (8 | 64 | 128)) || (rule !== 'cloud' && (x & 32)) ? 1 : 0;
}
