/** Types of a tool manifest (tool-manifests/schema.json is the normative form). */

export type ParamType = 'raster' | 'vector' | 'table' | 'number' | 'string' | 'boolean' | 'array' | 'object';

/** Spectral or data role a raster input needs or an output carries. */
export type BandRole =
  | 'blue' | 'green' | 'red' | 'rededge' | 'nir' | 'swir1' | 'swir2' | 'thermal' | 'qa' | 'dem'
  | 'pan' | 'sar' | 'class' | 'mask' | 'index' | string;

/** One input or output of a tool. */
export interface ToolParam {
  name: string;
  type: ParamType;
  description?: string;
  /** Chinese phrase for what the parameter is (for an output: what the tool gives, as Chinese
   *  reasons say it). Display only: not indexed and not in the catalog fingerprint. */
  description_zh?: string;
  required?: boolean;
  default?: unknown;
  /** For rasters: band roles the tool needs (inputs) or carries (outputs). */
  bands?: BandRole[];
  /** For raster inputs: read as one value per pixel (an indicator or a measurement), not as a scene of sensor bands. */
  values?: boolean;
  /** For outputs: unit or meaning, e.g. "NDVI, -1..1". */
  unit?: string;
  /** Allowed values for string parameters. */
  enum?: string[];
}

/** How a tool runs. Absent for catalog-only entries. */
export type ToolRunner =
  | { type: 'builtin' }
  /** An external command; `args` are templates where `{name}` is replaced by the argument `name`
   *  and `{out}` by the output path chosen by the runner. */
  | { type: 'process'; command: string; args: string[]; outputs?: string[] }
  /** A REST service (read from an OpenAPI document, or written by hand): `url` holds `{name}` for
   *  path parameters; `query` names the arguments sent in the query string; the others go in the
   *  body (`json`, `form`, `multipart` with `files` uploaded, `raw`: the one `body` file as is, or
   *  `json-value`: the one argument `body` as the whole JSON body, for a schema that is not an object),
   *  or in the query string when there is no body; `ogc` is an OGC API - Processes execute request
   *  ({"inputs": {...}}), `async` asks for a job (Prefer: respond-async) that is then polled.
   *  See notebook/http-runner.ts. */
  | { type: 'http'; method: HttpMethod; url: string; query?: string[]; body?: 'json' | 'json-value' | 'form' | 'multipart' | 'raw' | 'ogc'; files?: string[]; contentType?: string; auth?: HttpAuth; async?: boolean }
  /** A tool an MCP server serves: `server` names the server in the workspace's `.vscode/mcp.json`
   *  (or `.mcp.json`, `.cursor/mcp.json`), which says how to start it; `tool` is its name there when
   *  the manifest's id differs. See notebook/mcp-runner.ts. */
  | { type: 'mcp'; server: string; tool?: string };

/** How a service takes its key (an OpenAPI security scheme): a header (`Authorization` with
 *  `scheme: "Bearer"`, or an API-key header such as `X-API-Key`) or a query parameter. The key
 *  itself is never in a manifest: it is the user's, per service address (http-runner.ts). */
export interface HttpAuth { in: 'header' | 'query'; name: string; scheme?: string }

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ToolManifest {
  id: string;
  name?: string;
  /** Chinese display name (Chinese reasons, summaries and cards; `name` when absent). Display
   *  only: not indexed and not in the catalog fingerprint (see manifests/display.ts). */
  name_zh?: string;
  description: string;
  /** Chinese for `description`: what hovers, completions, quick picks and the panel show a Chinese
   *  editor. Display only: not indexed and not in the catalog fingerprint (see manifests/display.ts). */
  description_zh?: string;
  /** Core functions (≤3), indicators produced (1-2), typical scenario (1). */
  tags?: string[];
  /** Chinese for the tags, by tag: what Chinese reasons show for a matched tag. Display only: not
   *  indexed and not in the catalog fingerprint (the tags themselves are). */
  tags_zh?: Record<string, string>;
  category?: string;
  inputs?: ToolParam[];
  outputs?: ToolParam[];
  prerequisites?: string[];
  downstream?: string[];
  related?: string[];
  /** User-phrased tasks this tool serves (English and Chinese). */
  examples?: string[];
  /** What the tool hands over when a task asks for it outright (see manifests/deliverables.ts): "preview", "polygons", … */
  delivers?: string[];
  /** Indicators the tool computes, as analysts name them ("NDVI", "LST", "slope"): a task naming one brings the tool up. */
  computes?: string[];
  /** Kept for old flows, with a replacement (an OpenAPI operation marked `deprecated`): readiness says so. */
  deprecated?: boolean;
  runner?: ToolRunner;
}

export type ManifestSource = 'builtin' | 'extra' | 'workspace';

/** A manifest as loaded: where it came from and the hash of its content (index fingerprint). */
export interface LoadedManifest {
  manifest: ToolManifest;
  file: string;
  source: ManifestSource;
  /** The manifest folder it was loaded from (the builtin folder, a `--manifests` folder, the workspace's `.geoweave/tools`). */
  folder?: string;
  hash: string;
}

/** A classic chain of tools offered as a whole (tool-manifests/workflows/*.json). */
export interface WorkflowTemplate {
  id: string;
  name?: string;
  /** Chinese display name (Chinese reasons, the panel's workflow card). Display only: not embedded. */
  name_zh?: string;
  description: string;
  /** Chinese for `description` (the panel's workflow card, `geoweave suggest`). Display only: not embedded. */
  description_zh?: string;
  examples?: string[];
  steps: string[];
}

/** A problem found while loading manifests; the manifest is skipped, the rest load. */
export interface ManifestProblem {
  file: string;
  /** JSON path inside the file, e.g. "/inputs/0/type"; "" for the whole file. */
  path: string;
  message: string;
  severity: 'error' | 'warning';
}
