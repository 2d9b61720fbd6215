/**
 * HDF-EOS5 grids (`.h5`/`.he5`: VIIRS land products VNP13A1, VNP09GA, VNP21A1, VNP46A2; OMI L3,
 * MOPITT) read one field at a time: the grid placed by the structure metadata of
 * `/HDFEOS INFORMATION/StructMetadata.0` (the ODL of HDF-EOS2, parsed by hdfeos-grid.ts:
 * UpperLeftPointMtrs/LowerRightMtrs over XDim × YDim, the GCTP projection), the values of
 * `/HDFEOS/GRIDS/<grid>/Data Fields/<field>` read through HDF5 hyperslabs (netcdf4.ts), so a window
 * reads only the chunks it touches. Band metadata as the HDF4 reader gives it: `_FillValue` as
 * nodata, `long_name` as the description, `scale_factor`/`add_offset` as stored, except that an
 * integer field's scale above 1 divides (VIIRS NDVI: scale_factor 10000, NDVI = DN / 10000), with a
 * warning. A field of three dimensions is one band per index of the one that is not XDim or YDim.
 * A file of swaths only is refused saying how to grid it.
 */
import * as path from 'node:path';
import type { CfVariable } from './cf-grid';
import type { GeoInfo, RasterDataset } from './dataset';
import { toFloat } from './dataset';
import { type EosGrid, type EosStructure, eosStructure, gridGeo } from './hdfeos-grid';
import type { Hdf5File } from './netcdf4';
import { CTORS, type DType, type TypedArray } from './samples';
import { windowTarget } from './window-check';
import { type ValidRange, maskOutside, validRange } from './valid-range';

/** A grid field that can be read as a raster, and the name it is chosen by (`FIELD`, or `GRID/FIELD` when two grids have it). */
interface He5Field { id: string; field: string; grid: EosGrid; v: CfVariable; dimList: string[] }

export interface He5Layout { eos: EosStructure; fields: He5Field[] }

const num = (v: unknown): number | undefined => (Array.isArray(v) && v.length ? v[0] : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);

/** The HDF-EOS5 grids and swaths of an HDF5 file, with its readable grid fields; undefined when it has no HDF-EOS5 metadata. */
export function he5Layout(f: Hdf5File): He5Layout | undefined {
  const text = f.eosMetadata();
  if (!text) return undefined;
  const eos = eosStructure(text);
  if (!eos.grids.length && !eos.swaths.length) return undefined;
  const byName = new Map(f.variables.map((v) => [v.name, v]));
  const counts = new Map<string, number>();
  for (const g of eos.grids) for (const fl of g.fields) counts.set(fl.name, (counts.get(fl.name) ?? 0) + 1);
  const fields: He5Field[] = [];
  for (const g of eos.grids) {
    for (const fl of g.fields) {
      const v = byName.get(`HDFEOS/GRIDS/${g.name}/Data Fields/${fl.name}`);
      if (!v?.dtype || (v.dims.length !== 2 && v.dims.length !== 3) || v.dims.some((d) => !(d.length > 0))) continue;
      fields.push({ id: counts.get(fl.name)! > 1 ? `${g.name}/${fl.name}` : fl.name, field: fl.name, grid: g, v, dimList: fl.dimList });
    }
  }
  return { eos, fields };
}

/** Why a file of swaths only is no raster, and how to grid it. */
export function he5SwathAdvice(source: string, eos: EosStructure): string {
  const s = eos.swaths[0];
  const field = s.fields.find((f) => !/^(latitude|longitude)$/i.test(f)) ?? s.fields[0] ?? 'FIELD';
  return `${source}: it is an HDF-EOS5 swath ("${s.name}": values on geolocation arrays, as level-2 products such as OMI L2 are), not a grid, which GeoWeave reads; `
    + `grid it first (gdalwarp -geoloc -t_srs EPSG:4326 'HDF5:"${path.basename(source)}"://HDFEOS/SWATHS/${s.name.replace(/ /g, '_')}/Data_Fields/${field.replace(/ /g, '_')}' out.tif, GDAL taking the swath's Latitude and Longitude as its geolocation arrays), or use a gridded (level-3) product such as VNP13A1 or VNP09GA`;
}

/** One field of an HDF-EOS5 grid as a raster dataset. */
export class He5GridDataset implements RasterDataset {
  width = 0; height = 0; bandCount = 1; blockWidth = 0; blockHeight = 0;
  dtype: DType = 'uint8'; geo!: GeoInfo; nodata: number | null = null;
  bandDescriptions: (string | null)[] = []; scales: number[] = []; offsets: number[] = [];
  warnings?: string[];
  units?: (string | null)[];
  /** The name that opens this field again (`file.h5#FIELD`, as hdf4.ts): the pixel pipeline reopens its inputs by it. Messages name the file. */
  readonly source: string;
  private readonly hdfPath: string;
  private valid?: ValidRange;
  private v!: CfVariable;
  private xd = 1; private yd = 0; private bd = -1;
  private closed = false;

  /** `field`: `FIELD`, `GRID/FIELD` or the field's HDF5 path; the file's only field when not given. */
  constructor(private file: Hdf5File, private layout: He5Layout, private fail: (message: string) => Error, private field?: string) {
    this.hdfPath = file.source;
    this.source = field === undefined ? file.source : `${file.source}#${field}`;
  }

  async init(): Promise<void> {
    try {
      const c = this.choose();
      await this.setUp(c);
    } catch (e) {
      await this.close();
      throw e;
    }
  }

  private choose(): He5Field {
    const { eos, fields } = this.layout;
    const base = path.basename(this.hdfPath);
    if (!eos.grids.length) throw this.fail(he5SwathAdvice(this.hdfPath, eos));
    const names = fields.map((c) => c.id);
    const list = names.length > 12 ? `${names.slice(0, 12).join(', ')}, … (${names.length} in all)` : names.join(', ');
    if (!fields.length) throw this.fail(`${this.hdfPath}: its HDF-EOS5 grids (${eos.grids.map((g) => g.name).join(', ')}) hold no field GeoWeave can read as a raster (numbers of 2 or 3 dimensions)`);
    const f = this.field;
    if (f === undefined) {
      if (fields.length === 1) return fields[0];
      throw this.fail(`${this.hdfPath}: holds ${fields.length} fields (${list}); name the one to read as ${base}#${fields[0].id}`);
    }
    const hit = fields.find((c) => c.id === f)
      ?? fields.find((c) => `${c.grid.name}/${c.field}` === f || c.v.name === f.replace(/^\/+/, ''))
      ?? (fields.filter((c) => c.field === f).length === 1 ? fields.find((c) => c.field === f) : undefined);
    if (hit) return hit;
    const twice = fields.filter((c) => c.field === f);
    if (twice.length > 1) throw this.fail(`${this.hdfPath}: field "${f}" is in ${twice.length} grids; name one as ${base}#${twice[0].id}`);
    throw this.fail(`${this.hdfPath}: holds no grid field "${f}"; its fields: ${list} (name one as ${base}#${fields[0].id})`);
  }

  private async setUp(c: He5Field): Promise<void> {
    const v = c.v, what = `field "${c.id}"`, rank = v.dims.length;
    this.v = v;
    const names = c.dimList.length === rank ? c.dimList : v.dims.map((d) => d.name);
    let xd = names.indexOf('XDim'), yd = names.indexOf('YDim');
    if (xd < 0 || yd < 0 || xd === yd) { xd = rank - 1; yd = rank - 2; }
    this.xd = xd; this.yd = yd;
    this.bd = rank === 3 ? [0, 1, 2].find((i) => i !== xd && i !== yd)! : -1;
    this.width = v.dims[xd].length;
    this.height = v.dims[yd].length;
    this.bandCount = this.bd >= 0 ? v.dims[this.bd].length : 1;
    if (c.grid.xdim !== this.width || c.grid.ydim !== this.height) {
      throw this.fail(`${this.hdfPath}: ${what} is ${this.width}×${this.height} but its grid "${c.grid.name}" is ${c.grid.xdim}×${c.grid.ydim}; the file is damaged`);
    }
    if (this.bandCount > 100000) throw this.fail(`${this.hdfPath}: ${what} would be ${this.bandCount} bands; GeoWeave reads up to 100 000`);
    if (c.grid.origin && c.grid.origin !== 'HDFE_GD_UL') {
      throw this.fail(`${this.hdfPath}: grid "${c.grid.name}" has its origin at ${c.grid.origin} (not the upper left), which GeoWeave does not read; convert the field with gdal_translate and place it with -a_ullr`);
    }
    this.dtype = v.dtype!;
    await this.file.check(v);
    const chunk = v.chunks;
    this.blockWidth = Math.min(this.width, Math.max(1, chunk?.[xd] ?? this.width));
    this.blockHeight = Math.min(this.height, Math.max(1, chunk?.[yd] ?? this.height));
    const fill = num(v.atts.get('_FillValue'));
    this.nodata = fill === undefined ? null : this.dtype === 'float32' ? Math.fround(fill) : fill;
    const scale = num(v.atts.get('scale_factor')) ?? 1, offset = num(v.atts.get('add_offset')) ?? 0;
    // As in hdf4.ts: VIIRS, like MODIS, writes a divisor as scale_factor where it is above 1
    // (NDVI, reflectance: 10000, value = DN / 10000) and a factor where it is below (LST: 0.02).
    const divides = scale > 1 && !this.dtype.startsWith('float');
    this.scales = new Array(this.bandCount).fill(divides ? 1 / scale : scale);
    this.offsets = new Array(this.bandCount).fill(divides ? (offset ? -offset / scale : 0) : offset);
    const longName = str(v.atts.get('long_name'));
    this.bandDescriptions = this.bd < 0 ? [longName ?? null] : Array.from({ length: this.bandCount }, (_, b) => `${names[this.bd]}=${b}`);
    const units = str(v.atts.get('units'));
    if (units) this.units = new Array(this.bandCount).fill(units);
    // As for HDF4 (valid-range.ts): GDAL's HDF5 driver passes values outside valid_range through; they are NaN here.
    this.valid = validRange((n) => v.atts.get(n), this.dtype === 'float32');
    if (divides) (this.warnings ??= []).push(`${this.hdfPath}#${c.id}: scale_factor is ${scale}, read as VIIRS and MODIS document it: value = DN / ${scale}${offset ? ` − ${offset / scale}` : ''} (GDAL applies it as DN × ${scale})`);
    const { geo, warnings } = gridGeo(c.grid, this.hdfPath);
    this.geo = geo;
    if (warnings.length) (this.warnings ??= []).push(...warnings);
  }

  async readWindowRaw(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal, into?: ArrayLike<number>): Promise<TypedArray> {
    const out = windowTarget(this, !this.closed, this.fail, band, x, y, w, h, into);
    signal?.throwIfAborted();
    const rank = this.v.dims.length;
    const start = new Array(rank).fill(0), count = new Array(rank).fill(1);
    start[this.yd] = y; count[this.yd] = h;
    start[this.xd] = x; count[this.xd] = w;
    if (this.bd >= 0) start[this.bd] = band - 1;
    const raw = await this.file.read(this.v, start, count, signal);
    if (raw.length < w * h) throw this.fail(`${this.hdfPath}: field "${this.v.name}" gave ${raw.length} values for a ${w}x${h} window`);
    if (this.xd > this.yd) {
      if (raw instanceof CTORS[this.dtype]) out.set(raw as TypedArray);
      else for (let i = 0; i < w * h; i++) out[i] = raw[i];
    } else {
      // Stored (XDim, YDim): the hyperslab comes column by column.
      for (let r = 0; r < h; r++) for (let col = 0; col < w; col++) out[r * w + col] = raw[col * h + r];
    }
    return out;
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
