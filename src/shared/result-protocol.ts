/** What a tool cell's output shows and how its renderer (src/extension/renderer/) talks to the host
 *  (src/extension/result-map-host.ts). Defined once here: the output item's JSON is an `OutputView`;
 *  the map asks the host for raster tiles, pixel values and vector files with `RendererMessage`s and
 *  gets `HostMessage`s back. Everything here is plain data, so it also travels in the `.geonb` file
 *  (a reopened notebook shows its results from it) and the renderer trusts none of it. */
import type { ResultLanguage } from './result-strings';

/** MIME type of a tool cell output item; `geoweave.result-renderer` draws it. */
export const RESULT_MIME = 'application/vnd.geoweave.result+json';
/** Renderer id in package.json (`contributes.notebookRenderer`), for the host's messaging channel. */
export const RENDERER_ID = 'geoweave.result-renderer';
/** Version of the view shape; a renderer shows a newer one as its summary only. */
export const RESULT_VIEW_VERSION = 1;

/** A number analysts read first (mean, median, p5/p95, valid share). */
export interface KeyStat { label: string; value: number | string; unit?: string }

export interface TableColumn { key: string; label: string; unit?: string; numeric: boolean }

/** A tabular output (per-class areas, zonal statistics, severity classes) sorted, with units. */
export interface TableView {
  title: string;
  columns: TableColumn[];
  rows: (string | number | null)[][];
  /** Column the rows are sorted by (descending for areas), when sorted. */
  sortedBy?: { key: string; descending: boolean };
  /** Rows shown before "Show all". */
  visible: number;
  /** A colour swatch per row (class tables), CSS colours. */
  swatches?: (string | null)[];
  /** Rows left out of a saved view (the file on disk has them all). */
  omitted?: number;
}

/** A histogram with the threshold or class breaks marked. */
export interface HistogramView {
  title: string;
  min: number;
  max: number;
  counts: number[];
  unit?: string;
  marks: { value: number; label: string }[];
}

/** A line chart of a time series (x labels in order, one value each). */
export interface SeriesView { title: string; x: string[]; y: number[]; unit?: string; yLabel: string }

/** How a raster layer is coloured. `rgb`: three bands as a natural-colour composite. */
export type LayerKind = 'index' | 'diverging' | 'class' | 'mask' | 'continuous' | 'hillshade' | 'rgb';

export interface MapClass {
  value: number; label: string; color: string;
  /** Coloured on the map but not in the legend: a colour table's class not seen in the overview. */
  unlisted?: boolean;
}

/** One raster layer of the map: an input or an output of the cell. */
export interface MapLayerSpec {
  id: string;
  name: string;
  path: string;
  role: 'input' | 'output';
  kind: LayerKind;
  /** 1-based bands read: one, or three for `rgb`. */
  bands: number[];
  unit?: string;
  /** Colour range; the renderer takes the data's 2–98 % range when absent. */
  range?: [number, number];
  /** Class colours and labels for `class` and `mask` layers (the rest come from the data). */
  classes?: MapClass[];
  visible: boolean;
  /** An input whose colouring the host picks from the file (natural colour, mask, classes, one band). */
  auto?: boolean;
}

/** A vector layer (GeoJSON from vectorize/polygonize, zone polygons) drawn over the rasters. */
export interface MapVectorSpec { id: string; name: string; path: string; role: 'input' | 'output'; color: string; visible: boolean }

export interface MapSpec {
  layers: MapLayerSpec[];
  vectors: MapVectorSpec[];
  /** Layer ids the swipe compares first (left, right), e.g. the pre- and post-fire scenes. */
  compare?: [string, string];
}

/** A finished run: everything the cell shows. */
export interface ResultView {
  view: 'result';
  version: number;
  tool: string;
  /** The tool's name in the view's language (the manifest's `name_zh` for Chinese), when it is not
   *  the id: the card's heading and summary line show it; the id stays in `tool`. */
  toolName?: string;
  summary: string;
  keyStats: KeyStat[];
  tables: TableView[];
  histogram?: HistogramView;
  series?: SeriesView;
  map?: MapSpec;
  /** A small PNG of the main raster output (`data:image/png;base64,…`), shown when the map cannot be. */
  preview?: string;
  outputs: { name: string; path: string; type: string }[];
  /** "image=s2_scene.tif, red=3". */
  args: string;
  /** One line on how the run was made: tool and manifest version, GeoWeave version, duration, hashed inputs. */
  provenance?: string;
  /** The raw result (statistics bounded in saved views), shown collapsed. */
  raw: unknown;
  /** Set on a view rebuilt from the notebook file: when that run happened. */
  restored?: string;
  /** A batch run (one cell over several inputs): the table of items is the first of `tables`; the
   *  map, numbers and card above show `details[shown]`, and the renderer lets you pick another. */
  batch?: BatchInfo;
  /** The language of the labels around the numbers (src/shared/result-strings.ts); English when absent. */
  lang?: ResultLanguage;
}

/** One item of a batch the result can show in full (map and numbers). */
export interface BatchDetail {
  name: string; input: string; ok: boolean; summary: string; keyStats: KeyStat[]; map?: MapSpec; histogram?: HistogramView; series?: SeriesView;
  /** The item's own tables (titles start with its name); absent in views saved before items had them. */
  tables?: TableView[];
  outputs: { name: string; path: string; type: string }[];
}

export interface BatchInfo {
  /** The batched argument(s) and how the inputs were given ("scenes/*.tif", "[a.tif, b.tif]", "$ndvi"). */
  args: string;
  source: string;
  total: number;
  failed: number;
  /** Items that can be shown in full (the first BATCH_DETAILS); the table lists them all (bounded when saved). */
  details: BatchDetail[];
  /** Index in `details` of the item shown first: the first that succeeded. */
  shown: number;
}

/** A run in progress. */
export interface ProgressView { view: 'progress'; tool: string; fraction: number; stage?: string; lang?: ResultLanguage }

/** A run the user stopped: a neutral end, not an error. */
export interface StoppedView { view: 'stopped'; tool: string; message: string }

export type OutputView = ResultView | ProgressView | StoppedView;

// ---- renderer ⇄ host messages (VS Code renderer messaging) ----

/** A raster file and the bands to read from it. */
export interface LayerRef { path: string; bands: number[]; auto?: boolean }

/** Renderer → host. `id` pairs a request with its answer. */
export type RendererMessage =
  /** Size, grid, CRS and value range of raster layers; whether vector files exist. */
  | { type: 'describe'; id: number; layers: LayerRef[]; vectors: string[] }
  /** One 256×256 tile of a layer at zoom `z` (0: the whole raster in one tile). */
  | { type: 'tile'; id: number; layer: LayerRef; z: number; x: number; y: number }
  /** Values at one pixel (column, row) of each layer, read from the file at full resolution. */
  | { type: 'pixel'; id: number; probes: { layer: LayerRef; col: number; row: number }[] }
  /** A vector file's GeoJSON text. */
  | { type: 'vector'; id: number; path: string };

/** What the host knows about a raster layer's file. */
export interface LayerInfo {
  path: string;
  exists: boolean;
  error?: string;
  width: number;
  height: number;
  bandCount: number;
  /** GDAL order: [x0, pixel width, row rotation, y0, column rotation, pixel height]. */
  geoTransform: number[];
  epsg?: number;
  /** A proj4 definition (or WKT) the renderer registers for this CRS. */
  projection?: string;
  geographic: boolean;
  /** Highest zoom: the raster's own resolution. */
  maxZoom: number;
  /** Per requested band: 2 % and 98 % values, min and max (from an overview). */
  bandStats: { p2: number; p98: number; min: number; max: number }[];
  /** Distinct values (up to 64) of the first band, for class legends. */
  values?: number[];
  /** `code=label` pairs read from the band description (or the file's category names). */
  labels?: Record<string, string>;
  /** Class colours from the file's own colour table (a palette TIFF), category names as labels; the
   *  renderer draws a `class` layer with these instead of a field scheme. */
  classes?: MapClass[];
  /** Whether a downsampled overview serves the outer zoom levels. */
  overview: boolean;
  /**
   * The file's size and modification time: changes when it is rewritten (a cell run again over the
   * same output path), so the renderer's tile cache, which keys on it, never paints the old file.
   */
  version?: string;
  /** The bands to draw and how (for `auto` layers the host's choice, else those asked for). */
  bands: number[];
  kind?: LayerKind;
}

/** Host → renderer. */
export type HostMessage =
  | { type: 'describe'; id: number; layers: LayerInfo[]; vectors: { path: string; exists: boolean }[]; basemap?: string }
  /** Float32 little-endian samples per band, base64; NaN is no data. */
  | { type: 'tile'; id: number; width: number; height: number; bands: string[] }
  | { type: 'pixel'; id: number; values: (number | null)[][] }
  | { type: 'vector'; id: number; geojson: string }
  | { type: 'error'; id: number; message: string };

/** Tile side in pixels. */
export const TILE_SIZE = 256;

/** Zoom of the raster's own resolution: at zoom 0 the whole raster fits one tile. */
export function maxZoomFor(width: number, height: number): number {
  return Math.max(0, Math.ceil(Math.log2(Math.max(width, height, 1) / TILE_SIZE)));
}

const isInt = (v: unknown, lo = 0, hi = 2 ** 31): v is number => typeof v === 'number' && Number.isInteger(v) && v >= lo && v <= hi;
const isLayerRef = (v: unknown): v is LayerRef => {
  const r = v as LayerRef;
  return !!r && typeof r === 'object' && typeof r.path === 'string' && r.path.length < 4096
    && Array.isArray(r.bands) && r.bands.length >= 1 && r.bands.length <= 4 && r.bands.every((b) => isInt(b, 1, 65535));
};

/** The message when `v` is a well-formed renderer message, else undefined (the host ignores it). */
export function parseRendererMessage(v: unknown): RendererMessage | undefined {
  const m = v as Record<string, unknown>;
  if (!m || typeof m !== 'object' || !isInt(m.id)) return undefined;
  switch (m.type) {
    case 'describe':
      return Array.isArray(m.layers) && m.layers.length <= 16 && m.layers.every(isLayerRef)
        && Array.isArray(m.vectors) && m.vectors.length <= 16 && m.vectors.every((p) => typeof p === 'string') ? m as RendererMessage : undefined;
    case 'tile':
      return isLayerRef(m.layer) && isInt(m.z, 0, 30) && isInt(m.x, 0, 2 ** 30) && isInt(m.y, 0, 2 ** 30) ? m as RendererMessage : undefined;
    case 'pixel':
      return Array.isArray(m.probes) && m.probes.length <= 16
        && m.probes.every((p) => !!p && isLayerRef(p.layer) && Number.isInteger(p.col) && Number.isInteger(p.row)) ? m as RendererMessage : undefined;
    case 'vector':
      return typeof m.path === 'string' && m.path.length < 4096 ? m as RendererMessage : undefined;
    default:
      return undefined;
  }
}
