/**
 * HDF4 files (`.hdf`, as MODIS land products come: MOD09GA, MOD13Q1, MOD11A1, MCD64A1, MCD12Q1,
 * MOD10A1…) read one field at a time, as GDAL reads
 * `HDF4_EOS:EOS_GRID:"file.hdf":GRID:FIELD`: the field's grid placed by the HDF-EOS structure
 * metadata (hdfeos-grid.ts), its values from the SD data set of the same name (hdf4-sd.ts),
 * chunked and compressed as MODIS stores them, decoded only where a window reads. Band metadata as
 * GDAL reports it: `scale_factor` and `add_offset` as stored (value = DN × scale + offset; but a
 * grid's integer field with a scale above 1 divides, as MODIS means it: NDVI = DN / 10000),
 * `_FillValue` as nodata, `long_name` as the description. A field of three dimensions is one band
 * per index of the one that is not XDim or YDim. A plain HDF4 file without HDF-EOS metadata is read
 * without a place on the map, as GDAL's HDF4_SDS does (one GDAL wrote, placed as GDAL places it); a swath (level-1/2 products on
 * geolocation arrays) is refused saying how to grid it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { GeoInfo, RasterDataset } from './dataset';
import { toFloat } from './dataset';
import { Hdf4File, TAG } from './hdf4-file';
import { type Sds, type SdModel, SdsReader, readSdModel } from './hdf4-sd';
import { type AttValue, type Vgroup, numberType } from './hdf4-vset';
import { type EosGrid, type EosStructure, eosStructure, gridGeo } from './hdfeos-grid';
import { FieldStack, type SceneChoice, sceneFields } from './reflectance-scene';
import { type ValidRange, maskOutside, validRange } from './valid-range';
import type { DType, TypedArray } from './samples';
import { windowTarget } from './window-check';
import { parseCrs } from '../crs/crs';

/** Whether a file's first bytes are the HDF4 signature (0e 03 13 01). */
export function isHdf4(head: Buffer): boolean {
  return head.length >= 4 && head[0] === 0x0e && head[1] === 0x03 && head[2] === 0x13 && head[3] === 0x01;
}

/** A field that can be read as a raster: its SDS, its grid (none in a plain SD file), and the name it is chosen by. */
interface Candidate { id: string; field: string; grid?: EosGrid; sds: Sds; dimList: string[] }

interface Opened { file: Hdf4File; sd: SdModel; eos?: EosStructure; candidates: Candidate[] }

/** The HDF-EOS structure metadata (StructMetadata.0, .1, … concatenated), or undefined. */
function structMetadata(globals: Map<string, AttValue>): string | undefined {
  let text = '';
  for (let i = 0; globals.has(`StructMetadata.${i}`); i++) {
    const v = globals.get(`StructMetadata.${i}`);
    if (typeof v === 'string') text += v;
  }
  return text || undefined;
}

const num = (v: AttValue | undefined): number | undefined => (Array.isArray(v) && v.length ? v[0] : undefined);
const str = (v: AttValue | undefined): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
/**
 * A numeric attribute as GDAL's HDF4 driver reports it: through its metadata text, float32 printed
 * with 10 significant digits and float64 with 15 (a float32 scale_factor of 0.02 is 0.01999999955).
 */
function asGdalReads(sds: Sds, name: string): number | undefined {
  const v = num(sds.attrs.get(name));
  if (v === undefined) return undefined;
  const t = (sds.attrTypes.get(name) ?? 0) & 0xfff;
  return t === 5 ? Number(v.toPrecision(10)) : t === 6 ? Number(v.toPrecision(15)) : v;
}

/** An SDS dimension's name without the ":GRID" suffix HDF-EOS gives it. */
const dimBase = (name: string) => name.replace(/:.*$/, '');

/** Whether GDAL's HDF4Image driver wrote the file, with a geotransform (its own global attributes). */
function gdalWritten(globals: Map<string, AttValue>): boolean {
  const gt = str(globals.get('TransformationMatrix'))?.split(',').map(Number);
  return !!str(globals.get('Signature'))?.startsWith('Created with GDAL') && gt?.length === 6 && gt.every(Number.isFinite);
}

/** The SDS of an HDF-EOS field: the one of its name among the grid's "Data Fields", else the only one of its name. */
function fieldSds(sd: SdModel, grid: EosGrid, field: string): Sds | undefined {
  const byName = sd.datasets.filter((s) => s.name === field);
  if (byName.length <= 1) return byName[0];
  const vg = new Map<number, Vgroup>(sd.vgroups.map((g) => [g.ref, g]));
  const gridGroup = sd.vgroups.find((g) => g.cls === 'GRID' && g.name === grid.name);
  const dataFields = gridGroup?.members.map((m) => vg.get(m.ref)).find((g) => g?.name === 'Data Fields');
  const ndgs = new Set(dataFields?.members.filter((m) => m.tag === TAG.NDG).map((m) => m.ref));
  return byName.find((s) => s.ndgRef !== undefined && ndgs.has(s.ndgRef)) ?? byName[0];
}

/** Whether an SDS can be one raster: numbers (not text) of rank 2 or 3, no extent 0. */
function rasterShape(sds: Sds): boolean {
  const t = numberType(sds.nt);
  return !!t?.dtype && !t.text && (sds.dims.length === 2 || sds.dims.length === 3) && sds.dims.every((d) => d.size > 0);
}

async function openHdf4(source: string, fail: (m: string) => Error): Promise<Opened> {
  const file = await Hdf4File.open(source, fail);
  try {
    const sd = await readSdModel(file);
    const text = structMetadata(sd.globals);
    const eos = text ? eosStructure(text) : undefined;
    const candidates: Candidate[] = [];
    if (eos && eos.grids.length) {
      const counts = new Map<string, number>();
      for (const g of eos.grids) for (const f of g.fields) counts.set(f.name, (counts.get(f.name) ?? 0) + 1);
      for (const g of eos.grids) {
        for (const f of g.fields) {
          const sds = fieldSds(sd, g, f.name);
          if (!sds || !rasterShape(sds)) continue;
          candidates.push({ id: counts.get(f.name)! > 1 ? `${g.name}/${f.name}` : f.name, field: f.name, grid: g, sds, dimList: f.dimList });
        }
      }
    } else if (!eos?.swaths.length) {
      for (const s of sd.datasets) {
        if (rasterShape(s)) candidates.push({ id: s.name, field: s.name, sds: s, dimList: s.dims.map((d) => dimBase(d.name)) });
      }
      // Names of several SDS alike (HDF4 allows it): the later ones by index, as GDAL numbers subdatasets.
      const seen = new Map<string, number>();
      for (const c of candidates) { const k = seen.get(c.id) ?? 0; seen.set(c.id, k + 1); if (k) c.id = `${c.id}[${k}]`; }
    }
    return { file, sd, eos, candidates };
  } catch (e) {
    await file.close();
    throw e;
  }
}

/** How to read a swath product instead, for the messages that refuse one. */
function swathAdvice(source: string, eos: EosStructure): string {
  const s = eos.swaths[0];
  const field = s.fields.find((f) => !/^(latitude|longitude)$/i.test(f)) ?? s.fields[0] ?? 'FIELD';
  return `it is an HDF-EOS swath ("${s.name}": values on geolocation arrays${s.fields.some((f) => /^latitude$/i.test(f)) ? ' Latitude/Longitude' : ''}, as MOD021KM, MOD03 and MOD06 are), not a grid, which GeoWeave reads; `
    + `grid it first (gdalwarp -geoloc -t_srs EPSG:4326 'HDF4_EOS:EOS_SWATH:"${path.basename(source)}":${s.name}:${field}' out.tif), or use a gridded (level-3) product such as MOD09GA or MOD13Q1`;
}

/**
 * The fields of an HDF4 file that can be read as rasters, each named as it is chosen after a `#`
 * (`FIELD`, or `GRID/FIELD` when two grids have a field of that name); [] for a swath or any other file.
 */
export async function hdf4GridFields(file: string): Promise<string[]> {
  const fh = await fs.promises.open(file, 'r');
  const head = Buffer.alloc(4);
  try { await fh.read(head, 0, 4, 0); } finally { await fh.close(); }
  if (!isHdf4(head)) return [];
  const o = await openHdf4(file, (m) => new Error(m));
  try {
    return o.candidates.map((c) => c.id);
  } finally {
    await o.file.close();
  }
}

/**
 * What an HDF4 path reads as: one field (`file.hdf#FIELD`), or a MODIS surface-reflectance file's
 * scene (reflectance-scene.ts) when the file is given whole or by a grid's name (`file.hdf#GRID`);
 * else the file's only field, or the refusal that names its fields.
 */
export async function openHdf4Raster(source: string, fail: (m: string) => Error, field?: string): Promise<RasterDataset & { init(signal?: AbortSignal): Promise<void> }> {
  // The file is parsed here once (DD blocks, vgroups, vdatas, SD attributes, StructMetadata) and
  // the field, or each of the scene's fields, is set up from that parse and its open handle: parsed
  // again per field, a MOD09A1 scene would read the whole structure 8 times for its 7 bands.
  const o = await openHdf4(source, fail);
  let scene: SceneChoice | undefined;
  try {
    const fields = o.candidates.flatMap((c) => (c.grid ? [{ id: c.id, field: c.field, grid: c.grid.name, xdim: c.grid.xdim, ydim: c.grid.ydim }] : []));
    const isField = field !== undefined && o.candidates.some((c) => c.id === field || c.field === field || (c.grid && `${c.grid.name}/${c.field}` === field));
    if (!isField && (field !== undefined || o.candidates.length > 1)) scene = sceneFields(fields, field);
  } catch (e) {
    await o.file.close();
    throw e;
  }
  if (!scene) return new Hdf4Dataset(source, fail, field, { opened: o, ownsFile: true });
  // The scene's fields share the handle, so none closes it: the scene does, once, when it closes (or fails to open).
  return new FieldStack(source, scene, async (id) => { const ds = new Hdf4Dataset(source, fail, id, { opened: o, ownsFile: false }); await ds.init(); return ds; }, fail, field, () => o.file.close());
}

/** One field of an HDF4 file as a raster dataset. */
export class Hdf4Dataset implements RasterDataset {
  width = 0; height = 0; bandCount = 1; blockWidth = 0; blockHeight = 0;
  dtype: DType = 'uint8'; geo!: GeoInfo; nodata: number | null = null;
  bandDescriptions: (string | null)[] = []; scales: number[] = []; offsets: number[] = [];
  warnings?: string[];
  units?: (string | null)[];
  /**
   * The name that opens this field again (`file.hdf#FIELD`; the file when none was named): the
   * pixel pipeline reopens its inputs by it, and the file alone may be a reflectance scene.
   * Messages name the file.
   */
  readonly source: string;
  private valid?: ValidRange;
  private file?: Hdf4File;
  private reader!: SdsReader;
  private xd = 1; private yd = 0; private bd = -1;
  private closed = false;
  private ownsFile = true;

  /**
   * `field`: the one to read (`FIELD`, `GRID/FIELD`, or an SDS name in a plain SD file); the
   * file's only gridded field when not given. `parsed`: the file as openHdf4Raster already parsed
   * it, read from instead of parsing it again; `ownsFile` false where a scene's fields share its
   * handle (the scene closes it, not each field).
   */
  constructor(private hdfPath: string, private fail: (message: string) => Error, private field?: string, private parsed?: { opened: Opened; ownsFile: boolean }) {
    this.source = field === undefined ? hdfPath : `${hdfPath}#${field}`;
  }

  async init(signal?: AbortSignal): Promise<void> {
    const o = this.parsed?.opened ?? await openHdf4(this.hdfPath, this.fail);
    this.ownsFile = this.parsed?.ownsFile ?? true;
    this.parsed = undefined;
    this.file = o.file;
    try {
      signal?.throwIfAborted();
      const c = this.choose(o);
      await this.setUp(o, c);
    } catch (e) {
      await this.close();
      throw e;
    }
  }

  private choose(o: Opened): Candidate {
    const base = path.basename(this.hdfPath);
    const names = o.candidates.map((c) => c.id);
    const list = names.length > 12 ? `${names.slice(0, 12).join(', ')}, … (${names.length} in all)` : names.join(', ');
    if (o.eos && !o.eos.grids.length && o.eos.swaths.length) throw this.fail(`${this.hdfPath}${this.field ? ` (field "${this.field}")` : ''}: ${swathAdvice(this.hdfPath, o.eos)}`);
    if (!o.candidates.length) {
      throw this.fail(`${this.hdfPath}: holds no field GeoWeave can read as a raster (a gridded field of 2 or 3 dimensions); its scientific data sets: ${o.sd.datasets.map((s) => `${s.name} (${s.dims.map((d) => d.size).join('×')})`).join(', ') || 'none'}`);
    }
    if (this.field === undefined) {
      if (o.candidates.length === 1) return o.candidates[0];
      throw this.fail(`${this.hdfPath}: holds ${o.candidates.length} fields (${list}); name the one to read as ${base}#${o.candidates[0].id}`);
    }
    const f = this.field;
    const hit = o.candidates.find((c) => c.id === f)
      ?? o.candidates.find((c) => c.grid && `${c.grid.name}/${c.field}` === f)
      ?? (o.candidates.filter((c) => c.field === f).length === 1 ? o.candidates.find((c) => c.field === f) : undefined);
    if (hit) return hit;
    const twice = o.candidates.filter((c) => c.field === f);
    if (twice.length > 1) throw this.fail(`${this.hdfPath}: field "${f}" is in ${twice.length} grids; name one as ${base}#${twice[0].id}`);
    const plain = o.sd.datasets.find((s) => s.name === f);
    const why = plain ? ` ("${f}" is a data set of ${plain.dims.length} dimension${plain.dims.length === 1 ? '' : 's'}, ${plain.dims.map((d) => d.size).join('×')}, not a grid field)` : '';
    throw this.fail(`${this.hdfPath}: holds no gridded field "${f}"${why}; its fields: ${list} (name one as ${base}#${o.candidates[0].id})`);
  }

  private async setUp(o: Opened, c: Candidate): Promise<void> {
    const sds = c.sds, what = `field "${c.id}"`;
    const names = c.dimList.length === sds.dims.length ? c.dimList : sds.dims.map((d) => dimBase(d.name));
    const rank = sds.dims.length;
    // XDim and YDim by name, as GDAL finds them; else the last two dimensions.
    let xd = names.findIndex((n) => n === 'XDim'), yd = names.findIndex((n) => n === 'YDim');
    if (xd < 0) xd = names.findIndex((n) => /XDim/i.test(n));
    if (yd < 0) yd = names.findIndex((n) => /YDim/i.test(n));
    // GDAL's HDF4Image writes bands pixel-interleaved (Y, X, band); other files' last two are the grid.
    if ((xd < 0 || yd < 0 || xd === yd) && !c.grid && gdalWritten(o.sd.globals)) { xd = 1; yd = 0; }
    else if (xd < 0 || yd < 0 || xd === yd) { xd = rank - 1; yd = rank - 2; }
    this.xd = xd; this.yd = yd;
    this.bd = rank === 3 ? [0, 1, 2].find((i) => i !== xd && i !== yd)! : -1;
    this.width = sds.dims[xd].size;
    this.height = sds.dims[yd].size;
    this.bandCount = this.bd >= 0 ? sds.dims[this.bd].size : 1;
    if (c.grid && (c.grid.xdim !== this.width || c.grid.ydim !== this.height)) {
      throw this.fail(`${this.hdfPath}: ${what} is ${this.width}×${this.height} but its grid "${c.grid.name}" is ${c.grid.xdim}×${c.grid.ydim}; the file is damaged`);
    }
    if (this.bandCount > 100000) throw this.fail(`${this.hdfPath}: ${what} would be ${this.bandCount} bands; GeoWeave reads up to 100 000`);
    const fill = num(sds.attrs.get('_FillValue'));
    this.reader = new SdsReader(o.file, sds, what, Math.min(xd, yd), fill);
    this.dtype = this.reader.dtype;
    await this.reader.init();
    this.blockWidth = Math.min(this.width, this.reader.chunk[xd]);
    this.blockHeight = Math.min(this.height, this.reader.chunk[yd]);
    this.nodata = fill === undefined ? null : this.dtype === 'float32' ? Math.fround(fill) : fill;
    const scale = asGdalReads(sds, 'scale_factor') ?? 1, offset = asGdalReads(sds, 'add_offset') ?? 0;
    // MODIS land products write a divisor as scale_factor where it is above 1 (MOD13 NDVI and
    // MOD09 reflectance: 10000, value = DN / 10000), a factor where it is below (MOD11 LST: 0.02).
    // GDAL applies both as factors, so NDVI would read as DN × 10000 and every threshold, mean and
    // index on it would be wrong: on an HDF-EOS grid an integer field's scale above 1 divides.
    const divides = !!c.grid && scale > 1 && !this.dtype.startsWith('float');
    this.scales = new Array(this.bandCount).fill(divides ? 1 / scale : scale);
    this.offsets = new Array(this.bandCount).fill(divides ? -offset / scale : offset);
    const longName = str(sds.attrs.get('long_name'));
    this.bandDescriptions = this.bd < 0 ? [longName ?? null] : Array.from({ length: this.bandCount }, (_, b) => `${names[this.bd]}=${b}`);
    const units = str(sds.attrs.get('units'));
    if (units) this.units = new Array(this.bandCount).fill(units);
    // Stored values outside valid_range are NaN where computed with (valid-range.ts says why GDAL's HDF4 reading differs).
    this.valid = validRange((n) => sds.attrs.get(n), this.dtype === 'float32');
    if (divides) {
      (this.warnings ??= []).push(`${this.hdfPath}#${c.id}: scale_factor is ${scale}, read as MODIS documents it: value = DN / ${scale}${offset ? ` − ${offset / scale}` : ''} (GDAL applies it as DN × ${scale})`);
    } else if (scale > 1 && !this.dtype.startsWith('float')) {
      (this.warnings ??= []).push(`${this.hdfPath}#${c.id}: scale_factor is ${scale}, applied as DN × ${scale}${offset ? ` + ${offset}` : ''} as GDAL does; if the product means DN / ${scale} (as MODIS does), divide the raw values instead`);
    }
    if (c.grid) {
      const { geo, warnings } = gridGeo(c.grid, this.hdfPath);
      this.geo = geo;
      if (warnings.length) (this.warnings ??= []).push(...warnings);
    } else if (gdalWritten(o.sd.globals)) {
      this.geo = this.gdalGeo(o.sd.globals);
      const nd = Number(str(o.sd.globals.get('NoDataValue1')));
      if (fill === undefined && str(o.sd.globals.get('NoDataValue1')) && Number.isFinite(nd)) this.nodata = this.dtype === 'float32' ? Math.fround(nd) : nd;
    } else {
      this.geo = { geographic: false, geoTransform: [0, 1, 0, 0, 0, 1], ungeoreferenced: { gcps: [] } };
      (this.warnings ??= []).push(`${this.hdfPath}: ${what} has no HDF-EOS grid metadata (StructMetadata.0); it is read without a place on the map`);
    }
  }

  /** The geotransform and CRS GDAL's HDF4Image writer keeps in global attributes (TransformationMatrix, Projection). */
  private gdalGeo(globals: Map<string, AttValue>): GeoInfo {
    const gt = str(globals.get('TransformationMatrix'))!.split(',').map(Number) as GeoInfo['geoTransform'];
    const wkt = str(globals.get('Projection'));
    if (wkt) {
      try {
        const c = parseCrs(wkt, `${this.hdfPath} Projection attribute`);
        return { ...(c.epsg ? { epsg: c.epsg } : { wkt }), geographic: c.geographic, geoTransform: gt };
      } catch {
        (this.warnings ??= []).push(`${this.hdfPath}: its Projection attribute names a coordinate system GeoWeave does not read; the grid is placed without one`);
      }
    }
    return { geographic: false, geoTransform: gt };
  }

  async readWindowRaw(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal, into?: ArrayLike<number>): Promise<TypedArray> {
    const out = windowTarget(this, !this.closed && !!this.file, this.fail, band, x, y, w, h, into);
    const fixed = [0, 0, 0].slice(0, this.reader.sds.dims.length);
    if (this.bd >= 0) fixed[this.bd] = band - 1;
    try {
      await this.reader.readSlice(fixed, this.yd, this.xd, x, y, w, h, out, signal);
    } catch (e) {
      if (signal?.aborted) throw signal.reason ?? e;
      throw e instanceof Error && e.message.startsWith(this.hdfPath) ? e : this.fail(`${this.hdfPath}: cannot read band ${band} at x=${x} y=${y} (${(e as Error).message}); the file may be cut short or damaged`);
    }
    return out;
  }

  async readWindow(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal): Promise<Float32Array> {
    const raw = await this.readWindowRaw(band, x, y, w, h, signal);
    return maskOutside(raw, toFloat(raw, this.nodata, this.scales[band - 1], this.offsets[band - 1], this.dtype === 'float32'), this.valid);
  }

  tileCacheUse(): { tiles: number; bytes: number } {
    const u = this.reader?.cacheUse() ?? { chunks: 0, bytes: 0 };
    return { tiles: u.chunks, bytes: u.bytes };
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.ownsFile) await this.file?.close();
    this.file = undefined;
  }
}
