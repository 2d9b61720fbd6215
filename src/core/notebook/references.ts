/** Resolving `$cell.output` references against the runs of earlier cells. */
import * as fs from 'fs';
import * as path from 'path';
import type { ArgValue, CellRunRecord } from './types';
import { isReference, setOwn } from './cell-value';

/** A tool cell above the one being run or edited. */
export interface EarlierCell {
  /** `as name`, or the tool id. */
  name: string;
  tool: string;
  run?: CellRunRecord;
}

export class ReferenceError extends Error {}

/** Where referenced outputs may be: the workspace folder and the outputs folder. */
export interface ReferenceScope { roots: string[] }

/**
 * Replaces every reference by the output path it names; the nearest earlier cell of that name wins.
 * The recorded path comes from the notebook file (anyone could have written it), so it must lie
 * inside one of `scope.roots`, also once symlinks are followed.
 */
export function resolveReferences(args: Record<string, ArgValue>, earlier: EarlierCell[], scope: ReferenceScope): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) setOwn(out, k, resolveValue(k, v, earlier, scope));
  return out;
}

function resolveValue(arg: string, v: ArgValue, earlier: EarlierCell[], scope: ReferenceScope): unknown {
  if (isReference(v)) {
    const { cell, output } = v.$ref;
    const source = findCell(cell, earlier);
    if (!source) {
      const names = [...new Set(earlier.map((c) => c.name))];
      throw new ReferenceError(`${arg}: no earlier cell is named "${cell}"${names.length ? ` (earlier cells: ${names.join(', ')})` : ' (this is the first tool cell)'}`);
    }
    if (!source.run || !source.run.ok) throw new ReferenceError(`${arg}: cell "${cell}" has not run successfully yet; run it first`);
    if (source.run.batch) throw new ReferenceError(`${arg}: cell "${cell}" ran as a batch of ${source.run.batch.items.length} inputs; its outputs are per item: refer to it as the whole value of an argument that takes one file (e.g. "${arg}: $${cell}.${output}") and this cell runs item by item`);
    const outputs = source.run.outputs;
    const o = Object.hasOwn(outputs, output) ? outputs[output] : undefined;
    if (!o || typeof o.path !== 'string') throw new ReferenceError(`${arg}: cell "${cell}" (${source.tool}) has no output "${output}"; its outputs are ${Object.keys(outputs).join(', ') || 'none'}`);
    if (!insideScope(o.path, scope.roots)) {
      throw new ReferenceError(`${arg}: $${cell}.${output} points at ${o.path}, outside the workspace and the outputs folder; the notebook's record of that run is not trusted: run cell "${cell}" again`);
    }
    return o.path;
  }
  if (Array.isArray(v)) return v.map((x) => resolveValue(arg, x, earlier, scope));
  if (v && typeof v === 'object') {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) setOwn(o, k, resolveValue(arg, x, earlier, scope));
    return o;
  }
  return v;
}

/** True when `file` (absolute) lies under one of `roots`, before and after resolving symlinks. */
export function insideScope(file: string, roots: string[]): boolean {
  if (!path.isAbsolute(file) || file.includes('\0')) return false;
  const within = (f: string, r: string) => {
    const rel = path.relative(r, f);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  };
  const lexical = path.resolve(file);
  if (!roots.some((r) => within(lexical, path.resolve(r)))) return false;
  let real: string;
  try {
    real = fs.realpathSync.native(lexical);
  } catch {
    return true; // not there (yet): the tool reports a missing file by name
  }
  return roots.some((r) => {
    let rr = path.resolve(r);
    try { rr = fs.realpathSync.native(rr); } catch { /* a root that does not exist yet */ }
    return within(real, rr);
  });
}

export function findCell(name: string, earlier: EarlierCell[]): EarlierCell | undefined {
  for (let i = earlier.length - 1; i >= 0; i--) if (earlier[i].name === name) return earlier[i];
  return undefined;
}
