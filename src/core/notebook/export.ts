/**
 * Exporting a notebook so that its steps run without VS Code: a bash script of the exact
 * `geoweave run` calls of its tool cells, in order, or a Jupyter notebook (nbformat 4) whose cells
 * run the same steps (numpy + GDAL code where a faithful translation exists, the CLI otherwise).
 * `$cell.output` references become the per-cell output paths the notebook's own run uses
 * (`<outputs>/<notebook>/<alias or tool-id>/<file>`), so the export writes the same files.
 * Pure formatting: nothing here runs anything or touches the file system.
 */
import * as path from 'node:path';
import type { ArgValue, NotebookRecord } from './types';
import { parseToolCell, cellName } from './tool-cell';
import { isReference } from './cell-value';
import { runFromMetadata, memoryFromMetadata } from './session';
import { outputFolderOf, toolCells } from './run-notebook';
import { translateCell, PYTHON_HELPERS } from './export-python';

export class ExportError extends Error {}

export interface ExportOptions {
  /** The `.geonb` file (its name names the output folder). */
  notebookFile: string;
  /** Folder the cells' relative paths are read from. */
  workspace: string;
  /** Root of the per-cell output folders as the notebook sees it (default `.geoweave/outputs`, relative to the workspace). */
  outputFolder?: string;
  geoweaveVersion?: string;
}

/** A piece of an argument: literal text, or a path under the output root (`$OUT/...`). */
type Piece = { text: string } | { out: string };

/** One exported step: the cell's tool call with references resolved to output-root-relative paths. */
export interface ExportStep {
  index: number;
  tool: string;
  name: string;
  /** Output folder, relative to the output root. */
  outDir: string;
  /** Arguments in cell order: name → pieces of the value text the CLI gets. */
  args: [string, Piece[]][];
  /** Raw argument values with references replaced by output-root-relative paths (for translations). */
  values: Record<string, unknown>;
  /** Outputs this cell made in the notebook's run: name → output-root-relative path. */
  outputs: Record<string, string>;
  summary?: string;
  /** A batch item: its sub-folder name. */
  item?: string;
  /** A batch item that failed in the notebook's run: written as a comment, not run. */
  skipped?: string;
}

/** The latest step(s) of the cell named `name` (its last item for a batch). */
function latest(steps: ExportStep[], name: string): ExportStep | undefined {
  for (let i = steps.length - 1; i >= 0; i--) if (steps[i].name === name) return steps[i];
  return undefined;
}

/** A list item written as a reference stays a reference; any other input is the recorded text. */
function listItem(v: ArgValue, input: string): ArgValue {
  if (Array.isArray(v)) { const ref = v.find((x) => isReference(x) && `$${x.$ref.cell}.${x.$ref.output}` === input); if (ref) return ref; }
  return input;
}

/** Marks an output path inside a value; a private-use character, which JSON.stringify leaves as it is. */
const SENTINEL = '\uE000OUT\uE000';

/** The notebook's tool cells as steps; references must point at earlier cells that have run. */
export function exportSteps(nb: NotebookRecord, opts: ExportOptions): ExportStep[] {
  const steps: ExportStep[] = [];
  const cells = toolCells(nb);
  // Folders relative to the output root, computed with a marker root and cut off after.
  const root = path.join(path.sep, '__geoweave_out__');
  for (const c of cells) {
    const cell = nb.cells[c.index];
    const parsed = parseToolCell(cell.source);
    const errors = parsed.problems.filter((p) => p.severity === 'error');
    if (!parsed.call || errors.length) throw new ExportError(`cell ${c.index + 1}: ${errors.map((p) => `line ${p.line + 1}: ${p.message}`).join('; ') || 'no tool call'}; fix it before exporting`);
    const call = parsed.call;
    const cellDir = toPosix(path.relative(root, outputFolderOf(nb, c.index, root, opts.notebookFile)));
    const run = runFromMetadata(cell.metadata);
    // A batch: one step per item, each into its item folder, as the notebook ran it. A cell that
    // refers to a batched cell as a whole argument runs item by item over that cell's items.
    const batchedRefs = Object.entries(call.args).filter(([, v]) => isReference(v) && latest(steps, v.$ref.cell)?.item !== undefined);
    const source = batchedRefs.length ? latest(steps, (batchedRefs[0][1] as { $ref: { cell: string } }).$ref.cell)! : undefined;
    const items: { name: string; input?: string; skipped?: string; outputs?: Record<string, { path: string }> }[] | undefined = run?.ok && run.batch
      ? run.batch.items.map((it) => ({ name: it.name, input: it.input, ...(it.ok ? { outputs: it.outputs } : { skipped: it.error ?? 'failed' }) }))
      : source ? steps.filter((s) => s.name === source.name && s.index === source.index).map((s) => ({ name: s.item!, ...(s.skipped ? { skipped: `its input item failed in cell ${s.index + 1}` } : {}) }))
        : undefined;
    for (const item of items ?? [undefined]) {
      const outDir = item ? `${cellDir}/${item.name}` : cellDir;
      const outputs: Record<string, string> = {};
      const recorded = item ? item.outputs ?? {} : run?.ok ? run.outputs : {};
      for (const [k, o] of Object.entries(recorded)) outputs[k] = `${outDir}/${path.basename(o.path)}`;
      const meta = { index: c.index, tool: call.tool, name: cellName(call), outDir, outputs, ...(item ? { item: item.name } : {}) };
      if (item?.skipped) { steps.push({ ...meta, args: [], values: {}, skipped: item.skipped }); continue; }
      const batchedArgs = new Set(run?.batch && !source ? run.batch.args : []);
      const resolve = (arg: string, v: ArgValue): unknown => {
        if (isReference(v)) {
          const { cell: name, output } = v.$ref;
          const last = latest(steps, name);
          if (!last) throw new ExportError(`cell ${c.index + 1}, ${arg}: no earlier cell is named "${name}"`);
          const src = last.item !== undefined ? (item ? steps.find((s) => s.index === last.index && s.item === item.name) : undefined) : last;
          if (!src) throw new ExportError(`cell ${c.index + 1}, ${arg}: $${name}.${output} refers to a batched cell; use it as the whole value of an argument that takes one file`);
          const rel = Object.hasOwn(src.outputs, output) ? src.outputs[output] : undefined;
          if (!rel) throw new ExportError(`cell ${c.index + 1}, ${arg}: $${name}.${output} names a file the notebook has not made yet (cell ${src.index + 1} has ${Object.keys(src.outputs).length ? `outputs ${Object.keys(src.outputs).join(', ')}` : 'not run'}); run the notebook once before exporting, so the file names are known`);
          return SENTINEL + rel;
        }
        if (Array.isArray(v)) return v.map((x) => resolve(arg, x));
        if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(arg, x)]));
        return v;
      };
      const args: [string, Piece[]][] = [];
      const values: Record<string, unknown> = {};
      for (const [k, v0] of Object.entries(call.args)) {
        // The batched argument of a glob or list: this item's input, as the notebook resolved it.
        const v: ArgValue = item && batchedArgs.has(k) ? listItem(v0, item.input ?? '') : v0;
        const raw = JSON.stringify(v);
        if (raw.includes('\\u0000') || raw.includes('\uE000')) throw new ExportError(`cell ${c.index + 1}, ${k}: a value with a NUL or U+E000 character cannot be exported`);
        const r = resolve(k, v);
        values[k] = unmark(r);
        if (r === null || r === '') continue; // the engine skips empty arguments
        const text = typeof r === 'string' ? r : typeof r === 'number' || typeof r === 'boolean' ? String(r) : JSON.stringify(r);
        args.push([k, pieces(`${k}=${text}`)]);
      }
      const summary = item ? undefined : run?.ok && run.summary ? run.summary : undefined;
      steps.push({ ...meta, args, values, ...(summary ? { summary } : {}) });
    }
  }
  return steps;
}

function unmark(v: unknown): unknown {
  if (typeof v === 'string') return v.startsWith(SENTINEL) ? { out: v.slice(SENTINEL.length) } : v;
  if (Array.isArray(v)) return v.map(unmark);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, unmark(x)]));
  return v;
}

function pieces(text: string): Piece[] {
  const parts = text.split(SENTINEL);
  const out: Piece[] = [];
  parts.forEach((p, i) => {
    if (i === 0) { if (p) out.push({ text: p }); return; }
    // After a marker comes the relative path, up to the end of the JSON string it sits in (or the end).
    const m = /^[^"]*/.exec(p)![0];
    out.push({ out: m });
    if (p.length > m.length) out.push({ text: p.slice(m.length) });
  });
  return out;
}

function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}

/** A word for bash: bare when it is only safe characters, else single-quoted. */
export function shellQuote(s: string): string {
  if (s !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(s)) return s;
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

function shellWord(ps: Piece[]): string {
  return ps.map((p) => ('out' in p ? `"$OUT"/${shellQuote(p.out)}` : shellQuote(p.text))).join('');
}

function comment(s: string): string {
  return s.replace(/[\r\n\u2028\u2029]+/g, ' ').replace(/[\u0000-\u001f\u007f]/g, '').trim();
}

function defaultOut(opts: ExportOptions): string {
  const d = opts.outputFolder ?? path.join('.geoweave', 'outputs');
  return path.isAbsolute(d) ? d : toPosix(d);
}

/** The notebook as a bash script: `set -euo pipefail`, then one `geoweave run` per tool cell. */
export function exportShell(nb: NotebookRecord, opts: ExportOptions): string {
  const steps = exportSteps(nb, opts);
  const task = memoryFromMetadata(nb.metadata)?.task;
  const lines = [
    '#!/usr/bin/env bash',
    `# ${comment(path.basename(opts.notebookFile))}, exported by GeoWeave${opts.geoweaveVersion ? ` ${comment(opts.geoweaveVersion)}` : ''}: its tool cells as \`geoweave run\` calls, in order.`,
    ...(task ? [`# Task: ${comment(task)}`] : []),
    '# Relative paths are read from GEOWEAVE_WORKSPACE (default: the folder the notebook ran in);',
    '# each cell writes into its own folder under GEOWEAVE_OUT, as in the notebook.',
    'set -euo pipefail',
    `cd -- "\${GEOWEAVE_WORKSPACE:-${dq(opts.workspace)}}"`,
    `OUT="\${GEOWEAVE_OUT:-${dq(defaultOut(opts))}}"`,
  ];
  for (const s of steps) {
    lines.push('', `# cell ${s.index + 1}: ${comment(s.name === s.tool ? s.tool : `${s.tool} as ${s.name}`)}${s.item !== undefined ? `, batch item ${comment(s.item)}` : ''}${s.summary ? ` (${comment(s.summary).slice(0, 200)})` : ''}`);
    if (s.skipped) { lines.push(`# not run: it failed in the notebook's run (${comment(s.skipped).slice(0, 300)})`); continue; }
    const words = ['geoweave', 'run', shellQuote(s.tool), ...s.args.map(([, p]) => `--arg ${shellWord(p)}`), `--out "$OUT"/${shellQuote(s.outDir)}`];
    lines.push(words.join(' '));
  }
  return lines.join('\n') + '\n';
}

/** Text safe inside double quotes in bash. */
function dq(s: string): string {
  return s.replace(/[\\"$`]/g, '\\$&').replace(/[\r\n]/g, '');
}

/** The notebook as an nbformat 4 notebook (JSON text, sorted keys): markdown for the task and each
 *  cell's summary, numpy + GDAL code where a faithful translation exists, `!geoweave run` otherwise. */
export function exportIpynb(nb: NotebookRecord, opts: ExportOptions): string {
  const steps = exportSteps(nb, opts);
  const task = memoryFromMetadata(nb.metadata)?.task;
  const cells: Record<string, unknown>[] = [];
  const md = (text: string) => cells.push({ cell_type: 'markdown', metadata: {}, source: lines(text) });
  const code = (text: string) => cells.push({ cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source: lines(text) });
  md(`# ${path.basename(opts.notebookFile)}\n\n${task ? `**Task:** ${task}\n\n` : ''}Exported by GeoWeave${opts.geoweaveVersion ? ` ${opts.geoweaveVersion}` : ''}. Steps that have an exact numpy + GDAL translation are written out; the others call the \`geoweave\` command line.`);
  code([
    'import json, os, subprocess',
    'import numpy as np',
    'from osgeo import gdal',
    'gdal.UseExceptions()',
    `os.chdir(os.environ.get('GEOWEAVE_WORKSPACE', ${py(opts.workspace)}))`,
    `OUT = os.environ.get('GEOWEAVE_OUT', ${py(defaultOut(opts))})`,
    '',
    PYTHON_HELPERS,
  ].join('\n'));
  for (const s of steps) {
    md(`## Cell ${s.index + 1}: ${s.name === s.tool ? s.tool : `${s.tool} as ${s.name}`}${s.item !== undefined ? `, batch item ${s.item}` : ''}${s.summary ? `\n\n${s.summary}` : ''}${s.skipped ? `\n\nNot run: it failed in the notebook's run (${s.skipped}).` : ''}`);
    if (s.skipped) continue;
    const translated = translateCell(s);
    if (translated) code(translated);
    else code(`!geoweave run ${shellQuote(s.tool)} ${s.args.map(([, p]) => `--arg ${shellWordPy(p)}`).join(' ')} --out "$OUT"/${shellQuote(s.outDir)}`.replace(/ {2,}/g, ' '));
  }
  const doc = {
    cells,
    metadata: {
      kernelspec: { display_name: 'Python 3', language: 'python', name: 'python3' },
      language_info: { name: 'python' },
      geoweave: { notebook: path.basename(opts.notebookFile), ...(opts.geoweaveVersion ? { version: opts.geoweaveVersion } : {}) },
    },
    nbformat: 4,
    nbformat_minor: 5,
  };
  // Cell ids (nbformat 4.5): stable, from the position.
  doc.cells.forEach((c, i) => { c.id = `geoweave-${i}`; });
  return JSON.stringify(sortKeys(doc), null, 1) + '\n';
}

/** In IPython `!` lines `$OUT` is the python variable OUT (IPython expands `$name`). */
function shellWordPy(ps: Piece[]): string {
  return ps.map((p) => ('out' in p ? `"$OUT"/${shellQuote(p.out)}` : shellQuote(p.text))).join('');
}

function lines(text: string): string[] {
  const ls = text.split('\n');
  return ls.map((l, i) => (i < ls.length - 1 ? `${l}\n` : l));
}

function py(s: string): string {
  return JSON.stringify(s);
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]));
  return v;
}
