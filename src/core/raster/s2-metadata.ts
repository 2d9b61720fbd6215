/**
 * Sentinel-2 reflectance scaling from the product's own metadata, which is stronger evidence than a
 * file name: a SAFE's MTD_MSIL2A.xml (BOA_ADD_OFFSET, BOA_QUANTIFICATION_VALUE) or MTD_MSIL1C.xml
 * (RADIO_ADD_OFFSET, QUANTIFICATION_VALUE) above a band file in GRANULE/<id>/IMG_DATA(/R10m), or a
 * STAC item JSON beside the band files (Earth Search, Planetary Computer) whose asset points at the
 * file. Reads local files only; metadata that is too large, unreadable, malformed or of the wrong
 * type is ignored with a warning naming the file, and the caller falls back to the file name.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Reflectance = (DN + offset) × scale. */
export interface S2Scaling {
  /** Add-offset in DN (−1000 for processing baseline 04.00 and later). */
  offset: number;
  /** Reflectance per DN: 1 / quantification value (0.0001). */
  scale: number;
  /** The source and what it said, for the run's `how` ("MTD_MSIL2A.xml: BOA_ADD_OFFSET −1000"). */
  why: string;
  /** 'metadata' when the product's own files said so, 'name' when read from the file name. */
  source: 'metadata' | 'name';
  /** The processing level the metadata declares, when it does. */
  level?: 'L2A' | 'L1C';
}

/**
 * Real MTD files and STAC items are tens of KB; anything far larger is not one. The XML parser's
 * time grows with the document, so the cap also bounds what a hostile one costs (twice per run: a
 * run reads it for each band). The JSON cap bounds a folder of large unrelated JSON files.
 */
const MAX_MTD_BYTES = 1 << 20;
const MAX_ITEM_BYTES = 1 << 20;
/** JSON files looked at in one band folder (a download folder may hold many unrelated ones). */
const MAX_JSON_FILES = 32;

/**
 * The 0-based band_id of the MTD offset lists, in ESA's order (Sentinel-2 Products Specification
 * Document, Spectral_Information bandId="0" physicalBand="B1" … bandId="8" physicalBand="B8A" …
 * bandId="12" physicalBand="B12"; B8A sits between B8 and B9, so B09..B12 are ids 9..12, not 8..11).
 * Used when the MTD has no Spectral_Information_List of its own to map ids to bands.
 */
const ESA_BAND_IDS = ['B01', 'B02', 'B03', 'B04', 'B05', 'B06', 'B07', 'B08', 'B8A', 'B09', 'B10', 'B11', 'B12'];

const NUMBER = /^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/;

/** "B4" / "B04" / "b8a" → "B04" / "B8A". */
function bandToken(b: string): string {
  const m = /^B0?(\d{1,2}|8A)$/i.exec(b.trim());
  return m ? (m[1].toUpperCase() === '8A' ? 'B8A' : `B${m[1].padStart(2, '0')}`) : b.trim().toUpperCase();
}

const fmt = (n: number) => (n < 0 ? `−${-n}` : String(n));

/**
 * Scaling for band `token` ("B04"; undefined for a stack, which then takes an offset only when the
 * product gives every band the same one) of `file` from its SAFE MTD or a STAC item beside it.
 */
export function sentinel2FromMetadata(file: string, token: string | undefined, warn: (message: string) => void): S2Scaling | undefined {
  const mtd = safeMetadataFile(file);
  if (mtd) {
    const s = readSafeMtd(mtd, token, warn);
    if (s) return s;
  }
  return stacScaling(file, warn);
}

/**
 * MTD_MSIL2A.xml or MTD_MSIL1C.xml at the root of the SAFE holding `file`: the folder above
 * GRANULE (…/X.SAFE/GRANULE/<granule>/IMG_DATA/R10m/file), or a `.SAFE` folder the file is in.
 */
export function safeMetadataFile(file: string): string | undefined {
  let dir = path.dirname(path.resolve(file));
  for (let up = 0; up < 6; up++) {
    const parent = path.dirname(dir);
    const root = path.basename(dir) === 'GRANULE' ? parent : /\.SAFE$/i.test(dir) ? dir : undefined;
    if (root) {
      for (const n of ['MTD_MSIL2A.xml', 'MTD_MSIL1C.xml']) {
        const p = path.join(root, n);
        // Anything by that name counts: one that is not a regular file is then refused with a warning.
        try { fs.statSync(p); return p; } catch { /* not this one */ }
      }
    }
    if (parent === dir) break;
    dir = parent;
  }
  return undefined;
}

/** The elements named `tag` anywhere below `doc`, as [attributes, text] pairs. */
type El = { attr: (n: string) => string | null; text: string };
function elements(doc: { getElementsByTagName(n: string): ArrayLike<unknown> }, tag: string): El[] {
  const list = doc.getElementsByTagName(tag) as ArrayLike<{ getAttribute(n: string): string | null; textContent: string | null }>;
  const out: El[] = [];
  for (let i = 0; i < list.length && i < 1000; i++) out.push({ attr: (n) => list[i].getAttribute(n), text: list[i].textContent ?? '' });
  return out;
}

/** Parses an MTD document; a warning naming `label` and undefined when it cannot be used. */
export function parseSafeMtd(xml: string, label: string, token: string | undefined, warn: (message: string) => void): S2Scaling | undefined {
  const errors: string[] = [];
  let doc: { getElementsByTagName(n: string): ArrayLike<unknown>; documentElement?: { localName?: string } | null } | undefined;
  try {
    const { DOMParser } = require('@xmldom/xmldom') as typeof import('@xmldom/xmldom');
    doc = new DOMParser({ onError: (level: string, msg: string) => { if (level !== 'warning') errors.push(msg); } }).parseFromString(xml, 'text/xml') as unknown as typeof doc;
  } catch (e) {
    errors.push((e as Error).message);
  }
  const root = doc?.documentElement?.localName ?? '';
  if (errors.length || !doc || !root) {
    // Where, not what: the parser quotes tag and entity names, and a planted link can make any file the "MTD".
    const at = /line:(\d+),col:(\d+)/.exec(errors.join(' '));
    warn(`${label}: not well-formed XML${at ? ` (line ${at[1]}, column ${at[2]})` : ''}; its offsets are ignored, the file name decides`);
    return undefined;
  }
  const l2a = /Level-2A/i.test(root) || elements(doc, 'BOA_QUANTIFICATION_VALUE').length > 0 || elements(doc, 'BOA_ADD_OFFSET').length > 0;
  const level = l2a ? 'L2A' : /Level-1C/i.test(root) || elements(doc, 'QUANTIFICATION_VALUE').length > 0 ? 'L1C' : undefined;
  const [offTag, qTag] = l2a ? ['BOA_ADD_OFFSET', 'BOA_QUANTIFICATION_VALUE'] : ['RADIO_ADD_OFFSET', 'QUANTIFICATION_VALUE'];
  const bad = (what: string) => { warn(`${label}: ${what}; its offsets are ignored, the file name decides`); return undefined; };

  const qEl = elements(doc, qTag)[0];
  let quant = 10000;
  if (qEl) {
    if (!NUMBER.test(qEl.text) || !(Number(qEl.text) > 0)) return bad(`${qTag} "${qEl.text.trim().slice(0, 40)}" is not a positive number`);
    quant = Number(qEl.text);
  }
  const baselineText = elements(doc, 'PROCESSING_BASELINE')[0]?.text.trim();
  const baseline = baselineText && /^\d{2}\.\d{2}$/.test(baselineText) ? baselineText : undefined;
  // The product's own id → band map wins over the fixed ESA order when it is there.
  const ids = new Map<string, string>();
  for (const s of elements(doc, 'Spectral_Information')) {
    const id = s.attr('bandId'), b = s.attr('physicalBand');
    if (id !== null && b) ids.set(bandToken(b), id.trim());
  }
  const offsets = new Map<string, number>();
  for (const o of elements(doc, offTag)) {
    const id = o.attr('band_id');
    if (id === null) continue;
    if (!NUMBER.test(o.text)) return bad(`${offTag} band_id="${id.slice(0, 20)}" is "${o.text.trim().slice(0, 40)}", not a number`);
    const v = Number(o.text);
    // ESA's offsets take DNs down (−1000); a positive one or one past the whole scale is not an offset.
    if (!Number.isFinite(v) || v > 0 || v < -quant) return bad(`${offTag} band_id="${id.slice(0, 20)}" is ${v}, outside −${quant}..0`);
    offsets.set(id.trim(), v);
  }
  const tail = `${qEl ? `, ${qTag} ${quant}` : ''}${baseline ? `, baseline ${baseline}` : ''}`;
  const name = path.basename(label);
  if (offsets.size) {
    let id: string | undefined;
    if (token) id = ids.get(token) ?? (ESA_BAND_IDS.indexOf(token) >= 0 ? String(ESA_BAND_IDS.indexOf(token)) : undefined);
    const v = id !== undefined ? offsets.get(id) : undefined;
    if (v !== undefined) return { offset: v, scale: 1 / quant, why: `${name}: ${offTag} ${fmt(v)} (band_id ${id} = ${token})${tail}`, source: 'metadata', level };
    const all = new Set(offsets.values());
    if (all.size === 1) {
      const only = [...all][0];
      return { offset: only, scale: 1 / quant, why: `${name}: ${offTag} ${fmt(only)} for every band${tail}`, source: 'metadata', level };
    }
    return bad(`no ${offTag} for ${token ?? 'this file'} and the bands' offsets differ`);
  }
  // Products before baseline 04.00 have no offset list at all.
  if (baseline) {
    const off = Number(baseline.slice(0, 2)) >= 4 ? -1000 : 0;
    return { offset: off, scale: 1 / quant, why: `${name}: PROCESSING_BASELINE ${baseline}${off ? ` (≥ 04.00, no ${offTag} list): offset −1000` : ' (< 04.00): no offset'}${qEl ? `, ${qTag} ${quant}` : ''}`, source: 'metadata', level };
  }
  return bad(`no ${offTag} list and no PROCESSING_BASELINE`);
}

function readSafeMtd(file: string, token: string | undefined, warn: (message: string) => void): S2Scaling | undefined {
  const text = readCapped(file, MAX_MTD_BYTES, warn);
  return text === undefined ? undefined : parseSafeMtd(text, file, token, warn);
}

/** A regular file's text up to `max` bytes; larger or unreadable ones are refused with a warning. */
function readCapped(file: string, max: number, warn: (message: string) => void): string | undefined {
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) { warn(`${file}: not a regular file; ignored`); return undefined; }
    if (st.size > max) { warn(`${file}: ${st.size} bytes is more than the ${max >> 20} MB read for product metadata; ignored, the file name decides`); return undefined; }
    return fs.readFileSync(file, 'utf8');
  } catch (e) {
    warn(`${file}: cannot read it (${(e as Error).message.split('\n')[0]}); ignored`);
    return undefined;
  }
}

/** The file name an asset href ends with (URL query and fragment cut off: Planetary Computer signs its hrefs). */
function hrefName(href: string): string {
  return href.replace(/[?#].*$/, '').replace(/\\/g, '/').replace(/^.*\//, '');
}

/**
 * Scaling from a STAC item JSON in `file`'s folder whose asset href ends with the file's name:
 * the asset's raster:bands[0] scale/offset, else properties["s2:processing_baseline"].
 */
export function stacScaling(file: string, warn: (message: string) => void): S2Scaling | undefined {
  const dir = path.dirname(path.resolve(file));
  const me = path.basename(file);
  let names: string[];
  try { names = fs.readdirSync(dir).filter((n) => /\.json$/i.test(n)).sort(); } catch { return undefined; }
  // The item named after the folder (Earth Search: S2B_33UUP_20240612_0_L2A/S2B_33UUP_20240612_0_L2A.json) first.
  const folderItem = `${path.basename(dir)}.json`;
  names.sort((a, b) => Number(b === folderItem) - Number(a === folderItem));
  if (names.length > MAX_JSON_FILES) {
    warn(`${dir}: ${names.length} JSON files; only the first ${MAX_JSON_FILES} were looked at for a STAC item`);
    names = names.slice(0, MAX_JSON_FILES);
  }
  for (const n of names) {
    const p = path.join(dir, n);
    const text = readCapped(p, MAX_ITEM_BYTES, warn);
    if (text === undefined) continue;
    let item: unknown;
    try { item = JSON.parse(text); } catch (e) {
      // V8 quotes the text around the error; only its position is said (the file may be anything).
      const at = /position (\d+)/.exec((e as Error).message);
      warn(`${p}: not valid JSON${at ? ` (at character ${at[1]})` : ''}; ignored as a STAC item`);
      continue;
    }
    const s = scalingFromItem(item, me, p, warn);
    if (s) return s;
  }
  return undefined;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Scaling for the asset named `me` of a parsed STAC item; undefined when it is not an item holding that file. */
export function scalingFromItem(item: unknown, me: string, label: string, warn: (message: string) => void): S2Scaling | undefined {
  if (!isObj(item) || item.type !== 'Feature' || item.stac_version === undefined) return undefined;
  if (!isObj(item.assets)) return undefined;
  const asset = Object.values(item.assets).find((a) => isObj(a) && typeof a.href === 'string' && hrefName(a.href) === me) as Record<string, unknown> | undefined;
  if (!asset) return undefined;
  const name = path.basename(label);
  const props = isObj(item.properties) ? item.properties : {};
  const applied = props['earthsearch:boa_offset_applied'];
  const note = typeof applied === 'boolean' ? `, earthsearch:boa_offset_applied ${applied}` : '';
  // s2:product_type is S2MSI2A / S2MSI1C; Earth Search ids end in _L2A / _L1C.
  const kind = `${String(props['s2:product_type'] ?? '')} ${String(item.id ?? '')}`;
  const level = /MSIL?2A|_L2A\b/i.test(kind) ? 'L2A' : /MSIL?1C|_L1C\b/i.test(kind) ? 'L1C' : undefined;
  const rb = asset['raster:bands'];
  if (rb !== undefined) {
    const b0 = Array.isArray(rb) ? rb[0] : undefined;
    const sc = isObj(b0) ? b0.scale : undefined, of = isObj(b0) ? b0.offset : undefined;
    if (sc !== undefined || of !== undefined) {
      // A null is a wrong type here, not an absent value.
      const scale = sc === undefined ? 1 : sc, offset = of === undefined ? 0 : of;
      if (typeof scale === 'number' && typeof offset === 'number' && Number.isFinite(scale) && Number.isFinite(offset) && scale > 0 && scale <= 1 && offset <= 0 && offset >= -1) {
        return { offset: Math.round((offset / scale) * 1e6) / 1e6, scale, why: `STAC item ${name}: scale ${scale} offset ${fmt(offset)}${note}`, source: 'metadata', level };
      }
      warn(`${label}: raster:bands scale ${JSON.stringify(sc)?.slice(0, 40)} offset ${JSON.stringify(of)?.slice(0, 40)} of ${me} are not a reflectance scale (a number in (0, 1]) and offset (a number in −1..0); ignored`);
    } else if (!Array.isArray(rb)) {
      warn(`${label}: raster:bands of ${me} is not a list; ignored`);
    }
  }
  const pb = props['s2:processing_baseline'];
  if (pb !== undefined) {
    const m = typeof pb === 'string' || typeof pb === 'number' ? /^(\d{1,2})\.(\d{1,2})$/.exec(String(pb).trim()) : null;
    if (!m) { warn(`${label}: s2:processing_baseline ${JSON.stringify(pb)?.slice(0, 40)} is not a baseline like "05.09"; ignored`); return undefined; }
    const off = Number(m[1]) >= 4 ? -1000 : 0;
    return { offset: off, scale: 0.0001, why: `STAC item ${name}: s2:processing_baseline ${String(pb).trim()}${off ? ' (≥ 04.00): offset −1000' : ' (< 04.00): no offset'}${note}`, source: 'metadata', level };
  }
  return undefined;
}
