/**
 * stac_search: finds STAC items by area, time, collection, cloud cover and other properties, either in
 * a static STAC catalog on disk (catalog.json / collection.json / item JSON, following "child" and
 * "item" links as the STAC spec lays them out) or through a STAC API (POST {api}/search, following
 * "next" links). Writes the matching items as JSON with each asset's href, plus its local path when
 * the asset is a local file.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineTool, type ToolContext } from './types';
import { checkAbort, sig, writeJson } from './analysis-support';
import { boundedFetch } from '../../net/bounded-fetch';

/** Most JSON files a static catalog walk reads, and most pages an API search follows. */
const MAX_FILES = 200_000;
const MAX_PAGES = 100;
const TIMEOUT_MS = 60_000;

export interface StacQuery {
  bbox?: [number, number, number, number];
  /** Inclusive interval in ms since the epoch (open ends as ±Infinity). */
  time?: [number, number];
  datetime?: string;
  collection?: string;
  maxCloud?: number;
  props: PropFilter[];
}

interface PropFilter { key: string; op: '=' | '!=' | '<' | '<=' | '>' | '>='; value: string }

export interface FoundItem {
  id: string;
  collection: string | null;
  datetime: string | null;
  cloud_cover: number | null;
  bbox: number[] | null;
  /** Where the item came from: its JSON file, or the API page URL. */
  source: string;
  properties: Record<string, unknown>;
  assets: Record<string, { href: string; path?: string; exists?: boolean; type?: string; roles?: string[]; title?: string }>;
}

/** Parses "A/B" (dates or RFC 3339 instants, ".." or empty for an open end) or a single date/instant; date-only ends cover the whole day. */
export function parseDatetime(s: string): [number, number] {
  const parts = s.includes('/') ? s.split('/') : [s, s];
  if (parts.length !== 2) throw new Error(`argument "datetime": "${s}" is not a date, an instant or a range "start/end"`);
  const one = (p: string, end: boolean): number => {
    const t = p.trim();
    if (t === '' || t === '..') return end ? Infinity : -Infinity;
    if (/^\d{4}-\d{2}-\d{2}$/.test(t)) {
      const ms = Date.parse(`${t}T00:00:00Z`);
      if (!Number.isFinite(ms)) throw new Error(`argument "datetime": "${t}" is not a valid date (YYYY-MM-DD)`);
      return end ? ms + 86_400_000 - 1 : ms;
    }
    const ms = Date.parse(t);
    if (!Number.isFinite(ms) || !/^\d{4}-\d{2}-\d{2}T/.test(t)) throw new Error(`argument "datetime": "${t}" is not a date (YYYY-MM-DD) or an RFC 3339 instant (2023-06-01T10:00:00Z)`);
    return ms;
  };
  const iv: [number, number] = [one(parts[0], false), one(parts[1], true)];
  if (iv[0] > iv[1]) throw new Error(`argument "datetime": the range "${s}" ends before it starts`);
  return iv;
}

function parseProps(list: string[]): PropFilter[] {
  return list.map((s) => {
    const m = /^\s*([^<>=!\s]+)\s*(<=|>=|!=|=|<|>)\s*(.*?)\s*$/.exec(s);
    if (!m || m[3] === '') throw new Error(`argument "properties": "${s}" is not a filter like "platform=sentinel-2a" or "view:off_nadir<5"`);
    return { key: m[1], op: m[2] as PropFilter['op'], value: m[3] };
  });
}

function propMatches(v: unknown, f: PropFilter): boolean {
  if (v === undefined || v === null) return false;
  const num = Number(f.value);
  const cmp = typeof v === 'number' && Number.isFinite(num) ? v - num : String(v).localeCompare(f.value);
  switch (f.op) {
    case '=': return typeof v === 'number' ? cmp === 0 : String(v) === f.value;
    case '!=': return typeof v === 'number' ? cmp !== 0 : String(v) !== f.value;
    case '<': return cmp < 0;
    case '<=': return cmp <= 0;
    case '>': return cmp > 0;
    case '>=': return cmp >= 0;
  }
}

/** An item's lon/lat bbox: its bbox member, else the extent of its geometry's coordinates. */
function itemBbox(item: any): number[] | null {
  const b = item?.bbox;
  if (Array.isArray(b) && (b.length === 4 || b.length === 6) && b.every((x) => typeof x === 'number')) {
    return b.length === 4 ? b : [b[0], b[1], b[3], b[4]];
  }
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  const walk = (c: unknown): void => {
    if (Array.isArray(c) && typeof c[0] === 'number' && typeof c[1] === 'number') { x0 = Math.min(x0, c[0]); x1 = Math.max(x1, c[0]); y0 = Math.min(y0, c[1]); y1 = Math.max(y1, c[1]); } else if (Array.isArray(c)) c.forEach(walk);
  };
  walk(item?.geometry?.coordinates);
  return x0 <= x1 ? [x0, y0, x1, y1] : null;
}

/** The item's time interval (ms): datetime, else start_datetime..end_datetime. */
function itemTime(p: Record<string, unknown>): [number, number] | null {
  const at = (v: unknown) => (typeof v === 'string' ? Date.parse(v) : NaN);
  const d = at(p.datetime);
  if (Number.isFinite(d)) return [d, d];
  const s = at(p.start_datetime), e = at(p.end_datetime);
  return Number.isFinite(s) && Number.isFinite(e) ? [s, e] : null;
}

/** Whether an item passes every filter of the query. */
export function matches(item: any, collection: string | null, q: StacQuery): boolean {
  const p = item?.properties && typeof item.properties === 'object' ? item.properties : {};
  if (q.collection && collection !== q.collection) return false;
  if (q.bbox) {
    const b = itemBbox(item);
    if (!b || b[0] > q.bbox[2] || b[2] < q.bbox[0] || b[1] > q.bbox[3] || b[3] < q.bbox[1]) return false;
  }
  if (q.time) {
    const t = itemTime(p);
    if (!t || t[1] < q.time[0] || t[0] > q.time[1]) return false;
  }
  if (q.maxCloud !== undefined) {
    const c = p['eo:cloud_cover'];
    if (typeof c !== 'number' || !(c <= q.maxCloud)) return false;
  }
  return q.props.every((f) => propMatches(p[f.key], f));
}

/** Local path of an href relative to `base` (a file path or URL), or undefined for remote hrefs. */
function localPath(href: string, base: string): string | undefined {
  if (/^file:\/\//i.test(href)) { try { return fileURLToPath(href); } catch { return undefined; } }
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) && !/^[a-z]:[\\/]/i.test(href)) {
    return undefined;
  }
  if (/^https?:\/\//i.test(base)) return undefined;
  const dir = /^file:\/\//i.test(base) ? path.dirname(fileURLToPath(base)) : path.dirname(base);
  return path.resolve(dir, href);
}

function found(item: any, collection: string | null, source: string, base: string): FoundItem {
  const p = item?.properties && typeof item.properties === 'object' ? item.properties : {};
  const assets: FoundItem['assets'] = {};
  for (const [k, a] of Object.entries<any>(item?.assets ?? {})) {
    if (!a || typeof a.href !== 'string') continue;
    const local = localPath(a.href, base);
    let href = a.href;
    if (!local && /^https?:\/\//i.test(base) && !/^[a-z][a-z0-9+.-]*:/i.test(a.href)) href = new URL(a.href, base).toString();
    assets[k] = {
      href, ...(local ? { path: local, exists: fs.existsSync(local) } : {}),
      ...(typeof a.type === 'string' ? { type: a.type } : {}), ...(Array.isArray(a.roles) ? { roles: a.roles.map(String) } : {}), ...(typeof a.title === 'string' ? { title: a.title } : {}),
    };
  }
  const t = typeof p.datetime === 'string' ? p.datetime : typeof p.start_datetime === 'string' ? p.start_datetime : null;
  return {
    id: String(item?.id ?? ''), collection, datetime: t, cloud_cover: typeof p['eo:cloud_cover'] === 'number' ? p['eo:cloud_cover'] : null,
    bbox: itemBbox(item), source, properties: p, assets,
  };
}

interface WalkResult { items: FoundItem[]; scanned: number; remoteLinks: number; unreadable: string[]; pages?: number; endpoint?: string; foreignNext?: string }

/** Walks a static catalog from `start` (a folder, or a catalog/collection/item/item-collection JSON). */
async function walkStatic(ctx: ToolContext, start: string, q: StacQuery): Promise<WalkResult> {
  let first = start;
  if (fs.existsSync(start) && fs.statSync(start).isDirectory()) {
    first = ['catalog.json', 'collection.json'].map((f) => path.join(start, f)).find((f) => fs.existsSync(f)) ?? '';
    if (!first) throw new Error(`argument "catalog": the folder ${start} has no catalog.json or collection.json; point at the root of a static STAC catalog, or at an API URL`);
  } else if (!fs.existsSync(start)) {
    throw new Error(`argument "catalog": ${start} does not exist; give a static STAC catalog (folder or catalog.json) or a STAC API URL (https://.../search)`);
  }
  const read = (file: string): any => JSON.parse(fs.readFileSync(file, 'utf8'));
  let root: any;
  try { root = read(first); } catch (e) { throw new Error(`argument "catalog": ${first} is not readable JSON (${(e as Error).message})`); }
  if (!root || typeof root !== 'object' || !['Catalog', 'Collection', 'Feature', 'FeatureCollection'].includes(root.type)) {
    throw new Error(`argument "catalog": ${first} is not a STAC catalog, collection or item (its "type" is ${JSON.stringify(root?.type ?? null)})`);
  }
  const out: WalkResult = { items: [], scanned: 0, remoteLinks: 0, unreadable: [] };
  const seen = new Set<string>([path.resolve(first)]);
  const queue: { file: string; collection: string | null }[] = [{ file: path.resolve(first), collection: null }];
  let files = 0;
  while (queue.length) {
    if (++files > MAX_FILES) throw new Error(`argument "catalog": ${first} links more than ${MAX_FILES} JSON files; search a sub-catalog or a STAC API instead`);
    if (files % 64 === 0) { checkAbort(ctx.signal); ctx.progress(Math.min(0.9, files / (files + queue.length)), `${files} files read`); }
    const { file, collection } = queue.shift()!;
    let doc: any = files === 1 ? root : undefined;
    if (!doc) {
      try { doc = read(file); } catch { out.unreadable.push(file); continue; }
    }
    const visitItem = (item: any, coll: string | null, src: string) => {
      out.scanned++;
      const c = typeof item?.collection === 'string' ? item.collection : coll;
      if (matches(item, c, q)) out.items.push(found(item, c, src, src));
    };
    if (doc?.type === 'Feature') { visitItem(doc, collection, file); continue; }
    if (doc?.type === 'FeatureCollection') { for (const it of Array.isArray(doc.features) ? doc.features : []) visitItem(it, collection, file); continue; }
    const here = doc?.type === 'Collection' && typeof doc.id === 'string' ? doc.id : collection;
    // A collection other than the one asked for holds nothing wanted.
    if (doc?.type === 'Collection' && q.collection && here !== q.collection) continue;
    for (const l of Array.isArray(doc?.links) ? doc.links : []) {
      if (!l || (l.rel !== 'child' && l.rel !== 'item') || typeof l.href !== 'string') continue;
      const p = localPath(l.href, file);
      if (!p) { out.remoteLinks++; continue; }
      if (seen.has(p)) continue;
      seen.add(p);
      queue.push({ file: p, collection: here });
    }
  }
  return out;
}

/** RFC 3339 interval for an API request. */
function apiDatetime(t: [number, number]): string {
  const f = (ms: number) => (Number.isFinite(ms) ? new Date(ms).toISOString().replace('.000Z', 'Z') : '..');
  return `${f(t[0])}/${f(t[1])}`;
}

async function searchApi(ctx: ToolContext, url: string, q: StacQuery, limit: number): Promise<WalkResult & { pages: number; endpoint: string }> {
  const endpoint = /\/search\/?$/.test(url) ? url.replace(/\/$/, '') : `${url.replace(/\/+$/, '')}/search`;
  const body: Record<string, unknown> = { limit: Math.min(limit, 100) };
  if (q.bbox) body.bbox = q.bbox;
  if (q.time) body.datetime = apiDatetime(q.time);
  if (q.collection) body.collections = [q.collection];
  const query: Record<string, Record<string, unknown>> = {};
  if (q.maxCloud !== undefined) query['eo:cloud_cover'] = { lte: q.maxCloud };
  const OPS: Record<string, string> = { '=': 'eq', '!=': 'neq', '<': 'lt', '<=': 'lte', '>': 'gt', '>=': 'gte' };
  for (const f of q.props) { const n = Number(f.value); (query[f.key] ??= {})[OPS[f.op]] = Number.isFinite(n) && f.value.trim() !== '' ? n : f.value; }
  if (Object.keys(query).length) body.query = query;
  const doFetch = boundedFetch(32 << 20);
  const out: WalkResult & { pages: number; endpoint: string } = { items: [], scanned: 0, remoteLinks: 0, unreadable: [], pages: 0, endpoint };
  let req: { url: string; method: string; body?: unknown } | undefined = { url: endpoint, method: 'POST', body };
  while (req && out.items.length < limit) {
    if (++out.pages > MAX_PAGES) break;
    checkAbort(ctx.signal);
    const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(TIMEOUT_MS)]);
    let res: Response;
    try {
      res = await doFetch(req.url, {
        method: req.method, signal,
        headers: { accept: 'application/geo+json, application/json', ...(req.method === 'POST' ? { 'content-type': 'application/json' } : {}) },
        ...(req.method === 'POST' ? { body: JSON.stringify(req.body) } : {}),
      });
    } catch (e) {
      checkAbort(ctx.signal);
      throw new Error(`argument "catalog": could not reach the STAC API at ${req.url} (${(e as Error).name === 'TimeoutError' ? `no answer in ${TIMEOUT_MS / 1000} s` : (e as Error).message}); check the URL and the network`);
    }
    const text = await res.text();
    if (!res.ok) throw new Error(`argument "catalog": the STAC API answered ${res.status} ${res.statusText} to ${req.method} ${req.url}: ${text.slice(0, 300).replace(/\s+/g, ' ')}`);
    let page: any;
    try { page = JSON.parse(text); } catch { throw new Error(`argument "catalog": ${req.url} did not answer JSON; is it a STAC API search endpoint?`); }
    if (page?.type !== 'FeatureCollection' || !Array.isArray(page.features)) throw new Error(`argument "catalog": ${req.url} did not answer a STAC ItemCollection (no "features" list); is it a STAC API search endpoint?`);
    for (const item of page.features) {
      out.scanned++;
      const c = typeof item?.collection === 'string' ? item.collection : null;
      // The API filtered already; filtering again catches servers that ignore the query extension.
      if (!matches(item, c, q)) continue;
      const self = (Array.isArray(item?.links) ? item.links : []).find((l: any) => l?.rel === 'self' && typeof l.href === 'string')?.href;
      out.items.push(found(item, c, req.url, typeof self === 'string' ? new URL(self, req.url).toString() : req.url));
    }
    const next = (Array.isArray(page.links) ? page.links : []).find((l: any) => l?.rel === 'next' && typeof l.href === 'string');
    if (!next || !page.features.length) { req = undefined; break; }
    const method = String(next.method ?? 'GET').toUpperCase();
    const nextUrl = new URL(next.href, req.url).toString();
    // Pages come from the API that was asked; a next link to another server is not followed.
    if (new URL(nextUrl).origin !== new URL(endpoint).origin) { out.foreignNext = nextUrl; break; }
    const nextBody: unknown = method === 'POST' ? (next.merge ? { ...(req.body as object), ...(next.body ?? {}) } : next.body ?? req.body) : undefined;
    req = { url: nextUrl, method, ...(nextBody ? { body: nextBody } : {}) };
  }
  return out;
}

export const stacSearchTool = defineTool({
  id: 'stac_search',
  params: {
    catalog: { kind: 'string', required: true, path: true, description: 'static STAC catalog (folder, catalog.json or collection.json) or a STAC API URL (https://.../v1 or .../search)' },
    bbox: { kind: 'bbox', description: 'area of interest [minx, miny, maxx, maxy] in longitude/latitude' },
    datetime: { kind: 'string', description: 'date range "YYYY-MM-DD/YYYY-MM-DD" (".." for an open end), or one date' },
    collection: { kind: 'string', description: 'collection id, e.g. sentinel-2-l2a' },
    max_cloud: { kind: 'number', min: 0, max: 100, description: 'largest eo:cloud_cover in percent (items without one are left out); no cloud filter when omitted' },
    properties: { kind: 'string_list', description: 'more property filters such as "platform=sentinel-2a" or "view:off_nadir<5" (= != < <= > >=)' },
    limit: { kind: 'integer', default: 100, min: 1, max: 10_000, description: 'most items returned (earliest first)' },
  },
  async run(ctx) {
    const { catalog, limit, max_cloud: maxCloud, bbox, datetime, collection, properties = [] } = ctx.args;
    if (bbox && (bbox[0] < -180 || bbox[2] > 180 || bbox[1] < -90 || bbox[3] > 90)) throw new Error(`argument "bbox": [${bbox.join(', ')}] is not in longitude/latitude (−180..180, −90..90)`);
    const q: StacQuery = {
      ...(bbox ? { bbox } : {}),
      ...(datetime ? { time: parseDatetime(datetime), datetime } : {}),
      ...(collection ? { collection } : {}),
      ...(maxCloud !== undefined ? { maxCloud } : {}),
      props: parseProps(properties),
    };
    const remote = /^https?:\/\//i.test(catalog);
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(catalog) && !remote && !/^file:\/\//i.test(catalog)) throw new Error(`argument "catalog": ${catalog} is neither a local catalog nor an http(s) STAC API`);
    const local = remote ? '' : /^file:\/\//i.test(catalog) ? fileURLToPath(catalog) : catalog;
    const r = remote ? await searchApi(ctx, catalog, q, limit) : await walkStatic(ctx, local, q);
    const all = r.items.sort((a, b) => (a.datetime ?? '').localeCompare(b.datetime ?? '') || a.id.localeCompare(b.id));
    const items = all.slice(0, limit);
    const file = path.join(ctx.outDir, 'stac_search_items.json');
    const source = remote ? r.endpoint! : local;
    writeJson(file, { type: 'stac_search', catalog: source, query: { bbox: q.bbox ?? null, datetime: q.datetime ?? null, collection: q.collection ?? null, max_cloud: q.maxCloud ?? null, properties }, matched: all.length, returned: items.length, items });
    const clouds = items.map((i) => i.cloud_cover).filter((c): c is number => c !== null);
    const localAssets = items.reduce((n, i) => n + Object.values(i.assets).filter((a) => a.path).length, 0);
    const missing = items.reduce((n, i) => n + Object.values(i.assets).filter((a) => a.path && !a.exists).length, 0);
    const best = [...items].filter((i) => i.cloud_cover !== null).sort((a, b) => a.cloud_cover! - b.cloud_cover!)[0];
    let summary = items.length
      ? `${all.length} item${all.length > 1 ? 's' : ''} of ${r.scanned} ${remote ? 'returned by' : 'in'} ${remote ? source : path.basename(local) || local} match${all.length === 1 ? 'es' : ''}`
        + `${all.length > items.length ? ` (the first ${items.length} kept)` : ''}, from ${items[0].datetime?.slice(0, 10) ?? '?'} to ${items[items.length - 1].datetime?.slice(0, 10) ?? '?'}`
        + (clouds.length ? `, cloud cover ${sig(Math.min(...clouds))}–${sig(Math.max(...clouds))}%` : '')
        + (best ? `; the clearest is ${best.id} (${best.datetime?.slice(0, 10)}, ${sig(best.cloud_cover!)}%)` : '') + '.'
      : `No item of the ${r.scanned} ${remote ? 'returned by' : 'in'} ${remote ? source : local} matches the search; widen the dates, the area or max_cloud.`;
    if (localAssets) summary += ` ${localAssets} asset${localAssets > 1 ? 's are' : ' is'} local files${missing ? ` (${missing} missing on disk)` : ''}.`;
    if (r.remoteLinks) summary += r.remoteLinks > 1 ? ` ${r.remoteLinks} links to remote catalog files were not followed.` : ' 1 link to a remote catalog file was not followed.';
    if (r.foreignNext) summary += ` The API's next page is on another server (${new URL(r.foreignNext).origin}) and was not fetched; later items may be missing.`;
    if (r.unreadable.length) summary += ` ${r.unreadable.length} linked file${r.unreadable.length > 1 ? 's were' : ' was'} unreadable (first: ${r.unreadable[0]}).`;
    return {
      tool: 'stac_search',
      outputs: { scenes: { path: file, type: 'table', description: 'matching STAC items: id, collection, datetime, cloud cover, bbox, properties and assets (href, local path)' } },
      stats: {
        catalog: source, kind: remote ? 'api' : 'static', scanned: r.scanned, matched: all.length, returned: items.length,
        items: items.map((i) => ({ id: i.id, collection: i.collection, datetime: i.datetime, cloud_cover: i.cloud_cover })),
        local_assets: localAssets, missing_local_assets: missing, remote_links_skipped: r.remoteLinks, unreadable: r.unreadable.slice(0, 20),
        ...(remote ? { pages: r.pages } : {}),
      },
      summary,
    };
  },
});
