/**
 * A team's own manifests in its own words, read as ours before validation. Catalogs written for other
 * systems name parameter types as their language or platform does ("GeoTIFF", "float", "raster[]",
 * "FeatureCollection"), mark parameters `optional`, and name them as labels ("Input Zones"). Rejecting
 * such a manifest outright left a team's catalog empty, so retrieval had nothing to rank; each of these
 * is now read as what it means, with a warning that names the file and field. Ids are kept as written
 * where they can be (they are what the team's flows and notebooks refer to); one with spaces or
 * slashes is read by `readToolId`, which task and flow files apply too.
 */
import type { ManifestProblem } from './types';
import { readToolId } from './tool-id';

const TYPES = new Set(['raster', 'vector', 'table', 'number', 'string', 'boolean', 'array', 'object']);
/** Parameter fields of our schema; anything else on a parameter is another system's. */
const PARAM_FIELDS = new Set(['name', 'type', 'description', 'description_zh', 'required', 'default', 'values', 'bands', 'unit', 'enum']);
const NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** Our type for another system's type name, or undefined when the name says nothing we can place. */
export function typeFromForeign(t: string): string | undefined {
  const s = t.trim().toLowerCase();
  if (TYPES.has(s)) return s;
  // A list of things first: "raster[]", "list<raster>", "ImageCollection", "multiple layers".
  if (/\[\s*\]$|^(list|array|sequence|set|tuple)\b|^(list|array)\s*[<[(]|image\s*collection|raster\s*collection|stack|series|multiple|\bmany\b/.test(s)) return 'array';
  if (/raster|image|\btiff?\b|geotiff|\bcog\b|\bgrid\b|\bdem\b|\bdsm\b|\bdtm\b|scene|\bbands?\b|coverage|mosaic|ndarray|xarray|dataarray/.test(s)) return 'raster';
  if (/vector|geometry|polygon|point|line|feature|shape|\bshp\b|geojson|gpkg|geopackage|\bkml\b|\blayer\b|\bwkt\b|geodataframe|bbox|aoi|extent|envelope/.test(s)) return 'vector';
  if (/table|\bcsv\b|dataframe|spreadsheet|\bxlsx?\b|parquet|records/.test(s)) return 'table';
  if (/^(int|integer|float|double|decimal|real|number|numeric|long|short|uint|u?int\d+|float\d+)$|^(int|float|double)\b/.test(s)) return 'number';
  if (/^bool(ean)?$|^flag$|^switch$/.test(s)) return 'boolean';
  if (/^(dict|map|mapping|object|json|struct|record|hash)$/.test(s)) return 'object';
  if (/^(str|string|text|char|varchar|path|file|filename|filepath|url|uri|date|datetime|time|crs|srs|epsg|enum|choice|select|expression|formula|field|column)$|^(str|string|text)\b/.test(s)) return 'string';
  return undefined;
}

/**
 * The manifest with its parameters read as ours, and a warning for each change. Not a manifest (not an
 * object, no parameter lists) comes back unchanged for the validator to judge.
 */
export function readForeignFields(file: string, data: unknown, problems: ManifestProblem[], at = ''): unknown {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return data;
  const m = { ...(data as Record<string, unknown>) };
  const runs = m.runner !== undefined;
  const id = typeof m.id === 'string' ? readToolId(m.id) : undefined;
  if (id !== undefined && id !== m.id) {
    problems.push({ file, path: `${at}/id`, severity: 'warning', message: `id "${m.id}" is read as "${id}" (an id holds letters, digits and _ . : -); flows and task files may name it either way, a tool cell names it "${id}"` });
    m.id = id;
  }
  // Links to other tools by id, read the same way.
  for (const k of ['prerequisites', 'downstream', 'related'] as const) {
    const v = m[k];
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) m[k] = (v as string[]).map(readToolId);
  }
  // OGC API - Processes (pygeoapi and others) describe a process by `title`, and its inputs and outputs
  // as an object keyed by name with a JSON schema each.
  if (m.name === undefined && typeof m.title === 'string') m.name = m.title;
  if (m.tags === undefined && Array.isArray(m.keywords) && m.keywords.every((k) => typeof k === 'string')) m.tags = m.keywords;
  if (m.description === undefined && typeof m.title === 'string') {
    m.description = m.title;
    problems.push({ file, path: `${at}/description`, severity: 'warning', message: 'no description; the title is used (retrieval has little to go on: add a sentence on what the tool does)' });
  }
  for (const list of ['inputs', 'outputs'] as const) {
    const v = m[list];
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      m[list] = Object.entries(v as Record<string, unknown>).map(([name, spec]) => ({ name, ...fromOgcParam(spec) }));
    }
    if (!Array.isArray(m[list])) continue;
    m[list] = (m[list] as unknown[]).map((p, i) => readParam(file, `${at}/${list}/${i}`, p, runs, problems));
  }
  return m;
}

/** An OGC API - Processes input/output description ({title, description, schema, minOccurs}) as our parameter fields. */
function fromOgcParam(spec: unknown): Record<string, unknown> {
  if (!spec || typeof spec !== 'object' || Array.isArray(spec)) return {};
  const o = spec as Record<string, unknown>;
  const sc = (o.schema && typeof o.schema === 'object' && !Array.isArray(o.schema) ? o.schema : {}) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const text = typeof o.description === 'string' ? o.description : typeof o.title === 'string' ? o.title : undefined;
  if (text) out.description = text;
  // The media type says what a JSON type cannot: a GeoTIFF or a GeoJSON travels as a string or an object.
  const media = JSON.stringify([sc.contentMediaType, sc.format, sc.$ref, (sc.oneOf as unknown[] | undefined)?.map((x) => (x as Record<string, unknown>)?.contentMediaType ?? (x as Record<string, unknown>)?.format ?? (x as Record<string, unknown>)?.$ref)]).toLowerCase();
  if (/tiff|image\/|netcdf|zarr|jp2|raster/.test(media)) out.type = 'raster';
  else if (/geo\+json|geojson|geopackage|shapefile|kml|gml|vector|feature/.test(media)) out.type = 'vector';
  else if (/csv|spreadsheet/.test(media)) out.type = 'table';
  else if (typeof sc.type === 'string') out.type = sc.type === 'integer' ? 'number' : sc.type;
  else if (typeof o.type === 'string') out.type = o.type;
  if (typeof o.minOccurs === 'number') out.required = o.minOccurs > 0;
  if (sc.default !== undefined) out.default = sc.default;
  if (Array.isArray(sc.enum) && sc.enum.length && sc.enum.every((x) => typeof x === 'string')) out.enum = sc.enum;
  return out;
}

function readParam(file: string, at: string, p: unknown, runs: boolean, problems: ManifestProblem[]): unknown {
  if (!p || typeof p !== 'object' || Array.isArray(p)) return p;
  const q: Record<string, unknown> = {};
  const src = p as Record<string, unknown>;
  const warn = (path: string, message: string) => problems.push({ file, path: `${at}${path}`, severity: 'warning', message });
  const dropped: string[] = [];
  for (const [k, v] of Object.entries(src)) {
    if (PARAM_FIELDS.has(k)) q[k] = v;
    else if (k === 'optional' && typeof v === 'boolean' && src.required === undefined) q.required = !v;
    else if (/^(help|doc|desc|summary|label|title)$/i.test(k) && typeof v === 'string' && typeof src.description !== 'string') q.description = v;
    else if (/^default_?value$/i.test(k) && src.default === undefined) q.default = v;
    else dropped.push(k);
  }
  if (dropped.length) warn('', `parameter fields GeoWeave does not use, ignored: ${dropped.join(', ')}`);
  if (q.type === undefined) {
    q.type = 'string';
    warn('/type', 'no type given; read as "string" (give raster, vector, table, number, string, boolean, array or object)');
  } else if (typeof q.type === 'string' && !TYPES.has(q.type)) {
    const t = typeFromForeign(q.type);
    warn('/type', t ? `type "${q.type}" read as "${t}"` : `type "${q.type}" is not one GeoWeave knows; read as "string" (give raster, vector, table, number, string, boolean, array or object)`);
    q.type = t ?? 'string';
  }
  // A tool with a runner gets its arguments by these names on its command line: renaming would break it.
  if (!runs && typeof q.name === 'string' && !NAME.test(q.name)) {
    const name = q.name.trim().replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '').replace(/^(?=[0-9-])/, '_').toLowerCase() || 'arg';
    warn('/name', `parameter name "${q.name}" read as "${name}" (names are letters, digits, _ and -, starting with a letter)`);
    q.name = name;
  }
  return q;
}
