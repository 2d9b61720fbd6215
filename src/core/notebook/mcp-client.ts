/**
 * A Model Context Protocol client: starts a server as its configuration says and speaks JSON-RPC
 * 2.0 one message per line on its stdin/stdout (the stdio transport), posts each message to a
 * server's address and reads the answer as JSON or as an event stream (the Streamable HTTP
 * transport), or, for servers on the older HTTP+SSE transport, opens their event stream and posts to
 * the address it names; initializes, lists tools and calls them. A stdio server's stderr is kept (its last
 * lines) for the messages of a failed start or call.
 *
 * Everything a server sends is bounded: a line longer than MAX_MESSAGE_BYTES ends the session, a
 * request GeoWeave does not serve (sampling, elicitation) is answered "method not found", and a
 * cancelled call is announced to the server (notifications/cancelled) before the process is stopped.
 */
import { spawn, ChildProcess } from 'child_process';
import { StringDecoder } from 'string_decoder';

/** The newest protocol revision spoken; a server may answer with an older one, which is accepted. */
export const MCP_PROTOCOL = '2025-06-18';
/** A message (one line) larger than this ends the session: a tool's answer is statistics and links, not data. */
export const MAX_MESSAGE_BYTES = 64 << 20;
/** How long a server may take to start and answer `initialize`. */
export const START_TIMEOUT_MS = 30_000;
/** How long a server on the HTTP+SSE transport may take, from the request for its stream, to name where messages go. */
export const ENDPOINT_TIMEOUT_MS = 10_000;
const STDERR_KEEP = 4000;

/** How to start a server (resolved from a configuration: see mcp-config.ts). */
export interface McpLaunch {
  /** The server's name in its configuration, for messages. */
  name: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

/** A server reached over HTTP: its endpoint and the headers each request carries. */
export interface McpEndpoint {
  name: string;
  url: string;
  headers: Record<string, string>;
  /**
   * The older HTTP+SSE transport (protocol 2024-11-05, `"type": "sse"`): `url` is the event
   * stream's. Without it Streamable HTTP is spoken, and a server that refuses it (400, 404 or 405
   * to the first POST) is tried on the older transport, as the specification's compatibility rule says.
   */
  sse?: boolean;
}

/** A tool as `tools/list` describes it. */
export interface McpToolInfo { name: string; title?: string; description?: string; inputSchema?: unknown; outputSchema?: unknown; annotations?: unknown }

/** One item of a tool's answer (`content`). */
export type McpContent =
  | { type: 'text'; text: string }
  | { type: 'image' | 'audio'; data: string; mimeType: string }
  | { type: 'resource'; resource: { uri: string; mimeType?: string; text?: string; blob?: string } }
  | { type: 'resource_link'; uri: string; name?: string; mimeType?: string };

export interface McpCallResult { content: McpContent[]; structuredContent?: Record<string, unknown>; isError?: boolean }

interface Pending { resolve: (v: unknown) => void; reject: (e: Error) => void; onProgress?: (p: number | undefined, message?: string) => void }

export class McpError extends Error {}

/** Where the client's messages go and how the session ends; the client is told what arrives. */
interface Transport {
  send(msg: Record<string, unknown>): void;
  /** Ends the session gently (stdin closed, or DELETE on the session). */
  close(): void;
  /** Stops it at once (after a failure). */
  kill(): void;
  /** What the server said besides its messages (stderr), for error messages. */
  tail(): string;
  /** What it is, for "is … an MCP server?". */
  readonly what: string;
}

interface Sink { receive(msg: unknown): void; fail(e: Error): void; closed(): boolean }

export class McpClient {
  private readonly pending = new Map<number, Pending>();
  private readonly progress = new Map<string, number>();
  private nextId = 1;
  private closedBy: Error | undefined;
  private readonly transport: Transport;
  /** What the server said it is (`initialize`'s serverInfo), for messages. */
  serverInfo: { name?: string; version?: string } = {};

  private constructor(readonly name: string, make: (sink: Sink) => Transport) {
    this.transport = make({ receive: (m) => this.receive(m), fail: (e) => this.fail(e), closed: () => !!this.closedBy });
  }

  /** Starts the server (or opens a session with it) and completes the initialize handshake, or fails naming the server and what it said. */
  static async start(launch: McpLaunch | McpEndpoint, opts: { signal?: AbortSignal; timeoutMs?: number; clientVersion?: string } = {}): Promise<McpClient> {
    opts.signal?.throwIfAborted();
    const client = new McpClient(launch.name, (sink) => ('url' in launch ? launch.sse ? new SseTransport(launch, sink) : new HttpTransport(launch, sink) : new StdioTransport(launch, sink)));
    try {
      return await client.initialize(opts);
    } catch (e) {
      // A server on the older transport answers a POST to its stream's address 400, 404 or 405.
      if ('url' in launch && !launch.sse && client.transport instanceof HttpTransport && client.transport.refusedPost && !opts.signal?.aborted) {
        try {
          return await McpClient.start({ ...launch, sse: true }, opts);
        } catch (e2) {
          // Not on the older transport either: what Streamable HTTP said is the error (unless cancelled).
          throw opts.signal?.aborted ? e2 : e;
        }
      }
      throw e;
    }
  }

  private async initialize(opts: { signal?: AbortSignal; timeoutMs?: number; clientVersion?: string }): Promise<McpClient> {
    const timeout = opts.timeoutMs ?? START_TIMEOUT_MS;
    const timer = setTimeout(() => this.fail(new McpError(`the MCP server "${this.name}" did not answer "initialize" within ${timeout / 1000} s${this.transport.tail()}`)), timeout);
    try {
      const init = await this.request('initialize', {
        protocolVersion: MCP_PROTOCOL,
        capabilities: {},
        clientInfo: { name: 'GeoWeave', version: opts.clientVersion ?? '0' },
      }, { signal: opts.signal }) as { protocolVersion?: unknown; serverInfo?: { name?: string; version?: string } };
      if (typeof init?.protocolVersion !== 'string') throw new McpError(`the MCP server "${this.name}" answered "initialize" without a protocolVersion; is ${this.transport.what} an MCP server?`);
      this.serverInfo = init.serverInfo ?? {};
      if (this.transport instanceof HttpTransport) this.transport.protocol = init.protocolVersion;
      this.notify('notifications/initialized');
      return this;
    } catch (e) {
      this.close();
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Whether the session still runs (a pool reuses only live sessions). */
  get alive(): boolean {
    return !this.closedBy;
  }

  /** Every tool of the server (`tools/list`, following its pages), at most `max`. */
  async listTools(opts: { signal?: AbortSignal; max?: number } = {}): Promise<McpToolInfo[]> {
    const out: McpToolInfo[] = [];
    let cursor: string | undefined;
    const seen = new Set<string>();
    do {
      const page = await this.request('tools/list', cursor ? { cursor } : {}, { signal: opts.signal }) as { tools?: unknown; nextCursor?: unknown };
      if (!Array.isArray(page?.tools)) throw new McpError(`the MCP server "${this.name}" answered "tools/list" without a list of tools`);
      for (const t of page.tools) if (t && typeof t === 'object' && typeof (t as McpToolInfo).name === 'string') out.push(t as McpToolInfo);
      cursor = typeof page.nextCursor === 'string' && page.nextCursor ? page.nextCursor : undefined;
      // A server that hands back a cursor it gave before would page forever.
      if (cursor && seen.has(cursor)) break;
      if (cursor) seen.add(cursor);
    } while (cursor && out.length < (opts.max ?? Infinity));
    return out.slice(0, opts.max ?? Infinity);
  }

  /** Calls a tool; progress notifications reach `onProgress` (0..1 when the server gives a total). */
  async callTool(name: string, args: Record<string, unknown>, opts: { signal?: AbortSignal; onProgress?: (p: number | undefined, message?: string) => void } = {}): Promise<McpCallResult> {
    const token = `gw-${this.nextId}`;
    const res = await this.request('tools/call', { name, arguments: args, _meta: { progressToken: token } }, { signal: opts.signal, onProgress: opts.onProgress, progressToken: token }) as McpCallResult;
    if (!res || !Array.isArray(res.content)) throw new McpError(`the MCP server "${this.name}" answered the call of "${name}" without content`);
    return res;
  }

  /** Ends the session: a stdio server's stdin is closed (then SIGTERM, then SIGKILL); an HTTP session is deleted. */
  close(): void {
    if (this.closedBy) return;
    this.settleAll(new McpError(`the session with the MCP server "${this.name}" was closed`));
    this.transport.close();
  }

  private notify(method: string, params?: Record<string, unknown>): void {
    if (!this.closedBy) this.transport.send({ jsonrpc: '2.0', method, ...(params ? { params } : {}) });
  }

  private request(method: string, params: Record<string, unknown>, opts: { signal?: AbortSignal; onProgress?: Pending['onProgress']; progressToken?: string } = {}): Promise<unknown> {
    if (this.closedBy) return Promise.reject(this.closedBy);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const abort = () => {
        // The server is told, so it can stop its work; the caller does not wait for it.
        this.notify('notifications/cancelled', { requestId: id, reason: 'cancelled in GeoWeave' });
        settle();
        const e = new Error('cancelled');
        e.name = 'AbortError';
        reject(e);
      };
      const settle = () => {
        this.pending.delete(id);
        if (opts.progressToken) this.progress.delete(opts.progressToken);
        opts.signal?.removeEventListener('abort', abort);
      };
      if (opts.signal?.aborted) return abort();
      opts.signal?.addEventListener('abort', abort, { once: true });
      this.pending.set(id, {
        resolve: (v) => { settle(); resolve(v); },
        reject: (e) => { settle(); reject(e); },
        onProgress: opts.onProgress,
      });
      if (opts.progressToken) this.progress.set(opts.progressToken, id);
      this.transport.send({ jsonrpc: '2.0', id, method, params });
    });
  }

  /** One message from the server (parsed by the transport). */
  private receive(raw: unknown): void {
    if (this.closedBy || !raw || typeof raw !== 'object' || Array.isArray(raw)) return;
    const msg = raw as Record<string, unknown>;
    const id = msg.id;
    if (typeof msg.method === 'string') {
      if (id !== undefined && id !== null) {
        // A request from the server: answered, so it never waits on GeoWeave.
        if (msg.method === 'ping') this.transport.send({ jsonrpc: '2.0', id, result: {} });
        else this.transport.send({ jsonrpc: '2.0', id, error: { code: -32601, message: `GeoWeave does not serve "${msg.method}"` } });
        return;
      }
      if (msg.method === 'notifications/progress') {
        const p = (msg.params ?? {}) as { progressToken?: unknown; progress?: unknown; total?: unknown; message?: unknown };
        const pend = this.pending.get(this.progress.get(String(p.progressToken)) ?? -1);
        if (pend?.onProgress && typeof p.progress === 'number') {
          const total = typeof p.total === 'number' && p.total > 0 ? p.total : undefined;
          pend.onProgress(total ? Math.max(0, Math.min(1, p.progress / total)) : undefined, typeof p.message === 'string' ? p.message.slice(0, 200) : undefined);
        }
      }
      return;
    }
    if (typeof id !== 'number') return;
    const pend = this.pending.get(id);
    if (!pend) return;
    if (msg.error && typeof msg.error === 'object') {
      const err = msg.error as { code?: unknown; message?: unknown };
      pend.reject(new McpError(`the MCP server "${this.name}" refused: ${typeof err.message === 'string' ? err.message.slice(0, 500) : 'no message'}${typeof err.code === 'number' ? ` (code ${err.code})` : ''}`));
    } else pend.resolve(msg.result);
  }

  /** The session failed: every pending request ends with `e`, and the transport is stopped. */
  private fail(e: Error): void {
    if (this.closedBy) return;
    this.settleAll(e);
    this.transport.kill();
  }

  private settleAll(e: Error): void {
    this.closedBy = e;
    for (const p of [...this.pending.values()]) p.reject(e);
    this.pending.clear();
    this.progress.clear();
  }
}

/** A server started as a command: one JSON message per line on its stdin and stdout. */
class StdioTransport implements Transport {
  private readonly child: ChildProcess;
  private stderr = '';
  readonly what: string;

  constructor(private readonly launch: McpLaunch, sink: Sink) {
    this.what = `"${launch.command}"`;
    const child = this.child = spawn(launch.command, launch.args, { cwd: launch.cwd, env: launch.env, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
    const decoder = new StringDecoder('utf8');
    // The pieces of a line still arriving: only new data is searched for its end (a long message
    // arrives in thousands of chunks, and searching all of it each time is quadratic).
    let parts: string[] = [];
    let size = 0;
    const line = (text: string) => {
      if (!text) return;
      let msg: unknown;
      try {
        msg = JSON.parse(text);
      } catch {
        // A server that prints to stdout breaks the transport; its line is kept for the message.
        this.stderr = (this.stderr + `\n(stdout) ${text.slice(0, 200)}`).slice(-STDERR_KEEP);
        return;
      }
      sink.receive(msg);
    };
    child.stdout!.on('data', (d: Buffer) => {
      if (sink.closed()) return;
      let s = decoder.write(d);
      let nl: number;
      while ((nl = s.indexOf('\n')) >= 0) {
        const text = (parts.length ? parts.join('') + s.slice(0, nl) : s.slice(0, nl)).trim();
        parts = [];
        size = 0;
        s = s.slice(nl + 1);
        line(text);
        if (sink.closed()) return;
      }
      parts.push(s);
      size += s.length;
      if (size > MAX_MESSAGE_BYTES) {
        parts = [];
        size = 0;
        sink.fail(new McpError(`the MCP server "${launch.name}" sent a message larger than ${MAX_MESSAGE_BYTES >> 20} MB; the session was ended`));
      }
    });
    child.stderr!.on('data', (d: Buffer) => { this.stderr = (this.stderr + d.toString()).slice(-STDERR_KEEP); });
    child.on('error', (e: NodeJS.ErrnoException) => {
      sink.fail(new McpError(e.code === 'ENOENT'
        ? `the MCP server "${launch.name}" could not start: command "${launch.command}" was not found (check "command" in its configuration, or install it)`
        : `the MCP server "${launch.name}" could not start: ${e.message}`));
    });
    child.on('close', (code, sig) => {
      sink.fail(new McpError(`the MCP server "${launch.name}" ${code === null ? `was stopped by ${sig}` : `exited with code ${code}`}${this.tail()}`));
    });
    child.stdin!.on('error', () => undefined);
  }

  send(msg: Record<string, unknown>): void {
    if (this.running()) this.child.stdin!.write(JSON.stringify(msg) + '\n');
  }

  close(): void {
    const c = this.child;
    if (!this.running()) return;
    c.stdin?.end();
    const term = setTimeout(() => { if (this.running()) c.kill('SIGTERM'); }, 500);
    const kill = setTimeout(() => { if (this.running()) c.kill('SIGKILL'); }, 2500);
    term.unref();
    kill.unref();
    c.once('close', () => { clearTimeout(term); clearTimeout(kill); });
  }

  kill(): void {
    if (this.running()) this.child.kill('SIGKILL');
  }

  tail(): string {
    const lines = this.stderr.trim().split('\n').filter(Boolean).slice(-3).join(' | ');
    return lines ? `: ${lines.slice(-600)}` : '';
  }

  private running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }
}

/**
 * A server at an address (Streamable HTTP): each message is POSTed; a request's answer comes as
 * JSON or as an event stream that may carry the server's notifications and requests first. The
 * session id the server gives at `initialize` goes with every later message, and ending the
 * session DELETEs it. Redirects are not followed (the headers may hold a key).
 */
class HttpTransport implements Transport {
  private session: string | undefined;
  /** The protocol revision agreed at `initialize`, sent with every later message. */
  protocol: string | undefined;
  /** `initialize` was answered 400, 404 or 405: perhaps a server on the older HTTP+SSE transport. */
  refusedPost = false;
  private readonly stop = new AbortController();
  readonly what: string;

  constructor(private readonly ep: McpEndpoint, private readonly sink: Sink) {
    this.what = ep.url;
  }

  send(msg: Record<string, unknown>): void {
    void this.post(msg).catch((e: unknown) => {
      if (this.stop.signal.aborted || this.sink.closed()) return;
      const err = new McpError(`cannot reach the MCP server "${this.ep.name}" at ${this.ep.url} (${reasonOf(e)})`);
      // A request fails alone (the next may go through); a lost notification is not worth a session.
      if (typeof msg.id === 'number' && typeof msg.method === 'string') this.sink.receive({ jsonrpc: '2.0', id: msg.id, error: { message: err.message.replace(/^the MCP server "[^"]*" /, '') } });
    });
  }

  private async post(msg: Record<string, unknown>): Promise<void> {
    const headers: Record<string, string> = {
      ...this.ep.headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(this.session ? { 'mcp-session-id': this.session } : {}),
      ...(this.protocol ? { 'mcp-protocol-version': this.protocol } : {}),
    };
    const res = await fetch(this.ep.url, { method: 'POST', headers, body: JSON.stringify(msg), redirect: 'error', signal: this.stop.signal });
    const sid = res.headers.get('mcp-session-id');
    if (sid && msg.method === 'initialize') this.session = sid.slice(0, 1024);
    const isRequest = typeof msg.id === 'number' && typeof msg.method === 'string';
    if (!res.ok) {
      const text = (await readCapped(res, 8192).catch(() => '')).replace(/\s+/g, ' ').trim();
      await res.body?.cancel().catch(() => undefined);
      if (res.status === 404 && this.session) return this.sink.fail(new McpError(`the MCP server "${this.ep.name}" no longer knows this session (404); run the cell again to start a new one`));
      if (msg.method === 'initialize' && (res.status === 400 || res.status === 404 || res.status === 405)) this.refusedPost = true;
      if (isRequest) this.sink.receive({ jsonrpc: '2.0', id: msg.id, error: { message: `answered ${res.status}${res.statusText ? ` ${res.statusText}` : ''}${text ? `: ${text.slice(0, 300)}` : ''}${authHint(res.status)}` } });
      return;
    }
    const type = res.headers.get('content-type') ?? '';
    if (res.status === 202 || !res.body) return;
    if (/text\/event-stream/i.test(type)) return this.events(res);
    if (/json/i.test(type)) {
      let text: string;
      try {
        text = await readCapped(res, MAX_MESSAGE_BYTES);
      } catch (e) {
        if (e instanceof McpError) return this.sink.fail(new McpError(`the MCP server "${this.ep.name}" sent ${e.message}; the session was ended`));
        throw e;
      }
      let parsed: unknown;
      try { parsed = JSON.parse(text); } catch {
        if (isRequest) this.sink.receive({ jsonrpc: '2.0', id: msg.id, error: { message: `answered with JSON that does not parse: ${text.slice(0, 120)}` } });
        return;
      }
      for (const m of Array.isArray(parsed) ? parsed : [parsed]) this.sink.receive(m);
      return;
    }
    await res.body.cancel().catch(() => undefined);
    if (isRequest) this.sink.receive({ jsonrpc: '2.0', id: msg.id, error: { message: `answered with ${type || 'no media type'}, not JSON or an event stream; is ${this.ep.url} an MCP endpoint?` } });
  }

  /** An event stream: each event's data is one message. */
  private async events(res: Response): Promise<void> {
    const end = await readEvents(res, () => this.sink.closed(), (_name, data) => {
      try { this.sink.receive(JSON.parse(data)); } catch { /* not a message: skipped */ }
    });
    if (end === 'too large') this.sink.fail(new McpError(`the MCP server "${this.ep.name}" sent a message larger than ${MAX_MESSAGE_BYTES >> 20} MB; the session was ended`));
  }

  close(): void {
    const session = this.session;
    this.stop.abort();
    // Ending the session frees what the server keeps for it; nobody waits for the answer.
    if (session) void fetch(this.ep.url, { method: 'DELETE', headers: { ...this.ep.headers, 'mcp-session-id': session }, redirect: 'error', signal: AbortSignal.timeout(5000) }).then((r) => r.body?.cancel(), () => undefined);
  }

  kill(): void {
    this.stop.abort();
  }

  tail(): string {
    return '';
  }
}

/**
 * A server on the older HTTP+SSE transport (protocol 2024-11-05; many deployed servers still speak
 * only it): one event stream is opened with GET, its "endpoint" event names where to POST messages,
 * and every answer comes back on the stream. The POST address must be on the stream's own origin, so
 * a server cannot have the key its headers carry sent elsewhere; redirects are not followed.
 */
class SseTransport implements Transport {
  private readonly stop = new AbortController();
  private readonly postTo: Promise<string>;
  readonly what: string;

  constructor(private readonly ep: McpEndpoint, private readonly sink: Sink) {
    this.what = ep.url;
    let found: (url: string) => void = () => undefined;
    this.postTo = new Promise<string>((resolve) => { found = resolve; });
    void this.listen(found).catch((e: unknown) => {
      if (this.stop.signal.aborted || sink.closed()) return;
      sink.fail(e instanceof McpError ? e : new McpError(`cannot reach the MCP server "${ep.name}" at ${ep.url} (${reasonOf(e)})`));
    });
  }

  private async listen(found: (url: string) => void): Promise<void> {
    const { name, url } = this.ep;
    let bad: McpError | undefined;
    // The endpoint is the stream's first event, and it is waited for from the request on (a server
    // may hold the headers back). A stream that names none is not this transport: a Streamable HTTP
    // server tried here after refusing a POST may open one for its own messages.
    const waiting = setTimeout(() => {
      bad = new McpError(`the MCP server "${name}" named no endpoint for its messages within ${ENDPOINT_TIMEOUT_MS / 1000} s of the request for its event stream at ${url}; is it an MCP server on the HTTP+SSE transport?`);
      this.sink.fail(bad);
      this.stop.abort();
    }, ENDPOINT_TIMEOUT_MS);
    try {
      const res = await fetch(url, { headers: { ...this.ep.headers, accept: 'text/event-stream' }, redirect: 'error', signal: this.stop.signal });
      if (!res.ok) {
        const text = (await readCapped(res, 8192).catch(() => '')).replace(/\s+/g, ' ').trim();
        throw new McpError(`the MCP server "${name}" answered ${res.status}${res.statusText ? ` ${res.statusText}` : ''} when its event stream at ${url} was opened${text ? `: ${text.slice(0, 300)}` : ''}${authHint(res.status)}`);
      }
      const type = res.headers.get('content-type') ?? '';
      if (!/text\/event-stream/i.test(type)) {
        await res.body?.cancel().catch(() => undefined);
        throw new McpError(`the MCP server "${name}" answered with ${type || 'no media type'}, not an event stream, at ${url}; with "type": "sse" the "url" is the server's event stream (often ending in /sse)`);
      }
      const origin = new URL(url).origin;
      const end = await readEvents(res, () => this.sink.closed() || !!bad, (event, data) => {
        if (event === 'endpoint') {
          clearTimeout(waiting);
          let to: URL | undefined;
          try { to = new URL(data.trim(), url); } catch { /* named below */ }
          if (!to || to.origin !== origin) bad = new McpError(`the MCP server "${name}" named ${to ? to.origin : `"${data.slice(0, 100)}"`} as where to send its messages, not its own address ${origin}; GeoWeave sends messages, and the headers of its configuration, only to the server's own address`);
          else found(to.href);
        } else if (event === 'message') {
          try { this.sink.receive(JSON.parse(data)); } catch { /* not a message: skipped */ }
        }
      });
      if (bad) throw bad;
      if (end === 'too large') throw new McpError(`the MCP server "${name}" sent a message larger than ${MAX_MESSAGE_BYTES >> 20} MB; the session was ended`);
      if (!this.stop.signal.aborted && !this.sink.closed()) throw new McpError(`the MCP server "${name}" closed its event stream at ${url}`);
    } finally {
      clearTimeout(waiting);
    }
  }

  send(msg: Record<string, unknown>): void {
    const isRequest = typeof msg.id === 'number' && typeof msg.method === 'string';
    const refuse = (why: string) => { if (isRequest) this.sink.receive({ jsonrpc: '2.0', id: msg.id, error: { message: why } }); };
    void (async () => {
      const to = await this.postTo;
      const res = await fetch(to, { method: 'POST', headers: { ...this.ep.headers, 'content-type': 'application/json' }, body: JSON.stringify(msg), redirect: 'error', signal: this.stop.signal });
      if (!res.ok) {
        const text = (await readCapped(res, 8192).catch(() => '')).replace(/\s+/g, ' ').trim();
        refuse(`answered ${res.status}${res.statusText ? ` ${res.statusText}` : ''}${text ? `: ${text.slice(0, 300)}` : ''}${authHint(res.status)}`);
      }
      await res.body?.cancel().catch(() => undefined);
    })().catch((e: unknown) => {
      if (this.stop.signal.aborted || this.sink.closed()) return;
      refuse(`could not be reached at ${this.ep.url} (${reasonOf(e)})`);
    });
  }

  close(): void {
    // The server ends the session when its stream closes.
    this.stop.abort();
  }

  kill(): void {
    this.stop.abort();
  }

  tail(): string {
    return '';
  }
}

/** Why a fetch failed, in a word or two (ECONNREFUSED, a TLS error). */
function reasonOf(e: unknown): string {
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (e as Error).message;
}

function authHint(status: number): string {
  return status === 401 || status === 403 ? ' (check the key its "headers" send, in the MCP configuration)' : '';
}

/**
 * Reads an event stream, handing each event's name ("message" when it has none) and data to
 * `onEvent`; 'too large' when one event passes MAX_MESSAGE_BYTES (the stream is then cancelled).
 */
async function readEvents(res: Response, stopped: () => boolean, onEvent: (name: string, data: string) => void): Promise<'ended' | 'too large'> {
  const decoder = new TextDecoder();
  let buf = '';
  let data: string[] = [];
  let event = 'message';
  let size = 0;
  reading: for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    if (stopped()) break;
    buf += decoder.decode(chunk, { stream: true });
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).replace(/\r$/, '');
      buf = buf.slice(nl + 1);
      if (line === '') {
        if (data.length) onEvent(event, data.join('\n'));
        data = [];
        event = 'message';
        size = 0;
        // Not waiting for the next chunk: a stream that goes quiet would hold the session open.
        if (stopped()) break reading;
      } else if (line.startsWith('data:')) {
        data.push(line.slice(5).replace(/^ /, ''));
        size += line.length;
      } else if (line.startsWith('event:')) event = line.slice(6).trim();
    }
    if (size + buf.length > MAX_MESSAGE_BYTES) {
      await res.body?.cancel().catch(() => undefined);
      return 'too large';
    }
  }
  await res.body?.cancel().catch(() => undefined);
  return 'ended';
}

/** A response body as text, refused past `max` bytes. */
async function readCapped(res: Response, max: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let n = 0;
  for await (const c of res.body as unknown as AsyncIterable<Uint8Array>) {
    n += c.length;
    if (n > max) {
      await res.body?.cancel().catch(() => undefined);
      throw new McpError(`an answer larger than ${max >> 20 || max} ${max >= 1 << 20 ? 'MB' : 'bytes'}`);
    }
    chunks.push(c);
  }
  return Buffer.concat(chunks).toString('utf8');
}
