/**
 * The bare-catalog protocol: our own catalog as a new team would bring it. Every manifest is cut to
 * id, name, its first sentence and its input names and types (no examples, tags, outputs,
 * prerequisites, downstream, workflows), and every tool id is replaced by an opaque one in the
 * manifests and in the task files. What the product still gets right then comes from evidence any
 * catalog has, not from knowledge of our tool ids or our rich manifests.
 */
import { createHash } from 'crypto';
import type { ToolManifest } from '../manifests/types';
import type { EvalTask } from './tasks';

/** The first sentence of a description ("0.4", "e.g." and "i.e." do not end it). */
export function firstSentence(text: string): string {
  const t = text.trim().replace(/\s+/g, ' ');
  const m = /^.*?(?<!\d|\be\.g|\bi\.e|\betc|\bvs)[.!?](?=\s|$)/.exec(t);
  return m ? m[0] : t;
}

/** An opaque id for `id`: the same for the same salt, with no word of the original in it. */
export function opaqueId(id: string, salt = 'bare'): string {
  return 't' + createHash('sha256').update(`${salt}:${id}`).digest('hex').slice(0, 7);
}

/** A manifest as a new team's bare catalog has it. */
export function bareManifest(m: ToolManifest, rename: (id: string) => string): ToolManifest {
  return {
    id: rename(m.id),
    ...(m.name ? { name: m.name } : {}),
    description: firstSentence(m.description),
    ...(m.inputs?.length ? { inputs: m.inputs.map((p) => ({ name: p.name, type: p.type })) } : {}),
  };
}

/** A task with its tool ids renamed. */
export function bareTask(t: EvalTask, rename: (id: string) => string): { id: string; query: string; gold: string[]; flow: string[] } {
  return { id: t.id, query: t.query, gold: t.gold.map(rename), flow: t.flow.map(rename) };
}
