/** The texts embedded for a tool: one descriptive document plus each example as its own vector. */
import type { ToolManifest } from '../manifests/types';

export interface ToolTexts {
  /** name, description, tags, input/output descriptions. */
  main: string;
  examples: string[];
}

export function humanName(m: ToolManifest): string {
  return m.name ?? m.id.replace(/[_.-]+/g, ' ');
}

export function toolTexts(m: ToolManifest): ToolTexts {
  const parts: string[] = [humanName(m), m.id.replace(/[_.-]+/g, ' '), m.description];
  if (m.tags?.length) parts.push(m.tags.join(', '));
  for (const p of [...(m.inputs ?? []), ...(m.outputs ?? [])]) {
    const bits = [p.description, p.unit].filter(Boolean);
    if (bits.length) parts.push(bits.join(' '));
  }
  const examples = (m.examples ?? []).map((e) => e.trim()).filter(Boolean);
  return { main: parts.filter(Boolean).join('. '), examples };
}

/** All texts in a fixed order: main first, then examples. */
export function allTexts(m: ToolManifest): string[] {
  const t = toolTexts(m);
  return [t.main, ...t.examples];
}
