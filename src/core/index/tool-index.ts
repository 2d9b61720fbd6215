/** The persisted dense tool index: HNSW vectors (one per tool text) plus a fingerprint beside it. */
import * as fs from 'fs';
import * as path from 'path';
import type { Embedder } from '../embed/types';
import type { LoadedManifest } from '../manifests/types';
import { allTexts } from './text';
import { HnswIndex } from './hnsw';
import type { HnswParams } from './vector-index';
import { DEFAULT_HNSW } from './vector-index';
import { fileSha256, writeFileAtomic } from './fs-util';

export const INDEX_FORMAT_VERSION = 1;
export const INDEX_FILE = 'tools.hnsw';
export const FINGERPRINT_FILE = 'tools.index.json';

/** Written beside the index; any mismatch with the current embedder/catalog triggers an update or rebuild. */
export interface Fingerprint {
  formatVersion: number;
  embedder: string;
  dimension: number;
  M: number;
  efConstruction: number;
  /** sha256 of the index file, so a truncated or foreign file is never handed to hnswlib. */
  indexSha256: string;
  nextLabel: number;
  tools: Record<string, { hash: string; labels: number[] }>;
}

export interface IndexUpdate { added: string[]; changed: string[]; removed: string[]; rebuilt: boolean; reason?: string }

export interface ToolIndexOptions {
  stateDir: string;
  embedder: Embedder;
  /** Identity of the embedder in the fingerprint (defaults to `embedder.id`; includes a fit hash for fitted embedders). */
  embedderKey?: string;
  /** Ignore any saved index and rebuild. */
  rebuild?: boolean;
  params?: Partial<HnswParams>;
  log?: (level: 'info' | 'warn' | 'error', msg: string) => void;
  signal?: AbortSignal;
  onProgress?: (fraction: number, message: string) => void;
}

export class ToolIndex {
  readonly file: string;
  readonly fingerprintFile: string;
  private hnsw!: HnswIndex;
  private fp!: Fingerprint;
  private labelToTool = new Map<number, string>();
  private vectors = new Map<number, Float32Array>();
  private readonly params: HnswParams;

  private constructor(private readonly opts: ToolIndexOptions) {
    this.file = path.join(opts.stateDir, INDEX_FILE);
    this.fingerprintFile = path.join(opts.stateDir, FINGERPRINT_FILE);
    this.params = { ...DEFAULT_HNSW, ...opts.params };
  }

  /** Opens the index in `stateDir`, bringing it in line with `tools` (incrementally when possible). */
  static async open(tools: LoadedManifest[], opts: ToolIndexOptions): Promise<{ index: ToolIndex; update: IndexUpdate }> {
    const ti = new ToolIndex(opts);
    const reason = opts.rebuild ? 'rebuild requested' : ti.tryLoad();
    let update: IndexUpdate;
    if (reason !== undefined) {
      if (reason) opts.log?.('warn', `tool index ${ti.file}: ${reason}; rebuilding`);
      else opts.log?.('info', `building the tool index in ${ti.file}`);
      await ti.rebuild(tools);
      update = { added: tools.map((t) => t.manifest.id), changed: [], removed: [], rebuilt: true, reason: reason || 'no index yet' };
    } else {
      update = await ti.update(tools);
    }
    return { index: ti, update };
  }

  get embedderId(): string { return this.opts.embedderKey ?? this.opts.embedder.id; }
  get dimension(): number { return this.opts.embedder.dimension; }
  get toolCount(): number { return Object.keys(this.fp.tools).length; }
  get vectorCount(): number { return this.hnsw.size; }

  /** Returns undefined when loaded; otherwise why it could not be ("" when simply absent). */
  private tryLoad(): string | undefined {
    const { embedder } = this.opts;
    if (!fs.existsSync(this.fingerprintFile)) return fs.existsSync(this.file) ? 'fingerprint missing' : '';
    let fp: Fingerprint;
    try {
      fp = JSON.parse(fs.readFileSync(this.fingerprintFile, 'utf8'));
    } catch (e) {
      return `fingerprint unreadable (${(e as Error).message})`;
    }
    if (!fp || typeof fp !== 'object' || !fp.tools) return 'fingerprint malformed';
    if (fp.formatVersion !== INDEX_FORMAT_VERSION) return `format version ${fp.formatVersion} != ${INDEX_FORMAT_VERSION}`;
    if (fp.embedder !== this.embedderId) return `built with embedder ${fp.embedder}, now ${this.embedderId}`;
    if (fp.dimension !== embedder.dimension) return `dimension ${fp.dimension} != ${embedder.dimension}`;
    if (fp.M !== this.params.M || fp.efConstruction !== this.params.efConstruction) return 'HNSW parameters changed';
    if (!fs.existsSync(this.file)) return 'index file missing';
    try {
      if (fileSha256(this.file) !== fp.indexSha256) return 'index file corrupt (checksum mismatch)';
      const labels = Object.values(fp.tools).flatMap((t) => t.labels);
      this.hnsw = HnswIndex.load(this.file, fp.dimension, labels, this.params);
    } catch (e) {
      return `index file unreadable (${(e as Error).message})`;
    }
    this.fp = fp;
    this.labelToTool.clear();
    this.vectors.clear();
    for (const [id, t] of Object.entries(fp.tools)) {
      for (const l of t.labels) {
        this.labelToTool.set(l, id);
        this.vectors.set(l, this.hnsw.vector(l));
      }
    }
    return undefined;
  }

  private async rebuild(tools: LoadedManifest[]): Promise<void> {
    const { embedder } = this.opts;
    const capacity = tools.reduce((n, t) => n + allTexts(t.manifest).length, 0);
    this.hnsw = HnswIndex.create(embedder.dimension, Math.ceil(capacity * 1.25) + 16, this.params);
    this.fp = { formatVersion: INDEX_FORMAT_VERSION, embedder: this.embedderId, dimension: embedder.dimension, M: this.params.M, efConstruction: this.params.efConstruction, indexSha256: '', nextLabel: 0, tools: {} };
    this.labelToTool.clear();
    this.vectors.clear();
    await this.addTools(tools);
    this.persist();
  }

  /** Applies catalog changes: only added, changed and removed tools are (re-)embedded. */
  async update(tools: LoadedManifest[]): Promise<IndexUpdate> {
    const now = new Map(tools.map((t) => [t.manifest.id, t]));
    const removed = Object.keys(this.fp.tools).filter((id) => !now.has(id));
    const added: string[] = [];
    const changed: string[] = [];
    for (const t of tools) {
      const prev = this.fp.tools[t.manifest.id];
      if (!prev) added.push(t.manifest.id);
      else if (prev.hash !== t.hash) changed.push(t.manifest.id);
    }
    if (!removed.length && !added.length && !changed.length) return { added, changed, removed, rebuilt: false };
    for (const id of [...removed, ...changed]) this.removeTool(id);
    await this.addTools([...added, ...changed].map((id) => now.get(id)!));
    this.persist();
    this.opts.log?.('info', `tool index updated: +${added.length} ~${changed.length} -${removed.length}`);
    return { added, changed, removed, rebuilt: false };
  }

  private removeTool(id: string): void {
    for (const l of this.fp.tools[id]?.labels ?? []) {
      this.hnsw.remove(l);
      this.labelToTool.delete(l);
      this.vectors.delete(l);
    }
    delete this.fp.tools[id];
  }

  private async addTools(tools: LoadedManifest[]): Promise<void> {
    const { embedder, signal, onProgress } = this.opts;
    const jobs: { id: string; text: string }[] = [];
    for (const t of tools) for (const text of allTexts(t.manifest)) jobs.push({ id: t.manifest.id, text });
    const hashes = new Map(tools.map((t) => [t.manifest.id, t.hash]));
    for (const t of tools) this.fp.tools[t.manifest.id] = { hash: t.hash, labels: [] };
    const batch = 64;
    for (let i = 0; i < jobs.length; i += batch) {
      signal?.throwIfAborted();
      const slice = jobs.slice(i, i + batch);
      const vecs = await embedder.embed(slice.map((j) => j.text), signal);
      slice.forEach((j, n) => {
        const label = this.fp.nextLabel++;
        this.hnsw.add(label, vecs[n]);
        this.labelToTool.set(label, j.id);
        this.vectors.set(label, vecs[n]);
        this.fp.tools[j.id].labels.push(label);
      });
      onProgress?.(Math.min(1, (i + slice.length) / jobs.length), `embedded ${i + slice.length}/${jobs.length} tool texts`);
    }
    for (const [id, hash] of hashes) this.fp.tools[id].hash = hash;
  }

  private persist(): void {
    try {
      fs.mkdirSync(this.opts.stateDir, { recursive: true });
      this.hnsw.save(this.file);
      this.fp.indexSha256 = fileSha256(this.file);
      writeFileAtomic(this.fingerprintFile, JSON.stringify(this.fp, null, 1) + '\n');
    } catch (e) {
      this.opts.log?.('warn', `cannot save the tool index in ${this.opts.stateDir} (${(e as Error).message}); it stays in memory`);
    }
  }

  /** Dense scores per tool from the HNSW neighbours of `q`, max-pooled over each tool's texts. */
  search(q: Float32Array, kTools: number): Map<string, number> {
    const out = new Map<string, number>();
    const perTool = this.hnsw.size / Math.max(1, this.toolCount);
    const kv = Math.min(this.hnsw.size, Math.ceil(kTools * Math.max(2, perTool * 1.5)));
    for (const nb of this.hnsw.search(q, kv)) {
      const id = this.labelToTool.get(nb.label);
      if (id === undefined) continue;
      if (!out.has(id) || out.get(id)! < nb.score) out.set(id, nb.score);
    }
    return out;
  }

  /** Exact dense score of one tool (max cosine over its texts): rescoring for lexical-only candidates. */
  score(q: Float32Array, id: string): number {
    let best = -1;
    for (const l of this.fp.tools[id]?.labels ?? []) {
      const v = this.vectors.get(l);
      if (!v) continue;
      let s = 0;
      for (let j = 0; j < v.length; j++) s += v[j] * q[j];
      if (s > best) best = s;
    }
    return best < -0.5 ? 0 : best;
  }

  has(id: string): boolean { return id in this.fp.tools; }
}
