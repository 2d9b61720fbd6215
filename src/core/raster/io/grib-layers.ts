/**
 * The messages of a GRIB file as layers, named as an analyst would name them after `#`
 * (grib-select.ts): the element where one field has it (`era5.grib#2T`, `gfs.grib2#PRMSL`), else
 * element and level where those tell it apart (`gfs.grib2#TMP:85000-ISBL`), else its band number
 * (`#7`: the same element at the same level, e.g. two forecast hours). Every name opens its field
 * again through selectField, so a listed name never fails or picks another field.
 *
 * Listing reads section headers only (grib.ts's gribFields), never data: a GFS file of ~700 messages
 * lists in tens of milliseconds. A file of more than MAX_LISTED fields lists its first MAX_LISTED,
 * with a warning naming the file and how to select the others: one item per field past that is
 * more than a data list or a notebook's readiness can use, and each item is described by opening it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { GribField, ReadAt } from './grib2-sections';
import { cachedGribFields } from './grib';

/** Fields listed per file at most (a GFS 0.25° file has ~740). */
export const MAX_LISTED = 1000;

/** A name the `file#name` syntax carries as given: no `#` or `\`, no edge spaces, and not all digits (a band number). */
const plain = (s: string) => s !== '' && s === s.trim() && !/[#\\]/.test(s) && !/^\d+$/.test(s);

/**
 * The name of each field, by selectField's rules: an element matches without case and, when any
 * field has that element, only by element; element:level is tried only when no element equals it.
 */
export function gribLayerNames(fields: GribField[]): string[] {
  const element = (f: GribField) => f.metadata.GRIB_ELEMENT ?? '';
  const qualified = (f: GribField) => `${element(f)}:${f.metadata.GRIB_SHORT_NAME ?? ''}`;
  const count = (keys: string[]) => {
    const n = new Map<string, number>();
    for (const k of keys) n.set(k, (n.get(k) ?? 0) + 1);
    return n;
  };
  const elements = fields.map((f) => element(f).toLowerCase());
  const byElement = count(elements);
  const byQualified = count(fields.map((f) => qualified(f).toLowerCase()));
  return fields.map((f, i) => {
    const e = element(f), q = qualified(f);
    if (plain(e) && byElement.get(elements[i]) === 1) return e;
    // Element and level need a level, and no element spelled the same (it would be matched first).
    if (plain(q) && e && f.metadata.GRIB_SHORT_NAME && byQualified.get(q.toLowerCase()) === 1 && !byElement.has(q.toLowerCase())) return q;
    return String(i + 1);
  });
}

/**
 * The fields of the GRIB file `file` as `#` names (see the file comment), at most MAX_LISTED, with
 * `warn` told of any left out. Throws naming the file when its headers cannot be read.
 */
export async function gribLayers(file: string, warn: (message: string) => void = () => undefined, signal?: AbortSignal): Promise<string[]> {
  const fh = await fs.promises.open(file, 'r');
  try {
    const size = (await fh.stat()).size;
    const readAt: ReadAt = async (at, n) => {
      if (at < 0 || n < 0 || at + n > size) throw new Error(`a read of ${n} bytes at ${at} runs past the end of the file (${size} bytes); the file is cut short`);
      const b = Buffer.alloc(n);
      const { bytesRead } = await fh.read(b, 0, n, at);
      if (bytesRead < n) throw new Error(`the file ended while reading ${n} bytes at ${at}; it changed while it was listed`);
      return b;
    };
    let fields: GribField[];
    try {
      ({ fields } = await cachedGribFields(fh, readAt, file, signal));
    } catch (e) {
      if (signal?.aborted) throw e;
      throw new Error(`${file}: ${(e as Error).message}`);
    }
    const names = gribLayerNames(fields);
    if (names.length > MAX_LISTED) {
      const base = path.basename(file);
      warn(`${file}: holds ${names.length} GRIB fields; the first ${MAX_LISTED} are listed. Name another by its band number (${base}#${MAX_LISTED + 1} … ${base}#${names.length}, as gdalinfo numbers them) or its element and level (${base}#TMP:85000-ISBL), or split the file (grib_copy -w shortName=t)`);
      return names.slice(0, MAX_LISTED);
    }
    return names;
  } finally {
    await fh.close();
  }
}
