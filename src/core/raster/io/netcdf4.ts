/**
 * NetCDF-4 files (HDF5 inside: ERA5 from today's Copernicus CDS, Sentinel-3 and Sentinel-5P
 * products, most recent climate data) and other HDF5 files, the backend that gives cf-grid.ts their
 * variables. Read through h5wasm, the HDF5 C library compiled to WebAssembly, loaded on the first
 * HDF5 file; its Node build reads the file where it lies (Emscripten's NODERAWFS), so only the
 * metadata and the chunks a window touches are read, deflate and shuffle undone by HDF5 itself.
 * A NetCDF-4 dimension is an HDF5 dimension scale: a variable's dimensions are the scales attached
 * to its axes, a scale that is a real variable (not netCDF's "This is a netCDF dimension but not a
 * netCDF variable") its coordinate variable. Variables in groups are named by their path
 * (`PRODUCT/nitrogendioxide_tropospheric_column`). HDF-EOS5 grids (VIIRS land products) are placed
 * by their structure metadata (hdfeos5.ts, through `eosMetadata`); any other HDF5 file that is not
 * NetCDF-4 (no dimension scales: plain arrays) has no georeferencing GeoWeave reads and is refused saying so.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AttValue, CfDim, CfFile, CfVariable } from './cf-grid';
import type { DType } from './samples';
import { trimEnd } from './trim-end';

/** The HDF5 signature, at the start of every file netCDF and the usual HDF5 writers make. */
export function isHdf5(head: Buffer): boolean {
  return head.length >= 8 && head.toString('latin1', 0, 8) === '\x89HDF\r\n\x1a\n';
}

// The parts of h5wasm's API used here (its types ship with its ESM build, which tsc's CommonJS
// resolution does not see).
interface H5Attribute { metadata: { type: number }; value: unknown }
interface H5Entity { type: string; path: string; attrs: Record<string, H5Attribute> }
interface H5Dataset extends H5Entity {
  metadata: { type: number; size: number; signed: boolean; shape: number[] | null; chunks: number[] | null };
  shape: number[] | null;
  filters: { id: number; name: string }[];
  value: unknown;
  slice(ranges: [number, number][]): unknown;
  get_attached_scales(index: number): string[];
}
interface H5Group extends H5Entity { keys(): string[]; get(name: string): H5Entity | null }
interface H5File extends H5Group { close(): number }
interface H5Wasm { File: new (file: string, mode: 'r') => H5File; ready: Promise<{ activate_throwing_error_handler(): number }> }

// tsconfig emits CommonJS, which would turn import() into require(); h5wasm is ESM only.
const importEsm = new Function('s', 'return import(s)') as (s: string) => Promise<any>;
let loading: Promise<H5Wasm> | undefined;
/** Instances loaded so far: a fresh one is imported under a new URL after HDF5 aborted in the last. */
let instances = 0;

/** h5wasm's Node build in the node_modules above this file (the extension's own, beside dist/ or out/). */
function h5wasmEntry(): string | undefined {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const f = path.join(dir, 'node_modules', 'h5wasm', 'dist', 'node', 'hdf5_hl.js');
    if (fs.existsSync(f)) return f;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/** h5wasm, loaded once; HDF5's errors become exceptions carrying HDF5's own error stack instead of lines on stderr. */
export function loadH5wasm(): Promise<H5Wasm> {
  loading ??= (async () => {
    const entry = h5wasmEntry();
    let h5: H5Wasm;
    try {
      h5 = await importEsm(entry ? `${pathToFileURL(entry).href}${instances ? `?instance=${instances}` : ''}` : 'h5wasm/node');
      instances++;
    } catch (e) {
      throw new Error(`cannot load h5wasm, which reads NetCDF-4 and HDF5 files (${(e as Error).message}); run "npm install" in the extension folder`);
    }
    (await h5.ready).activate_throwing_error_handler();
    return h5;
  })();
  loading.catch(() => (loading = undefined));
  return loading;
}

/**
 * A WebAssembly trap or abort (HDF5 calling abort() on a damaged file) may leave the instance
 * unusable: files opened from now on get a fresh one.
 */
function dropIfTrapped(e: unknown): void {
  if (e instanceof Error && e.name === 'RuntimeError') loading = undefined;
}

/** HDF5's reason for an error: the innermost message of its error stack ("truncated file: eof = …"). */
function hdf5Reason(e: unknown): string {
  dropIfTrapped(e);
  const m = e instanceof Error ? e.message : String(e);
  const frames = [...m.matchAll(/#\d+: .* in [\w.]+\(\): (.+)$/gm)].map((f) => f[1].trim());
  return frames[frames.length - 1] ?? m.split('\n')[0].slice(0, 300);
}

/** Filters netCDF and HDF5 tools write that this HDF5 build lacks (registered ids). */
const PLUGIN_FILTERS: Record<number, string> = { 307: 'bzip2', 32001: 'Blosc', 32004: 'LZ4', 32008: 'Bitshuffle', 32013: 'ZFP', 32015: 'Zstandard', 32017: 'SZ' };

const NOT_A_VARIABLE = 'This is a netCDF dimension but not a netCDF variable';
/** HDF5 attributes that carry netCDF's or HDF5's own bookkeeping, not the variable's. */
const BOOKKEEPING = new Set(['DIMENSION_LIST', 'REFERENCE_LIST', 'CLASS', 'NAME', '_Netcdf4Dimid', '_Netcdf4Coordinates', '_nc3_strict', '_NCProperties', '_SuperblockVersion', '_IsNetcdf4']);
const MAX_DATASETS = 20000;

/** HDF5 numeric types as raster sample types (HDF5 classes 0 integer, 1 float). */
function dtypeOf(m: H5Dataset['metadata']): DType | undefined {
  if (m.type === 1) return m.size === 4 ? 'float32' : m.size === 8 ? 'float64' : undefined;
  if (m.type !== 0) return undefined;
  const bits = m.size * 8;
  return ([8, 16, 32, 64].includes(bits) ? `${m.signed ? 'int' : 'uint'}${bits}` : undefined) as DType | undefined;
}

/** An attribute's value as cf-grid.ts takes it: text, or numbers; undefined for references, compounds and the like. */
function attValue(a: H5Attribute): AttValue | undefined {
  if (![0, 1, 3].includes(a.metadata.type)) return undefined;
  const v = a.value;
  if (typeof v === 'string') return trimEnd(v);
  if (typeof v === 'number' || typeof v === 'bigint') return [Number(v)];
  if (ArrayBuffer.isView(v)) return Array.from(v as unknown as ArrayLike<number | bigint>, Number);
  if (Array.isArray(v)) {
    const flat = v.flat(8);
    if (flat.every((x) => typeof x === 'string')) return trimEnd(flat.join(' '));
    if (flat.every((x) => typeof x === 'number' || typeof x === 'bigint')) return flat.map(Number);
  }
  return undefined;
}

/** A NetCDF-4 or HDF5 file's variables for cf-grid.ts, through one open h5wasm file. */
export class Hdf5File implements CfFile {
  readonly variables: CfVariable[] = [];
  private datasets = new Map<CfVariable, H5Dataset>();
  /** Laid out as NetCDF-4 (dimension scales, or netCDF's own properties), or HDF5 of another kind. */
  private netcdf = false;
  private hdfEos = false;

  private constructor(readonly source: string, private file: H5File, private fail: (m: string) => Error) {}

  static async open(source: string, fail: (m: string) => Error): Promise<Hdf5File> {
    const h5 = await loadH5wasm();
    const size = (await fs.promises.stat(source)).size;
    let file: H5File;
    try {
      file = new h5.File(source, 'r');
    } catch (e) {
      const why = hdf5Reason(e);
      const cut = /truncated file: eof = (\d+).*stored_eof = (\d+)/.exec(why);
      if (cut) throw fail(`${source}: the file is cut short (${cut[1]} of its ${cut[2]} bytes are there); download it again`);
      throw fail(`${source}: HDF5 cannot open it (${why}); the file is damaged${size < 1024 ? ` (it has only ${size} bytes)` : ''}: download it again`);
    }
    const f = new Hdf5File(source, file, fail);
    try {
      f.describe();
    } catch (e) {
      await f.close();
      throw fail(`${source}: HDF5 cannot read its variables (${hdf5Reason(e)}); the file is damaged: download it again`);
    }
    return f;
  }

  /** Walks the groups: every dataset a variable, its axes named by the dimension scales attached to them. */
  private describe(): void {
    this.netcdf = '_NCProperties' in this.file.attrs;
    const found: { ds: H5Dataset; group: string; name: string }[] = [];
    const walk = (g: H5Group, prefix: string, depth: number) => {
      for (const key of g.keys()) {
        if (found.length >= MAX_DATASETS) return;
        const e = g.get(key);
        if (!e) continue;
        if (e.type === 'Group' && depth < 32) {
          if (key === 'HDFEOS INFORMATION' || key === 'HDFEOS') this.hdfEos = true;
          walk(e as H5Group, prefix ? `${prefix}/${key}` : key, depth + 1);
        } else if (e.type === 'Dataset') found.push({ ds: e as H5Dataset, group: prefix, name: key });
      }
    };
    walk(this.file, '', 0);
    const byPath = new Map<string, CfVariable>();
    const scales = new Set<CfVariable>();
    const withDimensions = new Set<CfVariable>();
    for (const { ds, group, name } of found) {
      const attrs = ds.attrs;
      const isScale = 'CLASS' in attrs && safeValue(attrs.CLASS) === 'DIMENSION_SCALE';
      if (isScale || 'DIMENSION_LIST' in attrs) this.netcdf = true;
      if (isScale && String(safeValue(attrs.NAME) ?? '').startsWith(NOT_A_VARIABLE)) continue;
      const m = ds.metadata;
      const shape = m.shape ?? [];
      // netCDF stores a variable named like a dimension but not its coordinate under this prefix.
      const own = name.replace(/^_nc4_non_coord_/, '');
      const v = { name: group ? `${group}/${own}` : own, group, dtype: dtypeOf(m), dims: [] } as unknown as CfVariable;
      // Attribute values are read when asked for: a Sentinel-5P product has hundreds of variables.
      let atts: Map<string, AttValue> | undefined;
      Object.defineProperty(v, 'atts', { enumerable: true, get: () => (atts ??= readAttributes(attrs)) });
      // GDAL's blocks for a contiguous variable: one row.
      if (shape.length >= 2) v.chunks = m.chunks ?? [...shape.slice(0, -1).map(() => 1), shape[shape.length - 1]];
      if (isScale && shape.length === 1) scales.add(v);
      if ('DIMENSION_LIST' in attrs) withDimensions.add(v);
      byPath.set(ds.path, v);
      this.datasets.set(v, ds);
      this.variables.push(v);
    }
    for (const v of this.variables) {
      const ds = this.datasets.get(v)!;
      const shape = ds.metadata.shape ?? [];
      // A coordinate variable is the scale of its own dimension.
      if (scales.has(v)) { v.dims = [{ name: v.name.replace(/^.*\//, ''), length: shape[0], coordinate: v }]; continue; }
      v.dims = shape.map((length, i): CfDim => {
        let attached: string[] = [];
        if (withDimensions.has(v)) try { attached = ds.get_attached_scales(i); } catch (e) { dropIfTrapped(e); /* no dimension scale on this axis */ }
        const scale = attached[0];
        if (!scale) return { name: `phony_dim_${i}`, length };
        const c = byPath.get(scale);
        return { name: scale.replace(/^.*\//, ''), length, ...(c && scales.has(c) ? { coordinate: c } : {}) };
      });
    }
  }

  /**
   * The HDF-EOS5 structure metadata (`/HDFEOS INFORMATION/StructMetadata.0`, .1, … concatenated),
   * or undefined for a file without it.
   */
  eosMetadata(): string | undefined {
    if (!this.hdfEos) return undefined;
    let text = '';
    for (let i = 0; i < 100; i++) {
      let e: H5Entity | null = null;
      try { e = this.file.get(`HDFEOS INFORMATION/StructMetadata.${i}`); } catch (err) { dropIfTrapped(err); }
      if (!e || e.type !== 'Dataset') break;
      let value: unknown;
      try { value = (e as H5Dataset).value; } catch (err) { dropIfTrapped(err); break; }
      const t = Array.isArray(value) ? value.join('') : value;
      if (typeof t !== 'string') break;
      text += t;
    }
    return text || undefined;
  }

  unplaced(v: CfVariable): string | undefined {
    if (this.netcdf) return undefined;
    const why = this.hdfEos
      ? 'it is an HDF-EOS5 file without grids (GeoWeave reads HDF-EOS5 grids, not swaths, points or zonal averages)'
      : 'no dimension scales or CF coordinate variables give its grid';
    return `dataset "${v.name}" has no georeferencing GeoWeave reads (${why}); GeoWeave reads HDF5 laid out as NetCDF-4/CF. `
      + `Convert it with gdal_translate HDF5:"${this.source}"://${v.name} ${v.name.replace(/^.*\//, '')}.tif (add -a_srs and -a_ullr if GDAL finds no georeferencing either)`;
  }

  /** Reads one value, so a filter this HDF5 lacks or a damaged first chunk is said when the file is opened. */
  async check(v: CfVariable): Promise<void> {
    const ds = this.datasets.get(v)!;
    const missing = ds.filters.find((f) => PLUGIN_FILTERS[f.id]);
    const how = `convert it with a netCDF or GDAL build that has the filter: nccopy -F none IN OUT.nc, or gdal_translate -of netCDF -co FORMAT=NC4 -co COMPRESS=DEFLATE ${v.group ? `NETCDF:IN:/${v.name}` : `NETCDF:IN:${v.name}`} OUT.nc`;
    if (missing) throw this.fail(`${this.source}: variable "${v.name}" is compressed with ${PLUGIN_FILTERS[missing.id]} (HDF5 filter ${missing.id}), which GeoWeave's HDF5 library does not have; ${how}`);
    try {
      ds.slice(v.dims.map(() => [0, 1] as [number, number]));
    } catch (e) {
      const why = hdf5Reason(e);
      if (/filter/i.test(why)) throw this.fail(`${this.source}: variable "${v.name}" is compressed with a filter GeoWeave's HDF5 library does not have (${why}); ${how}`);
      throw this.fail(`${this.source}: variable "${v.name}" cannot be read (${why}); the file is damaged: download it again`);
    }
  }

  async values(v: CfVariable): Promise<number[]> {
    const data = this.sliced(v, () => this.datasets.get(v)!.value);
    return Array.from(data, Number);
  }

  async read(v: CfVariable, start: number[], count: number[], signal?: AbortSignal): Promise<ArrayLike<number>> {
    signal?.throwIfAborted();
    const ds = this.datasets.get(v)!;
    const data = this.sliced(v, () => ds.slice(start.map((s, i) => [s, s + count[i]] as [number, number])));
    // 64-bit integers come as BigInt arrays; the engine holds them as doubles.
    return data instanceof BigInt64Array || data instanceof BigUint64Array ? Float64Array.from(data as ArrayLike<bigint>, Number) : data;
  }

  private sliced(v: CfVariable, get: () => unknown): ArrayLike<number> {
    let data: unknown;
    try {
      data = get();
    } catch (e) {
      throw this.fail(`${this.source}: reading variable "${v.name}" failed (${hdf5Reason(e)}); the file is damaged or changed since it was opened`);
    }
    if (!ArrayBuffer.isView(data)) throw this.fail(`${this.source}: variable "${v.name}" did not read as numbers`);
    return data as unknown as ArrayLike<number>;
  }

  async close(): Promise<void> {
    try { this.file.close(); } catch (e) { dropIfTrapped(e); }
  }
}

/** A variable's own attributes (not netCDF's or HDF5's bookkeeping) as cf-grid.ts takes them; those HDF5 cannot read are left out. */
function readAttributes(attrs: Record<string, H5Attribute>): Map<string, AttValue> {
  const out = new Map<string, AttValue>();
  for (const k of Object.keys(attrs)) {
    if (BOOKKEEPING.has(k)) continue;
    try { const v = attValue(attrs[k]); if (v !== undefined) out.set(k, v); } catch (e) { dropIfTrapped(e); }
  }
  return out;
}

/** An attribute's value, or undefined when HDF5 cannot read it. */
function safeValue(a: H5Attribute | undefined): unknown {
  try { return a?.value; } catch (e) { dropIfTrapped(e); return undefined; }
}
