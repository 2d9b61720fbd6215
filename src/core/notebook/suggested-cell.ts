/** Builds the tool call a suggestion inserts: arguments from readiness, earlier outputs as references. */
import { chosenByRunner } from '../manifests/foreign-fields';
import type { ToolManifest } from '../manifests/types';
import type { ArgValue, ToolCall } from './types';
import type { EarlierCell } from './references';
import { reference } from './cell-value';
import { shownOutputs } from './batch';
import type { SummaryLanguage } from '../results/summary-language';
import { paramDescription } from '../manifests/display';
import { kindWord } from './language-words';

export function suggestedCall(tool: string, readinessArgs: Record<string, unknown>, earlier: EarlierCell[], manifest?: ToolManifest, workspaceDir?: string): ToolCall {
  const order = (manifest?.inputs ?? []).map((p) => p.name);
  const names = Object.keys(readinessArgs).sort((a, b) => rank(order, a) - rank(order, b));
  const args: Record<string, ArgValue> = {};
  for (const n of names) args[n] = toArgValue(readinessArgs[n], earlier, workspaceDir);
  const call: ToolCall = { tool, args };
  if (earlier.some((c) => c.name === tool)) {
    let i = 2;
    while (earlier.some((c) => c.name === `${tool}_${i}`)) i++;
    call.name = `${tool}_${i}`;
  }
  return call;
}

function rank(order: string[], name: string): number {
  const i = order.indexOf(name);
  return i < 0 ? order.length : i;
}

function toArgValue(v: unknown, earlier: EarlierCell[], workspaceDir?: string): ArgValue {
  if (typeof v === 'string') {
    const ref = outputReference(v, earlier, workspaceDir);
    if (ref) return ref;
    if (workspaceDir && v.startsWith(workspaceDir + '/')) return v.slice(workspaceDir.length + 1);
    return v;
  }
  if (Array.isArray(v)) return v.map((x) => toArgValue(x, earlier, workspaceDir));
  if (v && typeof v === 'object') {
    const o: Record<string, ArgValue> = {};
    for (const [k, x] of Object.entries(v)) o[k] = toArgValue(x, earlier, workspaceDir);
    return o;
  }
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return v;
  return String(v);
}

function outputReference(p: string, earlier: EarlierCell[], workspaceDir?: string) {
  const abs = (x: string) => (workspaceDir && !x.startsWith('/') ? `${workspaceDir}/${x}` : x);
  for (let i = earlier.length - 1; i >= 0; i--) {
    const run = earlier[i].run;
    if (!run?.ok) continue;
    for (const [name, o] of Object.entries(shownOutputs(run))) if (abs(o.path) === abs(p)) return reference(earlier[i].name, name);
  }
  return undefined;
}

/** Comment lines under an inserted cell for the required arguments nothing could fill, each with its
 *  type and description in `lang` (a Chinese editor reads `# dem:（栅格，必填）数字高程模型…`). */
export function missingArgComments(manifest: ToolManifest | undefined, given: string[], lang: SummaryLanguage = 'en'): string {
  const missing = (manifest?.inputs ?? []).filter((p) => p.required && p.default === undefined && !given.includes(p.name) && !chosenByRunner(manifest!, p));
  return missing.map((p) => {
    const what = (lang === 'zh' ? paramDescription(manifest!, p.name, 'zh') : undefined) ?? p.description;
    const kind = lang === 'zh' ? `（${kindWord(p.type, 'zh')}，必填）` : ` (${p.type}, required)`;
    return `\n# ${p.name}:${kind}${what ? `${lang === 'zh' ? '' : ' '}${what}` : ''}`;
  }).join('');
}

/** Band roles of sensor data: an input that needs them reads a scene, not an earlier step's product. */
const SCENE_ROLES = new Set(['blue', 'green', 'red', 'rededge', 'nir', 'swir1', 'swir2', 'thermal', 'qa', 'pan', 'sar', 'coastal', 'dem']);
/** Two inputs of one kind (two dates): the data picks them, in time order, never one product twice. */
const PAIR_PARAM = /^(before|after|pre|post|image[12]|a|b)$/i;

/** A step of a workflow being inserted: its cell name (`as` alias or tool id) and manifest. */
export interface WorkflowStep { name: string; manifest?: ToolManifest }

/**
 * The inputs of each workflow step that take an earlier step's output, as `$cell.output` references:
 * a workflow is a chain (mask clouds, NDVI, NDVI per field), and a step inserted with whatever file
 * the data offered (zonal statistics over last year's NDVI, Otsu over an NDVI in a flood workflow)
 * does not compute what the template says. An input that reads sensor bands (NDVI's image) keeps
 * the scene the data gave; a pair of dates keeps its two files. An input that asks for a product by
 * role (`mask`, `dnbr`, `index`) takes the previous step's output of that name, else its only raster
 * (a severity map for area by class), else, when the previous step made none of that type, the
 * latest earlier output of that name; any other raster or vector input takes the previous step's
 * output of its type that no other input of the step took (an earlier step's when the previous one
 * made none of it).
 * Returns per step the arguments to set (empty for the first).
 */
export function workflowWiring(steps: WorkflowStep[]): Record<string, ArgValue>[] {
  return steps.map((step, k) => {
    const wired: Record<string, ArgValue> = {};
    if (k === 0 || !step.manifest) return wired;
    const taken = new Set<string>();
    const outputsOf = (j: number, type: string) => (steps[j].manifest?.outputs ?? []).filter((o) => o.type === type).map((o) => ({ cell: steps[j].name, output: o.name }));
    const take = (p: string, o: { cell: string; output: string } | undefined) => {
      if (!o) return;
      taken.add(`${o.cell}.${o.output}`);
      wired[p] = reference(o.cell, o.output);
    };
    const free = (o: { cell: string; output: string }) => !taken.has(`${o.cell}.${o.output}`);
    const inputs = (step.manifest.inputs ?? []).filter((p) => (p.type === 'raster' || p.type === 'vector') && !PAIR_PARAM.test(p.name) && !(p.bands ?? []).some((b) => SCENE_ROLES.has(b)));
    // Inputs that name the product they take first, so a generic input does not take it from them.
    for (const p of inputs.filter((x) => x.bands?.length)) {
      const named = (j: number) => outputsOf(j, p.type).find((o) => free(o) && p.bands!.some((b) => o.output === b || o.output.endsWith(`_${b}`)));
      const prev = outputsOf(k - 1, p.type);
      let hit = named(k - 1) ?? (prev.length === 1 && free(prev[0]) ? prev[0] : undefined);
      for (let j = k - 2; j >= 0 && !hit && !prev.length; j--) hit = named(j);
      take(p.name, hit);
    }
    for (const p of inputs.filter((x) => !x.bands?.length)) {
      let j = k - 1;
      while (j > 0 && !outputsOf(j, p.type).length) j--;
      take(p.name, outputsOf(j, p.type).find(free));
    }
    return wired;
  });
}

/**
 * The tool calls a workflow inserts after the cells `earlier`: each step prefilled from its readiness
 * on the data (`args`), named apart from the cells before it, and chained by `workflowWiring`.
 */
export function workflowCalls(steps: { tool: string; args: Record<string, unknown>; manifest?: ToolManifest }[], earlier: EarlierCell[], workspaceDir?: string): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const s of steps) calls.push(suggestedCall(s.tool, s.args, [...earlier, ...calls.map((c) => ({ name: c.name ?? c.tool, tool: c.tool }))], s.manifest, workspaceDir));
  const wiring = workflowWiring(calls.map((c, i) => ({ name: c.name ?? c.tool, manifest: steps[i].manifest })));
  return calls.map((c, i) => {
    const order = (steps[i].manifest?.inputs ?? []).map((p) => p.name);
    const merged: Record<string, ArgValue> = { ...c.args, ...wiring[i] };
    const args = Object.fromEntries(Object.keys(merged).sort((a, b) => rank(order, a) - rank(order, b)).map((k) => [k, merged[k]]));
    return { ...c, args };
  });
}
