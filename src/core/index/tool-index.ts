/** The persisted dense tool index: a two-stage HNSW index (one vector per tool text) plus a fingerprint beside it. */
import * as fs from 'fs';
import * as path from 'path';
import type { Embedder } from '../embed/types';
import type { LoadedManifest } from '../manifests/types';
import { allTexts } from './text';
import { TwoStageIndex, twoStageOptions } from './two-stage';
import type { FitInfo, TwoStageFiles, TwoStageOptions } from './two-stage';
import type { HnswParams } from './vector-index';
import type { ProjectionOptions } from './projection';
import { fileSha256, jsonErrorMessage, readRegularFile, removeStaleTemps, writeFileAtomic } from './fs-util';

export const INDEX_FORMAT_VERSION = 2;

/** Sharpness of the soft maximum over a tool's texts (chosen on the practice tasks, dense only). */
export const POOL_BETA = 5;

/**
 * A soft maximum of a tool's text similarities: log-mean-exp. The best-matching text still
 * decides, and each further example that matches adds to it — a tool that several of its examples
 * describe beats one that a single phrase happens to match (dense R@5 on the practice tasks 0.75 →
 * 0.79 against the plain maximum). The mean, not the sum, keeps tools with many examples from
 * gaining on queries none of them matches.
 */
export function poolSimilarities(sims: number[], beta = POOL_BETA): number {
  if (!sims.length) return 0;
  const m = Math.max(...sims);
  let acc = 0;
  for (const s of sims) acc += Math.exp(beta * (s - m));
  return m + Math.log(acc / sims.length) / beta;
}
export const INDEX_FILE = 'tools.hnsw';
export const VECTORS_FILE = 'tools.vectors';
export const PROJECTION_FILE = 'tools.projection';
export const FINGERPRINT_FILE = 'tools.index.json';
/** A fingerprint lists a hash and labels per tool: tens of bytes per text, far below this. */
const MAX_FINGERPRINT_BYTES = 256 << 20;

/** Written beside the index; any mismatch with the current embedder/catalog triggers an update or rebuild. */
export interface Fingerprint {
  formatVersion: number;
  embedder: string;
  dimension: number;
  M: number;
  efConstruction: number;
  /** The options that decide whether and how the catalog is projected; a change rebuilds. */
  projectionOptions: ProjectionOptions;
  /** The fitted PCA projection the graph is built on (absent: the graph holds full vectors). */
  projection?: { method: 'pca'; dimension: number; energy: number; sha256: string };
  /** What the projection decision was made on (decides when to refit). */
  fit: FitInfo;
  /** sha256 of the index file, so a truncated or foreign file is never handed to hnswlib. */
  indexSha256: string;
  /** sha256 of the full-vector file (exact re-ranking and rescoring). */
  vectorsSha256: string;
  nextLabel: number;
  tools: Record<string, { hash: string; labels: number[] }>;
}

export interface IndexUpdate {
  added: string[];
  changed: string[];
  removed: string[];
  rebuilt: boolean;
  reason?: string;
  /** Set when the graph was rebuilt from the stored vectors (no re-embedding) to refit the projection. */
  refit?: string;
}

export interface ToolIndexOptions {
  stateDir: string;
  embedder: Embedder;
  /** Identity of the embedder in the fingerprint (defaults to `embedder.id`; includes a fit hash for fitted embedders). */
  embedderKey?: string;
  /** Ignore any saved index and rebuild. */
  rebuild?: boolean;
  params?: Partial<HnswParams>;
  projection?: Partial<ProjectionOptions>;
  /** Candidates re-ranked exactly per query when the graph is projected. */
  candidates?: number;
  log?: (level: 'info' | 'warn' | 'error', msg: string) => void;
  signal?: AbortSignal;
  onProgress?: (fraction: number, message: string) => void;
}

export class ToolIndex {
  readonly file: string;
  readonly fingerprintFile: string;
  private readonly files: TwoStageFiles;
  private hnsw!: TwoStageIndex;
  private fp!: Fingerprint;
  private labelToTool = new Map<number, string>();
  /** `toolCount`, until `fp.tools` changes (every change of it clears this). */
  private counted?: number;
  private readonly options: TwoStageOptions;

  private constructor(private readonly opts: ToolIndexOptions) {
    this.file = path.join(opts.stateDir, INDEX_FILE);
    this.fingerprintFile = path.join(opts.stateDir, FINGERPRINT_FILE);
    this.files = { graph: this.file, vectors: path.join(opts.stateDir, VECTORS_FILE), projection: path.join(opts.stateDir, PROJECTION_FILE) };
    this.options = twoStageOptions({ hnsw: opts.params, projection: opts.projection, candidates: opts.candidates });
  }

  /** Opens the index in `stateDir`, bringing it in line with `tools` (incrementally when possible). */
  static async open(tools: LoadedManifest[], opts: ToolIndexOptions): Promise<{ index: ToolIndex; update: IndexUpdate }> {
    const ti = new ToolIndex(opts);
    const reason = opts.rebuild ? 'rebuild requested' : ti.tryLoad();
    let update: IndexUpdate;
    if (reason !== undefined) {
      if (reason) opts.log?.(opts.rebuild ? 'info' : 'warn', `tool index ${ti.file}: ${reason}; rebuilding`);
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
  /** Counted once per change of the catalog (a search asks for it: counting the keys of thousands of tools each time took 5 % of a next step). */
  get toolCount(): number {
    return (this.counted ??= Object.keys(this.fp.tools).length);
  }
  get vectorCount(): number { return this.hnsw.size; }
  /** Dimension the HNSW graph works in (the PCA dimension for large low-rank catalogs). */
  get graphDimension(): number { return this.hnsw.graphDimension; }

  /** Returns undefined when loaded; otherwise why it could not be ("" when simply absent). */
  private tryLoad(): string | undefined {
    const { embedder } = this.opts;
    if (!fs.existsSync(this.fingerprintFile)) return fs.existsSync(this.file) ? 'fingerprint missing' : '';
    let fp: Fingerprint;
    try {
      fp = JSON.parse(readRegularFile(this.fingerprintFile, MAX_FINGERPRINT_BYTES).toString('utf8'));
    } catch (e) {
      return `fingerprint unreadable (${jsonErrorMessage(e)})`;
    }
    const malformed = fingerprintProblem(fp);
    if (malformed) return `fingerprint malformed (${malformed})`;
    if (fp.formatVersion !== INDEX_FORMAT_VERSION) return `format version ${fp.formatVersion} != ${INDEX_FORMAT_VERSION}`;
    if (fp.embedder !== this.embedderId) return `built with embedder ${fp.embedder}, now ${this.embedderId}`;
    if (fp.dimension !== embedder.dimension) return `dimension ${fp.dimension} != ${embedder.dimension}`;
    const p = this.options;
    if (fp.M !== p.hnsw.M || fp.efConstruction !== p.hnsw.efConstruction) return 'HNSW parameters changed';
    const po = fp.projectionOptions as Partial<ProjectionOptions> | undefined;
    if (!po || (Object.keys(p.projection) as (keyof ProjectionOptions)[]).some((k) => po[k] !== p.projection[k])) return 'projection parameters changed';
    if (!fs.existsSync(this.file)) return 'index file missing';
    if (!fs.existsSync(this.files.vectors)) return 'vectors file missing';
    if (fp.projection && !fs.existsSync(this.files.projection)) return 'projection file missing';
    try {
      if (fileSha256(this.file) !== fp.indexSha256) return 'index file corrupt (checksum mismatch)';
      if (fileSha256(this.files.vectors) !== fp.vectorsSha256) return 'vectors file corrupt (checksum mismatch)';
      if (fp.projection && fileSha256(this.files.projection) !== fp.projection.sha256) return 'projection file corrupt (checksum mismatch)';
      const labels = Object.values(fp.tools).flatMap((t) => t.labels);
      this.hnsw = TwoStageIndex.load(this.files, fp.dimension, labels, p, fp.fit, fp.projection);
    } catch (e) {
      return `index file unreadable (${(e as Error).message})`;
    }
    this.fp = fp;
    this.counted = undefined;
    this.labelToTool.clear();
    for (const [id, t] of Object.entries(fp.tools)) for (const l of t.labels) this.labelToTool.set(l, id);
    return undefined;
  }

  private async rebuild(tools: LoadedManifest[]): Promise<void> {
    const { embedder } = this.opts;
    const p = this.options;
    this.fp = { formatVersion: INDEX_FORMAT_VERSION, embedder: this.embedderId, dimension: embedder.dimension, M: p.hnsw.M, efConstruction: p.hnsw.efConstruction, projectionOptions: { ...p.projection }, fit: { vectors: 0, nextLabel: 0 }, indexSha256: '', vectorsSha256: '', nextLabel: 0, tools: {} };
    this.counted = undefined;
    this.labelToTool.clear();
    // Embed everything first: the projection is fitted on the whole catalog before the graph is built.
    const items = await this.embedTools(tools);
    this.buildGraph(items);
    this.persist();
  }

  private buildGraph(items: { label: number; vector: Float32Array }[]): void {
    this.hnsw = TwoStageIndex.build(this.opts.embedder.dimension, items, this.options, Math.ceil(items.length * 1.25) + 16);
    this.fp.fit = { ...this.hnsw.fit };
    const pr = this.hnsw.projection;
    this.fp.projection = pr ? { method: 'pca', dimension: pr.outDim, energy: pr.energy, sha256: pr.sha256 } : undefined;
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
    for (const it of await this.embedTools([...added, ...changed].map((id) => now.get(id)!))) this.hnsw.add(it.label, it.vector);
    const refit = this.hnsw.refitReason();
    if (refit) {
      this.opts.log?.('info', `tool index: ${refit}; rebuilding the graph from the stored vectors`);
      this.buildGraph(this.hnsw.entries());
    }
    this.persist();
    this.opts.log?.('info', `tool index updated: +${added.length} ~${changed.length} -${removed.length}`);
    return refit ? { added, changed, removed, rebuilt: false, refit } : { added, changed, removed, rebuilt: false };
  }

  private removeTool(id: string): void {
    for (const l of this.fp.tools[id]?.labels ?? []) {
      this.hnsw.remove(l);
      this.labelToTool.delete(l);
    }
    delete this.fp.tools[id];
    this.counted = undefined;
  }

  /** Embeds the tools' texts, assigning labels and recording them in the fingerprint. */
  private async embedTools(tools: LoadedManifest[]): Promise<{ label: number; vector: Float32Array }[]> {
    const out: { label: number; vector: Float32Array }[] = [];
    const { embedder, signal, onProgress } = this.opts;
    const jobs: { id: string; text: string }[] = [];
    for (const t of tools) for (const text of allTexts(t.manifest)) jobs.push({ id: t.manifest.id, text });
    const hashes = new Map(tools.map((t) => [t.manifest.id, t.hash]));
    for (const t of tools) this.fp.tools[t.manifest.id] = { hash: t.hash, labels: [] };
    this.counted = undefined;
    const batch = 64;
    for (let i = 0; i < jobs.length; i += batch) {
      signal?.throwIfAborted();
      const slice = jobs.slice(i, i + batch);
      const vecs = await embedder.embed(slice.map((j) => j.text), signal);
      slice.forEach((j, n) => {
        const label = this.fp.nextLabel++;
        out.push({ label, vector: vecs[n] });
        this.labelToTool.set(label, j.id);
        this.fp.tools[j.id].labels.push(label);
      });
      onProgress?.(Math.min(1, (i + slice.length) / jobs.length), `embedded ${i + slice.length}/${jobs.length} tool texts`);
    }
    for (const [id, hash] of hashes) this.fp.tools[id].hash = hash;
    return out;
  }

  private persist(): void {
    try {
      fs.mkdirSync(this.opts.stateDir, { recursive: true });
      for (const f of [this.file, this.files.vectors, this.files.projection, this.fingerprintFile]) removeStaleTemps(f);
      this.hnsw.save(this.files);
      this.fp.indexSha256 = fileSha256(this.file);
      this.fp.vectorsSha256 = fileSha256(this.files.vectors);
      writeFileAtomic(this.fingerprintFile, JSON.stringify(this.fp, null, 1) + '\n');
    } catch (e) {
      this.opts.log?.('warn', `cannot save the tool index in ${this.opts.stateDir} (${(e as Error).message}); it stays in memory`);
    }
  }

  /**
   * Dense scores per tool: the index's nearest texts propose the tools, then each is scored over
   * all its texts (exact cosines, pooled by `poolSimilarities`).
   */
  search(q: Float32Array, kTools: number): Map<string, number> {
    const perTool = this.hnsw.size / Math.max(1, this.toolCount);
    const kv = Math.min(this.hnsw.size, Math.ceil(kTools * Math.max(2, perTool * 1.5)));
    // Neighbours come with exact cosines; only a proposed tool's texts outside them need a dot product.
    const known = new Map<number, number>();
    const order = new Set<string>();
    for (const nb of this.hnsw.search(q, kv)) {
      const id = this.labelToTool.get(nb.label);
      if (id === undefined) continue;
      order.add(id);
      known.set(nb.label, nb.score);
    }
    const out = new Map<string, number>();
    for (const id of order) out.set(id, this.score(q, id, known));
    return out;
  }

  /** Exact dense scores of every tool (small catalogs are scored whole, without the graph). */
  scoreAll(q: Float32Array): Map<string, number> {
    let nz = 0;
    for (let i = 0; i < q.length; i++) if (q[i] !== 0) nz++;
    const idx = new Int32Array(nz);
    const val = new Float32Array(nz);
    for (let i = 0, j = 0; i < q.length; i++) if (q[i] !== 0) { idx[j] = i; val[j++] = q[i]; }
    const { labels, dots } = this.hnsw.scanSparse(idx, val);
    const sims = new Map<string, number[]>();
    for (let i = 0; i < labels.length; i++) {
      const id = this.labelToTool.get(labels[i]);
      if (id !== undefined) (sims.get(id) ?? sims.set(id, []).get(id)!).push(dots[i]);
    }
    const out = new Map<string, number>();
    for (const id of Object.keys(this.fp.tools)) {
      const s = sims.get(id);
      out.set(id, s?.length ? Math.max(0, poolSimilarities(s)) : 0);
    }
    return out;
  }

  /** Exact dense score of one tool, pooled over its texts (cosines in `known` are reused): also rescoring for lexical-only candidates. */
  score(q: Float32Array, id: string, known?: Map<number, number>): number {
    const sims: number[] = [];
    for (const l of this.fp.tools[id]?.labels ?? []) {
      const s = known?.get(l) ?? this.hnsw.dot(l, q);
      if (s !== undefined) sims.push(s);
    }
    return sims.length ? Math.max(0, poolSimilarities(sims)) : 0;
  }

  has(id: string): boolean { return id in this.fp.tools; }
}

/** What is wrong with a parsed fingerprint's shape (undefined when every field has its type). */
export function fingerprintProblem(fp: unknown): string | undefined {
  if (!fp || typeof fp !== 'object' || Array.isArray(fp)) return 'not an object';
  const f = fp as Record<string, unknown>;
  const isCount = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;
  for (const k of ['formatVersion', 'dimension', 'M', 'efConstruction', 'nextLabel'] as const) {
    if (!isCount(f[k])) return `"${k}" must be a non-negative integer`;
  }
  for (const k of ['embedder', 'indexSha256', 'vectorsSha256'] as const) {
    if (typeof f[k] !== 'string') return `"${k}" must be a string`;
  }
  if (!f.projectionOptions || typeof f.projectionOptions !== 'object') return '"projectionOptions" must be an object';
  const fit = f.fit as Record<string, unknown> | undefined;
  if (!fit || typeof fit !== 'object' || !isCount(fit.vectors) || !isCount(fit.nextLabel)) return '"fit" must hold the counts "vectors" and "nextLabel"';
  if (f.projection !== undefined) {
    const p = f.projection as Record<string, unknown>;
    if (!p || typeof p !== 'object' || p.method !== 'pca' || !isCount(p.dimension) || !(p.dimension as number > 0) || (p.dimension as number) >= (f.dimension as number) ||
      typeof p.energy !== 'number' || !Number.isFinite(p.energy) || typeof p.sha256 !== 'string') {
      return '"projection" must be {method: "pca", dimension below the embedder\'s, energy, sha256}';
    }
  }
  const tools = f.tools as Record<string, unknown> | undefined;
  if (!tools || typeof tools !== 'object' || Array.isArray(tools)) return '"tools" must be an object';
  const seen = new Set<number>();
  for (const [id, t] of Object.entries(tools)) {
    const e = t as { hash?: unknown; labels?: unknown } | null;
    if (!e || typeof e !== 'object' || typeof e.hash !== 'string' || !Array.isArray(e.labels)) return `tools["${id}"] must be {hash, labels}`;
    for (const l of e.labels) {
      if (!isCount(l) || (l as number) >= (f.nextLabel as number)) return `tools["${id}"].labels holds ${JSON.stringify(l)}, not a label below nextLabel`;
      if (seen.has(l as number)) return `label ${l} is recorded twice`;
      seen.add(l as number);
    }
  }
  return undefined;
}
