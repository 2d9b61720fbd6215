import type { Embedder } from './types';
import { tokenizeDetailed } from './tokenize';
import { expandConcepts } from './lexicon';

/** Serialised state of a BuiltinEmbedder (IDF fitted on a corpus), stored next to the index. */
export interface BuiltinEmbedderState {
  id: string;
  dimension: number;
  /** Number of documents the IDF was fitted on (0 = not fitted). */
  docCount: number;
  /** Document frequency per feature key ("w:token", "c:concept", "g:ngram"). */
  df: Record<string, number>;
}

// v3: the lexicon gained the words of application domains (2026-12-02); indexes and fits of v2 are rebuilt.
// v4: accents folded and Spanish, Portuguese, French, German and Italian glossary words read (2026-12-03).
// v5: a Chinese glossary written blind, Traditional characters read as Simplified, and "S1", "GRD",
// "gamma0" read as SAR (2026-12-03).
// v6: words keep their combining marks (Devanagari and other Indic vowels; Arabic, Greek and Hebrew
// ones are folded away like Latin accents), and Japanese kana,
// Thai, Lao, Khmer and Myanmar runs are read in bigrams apart from Latin words (2026-12-06); texts
// in English, Chinese and the Latin-script languages embed exactly as in v5.
const ID = 'builtin:v6';
const DIMENSION = 1024;
const W_TOKEN = 1.0;
const W_CONCEPT = 1.6;
const W_NGRAM = 0.22;
const NGRAM_MIN = 3;
const NGRAM_MAX = 4;

/** murmur3 fmix32 on top of FNV-1a: cheap and well spread for short keys. */
function hashKey(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function abortError(signal: AbortSignal): Error {
  const r = signal.reason;
  if (r instanceof Error) return r;
  const e = new Error('embedding was cancelled');
  e.name = 'AbortError';
  return e;
}

/** Feature counts of one text: key -> [group weight, term frequency]. */
function features(text: string): Map<string, { w: number; tf: number }> {
  const { tokens, rawWords } = tokenizeDetailed(text);
  const feats = new Map<string, { w: number; tf: number }>();
  const add = (key: string, w: number): void => {
    const f = feats.get(key);
    if (f) f.tf++;
    else feats.set(key, { w, tf: 1 });
  };
  for (const t of tokens) add('w:' + t, W_TOKEN);
  for (const c of expandConcepts(tokens)) add('c:' + c, W_CONCEPT);
  for (const raw of rawWords) {
    if (raw.length < 3 || /^\d+$/.test(raw)) continue;
    const s = '<' + raw + '>';
    for (let n = NGRAM_MIN; n <= NGRAM_MAX; n++) {
      for (let i = 0; i + n <= s.length; i++) add('g:' + s.slice(i, i + n), W_NGRAM);
    }
  }
  return feats;
}

/**
 * Deterministic, download-free embedder: hashed word tokens, geospatial concepts (from the lexicon,
 * English and Chinese) and character 3-4-grams, sublinear tf, optional IDF from `fit`.
 */
export class BuiltinEmbedder implements Embedder {
  readonly id = ID;
  readonly dimension = DIMENSION;
  private df = new Map<string, number>();
  private docCount = 0;

  /** True once `fit` (or `fromJSON` with a fitted state) supplied IDF weights. */
  get fitted(): boolean {
    return this.docCount > 0;
  }

  /** Fits IDF weights on a corpus (e.g. the manifests' texts); replaces any earlier fit. */
  fit(corpus: string[]): this {
    const df = new Map<string, number>();
    for (const doc of corpus) {
      for (const key of features(doc).keys()) df.set(key, (df.get(key) ?? 0) + 1);
    }
    this.df = df;
    this.docCount = corpus.length;
    return this;
  }

  private idf(key: string): number {
    if (this.docCount === 0) return 1;
    return Math.log((this.docCount + 1) / ((this.df.get(key) ?? 0) + 1)) + 1;
  }

  /** Synchronous embedding of one text (L2-normalised; all-zero for text without features). */
  embedOne(text: string): Float32Array {
    const vec = new Float32Array(this.dimension);
    for (const [key, f] of features(text)) {
      const h = hashKey(key);
      const weight = f.w * (1 + Math.log(f.tf)) * this.idf(key);
      vec[h % this.dimension] += h & 0x80000000 ? -weight : weight;
    }
    let norm = 0;
    for (let i = 0; i < vec.length; i++) norm += vec[i] * vec[i];
    if (norm > 0) {
      const inv = 1 / Math.sqrt(norm);
      for (let i = 0; i < vec.length; i++) vec[i] *= inv;
    }
    return vec;
  }

  async embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i++) {
      if (signal?.aborted) throw abortError(signal);
      out.push(this.embedOne(texts[i]));
    }
    if (signal?.aborted) throw abortError(signal);
    return out;
  }

  toJSON(): BuiltinEmbedderState {
    const df: Record<string, number> = {};
    for (const k of [...this.df.keys()].sort()) df[k] = this.df.get(k)!;
    return { id: this.id, dimension: this.dimension, docCount: this.docCount, df };
  }

  /** Restores a state written by `toJSON`; throws when it belongs to another embedder version. */
  static fromJSON(state: unknown): BuiltinEmbedder {
    const s = state as Partial<BuiltinEmbedderState> | null;
    if (!s || typeof s !== 'object') throw new Error('builtin embedder state: expected an object from toJSON()');
    if (s.id !== ID || s.dimension !== DIMENSION) {
      throw new Error(
        `builtin embedder state: written by ${String(s.id)}/${String(s.dimension)}, this is ${ID}/${DIMENSION}; rebuild the index`,
      );
    }
    if (!Number.isSafeInteger(s.docCount) || (s.docCount as number) < 0 || !s.df || typeof s.df !== 'object' || Array.isArray(s.df)) {
      throw new Error('builtin embedder state: fields "docCount" (a whole number >= 0) and "df" (object) are required');
    }
    const e = new BuiltinEmbedder();
    e.docCount = s.docCount as number;
    for (const [k, v] of Object.entries(s.df)) {
      // A document frequency outside 0..docCount would give negative or infinite IDF weights.
      if (!Number.isSafeInteger(v) || v < 0 || v > e.docCount) throw new Error(`builtin embedder state: df["${k}"] must be a whole number from 0 to docCount (${e.docCount})`);
      e.df.set(k, v);
    }
    return e;
  }
}
