/**
 * Runs a tool that is a REST service (an `http` runner, as an OpenAPI document gives one per
 * operation): the cell's arguments become the path, the query string and the body; the answer
 * becomes the run's result. A GeoTIFF, GeoJSON or CSV answer is an output file (written into a
 * private staging folder and moved into the output folder only when it arrived whole); a JSON
 * answer is the run's statistics.
 *
 * The caller decides whether calling services is allowed (workspace trust): the call sends the
 * workspace's files to the address the manifest names.
 */
import * as fs from 'fs';
import * as path from 'path';
import { Readable, Transform } from 'stream';
import { pipeline } from 'stream/promises';
import type { ToolManifest } from '../manifests/types';
import type { OutputRef, RunOptions, ToolRunResult } from '../raster/types';
import { RunStaging } from '../raster/io/run-staging';
import { aliasOf } from '../raster/arg-aliases';
import { startRunRecord } from '../raster/provenance';
import { ProcessArgumentError, commandArgs, freshName, own } from './process-runner';
import { finishRasterOutput } from './process-style';
import { scalarWords, seconds } from './answer-words';
import { sleep } from '../raster/io/http-client';

type HttpRunner = Extract<NonNullable<ToolManifest['runner']>, { type: 'http' }>;

/** A JSON answer larger than this is refused: it is statistics, not data. */
export const MAX_JSON_ANSWER_BYTES = 64 << 20;
/** A file answer larger than this is cut off and removed (a raster of 4 GiB is a download, not a result). */
export const MAX_FILE_ANSWER_BYTES = 4 * 1024 ** 3;
/** What a failed call's answer is read of, for its message. */
const ERROR_BODY_BYTES = 8192;
const PATH_TYPES = new Set(['raster', 'vector', 'table']);

/** Where a service key comes from: the caller's store (the extension's SecretStorage), else the environment. */
export interface HttpRunOptions {
  /** The user's key for a service address (`scheme://host[:port]`), if any. */
  serviceKey?: (origin: string) => Promise<string | undefined> | string | undefined;
  fetch?: typeof fetch;
}

/**
 * The environment variable that holds the key of the service at `origin`: GEOWEAVE_SERVICE_KEY_ and
 * the host and port in capitals, other characters as "_" (http://127.0.0.1:8000 →
 * GEOWEAVE_SERVICE_KEY_127_0_0_1_8000). Named by the address, so a key goes only to the service
 * the user set it for, whatever address a cloned repository's spec names.
 */
export function serviceKeyEnv(origin: string): string {
  const u = new URL(origin);
  return `GEOWEAVE_SERVICE_KEY_${u.host.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/** The address (`scheme://host[:port]`) a runner's calls go to, its path parameters aside; undefined when its url is not one. */
export function serviceOrigin(runner: { url: string }): string | undefined {
  try {
    const origin = new URL(runner.url.replace(/\{[^{}/]*\}/g, 'x')).origin;
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}

/** Where a call goes, as messages show it: no credentials, no query string. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//').replace(/\?.*$/, '');
  }
}

/** The request a call makes: the URL with its path and query filled in, and the body. */
export async function buildRequest(manifest: ToolManifest, values: Record<string, unknown>, key?: string): Promise<{ url: string; init: RequestInit; sentFiles: string[] }> {
  const runner = manifest.runner as HttpRunner;
  const id = manifest.id;
  const text = (v: unknown) => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));
  const placed = new Set<string>();
  const url = runner.url.replace(/\{([^{}/]+)\}/g, (_, name: string) => {
    const v = own(values, name);
    if (v === undefined) throw new ProcessArgumentError(`${id}: argument "${name}" is needed: it is part of the address ${runner.url}`);
    placed.add(name);
    // One segment whatever it holds: "a/b" is encoded, and "." or ".." would step up the service's path.
    const seg = encodeURIComponent(text(v));
    return /^\.{1,2}$/.test(seg) ? seg.replace(/\./g, '%2E') : seg;
  });
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ProcessArgumentError(`${id}: the manifest's url "${shownUrl(runner.url)}" is not an address; give http(s)://host[:port]/path`);
  }
  if (!/^https?:$/.test(u.protocol)) throw new ProcessArgumentError(`${id}: the manifest's url is ${u.protocol} — only http and https services are called`);
  // A password in a spec is readable by everyone who has the spec, and would show in messages.
  if (u.username || u.password) throw new ProcessArgumentError(`${id}: the manifest's url holds a user name or password (${shownUrl(runner.url)}); remove it: GeoWeave does not send credentials written into a manifest`);
  const rest: [string, unknown][] = [];
  const inQuery = new Set(runner.query ?? []);
  for (const [k, v] of Object.entries(values)) {
    if (placed.has(k)) continue;
    if (inQuery.has(k) || !runner.body) for (const x of Array.isArray(v) ? v : [v]) u.searchParams.append(k, text(x));
    else rest.push([k, v]);
  }
  const init: RequestInit = { method: runner.method, headers: { accept: 'application/json, image/tiff, application/geo+json, text/csv;q=0.9, */*;q=0.5' } };
  const sentFiles: string[] = [];
  const headers = init.headers as Record<string, string>;
  const auth = runner.auth;
  if (key && auth?.in === 'header') headers[auth.name.toLowerCase()] = auth.scheme ? `${auth.scheme} ${key}` : key;
  if (key && auth?.in === 'query') u.searchParams.set(auth.name, key);
  if (runner.async) headers.prefer = 'respond-async';
  if (runner.body === 'ogc') {
    // OGC API - Processes: {"inputs": {...}}, even with none.
    init.body = JSON.stringify({ inputs: Object.fromEntries(rest) });
    headers['content-type'] = 'application/json';
  } else if (runner.body === 'json-value' && rest.length) {
    // The whole body is the one argument `body` (its schema is a list or a value, not an object).
    const extra = rest.filter(([k]) => k !== 'body').map(([k]) => k);
    if (extra.length) throw new ProcessArgumentError(`${id}: the request body is the one argument "body"; ${extra.join(', ')} ${extra.length > 1 ? 'have' : 'has'} no place in the request (query: ${[...inQuery].join(', ') || 'none'})`);
    const v = rest[0][1];
    let value: unknown = v;
    if (typeof v === 'string' && /^\s*[[{"\d-]|^\s*(true|false|null)\s*$/.test(v)) {
      try { value = JSON.parse(v); } catch { value = v; }
    }
    init.body = JSON.stringify(value);
    headers['content-type'] = 'application/json';
  } else if (runner.body === 'json' && rest.length) {
    init.body = JSON.stringify(Object.fromEntries(rest));
    headers['content-type'] = 'application/json';
  } else if (runner.body === 'form' && rest.length) {
    const form = new URLSearchParams();
    for (const [k, v] of rest) for (const x of Array.isArray(v) ? v : [v]) form.append(k, text(x));
    init.body = form;
  } else if (runner.body === 'multipart' && rest.length) {
    const form = new FormData();
    const files = new Set(runner.files ?? (manifest.inputs ?? []).filter((p) => PATH_TYPES.has(p.type)).map((p) => p.name));
    for (const [k, v] of rest) {
      for (const x of Array.isArray(v) ? v : [v]) {
        if (files.has(k) && typeof x === 'string' && !/^https?:\/\//i.test(x)) {
          form.append(k, await fileBlob(id, k, x), path.basename(x));
          sentFiles.push(x);
        } else form.append(k, text(x));
      }
    }
    init.body = form;
  } else if (runner.body === 'raw') {
    const v = own(values, 'body');
    if (typeof v !== 'string') throw new ProcessArgumentError(`${id}: argument "body" is needed: the file sent as the request (${runner.contentType ?? 'application/octet-stream'})`);
    init.body = await fileBlob(id, 'body', v);
    headers['content-type'] = runner.contentType ?? 'application/octet-stream';
    sentFiles.push(v);
    const others = rest.filter(([k]) => k !== 'body').map(([k]) => k);
    if (others.length) throw new ProcessArgumentError(`${id}: argument "${others[0]}" has no place in the call: the request body is the file "body"`);
  }
  return { url: u.toString(), init, sentFiles };
}

async function fileBlob(id: string, name: string, file: string): Promise<Blob> {
  try {
    if (!fs.statSync(file).isFile()) throw Object.assign(new Error('not a file'), { code: 'a folder, not a file' });
    // Read from disk as the request is sent: a 2 GB scene is not held in memory.
    return await fs.openAsBlob(file);
  } catch (e) {
    throw new ProcessArgumentError(`${id}: argument "${name}": cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); give a file in the workspace`);
  }
}

/** What an answer is, from its media type (and its first bytes where the type says little). */
function answerKind(contentType: string, head: Uint8Array): 'raster' | 'vector' | 'table' | 'json' | undefined {
  const t = contentType.toLowerCase();
  const tiff = head.length >= 4 && ((head[0] === 0x49 && head[1] === 0x49 && (head[2] === 42 || head[2] === 43)) || (head[0] === 0x4d && head[1] === 0x4d && (head[3] === 42 || head[3] === 43)));
  if (/image\/(geo)?tiff|application\/(x-)?geotiff/.test(t) || tiff) return 'raster';
  if (/geo\+json|vnd\.geo\+json/.test(t)) return 'vector';
  if (/text\/csv/.test(t)) return 'table';
  if (/json/.test(t)) return 'json';
  return undefined;
}

/** A failed call's message: FastAPI's `detail` (a list of {loc, msg} for a 422), or the answer's first line. */
export function errorDetail(body: string): string {
  try {
    const j = JSON.parse(body) as Record<string, unknown>;
    const d = j.detail ?? j.message ?? j.error ?? j.title;
    if (Array.isArray(d)) {
      return d.slice(0, 4).map((x) => {
        const o = x as { loc?: unknown[]; msg?: unknown };
        const where = Array.isArray(o.loc) ? o.loc.filter((p) => p !== 'body').join('.') : '';
        return `${where ? `${where}: ` : ''}${typeof o.msg === 'string' ? o.msg : JSON.stringify(x)}`;
      }).join('; ');
    }
    if (typeof d === 'string') return d;
    if (d !== undefined) return JSON.stringify(d).slice(0, 300);
  } catch { /* not JSON */ }
  return body.trim().split('\n')[0].slice(0, 300);
}

function hide(text: string, key: string | undefined): string {
  return key && key.length >= 4 ? text.split(key).join('[redacted]') : text;
}

/** The first `max` bytes of a body as text (the rest is not read). */
async function headText(res: Response, max: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let n = 0;
  while (n < max) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    n += value.byteLength;
  }
  await reader.cancel().catch(() => undefined);
  return Buffer.concat(chunks).subarray(0, max).toString('utf8');
}

/** Counts bytes through a stream and fails it past `max`. */
function byteLimit(max: number, what: string): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.byteLength;
      if (seen > max) done(new Error(`${what} is larger than the ${max} bytes accepted`));
      else done(null, chunk);
    },
  });
}

function staleConnection(e: unknown): boolean {
  const cause = (e as { cause?: { code?: string } }).cause;
  return cause?.code === 'UND_ERR_SOCKET' || cause?.code === 'ECONNRESET';
}

/** Why a call did not reach the service, in words an analyst can act on. */
function reachError(id: string, where: string, e: unknown, signal?: AbortSignal): Error {
  if (signal?.aborted || (e as Error).name === 'AbortError') return new Error(`${id}: cancelled`);
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code ?? (e as NodeJS.ErrnoException).code;
  if (/redirect/i.test(String(cause?.message ?? (e as Error).message))) {
    return new Error(`${id}: ${where} answered with a redirect, which GeoWeave does not follow (it would send the inputs on to another address); put the final address in the manifest's url (an OpenAPI document's servers url)`);
  }
  const what = code === 'ECONNREFUSED' ? 'nothing answers there: is the service running?' : code === 'ENOTFOUND' ? 'the host name is unknown' : code === 'UND_ERR_HEADERS_TIMEOUT' ? 'the service did not answer in time' : (cause?.message ?? (e as Error).message);
  return new Error(`${id}: cannot call ${where} (${code ? `${code}: ` : ''}${what}); the address is the manifest's url (an OpenAPI document's servers url)`);
}

export async function runHttpTool(manifest: ToolManifest, args: Record<string, unknown>, opts: RunOptions, http: HttpRunOptions = {}): Promise<ToolRunResult> {
  const runner = manifest.runner;
  if (!runner || runner.type !== 'http') throw new Error(`${manifest.id} has no http runner`);
  const fetchImpl = http.fetch ?? fetch;
  const cwd = path.resolve(opts.cwd ?? process.cwd());
  const outDir = path.resolve(cwd, opts.outDir);
  const params = (manifest.inputs ?? []).map((p) => p.name);
  const named = Object.fromEntries(Object.entries(args).map(([k, v]) => [aliasOf(k, params) ?? k, v]));
  const values = commandArgs(manifest, named, cwd);
  // The key goes only where the user set it: looked up by the address the call goes to.
  // (An url that is not an address has none: buildRequest names it.)
  const origin = serviceOrigin(runner);
  const keyName = origin ? serviceKeyEnv(origin) : undefined;
  const key = runner.auth && origin && keyName ? ((await http.serviceKey?.(origin)) || process.env[keyName] || undefined) : undefined;
  // Every argument is checked (and every file opened) before anything is sent or created.
  const { url, init, sentFiles } = await buildRequest(manifest, values, key);
  const where = `${runner.method} ${shownUrl(url)}`;
  const record = startRunRecord(manifest, args, values);
  const t0 = record.t0;
  opts.onProgress?.(0, `${where}${sentFiles.length ? ` (sending ${sentFiles.map((f) => path.basename(f)).join(', ')})` : ''}`);
  let staging: RunStaging | undefined;
  try {
    let res: Response;
    try {
      res = await fetchImpl(url, { ...init, redirect: 'error', signal: opts.signal });
    } catch (e) {
      // A kept-alive connection the service closed (it restarted since the last cell ran) fails
      // before the request is read: sent again once on a new connection, as browsers do.
      if (!staleConnection(e) || opts.signal?.aborted) throw reachError(manifest.id, where, e, opts.signal);
      try {
        res = await fetchImpl(url, { ...init, redirect: 'error', signal: opts.signal });
      } catch (e2) {
        throw reachError(manifest.id, where, e2, opts.signal);
      }
    }
    const refused = async (res: Response, where: string): Promise<never> => {
      // A service may quote the key back: it never reaches the message.
      const detail = hide(errorDetail(await headText(res, ERROR_BODY_BYTES).catch(() => '')), key);
      const keyHint = key
        ? ` (the key for ${origin} was refused: set another with "GeoWeave: Set Service Key" or ${keyName})`
        : ` (no key is set for ${origin}: set one with "GeoWeave: Set Service Key" or the environment variable ${keyName}${runner.auth ? '' : ', and say in the manifest how the service takes it (runner.auth, or the OpenAPI document\'s securitySchemes)'})`;
      const hint = res.status === 422 || res.status === 400 ? ' (check the cell\'s arguments)' : res.status === 401 || res.status === 403 ? keyHint : res.status === 404 ? ' (check the manifest\'s url: the OpenAPI document may be older than the service)' : '';
      throw new Error(`${manifest.id}: ${where} answered ${res.status}${res.statusText ? ` ${res.statusText}` : ''}${detail ? `: ${detail}` : ''}${hint}`);
    };
    if (!res.ok) await refused(res, where);
    // A job (202 Accepted, or 201 for a process asked to run as one, with its Location): polled until
    // it ends, and its results are the answer.
    const location = res.headers.get('location');
    let answeredAt = url;
    if (location && (res.status === 202 || (res.status === 201 && runner.async))) {
      await res.body?.cancel().catch(() => undefined);
      answeredAt = new URL(location, url).toString();
      res = await followJob(manifest.id, url, new URL(location, url), init.headers as Record<string, string>, fetchImpl, opts, refused);
    }
    const contentType = res.headers.get('content-type') ?? '';
    const declared = Number(res.headers.get('content-length'));
    opts.onProgress?.(0.5, `${where} answered ${res.status}`);
    const body = res.body ? Readable.fromWeb(res.body as import('stream/web').ReadableStream<Uint8Array>) : Readable.from([]);
    // The first bytes say what a file is when its media type does not ("application/octet-stream").
    const first = await firstBytes(body);
    const kind = answerKind(contentType, first.head);
    const provenance = record.provenance;
    if (kind === 'json' || kind === undefined) {
      if (kind === undefined) {
        first.rest.destroy();
        throw new Error(`${manifest.id}: ${where} answered with ${contentType || 'no media type'}, which GeoWeave cannot show (it reads JSON, GeoTIFF, GeoJSON and CSV answers)`);
      }
      if (Number.isFinite(declared) && declared > MAX_JSON_ANSWER_BYTES) {
        first.rest.destroy();
        throw new Error(`${manifest.id}: ${where} announced a ${declared}-byte JSON answer, more than the ${MAX_JSON_ANSWER_BYTES} bytes accepted`);
      }
      // (A key the service quotes back is not kept in the results.)
      const text = hide(await readAll(first.rest, MAX_JSON_ANSWER_BYTES, `${manifest.id}: the JSON answer of ${where}`), key);
      let answer: unknown;
      try { answer = JSON.parse(text); } catch {
        throw new Error(`${manifest.id}: ${where} answered with ${contentType} that is not valid JSON: ${text.slice(0, 120)}`);
      }
      // GeoJSON sent as plain JSON is still a layer.
      if (isGeoJson(answer)) return await fileAnswer('vector', Readable.from([Buffer.from(text)]));
      // OGC API - Processes results (of an execute request or a job) may give outputs by reference,
      // {"ndvi": {"href": ".../ndvi.tif", "type": "image/tiff"}}: each is fetched into the output folder.
      const refs = runner.body === 'ogc' || answeredAt !== url ? referencedOutputs(answer, res.url || answeredAt) : [];
      if (refs.length) return await referencedAnswer(answer as Record<string, unknown>, refs);
      opts.onProgress?.(1);
      const stats = answer && typeof answer === 'object' && !Array.isArray(answer) ? (answer as Record<string, unknown>) : { answer };
      return { tool: manifest.id, outputs: {}, stats, summary: `${where} answered in ${seconds(Date.now() - t0)}${scalarWords(stats)}.`, provenance: await provenance() };
    }
    if (Number.isFinite(declared) && declared > MAX_FILE_ANSWER_BYTES) {
      first.rest.destroy();
      throw new Error(`${manifest.id}: ${where} announced a ${declared}-byte file, more than the ${MAX_FILE_ANSWER_BYTES} bytes accepted`);
    }
    return await fileAnswer(kind, first.rest);

    /** Outputs given by reference: each fetched (the key only to the service's own address), staged, then moved in together; the other outputs are statistics. */
    async function referencedAnswer(answer: Record<string, unknown>, refs: { name: string; href: URL }[]): Promise<ToolRunResult> {
      staging = await RunStaging.create(outDir);
      const headers: Record<string, string> = { accept: 'image/tiff, application/geo+json, text/csv;q=0.9, */*;q=0.5' };
      const prov = await provenance();
      const outputs: Record<string, OutputRef> = {};
      const sizes: string[] = [];
      let quicklook: string | undefined;
      let rasterStats: Record<string, unknown> | undefined;
      const moved = (f: string) => path.join(outDir, path.basename(f));
      const auth = (runner as HttpRunner).auth;
      for (const { name, href } of refs) {
        const own = href.origin === new URL(url).origin;
        const sent = own ? { ...headers, ...Object.fromEntries(Object.entries(init.headers as Record<string, string>).filter(([k]) => k === auth?.name.toLowerCase())) } : headers;
        const at = `output "${name}" at ${shownUrl(href.toString())}`;
        opts.onProgress?.(0.7, `fetching ${at}`);
        let r: Response;
        try {
          r = await fetchImpl(own && auth?.in === 'query' && key ? withKey(href, auth.name, key) : href, { headers: sent, redirect: 'error', signal: opts.signal });
        } catch (e) {
          throw reachError(manifest.id, at, e, opts.signal);
        }
        if (!r.ok) await refused(r, at);
        const stream = r.body ? Readable.fromWeb(r.body as import('stream/web').ReadableStream<Uint8Array>) : Readable.from([]);
        const got = await firstBytes(stream);
        const k = answerKind(r.headers.get('content-type') ?? '', got.head);
        if (k !== 'raster' && k !== 'vector' && k !== 'table') {
          got.rest.destroy();
          throw new Error(`${manifest.id}: ${at} is ${r.headers.get('content-type') || 'of no media type'}, not a GeoTIFF, GeoJSON or CSV GeoWeave can show`);
        }
        const file = freshName(outDir, `${manifest.id}_${name.replace(/[^A-Za-z0-9_.-]/g, '_')}`, k === 'raster' ? '.tif' : k === 'vector' ? '.geojson' : '.csv');
        const staged = path.join(staging.dir, file);
        await pipeline(got.rest, byteLimit(MAX_FILE_ANSWER_BYTES, `${manifest.id}: ${at}`), fs.createWriteStream(staged), { signal: opts.signal });
        const styled = k === 'raster' ? await finishRasterOutput(staged, prov, opts) : undefined;
        sizes.push(`${file} ${sizeWords(fs.statSync(staged).size)}`);
        if (styled && !quicklook) { quicklook = moved(styled.quicklook); rasterStats = styled.stats; }
        outputs[name] = { path: moved(staged), type: k, ...(styled ? { style: moved(styled.style) } : {}) };
      }
      await staging.commit();
      opts.onProgress?.(1);
      // The outputs given as values: a qualified value ({"value": …}) is its value.
      const values: Record<string, unknown> = Object.fromEntries(Object.entries(answer)
        .filter(([k]) => !refs.some((r) => r.name === k))
        .map(([k, v]) => [k, v && typeof v === 'object' && !Array.isArray(v) && 'value' in v ? (v as { value: unknown }).value : v]));
      return {
        tool: manifest.id, outputs, stats: { ...(rasterStats ?? {}), ...values }, provenance: prov,
        summary: `${where} answered with ${refs.length} file${refs.length > 1 ? 's' : ''} (${sizes.join(', ')}) in ${seconds(Date.now() - t0)}${scalarWords(values)}.`,
        ...(quicklook ? { quicklook } : {}),
      };
    }

    async function fileAnswer(type: OutputRef['type'], stream: Readable): Promise<ToolRunResult> {
      staging = await RunStaging.create(outDir);
      const ext = type === 'raster' ? '.tif' : type === 'vector' ? '.geojson' : '.csv';
      const name = freshName(outDir, manifest.id, ext);
      const staged = path.join(staging.dir, name);
      await pipeline(stream, byteLimit(MAX_FILE_ANSWER_BYTES, `${manifest.id}: the answer of ${where}`), fs.createWriteStream(staged), { signal: opts.signal });
      const bytes = fs.statSync(staged).size;
      const prov = await provenance();
      const styled = type === 'raster' ? await finishRasterOutput(staged, prov, opts) : undefined;
      await staging.commit();
      const moved = (f: string) => path.join(outDir, path.basename(f));
      const out = (manifest.outputs ?? []).find((o) => o.type === type) ?? manifest.outputs?.[0];
      const outputs: Record<string, OutputRef> = {
        [out?.name ?? 'result']: { path: path.join(outDir, name), type, ...(out?.bands ? { roles: out.bands } : {}), ...(styled ? { style: moved(styled.style) } : {}) },
      };
      opts.onProgress?.(1);
      const what = type === 'raster' ? 'a GeoTIFF' : type === 'vector' ? 'GeoJSON' : 'a CSV table';
      return {
        tool: manifest.id, outputs, stats: styled?.stats ?? {}, provenance: prov,
        summary: `${where} answered with ${what} (${sizeWords(bytes)}) in ${seconds(Date.now() - t0)}: ${name}.`,
        ...(styled ? { quicklook: moved(styled.quicklook) } : {}),
      };
    }
  } catch (e) {
    record.stop();
    await staging?.discard();
    if (opts.signal?.aborted) throw new Error(`${manifest.id}: cancelled`);
    throw e;
  }
}

/**
 * The outputs an OGC API - Processes result gives by reference: top-level entries {"href", "type"?}
 * whose address is http(s) (relative ones read against the results' address). At most 20.
 */
function referencedOutputs(answer: unknown, base: string): { name: string; href: URL }[] {
  if (!answer || typeof answer !== 'object' || Array.isArray(answer)) return [];
  const out: { name: string; href: URL }[] = [];
  for (const [name, v] of Object.entries(answer as Record<string, unknown>)) {
    const href = v && typeof v === 'object' && !Array.isArray(v) ? (v as { href?: unknown }).href : undefined;
    // (`__proto__` would name an output that replaces the outputs' prototype: left as a value.)
    if (typeof href !== 'string' || name === '__proto__') continue;
    let u: URL;
    try { u = new URL(href, base); } catch { continue; }
    if (!/^https?:$/.test(u.protocol) || u.username || u.password) continue;
    out.push({ name, href: u });
    if (out.length === 20) break;
  }
  return out;
}

/** `u` with the key in its query (a service that takes it there). */
function withKey(u: URL, name: string, key: string): URL {
  const c = new URL(u);
  c.searchParams.set(name, key);
  return c;
}

/** OGC API - Processes job states that are over. */
const JOB_DONE = new Set(['successful', 'failed', 'dismissed']);

/**
 * Polls a job (OGC API - Processes: {status, message, progress, links}) until it ends, then fetches
 * its results: the link whose rel ends in "/results", else `<job>/results`. Only on the address the
 * call went to: a job elsewhere is refused. Cancelling asks the service to dismiss it (DELETE).
 */
async function followJob(id: string, called: string, job: URL, headers: Record<string, string>, fetchImpl: typeof fetch, opts: RunOptions,
  refused: (res: Response, where: string) => Promise<never>): Promise<Response> {
  const where = `job ${shownUrl(job.toString())}`;
  const origin = new URL(called).origin;
  const get: Record<string, string> = { ...headers, accept: 'application/json' };
  delete get['content-type'];
  delete get.prefer;
  const ask = async (u: URL, accept?: string) => {
    if (u.origin !== origin) throw new Error(`${id}: the service points its job at ${shownUrl(u.toString())}, another address than it was called at; GeoWeave does not follow it`);
    try {
      return await fetchImpl(u, { headers: accept ? { ...get, accept } : get, redirect: 'error', signal: opts.signal });
    } catch (e) {
      throw reachError(id, where, e, opts.signal);
    }
  };
  let delay = 500;
  try {
    for (;;) {
      const res = await ask(job);
      if (!res.ok) await refused(res, where);
      const text = res.body ? await readAll(Readable.fromWeb(res.body as import('stream/web').ReadableStream<Uint8Array>), 1 << 20, `${id}: ${where}`) : '';
      let status: Record<string, unknown>;
      try { status = JSON.parse(text); } catch {
        throw new Error(`${id}: ${where} did not answer with a job status in JSON: ${text.trim().slice(0, 80)}`);
      }
      if (!status || typeof status !== 'object') throw new Error(`${id}: ${where} did not answer with a job status in JSON: ${text.trim().slice(0, 80)}`);
      const state = typeof status.status === 'string' ? status.status : undefined;
      if (!state) throw new Error(`${id}: ${where} answered without a "status"; GeoWeave follows jobs as OGC API - Processes describes them (accepted, running, successful, failed, dismissed)`);
      const progress = typeof status.progress === 'number' ? Math.max(0, Math.min(100, status.progress)) / 100 : undefined;
      opts.onProgress?.(0.1 + 0.6 * (progress ?? 0), `${where}: ${state}${progress !== undefined ? ` ${Math.round(progress * 100)} %` : ''}`);
      if (state === 'successful') {
        const links = Array.isArray(status.links) ? status.links as { rel?: unknown; href?: unknown }[] : [];
        const link = links.find((l) => typeof l.rel === 'string' && /(^|\/)results$/.test(l.rel) && typeof l.href === 'string');
        const results = new URL(typeof link?.href === 'string' ? link.href : `${job.pathname.replace(/\/+$/, '')}/results`, job);
        const answer = await ask(results, 'application/json, image/tiff, application/geo+json, text/csv;q=0.9, */*;q=0.5');
        if (!answer.ok) await refused(answer, `results ${shownUrl(results.toString())}`);
        return answer;
      }
      if (JOB_DONE.has(state)) throw new Error(`${id}: ${where} ${state}${typeof status.message === 'string' && status.message ? `: ${status.message.slice(0, 300)}` : ''}`);
      await sleep(delay, opts.signal);
      delay = Math.min(5000, delay * 1.5);
    }
  } catch (e) {
    if (opts.signal?.aborted) {
      // Best effort: the service may stop the job (OGC's dismiss); nothing waits for it.
      void fetchImpl(job, { method: 'DELETE', headers: get, redirect: 'error' }).then((r) => r.body?.cancel(), () => undefined);
    }
    throw e;
  }
}

/** The stream's first bytes, and a stream that still yields all of it. */
async function firstBytes(body: Readable): Promise<{ head: Uint8Array; rest: Readable }> {
  const it = body[Symbol.asyncIterator]();
  const step = await it.next();
  const head: Buffer = step.done ? Buffer.alloc(0) : Buffer.from(step.value as Uint8Array);
  async function* all() {
    if (head.length) yield head;
    for (let s = await it.next(); !s.done; s = await it.next()) yield s.value as Uint8Array;
  }
  const rest = Readable.from(all());
  rest.on('close', () => { if (!body.destroyed) body.destroy(); });
  return { head, rest };
}

async function readAll(stream: Readable, max: number, what: string): Promise<string> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const c of stream) {
    n += (c as Buffer).byteLength;
    if (n > max) {
      stream.destroy();
      throw new Error(`${what} is larger than the ${max} bytes accepted`);
    }
    chunks.push(Buffer.from(c as Uint8Array));
  }
  return Buffer.concat(chunks).toString('utf8');
}

function isGeoJson(v: unknown): boolean {
  return !!v && typeof v === 'object' && !Array.isArray(v) && ['FeatureCollection', 'Feature'].includes((v as { type?: unknown }).type as string);
}



function sizeWords(n: number): string {
  return n < 1024 ? `${n} bytes` : n < 1024 ** 2 ? `${(n / 1024).toFixed(0)} KB` : `${(n / 1024 ** 2).toFixed(1)} MB`;
}
