/**
 * ESRI `.hdr` labelled rasters (GDAL's EHdr driver, frmts/raw/ehdrdataset.cpp, 3.6): a raw `.bil`,
 * `.bip`, `.bsq` or `.flt` file with a keyword header of the same name, as USGS delivers SRTM and
 * NED tiles (`n37_w122_1arc_v3.bil`), PRISM its climate grids and ArcGIS its float grids (`.flt`).
 * NROWS, NCOLS, NBANDS, NBITS, PIXELTYPE, BYTEORDER, LAYOUT (BIL when unsaid), SKIPBYTES and NODATA
 * are read as GDAL reads them, including its guesses (the sample size from the file size when NBITS
 * is missing, float for `.flt`, signed where the nodata is negative); the grid from ULXMAP/ULYMAP/
 * XDIM/YDIM (pixel centres) or XLLCORNER/YLLCORNER/CELLSIZE; the CRS from the `.prj` beside it, in
 * WKT or in the older ArcInfo keyword form USGS uses (Projection GEOGRAPHIC, Datum WGS84, Units DD).
 */
import * as fs from 'fs';
import * as path from 'path';
import type { GeoInfo } from './dataset';
import type { DType } from './samples';
import { RawDataset } from './raw-dataset';
import { geographicEpsg, parseCrs, utmEpsg, type Datum } from '../crs/crs';

/** The keywords of an EHdr header (GDAL reads at most 50 lines of at most 1000 characters). */
export function parseEhdr(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split(/\r?\n/).slice(0, 50)) {
    if (line.length > 1000) break;
    const t = line.trim().split(/[ \t]+/);
    if (t.length >= 2 && !out.has(t[0].toLowerCase())) out.set(t[0].toLowerCase(), t[1]);
  }
  return out;
}

/** The header and data file of an EHdr raster given either of them; undefined when `file` is neither. */
export function ehdrPair(file: string): { hdr: string; data: string } | undefined {
  const dir = path.dirname(file), ext = path.extname(file), stem = path.basename(file, ext);
  let names: string[];
  try { names = fs.readdirSync(dir); } catch { return undefined; }
  const isHeader = (p: string) => {
    try {
      if (!fs.statSync(p).isFile()) return false;
      const fd = fs.openSync(p, 'r');
      try {
        const b = Buffer.alloc(4096);
        const h = parseEhdr(b.subarray(0, fs.readSync(fd, b, 0, b.length, 0)).toString('latin1'));
        return h.has('ncols') && h.has('nrows');
      } finally { fs.closeSync(fd); }
    } catch { return false; }
  };
  const same = (n: string, e: RegExp) => path.basename(n, path.extname(n)).toLowerCase() === stem.toLowerCase() && e.test(path.extname(n));
  if (/^\.hdr$/i.test(ext)) {
    if (!isHeader(file)) return undefined;
    const data = names.find((n) => same(n, /^\.(bil|bip|bsq|flt|src|dat|raw|img)$/i));
    return { hdr: file, data: path.join(dir, data ?? `${stem}.bil`) };
  }
  const hdr = names.find((n) => same(n, /^\.hdr$/i));
  return hdr && isHeader(path.join(dir, hdr)) ? { hdr: path.join(dir, hdr), data: file } : undefined;
}

export class EhdrDataset extends RawDataset {
  constructor(private readonly pair: { hdr: string; data: string }, fail: (message: string) => Error) {
    super(pair.data, fail);
  }

  async init(): Promise<void> {
    const { hdr, data } = this.pair;
    const h = parseEhdr(await fs.promises.readFile(hdr, 'latin1').then((t) => t.slice(0, 1 << 16)));
    const int = (k: string, def?: number) => {
      const v = h.get(k);
      if (v === undefined && def !== undefined) return def;
      const n = Number.parseInt(v ?? '', 10);
      if (!Number.isSafeInteger(n) || n < 0) throw this.fail(`${hdr}: "${k.toUpperCase()} ${v ?? ''}" is not a count`);
      return n;
    };
    this.width = int('ncols'); this.height = int('nrows'); this.bandCount = int('nbands', 1);
    if (!this.width || !this.height || !this.bandCount || this.width > 1 << 20 || this.height > 1 << 20 || this.bandCount > 65536) {
      throw this.fail(`${hdr}: ${this.width}×${this.height}×${this.bandCount} is not a raster GeoWeave reads`);
    }
    let st: fs.Stats;
    try { st = await fs.promises.stat(data); } catch { throw this.fail(`${hdr}: its data file ${path.basename(data)} is not beside it; give the header and its data file together`); }
    const nodata = h.has('nodata_value') ? Number(h.get('nodata_value')) : h.has('nodata') ? Number(h.get('nodata')) : undefined;
    let nbits = h.has('nbits') ? int('nbits') : -1;
    let type = (h.get('pixeltype') ?? 'N')[0].toUpperCase();
    if (nbits === -1 && type === 'N') {
      const bytes = Math.floor(st.size / this.width / this.height / this.bandCount);
      if (bytes > 0 && bytes !== 3) nbits = bytes * 8;
      if (bytes === 4) type = 'F';
    }
    if (type === 'N' && /^\.flt$/i.test(path.extname(data))) type = 'F';
    if (nodata !== undefined && nodata < 0 && type === 'N') type = 'S';
    const dtype: DType | undefined = nbits === 16 ? (type === 'S' ? 'int16' : 'uint16')
      : nbits === 32 ? (type === 'S' ? 'int32' : type === 'F' ? 'float32' : 'uint32')
        : nbits >= 1 && nbits <= 8 ? 'uint8'
          : nbits === -1 ? (type === 'F' ? 'float32' : 'uint8') : undefined;
    if (!dtype) throw this.fail(`${hdr}: NBITS ${nbits} is not read (GDAL's EHdr driver reads 8, 16 and 32); convert it with gdal_translate`);
    this.dtype = dtype;
    if (nbits >= 1 && nbits < 8) (this.warnings ??= []).push(`${hdr}: NBITS ${nbits} is read as whole bytes, as GDAL reads it`);
    this.littleEndian = /^[IL]/i.test(h.get('byteorder') ?? 'M');
    const layout = (h.get('layout') ?? 'BIL').toUpperCase();
    this.interleave = layout === 'BIP' ? 'bip' : layout === 'BSQ' ? 'bsq' : 'bil';
    this.headerOffset = int('skipbytes', 0);
    const need = this.headerOffset + this.width * this.height * this.bandCount * this.bps;
    if (st.size < need) throw this.fail(`${data}: ${st.size} bytes, where the header ${path.basename(hdr)} describes ${need} (${this.width}×${this.height}×${this.bandCount} ${dtype} after ${this.headerOffset}); the file is cut short`);
    if (nodata !== undefined && Number.isFinite(nodata)) this.nodata = nodata;
    this.geo = this.georef(h);
    await this.openData();
  }

  private georef(h: Map<string, string>): GeoInfo {
    const num = (k: string) => (h.has(k) ? Number(h.get(k)) : undefined);
    const ulx = num('ulxmap') ?? num('xllcorner') ?? num('xllcenter') ?? 0.5;
    let uly = num('ulymap') ?? 0.5;
    const center = !h.has('xllcorner') && !h.has('yllcorner');
    const cell = num('cellsize');
    const xdim = cell ?? num('xdim') ?? 1, ydim = cell ?? num('ydim') ?? 1;
    const yll = num('yllcorner') ?? num('yllcenter');
    if (yll !== undefined) uly = center ? yll + (this.height - 1) * ydim : yll + this.height * ydim;
    const placed = ulx !== 0.5 || uly !== 0.5 || xdim !== 1 || ydim !== 1;
    let gt: GeoInfo['geoTransform'] = center ? [ulx - xdim * 0.5, xdim, 0, uly + ydim * 0.5, 0, -ydim] : [ulx, xdim, 0, uly, 0, -ydim];
    if (!placed) return { geographic: false, geoTransform: [0, 1, 0, 0, 0, 1], ungeoreferenced: { gcps: [] } };
    const prj = this.prjText();
    if (!prj) return { geographic: false, geoTransform: gt };
    const crs = prjCrs(prj, path.basename(this.pair.data));
    if (!crs) {
      (this.warnings ??= []).push(`${this.pair.data}: its .prj names a coordinate system GeoWeave does not read; the raster is placed without one`);
      return { geographic: false, geoTransform: gt };
    }
    // Geographic grids in seconds of arc (Units DS), as GDAL converts them.
    if (crs.seconds) gt = gt.map((v) => v / 3600) as GeoInfo['geoTransform'];
    return { ...(crs.epsg ? { epsg: crs.epsg } : { wkt: crs.wkt }), geographic: crs.geographic, geoTransform: gt };
  }

  private prjText(): string | undefined {
    return prjBeside(this.pair.data);
  }
}

/** The text of the `.prj` beside `file` (same stem, any case), when there is a plain file of at most 1 MB. */
export function prjBeside(file: string): string | undefined {
  const dir = path.dirname(file), stem = path.basename(file, path.extname(file)).toLowerCase();
  try {
    const prj = fs.readdirSync(dir).find((n) => n.toLowerCase() === `${stem}.prj`);
    if (!prj) return undefined;
    const at = path.join(dir, prj);
    if (!fs.statSync(at).isFile() || fs.statSync(at).size > 1 << 20) return undefined;
    return fs.readFileSync(at, 'latin1');
  } catch {
    return undefined;
  }
}

/** A `.prj`'s CRS: WKT (ESRI or OGC), or ArcInfo's keyword form for geographic and UTM grids. */
export function prjCrs(text: string, what: string): { epsg?: number; wkt?: string; geographic: boolean; seconds?: boolean } | undefined {
  const t = text.trim();
  if (/^(PROJCS|GEOGCS|PROJCRS|GEOGCRS)\s*\[/i.test(t)) {
    try {
      const c = parseCrs(t, `${what} .prj`);
      return c.epsg ? { epsg: c.epsg, geographic: c.geographic } : { wkt: t, geographic: c.geographic };
    } catch {
      return undefined;
    }
  }
  const kv = new Map<string, string>();
  for (const line of t.split(/\r?\n/)) {
    const m = /^\s*(\w+)\s+(.+?)\s*$/.exec(line);
    if (m && !kv.has(m[1].toLowerCase())) kv.set(m[1].toLowerCase(), m[2]);
  }
  const proj = kv.get('projection')?.toUpperCase();
  const d = (kv.get('datum') ?? kv.get('spheroid') ?? '').toUpperCase();
  const datum: Datum | undefined = d === 'WGS84' || d === 'NAD83' || d === 'NAD27' ? d : undefined;
  if (proj === 'GEOGRAPHIC') {
    const epsg = geographicEpsg(datum);
    return epsg ? { epsg, geographic: true, seconds: kv.get('units')?.toUpperCase() === 'DS' } : undefined;
  }
  if (proj === 'UTM') {
    // ArcInfo writes a southern zone as a negative number.
    const zone = Number.parseInt(kv.get('zone') ?? '', 10);
    const epsg = utmEpsg(datum, Math.abs(zone), zone < 0);
    return epsg ? { epsg, geographic: false } : undefined;
  }
  return undefined;
}
