import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Embedder, EmbedderConfig } from './types';

export type TransformersConfig = Extract<EmbedderConfig, { kind: 'transformers' }>;

/** Extra knobs that are not part of the persisted settings. */
export interface TransformersOptions {
  /** Texts per forward pass (default 16). */
  batchSize?: number;
  /** ONNX weights variant; default: fp32 when onnx/model.onnx exists, else q8 when model_quantized.onnx does. */
  dtype?: 'fp32' | 'fp16' | 'q8' | 'int8' | 'uint8' | 'q4' | 'bnb4' | 'q4f16';
  signal?: AbortSignal;
}

// tsconfig emits CommonJS, which would turn import() into require(); keep a real dynamic import
const importEsm = new Function('s', 'return import(s)') as (s: string) => Promise<any>;

let transformersModule: Promise<any> | undefined;

/** Walks up from this file (and the cwd) to node_modules; no require.resolve, which bundlers would inline. */
function findTransformersEntry(): string | undefined {
  for (const start of [__dirname, process.cwd()]) {
    for (let dir = start; ; dir = path.dirname(dir)) {
      const f = path.join(dir, 'node_modules', '@huggingface', 'transformers', 'dist', 'transformers.node.mjs');
      if (fs.existsSync(f)) return f;
      if (path.dirname(dir) === dir) break;
    }
  }
  return undefined;
}

function loadTransformers(): Promise<any> {
  transformersModule ??= (async () => {
    try {
      return await importEsm('@huggingface/transformers');
    } catch (first) {
      // bare specifiers resolve from the host's entry point (e.g. VS Code); look in our own node_modules
      const entry = findTransformersEntry();
      try {
        if (!entry) throw first;
        return await importEsm(pathToFileURL(entry).href);
      } catch {
        throw new Error(
          `cannot load @huggingface/transformers (${(first as Error).message}); run "npm install" in the extension folder`,
        );
      }
    }
  })();
  transformersModule.catch(() => (transformersModule = undefined));
  return transformersModule;
}

function isLocalPath(model: string): boolean {
  return path.isAbsolute(model) || model.startsWith('./') || model.startsWith('../') || model.startsWith('~');
}

function notFound(model: string, folder: string): Error {
  return new Error(
    `model ${model} not found in ${folder}; allow downloads (VS Code setting geoweave.transformers.allowDownload, CLI --allow-download) or point the model at a local folder`,
  );
}

function abortError(signal: AbortSignal): Error {
  if (signal.reason instanceof Error) return signal.reason;
  const e = new Error('embedding was cancelled');
  e.name = 'AbortError';
  return e;
}

function pickDtype(modelDir: string): TransformersOptions['dtype'] | undefined {
  if (fs.existsSync(path.join(modelDir, 'onnx', 'model.onnx'))) return 'fp32';
  if (fs.existsSync(path.join(modelDir, 'onnx', 'model_quantized.onnx'))) return 'q8';
  return undefined;
}

function hasModelFiles(modelDir: string): boolean {
  return fs.existsSync(path.join(modelDir, 'config.json')) && pickDtype(modelDir) !== undefined;
}

/** Folder name plus a short hash of its config and weights size, so two folders named alike differ. */
function localModelTag(modelDir: string): string {
  const h = createHash('sha256');
  h.update(fs.readFileSync(path.join(modelDir, 'config.json')));
  for (const f of ['model.onnx', 'model_quantized.onnx']) {
    const p = path.join(modelDir, 'onnx', f);
    if (fs.existsSync(p)) h.update(`${f}:${fs.statSync(p).size}`);
  }
  return `${path.basename(modelDir)}@${h.digest('hex').slice(0, 8)}`;
}

/**
 * Sentence embeddings from a local ONNX model (or a hub id when downloads are allowed) through
 * @huggingface/transformers: feature-extraction, mean or CLS pooling, L2-normalised.
 */
export class TransformersEmbedder implements Embedder {
  readonly id: string;
  readonly dimension: number;
  private extractor: any;
  private readonly pooling: 'mean' | 'cls';
  private readonly batchSize: number;

  private constructor(id: string, dimension: number, extractor: any, pooling: 'mean' | 'cls', batchSize: number) {
    this.id = id;
    this.dimension = dimension;
    this.extractor = extractor;
    this.pooling = pooling;
    this.batchSize = batchSize;
  }

  /** Loads tokenizer and model, then probes the output dimension with one short text. */
  static async load(config: TransformersConfig, options: TransformersOptions = {}): Promise<TransformersEmbedder> {
    const { model, allowDownload } = config;
    if (!model) throw new Error('embedder.transformers.model is empty: give a hub model id or a local folder');
    if (!config.cacheDir) throw new Error('embedder.transformers.cacheDir is empty: give a folder for model files');
    const cacheDir = path.resolve(config.cacheDir);
    if (cacheDir.split(path.sep).includes('node_modules')) {
      throw new Error(`embedder.transformers.cacheDir ${cacheDir} is inside node_modules; choose a folder outside it`);
    }
    const pooling = config.pooling ?? 'mean';
    const batchSize = Math.max(1, Math.floor(options.batchSize ?? 16));

    const local = isLocalPath(model);
    const modelDir = local ? path.resolve(model.replace(/^~(?=$|\/)/, process.env.HOME ?? '~')) : path.join(cacheDir, model);
    const present = hasModelFiles(modelDir);
    if (!present && (local || !allowDownload)) {
      throw notFound(model, local ? modelDir : cacheDir);
    }

    const T = await loadTransformers();
    if (options.signal?.aborted) throw abortError(options.signal);
    T.env.allowLocalModels = true;
    T.env.allowRemoteModels = allowDownload;
    T.env.localModelPath = cacheDir + path.sep;
    T.env.cacheDir = cacheDir;
    T.env.useFSCache = true;

    let extractor: any;
    try {
      extractor = await T.pipeline('feature-extraction', local ? modelDir : model, {
        dtype: options.dtype ?? (present ? pickDtype(modelDir) : 'fp32'),
        local_files_only: !allowDownload,
        cache_dir: cacheDir,
      });
    } catch (e) {
      const msg = (e as Error).message ?? String(e);
      if (!allowDownload && /not found|local_files_only|allowRemoteModels|ENOENT/i.test(msg)) {
        throw notFound(model, local ? modelDir : cacheDir);
      }
      throw new Error(`loading embedding model ${model} failed: ${msg}`);
    }
    const id = `transformers:${local ? localModelTag(modelDir) : model}${pooling === 'cls' ? ':cls' : ''}`;
    const probe = new TransformersEmbedder(id, 0, extractor, pooling, batchSize);
    const [v] = await probe.run(['dimension probe']);
    return new TransformersEmbedder(id, v.length, extractor, pooling, batchSize);
  }

  private async run(batch: string[]): Promise<Float32Array[]> {
    const out = await this.extractor(batch, { pooling: this.pooling, normalize: true });
    const [n, d] = out.dims as number[];
    const data = out.data as Float32Array;
    const vecs: Float32Array[] = [];
    for (let i = 0; i < n; i++) vecs.push(Float32Array.from(data.subarray(i * d, (i + 1) * d)));
    out.dispose?.();
    return vecs;
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    if (!this.extractor) throw new Error(`embedder ${this.id} was disposed`);
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      if (signal?.aborted) throw abortError(signal);
      for (const v of await this.run(texts.slice(i, i + this.batchSize))) out.push(v);
    }
    return out;
  }

  async dispose(): Promise<void> {
    const e = this.extractor;
    this.extractor = undefined;
    await e?.dispose?.();
  }
}
