/**
 * A team's tools as REST services describe them: an OpenAPI 3 document (what FastAPI writes at
 * /openapi.json, what GPT Actions and most API gateways take) or a Swagger 2.0 one. Each operation
 * (a path and a method) is one tool. Read as a tool-calling definition ({name, title, description,
 * inputSchema, outputSchema}), which `foreign-fields.ts` then reads as a manifest, so the
 * parameter typing (a `scene_href` is a raster, a `districts_geojson` a vector) is the same for
 * every format a team brings.
 *
 * The operation's `operationId` is the tool's id: it is what a generated client, an assistant's
 * tool call and a team's logs name. Without one, the method and the path make it ("post /uhi/{city}"
 * → "post_uhi_city"), with a warning.
 */
import type { ManifestProblem } from './types';

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;
/** Methods a notebook cell calls (the manifest schema's `method`). */
const RUNNABLE = new Set<string>(['get', 'put', 'post', 'delete', 'patch']);
/** How deep `$ref`s are followed inside one schema; a cycle (a tree node that holds nodes) stops there. */
const MAX_REF_DEPTH = 12;
/** Media types tried for a request body, in order: a JSON body is the tool's arguments. */
const BODY_TYPES = [/^application\/json\b/, /\+json$/, /^multipart\/form-data\b/, /^application\/x-www-form-urlencoded\b/];

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

/** True for an OpenAPI 3 or Swagger 2 document (a version field and a `paths` object). */
export function isOpenApi(raw: unknown): raw is Obj {
  return isObj(raw) && (typeof raw.openapi === 'string' || typeof raw.swagger === 'string') && isObj(raw.paths);
}

/** Each operation of the document as a tool definition, with its JSON pointer in the file. */
export function openApiTools(file: string, doc: Obj, problems: ManifestProblem[], limit: number): [string, unknown][] {
  const out: [string, unknown][] = [];
  const swagger2 = typeof doc.swagger === 'string';
  let serverless = 0;
  for (const [route, item] of Object.entries(doc.paths as Obj)) {
    if (!isObj(item)) continue;
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of METHODS) {
      const op = item[method];
      if (!isObj(op)) continue;
      const at = `/paths/${pointerPart(route)}/${method}`;
      if (out.length >= limit) {
        problems.push({ file, path: at, severity: 'warning', message: `more than ${limit} operations; only the first ${limit} are read` });
        return out;
      }
      const tool = toolOf(file, at, doc, route, method, op, shared, swagger2, problems);
      const base = serverUrl(doc, item, op, swagger2);
      // HEAD, OPTIONS and TRACE answer about a resource; they compute nothing to run.
      if (!RUNNABLE.has(method)) delete tool.runner;
      else if (base) (tool.runner as Obj).url = base.replace(/\/+$/, '') + route;
      else {
        delete tool.runner;
        serverless++;
      }
      out.push([at, tool]);
    }
  }
  if (!out.length) problems.push({ file, path: '/paths', severity: 'warning', message: 'an OpenAPI document with no operations: no tools read from it' });
  // FastAPI writes no `servers`: the document does not say where the service runs.
  else if (serverless) {
    problems.push({
      file, path: swagger2 ? '/host' : '/servers', severity: 'warning',
      message: `${serverless === out.length ? 'no' : `${serverless} of ${out.length} operations have no`} absolute server address, so ${serverless === out.length ? 'its tools are' : 'those are'} catalog-only: add ${swagger2 ? '"host": "localhost:8000" (and "schemes": ["http"])' : '"servers": [{"url": "http://localhost:8000"}]'} with the service's address to run them from a notebook`,
    });
  }
  return out;
}

/**
 * Where an operation's service runs: the first server of the operation, its path or the document
 * (OpenAPI 3, `{variables}` filled with their defaults), or Swagger 2's scheme, host and base path.
 * A relative address (FastAPI behind a proxy writes "/api") says nothing here: undefined.
 */
function serverUrl(doc: Obj, item: Obj, op: Obj, swagger2: boolean): string | undefined {
  let url: string | undefined;
  if (swagger2) {
    if (typeof doc.host !== 'string' || !doc.host.trim()) return undefined;
    const schemes = Array.isArray(doc.schemes) ? doc.schemes : [];
    url = `${schemes.includes('https') || !schemes.includes('http') ? 'https' : 'http'}://${doc.host.trim()}${typeof doc.basePath === 'string' ? doc.basePath : ''}`;
  } else {
    const holder = [op, item, doc].find((h) => Array.isArray(h.servers) && h.servers.length);
    const server = holder ? (holder.servers as unknown[])[0] : undefined;
    if (!isObj(server) || typeof server.url !== 'string') return undefined;
    const vars = isObj(server.variables) ? server.variables : {};
    url = server.url.replace(/\{([^{}]+)\}/g, (whole, name: string) => {
      const v = Object.prototype.hasOwnProperty.call(vars, name) ? vars[name] : undefined;
      return isObj(v) && (typeof v.default === 'string' || typeof v.default === 'number') ? String(v.default) : whole;
    });
  }
  // A user name or password in the address is refused: a spec is read by everyone who has it.
  return /^https?:\/\/[^\s{}@]+$/i.test(url) ? url : undefined;
}

function toolOf(file: string, at: string, doc: Obj, route: string, method: string, op: Obj, shared: unknown[], swagger2: boolean, problems: ManifestProblem[]): Obj {
  let name = typeof op.operationId === 'string' && op.operationId.trim() ? op.operationId.trim() : '';
  if (!name) {
    name = `${method}_${route}`.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').toLowerCase();
    problems.push({ file, path: `${at}/operationId`, severity: 'warning', message: `no operationId; the tool is named "${name}" from its method and path (flows and tool calls name it so; give an operationId to choose the name)` });
  }
  // Keyed by parameter names the document chose: "__proto__" must be a key, not the prototype.
  const properties: Obj = Object.create(null);
  const required: string[] = [];
  // Path-level parameters apply to every method; the operation's own win by name and place.
  const params = new Map<string, Obj>();
  for (const p of [...shared, ...(Array.isArray(op.parameters) ? op.parameters : [])]) {
    const q = deref(doc, p);
    if (isObj(q) && typeof q.name === 'string') params.set(`${q.in}:${q.name}`, q);
  }
  // How a call sends each argument (notebook/http-runner.ts); the address is set by the caller.
  const query: string[] = [];
  let bodyType: 'json' | 'json-value' | 'form' | 'multipart' | 'raw' | undefined;
  let contentType: string | undefined;
  for (const p of params.values()) {
    // Headers and cookies carry keys and sessions, not the tool's inputs.
    if (p.in === 'header' || p.in === 'cookie') continue;
    if (swagger2 && p.in === 'body') {
      addSchema(doc, deref(doc, p.schema), p.required === true, properties, required, undefined);
      bodyType = 'json';
      continue;
    }
    if (p.in === 'query') query.push(p.name as string);
    if (swagger2 && p.in === 'formData') {
      const consumes = Array.isArray(op.consumes) ? op.consumes : Array.isArray(doc.consumes) ? doc.consumes : [];
      bodyType = bodyType === 'multipart' || p.type === 'file' || consumes.some((c) => /multipart/.test(String(c))) ? 'multipart' : 'form';
    }
    const name = p.name as string;
    // Swagger 2 puts the type on the parameter itself; OpenAPI 3 in its schema.
    const schema = swagger2 ? { ...p } : { ...(isObj(deref(doc, p.schema)) ? (deref(doc, p.schema) as Obj) : {}) };
    delete schema.in;
    delete schema.name;
    delete schema.required;
    if (swagger2 && p.type === 'file') Object.assign(schema, { type: 'string', format: 'binary' });
    if (typeof p.description === 'string') schema.description = p.description;
    properties[name] = schema;
    if (p.required === true || p.in === 'path') required.push(name);
  }
  const body = deref(doc, op.requestBody);
  if (isObj(body) && isObj(body.content)) {
    const types = Object.keys(body.content);
    const type = BODY_TYPES.map((re) => types.find((t) => re.test(t))).find((t) => t) ?? types[0];
    const media = type ? (body.content as Obj)[type] : undefined;
    if (isObj(media)) {
      const schema = deref(doc, media.schema);
      addSchema(doc, schema, body.required === true, properties, required, type, isObj(media.encoding) ? media.encoding : undefined);
      // A body that is not an object (a GeoTIFF sent as is) is the one argument `body` (addSchema).
      const whole = isObj(schema) && !flatten(doc, schema);
      // A JSON body that is not an object (a list of points, one number) is the argument `body`, sent as it is.
      bodyType = /multipart/.test(type!) ? 'multipart' : /x-www-form-urlencoded/.test(type!) ? 'form' : whole ? (/json/.test(type!) ? 'json-value' : 'raw') : 'json';
      if (bodyType === 'raw') contentType = type;
    }
  }
  // An upload field: `format: binary` (OpenAPI 3.0, Swagger's `file`) or a media type (3.1, an encoding).
  const files = bodyType === 'multipart' ? Object.keys(properties).filter((k) => isObj(properties[k]) && ((properties[k] as Obj).format === 'binary' || typeof (properties[k] as Obj).contentMediaType === 'string')) : [];
  const auth = securityOf(doc, op, swagger2);
  const tool: Obj = {
    name, inputSchema: { type: 'object', properties, required },
    runner: { type: 'http', method: method.toUpperCase(), url: '', ...(query.length && bodyType ? { query } : {}), ...(bodyType ? { body: bodyType } : {}), ...(files.length ? { files } : {}), ...(contentType ? { contentType } : {}), ...(auth ? { auth } : {}) },
  };
  const summary = typeof op.summary === 'string' && op.summary.trim() ? op.summary.trim() : undefined;
  if (summary) tool.title = summary;
  if (typeof op.description === 'string' && op.description.trim()) tool.description = op.description.trim();
  // Neither (generators that are not FastAPI often write neither): the id and the path in words, so
  // the tool still loads, is found by its name and stays what the team's flows name.
  else if (!summary) tool.title = `${name.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[_.:-]+/g, ' ').trim()} (${method.toUpperCase()} ${route})`;
  if (Array.isArray(op.tags) && op.tags.every((t) => typeof t === 'string') && op.tags.length) tool.tags = op.tags;
  if (op.deprecated === true) tool.deprecated = true;
  const output = responseSchema(doc, op, swagger2);
  if (output) tool.outputSchema = output;
  return tool;
}

/**
 * How the operation takes a key: its own `security` (else the document's), the first requirement's
 * first scheme that is a bearer token or an API key in a header or the query (FastAPI's HTTPBearer,
 * APIKeyHeader, APIKeyQuery). `security: []` on an operation means none. Basic auth, OAuth flows and
 * cookies are not sent.
 */
function securityOf(doc: Obj, op: Obj, swagger2: boolean): Obj | undefined {
  const reqs = Array.isArray(op.security) ? op.security : Array.isArray(doc.security) ? doc.security : [];
  const schemes = swagger2 ? doc.securityDefinitions : isObj(doc.components) ? doc.components.securitySchemes : undefined;
  if (!isObj(schemes)) return undefined;
  for (const req of reqs) {
    if (!isObj(req)) continue;
    for (const name of Object.keys(req)) {
      const sc = Object.prototype.hasOwnProperty.call(schemes, name) ? deref(doc, schemes[name]) : undefined;
      if (!isObj(sc)) continue;
      if (sc.type === 'http' && typeof sc.scheme === 'string' && sc.scheme.toLowerCase() === 'bearer') return { in: 'header', name: 'Authorization', scheme: 'Bearer' };
      if (sc.type === 'apiKey' && (sc.in === 'header' || sc.in === 'query') && typeof sc.name === 'string' && sc.name.trim()) return { in: sc.in, name: sc.name.trim() };
    }
  }
  return undefined;
}

/**
 * A body schema's properties as parameters. An object body gives its properties (`allOf` parts
 * merged, as pydantic writes a model that extends another); anything else (a GeoTIFF upload, a
 * GeoJSON body) is one parameter, `body`, typed by its media type.
 */
function addSchema(doc: Obj, schema: unknown, bodyRequired: boolean, properties: Obj, required: string[], mediaType: string | undefined, encoding?: Obj): void {
  if (!isObj(schema)) return;
  const obj = flatten(doc, schema);
  if (obj) {
    for (const [k, v] of Object.entries(obj.properties)) {
      const sc = { ...(isObj(v) ? (deref(doc, v) as Obj) : {}) };
      // A property that is a $ref to a model keeps its own description over the model's.
      if (isObj(v) && typeof v.description === 'string') sc.description = v.description;
      const enc = encoding && isObj(encoding[k]) ? (encoding[k] as Obj).contentType : undefined;
      if (typeof enc === 'string') sc.contentMediaType = enc;
      properties[k] = sc;
    }
    // Required inside the body: required whenever a body is sent, which every call to such an operation does.
    for (const r of obj.required) if (!required.includes(r)) required.push(r);
    return;
  }
  properties.body = { ...schema, ...(mediaType && !/json|form/.test(mediaType) ? { contentMediaType: mediaType } : {}), description: typeof schema.description === 'string' ? schema.description : `request body (${mediaType ?? 'as the schema says'})` };
  if (bodyRequired) required.push('body');
}

/** An object schema's properties and required names, `allOf` parts merged; undefined when it is not an object. */
function flatten(doc: Obj, schema: Obj, depth = 0): { properties: Obj; required: string[] } | undefined {
  if (depth > MAX_REF_DEPTH) return undefined;
  const s = deref(doc, schema);
  if (!isObj(s)) return undefined;
  const properties: Obj = Object.create(null);
  const required: string[] = [];
  let object = isObj(s.properties) || s.type === 'object';
  if (isObj(s.properties)) Object.assign(properties, s.properties);
  if (Array.isArray(s.required)) required.push(...s.required.filter((x): x is string => typeof x === 'string'));
  if (Array.isArray(s.allOf)) {
    for (const part of s.allOf) {
      const f = isObj(part) ? flatten(doc, part, depth + 1) : undefined;
      if (!f) continue;
      object = true;
      Object.assign(properties, f.properties);
      required.push(...f.required);
    }
  }
  return object ? { properties, required } : undefined;
}

/** What a successful call returns, as an object schema of outputs (a file response is one output, `result`). */
function responseSchema(doc: Obj, op: Obj, swagger2: boolean): Obj | undefined {
  if (!isObj(op.responses)) return undefined;
  const code = Object.keys(op.responses).filter((c) => /^2\d\d$|^2XX$/i.test(c)).sort()[0];
  const res = code ? deref(doc, (op.responses as Obj)[code]) : undefined;
  if (!isObj(res)) return undefined;
  let schema: unknown;
  let media: string | undefined;
  if (swagger2) schema = res.schema;
  else if (isObj(res.content)) {
    const types = Object.keys(res.content);
    media = types.find((t) => /json/.test(t)) ?? types[0];
    schema = media && isObj((res.content as Obj)[media]) ? ((res.content as Obj)[media] as Obj).schema : undefined;
  }
  if (!isObj(schema)) return undefined;
  const obj = flatten(doc, schema);
  if (obj && Object.keys(obj.properties).length) {
    const properties: Obj = Object.create(null);
    for (const [k, v] of Object.entries(obj.properties)) properties[k] = isObj(v) ? { ...(deref(doc, v) as Obj), ...(typeof v.description === 'string' ? { description: v.description } : {}) } : {};
    return { type: 'object', properties };
  }
  if (obj) return undefined;
  // FastAPI gives a route without a response model `schema: {}`: it says nothing of what comes back.
  const said = deref(doc, schema) as Obj;
  if (!Object.keys(said).some((k) => k !== 'title' && k !== 'description') && !(media && !/json/.test(media))) return undefined;
  const desc = typeof res.description === 'string' ? res.description : 'the result';
  return { type: 'object', properties: { result: { ...deref(doc, schema) as Obj, ...(media && !/json/.test(media) ? { contentMediaType: media } : {}), description: desc } } };
}

/** A local `$ref` ("#/components/schemas/X") followed to what it names; other values as they are. */
function deref(doc: Obj, v: unknown, depth = 0): unknown {
  if (!isObj(v) || typeof v.$ref !== 'string') return v;
  if (depth >= MAX_REF_DEPTH || !v.$ref.startsWith('#/')) return {};
  let cur: unknown = doc;
  for (const raw of v.$ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    // Own keys only: "#/__proto__" must not walk into Object.prototype.
    if (!isObj(cur) || !Object.prototype.hasOwnProperty.call(cur, key)) return {};
    cur = cur[key];
  }
  return deref(doc, cur, depth + 1);
}

function pointerPart(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}
