/** Which of a tool's outputs a next-step reason speaks of, shared by the English reason (backward.ts)
 *  and its Chinese rewrite (reason-language.ts), so both name the same product. */
import type { ToolManifest, ToolParam } from '../manifests/types';
import type { Rationale } from './types';

/** For quantify a numeric output (a table, or an object of counts, sizes, means, areas or pixels), else the first; undefined without outputs. */
export function productOutput(m: ToolManifest, r: Rationale): ToolParam | undefined {
  const outs = m.outputs ?? [];
  if (!outs.length) return undefined;
  const numeric = outs.find((o) => o.type === 'table' || (o.type === 'object' && /count|size|mean|area|pixel/i.test(o.description ?? '')));
  return r === 'quantify' && numeric ? numeric : outs[0];
}
