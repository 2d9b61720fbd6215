/** Types shared by forward and backward retrieval and by their callers (CLI, extension). */

/** One dataset available to the analyst (a workspace file or an earlier output). */
export interface DataItem {
  /** Path (workspace-relative or absolute) or a name such as an earlier cell's output. */
  path: string;
  type: 'raster' | 'vector' | 'table';
  /** Raster bands, 1-based, with the role each one plays when known. */
  bands?: { index: number; role?: string; description?: string; units?: string }[];
  /** Roles the item carries as a whole: e.g. 'dem' for an elevation raster, 'class' for a class map. */
  roles?: string[];
  crs?: string;
  /** Bounding box [minX, minY, maxX, maxY] in the item's own CRS. */
  extent?: [number, number, number, number];
  /** The same box in lon/lat degrees, when the CRS converts: compares items across projections. */
  lonLat?: [number, number, number, number];
  /** A raster's grid: two rasters on the same grid can be combined pixel by pixel. */
  grid?: { width: number; height: number; geoTransform: number[] };
  /** Band roles guessed from band count, data type and value range, for a raster whose bands carry
   *  no descriptions; readiness uses them only as a guess and says so. */
  guess?: { sensor: string; label: string; bands: Record<string, number>; why: string };
  /** Set for outputs of earlier steps: which step produced it. */
  producedBy?: string;
  /** A product delivered a file per band (a Landsat scene folder, a Sentinel-2 granule): each band
   *  is band 1 of its own file, so readiness passes the item's path and no band numbers. */
  product?: { sensor: string; files: Record<string, string> };
}

/** What data is at hand: used for executability. */
export interface DataContext {
  items: DataItem[];
  /** The task the data serves: a file it names is used before any other (and readiness says so). */
  task?: string;
  /** The MCP servers the workspace configures that GeoWeave can start or reach (mcp-config.ts);
   *  absent when unknown. A tool of a server not among them cannot run here. */
  mcpServers?: string[];
  /** Archives in the workspace holding data not yet extracted (a `.SAFE.zip`, a Landsat `.tar`):
   *  an input with nothing to feed it says which of them holds what it needs. */
  archives?: ArchivedData[];
  /** Data files found that could not be read, with why (a NetCDF-4 file, a damaged GeoTIFF): a task
   *  naming one is told that, rather than answered for another file. */
  unreadable?: { path: string; reason: string }[];
}

/** An archive's data as readiness speaks of it (core/data/archive summarizes it). */
export interface ArchivedData {
  path: string;
  /** "a Sentinel-2 L2A product (S2B_MSIL2A_….SAFE, 13 band files)". */
  holds: string;
  rasters: number;
  vectors: number;
}

/** Why a candidate was ranked: each entry is short and readable. */
export interface Explanation {
  matchedTerms: string[];
  matchedTags: string[];
  /** e.g. "needs NIR — found in scene.tif band 4", "needs a DEM — none found". */
  readiness: string[];
  /** e.g. "often followed by area_by_class". */
  graph: string[];
  learned: string[];
}

export interface Readiness {
  /** True when required inputs (and band roles) are available and the tool has a runner. */
  ready: boolean;
  runnable: boolean;
  missing: string[];
  /** Suggested argument values resolved from the data context, e.g. { image: "scene.tif" }. */
  args: Record<string, unknown>;
  /** Where each input was found, e.g. "needs red, NIR — found in s2_scene.tif bands 3, 5". */
  notes?: string[];
  /** Why the prefilled inputs cannot run together (projection, extent, grid), naming the step that fixes it. */
  issues?: string[];
  /** What the readiness rests on that the data does not say (bands guessed from the sensor). */
  caveats?: string[];
}

export interface ScoreParts {
  dense: number;
  lexical: number;
  graph: number;
  learned: number;
  executability: number;
  [k: string]: number;
}

export interface ForwardCandidate {
  id: string;
  name: string;
  description: string;
  score: number;
  parts: ScoreParts;
  reason: string;
  explanation: Explanation;
  readiness: Readiness;
}

export interface WorkflowMatch {
  id: string;
  name: string;
  description: string;
  steps: string[];
  score: number;
  /** Its steps among the task's best text matches, each weighted by 1 / the templates using it. */
  coverage?: number;
}

/** Slots parsed from a task ("task type, target, indicator, time, place, data hints"). */
export interface QuerySlots {
  taskType?: string;
  target?: string[];
  indicator?: string[];
  time?: string[];
  place?: string[];
  dataHints?: string[];
}

/** Whether the optional LLM layer shaped a result: 'used', or configured but 'unavailable' (builtin path taken). */
export type LlmUse = 'used' | 'unavailable';

/** Extra query material from the optional LLM layer: terms appended to the task text, and tool ids it proposes. */
export interface QueryExpansion {
  /** Keywords and indicators, appended to the task for dense and lexical matching. */
  text: string;
  /** Catalog ids, best first: a small prior. */
  toolHints: string[];
}

export interface ForwardResult {
  query: string;
  slots: QuerySlots;
  candidates: ForwardCandidate[];
  workflow?: WorkflowMatch;
  /** Absent when no LLM is configured. */
  llm?: LlmUse;
}

export type Rationale = 'quantify' | 'explain' | 'verify' | 'compare' | 'extend';

export interface ComplementarySuggestion {
  id: string;
  name: string;
  rationale: Rationale;
  score: number;
  parts: ScoreParts;
  /** One line: "quantify: area by class turns your NDVI mask into hectares". */
  reason: string;
  readiness: Readiness;
}

export interface ComplementaryResult {
  queries: { rationale: Rationale; text: string }[];
  /** Flat ranking (best first) used by evaluation. */
  ranked: ComplementarySuggestion[];
  /** The same suggestions grouped by rationale for display. */
  groups: { rationale: Rationale; suggestions: ComplementarySuggestion[] }[];
  /** Absent when no LLM is configured. */
  llm?: LlmUse;
}

/** Explicit feedback from the analyst. */
export type Feedback = 'accepted' | 'dismissed';
