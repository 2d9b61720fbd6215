import OpenAI from 'openai';
import type { Embedder, EmbedderConfig } from './types';

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

  private constructor(private readonly config: OpenAIConfig, options: OpenAIOptions) {
    if (!config.baseURL) throw new Error('embedder.openai.baseURL is empty: give the server URL, e.g. https://api.openai.com/v1');
    if (!config.model) throw new Error('embedder.openai.model is empty: give an embedding model name');
    if (config.dimensions !== undefined && !(Number.isInteger(config.dimensions) && config.dimensions > 0)) {
      throw new Error(`embedder.openai.dimensions must be a positive integer, got ${String(config.dimensions)}`);
    }
    // local servers often need no key; the SDK insists on one, so send a placeholder
    const apiKey = config.apiKey || process.env.OPENAI_API_KEY || 'no-key';
    this.client = new OpenAI({
      apiKey,
      baseURL: config.baseURL,
      maxRetries: options.maxRetries ?? 2,
      timeout: options.timeoutMs ?? 60_000,
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
    const url = this.config.baseURL;
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
      return new Error(`the embeddings server at ${url} answered HTTP ${status ?? '?'}: ${detail}`);
    }
    return err instanceof Error ? err : new Error(String(err));
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
    const url = this.config.baseURL;
    const data = Array.isArray(res?.data) ? [...res.data].sort((a, b) => a.index - b.index) : [];
    if (data.length !== batch.length) {
      throw new Error(`the embeddings server at ${url} returned ${data.length} vectors for ${batch.length} texts`);
    }
    return data.map((d, i) => {
      const raw = d.embedding as unknown;
      if (!Array.isArray(raw) || raw.length === 0) {
        throw new Error(`the embeddings server at ${url} returned no float vector for text ${i} (expected encoding_format float)`);
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
