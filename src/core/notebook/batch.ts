/**
 * A batch run of one tool cell over several inputs. An argument whose input takes ONE raster (or
 * vector) may be given several: a glob (`scenes/*.tif`, `**` for any depth, relative to the
 * workspace folder, sorted by path) or a list (`[a.tif, b.tif]`), or a `$cell.output` reference to a
 * cell that itself ran as a batch (this cell then runs item by item over the same items). The tool
 * runs once per input, sequentially, each item in a sub-folder of the cell's output folder named
 * from the input's stem; an item that fails is reported and the others still run. Inputs that take
 * a list already (a time series' `images`) keep their meaning. Plain data and files, no VS Code.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ToolRunResult } from '../raster/types';
import type { RunProvenance } from '../raster/provenance';
import type { ArgValue, CellRunRecord, ToolCall } from './types';
import { isReference, referencesIn, setOwn } from './cell-value';
import { findCell, insideScope, resolveReferences, type EarlierCell, type ReferenceScope } from './references';
import { safeSegment } from './cell-outputs';
import { aliasOf } from '../raster/arg-aliases';
import { writeFileAtomic } from '../index/fs-util';
import { GlobLimitError, MAX_GLOB_ENTRIES, expandGlob as expandGlobShared, isGlob } from '../data/globs';

/** Most inputs one cell runs over (a glob matching more is refused: narrow it or split the cell). */
export const MAX_BATCH_ITEMS = 1000;
/** Characters of an item's error kept in the notebook. */
const SAVED_ERROR = 300;

/** How an input takes files: one (`single`, may be batched), a list (`list`, never batched), or not a file. */
export type InputShape = 'single' | 'list' | 'other';

export class BatchError extends Error {}

/** Input shapes from the raster engine's parameter kinds. */
export function shapesFromKinds(params: Record<string, { kind: string }>): Record<string, InputShape> {
  const out: Record<string, InputShape> = {};
  for (const [k, p] of Object.entries(params)) out[k] = p.kind === 'raster' || p.kind === 'vector' ? 'single' : p.kind === 'raster_list' ? 'list' : 'other';
  return out;
}

/** Input shapes from a manifest's inputs (process tools): raster/vector take one file, arrays a list. */
export function shapesFromManifest(inputs: { name: string; type: string }[] | undefined): Record<string, InputShape> {
  const out: Record<string, InputShape> = {};
  for (const i of inputs ?? []) out[i.name] = i.type === 'raster' || i.type === 'vector' ? 'single' : i.type === 'array' ? 'list' : 'other';
  return out;
}

// Patterns are read by the one implementation the engine uses too (core/data/globs.ts); the
// batch adds its limits (MAX_BATCH_ITEMS, the entry budget as a BatchError) and the workspace rule.
export { isGlob } from '../data/globs';

/** Files matching `pattern` (relative to `cwd`, or absolute), sorted; see core/data/globs.ts. A
 *  pattern that looks at too many directory entries is a BatchError. */
export function expandGlob(pattern: string, cwd: string): string[] {
  try {
    return expandGlobShared(pattern, cwd, { maxEntries: MAX_GLOB_ENTRIES, maxMatches: MAX_BATCH_ITEMS });
  } catch (e) {
    if (e instanceof GlobLimitError) throw new BatchError(e.message);
    throw e;
  }
}

/** The matches of a pattern whose literal folders are in the workspace, less those a wildcard reached
 *  through a link out of it (a `*` folder in scenes/ that is a link to elsewhere). A pattern whose
 *  literal part leads out ("..", an absolute path) names those files itself, as a single path may. */
function insideWhereStarted(pattern: string, cwd: string, files: string[]): string[] {
  const real = (f: string) => { try { return fs.realpathSync(f); } catch { return undefined; } };
  const literal = pattern.trim().replace(/\\/g, '/').split('/');
  const firstWild = literal.findIndex((seg) => /[*?]/.test(seg));
  const start = real(path.resolve(cwd, literal.slice(0, Math.max(0, firstWild)).join('/') || '.'));
  const root = real(cwd);
  const within = (f: string | undefined) => !!f && !!root && (f === root || f.startsWith(root + path.sep));
  if (!within(start)) return files;
  return files.filter((f) => within(real(f)));
}

/** The files a glob for `arg` matches, or a BatchError naming `arg` when none or too many do. */
function globFiles(arg: string, pattern: string, cwd: string): string[] {
  const files = insideWhereStarted(pattern, cwd, expandGlob(pattern, cwd));
  if (!files.length) throw new BatchError(`${arg}: no file matches "${pattern}" in ${path.isAbsolute(pattern) ? path.parse(pattern).root : cwd} (a pattern is read from that folder; * matches within a name, ** any folders; hidden files and folders are not searched); check the pattern or give the file`);
  if (files.length > MAX_BATCH_ITEMS) throw new BatchError(`${arg}: "${pattern}" matches more than ${MAX_BATCH_ITEMS} files; a cell runs at most ${MAX_BATCH_ITEMS} inputs: narrow the pattern or split the cell`);
  return files;
}

/** The shape of `arg` for a tool, also under an alias (`before` for `pre`). */
function shapeIn(shapes: Record<string, InputShape>, arg: string): InputShape {
  const known = Object.keys(shapes);
  return shapes[Object.hasOwn(shapes, arg) ? arg : aliasOf(arg, known) ?? ''] ?? 'other';
}

/**
 * A call whose list inputs (a time series' `images`) may be given as a glob, or as a list with
 * globs in it: each glob becomes the files it matches, sorted, as workspace-relative paths when they
 * are in the workspace. The same rules as a batch glob: a glob that matches nothing or more than
 * MAX_BATCH_ITEMS files is refused with the argument named, wildcards do not lead out of the
 * workspace through links, hidden folders are not searched.
 */
export function expandListGlobs<T extends Pick<ToolCall, 'args'>>(call: T, shapes: Record<string, InputShape>, cwd: string): T {
  let args: ToolCall['args'] | undefined;
  for (const [arg, v] of Object.entries(call.args)) {
    if (shapeIn(shapes, arg) !== 'list') continue;
    const entries = typeof v === 'string' ? [v] : Array.isArray(v) ? v : undefined;
    if (!entries?.some((x) => typeof x === 'string' && isGlob(x))) continue;
    const files: ArgValue[] = [];
    for (const x of entries) {
      if (typeof x === 'string' && isGlob(x)) files.push(...globFiles(arg, x, cwd).map((f) => relPosix(cwd, f)));
      else files.push(x);
    }
    if (files.length > MAX_BATCH_ITEMS) throw new BatchError(`${arg}: the patterns match ${files.length} files; a cell takes at most ${MAX_BATCH_ITEMS}: narrow them`);
    args ??= { ...call.args };
    setOwn(args, arg, files);
  }
  return args ? { ...call, args } : call;
}

/** Sub-folder names from the inputs' file names without extension, made safe and unique (`a`, `a-2`; case-blind, for case-insensitive disks). */
export function itemNames(inputs: string[]): string[] {
  const taken = new Set<string>();
  return inputs.map((p) => {
    const base = p.replace(/\\/g, '/').replace(/\/+$/, '').split('/').pop() ?? p;
    const stem = safeSegment(base.replace(/\.(tiff?|geojson|json|vrt|img|jp2|nc)$/i, '').replace(/\.[A-Za-z0-9]{1,5}$/, '')).slice(0, 48);
    let name = stem;
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${stem}-${n}`;
    taken.add(name.toLowerCase());
    return name;
  });
}

/** One input of a batch: its sub-folder name, the input as written (for the table), the tool's arguments. */
export interface BatchItemPlan {
  name: string;
  input: string;
  args: Record<string, unknown>;
  /** Set when the item cannot run (its input item failed in the batched cell it refers to). */
  skip?: string;
}

export interface BatchPlan {
  /** The batched argument(s): one, or several that refer to the same batched cell. */
  args: string[];
  /** How the inputs were given: the glob, the list, or `$cell` (text for the card and the table). */
  source: string;
  kind: 'glob' | 'list' | 'cell';
  items: BatchItemPlan[];
}

/** What the cell's record keeps of a batch: every item's name, input, status and outputs (for references and export). */
export interface BatchRecord {
  args: string[];
  source: string;
  kind: 'glob' | 'list' | 'cell';
  /** `started` and `durationMs` of an item's run: kept here, not in its result.json, so that file is the same for identical runs. */
  items: { name: string; input: string; ok: boolean; outputs?: CellRunRecord['outputs']; error?: string; started?: string; durationMs?: number }[];
}

const relPosix = (cwd: string, f: string) => { const r = path.relative(cwd, f); return (r && !r.startsWith('..') && !path.isAbsolute(r) ? r : f).split(path.sep).join('/'); };

/**
 * The batch a cell asks for, or undefined for an ordinary (single) run. Throws a BatchError naming
 * the argument when two arguments are batched, a glob matches nothing, a list is empty or holds
 * something that is not a file, or a reference to a batched cell cannot be followed.
 */
export function planBatch(call: Pick<ToolCall, 'tool' | 'args'>, shapes: Record<string, InputShape>, earlier: EarlierCell[], scope: ReferenceScope, cwd: string): BatchPlan | undefined {
  const shapeOf = (arg: string): InputShape => shapeIn(shapes, arg);
  const batchedCell = (name: string) => { const c = findCell(name, earlier); return c?.run?.ok && c.run.batch ? c : undefined; };
  type Source = { key: string; kind: BatchPlan['kind']; args: string[]; what: string };
  const sources: Source[] = [];
  for (const [arg, v] of Object.entries(call.args)) {
    const shape = shapeOf(arg);
    if (isReference(v) && batchedCell(v.$ref.cell)) {
      if (shape === 'list') throw new BatchError(`${arg}: $${v.$ref.cell}.${v.$ref.output} is a batch of ${batchedCell(v.$ref.cell)!.run!.batch!.items.length} items, and ${call.tool}'s ${arg} takes a list; list the files you want instead, e.g. [a.tif, b.tif]`);
      const key = `cell:${v.$ref.cell}`;
      const s = sources.find((x) => x.key === key);
      if (s) s.args.push(arg); else sources.push({ key, kind: 'cell', args: [arg], what: `$${v.$ref.cell}.${v.$ref.output}, a batched cell` });
      continue;
    }
    const nested = referencesIn(v).find((r) => batchedCell(r.$ref.cell));
    if (nested && !(shape === 'single' && Array.isArray(v))) {
      throw new BatchError(`${arg}: $${nested.$ref.cell}.${nested.$ref.output} is a batch of several items; refer to a batched cell as the whole value of an argument that takes one file (then this cell runs item by item), e.g. "${arg}: $${nested.$ref.cell}.${nested.$ref.output}"`);
    }
    if (shape !== 'single') continue;
    if (Array.isArray(v)) sources.push({ key: `list:${arg}`, kind: 'list', args: [arg], what: `a list of ${v.length}` });
    else if (typeof v === 'string' && isGlob(v)) sources.push({ key: `glob:${arg}`, kind: 'glob', args: [arg], what: `the pattern "${v}"` });
  }
  if (!sources.length) return undefined;
  if (sources.length > 1) {
    const parts = sources.map((s) => `${s.args.join(', ')} (${s.what})`);
    throw new BatchError(`only one argument can be given several inputs (a batch), but ${parts.join(' and ')} each give several; give all but one of them a single file, or split the run into several`);
  }
  const src = sources[0];
  const batched = new Set(src.args);
  const base = resolveReferences(Object.fromEntries(Object.entries(call.args).filter(([k]) => !batched.has(k))), earlier, scope);
  const withItem = (values: Record<string, unknown>): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(call.args)) setOwn(out, k, batched.has(k) ? values[k] : base[k]);
    return out;
  };
  const arg = src.args[0];
  const v = call.args[arg];
  let items: BatchItemPlan[];
  let source: string;
  if (src.kind === 'glob') {
    const pattern = v as string;
    const files = globFiles(arg, pattern, cwd);
    const inputs = files.map((f) => relPosix(cwd, f));
    const names = itemNames(inputs);
    items = files.map((f, i) => ({ name: names[i], input: inputs[i], args: withItem({ [arg]: f }) }));
    source = pattern;
  } else if (src.kind === 'list') {
    const list = v as ArgValue[];
    if (!list.length) throw new BatchError(`${arg}: the list is empty; give one or more files, e.g. [a.tif, b.tif]`);
    if (list.length > MAX_BATCH_ITEMS) throw new BatchError(`${arg}: the list has ${list.length} files; a cell runs at most ${MAX_BATCH_ITEMS} inputs: split the cell`);
    const values = list.map((x, i) => {
      if (typeof x === 'string' && x.trim()) {
        if (isGlob(x)) throw new BatchError(`${arg}: list item ${i + 1} "${x}" is a pattern; give either one pattern or a list of files`);
        return x.trim();
      }
      if (isReference(x)) return resolveReferences({ [arg]: x }, earlier, scope)[arg] as string;
      throw new BatchError(`${arg}: list item ${i + 1} must be a file path, got ${JSON.stringify(x)}; ${arg} takes one file per run, and a list runs the cell once per file`);
    });
    const inputs = list.map((x, i) => (isReference(x) ? `$${x.$ref.cell}.${x.$ref.output}` : values[i]));
    const names = itemNames(values);
    items = values.map((x, i) => ({ name: names[i], input: inputs[i], args: withItem({ [arg]: x }) }));
    source = `[${inputs.join(', ')}]`;
  } else {
    const cellName = (v as { $ref: { cell: string } }).$ref.cell;
    const cell = batchedCell(cellName)!;
    const batch = cell.run!.batch!;
    const okItems = batch.items.filter((it) => it.ok);
    for (const a of src.args) {
      const output = (call.args[a] as { $ref: { output: string } }).$ref.output;
      const has = okItems.some((it) => it.outputs && Object.hasOwn(it.outputs, output));
      if (!has) {
        const names = [...new Set(okItems.flatMap((it) => Object.keys(it.outputs ?? {})))];
        throw new BatchError(`${a}: cell "${cellName}" (${cell.tool}) has no output "${output}"; its items' outputs are ${names.join(', ') || 'none'}`);
      }
    }
    items = batch.items.map((it) => {
      if (!it.ok) return { name: it.name, input: it.input, args: {}, skip: `item "${it.name}" failed in cell "${cellName}"; fix it there and run that cell again` };
      const values: Record<string, unknown> = {};
      for (const a of src.args) {
        const output = (call.args[a] as { $ref: { output: string } }).$ref.output;
        const o = it.outputs && Object.hasOwn(it.outputs, output) ? it.outputs[output] : undefined;
        if (!o) return { name: it.name, input: it.input, args: {}, skip: `item "${it.name}" of cell "${cellName}" has no output "${output}"` };
        if (!insideScope(o.path, scope.roots)) throw new BatchError(`${a}: $${cellName}.${output} of item "${it.name}" points at ${o.path}, outside the workspace and the outputs folder; the notebook's record of that run is not trusted: run cell "${cellName}" again`);
        values[a] = o.path;
      }
      return { name: it.name, input: it.input, args: withItem(values) };
    });
    source = `$${cellName}`;
  }
  return { args: src.args, source, kind: src.kind, items };
}

/** One finished (or failed) item of a batch run. */
export interface BatchItemResult {
  name: string;
  input: string;
  outDir: string;
  args: Record<string, unknown>;
  result?: ToolRunResult;
  error?: string;
}

/** Thrown when the run is stopped: the items finished before stay whole in their folders. */
export class BatchStopped extends Error {
  constructor(readonly done: BatchItemResult[], readonly at: number, readonly total: number) {
    super(`stopped during item ${at + 1} of ${total}; ${done.length ? `${done.length} item${done.length === 1 ? '' : 's'} before it finished and stay in their folders` : 'no item had finished'}`);
    this.name = 'AbortError';
  }
}

export type RunOne = (args: Record<string, unknown>, opts: { outDir: string; signal: AbortSignal; onProgress: (fraction: number, message?: string) => void }) => Promise<ToolRunResult>;

export interface BatchRunOptions {
  signal?: AbortSignal;
  /** Overall fraction and a stage such as "item 2 of 5 (scene_b): 40%". */
  onProgress?: (fraction: number, stage: string) => void;
  /** Turns an error into the text the item shows (cell syntax in a notebook). */
  errorText?: (e: unknown) => string;
}

/**
 * Runs the plan's items one after another, each into `<outDir>/<item>`; each finished item also
 * gets `result.json` there (tool, input, summary, statistics, outputs, provenance; written whole or
 * not at all). An item that fails is recorded and the next one runs. Stopping (the signal) ends the
 * run at once: the current item leaves nothing, and BatchStopped is thrown.
 */
export async function runBatch(plan: BatchPlan, outDir: string, runOne: RunOne, opts: BatchRunOptions = {}): Promise<BatchItemResult[]> {
  const signal = opts.signal ?? new AbortController().signal;
  const n = plan.items.length;
  const done: BatchItemResult[] = [];
  const errorText = opts.errorText ?? ((e: unknown) => (e instanceof Error ? e.message : String(e)));
  for (const [i, item] of plan.items.entries()) {
    if (signal.aborted) throw new BatchStopped(done, i, n);
    const dir = path.join(outDir, item.name);
    const stage = (f: number, m?: string) => `item ${i + 1} of ${n} (${item.name}): ${Math.round(f * 100)}%${m ? ` ${m}` : ''}`;
    opts.onProgress?.(i / n, stage(0));
    if (item.skip) { done.push({ name: item.name, input: item.input, outDir: dir, args: item.args, error: item.skip }); continue; }
    try {
      const result = await runOne(item.args, { outDir: dir, signal, onProgress: (f, m) => opts.onProgress?.((i + Math.max(0, Math.min(1, f))) / n, stage(f, m)) });
      // Finished (its files are in place) even when stopping was asked for meanwhile: it counts as done.
      writeFileAtomic(path.join(dir, 'result.json'), resultJson(item, result));
      done.push({ name: item.name, input: item.input, outDir: dir, args: item.args, result });
    } catch (e) {
      if (e instanceof BatchStopped) throw e;
      if (signal.aborted) throw new BatchStopped(done, i, n);
      done.push({ name: item.name, input: item.input, outDir: dir, args: item.args, error: errorText(e) });
    }
  }
  opts.onProgress?.(1, `${n} of ${n} items`);
  return done;
}

/**
 * An item's result.json: what was computed and from what, the same bytes for two identical runs.
 * When and how long it ran are not in it; they stay in the cell's run record (batchRunRecord).
 */
export function resultJson(item: Pick<BatchItemPlan, 'name' | 'input'>, result: ToolRunResult): string {
  const { started: _started, durationMs: _durationMs, ...provenance } = result.provenance ?? ({} as Partial<RunProvenance>);
  return JSON.stringify(sortKeys({
    item: item.name, input: item.input, tool: result.tool, summary: result.summary, stats: result.stats,
    outputs: Object.fromEntries(Object.entries(result.outputs).map(([k, o]) => [k, path.basename(o.path)])),
    provenance: result.provenance ? provenance : null,
  }), null, 1) + '\n';
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]));
  return v;
}

/** "Ran on 3 inputs (image: scenes/*.tif): 2 succeeded, 1 failed (c: …). a: <its summary>" (the tool is named beside it). */
export function batchSummary(tool: string, plan: Pick<BatchPlan, 'args' | 'source'>, items: BatchItemResult[], withFirst = true, lang: 'en' | 'zh' = 'en'): string {
  const ok = items.filter((r) => r.result);
  const failed = items.filter((r) => !r.result);
  if (lang === 'zh') {
    const why = failed.slice(0, 3).map((f) => `${f.name}: ${short(f.error ?? '', 120)}`).join('；') + (failed.length > 3 ? '；…' : '');
    return `已对 ${items.length} 个输入运行（${plan.args.join(', ')}: ${plan.source}）：${ok.length} 个成功${failed.length ? `，${failed.length} 个失败（${why}）` : ''}。`;
  }
  const head = `Ran on ${items.length} input${items.length === 1 ? '' : 's'} (${plan.args.join(', ')}: ${plan.source}): ${ok.length} succeeded${failed.length ? `, ${failed.length} failed (${failed.slice(0, 3).map((f) => `${f.name}: ${short(f.error ?? '', 120)}`).join('; ')}${failed.length > 3 ? '; …' : ''})` : ''}.`;
  return ok.length && withFirst ? `${head} ${ok[0].name}: ${ok[0].result!.summary}` : head;
}

function short(s: string, n: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
}

/** The cell's record of a batch: ok when at least one item succeeded; no top-level outputs (they are per item). */
export function batchRunRecord(tool: string, plan: BatchPlan, items: BatchItemResult[], time: string): CellRunRecord {
  const batch: BatchRecord = {
    args: plan.args, source: plan.source, kind: plan.kind,
    items: items.map((r) => {
      if (!r.result) return { name: r.name, input: r.input, ok: false, error: short(r.error ?? 'failed', SAVED_ERROR) };
      const outputs: CellRunRecord['outputs'] = {};
      for (const [k, o] of Object.entries(r.result.outputs)) setOwn(outputs, k, { path: o.path, type: o.type, ...(o.roles ? { roles: o.roles } : {}) });
      const p = r.result.provenance;
      return { name: r.name, input: r.input, ok: true, outputs, ...(p ? { started: p.started, durationMs: p.durationMs } : {}) };
    }),
  };
  const first = items.find((r) => r.result)?.result;
  return { ok: !!first, tool, summary: batchSummary(tool, plan, items), outputs: {}, ...(first?.quicklook ? { quicklook: first.quicklook } : {}), time, batch };
}

/** A batch record read back from a notebook file (anyone could have written it), or undefined. */
export function batchFromMetadata(v: unknown): BatchRecord | undefined {
  const b = v as BatchRecord;
  if (!b || typeof b !== 'object' || !Array.isArray(b.items) || b.items.length > MAX_BATCH_ITEMS || !Array.isArray(b.args) || !b.args.every((a) => typeof a === 'string')) return undefined;
  const names = new Set<string>();
  const items: BatchRecord['items'] = [];
  for (const it of b.items) {
    if (!it || typeof it !== 'object' || typeof it.name !== 'string' || safeSegment(it.name) !== it.name || names.has(it.name) || typeof it.input !== 'string') return undefined;
    names.add(it.name);
    const outputs: CellRunRecord['outputs'] = {};
    for (const [k, o] of Object.entries(it.outputs && typeof it.outputs === 'object' ? it.outputs : {})) {
      if (o && typeof o === 'object' && typeof o.path === 'string' && ['raster', 'vector', 'table'].includes(o.type)) setOwn(outputs, k, { path: o.path, type: o.type, ...(Array.isArray(o.roles) && o.roles.every((x) => typeof x === 'string') ? { roles: o.roles } : {}) });
    }
    const times = it.ok === true && typeof it.started === 'string' && typeof it.durationMs === 'number' && Number.isFinite(it.durationMs) ? { started: it.started.slice(0, 40), durationMs: it.durationMs } : {};
    items.push({ name: it.name, input: it.input, ok: it.ok === true, ...(it.ok === true ? { outputs, ...times } : { error: typeof it.error === 'string' ? it.error : 'failed' }) });
  }
  const kind = b.kind === 'glob' || b.kind === 'list' || b.kind === 'cell' ? b.kind : 'list';
  return { args: b.args, source: typeof b.source === 'string' ? b.source : '', kind, items };
}

/** Every file a run record stands for (outputs, their QGIS styles, quicklook; per item also result.json). */
export function runFiles(r: { outputs: Record<string, { path: string }>; quicklook?: string; batch?: BatchRecord } | undefined, outDir?: string): string[] {
  if (!r) return [];
  const files = (outputs: Record<string, { path: string }>) => Object.values(outputs).flatMap((o) => (/\.tiff?$/i.test(o.path) ? [o.path, o.path.replace(/\.tiff?$/i, '.qml'), o.path.replace(/\.tiff?$/i, '.png')] : [o.path]));
  const out = [...files(r.outputs), ...(r.quicklook ? [r.quicklook] : [])];
  for (const it of r.batch?.items ?? []) {
    out.push(...files(it.outputs ?? {}));
    if (outDir && it.ok) out.push(path.join(outDir, it.name, 'result.json'));
  }
  return out;
}

/** Markdown for where no renderer runs: the summary and one row per item. */
export function batchMarkdown(tool: string, plan: Pick<BatchPlan, 'args' | 'source'>, items: BatchItemResult[], lang: 'en' | 'zh' = 'en', toolName?: string): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const zh = lang === 'zh';
  // In Chinese the tool is named as its catalog does (name_zh) with the id beside it, as a single run's heading is.
  const name = toolName && toolName !== tool ? `**${esc(toolName)}** (${tool})` : `**${tool}**`;
  const head = zh ? `${name}（批处理）：${esc(batchSummary(tool, plan, items, true, lang))}` : `${name} (batch): ${esc(batchSummary(tool, plan, items))}`;
  const lines = [head, '', zh ? '| 项目 | 输入 | 状态 |' : '| item | input | status |', '|---|---|---|'];
  const failed = zh ? '失败' : 'failed';
  for (const r of items.slice(0, 50)) lines.push(`| ${esc(r.name)} | ${esc(r.input)} | ${r.result ? (zh ? '成功' : 'ok') : `${failed}: ${esc(short(r.error ?? '', 200))}`} |`);
  if (items.length > 50) lines.push(zh ? `| … | 另有 ${items.length - 50} 个 | |` : `| … | ${items.length - 50} more | |`);
  return lines.join('\n');
}

/** The outputs a run stands for when suggesting and completing references: its own, or for a batch
 *  those of its first good item (a reference to it then runs item by item). */
export function shownOutputs(run: Pick<CellRunRecord, 'outputs' | 'batch'>): CellRunRecord['outputs'] {
  return run.batch ? run.batch.items.find((i) => i.ok)?.outputs ?? {} : run.outputs;
}
