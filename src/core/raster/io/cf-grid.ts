/**
 * One gridded variable of a NetCDF file read as GDAL's netCDF driver reads it, whatever stores it
 * (a classic file read byte by byte, NetCDF-4/HDF5 through the HDF5 library): the last two
 * dimensions are the grid (y, x), every other one a band; the grid from the 1-D coordinate
 * variables of those dimensions (centres, evenly spaced), rows presented north up (a grid stored
 * from the south is flipped, as GDAL does); `scale_factor`/`add_offset` as the band's scale and
 * offset; `_FillValue`, else `missing_value`, else netCDF's default fill as nodata; the CRS from the
 * grid mapping's `crs_wkt` or `spatial_ref`, else EPSG:4326 for a longitude/latitude grid; bands
 * named by their coordinate values, a CF time as a date. A variable placed by 2-D latitude and
 * longitude (a curvilinear grid: Sentinel-3 and Sentinel-5P swaths) is refused saying how to
 * resample it. Backends implement `CfFile`: variables with their dimensions and attributes, and
 * hyperslab reads.
 */
import type { GeoInfo, RasterDataset } from './dataset';
import { toFloat } from './dataset';
import { type ValidRange, fillOutside, maskOutside, validRange } from './valid-range';
import { CTORS, type DType, type TypedArray } from './samples';
import { windowTarget } from './window-check';
import { parseCrs } from '../crs/crs';

export type AttValue = string | number[];

/** A dimension of one variable. */
export interface CfDim {
  name: string;
  length: number;
  /** The dimension's 1-D coordinate variable, when the file has one. */
  coordinate?: CfVariable;
  /** A NetCDF classic record dimension: stored record by record, so never a grid axis. */
  record?: boolean;
}

/** A variable as a backend describes it. */
export interface CfVariable {
  /** As named after the `#`: `t2m`, or `PRODUCT/nitrogendioxide_tropospheric_column` in a group. */
  name: string;
  /** Its group ('' for the root): names its attributes give are looked up there first, then above. */
  group: string;
  dims: CfDim[];
  atts: Map<string, AttValue>;
  /** Its samples' type; undefined for text, strings and compound values, which are no raster. */
  dtype?: DType;
  /** Shape of the blocks it is stored in (NetCDF-4 chunks); the whole grid when absent. */
  chunks?: number[];
}

/** A NetCDF file as a backend opens it. */
export interface CfFile {
  readonly source: string;
  readonly variables: readonly CfVariable[];
  /** A 1-D variable's values. */
  values(v: CfVariable): Promise<number[]>;
  /**
   * Samples of a hyperslab in C order: `start` and `count` per dimension, count 1 on every one
   * before the grid's two. Only the stored blocks the hyperslab touches are read.
   */
  read(v: CfVariable, start: number[], count: number[], signal?: AbortSignal): Promise<ArrayLike<number>>;
  /** Checks of a variable about to be read, beyond what its description says (a file cut short, a missing filter). */
  check?(v: CfVariable): Promise<void>;
  /**
   * Why a variable without 1-D coordinates cannot be read and what to do (said after "file: "), when
   * the file's layout makes it no raster at all (an HDF5 file that is not NetCDF-4); undefined reads
   * it without a place on the map.
   */
  unplaced?(v: CfVariable): string | undefined;
  close(): Promise<void>;
}

/** netCDF's default fill values (netcdf.h NC_FILL_*), which GDAL reports as nodata when a variable sets none (not for bytes). */
const DEFAULT_FILL: Partial<Record<DType, number>> = { int16: -32767, int32: -2147483647, float32: 9.969209968386869e36, float64: 9.969209968386869e36, uint16: 65535, uint32: 4294967295 };

const text = (v: AttValue | undefined): string => (typeof v === 'string' ? v : '');
const num = (v: AttValue | undefined): number | undefined => (Array.isArray(v) && v.length ? v[0] : undefined);
const baseName = (name: string) => name.replace(/^.*\//, '');

/** Variables of two or more dimensions whose last two (the grid) are no record dimension: candidates for a raster. */
export function griddedVariables(f: CfFile): CfVariable[] {
  return f.variables.filter((v) => v.dtype && v.dims.length >= 2 && v.dims.slice(-2).every((d) => d.length > 0 && !d.record));
}

/** The gridded variables that can be read as rasters (each as `file#name`), in the file's order. */
export function readableVariables(f: CfFile): CfVariable[] {
  return griddedVariables(f).filter((v) => !refusal(f, v));
}

/** The variable `name` as seen from `group`: in it, else in the groups above; a name with `/` from the root. */
function lookup(f: CfFile, group: string, name: string): CfVariable | undefined {
  if (name.includes('/')) return f.variables.find((v) => v.name === name.replace(/^\/+/, ''));
  for (let g = group; ; g = g.includes('/') ? g.replace(/\/[^/]*$/, '') : '') {
    const hit = f.variables.find((v) => v.name === (g ? `${g}/${name}` : name));
    if (hit || !g) return hit;
  }
}

const isLat = (c: CfVariable) => /^(lat|latitude|nav_lat)$/i.test(baseName(c.name)) || text(c.atts.get('standard_name')) === 'latitude' || /^degrees?_?n(orth)?$/i.test(text(c.atts.get('units')));
const isLon = (c: CfVariable) => /^(lon|long|longitude|nav_lon)$/i.test(baseName(c.name)) || text(c.atts.get('standard_name')) === 'longitude' || /^degrees?_?e(ast)?$/i.test(text(c.atts.get('units')));

/**
 * The 2-D latitude and longitude variables that place a variable whose grid dimensions have no 1-D
 * coordinates (those its `coordinates` attribute names, else any in its group on the same grid).
 */
function geolocation(f: CfFile, v: CfVariable): [CfVariable, CfVariable] | undefined {
  const [y, x] = v.dims.slice(-2);
  const onGrid = (c: CfVariable) => c.dims.length >= 2 && c.dims[c.dims.length - 2].name === y.name && c.dims[c.dims.length - 1].name === x.name;
  const named = text(v.atts.get('coordinates')).split(/\s+/).filter(Boolean).map((n) => lookup(f, v.group, n)).filter((c): c is CfVariable => !!c);
  const pool = named.length ? named : f.variables.filter((c) => c.group === v.group);
  const lat = pool.find((c) => onGrid(c) && isLat(c)), lon = pool.find((c) => onGrid(c) && isLon(c));
  return lat && lon && lat !== lon ? [lat, lon] : undefined;
}

/** GDAL's name for a variable: `NETCDF:"file":var`, a group's as `NETCDF:"file":/group/var`. */
export function gdalName(f: CfFile, v: CfVariable): string {
  return `NETCDF:"${f.source}":${v.group ? '/' : ''}${v.name}`;
}

/** Why a gridded variable cannot be read as a raster (after "file: "), and what to do; undefined when it can. */
function refusal(f: CfFile, v: CfVariable): { why: string; fix: string } | undefined {
  const [y, x] = v.dims.slice(-2);
  if (y.coordinate && x.coordinate) return undefined;
  const geo = geolocation(f, v);
  if (geo) {
    const stem = baseName(f.source).replace(/\.[^.]*$/, '') + '_' + baseName(v.name);
    return {
      why: `variable "${v.name}" is on a curvilinear grid (placed by the 2-D variables "${geo[0].name}" and "${geo[1].name}", not by 1-D coordinates), which GeoWeave does not read`,
      fix: `resample it to a regular grid first: gdalwarp -geoloc -t_srs EPSG:4326 ${gdalName(f, v)} ${stem}.tif`,
    };
  }
  const unplaced = f.unplaced?.(v);
  return unplaced ? { why: unplaced, fix: '' } : undefined;
}

const message = (f: CfFile, r: { why: string; fix: string }, note = '') => `${f.source}: ${r.why}${note}${r.fix ? `; ${r.fix}` : ''}`;

/** A variable chosen from a file: the one named, else the file's only readable one. */
function choose(f: CfFile, variable: string | undefined, fail: (m: string) => Error): CfVariable {
  const gridded = griddedVariables(f);
  if (!gridded.length) throw fail(`${f.source}: holds no gridded variable (one of two or more dimensions); its variables: ${f.variables.map((v) => v.name).join(', ') || 'none'}`);
  const readable = gridded.filter((v) => !refusal(f, v));
  const base = baseName(f.source);
  if (variable !== undefined) {
    const v = gridded.find((g) => g.name === variable);
    if (!v) {
      const names = (readable.length ? readable : gridded).map((g) => g.name);
      throw fail(`${f.source}: holds no gridded variable "${variable}"; its gridded variables: ${names.join(', ')}${readable.length ? ` (name one as ${base}#${readable[0].name})` : ''}`);
    }
    const r = refusal(f, v);
    if (r) throw fail(message(f, r));
    return v;
  }
  if (!readable.length) {
    // Named after a variable of data rather than the latitude or longitude that place it.
    const data = gridded.filter((g) => !isLat(g) && !isLon(g));
    const first = data[0] ?? gridded[0];
    const others = (data.length ? data : gridded).filter((g) => g !== first).map((g) => g.name);
    const note = others.length ? ` (so are ${others.slice(0, 5).join(', ')}${others.length > 5 ? ` and ${others.length - 5} more` : ''})` : '';
    throw fail(message(f, refusal(f, first)!, note));
  }
  if (readable.length > 1) {
    throw fail(`${f.source}: holds ${readable.length} gridded variables (${readable.map((g) => g.name).join(', ')}); name the one to read as ${base}#${readable[0].name}`);
  }
  return readable[0];
}

/** One gridded variable of a NetCDF file as a raster (see the file comment). */
export class CfGridDataset implements RasterDataset {
  width = 0; height = 0; bandCount = 1; blockWidth = 0; blockHeight = 0;
  dtype: DType = 'float32'; geo!: GeoInfo; nodata: number | null = null;
  bandDescriptions: (string | null)[] = []; scales: number[] = []; offsets: number[] = [];
  warnings?: string[];
  units?: (string | null)[];
  /** The name that opens this variable again (`era5.nc#t2m`): the pixel pipeline reopens its inputs by it. Messages name the file. */
  readonly source: string;
  private readonly ncPath: string;
  private v!: CfVariable;
  private valid?: ValidRange;
  /** Length of each dimension before the grid's two. */
  private outer: number[] = [];
  private bottomUp = false;
  private closed = false;

  /** `variable`: the one to read, for a file of several (`era5.nc#t2m`); the file's only readable one otherwise. */
  constructor(private file: CfFile, private fail: (message: string) => Error, private variable?: string) {
    this.ncPath = file.source;
    this.source = variable === undefined ? file.source : `${file.source}#${variable}`;
  }

  async init(): Promise<void> {
    try {
      const v = choose(this.file, this.variable, this.fail);
      this.v = v;
      this.dtype = v.dtype!;
      const [yd, xd] = v.dims.slice(-2);
      this.width = xd.length;
      this.height = yd.length;
      this.outer = v.dims.slice(0, -2).map((d) => d.length);
      this.bandCount = this.outer.reduce((a, b) => a * b, 1);
      if (!this.bandCount) throw this.fail(`${this.ncPath}: variable "${v.name}" has no values (a dimension of length 0, or no records)`);
      if (this.bandCount > 100000) throw this.fail(`${this.ncPath}: variable "${v.name}" would be ${this.bandCount} bands; GeoWeave reads up to 100 000`);
      await this.file.check?.(v);
      const chunk = v.chunks?.slice(-2);
      this.blockWidth = Math.min(this.width, Math.max(1, chunk?.[1] ?? this.width));
      this.blockHeight = Math.min(this.height, Math.max(1, chunk?.[0] ?? this.height));
      const scale = num(v.atts.get('scale_factor')) ?? 1, offset = num(v.atts.get('add_offset')) ?? 0;
      this.scales = new Array(this.bandCount).fill(scale);
      this.offsets = new Array(this.bandCount).fill(offset);
      this.bandDescriptions = await this.describeBands();
      const fill = num(v.atts.get('_FillValue')) ?? num(v.atts.get('missing_value')) ?? DEFAULT_FILL[this.dtype];
      this.nodata = fill === undefined ? null : this.dtype === 'float32' ? Math.fround(fill) : fill;
      // Values outside valid_range (or valid_min/valid_max) read as the fill, as GDAL's netCDF driver reads them (valid-range.ts).
      this.valid = validRange((n) => v.atts.get(n), this.dtype === 'float32');
      const units = text(v.atts.get('units'));
      if (units) this.units = new Array(this.bandCount).fill(units);
      const values = async (c: CfVariable | undefined) => (c?.dtype ? this.file.values(c) : undefined);
      this.geo = this.georef(xd.coordinate, yd.coordinate, await values(xd.coordinate), await values(yd.coordinate));
    } catch (e) {
      await this.close();
      throw e;
    }
  }

  /**
   * Names for the bands of a variable with more than the grid's two dimensions: each outer
   * dimension's coordinate value ("time=2024-07-01", "level=850"), else its index ("member=3").
   */
  private async describeBands(): Promise<(string | null)[]> {
    const outerDims = this.v.dims.slice(0, -2);
    if (!outerDims.length) return [null];
    const labels = await Promise.all(outerDims.map(async (d, k) => {
      const c = d.coordinate;
      const values = c?.dtype ? await this.file.values(c).catch(() => undefined) : undefined;
      if (!c || !values || values.length < this.outer[k]) return undefined;
      const units = text(c.atts.get('units'));
      const calendar = String(c.atts.get('calendar') ?? 'standard').toLowerCase();
      const out = values.map((v) => cfTime(v, units, calendar) ?? String(Number(v.toPrecision(8))));
      // One form for a series: dates alone only when every step is at midnight.
      return out.some((l) => /^\d{4}-\d\d-\d\dT/.test(l)) ? out.map((l) => (/^\d{4}-\d\d-\d\d$/.test(l) ? `${l}T00:00` : l)) : out;
    }));
    return Array.from({ length: this.bandCount }, (_, b) => {
      const idx = this.outerIndex(b);
      return outerDims.map((d, k) => `${d.name}=${labels[k]?.[idx[k]] ?? idx[k]}`).join(', ');
    });
  }

  /** The index along each outer dimension of 0-based band `b` (the last dimension varies fastest). */
  private outerIndex(b: number): number[] {
    const idx: number[] = [];
    for (let k = this.outer.length - 1; k >= 0; k--) { idx.unshift(b % this.outer[k]); b = Math.floor(b / this.outer[k]); }
    return idx;
  }

  private georef(xv: CfVariable | undefined, yv: CfVariable | undefined, xs: number[] | undefined, ys: number[] | undefined): GeoInfo {
    const even = (a: number[]) => a.length < 3 || a.every((v, i) => i === 0 || Math.abs(v - a[i - 1] - (a[1] - a[0])) <= 1e-3 * Math.abs(a[1] - a[0]));
    if (!xs || !ys || xs.length < 2 || ys.length < 2 || !even(xs) || !even(ys)) {
      (this.warnings ??= []).push(`${this.ncPath}: variable "${this.v.name}" has no evenly spaced 1-D coordinates; read without a place on the map`);
      return { geographic: false, geoTransform: [0, 1, 0, 0, 0, 1], ungeoreferenced: { gcps: [] } };
    }
    const dx = (xs[xs.length - 1] - xs[0]) / (xs.length - 1);
    let dy = (ys[ys.length - 1] - ys[0]) / (ys.length - 1);
    // Rows rising from the south are shown north up, as GDAL does.
    this.bottomUp = dy > 0;
    const top = this.bottomUp ? ys[ys.length - 1] : ys[0];
    dy = Math.abs(dy);
    const gt: GeoInfo['geoTransform'] = [xs[0] - dx / 2, dx, 0, top + dy / 2, 0, -dy];
    const units = (v: CfVariable | undefined) => text(v?.atts.get('units')).toLowerCase();
    const lonLat = /degrees?_?e(ast)?$|^degrees?$/.test(units(xv)) && /degrees?_?n(orth)?$|^degrees?$/.test(units(yv))
      || (/^(lon|longitude)$/i.test(baseName(xv!.name)) && /^(lat|latitude)$/i.test(baseName(yv!.name)));
    const mappingName = text(this.v.atts.get('grid_mapping'));
    const mapping = mappingName ? lookup(this.file, this.v.group, mappingName) : undefined;
    const wkt = mapping ? (mapping.atts.get('crs_wkt') ?? mapping.atts.get('spatial_ref')) : undefined;
    if (typeof wkt === 'string' && wkt.trim()) {
      try {
        const c = parseCrs(wkt, `${this.ncPath} grid mapping "${mapping!.name}"`);
        return { ...(c.epsg ? { epsg: c.epsg } : { wkt }), geographic: c.geographic, geoTransform: gt };
      } catch {
        (this.warnings ??= []).push(`${this.ncPath}: its grid mapping's WKT names a coordinate system GeoWeave does not read; the grid is placed without one`);
      }
    }
    // A rotated pole or another projection given only by CF parameters: its degrees are not longitude and latitude.
    const kind = text(mapping?.atts.get('grid_mapping_name'));
    if (kind && kind !== 'latitude_longitude' && !(typeof wkt === 'string' && wkt.trim())) {
      (this.warnings ??= []).push(`${this.ncPath}: grid mapping "${mapping!.name}" (${kind}) has no WKT, and GeoWeave does not build a CRS from CF parameters; the grid is placed without one`);
      return { geographic: false, geoTransform: gt };
    }
    if (lonLat) return { epsg: 4326, geographic: true, geoTransform: gt };
    return { geographic: false, geoTransform: gt };
  }

  async readWindowRaw(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal, into?: ArrayLike<number>): Promise<TypedArray> {
    const out = windowTarget(this, !this.closed, this.fail, band, x, y, w, h, into);
    const idx = this.outerIndex(band - 1);
    // File rows that hold the window's rows: reversed for a grid stored from the south.
    const r0 = this.bottomUp ? this.height - y - h : y;
    signal?.throwIfAborted();
    const raw = await this.file.read(this.v, [...idx, r0, x], [...idx.map(() => 1), h, w], signal);
    if (raw.length < w * h) throw this.fail(`${this.ncPath}: variable "${this.v.name}" gave ${raw.length} values for a ${w}x${h} window`);
    if (!this.bottomUp && raw instanceof CTORS[this.dtype]) out.set(raw as TypedArray);
    else {
      for (let r = 0; r < h; r++) {
        const from = (this.bottomUp ? h - 1 - r : r) * w;
        for (let c = 0; c < w; c++) out[r * w + c] = raw[from + c];
      }
    }
    return fillOutside(out, this.valid, this.nodata);
  }

  async readWindow(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal): Promise<Float32Array> {
    const raw = await this.readWindowRaw(band, x, y, w, h, signal);
    return maskOutside(raw, toFloat(raw, this.nodata, this.scales[band - 1], this.offsets[band - 1], this.dtype === 'float32'), this.valid);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.file.close().catch(() => undefined);
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
