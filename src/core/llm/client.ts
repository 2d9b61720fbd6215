/** Optional LLM layer: a small client for any OpenAI-compatible chat server. */
import OpenAI from 'openai';
import { boundedFetch } from '../net/bounded-fetch';

/** Where the optional LLM lives. */
export interface LlmConfig {
  /** Server root including the API prefix, e.g. "http://127.0.0.1:8080/v1". */
  baseURL: string;
  model: string;
  /** Else env OPENAI_API_KEY; never logged or echoed in errors. Without either, no Authorization header is sent. */
  apiKey?: string;
  /** Whole-call budget in milliseconds (default 8000). */
  timeoutMs?: number;
}

/** Why the LLM could not be used; callers switch to the builtin path. */
export type LlmFailure = 'config' | 'network' | 'timeout' | 'aborted' | 'auth' | 'http' | 'bad-response';

/** Thrown by every function in src/core/llm on any failure; the message is safe to log (no key). */
export class LlmUnavailable extends Error {
  override readonly name = 'LlmUnavailable';
  constructor(
    message: string,
    readonly reason: LlmFailure,
    /** The server URL without credentials or query string (or the raw text for a bad baseURL). */
    readonly server: string,
    /** HTTP status when the server answered with an error. */
    readonly status?: number,
  ) {
    super(message);
  }
}

export function isLlmUnavailable(err: unknown): err is LlmUnavailable {
  return err instanceof LlmUnavailable;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatOptions {
  signal?: AbortSignal;
}

export const DEFAULT_TIMEOUT_MS = 8000;

/** Wraps chat.completions: temperature 0, a hard timeout, no retries, JSON replies parsed leniently. */
export class LlmClient {
  readonly model: string;
  readonly timeoutMs: number;
  /** Display form of baseURL used in messages (origin + path only). */
  readonly server: string;
  // Native private fields stay out of util.inspect/console.log, so logging a client cannot leak the key.
  readonly #openai: OpenAI;
  readonly #secret: string | undefined;
  private readonly rawBase: string;
  /** Flipped off once the server rejects response_format; later calls rely on the prompt alone. */
  private jsonMode = true;

  constructor(config: LlmConfig, env: NodeJS.ProcessEnv = process.env) {
    const raw = typeof config?.baseURL === 'string' ? config.baseURL.trim() : '';
    let url: URL;
    try {
      url = new URL(raw);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('protocol');
    } catch {
      throw new LlmUnavailable(
        `LLM config baseURL "${displayRaw(raw)}" is not an http(s) URL; set it to the server's API root, e.g. http://127.0.0.1:8080/v1.`,
        'config', displayRaw(raw));
    }
    this.server = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
    if (url.username || url.password) {
      throw new LlmUnavailable(`LLM config baseURL ${this.server} must not embed credentials; put the key in apiKey or OPENAI_API_KEY.`, 'config', this.server);
    }
    this.rawBase = raw.replace(/\/+$/, '');
    const model = typeof config.model === 'string' ? config.model.trim() : '';
    if (!model) {
      throw new LlmUnavailable(`LLM config model is empty; set the model name served at ${this.server}.`, 'config', this.server);
    }
    const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      throw new LlmUnavailable(`LLM config timeoutMs must be a positive number of milliseconds (got ${String(config.timeoutMs)}).`, 'config', this.server);
    }
    this.model = model;
    this.timeoutMs = timeoutMs;
    const key = (config.apiKey ?? env.OPENAI_API_KEY ?? '').trim();
    this.#secret = key || undefined;
    this.#openai = new OpenAI({
      baseURL: this.rawBase,
      // The SDK insists on a key; keyless local servers get a placeholder and no Authorization header.
      apiKey: this.#secret ?? 'unused',
      defaultHeaders: this.#secret ? undefined : { Authorization: null },
      organization: null,
      project: null,
      timeout: timeoutMs,
      maxRetries: 0,
      logLevel: 'off',
      fetch: boundedFetch(),
    });
  }

  /** One chat completion; resolves to the reply text. */
  async chat(messages: ChatMessage[], opts: ChatOptions = {}): Promise<string> {
    return this.withDeadline(opts.signal, (signal) => this.complete(messages, signal, false));
  }

  /** One chat completion asking for a JSON object; resolves to the parsed value. */
  async chatJson(messages: ChatMessage[], opts: ChatOptions = {}): Promise<unknown> {
    return this.withDeadline(opts.signal, async (signal) => {
      let text: string;
      try {
        text = await this.complete(messages, signal, this.jsonMode);
      } catch (err) {
        if (!this.jsonMode || !rejectsJsonMode(err)) throw err;
        this.jsonMode = false;
        text = await this.complete(messages, signal, false);
      }
      const value = parseJsonReply(text);
      if (value === undefined) {
        throw new LlmUnavailable(
          `LLM server at ${this.server} (model "${this.model}") did not answer with JSON: "${this.redact(text.slice(0, 120))}".`,
          'bad-response', this.server);
      }
      return value;
    });
  }

  /** Runs fn under one AbortSignal that fires on the caller's signal or after timeoutMs; maps every error. */
  private async withDeadline<T>(outer: AbortSignal | undefined, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const ctrl = new AbortController();
    let timedOut = false;
    if (outer?.aborted) {
      throw new LlmUnavailable(`LLM request to ${this.server} was cancelled.`, 'aborted', this.server);
    }
    const onAbort = () => ctrl.abort();
    outer?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => { timedOut = true; ctrl.abort(); }, this.timeoutMs);
    try {
      return await fn(ctrl.signal);
    } catch (err) {
      if (timedOut) {
        throw new LlmUnavailable(
          `LLM server at ${this.server} did not answer within ${this.timeoutMs} ms; check that it is up or raise timeoutMs.`,
          'timeout', this.server);
      }
      if (outer?.aborted) throw new LlmUnavailable(`LLM request to ${this.server} was cancelled.`, 'aborted', this.server);
      throw this.mapError(err);
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
    }
  }

  private async complete(messages: ChatMessage[], signal: AbortSignal, json: boolean): Promise<string> {
    const res = await this.#openai.chat.completions.create(
      {
        model: this.model,
        messages,
        temperature: 0,
        ...(json ? { response_format: { type: 'json_object' as const } } : {}),
      },
      { signal, timeout: this.timeoutMs, maxRetries: 0 },
    );
    const content = (res as { choices?: { message?: { content?: unknown } }[] })?.choices?.[0]?.message?.content;
    if (typeof content !== 'string' || !content.trim()) {
      throw new LlmUnavailable(
        `LLM server at ${this.server} (model "${this.model}") returned no message content; check that it serves /chat/completions.`,
        'bad-response', this.server);
    }
    return content;
  }

  private mapError(err: unknown): LlmUnavailable {
    if (err instanceof LlmUnavailable) return err;
    const at = `LLM server at ${this.server}`;
    if (err instanceof OpenAI.APIConnectionTimeoutError) {
      return new LlmUnavailable(`${at} did not answer within ${this.timeoutMs} ms; check that it is up or raise timeoutMs.`, 'timeout', this.server);
    }
    if (err instanceof OpenAI.APIConnectionError) {
      const code = connectionCode(err);
      return new LlmUnavailable(`Cannot reach ${at}${code ? ` (${code})` : ''}; start the server or fix baseURL.`, 'network', this.server);
    }
    if (err instanceof OpenAI.APIError && typeof err.status === 'number') {
      const status = err.status;
      if (status === 401 || status === 403) {
        // The server's own text is dropped: some servers quote (part of) the key back.
        return new LlmUnavailable(
          `${at} rejected the credentials (HTTP ${status}); set a valid key in OPENAI_API_KEY or the apiKey setting.`,
          'auth', this.server, status);
      }
      const detail = this.redact(serverMessage(err)).slice(0, 200);
      const hint = status === 404 ? `; check baseURL (usually ending in /v1) and model "${this.model}"` : '';
      return new LlmUnavailable(`${at} answered HTTP ${status}${detail ? `: ${detail}` : ''}${hint}.`, 'http', this.server, status);
    }
    if (err instanceof SyntaxError) {
      return new LlmUnavailable(`${at} sent a reply that is not valid JSON; check that it is OpenAI-compatible.`, 'bad-response', this.server);
    }
    const text = err instanceof Error ? err.message : String(err);
    return new LlmUnavailable(`${at} failed: ${this.redact(text).slice(0, 200)}.`, 'bad-response', this.server);
  }

  /** Removes the key and anything shaped like one from text that may end up in a message. */
  private redact(text: string): string {
    let out = text;
    if (this.#secret) out = out.split(this.#secret).join('[redacted]');
    if (this.rawBase !== this.server) out = out.split(this.rawBase).join(this.server);
    return out.replace(/\b(sk|key|api[-_]?key)[-_][A-Za-z0-9_\-*.]{6,}/gi, '[redacted]');
  }
}

/**
 * Parses a model reply as JSON, tolerating ```json fences, <think> blocks and prose around the value.
 * Returns undefined when no JSON value can be found.
 */
export function parseJsonReply(text: string): unknown {
  let s = text.replace(/<think>[\s\S]*?<\/think>/gi, '').trim();
  const fence = /```[a-zA-Z0-9_-]*\s*\n?([\s\S]*?)```/.exec(s);
  if (fence) s = fence[1].trim();
  const direct = tryParse(s);
  if (direct !== undefined) return direct;
  for (const [open, close] of [['{', '}'], ['[', ']']] as const) {
    const start = s.indexOf(open);
    const end = s.lastIndexOf(close);
    if (start >= 0 && end > start) {
      const inner = tryParse(s.slice(start, end + 1));
      if (inner !== undefined) return inner;
    }
  }
  return undefined;
}

function tryParse(s: string): unknown {
  if (!s) return undefined;
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

function rejectsJsonMode(err: unknown): boolean {
  return err instanceof OpenAI.APIError && (err.status === 400 || err.status === 422) &&
    /response_format|json/i.test(serverMessage(err));
}

function serverMessage(err: InstanceType<typeof OpenAI.APIError>): string {
  const body = err.error as { message?: unknown } | undefined;
  if (body && typeof body.message === 'string') return body.message;
  if (body && typeof body === 'object') return JSON.stringify(body);
  return '';
}

function connectionCode(err: Error): string | undefined {
  let cause: unknown = (err as { cause?: unknown }).cause;
  for (let i = 0; i < 4 && cause; i++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A bad baseURL may carry credentials; show at most its first characters. */
function displayRaw(raw: string): string {
  const noCreds = raw.replace(/\/\/[^/@]*@/, '//').replace(/[?#].*$/, '');
  return noCreds.length > 60 ? `${noCreds.slice(0, 60)}…` : noCreds;
}
