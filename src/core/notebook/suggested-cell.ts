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
