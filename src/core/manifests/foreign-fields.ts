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
  const m = fromToolDefinition({ ...(data as Record<string, unknown>) });
  if (m.runner === undefined) {
    const runner = ogcExecution(m);
    if (runner) m.runner = runner;
  }
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
  const blank = (v: unknown) => v === undefined || (typeof v === 'string' && !v.trim());
  if (blank(m.description) && typeof m.title === 'string' && m.title.trim()) {
    m.description = m.title;
    problems.push({ file, path: `${at}/description`, severity: 'warning', message: 'no description; the title is used (retrieval has little to go on: add a sentence on what the tool does)' });
  } else if (blank(m.description) && (data as Record<string, unknown>).id === undefined && typeof m.id === 'string' && m.id.trim()) {
    // MCP and function-calling definitions (named, with no id of ours) may leave the description
    // out: the tool is still the team's, and its flows say when it runs; its name, in words, is
    // all its text says. A manifest in our own form must have one (an error, as before).
    m.description = wordsOfName(m.id);
    problems.push({ file, path: `${at}/description`, severity: 'warning', message: `no description; its name is used ("${m.description}"): retrieval has little to go on, add a sentence on what the tool does` });
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

/**
 * An OGC API - Processes description (pygeoapi serves one at /processes/{id}) links to where it is
 * executed (rel ".../ogc/1.0/execute", an absolute address): that is its runner, an execute request
 * with the arguments as `inputs`; a process that only runs as a job (`jobControlOptions` without
 * "sync-execute") is asked for one and polled.
 */
function ogcExecution(m: Record<string, unknown>): Record<string, unknown> | undefined {
  if (!Array.isArray(m.links) || !m.inputs || typeof m.inputs !== 'object' || Array.isArray(m.inputs)) return undefined;
  const link = m.links.find((l): l is { rel: string; href: string } => !!l && typeof l === 'object' && typeof (l as { rel?: unknown }).rel === 'string'
    && /(^|\/)execute$/.test((l as { rel: string }).rel) && typeof (l as { href?: unknown }).href === 'string');
  if (!link || !/^https?:\/\/[^\s{}@]+$/i.test(link.href)) return undefined;
  const modes = Array.isArray(m.jobControlOptions) ? m.jobControlOptions : [];
  return { type: 'http', method: 'POST', url: link.href, body: 'ogc', ...(modes.length && !modes.includes('sync-execute') && modes.includes('async-execute') ? { async: true } : {}) };
}

/** A JSON Schema object ({type: "object", properties, required}): the parameters of a tool definition. */
function objectSchema(v: unknown): { properties: Record<string, unknown>; required: string[] } | undefined {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  if (!o.properties || typeof o.properties !== 'object' || Array.isArray(o.properties)) return o.type === 'object' ? { properties: {}, required: [] } : undefined;
  const required = Array.isArray(o.required) ? o.required.filter((x): x is string => typeof x === 'string') : [];
  return { properties: o.properties as Record<string, unknown>, required };
}

/**
 * A tool as LLM tool-calling catalogs define it, read as a manifest: an MCP `tools/list` entry
 * ({name, title?, description, inputSchema, outputSchema?}), an OpenAI function-calling tool
 * ({type: "function", function: {name, description, parameters}}) or an Anthropic tool-use one
 * ({name, description, input_schema}). Teams that wire their tools to an assistant have their
 * catalog in one of these; required by our schema, `id` is missing from all three, so such a
 * catalog loaded as nothing. Their `name` is the identifier flows and calls use, so it becomes the
 * id, and the title (if any) the display name; the JSON Schema properties become the parameters.
 */
function fromToolDefinition(m: Record<string, unknown>): Record<string, unknown> {
  if (m.type === 'function' && m.function && typeof m.function === 'object' && !Array.isArray(m.function) && m.id === undefined) {
    const { type: _type, function: fn, ...rest } = m;
    m = { ...rest, ...(fn as Record<string, unknown>) };
  }
  const key = ['inputSchema', 'input_schema', 'parameters'].find((k) => objectSchema(m[k]));
  if (m.id !== undefined || typeof m.name !== 'string' || !key) return m;
  const { [key]: schema, outputSchema, annotations, ...rest } = m;
  const out: Record<string, unknown> = { ...rest, id: m.name };
  delete out.name;
  // The title (or the annotations' title) is read as an OGC process's below: the display name, and
  // the description when there is none (MCP makes a description optional).
  const noted = (annotations as Record<string, unknown> | undefined)?.title;
  if (typeof out.title !== 'string' && typeof noted === 'string') out.title = noted;
  const params = (v: unknown, requiredToo: boolean) => {
    const o = objectSchema(v)!;
    return Object.entries(o.properties).map(([name, spec]) => {
      const sc = (spec && typeof spec === 'object' && !Array.isArray(spec) ? spec : {}) as Record<string, unknown>;
      const p: Record<string, unknown> = { name, ...fromOgcParam({ description: sc.description, title: sc.title, schema: sc }) };
      const said = pathRole(name, sc);
      if (said && (p.type === 'string' || p.type === undefined)) p.type = said;
      if (requiredToo) p.required = o.required.includes(name);
      return p;
    });
  };
  if (out.inputs === undefined) out.inputs = params(schema, true);
  if (out.outputs === undefined && objectSchema(outputSchema)) out.outputs = params(outputSchema, false);
  return out;
}

/**
 * What a string parameter of a JSON Schema holds when it is a file of a kind: MCP and
 * function-calling tools pass rasters and layers as paths or URLs ("Path or URL of the input
 * GeoTIFF", a parameter named `dem`, "dh or dh/dt raster"). A format or kind word in the name or
 * the description says so; a word that also names other things ("image", "scene", "polygons",
 * "table") counts in the description only beside a path, file, URL or input cue ("acquisition date
 * of the image" is a date). A date, a choice from a list, or a path to write to ("where to write
 * the GeoTIFF") is not a file to feed.
 */
const ROLES: [string, RegExp, RegExp][] = [
  ['raster', /geotiff|\btiff?\b|\bcog\b|\brasters?\b|\bdem\b|\bdtm\b|\bdsm\b|netcdf/, /\bimage\b|\bscene\b|\bmosaic\b|\bgrid\b/],
  ['vector', /geojson|geo ?package|\bgpkg\b|shapefile|\bshp\b|\bkml\b|geoparquet|\bvector\b/, /\bpolygons?\b|\bfeatures\b|\blayer\b/],
  ['table', /\bcsv\b|spreadsheet|\bparquet\b|\bxlsx\b/, /\btable\b/],
];
const WRITES = /\b(out|output|dest|destination|target)\b|\bwrite|\bsave/;
const paramLabel = (name: string) => name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ').toLowerCase();

/**
 * Whether a parameter is where the tool writes a file ("output_path", "dest", "where to save the
 * GeoTIFF"): a runner that calls the tool chooses that path itself (mcp-runner.ts), as a process
 * runner's `{out}`, so the file lands in the cell's output folder.
 */
export function writesFile(p: { name: string; type?: string; description?: string }): boolean {
  if (p.type !== undefined && p.type !== 'string') return false;
  const label = paramLabel(p.name);
  const text = (p.description ?? '').toLowerCase();
  const fileCue = /\b(path|file|filename|uri|tiff?|geotiff|cog|geojson|gpkg|geopackage|csv|raster|png)\b/;
  return (WRITES.test(label) && (fileCue.test(label) || fileCue.test(text) || /^(out|output|dest|destination)$/.test(label))) || (/\b(write|save)/.test(text) && fileCue.test(text) && /\b(path|file)\b/.test(label));
}

/** A parameter the tool's runner fills itself: where an MCP tool writes its file (a staged path in the cell's output folder). Nobody has to set it. */
export function chosenByRunner(m: { runner?: { type: string } }, p: { name: string; type?: string; description?: string }): boolean {
  return m.runner?.type === 'mcp' && writesFile(p);
}

function pathRole(name: string, sc: Record<string, unknown>): string | undefined {
  const t = jsonType(sc);
  if (t !== undefined && t !== 'string') return undefined;
  if (sc.enum !== undefined || (typeof sc.format === 'string' && !/^(uri|uri-reference|iri|path|binary)$/.test(sc.format))) return undefined;
  const label = paramLabel(name);
  const text = `${typeof sc.title === 'string' ? sc.title : ''} ${typeof sc.description === 'string' ? sc.description : ''}`.toLowerCase();
  if (WRITES.test(label) || WRITES.test(text)) return undefined;
  const fileCue = sc.format !== undefined || /\b(path|file|url|uri|href|input)\b/.test(text);
  for (const [role, strong, weak] of ROLES) if (strong.test(label) || weak.test(label) || strong.test(text) || (fileCue && weak.test(text))) return role;
  return undefined;
}

/** A JSON Schema's type: `"string"`, the first of `["string", "null"]`, or of `anyOf: [{type: "string"}, {type: "null"}]` (as pydantic writes an optional field). */
function jsonType(sc: Record<string, unknown>): string | undefined {
  const first = (v: unknown) => (Array.isArray(v) ? v.find((t) => typeof t === 'string' && t !== 'null') : typeof v === 'string' ? v : undefined) as string | undefined;
  const t = first(sc.type);
  if (t) return t;
  for (const k of ['anyOf', 'oneOf'] as const) {
    const alts = sc[k];
    if (!Array.isArray(alts)) continue;
    for (const a of alts) {
      const at = a && typeof a === 'object' ? first((a as Record<string, unknown>).type) : undefined;
      if (at) return at;
    }
  }
  return undefined;
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
  // (`oneOf` as written, which may be anything: a schema that is not a list of schemas says nothing.)
  const alts = Array.isArray(sc.oneOf) ? (sc.oneOf as unknown[]) : [];
  const media = JSON.stringify([sc.contentMediaType, sc.format, sc.$ref, alts.map((x) => (x as Record<string, unknown> | null)?.contentMediaType ?? (x as Record<string, unknown> | null)?.format ?? (x as Record<string, unknown> | null)?.$ref)]).toLowerCase();
  const t = jsonType(sc);
  if (/tiff|image\/|netcdf|zarr|jp2|raster/.test(media)) out.type = 'raster';
  else if (/geo\+json|geojson|geopackage|shapefile|kml|gml|vector|feature/.test(media)) out.type = 'vector';
  else if (/csv|spreadsheet/.test(media)) out.type = 'table';
  else if (t) out.type = t === 'integer' ? 'number' : t;
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

/** A tool's name as words: "s2_fetch" → "s2 fetch", "CfarShips" → "Cfar Ships", "native:zonalstatistics" → "native zonalstatistics". */
export function wordsOfName(name: string): string {
  return name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[_.:\-/\\]+/g, ' ').replace(/\s+/g, ' ').trim() || name;
}
