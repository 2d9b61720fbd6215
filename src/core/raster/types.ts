import type { RunProvenance } from './provenance';
/** Contract between the raster engine and its callers (CLI, notebook controller). */

export interface OutputRef {
  path: string;
  type: 'raster' | 'vector' | 'table';
  /** Roles this output carries, e.g. ['index'], ['mask'], ['class'], ['dem']. */
  roles?: string[];
  description?: string;
  /** The QGIS style (.qml) written beside a raster output, in its quicklook's colours. */
  style?: string;
  /** The GDAL PAM sidecar (`<file>.aux.xml`) beside a raster output that kept its input's category names. */
  sidecar?: string;
}

export interface ToolRunResult {
  tool: string;
  outputs: Record<string, OutputRef>;
  stats: Record<string, unknown>;
  /** One to three sentences with the numbers that matter and where they are. */
  summary: string;
  /** PNG quicklook of the main raster output, when there is one. */
  quicklook?: string;
  /** How the run was made: tool, versions, arguments, hashed inputs, duration (set by the engine). */
  provenance?: RunProvenance;
}

export interface RunOptions {
  /** Folder for outputs (created when missing). */
  outDir: string;
  /** Base for relative paths in arguments (the workspace folder). */
  cwd?: string;
  signal?: AbortSignal;
  onProgress?: (fraction: number, message?: string) => void;
  /** The tool manifest's version when the caller has the manifest (else the builtin catalog's is looked up). */
  manifestVersion?: string;
}
