/**
 * One message of a GRIB file named after `#` (`gfs.grib2#5`, `era5.grib#2T`, `gfs.grib2#TMP:2-HTGL`),
 * as other files of several layers name one (`era5.nc#t2m`). A number is the band number GDAL gives
 * the field (every field of every message in file order, also those on another grid than the first);
 * a name is the field's GRIB_ELEMENT, or element and GRIB_SHORT_NAME (its level) joined by `:`,
 * compared without case (ERA5's `2t` is GDAL's `2T`). A name must match one field: a GFS file has
 * TMP at forty levels, and reading one of them silently would be a guess.
 */
import * as path from 'node:path';
import type { GribField } from './grib2-sections';
import { isoTime } from './grib2-sections';

/** Fields listed in an error at most (a GFS file has ~700). */
const LISTED = 20;

/** `5 TMP 2-HTGL valid 2024-01-05T18:00Z`: a field as an error lists it. */
function label(f: GribField, band: number): string {
  const m = f.metadata, t = Number(m.GRIB_VALID_TIME);
  return `${band} ${m.GRIB_ELEMENT} ${m.GRIB_SHORT_NAME}${Number.isFinite(t) && m.GRIB_VALID_TIME !== '' ? ` valid ${isoTime(t)}` : ''}`;
}

/** Bands (1-based) and labels, capped, with a count of the rest. */
function listing(fields: GribField[], bands: number[]): string {
  const shown = bands.slice(0, LISTED).map((b) => label(fields[b - 1], b)).join(', ');
  return bands.length > LISTED ? `${shown}, and ${bands.length - LISTED} more (grib_ls or gdalinfo lists them all)` : shown;
}

/** Element and level of a field, as a selector names it. */
const qualified = (f: GribField) => `${f.metadata.GRIB_ELEMENT}:${f.metadata.GRIB_SHORT_NAME}`;

/** The 1-based band (index into `fields` + 1) that `selector` names; throws naming the file, the selector and the messages. */
export function selectField(fields: GribField[], selector: string, file: string): number {
  const base = path.basename(file);
  const all = fields.map((_, i) => i + 1);
  const sel = selector.trim();
  // An element to show as an example only where it names one field (a GFS file has TMP at forty levels).
  const element = (f: GribField) => f.metadata.GRIB_ELEMENT ?? '';
  // Only for an error: counting every element against every other is quadratic (6000 fields, 36 M
  // comparisons), and the scan opens each of a file's messages by name.
  const example = () => {
    const n = new Map<string, number>();
    for (const f of fields) n.set(element(f), (n.get(element(f)) ?? 0) + 1);
    const once = fields.map(element).find((e) => e && !/\s/.test(e) && n.get(e) === 1);
    return `${base}#1${once ? ` or ${base}#${once}` : ''}`;
  };
  if (/^\d+$/.test(sel)) {
    const n = Number(sel);
    if (n >= 1 && n <= fields.length) return n;
    throw new Error(`"#${selector}" names band ${sel}, and the file holds ${fields.length} (numbered 1..${fields.length} as GDAL numbers them): ${listing(fields, all)}; name one as ${example()}`);
  }
  const low = sel.toLowerCase();
  const byElement = all.filter((b) => element(fields[b - 1]).toLowerCase() === low);
  const matches = byElement.length ? byElement : all.filter((b) => qualified(fields[b - 1]).toLowerCase() === low);
  if (matches.length === 1) return matches[0];
  if (!matches.length) {
    throw new Error(`no message is "#${selector}" (by band number, element such as TMP, or element:level such as TMP:2-HTGL); its ${fields.length} message${fields.length === 1 ? '' : 's'}: ${listing(fields, all)}; name one as ${example()}`);
  }
  // Several: element and level tell them apart when they differ in level, else only the number does.
  const q = qualified(fields[matches[0] - 1]);
  const unique = all.filter((b) => qualified(fields[b - 1]) === q).length === 1;
  throw new Error(`"#${selector}" matches ${matches.length} messages: ${listing(fields, matches)}; name one by its band number, as ${base}#${matches[0]}${unique ? `, or by element and level, as ${base}#${q}` : ''}`);
}
