/**
 * A Model Context Protocol client over stdio: starts a server as its configuration says, speaks
 * JSON-RPC 2.0 one message per line (the MCP stdio transport), initializes, lists tools and calls
 * them. The server's stderr is kept (its last lines) for the messages of a failed start or call.
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

export class McpClient {
  private readonly pending = new Map<number, Pending>();
  private readonly progress = new Map<string, number>();
  private nextId = 1;
  private stderr = '';
  private closed: Error | undefined;
  /** What the server said it is (`initialize`'s serverInfo), for messages. */
  serverInfo: { name?: string; version?: string } = {};

  private constructor(private readonly launch: McpLaunch, private readonly child: ChildProcess) {
    const decoder = new StringDecoder('utf8');
    // The pieces of a line still arriving: only new data is searched for its end (a long message
    // arrives in thousands of chunks, and searching all of it each time is quadratic).
    let parts: string[] = [];
    let size = 0;
    child.stdout!.on('data', (d: Buffer) => {
      if (this.closed) return;
      let s = decoder.write(d);
      let nl: number;
      while ((nl = s.indexOf('\n')) >= 0) {
        const line = (parts.length ? parts.join('') + s.slice(0, nl) : s.slice(0, nl)).trim();
        parts = [];
        size = 0;
        s = s.slice(nl + 1);
        if (line) this.receive(line);
        if (this.closed) return;
      }
      parts.push(s);
      size += s.length;
      if (size > MAX_MESSAGE_BYTES) {
        parts = [];
        size = 0;
        this.fail(new McpError(`the MCP server "${launch.name}" sent a message larger than ${MAX_MESSAGE_BYTES >> 20} MB; the session was ended`));
      }
    });
    child.stderr!.on('data', (d: Buffer) => { this.stderr = (this.stderr + d.toString()).slice(-STDERR_KEEP); });
    child.on('error', (e: NodeJS.ErrnoException) => {
      this.fail(new McpError(e.code === 'ENOENT'
        ? `the MCP server "${launch.name}" could not start: command "${launch.command}" was not found (check "command" in its configuration, or install it)`
        : `the MCP server "${launch.name}" could not start: ${e.message}`));
    });
    child.on('close', (code, sig) => {
      this.fail(new McpError(`the MCP server "${launch.name}" ${code === null ? `was stopped by ${sig}` : `exited with code ${code}`}${this.stderrTail()}`));
    });
    child.stdin!.on('error', () => undefined);
  }

  /** Starts the server and completes the initialize handshake (or fails, naming the server and what it said). */
  static async start(launch: McpLaunch, opts: { signal?: AbortSignal; timeoutMs?: number; clientVersion?: string } = {}): Promise<McpClient> {
    opts.signal?.throwIfAborted();
    const child = spawn(launch.command, launch.args, { cwd: launch.cwd, env: launch.env, stdio: ['pipe', 'pipe', 'pipe'], windowsHide: true });
    const client = new McpClient(launch, child);
    const timeout = opts.timeoutMs ?? START_TIMEOUT_MS;
    const timer = setTimeout(() => client.fail(new McpError(`the MCP server "${launch.name}" did not answer "initialize" within ${timeout / 1000} s${client.stderrTail()}`)), timeout);
    try {
      const init = await client.request('initialize', {
        protocolVersion: MCP_PROTOCOL,
        capabilities: {},
        clientInfo: { name: 'GeoWeave', version: opts.clientVersion ?? '0' },
      }, { signal: opts.signal }) as { protocolVersion?: unknown; serverInfo?: { name?: string; version?: string } };
      if (typeof init?.protocolVersion !== 'string') throw new McpError(`the MCP server "${launch.name}" answered "initialize" without a protocolVersion; is "${launch.command}" an MCP server?`);
      client.serverInfo = init.serverInfo ?? {};
      client.notify('notifications/initialized');
      return client;
    } catch (e) {
      client.close();
      throw e;
    } finally {
      clearTimeout(timer);
    }
  }

  get name(): string {
    return this.launch.name;
  }

  /** Whether the session still runs (a pool reuses only live sessions). */
  get alive(): boolean {
    return !this.closed;
  }

  /** Every tool of the server (`tools/list`, following its pages), at most `max`. */
  async listTools(opts: { signal?: AbortSignal; max?: number } = {}): Promise<McpToolInfo[]> {
    const out: McpToolInfo[] = [];
    let cursor: string | undefined;
    const seen = new Set<string>();
    do {
      const page = await this.request('tools/list', cursor ? { cursor } : {}, { signal: opts.signal }) as { tools?: unknown; nextCursor?: unknown };
      if (!Array.isArray(page?.tools)) throw new McpError(`the MCP server "${this.launch.name}" answered "tools/list" without a list of tools`);
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
    if (!res || !Array.isArray(res.content)) throw new McpError(`the MCP server "${this.launch.name}" answered the call of "${name}" without content`);
    return res;
  }

  /** Ends the session: stdin closed (the transport's way to say goodbye), then SIGTERM, then SIGKILL. */
  close(): void {
    this.fail(new McpError(`the session with the MCP server "${this.launch.name}" was closed`), false);
    const c = this.child;
    if (c.exitCode !== null || c.signalCode !== null) return;
    c.stdin?.end();
    const term = setTimeout(() => { if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM'); }, 500);
    const kill = setTimeout(() => { if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL'); }, 2500);
    term.unref();
    kill.unref();
    c.once('close', () => { clearTimeout(term); clearTimeout(kill); });
  }

  private stderrTail(): string {
    const lines = this.stderr.trim().split('\n').filter(Boolean).slice(-3).join(' | ');
    return lines ? `: ${lines.slice(-600)}` : '';
  }

  private send(msg: Record<string, unknown>): void {
    if (this.closed) return;
    this.child.stdin!.write(JSON.stringify({ jsonrpc: '2.0', ...msg }) + '\n');
  }

  private notify(method: string, params?: Record<string, unknown>): void {
    this.send({ method, ...(params ? { params } : {}) });
  }

  private request(method: string, params: Record<string, unknown>, opts: { signal?: AbortSignal; onProgress?: Pending['onProgress']; progressToken?: string } = {}): Promise<unknown> {
    if (this.closed) return Promise.reject(this.closed);
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
      this.send({ id, method, params });
    });
  }

  private receive(line: string): void {
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(line);
    } catch {
      // A server that prints to stdout breaks the transport; its line is kept for the message.
      this.stderr = (this.stderr + `\n(stdout) ${line.slice(0, 200)}`).slice(-STDERR_KEEP);
      return;
    }
    if (!msg || typeof msg !== 'object' || Array.isArray(msg)) return;
    const id = msg.id;
    if (typeof msg.method === 'string') {
      if (id !== undefined && id !== null) {
        // A request from the server: answered, so it never waits on GeoWeave.
        if (msg.method === 'ping') this.send({ id, result: {} });
        else this.send({ id, error: { code: -32601, message: `GeoWeave does not serve "${msg.method}"` } });
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
      pend.reject(new McpError(`the MCP server "${this.launch.name}" refused: ${typeof err.message === 'string' ? err.message.slice(0, 500) : 'no message'}${typeof err.code === 'number' ? ` (code ${err.code})` : ''}`));
    } else pend.resolve(msg.result);
  }

  /** Ends every pending request with `e`; the process is killed unless `close` ends it gently. */
  private fail(e: Error, kill = true): void {
    if (this.closed) return;
    this.closed = e;
    for (const p of [...this.pending.values()]) p.reject(e);
    this.pending.clear();
    this.progress.clear();
    if (kill && this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}
