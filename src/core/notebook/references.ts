/** Resolving `$cell.output` references against the runs of earlier cells. */
import type { ArgValue, CellRunRecord } from './types';
import { isReference } from './cell-value';

/** A tool cell above the one being run or edited. */
export interface EarlierCell {
  /** `as name`, or the tool id. */
  name: string;
  tool: string;
  run?: CellRunRecord;
}

export class ReferenceError extends Error {}

/** Replaces every reference by the output path it names; the nearest earlier cell of that name wins. */
export function resolveReferences(args: Record<string, ArgValue>, earlier: EarlierCell[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args)) out[k] = resolveValue(k, v, earlier);
  return out;
}

function resolveValue(arg: string, v: ArgValue, earlier: EarlierCell[]): unknown {
  if (isReference(v)) {
    const { cell, output } = v.$ref;
    const source = findCell(cell, earlier);
    if (!source) {
      const names = [...new Set(earlier.map((c) => c.name))];
      throw new ReferenceError(`${arg}: no earlier cell is named "${cell}"${names.length ? ` (earlier cells: ${names.join(', ')})` : ' (this is the first tool cell)'}`);
    }
    if (!source.run || !source.run.ok) throw new ReferenceError(`${arg}: cell "${cell}" has not run successfully yet; run it first`);
    const o = source.run.outputs[output];
    if (!o) throw new ReferenceError(`${arg}: cell "${cell}" (${source.tool}) has no output "${output}"; its outputs are ${Object.keys(source.run.outputs).join(', ') || 'none'}`);
    return o.path;
  }
  if (Array.isArray(v)) return v.map((x) => resolveValue(arg, x, earlier));
  if (v && typeof v === 'object') {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) o[k] = resolveValue(arg, x, earlier);
    return o;
  }
  return v;
}

export function findCell(name: string, earlier: EarlierCell[]): EarlierCell | undefined {
  for (let i = earlier.length - 1; i >= 0; i--) if (earlier[i].name === name) return earlier[i];
  return undefined;
}
