/** The contract every builtin raster tool implements; the engine (../engine.ts) validates
 *  arguments against `params` before `run` is called, so tools can trust types and required-ness. */
import type { ToolRunResult } from '../types';
import type { Crs } from '../crs/crs';

/** A `zones` argument once parsed: which kind of file, at which resolved path. */
export interface ZonesArg { type: 'raster' | 'vector'; path: string }

/** Band role (lower case) → absolute path or URL of a single-band file. */
export type RoleMap = Record<string, string>;

/** A `raster` argument once parsed: an absolute path or URL, or a role map of them. */
export type RasterArg = string | RoleMap;

/** A `band` argument: a 1-based index, or a role name such as "nir". */
export type BandArg = number | string;

/** A `bbox` argument: [minx, miny, maxx, maxy] with min < max. */
export type Bbox = [number, number, number, number];

export type ToolParamKind =
  | 'raster'        // path, http(s) URL, or {role: path} mapping of single-band files
  | 'raster_list'   // array of rasters (time series)
  | 'vector'        // polygon file path: GeoJSON, Shapefile, GeoPackage ("file.gpkg#layer"), KML
  | 'zones'         // a class raster or a polygon file, parsed into a ZonesArg
  | 'crs'           // EPSG code, proj4 string or WKT, parsed into a Crs
  | 'number' | 'integer' | 'string' | 'boolean' | 'band' // band: 1-based index or role name
  | 'number_list' | 'string_list' | 'bbox';              // bbox: [minx, miny, maxx, maxy]

/** What a tool receives for each kind of parameter. */
export interface ArgValues {
  raster: RasterArg;
  raster_list: string[];
  vector: string;
  zones: ZonesArg;
  crs: Crs;
  number: number;
  integer: number;
  string: string;
  boolean: boolean;
  band: BandArg;
  number_list: number[];
  string_list: string[];
  bbox: Bbox;
}

/** Any validated argument value (what the engine hands a tool whose params it does not know statically). */
export type ArgValue = ArgValues[ToolParamKind];

/** One parameter of a tool: its kind, and what the engine checks before the tool runs. */
export interface ToolParamSpec {
  kind: ToolParamKind;
  required?: boolean;
  /** Used when the argument is not given; validated like a given value. */
  default?: unknown;
  enum?: readonly string[];
  /** raster: one file or URL only, a {role: path} mapping is refused. */
  single?: boolean;
  /** raster_list: entries may be file-name patterns ("scenes/*.tif"), expanded to the sorted matches. */
  glob?: boolean;
  /** string: a local path, made absolute against the run's folder, or a URL, kept as given. */
  path?: boolean;
  /** number, integer: inclusive bounds, checked by the engine. */
  min?: number;
  max?: number;
  description?: string;
}

/** A tool's parameters by name. */
export type ToolParams = Record<string, ToolParamSpec>;

/** The value of one parameter: an enum narrows a string, `single` narrows a raster to a path. */
type ValueOf<S extends ToolParamSpec> =
  S extends { enum: readonly (infer E)[] } ? E
  : S extends { kind: 'raster'; single: true } ? string
  : ArgValues[S['kind']];

/** Parameters the engine always fills: the required ones and those with a default. */
type Filled<P extends ToolParams> = { [K in keyof P]: P[K] extends { required: true } | { default: unknown } ? K : never }[keyof P];

/** The arguments a tool with parameters `P` receives. */
export type ArgsOf<P extends ToolParams> =
  & { [K in Filled<P>]: ValueOf<P[K]> }
  & { [K in Exclude<keyof P, Filled<P>>]?: ValueOf<P[K]> };

/** What a tool's run receives; helpers that only need the folders and signal take the default `A`. */
export interface ToolContext<A = Record<string, unknown>> {
  /** Arguments after validation and defaults. */
  args: A;
  /** Output folder (exists). Tools write through the engine's writer (temp name, then rename). */
  outDir: string;
  /** The run's folder; path arguments arrive already resolved against it. */
  cwd: string;
  /**
   * The folder the outputs end up in (`outDir` is a staging folder inside it until the run succeeds):
   * for outputs that point at other files by relative path, such as a VRT.
   */
  finalDir?: string;
  signal: AbortSignal;
  progress(fraction: number, message?: string): void;
}

/**
 * A builtin tool. The registry holds them as `BuiltinTool` (any params): `run` is a method, so a tool
 * typed for its own params fits there, and the engine's validation is what makes the types true.
 */
export interface BuiltinTool<P extends ToolParams = ToolParams> {
  id: string;
  params: P;
  run(ctx: ToolContext<ArgsOf<P>>): Promise<ToolRunResult>;
}

/** A tool whose `ctx.args` are typed from its `params` (written inline, no `as const` needed). */
export function defineTool<const P extends ToolParams>(tool: BuiltinTool<P>): BuiltinTool<P> {
  return tool;
}
