/** One interface for every embedder; vectors are L2-normalised. */
export interface Embedder {
  /** Stable id that goes into the index fingerprint, e.g. "builtin:v1" or "openai:text-embedding-3-small". */
  readonly id: string;
  readonly dimension: number;
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
  dispose?(): Promise<void>;
}

export type EmbedderConfig =
  | { kind: 'builtin' }
  | {
      kind: 'transformers';
      /** Hub model id or a local folder. */
      model: string;
      /** Where downloaded weights are cached; never inside node_modules. */
      cacheDir: string;
      allowDownload: boolean;
      pooling?: 'mean' | 'cls';
    }
  | { kind: 'openai'; baseURL: string; model: string; apiKey?: string; dimensions?: number };
