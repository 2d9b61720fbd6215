/**
 * Colour tables and category names of class rasters, as GDAL reads them: a TIFF ColorMap (tag 320,
 * PhotometricInterpretation 3 "palette") and the `<CategoryNames>` of the GDAL PAM sidecar
 * `<file>.aux.xml`. ESA WorldCover, NLCD, CORINE and most classification products carry both; a
 * raster drawn with them looks as it does in QGIS and its legend says "Tree cover", not "class 10".
 *
 * A table is kept compact (3 bytes an entry: a 16-bit raster's 65536 entries are 192 KB, no objects),
 * and what a legend or a style lists is only the classes present or named (usedClasses), never the
 * whole table. Pure Node (the PAM file is read synchronously; it is small and bounded).
 */
import * as fs from 'node:fs';

/** A colour table: entry v (a pixel value) has colour rgb[3v], rgb[3v+1], rgb[3v+2]. */
export interface ColorTable { rgb: Uint8Array; count: number }

/** The TIFF tag and PhotometricInterpretation value of a colour table. */
export const TAG_COLORMAP = 320;
export const PHOTOMETRIC_PALETTE = 3;

/** Largest PAM sidecar read for category names (NLCD's and CORINE's are a few KB). */
export const MAX_PAM_BYTES = 4 << 20;
/** Category names kept per band (a 16-bit raster's values) and characters a name keeps. */
export const MAX_CATEGORIES = 65536;
export const MAX_CATEGORY_CHARS = 200;

/**
 * The colour table of a band from a TIFF ColorMap (red values of every entry, then green, then blue,
 * 16 bits each), scaled to 8 bits as GDAL does (÷257, so 65535 → 255). Returns a reason instead when
 * the map does not fit the samples: GDAL (libtiff) ignores such a tag and shows no table, so do we.
 */
export function colorTableFromColorMap(map: ArrayLike<number> | undefined, bits: number, sampleFormat: number, bands: number): ColorTable | string {
  if (!map || typeof map !== 'object' || typeof map.length !== 'number') return 'the ColorMap tag has no values';
  if (bands !== 1) return `a ColorMap with ${bands} samples per pixel is not a palette`;
  if (sampleFormat !== 1 || !(Number.isInteger(bits) && bits >= 1 && bits <= 16)) return `a ColorMap with ${bits}-bit ${sampleFormat === 1 ? 'unsigned' : 'signed or float'} samples (palettes index 1–16-bit unsigned values)`;
  const count = 2 ** bits;
  if (map.length !== 3 * count) return `the ColorMap has ${map.length} values; ${bits}-bit samples need 3 × ${count} = ${3 * count}`;
  const rgb = new Uint8Array(3 * count);
  for (let v = 0; v < count; v++) {
    for (let c = 0; c < 3; c++) {
      const x = Number(map[c * count + v]);
      rgb[3 * v + c] = x >= 0 && x <= 65535 ? Math.floor(x / 257) : 0;
    }
  }
  return { rgb, count };
}

/** The 16-bit ColorMap values of a table (entries × 257), as GDAL writes them. */
export function colorMapValues(t: ColorTable): Uint16Array {
  const out = new Uint16Array(3 * t.count);
  for (let v = 0; v < t.count; v++) for (let c = 0; c < 3; c++) out[c * t.count + v] = t.rgb[3 * v + c] * 257;
  return out;
}

/** The colour of value `v`, or undefined when the table has no such entry (fractions, negatives, beyond it). */
export function tableColor(t: ColorTable, v: number): [number, number, number] | undefined {
  if (!(Number.isInteger(v) && v >= 0 && v < t.count)) return undefined;
  return [t.rgb[3 * v], t.rgb[3 * v + 1], t.rgb[3 * v + 2]];
}

/**
 * The colour most entries have when more than half of them do (GDAL and the products fill unused
 * entries with one colour, usually black): entries of that colour are not classes of their own.
 */
export function fillerColor(t: ColorTable): number | undefined {
  const counts = new Map<number, number>();
  let best = -1, bestN = 0;
  for (let v = 0; v < t.count; v++) {
    const k = (t.rgb[3 * v] << 16) | (t.rgb[3 * v + 1] << 8) | t.rgb[3 * v + 2];
    const n = (counts.get(k) ?? 0) + 1;
    counts.set(k, n);
    if (n > bestN) { bestN = n; best = k; }
  }
  return bestN * 2 > t.count ? best : undefined;
}

/**
 * Values a legend or style lists for a table: those `present`, those with a category name, and every
 * entry whose colour is not the filler colour, in value order, at most `limit` (present and named
 * first). `nodata` is left out (drawn transparent).
 */
export function usedValues(t: ColorTable, present: Iterable<number>, names?: readonly (string | null | undefined)[] | null, nodata?: number | null, limit = 4096): number[] {
  const keep = new Set<number>();
  const add = (v: number) => { if (keep.size < limit && Number.isInteger(v) && v >= 0 && v < t.count && v !== nodata) keep.add(v); };
  for (const v of present) add(v);
  if (names) for (let v = 0; v < Math.min(names.length, t.count); v++) if (names[v]) add(v);
  const filler = fillerColor(t);
  for (let v = 0; v < t.count && keep.size < limit; v++) {
    const k = (t.rgb[3 * v] << 16) | (t.rgb[3 * v + 1] << 8) | t.rgb[3 * v + 2];
    if (k !== filler) add(v);
  }
  return [...keep].sort((a, b) => a - b);
}

function unescapeXml(s: string): string {
  return s.replace(/&#x([0-9a-f]+);/gi, (_, h) => String.fromCodePoint(Math.min(0x10ffff, parseInt(h, 16))))
    .replace(/&#(\d+);/g, (_, d) => String.fromCodePoint(Math.min(0x10ffff, Number(d))))
    .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
}

/** Category names per band (index = pixel value; '' for a value without a name), or null for a band without. */
export type CategoryNames = (string[] | null)[];

/**
 * Category names of every band from a GDAL PAM document (`<PAMDataset><PAMRasterBand band="N">
 * <CategoryNames><Category>…`): undefined when it has none. Throws an Error saying what is wrong when
 * the document is not PAM XML or its CategoryNames are not closed. Linear (indexOf scanning).
 */
export function parsePamCategoryNames(xml: string, bands: number): CategoryNames | undefined {
  if (!/^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<PAMDataset[\s>]/.test(xml.slice(0, 4096))) throw new Error('it is not a GDAL PAM document (no <PAMDataset> root)');
  if (!xml.includes('</PAMDataset>')) throw new Error('its <PAMDataset> element is not closed');
  const out: CategoryNames = Array.from({ length: bands }, () => null);
  let found = false;
  let at = 0;
  for (;;) {
    const open = xml.indexOf('<PAMRasterBand', at);
    if (open < 0) break;
    const gt = xml.indexOf('>', open);
    if (gt < 0) throw new Error(`a <PAMRasterBand> tag at character ${open} is not closed`);
    const end = xml.indexOf('</PAMRasterBand>', gt);
    if (end < 0) throw new Error(`the <PAMRasterBand> at character ${open} is not closed`);
    at = end + 16;
    const band = Number(/\bband="(\d+)"/.exec(xml.slice(open, gt))?.[1] ?? NaN);
    if (!(Number.isInteger(band) && band >= 1 && band <= bands)) continue;
    const cOpen = xml.indexOf('<CategoryNames', gt);
    if (cOpen < 0 || cOpen > end) continue;
    const cGt = xml.indexOf('>', cOpen);
    if (xml[cGt - 1] === '/') continue; // <CategoryNames/>
    const cEnd = xml.indexOf('</CategoryNames>', cGt);
    if (cEnd < 0 || cEnd > end) throw new Error(`the <CategoryNames> of band ${band} is not closed`);
    const names: string[] = [];
    let p = cGt + 1;
    while (names.length < MAX_CATEGORIES) {
      const c = xml.indexOf('<Category', p);
      if (c < 0 || c > cEnd) break;
      const t = xml.indexOf('>', c);
      if (t < 0 || t > cEnd) throw new Error(`a <Category> of band ${band} is not closed`);
      if (xml[t - 1] === '/') { names.push(''); p = t + 1; continue; }
      const close = xml.indexOf('</Category>', t);
      if (close < 0 || close > cEnd) throw new Error(`a <Category> of band ${band} is not closed`);
      names.push(unescapeXml(xml.slice(t + 1, close)).replace(/[\u0000-\u001f\u007f]/g, ' ').trim().slice(0, MAX_CATEGORY_CHARS));
      p = close + 11;
    }
    if (names.some((n) => n)) { out[band - 1] = names; found = true; }
  }
  return found ? out : undefined;
}

/** The warning for a sidecar past MAX_PAM_BYTES (`size` in bytes, when known). */
export function pamTooLarge(aux: string, size?: number): string {
  return `${aux}: ${size === undefined ? 'more than' : `${size} bytes is more than`} the ${MAX_PAM_BYTES >> 20} MB read for category names; they are ignored`;
}

/**
 * Category names from the text of the PAM sidecar `aux` (its name in messages), local or remote
 * alike: a document that is not PAM XML is ignored with a warning naming it, since the raster
 * itself is fine (GDAL also opens it with a warning).
 */
export function categoryNamesFromPam(aux: string, xml: string, bands: number, warn: (message: string) => void): CategoryNames | undefined {
  try { return parsePamCategoryNames(xml, bands); } catch (e) { warn(`${aux}: ${(e as Error).message}; category names are ignored`); return undefined; }
}

/**
 * Category names from `<tiff>.aux.xml` beside a local raster: undefined without the file or without
 * names. A sidecar that is too large, unreadable or not PAM XML is ignored with a warning naming it:
 * `warn` receives the message.
 */
export function readCategoryNames(tiff: string, bands: number, warn: (message: string) => void): CategoryNames | undefined {
  const aux = `${tiff}.aux.xml`;
  let st: fs.Stats;
  try { st = fs.statSync(aux); } catch { return undefined; }
  if (!st.isFile()) return undefined;
  if (st.size > MAX_PAM_BYTES) { warn(pamTooLarge(aux, st.size)); return undefined; }
  let xml: string;
  try { xml = fs.readFileSync(aux, 'utf8'); } catch (e) { warn(`${aux}: cannot read it (${(e as Error).message}); category names are ignored`); return undefined; }
  return categoryNamesFromPam(aux, xml, bands, warn);
}
