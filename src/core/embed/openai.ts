import OpenAI from 'openai';
import type { Embedder, EmbedderConfig } from './types';
import { boundedFetch } from '../net/bounded-fetch';
import { redactText, redactUrl } from '../net/redact';

export type OpenAIConfig = Extract<EmbedderConfig, { kind: 'openai' }>;

/** Extra knobs that are not part of the persisted settings. */
export interface OpenAIOptions {
  /** Texts per request (default 64). */
  batchSize?: number;
  /** SDK retries for 429/5xx/connection errors (default 2). */
  maxRetries?: number;
  /** Per-request timeout in ms (default 60000). */
  timeoutMs?: number;
  /** Send one probe request while connecting to learn the dimension and check the key (default true). */
  probe?: boolean;
  signal?: AbortSignal;
}

function abortError(signal: AbortSignal): Error {
  if (signal.reason instanceof Error) return signal.reason;
  const e = new Error('embedding was cancelled');
  e.name = 'AbortError';
  return e;
}

/**
 * Embeddings from an OpenAI-compatible /v1/embeddings endpoint (OpenAI, Azure-style proxies,
 * Ollama, LM Studio, vLLM...). Vectors are re-normalised because not every server normalises.
 */
export class OpenAIEmbedder implements Embedder {
  readonly id: string;
  private dim: number;
  private readonly client: OpenAI;
  private readonly batchSize: number;

  /** The base URL as messages show it (never with credentials). */
  private readonly server: string;
  private readonly secret: string;

  private constructor(private readonly config: OpenAIConfig, options: OpenAIOptions) {
    if (!config.baseURL) throw new Error('embedder.openai.baseURL is empty: give the server URL, e.g. https://api.openai.com/v1');
    let url: URL;
    try {
      url = new URL(config.baseURL);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('protocol');
    } catch {
      throw new Error(`embedder.openai.baseURL "${redactText(config.baseURL).slice(0, 80)}" is not an http(s) URL, e.g. https://api.openai.com/v1`);
    }
    this.server = redactUrl(config.baseURL).replace(/\/+$/, '');
    if (url.username || url.password) {
      throw new Error(`embedder.openai.baseURL ${this.server} must not hold credentials (user:password@); the key goes in "GeoWeave: Set OpenAI API Key" or OPENAI_API_KEY`);
    }
    if (!config.model) throw new Error('embedder.openai.model is empty: give an embedding model name');
    if (config.dimensions !== undefined && !(Number.isInteger(config.dimensions) && config.dimensions > 0)) {
      throw new Error(`embedder.openai.dimensions must be a positive integer, got ${String(config.dimensions)}`);
    }
    // An empty apiKey means "send none" (the caller withheld it); only undefined falls back to the environment.
    this.secret = (config.apiKey ?? process.env.OPENAI_API_KEY ?? '').trim();
    this.client = new OpenAI({
      // The SDK insists on a key; without one, a placeholder and no Authorization header.
      apiKey: this.secret || 'no-key',
      defaultHeaders: this.secret ? undefined : { Authorization: null },
      baseURL: config.baseURL,
      maxRetries: options.maxRetries ?? 2,
      timeout: options.timeoutMs ?? 60_000,
      fetch: boundedFetch(),
      logLevel: 'off',
    });
    this.batchSize = Math.max(1, Math.floor(options.batchSize ?? 64));
    this.dim = config.dimensions ?? 0;
    this.id = `openai:${config.model}${config.dimensions ? `@${config.dimensions}` : ''}`;
  }

  /** Vector length; 0 until the first response when neither `dimensions` nor a probe gave it. */
  get dimension(): number {
    return this.dim;
  }

  /** Creates the client and, unless `probe` is false, embeds one text to learn the dimension. */
  static async connect(config: OpenAIConfig, options: OpenAIOptions = {}): Promise<OpenAIEmbedder> {
    const e = new OpenAIEmbedder(config, options);
    if (options.probe ?? true) await e.embed(['dimension probe'], options.signal);
    return e;
  }

  private describe(err: unknown): Error {
    const e = this.describeRaw(err);
    // Server texts and SDK messages may quote the URL or (some servers) the key.
    e.message = redactText(e.message, [this.secret]);
    return e;
  }

  private describeRaw(err: unknown): Error {
    const url = this.server;
    if (err instanceof OpenAI.APIUserAbortError) {
      const e = new Error('embedding was cancelled');
      e.name = 'AbortError';
      return e;
    }
    if (err instanceof OpenAI.APIConnectionError) {
      const cause = (err as { cause?: { message?: string } }).cause?.message ?? err.message;
      return new Error(`cannot reach the embeddings server at ${url} (${cause}); check the base URL (VS Code setting geoweave.openai.baseURL, CLI OPENAI_BASE_URL)`);
    }
    if (err instanceof OpenAI.APIError) {
      const status = err.status;
      if (status === 401 || status === 403) {
        return new Error(
          `the embeddings server at ${url} rejected the API key (HTTP ${status}); set it with "GeoWeave: Set OpenAI API Key" in VS Code or in OPENAI_API_KEY`,
        );
      }
      if (status === 404) {
        return new Error(
          `the embeddings server at ${url} has no embeddings endpoint or no model "${this.config.model}" (HTTP 404); check baseURL (usually ends in /v1) and model`,
        );
      }
      if (status === 429) return new Error(`the embeddings server at ${url} is rate limiting requests (HTTP 429); retry later`);
      const detail = (err.error as { message?: string } | undefined)?.message ?? err.message;
      return new Error(`the embeddings server at ${url} answered HTTP ${status ?? '?'}: ${String(detail).slice(0, 300)}`);
    }
    if (err instanceof Error && err.name === 'AbortError') return err;
    const cause = (err as { cause?: { message?: unknown } } | undefined)?.cause?.message;
    const text = err instanceof Error ? err.message : String(err);
    return new Error(`the embeddings server at ${url} failed: ${typeof cause === 'string' && cause !== text ? `${text} (${cause})` : text}`);
  }

  private async request(batch: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    let res: OpenAI.Embeddings.CreateEmbeddingResponse;
    try {
      res = await this.client.embeddings.create(
        {
          model: this.config.model,
          input: batch,
          encoding_format: 'float',
          ...(this.config.dimensions ? { dimensions: this.config.dimensions } : {}),
        },
        { signal },
      );
    } catch (err) {
      throw this.describe(err);
    }
    const url = this.server;
    const items = Array.isArray(res?.data) ? res.data : [];
    if (items.length !== batch.length) {
      throw new Error(`the embeddings server at ${url} returned ${items.length} vectors for ${batch.length} texts`);
    }
    const data = new Array<(typeof items)[number]>(batch.length);
    for (const d of items) {
      const i = d?.index;
      if (!Number.isInteger(i) || i < 0 || i >= batch.length || data[i]) throw new Error(`the embeddings server at ${url} returned vectors with missing or repeated "index" values`);
      data[i] = d;
    }
    return data.map((d, i) => {
      const raw = d.embedding as unknown;
      if (!Array.isArray(raw) || raw.length === 0) {
        throw new Error(`the embeddings server at ${url} returned no float vector for text ${i} (expected encoding_format float)`);
      }
      if (!raw.every((x) => typeof x === 'number' && Number.isFinite(x))) {
        throw new Error(`the embeddings server at ${url} returned a vector with values that are not finite numbers for text ${i}`);
      }
      if (this.dim === 0) this.dim = raw.length;
      if (raw.length !== this.dim) {
        throw new Error(`the embeddings server at ${url} returned a ${raw.length}-d vector, expected ${this.dim}`);
      }
      const v = Float32Array.from(raw as number[]);
      let n = 0;
      for (let j = 0; j < v.length; j++) n += v[j] * v[j];
      if (n > 0) {
        const inv = 1 / Math.sqrt(n);
        for (let j = 0; j < v.length; j++) v[j] *= inv;
      }
      return v;
    });
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      if (signal?.aborted) throw abortError(signal);
      // servers reject empty strings; a single space embeds as "nothing"
      const batch = texts.slice(i, i + this.batchSize).map((t) => (t.length > 0 ? t : ' '));
      for (const v of await this.request(batch, signal)) out.push(v);
    }
    return out;
  }
}
