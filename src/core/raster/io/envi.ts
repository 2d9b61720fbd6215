/**
 * ENVI rasters: a raw binary file described by a text header beside it (`scene.img` + `scene.hdr`),
 * as ENVI writes them and as airborne hyperspectral data (AVIRIS, HySpex, many campaign products)
 * is delivered. Read as GDAL's ENVI driver (frmts/raw/envidataset.cpp, 3.6) reads them: the header's
 * keys with spaces as underscores, `{…}` lists over several lines; samples, lines, bands, data type
 * (1 2 3 4 5 12 13), byte order, header offset and BSQ/BIL/BIP interleave (BSQ when unsaid); band
 * descriptions from `band names` and `wavelength` ("name (wavelength units)", or the wavelength
 * alone); `data ignore value` as nodata; the geotransform from `map info` (its reference pixel,
 * pixel size and rotation) and the CRS from `coordinate system string`, else from `map info`'s UTM
 * or geographic entry. Either file may be given: the header or the data file it describes.
 */
import * as fs from 'fs';
import * as path from 'path';
import type { GeoInfo } from './dataset';
import type { DType } from './samples';
import { RawDataset } from './raw-dataset';
import { geographicEpsg, parseCrs, utmEpsg, type Datum } from '../crs/crs';
import { trimEnd } from './trim-end';

/** Headers are a few KB (a 400-band cube's wavelength list is ~10 KB); larger text is not one. */
const MAX_HEADER_BYTES = 4 << 20;
const DTYPES: Record<number, DType> = { 1: 'uint8', 2: 'int16', 3: 'int32', 4: 'float32', 5: 'float64', 12: 'uint16', 13: 'uint32' };
/** Extensions ENVI data files carry, tried beside a header in this order. */
const DATA_EXTENSIONS = ['', '.img', '.dat', '.bsq', '.bil', '.bip', '.raw', '.envi', '.bin'];

/** Whether `text` (a file's first bytes) is an ENVI header. */
export function isEnviHeaderText(text: string): boolean {
  return /^\uFEFF?ENVI\s*(\r?\n|$)/.test(text);
}

/**
 * The header and data file of an ENVI raster given either: the header itself (its data file is the
 * file of the same name without `.hdr`, or with one of the usual extensions), or a data file with
 * `<name>.hdr` or `<stem>.hdr` beside it. Undefined when `file` is neither.
 */
export function enviPair(file: string): { hdr: string; data: string } | undefined {
  const isFile = (p: string) => { try { return fs.statSync(p).isFile(); } catch { return false; } };
  const isHeader = (p: string) => {
    if (!isFile(p)) return false;
    const fd = fs.openSync(p, 'r');
    try {
      const b = Buffer.alloc(16);
      const n = fs.readSync(fd, b, 0, 16, 0);
      return isEnviHeaderText(b.subarray(0, n).toString('latin1'));
    } finally { fs.closeSync(fd); }
  };
  if (/\.hdr$/i.test(file)) {
    if (!isHeader(file)) return undefined;
    const stem = file.slice(0, -4);
    for (const ext of DATA_EXTENSIONS) for (const e of [ext, ext.toUpperCase()]) if (isFile(stem + e)) return { hdr: file, data: stem + e };
    return { hdr: file, data: stem };
  }
  const ext = path.extname(file);
  for (const hdr of [file + '.hdr', file + '.HDR', file.slice(0, file.length - ext.length) + '.hdr', file.slice(0, file.length - ext.length) + '.HDR']) {
    if (hdr !== file && isHeader(hdr)) return { hdr, data: file };
  }
  return undefined;
}

/** The header as GDAL reads it: `key = value` lines, keys lower-cased with spaces as underscores, `{…}` values joined over lines. */
export function parseEnviHeader(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const lines = text.split(/\r?\n/).slice(1);
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i];
    if (!line.includes('=')) continue;
    if (line.includes('{') && !line.includes('}')) {
      while (i + 1 < lines.length) {
        line += lines[++i];
        if (lines[i].includes('}')) break;
      }
    }
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    const key = trimEnd(line.slice(0, eq), ' \t').replace(/ /g, '_').toLowerCase();
    out.set(key, line.slice(eq + 1).replace(/^[ \t]+/, ''));
  }
  return out;
}

/** A `{a, b, c}` list as GDAL's SplitList splits it (undefined when the value is not a list). */
export function splitEnviList(v: string | undefined): string[] | undefined {
  if (!v || !v.startsWith('{')) return undefined;
  const out: string[] = [];
  let i = 1;
  while (i < v.length && v[i] !== '}') {
    let s = i;
    while (v[s] === ' ') s++;
    let e = s;
    while (e < v.length && v[e] !== ',' && v[e] !== '}') e++;
    if (e >= v.length) break;
    i = e + 1;
    out.push(trimEnd(v.slice(s, e), ' '));
  }
  return out;
}

export class EnviDataset extends RawDataset {
  constructor(private readonly pair: { hdr: string; data: string }, fail: (message: string) => Error) {
    super(pair.data, fail);
  }

  async init(): Promise<void> {
    const { hdr, data } = this.pair;
    const bad = (why: string) => this.fail(`${hdr}: ${why}`);
    const st = await fs.promises.stat(hdr);
    if (st.size > MAX_HEADER_BYTES) throw bad(`an ENVI header of ${st.size} bytes is not one GeoWeave reads (at most ${MAX_HEADER_BYTES})`);
    const h = parseEnviHeader(await fs.promises.readFile(hdr, 'latin1'));
    const int = (k: string, def?: number) => {
      const v = h.get(k);
      if (v === undefined && def !== undefined) return def;
      const n = Number.parseInt(v ?? '', 10);
      if (!Number.isSafeInteger(n) || n < 0) throw bad(`"${k.replace(/_/g, ' ')} = ${v ?? ''}" is not a count; the header must say the raster's samples, lines and bands`);
      return n;
    };
    this.width = int('samples'); this.height = int('lines'); this.bandCount = int('bands');
    if (!this.width || !this.height || !this.bandCount) throw bad(`samples, lines and bands must be positive (${this.width}, ${this.height}, ${this.bandCount})`);
    if (this.width > 1 << 20 || this.height > 1 << 20 || this.bandCount > 65536 || this.width * this.height > 2 ** 34) throw bad(`${this.width}×${this.height}×${this.bandCount} is larger than GeoWeave reads`);
    const dt = h.has('data_type') ? Number.parseInt(h.get('data_type')!, 10) : 1;
    const dtype = DTYPES[dt];
    if (!dtype) throw bad(`data type ${h.get('data_type')} (${{ 6: 'complex float32', 9: 'complex float64', 14: 'int64', 15: 'uint64' }[dt] ?? 'unknown'}) is not read; convert it with gdal_translate -ot Float32 ${data} OUT.tif`);
    this.dtype = dtype;
    this.littleEndian = (Number.parseInt(h.get('byte_order') ?? '0', 10) || 0) === 0;
    this.headerOffset = int('header_offset', 0);
    const il = (h.get('interleave') ?? path.extname(data).slice(1)).toLowerCase();
    this.interleave = il.startsWith('bil') ? 'bil' : il.startsWith('bip') ? 'bip' : 'bsq';
    const ft = h.get('file_type');
    if (ft && !/^ENVI Standard/i.test(ft) && !/^ENVI Classification/i.test(ft)) {
      (this.warnings ??= []).push(`${hdr}: file type "${ft}" is read as a plain ENVI raster`);
    }
    let dst: fs.Stats;
    try { dst = await fs.promises.stat(data); } catch { throw bad(`its data file ${path.basename(data)} is not beside it; give the header and its data file together`); }
    const need = this.headerOffset + this.width * this.height * this.bandCount * this.bps;
    if (dst.size < need) throw this.fail(`${data}: ${dst.size} bytes, where the header ${path.basename(hdr)} describes ${need} (${this.width}×${this.height}×${this.bandCount} ${dtype} after ${this.headerOffset}); the file is cut short`);
    this.bandDescriptions = this.descriptions(h);
    const ignore = h.get('data_ignore_value');
    if (ignore !== undefined && ignore.trim() !== '' && Number.isFinite(Number(ignore))) this.nodata = Number(ignore);
    this.geo = this.georef(h, bad);
    await this.openData();
  }

  /** Band descriptions as GDAL builds them from `band names` and `wavelength`. */
  private descriptions(h: Map<string, string>): (string | null)[] {
    const names = splitEnviList(h.get('band_names'));
    const wl = splitEnviList(h.get('wavelength'));
    const out: (string | null)[] = new Array(this.bandCount).fill(null);
    if (!names && !wl) return out;
    let units = wl ? h.get('wavelength_units') : undefined;
    if (units && /^(unknown|index)$/i.test(units)) units = undefined;
    for (let i = 0; i < this.bandCount; i++) {
      const w = wl && i < wl.length ? wl[i] + (units ? ` ${units}` : '') : '';
      const d = names && i < names.length ? names[i] + (w ? ` (${w})` : '') : w;
      out[i] = d || null;
    }
    return out;
  }

  private georef(h: Map<string, string>, bad: (why: string) => Error): GeoInfo {
    const none: GeoInfo = { geographic: false, geoTransform: [0, 1, 0, 0, 0, 1], ungeoreferenced: { gcps: [] } };
    const info = splitEnviList(h.get('map_info'));
    if (!info || info.length < 7) return none;
    let rotation = 0;
    for (const f of info) if (f.startsWith('rotation=')) rotation = Number(f.slice(9));
    const upsideDown = Math.abs(rotation) === 180;
    const r = rotation * (Math.PI / 180) * -1;
    const [xRef, yRef, east, north, xSize, ySize] = info.slice(1, 7).map(Number);
    if (![xRef, yRef, east, north, xSize, ySize].every(Number.isFinite)) throw bad(`"map info" ${h.get('map_info')} does not hold numbers where its reference pixel and pixel size go`);
    const gt: GeoInfo['geoTransform'] = upsideDown
      ? [east - (xRef - 1) * xSize, xSize, 0, north + (yRef - 1) * ySize, 0, ySize]
      : [east - (xRef - 1) * xSize, Math.cos(r) * xSize, -Math.sin(r) * xSize, north + (yRef - 1) * ySize, -Math.sin(r) * ySize, -Math.cos(r) * ySize];
    const crs = this.crsOf(h, info);
    if (!crs) {
      (this.warnings ??= []).push(`${this.pair.hdr}: "map info" names ${info[0]}, a coordinate system GeoWeave does not read from ENVI headers; the raster is placed without one`);
      return { geographic: false, geoTransform: gt };
    }
    return { ...crs, geoTransform: gt };
  }

  /**
   * The CRS: `map info`'s UTM or geographic entry where its datum names an EPSG code, else the
   * `coordinate system string` (ESRI WKT, as GDAL reads it first: both say the same where both exist,
   * and the map info names the EPSG code that ESRI WKT leaves out).
   */
  private crsOf(h: Map<string, string>, info: string[]): Pick<GeoInfo, 'epsg' | 'wkt' | 'geographic'> | undefined {
    const fromInfo = mapInfoCrs(info);
    if (fromInfo) return fromInfo;
    const css = h.get('coordinate_system_string')?.replace(/^\{|\}$/g, '').trim();
    if (!css) return undefined;
    try {
      const c = parseCrs(css, `${path.basename(this.pair.hdr)} coordinate system string`);
      return c.epsg ? { epsg: c.epsg, geographic: c.geographic } : { wkt: css, geographic: c.geographic };
    } catch {
      return undefined;
    }
  }
}

/** The EPSG code of `map info`'s UTM or geographic entry and its datum (ENVI's names, as GDAL's SetENVIDatum reads them). */
function mapInfoCrs(info: string[]): Pick<GeoInfo, 'epsg' | 'geographic'> | undefined {
  const name = info[0].toLowerCase();
  const datum = (i: number, unsaid: Datum): Datum | undefined => {
    const d = info.length > i && !info[i].includes('=') ? info[i].toLowerCase() : undefined;
    if (d === undefined) return unsaid;
    return d === 'wgs-84' ? 'WGS84' : d === 'north america 1983' ? 'NAD83' : d === 'north america 1927' || d.includes('nad27') || d.includes('nad-27') ? 'NAD27' : undefined;
  };
  // GDAL's defaults when the entry names no datum: NAD27 for UTM, WGS 84 for lon/lat.
  if (name.startsWith('utm') && info.length >= 9) {
    const epsg = utmEpsg(datum(9, 'NAD27'), Number.parseInt(info[7], 10), info[8].toLowerCase() === 'south');
    return epsg ? { epsg, geographic: false } : undefined;
  }
  if (name.startsWith('geographic lat')) {
    const epsg = geographicEpsg(datum(7, 'WGS84'));
    return epsg ? { epsg, geographic: true } : undefined;
  }
  return undefined;
}
