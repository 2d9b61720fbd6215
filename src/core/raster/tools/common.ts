/** Helpers shared by builtin tools (ours and the algorithm tools): output paths, grids, whole-band reads, previews. */
import * as path from 'node:path';
import { overviewFor, type RasterDataset } from '../io/dataset';
import type { WriteSpec } from '../io/writer';
import type { OutputRef } from '../types';
import type { ToolContext } from './types';
import { bandFileOf } from '../band-files';
import { fileLayer } from '../raster-files';

/** File name without directory and extension ("s2_scene" for ".../s2_scene.tif"; URLs use their last segment). */
export function stemOf(p: string): string {
  // A NetCDF variable (era5.nc#t2m, s5p.nc#PRODUCT/ch4) is named after the file and the variable:
  // era5_t2m, s5p_PRODUCT_ch4; an HDF4 field too, its spaces as underscores (MOD13Q1_250m_16_days_NDVI).
  const variable = fileLayer(p);
  const last = variable ? `${variable.file.split(/[\\/]/).pop()}#${variable.variable.replace(/[/\s]+/g, '_')}` : p.split(/[\\/]/).pop() ?? p;
  // Output names are built from it: no control characters, and short enough that "<stem>_<tool>.tif" stays a valid name.
  // A leading dot (a folder such as ".data") would make every output a hidden file.
  const stem = last.replace(/\.(nc|nc4|h5|hdf5|he5|hdf)#([\w.-]+)$/i, '_$2').replace(/\?.*$/, '').replace(/\.(tiff?|jp2|j2k|vrt|hgt|hdr|asc|dt[0-2]|nc|nc4|h5|hdf5|he5|hdf|img|grib2?|grb2?|safe|geojson|json|csv|png)$/i, '').replace(/[\x00-\x1f\x7f]/g, '_').replace(/^\.+/, '');
  let out = '', bytes = 0;
  for (const ch of stem) {
    bytes += Buffer.byteLength(ch);
    if (bytes > 150) break;
    out += ch;
  }
  return out || 'raster';
}

/** The primary input's stem: image / before / pre / dem / first of images. */
export function inputStem(args: Record<string, unknown>): string {
  for (const k of ['image', 'before', 'pre', 'dem', 'images']) {
    const v = args[k];
    if (typeof v === 'string' && v) return stemOf(v);
    if (Array.isArray(v) && typeof v[0] === 'string') return stemOf(v[0]);
    if (v && typeof v === 'object') {
      const first = Object.values(v as Record<string, unknown>)[0];
      if (typeof first !== 'string') continue;
      // Band files of one product ("T31TDF_20240612T103021_B04_10m.jp2"): the product's name, else their folder's.
      const b = bandFileOf(first);
      const name = path.basename(first);
      const product = b ? name.slice(0, name.toUpperCase().lastIndexOf(b.token)).replace(/[_-]+$/, '') : '';
      return stemOf(product || path.dirname(first)) || 'bands';
    }
  }
  return 'raster';
}

/** Output path in outDir: "<input stem>_<name>.<ext>". */
export function outPath(ctx: ToolContext, name: string, ext = 'tif'): string {
  return path.join(ctx.outDir, `${inputStem(ctx.args)}_${name}.${ext}`);
}

/** WriteSpec on the same grid and CRS as `ds`. */
export function specLike(ds: RasterDataset, dtype: WriteSpec['dtype'], extra: Partial<WriteSpec> = {}): WriteSpec {
  return { width: ds.width, height: ds.height, bands: 1, dtype, geo: ds.geo, ...extra };
}

/** Throws naming both arguments, both grids and the align tool when two rasters are not on the same grid (size, CRS, transform). */
export function assertSameGrid(a: RasterDataset, b: RasterDataset, nameA: string, nameB: string): void {
  // Loaded here: the grid check pulls in the CRS code (proj4), which most runs never need.
  const msg = (require('./grid-check') as typeof import('./grid-check')).gridMismatch(a, nameA, b, nameB);
  if (msg) throw new Error(msg);
}

export function throwIfAborted(signal?: AbortSignal): void {
  if (signal?.aborted) {
    const r = signal.reason;
    if (r instanceof Error) throw r;
    const e = new Error('aborted'); e.name = 'AbortError'; throw e;
  }
}

/** Whole band as float32 (scale/offset applied, nodata → NaN), read in tile rows so an abort stops it quickly. */
export async function readBand(ds: RasterDataset, band: number, signal?: AbortSignal): Promise<Float32Array> {
  const out = new Float32Array(ds.width * ds.height);
  const rows = Math.max(ds.blockHeight, 256);
  for (let y = 0; y < ds.height; y += rows) {
    throwIfAborted(signal);
    const h = Math.min(rows, ds.height - y);
    out.set(await ds.readWindow(band, 0, y, ds.width, h, signal), y * ds.width);
  }
  return out;
}

/** Decimated band (nearest, at most maxSide on the long side) for quicklooks of large rasters. */
export async function readPreview(ds: RasterDataset, band: number, maxSide = 768, signal?: AbortSignal): Promise<{ data: Float32Array; w: number; h: number }> {
  return readDecimated(ds, band, Math.max(1, Math.ceil(Math.max(ds.width, ds.height) / maxSide)), signal);
}

/**
 * Every f-th pixel of a band, ceil(W/f) × ceil(H/f): pixel (px, py) is the sample at (px·f, py·f).
 * Read from the smallest overview the file has that is still that large (a COG's, a JP2's resolution
 * levels), where it is the overview's pixel there, (px·f·ow/W, py·f·oh/H): a remote COG sends a few
 * tiles, not the image.
 */
export async function readDecimated(ds: RasterDataset, band: number, f: number, signal?: AbortSignal): Promise<{ data: Float32Array; w: number; h: number }> {
  const w = Math.ceil(ds.width / f), h = Math.ceil(ds.height / f);
  const src = await overviewFor(ds, w, h, signal);
  if (src === ds) return decimate(ds, ds, band, f, w, h, signal);
  // An overview whose tiles do not decode (a file cut short at its end, where GDAL puts them) is
  // passed over for the full-resolution data, which may still be whole.
  try { return await decimate(ds, src, band, f, w, h, signal); } catch (e) {
    if (signal?.aborted) throw e;
    return decimate(ds, ds, band, f, w, h, signal);
  }
}

async function decimate(ds: RasterDataset, src: RasterDataset, band: number, f: number, w: number, h: number, signal?: AbortSignal): Promise<{ data: Float32Array; w: number; h: number }> {
  const data = new Float32Array(w * h);
  const rowOf = (py: number) => Math.floor((py * f * src.height) / ds.height);
  const cols = Int32Array.from({ length: w }, (_, px) => Math.floor((px * f * src.width) / ds.width));
  // Read one tile row at a time (each tile decoded once), then pick the rows inside it.
  const th = Math.max(1, src.blockHeight);
  let py = 0;
  for (let y0 = 0; y0 < src.height && py < h; y0 += th) {
    throwIfAborted(signal);
    const y1 = Math.min(src.height, y0 + th);
    if (rowOf(py) >= y1) continue;
    const strip = await src.readWindow(band, 0, y0, src.width, y1 - y0, signal);
    for (; py < h && rowOf(py) < y1; py++) {
      const ro = (rowOf(py) - y0) * src.width;
      for (let px = 0; px < w; px++) data[py * w + px] = strip[ro + cols[px]];
    }
  }
  return { data, w, h };
}

export function rasterOutput(p: string, roles: string[], description?: string): OutputRef {
  return { path: p, type: 'raster', roles, ...(description ? { description } : {}) };
}

/** |pixel width × pixel height| in CRS units (m² for projected CRSs). */
export function pixelArea(ds: RasterDataset): number {
  const g = ds.geo.geoTransform;
  return Math.abs(g[1] * g[5] - g[2] * g[4]);
}

/**
 * A pixel's ground area in m² on a projected, georeferenced grid (the mean over the raster where the
 * projection distorts areas, see ground-area.ts); undefined otherwise, so a summary leaves areas out.
 */
export function projectedPixelArea(ds: RasterDataset): number | undefined {
  if (ds.geo.geographic || ds.geo.ungeoreferenced) return undefined;
  return (require('./ground-area') as typeof import('./ground-area')).meanGroundPixelArea(ds);
}

/**
 * Refuses a raster without a geotransform where map coordinates, pixel sizes or areas are needed:
 * GDAL's stand-in transform (one unit per pixel at the origin) would give a clip at the wrong place,
 * a slope from one-metre pixels and areas in pixels, each looking like a result.
 */
export function requireMapGrid(ds: RasterDataset, what: string): void {
  const u = ds.geo.ungeoreferenced;
  if (!u) return;
  const n = Math.floor(u.gcps.length / 6);
  const { RasterError } = require('../io/dataset') as typeof import('../io/dataset');
  throw new RasterError(n
    ? `${ds.source} is placed by ${n} ground control points, not on a map grid (as Sentinel-1 GRD and other level-1 products are), and ${what} needs map coordinates; warp it onto a grid first: gdalwarp -t_srs EPSG:<code> -r bilinear -tps IN OUT.tif`
    : `${ds.source} has no georeferencing (no geotransform or control points), and ${what} needs map coordinates; set them first: gdal_edit.py -a_srs EPSG:<code> -a_ullr ULX ULY LRX LRY ${path.basename(ds.source)}`);
}

/** True for strip-organised rasters (full-width blocks): per-pixel runs then give workers whole rows. */
export function isStriped(ds: RasterDataset): boolean {
  return ds.blockWidth >= ds.width && ds.width > 512;
}
