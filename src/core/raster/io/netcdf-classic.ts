/**
 * NetCDF classic files (`.nc` of format CDF-1, CDF-2 "64-bit offset" and CDF-5 "64-bit data"), as
 * older Copernicus CDS downloads (ERA5, ERA5-Land before 2024), CORDEX and many model outputs come.
 * The header lists dimensions, attributes and variables; a variable's values are stored in one
 * block, or, along the record (unlimited) dimension, one slab per record interleaved with the other
 * record variables. Read as GDAL's netCDF driver reads one variable: the last two dimensions are
 * the grid (y, x), every other one a band (time steps of a record variable in order); the grid from
 * the 1-D coordinate variables named like the dimensions (centres, evenly spaced), rows presented
 * north up (a file whose y rises from south is flipped, as GDAL does); `scale_factor`/`add_offset`
 * as the band's scale and offset; `_FillValue`, else `missing_value`, else netCDF's default fill as
 * nodata; the CRS from the grid mapping's `crs_wkt` or `spatial_ref`, else EPSG:4326 for a
 * longitude/latitude grid. A file of several gridded variables is read one variable at a time,
 * named after a `#` (`era5.nc#t2m`, as GDAL's `NETCDF:"era5.nc":t2m`); without one it is refused
 * naming them. NetCDF-4
 * (an HDF5 file) is not read: the error says how to convert it.
 */
import * as fs from 'fs';
import type { GeoInfo, RasterDataset } from './dataset';
import { toFloat } from './dataset';
import { type DType, type TypedArray } from './samples';
import { windowTarget } from './window-check';
import { parseCrs } from '../crs/crs';

type NcType = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11;
const SIZE: Record<NcType, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 4, 6: 8, 7: 1, 8: 2, 9: 4, 10: 8, 11: 8 };
const DTYPE: Partial<Record<NcType, DType>> = { 1: 'int8', 3: 'int16', 4: 'int32', 5: 'float32', 6: 'float64', 7: 'uint8', 8: 'uint16', 9: 'uint32', 10: 'int64', 11: 'uint64' };
/** netCDF's default fill values (netcdf.h NC_FILL_*), which GDAL reports as nodata when a variable sets none (not for bytes). */
const DEFAULT_FILL: Partial<Record<NcType, number>> = { 3: -32767, 4: -2147483647, 5: 9.969209968386869e36, 6: 9.969209968386869e36, 8: 65535, 9: 4294967295 };

type AttValue = string | number[];
interface Dim { name: string; length: number }
interface Var { name: string; dims: number[]; atts: Map<string, AttValue>; type: NcType; vsize: number; begin: number }

/** Whether a file's first bytes are a NetCDF classic header ("CDF" and version 1, 2 or 5). */
export function isNetcdfClassic(head: Buffer): boolean {
  return head.length >= 4 && head.toString('latin1', 0, 3) === 'CDF' && [1, 2, 5].includes(head[3]);
}

/** A parsed classic header: the part of the format that says where every value is. */
export interface NcHeader { version: number; numrecs: number; dims: Dim[]; atts: Map<string, AttValue>; vars: Var[]; recsize: number }

export function parseHeader(buf: Buffer, source: string, fail: (m: string) => Error): NcHeader {
  const version = buf[3];
  let at = 4;
  const need = (n: number) => { if (at + n > buf.length) throw fail(`${source}: its NetCDF header ends early (at byte ${at}); the file is cut short or its header is larger than read`); };
  const u32 = () => { need(4); const v = buf.readUInt32BE(at); at += 4; return v; };
  const u64 = () => { need(8); const v = Number(buf.readBigUInt64BE(at)); at += 8; return v; };
  const count = () => (version === 5 ? u64() : u32());
  const offset = () => (version === 1 ? u32() : u64());
  const name = () => {
    const n = count();
    if (n > 4096) throw fail(`${source}: a NetCDF name of ${n} bytes; the header is damaged`);
    need(n);
    const s = buf.toString('utf8', at, at + n);
    at += n + ((4 - (n % 4)) % 4);
    return s;
  };
  const values = (type: NcType, n: number): AttValue => {
    const size = SIZE[type];
    if (!size) throw fail(`${source}: NetCDF type ${type} is not a classic type; the header is damaged`);
    need(n * size);
    let v: AttValue;
    if (type === 2) v = buf.toString('utf8', at, at + n).replace(/\0+$/, '');
    else {
      const out: number[] = [];
      for (let i = 0; i < n; i++) {
        const o = at + i * size;
        out.push(type === 1 ? buf.readInt8(o) : type === 3 ? buf.readInt16BE(o) : type === 4 ? buf.readInt32BE(o) : type === 5 ? buf.readFloatBE(o) : type === 6 ? buf.readDoubleBE(o)
          : type === 7 ? buf.readUInt8(o) : type === 8 ? buf.readUInt16BE(o) : type === 9 ? buf.readUInt32BE(o) : type === 10 ? Number(buf.readBigInt64BE(o)) : Number(buf.readBigUInt64BE(o)));
      }
      v = out;
    }
    at += n * size + ((4 - ((n * size) % 4)) % 4);
    return v;
  };
  // A list: its tag (dimensions 10, variables 11, attributes 12) or ABSENT (two zeros), then its items.
  const list = <T>(tag: number, item: () => T): T[] => {
    const t = u32();
    const n = count();
    if (t === 0 && n === 0) return [];
    if (t !== tag) throw fail(`${source}: NetCDF header list tag ${t} where ${tag} was expected; the header is damaged`);
    if (n > 100000) throw fail(`${source}: a NetCDF list of ${n} items; the header is damaged`);
    return Array.from({ length: n }, item);
  };
  const attributes = () => new Map(list(12, () => {
    const k = name();
    const type = u32() as NcType;
    return [k, values(type, count())] as [string, AttValue];
  }));
  const numrecs = count();
  const dims = list(10, () => ({ name: name(), length: count() }));
  const atts = attributes();
  const vars = list(11, (): Var => {
    const n = name();
    const nd = count();
    if (nd > 64) throw fail(`${source}: variable "${n}" has ${nd} dimensions; the header is damaged`);
    const ids = Array.from({ length: nd }, () => count());
    for (const d of ids) if (d >= dims.length) throw fail(`${source}: variable "${n}" uses dimension ${d}, which the file does not define`);
    const va = attributes();
    const type = u32() as NcType;
    if (!SIZE[type]) throw fail(`${source}: variable "${n}" has NetCDF type ${type}, not a classic type`);
    return { name: n, dims: ids, atts: va, type, vsize: count(), begin: offset() };
  });
  const isRecord = (v: Var) => v.dims.length > 0 && dims[v.dims[0]].length === 0;
  const rec = vars.filter(isRecord);
  // One record variable is stored without padding between records (the format's special case).
  const recsize = rec.length === 1 ? slabBytes(rec[0], dims) : rec.reduce((s, v) => s + v.vsize, 0);
  return { version, numrecs, dims, atts, vars, recsize };
}

/** Variables of two or more dimensions whose last two (the grid) are fixed: what can be read as a raster. */
function griddedVariables(h: NcHeader): Var[] {
  const isCoordinate = (v: Var) => v.dims.length === 1 && h.dims[v.dims[0]].name === v.name;
  return h.vars.filter((v) => v.dims.length >= 2 && !isCoordinate(v) && DTYPE[v.type] && v.dims.slice(-2).every((d) => h.dims[d].length > 0));
}

/** The gridded variables of a NetCDF classic file (each readable as `file.nc#name`); [] for any other file. */
export async function netcdfGridVariables(file: string): Promise<string[]> {
  const fh = await fs.promises.open(file, 'r');
  try {
    const size = (await fh.stat()).size;
    const buf = Buffer.alloc(Math.min(size, 4 << 20));
    await fh.read(buf, 0, buf.length, 0);
    if (!isNetcdfClassic(buf)) return [];
    return griddedVariables(parseHeader(buf, file, (m) => new Error(m))).map((v) => v.name);
  } finally {
    await fh.close();
  }
}

/** Bytes of one record's slab (or of the whole variable when it has no record dimension), unpadded. */
function slabBytes(v: Var, dims: Dim[]): number {
  return v.dims.filter((d) => dims[d].length !== 0).reduce((s, d) => s * dims[d].length, SIZE[v.type]);
}

const num = (v: AttValue | undefined): number | undefined => (Array.isArray(v) && v.length ? v[0] : undefined);

export class NetcdfClassicDataset implements RasterDataset {
  width = 0; height = 0; bandCount = 1; blockWidth = 0; blockHeight = 0;
  dtype: DType = 'float32'; geo!: GeoInfo; nodata: number | null = null;
  bandDescriptions: (string | null)[] = []; scales: number[] = []; offsets: number[] = [];
  warnings?: string[];
  private header!: NcHeader;
  private v!: Var;
  /** Length of each dimension before the grid's two (the record dimension's is the record count). */
  private outer: number[] = [];
  private bottomUp = false;
  private fh?: fs.promises.FileHandle;
  private closed = false;

  /** `variable`: the one to read, for a file of several (`era5.nc#t2m`); the file's only gridded one otherwise. */
  constructor(readonly source: string, private fail: (message: string) => Error, private variable?: string) {}

  async init(): Promise<void> {
    this.fh = await fs.promises.open(this.source, 'r');
    try {
      const size = (await this.fh.stat()).size;
      // Headers are small; a model file's with hundreds of variables fits in a few hundred KB.
      const buf = Buffer.alloc(Math.min(size, 4 << 20));
      await this.fh.read(buf, 0, buf.length, 0);
      const h = parseHeader(buf, this.source, this.fail);
      this.header = h;
      const dimName = (d: number) => h.dims[d].name;
      const isCoordinate = (v: Var) => v.dims.length === 1 && dimName(v.dims[0]) === v.name;
      const gridded = griddedVariables(h);
      if (!gridded.length) throw this.fail(`${this.source}: holds no gridded variable (one of two or more dimensions); its variables: ${h.vars.map((v) => v.name).join(', ') || 'none'}`);
      const names = gridded.map((v) => v.name).join(', ');
      const base = this.source.replace(/^.*[\\/]/, '');
      if (this.variable !== undefined && !gridded.some((v) => v.name === this.variable)) {
        throw this.fail(`${this.source}: holds no gridded variable "${this.variable}"; its gridded variables: ${names} (name one as ${base}#${gridded[0].name})`);
      }
      if (this.variable === undefined && gridded.length > 1) {
        throw this.fail(`${this.source}: holds ${gridded.length} gridded variables (${names}); name the one to read as ${base}#${gridded[0].name}`);
      }
      const v = gridded.find((g) => g.name === this.variable) ?? gridded[0];
      this.v = v;
      this.dtype = DTYPE[v.type]!;
      const [yd, xd] = v.dims.slice(-2);
      this.width = h.dims[xd].length;
      this.height = h.dims[yd].length;
      this.outer = v.dims.slice(0, -2).map((d) => (h.dims[d].length === 0 ? h.numrecs : h.dims[d].length));
      this.bandCount = this.outer.reduce((a, b) => a * b, 1);
      if (!this.bandCount) throw this.fail(`${this.source}: variable "${v.name}" has no values (a dimension of length 0, or no records)`);
      if (this.bandCount > 100000) throw this.fail(`${this.source}: variable "${v.name}" would be ${this.bandCount} bands; GeoWeave reads up to 100 000`);
      // Values must lie inside the file: a cut download is refused now rather than read as zeros.
      const last = this.isRecord() ? v.begin + (h.numrecs - 1) * h.recsize + slabBytes(v, h.dims) : v.begin + slabBytes(v, h.dims);
      if (last > size) throw this.fail(`${this.source}: variable "${v.name}" runs to byte ${last} but the file has ${size}; it is cut short`);
      this.blockWidth = this.width;
      this.blockHeight = this.height;
      const scale = num(v.atts.get('scale_factor')) ?? 1, offset = num(v.atts.get('add_offset')) ?? 0;
      this.scales = new Array(this.bandCount).fill(scale);
      this.offsets = new Array(this.bandCount).fill(offset);
      this.bandDescriptions = await this.describeBands();
      const fill = num(v.atts.get('_FillValue')) ?? num(v.atts.get('missing_value')) ?? DEFAULT_FILL[v.type];
      this.nodata = fill === undefined ? null : this.dtype === 'float32' ? Math.fround(fill) : fill;
      this.geo = this.georef(h.vars.find((c) => isCoordinate(c) && c.name === dimName(xd)), h.vars.find((c) => isCoordinate(c) && c.name === dimName(yd)), await this.coords(h.vars.find((c) => isCoordinate(c) && c.name === dimName(xd))), await this.coords(h.vars.find((c) => isCoordinate(c) && c.name === dimName(yd))));
    } catch (e) {
      await this.close();
      throw e;
    }
  }

  private isRecord(): boolean {
    return this.v.dims.length > 0 && this.header.dims[this.v.dims[0]].length === 0;
  }

  /**
   * Names for the bands of a variable with more than the grid's two dimensions: each outer
   * dimension's coordinate value ("time=2024-07-01", "level=850"), else its index ("member=3").
   */
  private async describeBands(): Promise<(string | null)[]> {
    const h = this.header;
    const outerDims = this.v.dims.slice(0, -2);
    if (!outerDims.length) return [null];
    const labels = await Promise.all(outerDims.map(async (d, k) => {
      const c = h.vars.find((x) => x.dims.length === 1 && x.dims[0] === d && x.name === h.dims[d].name);
      const values = await this.coords(c).catch(() => undefined);
      if (!values || values.length < this.outer[k]) return undefined;
      const units = typeof c!.atts.get('units') === 'string' ? (c!.atts.get('units') as string) : '';
      const calendar = String(c!.atts.get('calendar') ?? 'standard').toLowerCase();
      const out = values.map((v) => cfTime(v, units, calendar) ?? String(Number(v.toPrecision(8))));
      // One form for a series: dates alone only when every step is at midnight.
      return out.some((l) => /^\d{4}-\d\d-\d\dT/.test(l)) ? out.map((l) => (/^\d{4}-\d\d-\d\d$/.test(l) ? `${l}T00:00` : l)) : out;
    }));
    return Array.from({ length: this.bandCount }, (_, b) => {
      let rest = b;
      const idx: number[] = [];
      for (let k = this.outer.length - 1; k >= 0; k--) { idx.unshift(rest % this.outer[k]); rest = Math.floor(rest / this.outer[k]); }
      return outerDims.map((d, k) => `${h.dims[d].name}=${labels[k]?.[idx[k]] ?? idx[k]}`).join(', ');
    });
  }

  /** A 1-D coordinate variable's values; a record variable's (time) are read one per record. */
  private async coords(c: Var | undefined): Promise<number[] | undefined> {
    if (!c || !DTYPE[c.type]) return undefined;
    const size = SIZE[c.type];
    const record = this.header.dims[c.dims[0]].length === 0;
    const n = record ? this.header.numrecs : this.header.dims[c.dims[0]].length;
    const buf = Buffer.alloc(n * size);
    for (let i = 0; i < (record ? n : 1); i++) {
      const len = record ? size : n * size;
      const { bytesRead } = await this.fh!.read(buf, i * size, len, c.begin + (record ? i * this.header.recsize : 0));
      if (bytesRead < len) throw this.fail(`${this.source}: coordinate variable "${c.name}" runs past the end of the file`);
    }
    const get = reader(c.type, buf);
    return Array.from({ length: n }, (_, i) => get(i));
  }

  private georef(xv: Var | undefined, yv: Var | undefined, xs: number[] | undefined, ys: number[] | undefined): GeoInfo {
    const even = (a: number[]) => a.length < 3 || a.every((v, i) => i === 0 || Math.abs(v - a[i - 1] - (a[1] - a[0])) <= 1e-3 * Math.abs(a[1] - a[0]));
    if (!xs || !ys || xs.length < 2 || ys.length < 2 || !even(xs) || !even(ys)) {
      (this.warnings ??= []).push(`${this.source}: variable "${this.v.name}" has no evenly spaced 1-D coordinates; read without a place on the map`);
      return { geographic: false, geoTransform: [0, 1, 0, 0, 0, 1], ungeoreferenced: { gcps: [] } };
    }
    const dx = (xs[xs.length - 1] - xs[0]) / (xs.length - 1);
    let dy = (ys[ys.length - 1] - ys[0]) / (ys.length - 1);
    // Rows rising from the south are shown north up, as GDAL does.
    this.bottomUp = dy > 0;
    const top = this.bottomUp ? ys[ys.length - 1] : ys[0];
    dy = Math.abs(dy);
    const gt: GeoInfo['geoTransform'] = [xs[0] - dx / 2, dx, 0, top + dy / 2, 0, -dy];
    const units = (v: Var | undefined) => String(v?.atts.get('units') ?? '').toLowerCase();
    const lonLat = /degrees?_?e(ast)?$|^degrees?$/.test(units(xv)) && /degrees?_?n(orth)?$|^degrees?$/.test(units(yv))
      || (/^(lon|longitude)$/i.test(xv!.name) && /^(lat|latitude)$/i.test(yv!.name));
    const mapping = typeof this.v.atts.get('grid_mapping') === 'string' ? this.header.vars.find((c) => c.name === this.v.atts.get('grid_mapping')) : undefined;
    const wkt = mapping ? (mapping.atts.get('crs_wkt') ?? mapping.atts.get('spatial_ref')) : undefined;
    if (typeof wkt === 'string' && wkt.trim()) {
      try {
        const c = parseCrs(wkt, `${this.source} grid mapping "${mapping!.name}"`);
        return { ...(c.epsg ? { epsg: c.epsg } : { wkt }), geographic: c.geographic, geoTransform: gt };
      } catch {
        (this.warnings ??= []).push(`${this.source}: its grid mapping's WKT names a coordinate system GeoWeave does not read; the grid is placed without one`);
      }
    }
    if (lonLat) return { epsg: 4326, geographic: true, geoTransform: gt };
    return { geographic: false, geoTransform: gt };
  }

  async readWindowRaw(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal, into?: ArrayLike<number>): Promise<TypedArray> {
    const out = windowTarget(this, !this.closed && !!this.fh, this.fail, band, x, y, w, h, into);
    const size = SIZE[this.v.type], W = this.width, H = this.height;
    // The band's 2-D slab: in its record's slab for a record variable, else at its place in the block.
    const b = band - 1;
    const slab = this.isRecord()
      ? this.v.begin + Math.floor(b / (this.bandCount / this.outer[0])) * this.header.recsize + (b % (this.bandCount / this.outer[0])) * W * H * size
      : this.v.begin + b * W * H * size;
    // File rows that hold the window's rows: reversed for a grid stored from the south.
    const r0 = this.bottomUp ? H - y - h : y;
    const buf = Buffer.alloc(h * W * size);
    for (let done = 0; done < buf.length;) {
      signal?.throwIfAborted();
      const { bytesRead } = await this.fh!.read(buf, done, Math.min(buf.length - done, 8 << 20), slab + r0 * W * size + done);
      if (!bytesRead) throw this.fail(`${this.source}: the file ended while reading band ${band}; it changed since it was opened`);
      done += bytesRead;
    }
    const get = reader(this.v.type, buf);
    for (let r = 0; r < h; r++) {
      const fileRow = this.bottomUp ? h - 1 - r : r;
      for (let c = 0; c < w; c++) out[r * w + c] = get(fileRow * W + x + c);
    }
    return out;
  }

  async readWindow(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal): Promise<Float32Array> {
    return toFloat(await this.readWindowRaw(band, x, y, w, h, signal), this.nodata, this.scales[band - 1], this.offsets[band - 1], this.dtype === 'float32');
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.fh?.close().catch(() => undefined);
    this.fh = undefined;
  }
}

const UNIT_MS: Record<string, number> = { second: 1e3, seconds: 1e3, sec: 1e3, s: 1e3, minute: 6e4, minutes: 6e4, min: 6e4, hour: 3.6e6, hours: 3.6e6, hr: 3.6e6, h: 3.6e6, day: 8.64e7, days: 8.64e7, d: 8.64e7 };

/**
 * A CF time value ("hours since 1900-01-01 00:00:00") as an ISO date, or date and time when not
 * midnight; undefined for other units or calendars than the standard/Gregorian/proleptic ones.
 */
export function cfTime(value: number, units: string, calendar = 'standard'): string | undefined {
  const m = /^\s*(\w+)\s+since\s+(\d{1,4})-(\d{1,2})-(\d{1,2})(?:[T\s]+(\d{1,2}):(\d{1,2})(?::(\d{1,2}(?:\.\d+)?))?)?\s*(?:Z|UTC|[+-]00(?::?00)?)?\s*$/i.exec(units);
  if (!m || !UNIT_MS[m[1].toLowerCase()] || !['standard', 'gregorian', 'proleptic_gregorian'].includes(calendar) || !Number.isFinite(value)) return undefined;
  const base = Date.UTC(Number(m[2]), Number(m[3]) - 1, Number(m[4]), Number(m[5] ?? 0), Number(m[6] ?? 0), 0) + Number(m[7] ?? 0) * 1000;
  const t = new Date(base + value * UNIT_MS[m[1].toLowerCase()]);
  if (Number.isNaN(t.getTime())) return undefined;
  const iso = t.toISOString();
  return iso.endsWith('T00:00:00.000Z') ? iso.slice(0, 10) : iso.slice(0, 16);
}

/** Big-endian values of a classic type, by index. */
function reader(type: NcType, buf: Buffer): (i: number) => number {
  switch (type) {
    case 1: return (i) => buf.readInt8(i);
    case 3: return (i) => buf.readInt16BE(2 * i);
    case 4: return (i) => buf.readInt32BE(4 * i);
    case 5: return (i) => buf.readFloatBE(4 * i);
    case 6: return (i) => buf.readDoubleBE(8 * i);
    case 7: return (i) => buf.readUInt8(i);
    case 8: return (i) => buf.readUInt16BE(2 * i);
    case 9: return (i) => buf.readUInt32BE(4 * i);
    case 10: return (i) => Number(buf.readBigInt64BE(8 * i));
    case 11: return (i) => Number(buf.readBigUInt64BE(8 * i));
    default: return (i) => buf[i];
  }
}
