/**
 * Provenance of a run: which tool (and which version of its manifest and of GeoWeave), with which
 * arguments, on which input files (size, modification time, SHA-256 of the content), how long it
 * took. Kept in the cell's metadata and written into each GeoTIFF output's GDAL metadata, so a file
 * found later says how it was made. Input hashing streams the file (never reads it whole) and runs
 * beside the tool, in the run path.
 */
import { fileLayer } from './raster-files';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { findPackageRoot, builtinManifestDir } from '../manifests/package-root';
import { redactText, redactUrl } from '../net/redact';
import { stableStringify } from '../notebook/notebook-file';
import { cachedHash, rememberHash, statKey } from './hash-cache';

/** One input file as it was when the run read it. */
export interface InputRecord {
  /** Absolute path (or a URL, credentials removed). */
  path: string;
  size?: number;
  /** Modification time, ISO 8601 UTC. */
  mtime?: string;
  sha256?: string;
  /** Why there is no hash (remote, unreadable). */
  note?: string;
  /** The VRT that reads this file: a virtual raster's pixels are its sources', so they are inputs too. */
  via?: string;
}

export interface RunProvenance {
  tool: string;
  /** The manifest's `version`, else `sha256:<12 hex>` of its canonical JSON; absent when no manifest is known. */
  manifest?: string;
  geoweave: string;
  /** Arguments as given to the run (references resolved, secrets redacted, long values cut). */
  args: Record<string, unknown>;
  inputs: InputRecord[];
  /** Inputs beyond MAX_INPUTS that are not listed. */
  inputsOmitted?: number;
  started: string;
  durationMs: number;
}

/** At most this many inputs are listed (a long time series lists its first ones and counts the rest). */
export const MAX_INPUTS = 32;
/** String argument values longer than this are cut (with a note of the full length). */
export const MAX_ARG_CHARS = 512;
/** List arguments keep at most this many items. */
export const MAX_ARG_ITEMS = 64;

let version: string | undefined;
/** GeoWeave's version from its package.json ("unknown" when it cannot be found). */
export function geoweaveVersion(): string {
  if (version !== undefined) return version;
  const root = findPackageRoot(__dirname);
  try {
    version = root ? String(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version ?? 'unknown') : 'unknown';
  } catch {
    version = 'unknown';
  }
  return version;
}

/** A manifest's version: its `version` field, else a short hash of its canonical JSON (any edit changes it). */
export function manifestVersion(manifest: unknown): string | undefined {
  if (!manifest || typeof manifest !== 'object') return undefined;
  const v = (manifest as { version?: unknown }).version;
  if (typeof v === 'string' && v) return v;
  return `sha256:${createHash('sha256').update(stableStringify(manifest)).digest('hex').slice(0, 12)}`;
}

const manifestCache = new Map<string, string | undefined>();
/** The version of the builtin catalog's manifest of `tool`, undefined when it has none. */
export function builtinManifestVersion(tool: string): string | undefined {
  if (manifestCache.has(tool)) return manifestCache.get(tool);
  let v: string | undefined;
  const dir = builtinManifestDir();
  if (dir && /^[A-Za-z0-9_.-]+$/.test(tool)) {
    try { v = manifestVersion(JSON.parse(fs.readFileSync(path.join(dir, `${tool}.json`), 'utf8'))); } catch { v = undefined; }
  }
  manifestCache.set(tool, v);
  return v;
}

/** Arguments fit for a record: secrets redacted, long strings and lists cut, no prototype tricks. */
export function boundedArgs(args: Record<string, unknown>): Record<string, unknown> {
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') {
      const s = redactText(v);
      return s.length > MAX_ARG_CHARS ? `${s.slice(0, MAX_ARG_CHARS)}… (${s.length} characters)` : s;
    }
    if (typeof v === 'number') return Number.isFinite(v) ? v : String(v);
    if (typeof v === 'boolean' || v === null) return v;
    if (depth > 4) return '…';
    if (Array.isArray(v)) {
      const items = v.slice(0, MAX_ARG_ITEMS).map((x) => walk(x, depth + 1));
      if (v.length > MAX_ARG_ITEMS) items.push(`… (${v.length} items)`);
      return items;
    }
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = Object.create(null);
      for (const k of Object.keys(v).slice(0, MAX_ARG_ITEMS)) out[k] = walk((v as Record<string, unknown>)[k], depth + 1);
      return { ...out };
    }
    return v === undefined ? null : String(v);
  };
  return walk(args ?? {}, 0) as Record<string, unknown>;
}

const hashCache = new Map<string, string>();

/**
 * SHA-256 of a file, streamed in 1 MB chunks so that a large file never sits in memory and the
 * event loop turns between chunks. Cached by path, size, mtime, ctime and inode, in memory and on
 * disk (./hash-cache.ts): a re-run, even in a new process, does not read an unchanged file again.
 */
export async function sha256File(file: string, signal?: AbortSignal): Promise<{ sha256: string; size: number; mtime: string }> {
  const st = await fs.promises.stat(file);
  // Opening a FIFO or a device waits for a writer that never comes, in one of libuv's four pool
  // threads; four such inputs and every later file operation of the process hangs.
  if (!st.isFile()) throw new Error('not a regular file');
  const key = statKey(file, st);
  const mtime = st.mtime.toISOString();
  const cached = hashCache.get(key) ?? cachedHash(key);
  if (cached) { hashCache.set(key, cached); return { sha256: cached, size: st.size, mtime }; }
  if (signal?.aborted) throw new Error('hashing stopped: the run was cancelled');
  const hash = createHash('sha256');
  const stream = fs.createReadStream(file, { highWaterMark: 1 << 20 });
  const onAbort = () => stream.destroy(new Error('hashing stopped: the run was cancelled'));
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for await (const chunk of stream) hash.update(chunk as Buffer);
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  const sha256 = hash.digest('hex');
  if (hashCache.size > 1024) hashCache.clear();
  hashCache.set(key, sha256);
  // Only when the file did not change while it was read (else the hash names no state of it).
  const after = await fs.promises.stat(file).catch(() => undefined);
  if (after && statKey(file, after) === key) rememberHash(key, sha256);
  return { sha256, size: st.size, mtime };
}

/** Records of the given input paths (local files hashed, URLs listed); never throws. */
export async function describeInputs(paths: string[], signal?: AbortSignal): Promise<{ inputs: InputRecord[]; omitted: number }> {
  const queue: { path: string; via?: string }[] = [...new Set(paths)].map((p) => ({ path: p }));
  const seen = new Set(queue.map((q) => q.path));
  const inputs: InputRecord[] = [];
  let omitted = 0;
  for (let i = 0; i < queue.length; i++) {
    const { path: p, via } = queue[i];
    if (inputs.length >= MAX_INPUTS) { omitted++; continue; }
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(p)) { inputs.push({ path: redactUrl(p), note: 'remote: not hashed', ...(via ? { via } : {}) }); continue; }
    try {
      // A NetCDF variable (era5.nc#t2m) is recorded by its file's hash.
      inputs.push({ path: p, ...(await sha256File(fileLayer(p)?.file ?? p, signal)), ...(via ? { via } : {}) });
    } catch (e) {
      if (signal?.aborted) throw e;
      inputs.push({ path: p, note: `not hashed: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, ...(via ? { via } : {}) });
      continue;
    }
    // A VRT's sources follow it (nested VRTs' too), each once.
    for (const s of vrtSources(p)) if (!seen.has(s)) { seen.add(s); queue.push({ path: s, via: p }); }
  }
  return { inputs, omitted };
}

/** The source files a local VRT names (none for any other file, or a VRT that does not parse). */
function vrtSources(file: string): string[] {
  if (!/\.vrt$/i.test(file)) return [];
  try {
    const { parseVrt, MAX_VRT_BYTES } = require('./io/vrt/vrt-parse') as typeof import('./io/vrt/vrt-parse');
    if (fs.statSync(file).size > MAX_VRT_BYTES) return [];
    return [...new Set(parseVrt(file, fs.readFileSync(file, 'utf8')).bands.flatMap((b) => b.sources.map((s) => s.file)))];
  } catch {
    return [];
  }
}

/** Input file paths among validated arguments, by the kind of each parameter. */
export function inputPaths(args: Record<string, unknown>, kinds: Record<string, string>): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(args)) {
    const kind = kinds[k];
    if (kind !== 'raster' && kind !== 'raster_list' && kind !== 'vector') continue;
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) out.push(...v.filter((x): x is string => typeof x === 'string'));
    else if (v && typeof v === 'object') out.push(...Object.values(v).filter((x): x is string => typeof x === 'string'));
  }
  return out;
}

/**
 * The record of a catalog tool's run (a command, a service, an MCP server), begun once its
 * arguments are checked: its file inputs are hashed in the background while the tool runs, and
 * `provenance()` is the record as of the moment it is asked (duration included).
 */
export function startRunRecord(manifest: { id: string; inputs?: { name: string; type: string }[] }, args: Record<string, unknown>, values: Record<string, unknown>): { t0: number; stop(): void; provenance(): Promise<RunProvenance> } {
  const t0 = Date.now();
  const started = new Date(t0).toISOString();
  const kinds = Object.fromEntries((manifest.inputs ?? []).map((p) => [p.name, p.type === 'array' ? 'raster_list' : p.type]));
  const stop = new AbortController();
  const hashing = describeInputs(inputPaths(values, kinds), stop.signal).then((r) => ({ ok: true as const, r }), () => ({ ok: false as const }));
  return {
    t0,
    stop: () => stop.abort(),
    async provenance() {
      const h = await hashing;
      return {
        tool: manifest.id, ...(manifestVersion(manifest) ? { manifest: manifestVersion(manifest) } : {}),
        geoweave: geoweaveVersion(), args: boundedArgs(args ?? {}),
        inputs: h.ok ? h.r.inputs : [], ...(h.ok && h.r.omitted ? { inputsOmitted: h.r.omitted } : {}),
        started, durationMs: Date.now() - t0,
      };
    },
  };
}

/**
 * The GDAL metadata items a GeoTIFF output carries (`gdalinfo` lists them): what determines its
 * content. When and how long it ran stay in the cell's record: the same call on the same inputs
 * then writes the same bytes, so a later step's input hash does not change with every re-run.
 */
export function provenanceItems(p: RunProvenance): Record<string, string> {
  return {
    GEOWEAVE_TOOL: p.tool,
    ...(p.manifest ? { GEOWEAVE_MANIFEST: p.manifest } : {}),
    GEOWEAVE_VERSION: p.geoweave,
    GEOWEAVE_ARGS: JSON.stringify(sorted(p.args)),
    GEOWEAVE_INPUTS: JSON.stringify(p.inputs.map((i) => sorted(i))),
    ...(p.inputsOmitted ? { GEOWEAVE_INPUTS_OMITTED: String(p.inputsOmitted) } : {}),
  };
}

function sorted(v: unknown): unknown {
  return JSON.parse(stableStringify(v));
}

/** A provenance record read back from a notebook file, or undefined when it is not one. */
export function provenanceFromMetadata(v: unknown): RunProvenance | undefined {
  const r = v as RunProvenance;
  if (!r || typeof r !== 'object' || typeof r.tool !== 'string' || typeof r.geoweave !== 'string' || !Array.isArray(r.inputs)) return undefined;
  const inputs = r.inputs.filter((i) => i && typeof i === 'object' && typeof i.path === 'string').slice(0, MAX_INPUTS).map((i) => ({
    path: i.path,
    ...(typeof i.size === 'number' ? { size: i.size } : {}),
    ...(typeof i.mtime === 'string' ? { mtime: i.mtime } : {}),
    ...(typeof i.sha256 === 'string' && /^[0-9a-f]{64}$/.test(i.sha256) ? { sha256: i.sha256 } : {}),
    ...(typeof i.note === 'string' ? { note: i.note } : {}),
    ...(typeof i.via === 'string' ? { via: i.via } : {}),
  }));
  return {
    tool: r.tool,
    ...(typeof r.manifest === 'string' ? { manifest: r.manifest } : {}),
    geoweave: r.geoweave,
    args: r.args && typeof r.args === 'object' && !Array.isArray(r.args) ? boundedArgs(r.args) : {},
    inputs,
    ...(typeof r.inputsOmitted === 'number' && r.inputsOmitted > 0 ? { inputsOmitted: r.inputsOmitted } : {}),
    started: typeof r.started === 'string' ? r.started : '',
    durationMs: typeof r.durationMs === 'number' && Number.isFinite(r.durationMs) ? r.durationMs : 0,
  };
}

/** One line for the result card: "ndvi (manifest sha256:…) · GeoWeave 0.1.0 · 1.2 s · s2_scene.tif 12.3 MB sha256 3fa2c1d4…". */
export function provenanceLine(p: RunProvenance): string {
  const parts = [`${p.tool}${p.manifest ? ` (manifest ${p.manifest})` : ''}`, `GeoWeave ${p.geoweave}`, seconds(p.durationMs)];
  const files = p.inputs.slice(0, 3).map((i) => {
    const name = i.path.includes('/') ? i.path.slice(i.path.lastIndexOf('/') + 1) : i.path;
    return [name, i.size !== undefined ? bytes(i.size) : '', i.sha256 ? `sha256 ${i.sha256.slice(0, 12)}…` : i.note ?? ''].filter(Boolean).join(' ');
  });
  const more = p.inputs.length - files.length + (p.inputsOmitted ?? 0);
  if (files.length) parts.push(`inputs: ${files.join('; ')}${more > 0 ? `; +${more} more` : ''}`);
  return parts.join(' · ');
}

function seconds(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10000 ? 1 : 0)} s`;
}

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const u = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1024, i = 0;
  while (v >= 1024 && i < u.length - 1) { v /= 1024; i++; }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${u[i]}`;
}
