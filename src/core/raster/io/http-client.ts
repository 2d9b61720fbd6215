/**
 * HTTP range reads for remote rasters (Cloud-Optimized GeoTIFFs), as a geotiff.js client. A
 * server that never answers, drips bytes, redirects in circles, answers 5xx or sends garbage ends
 * in bounded time with an error naming the status and the URL (credentials redacted):
 * - connect timeout (until the TCP connection is up), idle timeout (no byte for that long) and a
 *   whole-request deadline (a server dripping one byte a second never goes idle);
 * - retries with exponential backoff for 5xx, 429 and dropped connections, none for timeouts;
 * - at most `maxRedirects` redirects, http(s) only;
 * - a range answer must be a 206 for the bytes asked for, and no longer.
 * Options come from the environment (GEOWEAVE_HTTP_*), so raster worker threads see the same ones.
 */
import * as http from 'http';
import * as https from 'https';
import { redactUrl } from '../../net/redact';

export interface HttpOptions {
  /** Until the connection is up (DNS and TCP). */
  connectTimeoutMs: number;
  /** Longest silence while waiting for the answer or its body. */
  idleTimeoutMs: number;
  /** Whole request, from connecting to the last byte. */
  requestTimeoutMs: number;
  /** Further attempts after a 5xx, 429 or dropped connection. */
  retries: number;
  maxRedirects: number;
  /** First backoff delay; doubles with each retry. */
  retryDelayMs: number;
}

export const DEFAULT_HTTP: HttpOptions = { connectTimeoutMs: 10_000, idleTimeoutMs: 30_000, requestTimeoutMs: 120_000, retries: 3, maxRedirects: 5, retryDelayMs: 500 };

/** Environment variables carrying the options (timeouts in seconds). */
export const HTTP_ENV = {
  connectTimeoutMs: 'GEOWEAVE_HTTP_CONNECT_TIMEOUT',
  idleTimeoutMs: 'GEOWEAVE_HTTP_IDLE_TIMEOUT',
  requestTimeoutMs: 'GEOWEAVE_HTTP_TIMEOUT',
  retries: 'GEOWEAVE_HTTP_RETRIES',
} as const;

/** The options in effect: the environment over the defaults (malformed values are ignored). */
export function httpOptions(env: NodeJS.ProcessEnv = process.env): HttpOptions {
  const o = { ...DEFAULT_HTTP };
  for (const [k, name] of Object.entries(HTTP_ENV) as [keyof typeof HTTP_ENV, string][]) {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') continue;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < 0) continue;
    o[k] = k === 'retries' ? Math.min(10, Math.floor(n)) : Math.max(1, Math.round(n * 1000));
  }
  return o;
}

/**
 * Sets options for this process and the worker threads it starts (through the environment, which a
 * worker copies when it starts). Timeouts in seconds; undefined leaves a value as it is.
 */
export function setHttpOptions(o: { connectTimeoutSeconds?: number; idleTimeoutSeconds?: number; timeoutSeconds?: number; retries?: number }): void {
  const set = (name: string, v: number | undefined) => {
    if (v === undefined) return;
    if (!Number.isFinite(v) || v < 0) throw new Error(`${name} must be a number >= 0, got ${v}`);
    process.env[name] = String(v);
  };
  set(HTTP_ENV.connectTimeoutMs, o.connectTimeoutSeconds);
  set(HTTP_ENV.idleTimeoutMs, o.idleTimeoutSeconds);
  set(HTTP_ENV.requestTimeoutMs, o.timeoutSeconds);
  set(HTTP_ENV.retries, o.retries);
}

/** A failed HTTP read; the message names the URL without credentials. */
export class HttpError extends Error {
  constructor(message: string, readonly retryable: boolean, readonly status?: number, readonly retryAfterMs?: number) {
    super(message);
  }
}

/** A whole-document GET whose body is larger than the caller reads (`request`'s `maxBytes`). */
export class HttpTooLargeError extends HttpError {
  constructor(message: string, readonly maxBytes: number, status?: number) {
    super(message, false, status);
  }
}

/** Connection errors worth another attempt: the peer dropped or reset the connection. */
const RETRY_CODES = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'ECONNABORTED']);
/** Without a Range header (geotiff always sends one) a body is still bounded. */
const MAX_BODY_BYTES = 256 << 20;

/** A buffered response, in the shape geotiff.js's RemoteSource reads. */
class RangeResponse {
  constructor(readonly status: number, private readonly headers: http.IncomingHttpHeaders, private readonly data: ArrayBuffer) {}
  get ok(): boolean { return this.status >= 200 && this.status <= 299; }
  getHeader(name: string): string | undefined {
    const v = this.headers[name.toLowerCase()];
    return Array.isArray(v) ? v.join(', ') : v;
  }
  async getData(): Promise<ArrayBuffer> { return this.data; }
}

type Hop = { response: RangeResponse } | { redirect: URL; permanent: boolean };

/** geotiff.js client for one URL (see `openRemoteTiff`). */
export class HttpRangeClient {
  private current: URL;
  /** The URL as messages show it. */
  readonly display: string;

  constructor(readonly url: string, private readonly opts: HttpOptions = httpOptions()) {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      throw new HttpError(`${redactUrl(url)} is not a valid URL`, false);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new HttpError(`${redactUrl(url)}: only http and https URLs are read`, false);
    this.current = u;
    this.display = redactUrl(url);
  }

  /** A GET of the URL; `maxBytes` bounds a body asked for without a Range header (HttpTooLargeError past it). */
  async request({ headers = {}, signal, maxBytes = MAX_BODY_BYTES }: { headers?: Record<string, string>; signal?: AbortSignal; maxBytes?: number } = {}): Promise<RangeResponse> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.follow(headers, maxBytes, signal);
      } catch (e) {
        if (!(e instanceof HttpError) || !e.retryable || attempt >= this.opts.retries || signal?.aborted) {
          if (e instanceof HttpError && attempt > 0) e.message += ` (after ${attempt + 1} attempts)`;
          throw e;
        }
        const backoff = this.opts.retryDelayMs * 2 ** attempt * (0.75 + Math.random() / 2);
        await sleep(Math.max(backoff, Math.min(e.retryAfterMs ?? 0, 10_000)), signal);
      }
    }
  }

  private async follow(headers: Record<string, string>, maxBytes: number, signal?: AbortSignal): Promise<RangeResponse> {
    let url = this.current;
    for (let hop = 0; ; hop++) {
      const r = await this.once(url, headers, maxBytes, signal);
      if ('response' in r) return r.response;
      if (hop >= this.opts.maxRedirects) throw new HttpError(`${this.display} redirects more than ${this.opts.maxRedirects} times (last to ${redactUrl(r.redirect.href)})`, false);
      // Range reads repeat many times: a permanent move is remembered.
      if (r.permanent && url === this.current) this.current = r.redirect;
      url = r.redirect;
    }
  }

  private once(url: URL, headers: Record<string, string>, maxBytes: number, signal?: AbortSignal): Promise<Hop> {
    const o = this.opts;
    const shown = redactUrl(url.href);
    const want = rangeOf(headers);
    return new Promise<Hop>((resolve, reject) => {
      if (signal?.aborted) return reject(abortError(signal));
      let done = false;
      const timers: NodeJS.Timeout[] = [];
      const finish = (err: Error | undefined, value?: Hop) => {
        if (done) return;
        done = true;
        for (const t of timers) clearTimeout(t);
        signal?.removeEventListener('abort', onAbort);
        if (err) {
          req.destroy();
          reject(err);
        } else resolve(value!);
      };
      const mod = url.protocol === 'https:' ? https : http;
      const req = mod.request(url, { method: 'GET', headers: { ...headers, 'accept-encoding': 'identity', 'user-agent': 'GeoWeave' } });
      const onAbort = () => finish(abortError(signal!));
      signal?.addEventListener('abort', onAbort, { once: true });
      timers.push(setTimeout(() => finish(new HttpError(`${shown} did not finish answering within ${seconds(o.requestTimeoutMs)} (raise GEOWEAVE_HTTP_TIMEOUT or geoweave.http.timeoutSeconds for slow links)`, false)), o.requestTimeoutMs));
      req.setTimeout(o.idleTimeoutMs, () => finish(new HttpError(`${shown} sent nothing for ${seconds(o.idleTimeoutMs)}`, false)));
      req.on('socket', (socket) => {
        if (!socket.connecting) return;
        const t = setTimeout(() => finish(new HttpError(`no connection to ${shown} within ${seconds(o.connectTimeoutMs)}`, false)), o.connectTimeoutMs);
        timers.push(t);
        socket.once('connect', () => clearTimeout(t));
      });
      req.on('error', (e) => finish(connectionError(e, shown)));
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        const location = res.headers.location;
        if (status >= 300 && status < 400 && location) {
          res.resume();
          let next: URL;
          try {
            next = new URL(location, url);
          } catch {
            return finish(new HttpError(`${shown} redirects to an invalid URL`, false));
          }
          if (next.protocol !== 'http:' && next.protocol !== 'https:') return finish(new HttpError(`${shown} redirects to a ${next.protocol} URL; only http and https are followed`, false));
          return finish(undefined, { redirect: next, permanent: status === 301 || status === 308 });
        }
        if (status < 200 || status > 299) {
          const retryable = status >= 500 || status === 429 || status === 408;
          const after = Number(res.headers['retry-after']);
          return finish(new HttpError(`HTTP ${status}${res.statusMessage ? ` ${res.statusMessage}` : ''} from ${shown}`, retryable, status, Number.isFinite(after) ? after * 1000 : undefined));
        }
        let limit = maxBytes;
        if (want) {
          if (status !== 206) return finish(new HttpError(`${shown} ignores range requests (HTTP ${status} to one); remote rasters are read with range requests only`, false, status));
          const cr = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(String(res.headers['content-range'] ?? '').trim());
          const start = cr ? Number(cr[1]) : NaN;
          const end = cr ? Number(cr[2]) : NaN;
          if (!cr || start !== want.start || end < start || (want.end !== undefined && end > want.end)) {
            return finish(new HttpError(`${shown} answered bytes ${want.start}-${want.end ?? ''} with Content-Range "${String(res.headers['content-range'] ?? '')}"`, false, status));
          }
          limit = end - start + 1;
        }
        const declared = Number(res.headers['content-length']);
        const tooLarge = (size?: number) => new HttpTooLargeError(size === undefined ? `${shown} sends more than the ${limit} bytes read` : `${shown} has ${size} bytes, more than the ${limit} read`, limit, status);
        if (Number.isFinite(declared) && declared > limit) return finish(want ? new HttpError(`${shown} announces ${declared} bytes for a range of ${limit}`, false, status) : tooLarge(declared));
        const chunks: Buffer[] = [];
        let received = 0;
        res.on('data', (c: Buffer) => {
          received += c.length;
          if (received > limit) finish(want ? new HttpError(`${shown} sent more than the ${limit} bytes asked for`, false, status) : tooLarge());
          else chunks.push(c);
        });
        res.on('error', (e) => finish(connectionError(e, shown)));
        res.on('close', () => finish(new HttpError(`${shown} closed the connection in the middle of an answer`, true, status)));
        res.on('end', () => {
          if (!res.complete) return finish(new HttpError(`${shown} closed the connection in the middle of an answer`, true, status));
          if (want && received !== limit) return finish(new HttpError(`${shown} sent ${received} of the ${limit} bytes it announced`, true, status));
          const body = Buffer.concat(chunks, received);
          // A copy: a small Buffer may be a view into a shared pool.
          const data = body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer;
          finish(undefined, { response: new RangeResponse(status, res.headers, data) });
        });
      });
      req.end();
    });
  }
}

/** Opens a remote GeoTIFF through `HttpRangeClient` (range requests only). */
export async function openRemoteTiff(url: string, signal?: AbortSignal): Promise<unknown> {
  const client = new HttpRangeClient(url);
  const { fromCustomClient } = await import('geotiff');
  // geotiff.js only calls `request`; the cast spares a dependency on its client base class.
  return fromCustomClient(client as never, { allowFullFile: false }, signal);
}

function rangeOf(headers: Record<string, string>): { start: number; end?: number } | undefined {
  const raw = Object.entries(headers).find(([k]) => k.toLowerCase() === 'range')?.[1];
  const m = raw ? /^bytes=(\d+)-(\d*)$/.exec(raw.trim()) : null;
  return m ? { start: Number(m[1]), end: m[2] ? Number(m[2]) : undefined } : undefined;
}

function connectionError(e: Error, shown: string): Error {
  if (e instanceof HttpError || e.name === 'AbortError') return e;
  const code = (e as NodeJS.ErrnoException).code ?? '';
  if (code.startsWith('HPE_')) return new HttpError(`${shown} sent an answer that is not valid HTTP (${code})`, false);
  return new HttpError(`cannot read ${shown}: ${code || e.message}`, RETRY_CODES.has(code));
}

function abortError(signal: AbortSignal): Error {
  if (signal.reason instanceof Error) return signal.reason;
  const e = new Error('the read was cancelled');
  e.name = 'AbortError';
  return e;
}

/** Waits `ms`; rejects at once when `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const t = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
    const onAbort = () => { clearTimeout(t); reject(abortError(signal!)); };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}
