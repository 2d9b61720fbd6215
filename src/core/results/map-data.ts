/**
 * What the map in a cell output reads, served by the host: the renderer runs in a webview that
 * cannot open files, so it asks for 256×256 tiles of a raster's pixel grid, pixel values and
 * vector files (src/shared/result-protocol.ts). A tile at zoom z samples every 2^(maxZoom−z)-th
 * pixel; the outer zooms of a large raster come from one downsampled overview (at most 2048 px a
 * side, written once into a cache folder), the inner ones from windows of the file itself, so the
 * webview never holds more than the tiles on screen and a 20000×20000 output opens from a 1250²
 * overview. Pure Node: no VS Code.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { openRaster, overviewFor, type RasterDataset } from '../raster/io/dataset';
import { fileLayer, RASTER_FILE } from '../raster/raster-files';
import { roleFromDescription } from '../raster/bands';
import { insideScope } from '../notebook/references';
import type { LayerInfo, LayerKind, LayerRef, MapClass } from '../../shared/result-protocol';
import { type ColorTable, tableColor, usedValues } from '../raster/io/color-table';
import { TILE_SIZE, maxZoomFor } from '../../shared/result-protocol';
import { hex, labelsFromText, valueStats } from './palettes';
import { projectionOf } from './crs';
import { crsOfGeo } from '../raster/crs/crs';
import { readDecimated } from '../raster/tools/common';

/** Rasters up to this side are read directly at every zoom; larger ones get an overview. */
export const OVERVIEW_SIDE = 2048;
/** Largest vector file sent to the renderer. */
export const MAX_VECTOR_BYTES = 32 << 20;
const OPEN_DATASETS = 6;

interface Overview { factor: number; width: number; height: number; data: Float32Array }
interface Open { ds: RasterDataset; key: string; overviews: Map<number, Promise<Overview | undefined>> }

export interface MapDataOptions {
  /** Folders whose files may be read (the workspace and the outputs folder). */
  roots: () => string[];
  /** Where overviews are kept. */
  cacheDir: string;
}

export class MapData {
  private readonly open = new Map<string, Promise<Open>>();

  constructor(private readonly opts: MapDataOptions) {}

  /** Throws unless `file` is an existing file inside the allowed roots. */
  private check(file: string, exts: RegExp): fs.Stats {
    if (!path.isAbsolute(file) || !exts.test(file)) throw new Error(`${path.basename(file)}: not a file the map reads`);
    if (!insideScope(file, this.opts.roots())) throw new Error(`${file} lies outside the workspace and the outputs folder`);
    let st: fs.Stats;
    // A variable of a NetCDF file (era5.nc#t2m) is read from the file.
    try { st = fs.statSync(fileLayer(file)?.file ?? file); } catch { throw new Error(`${file} no longer exists; run the cell again`); }
    if (!st.isFile()) throw new Error(`${file} is not a file`);
    return st;
  }

  private async dataset(file: string): Promise<Open> {
    const st = this.check(file, RASTER_FILE);
    const key = `${file}|${st.size}|${st.mtimeMs}`;
    const cached = this.open.get(file);
    if (cached) {
      const o = await cached.catch(() => undefined);
      if (o && o.key === key) {
        // Most recently used last.
        this.open.delete(file); this.open.set(file, cached);
        return o;
      }
      this.open.delete(file);
      if (o) void o.ds.close().catch(() => undefined);
    }
    const p = openRaster(file).then((ds) => ({ ds, key, overviews: new Map() }));
    this.open.set(file, p);
    while (this.open.size > OPEN_DATASETS) {
      const [oldest, q] = this.open.entries().next().value as [string, Promise<Open>];
      this.open.delete(oldest);
      void q.then((o) => o.ds.close()).catch(() => undefined);
    }
    return p;
  }

  /** The overview of `band` (undefined for rasters small enough to read directly). */
  private overview(o: Open, band: number, signal?: AbortSignal): Promise<Overview | undefined> {
    let p = o.overviews.get(band);
    if (!p) {
      p = this.loadOrBuildOverview(o, band, signal);
      o.overviews.set(band, p);
      p.catch(() => o.overviews.delete(band));
    }
    return p;
  }

  private async loadOrBuildOverview(o: Open, band: number, signal?: AbortSignal): Promise<Overview | undefined> {
    const { ds } = o;
    const side = Math.max(ds.width, ds.height);
    if (side <= OVERVIEW_SIDE) return undefined;
    const factor = 2 ** Math.ceil(Math.log2(side / OVERVIEW_SIDE));
    const width = Math.ceil(ds.width / factor), height = Math.ceil(ds.height / factor);
    const file = path.join(this.opts.cacheDir, `${createHash('sha1').update(`${o.key}|${band}|${factor}`).digest('hex').slice(0, 24)}.f32`);
    try {
      const buf = await fs.promises.readFile(file);
      if (buf.length === width * height * 4) return { factor, width, height, data: new Float32Array(buf.buffer, buf.byteOffset, width * height) };
    } catch { /* not built yet */ }
    // From the file's own overview nearest above this size when it has one (a COG's), else the full grid.
    const { data } = await readDecimated(ds, band, factor, signal);
    await fs.promises.mkdir(this.opts.cacheDir, { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    await fs.promises.writeFile(tmp, Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    await fs.promises.rename(tmp, file);
    return { factor, width, height, data };
  }

  /** Builds the overview of band 1 now (after a run), so the first map view is fast. */
  async prepare(file: string, signal?: AbortSignal): Promise<boolean> {
    const o = await this.dataset(file);
    return !!(await this.overview(o, 1, signal));
  }

  /**
   * Grid, CRS, value ranges and legend values of a raster layer. `signal`: the raster viewer was
   * closed (a first look at a large file without overviews reads all of it).
   */
  async describe(ref: LayerRef, signal?: AbortSignal): Promise<LayerInfo> {
    const empty: LayerInfo = { path: ref.path, exists: false, width: 0, height: 0, bandCount: 0, geoTransform: [], geographic: false, maxZoom: 0, bandStats: [], overview: false, bands: ref.bands };
    let o: Open;
    try { o = await this.dataset(ref.path); } catch (e) { return { ...empty, error: (e as Error).message }; }
    const { ds } = o;
    let bands = ref.bands.filter((b) => b >= 1 && b <= ds.bandCount);
    if (!bands.length) bands = [1];
    let kind: LayerKind | undefined;
    let labels = labelsFromText(ds.bandDescriptions[bands[0] - 1]);
    if (ref.auto) {
      const roles = ds.bandDescriptions.map((d) => roleFromDescription(d));
      const rgb = ['red', 'green', 'blue'].map((r) => roles.indexOf(r) + 1);
      if (rgb.every((b) => b > 0)) { bands = rgb; kind = 'rgb'; }
      else if (ds.bandCount >= 3 && !roles.some(Boolean)) { bands = [3, 2, 1]; kind = 'rgb'; }
    }
    const maxZoom = maxZoomFor(ds.width, ds.height);
    const z0 = await Promise.all(bands.map((b) => this.tileData(o, b, 0, 0, 0, signal)));
    const bandStats = z0.map((d) => valueStats(d));
    let values: number[] | undefined;
    const distinct = new Set<number>();
    for (const v of z0[0]) {
      if (v !== v) continue;
      if (!Number.isInteger(v) || distinct.size > 64) { distinct.clear(); break; }
      distinct.add(v);
    }
    if (distinct.size && distinct.size <= 64) values = [...distinct].sort((a, b) => a - b);
    if (labels) values = [...new Set([...(values ?? []), ...Object.keys(labels).map(Number).filter((v) => values?.includes(v) ?? true)])].sort((a, b) => a - b);
    // A palette TIFF (land cover, classifications) is drawn in its own colours with its category names.
    const table = bands.length === 1 && bands[0] === 1 ? ds.colorTable : undefined;
    const names = ds.categoryNames?.[bands[0] - 1] ?? undefined;
    let classes: MapClass[] | undefined;
    if (table) {
      kind = 'class';
      // More than 64 classes in view (a 16-bit product): the legend still lists those present, up to 256.
      let present = values;
      if (!present) {
        const seen = new Set<number>();
        for (const v of z0[0]) if (v === v && seen.size < 256) seen.add(v);
        present = [...seen].sort((a, b) => a - b);
      }
      classes = tableClasses(table, present, names, labels, ds.nodata);
    } else if (names && !labels) {
      // Category names of a raster without a colour table label its classes (the field schemes colour them).
      const named = names.map((n, v) => [String(v), n] as [string, string]).filter(([k, n]) => n && (values?.includes(Number(k)) ?? true)).slice(0, 256);
      if (named.length) labels = Object.fromEntries(named);
    }
    if (ref.auto && !kind) {
      if (values && values.length <= 2 && values.every((v) => v === 0 || v === 1)) kind = 'mask';
      else if (labels || (values && values.length <= 16 && /u?int8/.test(ds.dtype))) kind = 'class';
    }
    const ov = await this.overview(o, bands[0], signal).catch(() => undefined);
    const epsg = ds.geo.epsg;
    // The engine's CRS of the file (EPSG table or GeoTIFF keys without a code), so the map draws
    // every CRS the tools read and write; the file's citation only when the engine has none.
    let def: string | undefined;
    try { def = crsOfGeo(ds.geo, ref.path)?.def; } catch { def = undefined; }
    const projection = def ?? projectionOf(epsg, ds.geo.wkt);
    return {
      path: ref.path, exists: true, width: ds.width, height: ds.height, bandCount: ds.bandCount, geoTransform: [...ds.geo.geoTransform],
      ...(epsg ? { epsg } : {}), ...(projection ? { projection } : {}),
      geographic: ds.geo.geographic || epsg === 4326, maxZoom, bandStats, ...(values ? { values } : {}), ...(labels ? { labels } : {}),
      overview: !!ov, bands, ...(kind ? { kind } : {}), ...(classes ? { classes } : {}), version: o.key.slice(ref.path.length + 1),
    };
  }

  /** One tile per band: 256×256 floats, NaN outside the raster and for no data. */
  async tile(ref: LayerRef, z: number, x: number, y: number, signal?: AbortSignal): Promise<Float32Array[]> {
    const o = await this.dataset(ref.path);
    return Promise.all(ref.bands.map((b) => this.tileData(o, Math.min(Math.max(1, b), o.ds.bandCount), z, x, y, signal)));
  }

  private async tileData(o: Open, band: number, z: number, x: number, y: number, signal?: AbortSignal): Promise<Float32Array> {
    const { ds } = o;
    const T = TILE_SIZE;
    const out = new Float32Array(T * T).fill(NaN);
    const maxZoom = maxZoomFor(ds.width, ds.height);
    if (z > maxZoom) return out;
    const f = 2 ** (maxZoom - z);
    const x0 = x * T * f, y0 = y * T * f;
    if (x0 >= ds.width || y0 >= ds.height) return out;
    const w = Math.min(T, Math.ceil((ds.width - x0) / f)), h = Math.min(T, Math.ceil((ds.height - y0) / f));
    const ov = f > 1 ? await this.overview(o, band, signal) : undefined;
    if (ov && ov.factor <= f) {
      const step = f / ov.factor, ox = x0 / ov.factor, oy = y0 / ov.factor;
      for (let j = 0; j < h; j++) {
        const row = (oy + j * step) * ov.width;
        for (let i = 0; i < w; i++) out[j * T + i] = ov.data[row + ox + i * step];
      }
      return out;
    }
    if (f > 1) {
      // Between the cached overview and full resolution: from the file's own overview at least this
      // fine when it has one (a COG's, a JPEG 2000's resolution levels), as GDAL reads a downsampled window.
      const src = await overviewFor(ds, Math.ceil(ds.width / f), Math.ceil(ds.height / f), signal);
      if (src !== ds) {
        const sx = src.width / ds.width, sy = src.height / ds.height;
        const cols = Array.from({ length: w }, (_, i) => Math.min(src.width - 1, Math.floor((x0 + i * f) * sx)));
        const rows = Array.from({ length: h }, (_, j) => Math.min(src.height - 1, Math.floor((y0 + j * f) * sy)));
        const wx = cols[0], wy = rows[0], ww = cols[w - 1] - wx + 1, wh = rows[h - 1] - wy + 1;
        // A broken overview is passed over for the full-resolution data, as readDecimated does.
        const win = await src.readWindow(band, wx, wy, ww, wh, signal).catch((e) => { if (signal?.aborted) throw e; return undefined; });
        if (win) {
          for (let j = 0; j < h; j++) for (let i = 0; i < w; i++) out[j * T + i] = win[(rows[j] - wy) * ww + cols[i] - wx];
          return out;
        }
      }
    }
    const ww = Math.min(T * f, ds.width - x0), wh = Math.min(T * f, ds.height - y0);
    const win = await ds.readWindow(band, x0, y0, ww, wh, signal);
    for (let j = 0; j < h; j++) for (let i = 0; i < w; i++) out[j * T + i] = win[j * f * ww + i * f];
    return out;
  }

  /** Values at pixel (col, row), read from the file at full resolution; null outside or no data. */
  async pixel(ref: LayerRef, col: number, row: number): Promise<(number | null)[]> {
    const o = await this.dataset(ref.path);
    const { ds } = o;
    if (col < 0 || row < 0 || col >= ds.width || row >= ds.height) return ref.bands.map(() => null);
    return Promise.all(ref.bands.map(async (b) => {
      const v = (await ds.readWindow(Math.min(Math.max(1, b), ds.bandCount), col, row, 1, 1))[0];
      return v === v ? v : null;
    }));
  }

  async vector(file: string): Promise<string> {
    const st = this.check(file, /\.(geo)?json$/i);
    if (st.size > MAX_VECTOR_BYTES) throw new Error(`${path.basename(file)} is ${Math.round(st.size / 1048576)} MB; the map draws vector files up to ${MAX_VECTOR_BYTES >> 20} MB`);
    return fs.promises.readFile(file, 'utf8');
  }

  vectorExists(file: string): boolean {
    try { this.check(file, /\.(geo)?json$/i); return true; } catch { return false; }
  }

  async dispose(): Promise<void> {
    const all = [...this.open.values()];
    this.open.clear();
    await Promise.all(all.map((p) => p.then((o) => o.ds.close()).catch(() => undefined)));
  }
}

/**
 * The map classes of a colour table: the values `present` (the legend) in the table's colours, named
 * by category names, else band-description labels, else the value; then the table's other used
 * entries (see usedValues) as `unlisted` classes, so a class the overview missed is still drawn in its
 * colour when zoomed in. The nodata value has no class (transparent). At most `limit` classes.
 */
export function tableClasses(table: ColorTable, present: number[], names?: readonly string[] | null, labels?: Record<string, string>, nodata?: number | null, limit = 4096): MapClass[] {
  const shown = new Set(present.filter((v) => tableColor(table, v) && v !== nodata));
  const label = (v: number) => names?.[v] || labels?.[String(v)] || `class ${v}`;
  return usedValues(table, shown, names, nodata, limit).map((v) => ({
    value: v, label: label(v), color: hex(tableColor(table, v)!), ...(shown.has(v) ? {} : { unlisted: true }),
  }));
}

/** Float32 samples as base64 (little-endian, as every platform VS Code runs on). */
export function encodeFloats(a: Float32Array): string {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');
}
