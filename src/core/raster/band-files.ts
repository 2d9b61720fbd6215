/**
 * Products delivered as one GeoTIFF per band, the way analysts download them: a Landsat Collection 2
 * scene from EarthExplorer (LC09_L2SP_…_SR_B4.TIF, …_SR_B5.TIF, …_QA_PIXEL.TIF), a Sentinel-2 granule
 * (T33UUP_20240612T100031_B04_10m.tif, …_B08_10m.tif, …_SCL_20m.tif) or its COGs (B04.tif, B08.tif).
 * The band's role comes from its file name; the other bands of the same product are the files
 * beside it whose names differ only in the band token. Pure (file names in, names out) except
 * `siblingBandFiles`, which lists one folder.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { Sensor } from './sensor-presets';

export interface BandFile {
  /** The product the file belongs to: its name with the band token cut out (lower case). */
  product: string;
  /** The band token as written in the name ("B04", "SR_B4", "QA_PIXEL"). */
  token: string;
  role: string;
  sensor: Sensor;
}

/**
 * Each Sentinel-2 band's own resolution, m: an L1C granule's IMG_DATA holds every band at it with no
 * "_10m" in the name (T33UUP_…_B11.jp2 is 20 m), so NDMI must take B8A, not the 10 m B08, beside B11.
 */
const S2_NATIVE_RES: Record<string, number> = {
  B01: 60, B02: 10, B03: 10, B04: 10, B05: 20, B06: 20, B07: 20, B08: 10, B8A: 20, B09: 60, B10: 60, B11: 20, B12: 20, SCL: 20,
};
const S2_ROLES: Record<string, string> = {
  B01: 'coastal', B02: 'blue', B03: 'green', B04: 'red', B05: 'rededge', B08: 'nir', B8A: 'nir', B11: 'swir1', B12: 'swir2', SCL: 'qa',
};
const L89_ROLES: Record<string, string> = {
  SR_B1: 'coastal', SR_B2: 'blue', SR_B3: 'green', SR_B4: 'red', SR_B5: 'nir', SR_B6: 'swir1', SR_B7: 'swir2', ST_B10: 'thermal', QA_PIXEL: 'qa',
};
const L457_ROLES: Record<string, string> = {
  SR_B1: 'blue', SR_B2: 'green', SR_B3: 'red', SR_B4: 'nir', SR_B5: 'swir1', SR_B7: 'swir2', ST_B6: 'thermal', QA_PIXEL: 'qa',
};

/** Landsat C2 L2 band file: LC08_/LC09_/LE07_/LT05_/LT04_ … _SR_B4.TIF (the prefix says which sensor names the bands). */
const LANDSAT = /^(L[COTE]0[4-9])_.*_(SR_B[1-7]|ST_B10|ST_B6|QA_PIXEL)\.tiff?$/i;
/** Sentinel-2 band file: …_B04_10m.jp2 as in the SAFE, …_B04.jp2 (L1C), the same converted to GeoTIFF, or COGs (B04.tif). */
const SENTINEL2 = /^(?:(.*?)[_-])?(B0[1-9]|B1[0-2]|B8A|SCL)(?:[_-](10|20|60)m)?\.(?:tiff?|jp2)$/i;

/** The band a file holds, from its name; undefined for names that say nothing. */
export function bandFileOf(file: string): BandFile | undefined {
  const name = path.basename(file);
  const l = LANDSAT.exec(name);
  if (l) {
    const token = l[2].toUpperCase();
    const l89 = /^LC0[89]$/i.test(l[1]);
    const role = (l89 ? L89_ROLES : L457_ROLES)[token];
    if (!role) return undefined;
    return { product: name.slice(0, l.index + name.toUpperCase().lastIndexOf(token)).toLowerCase(), token, role, sensor: l89 ? 'landsat89_c2l2' : 'landsat457_c2l2' };
  }
  const s = SENTINEL2.exec(name);
  if (s) {
    const token = s[2].toUpperCase();
    const role = S2_ROLES[token];
    if (!role) return undefined;
    // L1C granules have no SCL and no "_10m" suffix in their band names; L2A has both.
    const l2a = !!s[3] || token === 'SCL' || /MSIL2A|_L2A/i.test(file);
    return { product: (s[1] ?? '').toLowerCase(), token, role, sensor: l2a ? 'sentinel2_l2a' : 'sentinel2_l1c' };
  }
  return undefined;
}

/**
 * The files of the same product beside `file`, by role: `file`'s own folder (and a SAFE granule's
 * R10m/R20m/R60m folders), names that parse to the same product and sensor. When `roles` are given,
 * the finest resolution that has all of them wins (NDMI from R20m's B8A and B11, not from a 10 m NIR
 * and a 20 m SWIR that do not share a grid); otherwise each role's finest file.
 */
export function siblingBandFiles(file: string, roles?: string[]): Record<string, string> {
  const me = bandFileOf(file);
  if (!me) return {};
  const dir = path.dirname(file);
  const dirs = /^R(10|20|60)m$/.test(path.basename(dir)) ? ['R10m', 'R20m', 'R60m'].map((d) => path.join(path.dirname(dir), d)) : [dir];
  const found: { role: string; file: string; res: number; rank: number }[] = [];
  for (const d of dirs) {
    let names: string[];
    try { names = fs.readdirSync(d); } catch { continue; }
    for (const n of names.sort()) {
      const b = bandFileOf(n);
      if (!b || b.product !== me.product || b.sensor !== me.sensor) continue;
      found.push({ role: b.role, file: path.join(d, n), res: Number(/(10|20|60)m\.(?:tiff?|jp2)$/i.exec(n)?.[1] ?? S2_NATIVE_RES[b.token] ?? 10), rank: b.token === 'B8A' ? 1 : 0 });
    }
  }
  const best = (cands: typeof found) => {
    const out: Record<string, string> = {};
    const key: Record<string, number> = {};
    for (const f of cands) {
      const k = f.res * 10 + f.rank;
      if (key[f.role] === undefined || k < key[f.role]) { out[f.role] = f.file; key[f.role] = k; }
    }
    return out;
  };
  if (roles?.length) {
    for (const res of [10, 20, 60]) {
      const at = best(found.filter((f) => f.res === res));
      if (roles.every((r) => at[r])) return { ...best(found), ...at };
    }
  }
  return best(found);
}

/**
 * The one product in a folder, by role, or an error naming what the folder holds: `image` may be the
 * folder an analyst downloaded (a Landsat scene, a Sentinel-2 granule's IMG_DATA). With `roles`, the
 * finest resolution that holds all of them, as for a band file (`siblingBandFiles`): MNDWI on a SAFE
 * takes R20m's B03 beside B11, not R10m's B03 on another grid.
 */
export function productInFolder(dir: string, roles?: string[]): Record<string, string> {
  dir = safeBandFolder(dir);
  let names: string[];
  try { names = fs.readdirSync(dir).sort(); } catch (e) { throw new Error(`cannot list ${dir}: ${(e as Error).message}`); }
  const products = new Map<string, string>();
  for (const n of names) {
    const b = bandFileOf(n);
    if (b && !products.has(`${b.sensor} ${b.product}`)) products.set(`${b.sensor} ${b.product}`, n);
  }
  if (products.size === 0) {
    throw new Error(`${dir} is a folder with no band files GeoWeave recognises (Landsat C2 …_SR_B4.TIF, Sentinel-2 …_B04_10m.tif); give a raster file, or a {"red": "…", "nir": "…"} mapping`);
  }
  if (products.size > 1) {
    throw new Error(`${dir} holds band files of ${products.size} products (${[...products.values()].slice(0, 3).join(', ')}${products.size > 3 ? ', …' : ''}); give one of its files, and GeoWeave takes the other bands of that product from beside it`);
  }
  return siblingBandFiles(path.join(dir, [...products.values()][0]), roles);
}

/**
 * The folder of a Sentinel-2 SAFE product that holds its band files, from the folder an analyst
 * names: the `.SAFE` itself, its GRANULE folder, the granule, or IMG_DATA (L2A: its R10m, whose
 * siblings R20m and R60m are looked in too). Any other folder is returned as it is.
 */
export function safeBandFolder(dir: string): string {
  const only = (d: string, test: (n: string) => boolean): string | undefined => {
    try {
      const hits = fs.readdirSync(d, { withFileTypes: true }).filter((e) => e.isDirectory() && test(e.name));
      return hits.length === 1 ? path.join(d, hits[0].name) : undefined;
    } catch { return undefined; }
  };
  let d = dir;
  if (/\.SAFE$/i.test(path.basename(d))) d = only(d, (n) => n === 'GRANULE') ?? d;
  if (path.basename(d) === 'GRANULE') d = only(d, () => true) ?? d;
  if (path.basename(path.dirname(d)) === 'GRANULE') d = only(d, (n) => n === 'IMG_DATA') ?? d;
  if (path.basename(d) === 'IMG_DATA') d = only(d, (n) => n === 'R10m') ?? d;
  return d;
}

/** Sentinel-2 products of processing baseline 04.00 and later (from 25 January 2022) store DN + 1000. */
const S2_OFFSET_FROM = '20220125';

/**
 * The BOA/radiometric add-offset of a Sentinel-2 file in DN (−1000 or 0) and why, from what its name
 * says: the processing baseline ("_N0509_") when present, else the sensing date (T33UUP_20240612T…).
 * Undefined when the name says neither.
 */
export function sentinel2Offset(file: string): { offset: number; why: string } | undefined {
  const name = path.basename(file);
  const full = file.replace(/\\/g, '/');
  const nb = /_N(\d{2})(\d{2})_/.exec(full);
  if (nb) {
    const v = Number(nb[1]);
    return v >= 4 ? { offset: -1000, why: `processing baseline ${nb[1]}.${nb[2]} (≥ 04.00): BOA_ADD_OFFSET −1000` } : { offset: 0, why: `processing baseline ${nb[1]}.${nb[2]} (< 04.00): no offset` };
  }
  // A granule's sensing time (…_20240612T100031_…), or an Earth Search item id (S2B_33UUP_20240612_0_L2A).
  const d = /(?:^|[_/])(20\d{6})T\d{6}/.exec(name) ?? /(?:^|[_/])(20\d{6})T\d{6}/.exec(full) ?? /S2[ABC]_\d{2}[A-Z]{3}_(20\d{6})_\d+_L[12][AC]/.exec(full);
  if (d) {
    return d[1] >= S2_OFFSET_FROM
      ? { offset: -1000, why: `sensed ${d[1]}, after baseline 04.00 began (25 Jan 2022): BOA_ADD_OFFSET −1000` }
      : { offset: 0, why: `sensed ${d[1]}, before baseline 04.00 (25 Jan 2022): no offset` };
  }
  return undefined;
}
