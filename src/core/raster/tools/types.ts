/** The contract every builtin raster tool implements; the engine (../engine.ts) validates
 *  arguments against `params` before `run` is called, so tools can trust types and required-ness. */
import type { ToolRunResult } from '../types';

/** A `zones` argument once parsed: which kind of file, at which resolved path. */
export interface ZonesArg { type: 'raster' | 'vector'; path: string }

export type ToolParamKind =
  | 'raster'        // path, http(s) URL, or {role: path} mapping of single-band files
  | 'raster_list'   // array of rasters (time series)
  | 'vector'        // polygon file path: GeoJSON, Shapefile, GeoPackage ("file.gpkg#layer")
  | 'zones'         // a class raster or a polygon file, parsed into a ZonesArg
  | 'crs'           // EPSG code, proj4 string or WKT, parsed into a Crs
  | 'number' | 'integer' | 'string' | 'boolean' | 'band' // band: 1-based index or role name
  | 'number_list' | 'string_list' | 'bbox';              // bbox: [minx, miny, maxx, maxy]

export interface ToolParamSpec {
  kind: ToolParamKind;
  required?: boolean;
  default?: unknown;
  enum?: string[];
  description?: string;
}

export interface ToolContext {
  /** Arguments after validation and defaults. */
  args: Record<string, unknown>;
  /** Output folder (exists). Tools write through the engine's writer (temp name, then rename). */
  outDir: string;
  /** Base for relative input paths. */
  cwd: string;
  signal: AbortSignal;
  progress(fraction: number, message?: string): void;
}

export interface BuiltinTool {
  id: string;
  params: Record<string, ToolParamSpec>;
  run(ctx: ToolContext): Promise<ToolRunResult>;
}
