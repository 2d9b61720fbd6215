/**
 * The names GDAL's GRIB driver (degrib's tables) gives a field: its element (TMP, UGRD, 2T), the
 * comment and unit, and its level ("2[m] HTGL=…"), for the parameters and levels that reanalysis
 * and forecast files mostly hold. Each string was read off GDAL 3.6's gdalinfo. degrib knows many
 * more; a parameter not listed here is named as degrib names one it does not know, and the values
 * are not converted. Temperatures in K become °C, as GDAL does by default (GRIB_NORMALIZE_UNITS).
 */

/** [element, description, unit as degrib writes it]; a unit of "K" is converted to C. */
type Param = [string, string, string];

/** GRIB2 parameters by `discipline.category.number`. */
const GRIB2: Record<string, Param> = {
  '0.0.0': ['TMP', 'Temperature', 'K'], '0.0.2': ['POT', 'Potential temperature', 'K'],
  '0.0.4': ['TMAX', 'Maximum temperature', 'K'], '0.0.5': ['TMIN', 'Minimum temperature', 'K'],
  '0.0.6': ['DPT', 'Dew point temperature', 'K'], '0.0.17': ['SKINT', 'Skin temperature', 'K'],
  '0.1.0': ['SPFH', 'Specific humidity', 'kg/kg'], '0.1.1': ['RH', 'Relative humidity', '%'],
  '0.1.3': ['PWAT', 'Precipitable water', 'kg/(m^2)'], '0.1.7': ['PRATE', 'Precipitation rate', 'kg/(m^2 s)'],
  '0.1.8': ['APCP', 'Total precipitation', 'kg/(m^2)'], '0.1.11': ['SNOD', 'Snow depth', 'm'],
  '0.1.13': ['WEASD', 'Water equivalent of accumulated snow depth', 'kg/(m^2)'], '0.1.60': ['SDWE', 'Snow depth water equivalent', 'kg/m^2'],
  '0.2.0': ['WDIR', 'Wind direction (from which blowing)', 'deg true'], '0.2.1': ['WIND', 'Wind speed', 'm/s'],
  '0.2.2': ['UGRD', 'u-component of wind', 'm/s'], '0.2.3': ['VGRD', 'v-component of wind', 'm/s'],
  '0.2.8': ['VVEL', 'Vertical velocity (pressure)', 'Pa/s'], '0.2.22': ['GUST', 'Wind speed (gust)', 'm/s'],
  '0.3.0': ['PRES', 'Pressure', 'Pa'], '0.3.1': ['PRMSL', 'Pressure reduced to MSL', 'Pa'],
  '0.3.4': ['GP', 'Geopotential', '(m^2)/(s^2)'], '0.3.5': ['HGT', 'Geopotential height', 'gpm'],
  '0.6.1': ['TCDC', 'Total cloud cover', '%'], '0.7.6': ['CAPE', 'Convective available potential energy', 'J/kg'],
  '0.7.7': ['CIN', 'Convective inhibition', 'J/kg'], '0.19.0': ['VIS', 'Visibility', 'm'],
  '2.0.0': ['LAND', 'Land cover (1=land; 2=sea)', 'Proportion'],
  '10.0.3': ['HTSGW', 'Significant height of combined wind waves and swell', 'm'],
};

/**
 * GRIB1 parameters by `table.number`: WMO table 2 (versions 1–3) and ECMWF's table 128 (ERA5). degrib
 * labels ECMWF's surface temperatures [C] and yet leaves them in K (only `T` is converted): so does this.
 */
const GRIB1: Record<string, Param> = {
  '3.11': ['TMP', 'Temperature', 'K'], '3.2': ['PRMSL', 'Pressure reduced to MSL', 'Pa'],
  '3.1': ['PRES', 'Pressure', 'Pa'], '3.7': ['HGT', 'Geopotential height', 'gpm'],
  '3.33': ['UGRD', 'u-component of wind', 'm/s'], '3.34': ['VGRD', 'v-component of wind', 'm/s'],
  '3.52': ['RH', 'Relative humidity', '%'], '3.61': ['APCP', 'Total precipitation', 'kg/m^2'],
  '128.167': ['2T', '2 metre temperature', 'C'], '128.168': ['2D', '2 metre dewpoint temperature', 'C'],
  '128.165': ['10U', '10 metre u wind component', 'm/s'], '128.166': ['10V', '10 metre v wind component', 'm/s'],
  '128.151': ['MSL', 'Mean sea level pressure', 'Pa'], '128.134': ['SP', 'Surface pressure', 'Pa'],
  '128.130': ['T', 'Temperature', 'K'], '128.129': ['Z', 'Geopotential (at the surface = orography)', 'm^2/s^2'],
  '128.228': ['TP', 'Total precipitation', 'm'], '128.235': ['SKT', 'Skin Temperature', 'C'],
  '128.131': ['U', 'U-velocity', 'm/s'], '128.132': ['V', 'V-velocity', 'm/s'], '128.7': ['SCFR', 'Soil clay fraction', '-'],
};
for (const v of [1, 2]) for (const [k, p] of Object.entries(GRIB1)) if (k.startsWith('3.')) GRIB1[`${v}.${k.slice(2)}`] = p;

/** GRIB2 fixed surfaces (code table 4.5): short name, long name, unit. */
const SURFACES: Record<number, [string, string, string]> = {
  1: ['SFC', 'Ground or water surface', '-'], 4: ['0DEG', 'Level of 0 degree C isotherm', '-'],
  6: ['MWSL', 'Maximum wind level', '-'], 7: ['TRO', 'Tropopause', '-'], 8: ['NTAT', 'Nominal top of atmosphere', '-'],
  10: ['EATM', 'Entire Atmosphere', '-'], 100: ['ISBL', 'Isobaric surface', 'Pa'], 101: ['MSL', 'Mean sea level', '-'],
  102: ['GPML', 'Specific altitude above mean sea level', 'm'], 103: ['HTGL', 'Specified height level above ground', 'm'],
  104: ['SIGL', 'Sigma level', "'sigma' value"], 105: ['HYBL', 'Hybrid level', '-'], 106: ['DBLL', 'Depth below land surface', 'm'],
  108: ['SPDL', 'Level at specified pressure difference from ground to level', 'Pa'], 160: ['DBSL', 'Depth below sea level', 'm'],
  255: ['MISSING', 'Missing', '-'],
};

/** GRIB1 level types (table 3) as degrib maps them onto GRIB2's surfaces, with the unit of their value. */
const GRIB1_LEVELS: Record<number, { surface: number; scale: number }> = {
  1: { surface: 1, scale: 1 }, 100: { surface: 100, scale: 100 }, 102: { surface: 101, scale: 1 }, 105: { surface: 103, scale: 1 }, 109: { surface: 105, scale: 1 },
};

export interface FieldNames {
  element: string; comment: string; unit: string;
  /** Kelvin fields: GDAL reports them in °C (value − 273.15). */
  kelvin: boolean;
}

function named(p: Param | undefined, unknown: string): FieldNames {
  if (!p) return { element: 'unknown', comment: `${unknown} [-]`, unit: '[-]', kelvin: false };
  const kelvin = p[2] === 'K';
  const unit = `[${kelvin ? 'C' : p[2]}]`;
  return { element: p[0], comment: `${p[1]} ${unit}`, unit, kelvin };
}

export function grib2Names(discipline: number, category: number, num: number): FieldNames {
  if (num === 255 && category !== 255) return { element: 'Missing', comment: 'Missing []', unit: '[]', kelvin: false };
  return named(GRIB2[`${discipline}.${category}.${num}`], `(prodType ${discipline}, cat ${category}, subcat ${num})`);
}

const CENTRE_SHORT: Record<number, string> = { 7: 'NCEP', 98: 'ECMWF', 34: 'JMA', 74: 'UKMET' };

export function grib1Names(table: number, param: number, centre: number): FieldNames {
  const p = GRIB1[`${table}.${param}`];
  if (!p) return { element: `var${param} of table ${table} of center ${CENTRE_SHORT[centre] ?? centre}`, comment: 'undefined [-]', unit: '[-]', kelvin: false };
  return named(p, '');
}

/** A level value as degrib prints it (%g: 0.995, 50000). */
function num(v: number): string { return String(Number(v.toPrecision(6))); }

/**
 * The band description and GRIB_SHORT_NAME of a level: `2[m] HTGL="Specified height level above
 * ground"` and `2-HTGL`; a layer between two surfaces of one kind is `0-0.1[m] DBLL=…`.
 */
export function levelNames(type: number, value: number, type2?: number, value2?: number): { description: string; shortName: string } {
  const s = SURFACES[type];
  const v = type2 === type && type !== 255 && value2 !== undefined ? `${num(value)}-${num(value2)}` : num(value);
  if (s) return { description: `${v}[${s[2]}] ${s[0]}="${s[1]}"`, shortName: `${v}-${s[0]}` };
  if (type >= 192 && type <= 254) return { description: `${v}[-] RESERVED(${type}) (Reserved Local use)`, shortName: `${v}-RESERVED(${type})` };
  return { description: `${v}[-] RESERVED="Reserved"`, shortName: `${v}-RESERVED` };
}

/** A GRIB1 level (type, its one or two octets of value) as the GRIB2 surface degrib maps it to. */
export function grib1Level(type: number, value: number): { type: number; value: number } {
  const l = GRIB1_LEVELS[type];
  return l ? { type: l.surface, value: value * l.scale } : { type: 0, value };
}

const DISCIPLINES: Record<number, string> = { 0: 'Meteorological', 1: 'Hydrological', 2: 'Land_Surface', 3: 'Space_Products', 10: 'Oceanographic_Products' };

/** GRIB_DISCIPLINE as GDAL writes it: `0(Meteorological)`. */
export function disciplineName(d: number): string { return `${d}(${DISCIPLINES[d] ?? 'Unknown'})`; }
