/** Display-only manifest fields: names and phrases in another language that reasons, summaries
 *  and cards show, and that nothing indexed or ranked reads (index/text.ts embeds name, id,
 *  description, tags, parameter descriptions and units, and examples; never these). */
import { humanName } from '../index/text';
import type { ToolManifest, ToolParam, WorkflowTemplate } from './types';

/** Tool-level and parameter-level display fields (tool-manifests/schema.json declares them). */
export const DISPLAY_TOOL_FIELDS = ['name_zh', 'description_zh', 'tags_zh'] as const;
export const DISPLAY_PARAM_FIELDS = ['description_zh'] as const;

/** The manifest without its display fields: what the catalog fingerprint (index, fitted fusion)
 *  is computed from, so that adding or editing a Chinese name neither re-embeds the catalog nor
 *  makes the shipped fusion weights stale. Everything else is kept as it is. */
export function withoutDisplayFields(m: ToolManifest): ToolManifest {
  const out: Record<string, unknown> = { ...m };
  for (const k of DISPLAY_TOOL_FIELDS) delete out[k];
  const params = (ps: ToolParam[] | undefined) => ps?.map((p) => {
    if (!p || typeof p !== 'object') return p;
    const q: Record<string, unknown> = { ...p };
    for (const k of DISPLAY_PARAM_FIELDS) delete q[k];
    return q as unknown as ToolParam;
  });
  if (Array.isArray(m.inputs)) out.inputs = params(m.inputs);
  if (Array.isArray(m.outputs)) out.outputs = params(m.outputs);
  return out as unknown as ToolManifest;
}

/** The tool's name to show in `lang`: `name_zh` for Chinese when the catalog gives one, else the
 *  English name (a team's catalog without Chinese names still reads, with English names). */
export function displayName(m: ToolManifest, lang: 'en' | 'zh'): string {
  const zh = lang === 'zh' && typeof m.name_zh === 'string' ? m.name_zh.trim() : '';
  return zh || humanName(m);
}

/** What the tool does, in `lang`: `description_zh` for Chinese when the catalog gives one, else the
 *  English description (a team's tool without it still describes itself, in English). */
export function toolDescription(m: Pick<ToolManifest, 'description' | 'description_zh'>, lang: 'en' | 'zh'): string {
  const zh = lang === 'zh' && typeof m.description_zh === 'string' ? m.description_zh.trim() : '';
  return zh || m.description;
}

/** What an input parameter is, in `lang`: its `description_zh` for Chinese when the catalog gives
 *  one; undefined otherwise (the caller keeps the words it has). */
export function paramDescription(m: ToolManifest, param: string, lang: 'en' | 'zh'): string | undefined {
  const p = m.inputs?.find((i) => i.name === param);
  if (lang === 'en') return p?.description;
  return typeof p?.description_zh === 'string' && p.description_zh.trim() ? p.description_zh.trim() : undefined;
}

/** A tag as Chinese reasons show it: the manifest's `tags_zh` entry for it, else undefined (the
 *  caller keeps the English tag). */
export function tagDisplay(m: ToolManifest, tag: string, lang: 'en' | 'zh'): string | undefined {
  if (lang === 'en') return tag;
  const map = m.tags_zh && typeof m.tags_zh === 'object' ? m.tags_zh : undefined;
  const zh = map && Object.prototype.hasOwnProperty.call(map, tag) ? map[tag] : undefined;
  return typeof zh === 'string' && zh.trim() ? zh.trim() : undefined;
}

/** Keys of `tags_zh` that are not among the manifest's tags (a typo, or a tag since renamed). */
export function strayTagTranslations(m: ToolManifest): string[] {
  const tags = new Set(m.tags ?? []);
  return m.tags_zh && typeof m.tags_zh === 'object' ? Object.keys(m.tags_zh).filter((k) => !tags.has(k)) : [];
}

/** What a workflow does, in `lang`: `description_zh` for Chinese when given, else its description. */
export function workflowDescription(w: Pick<WorkflowTemplate, 'description' | 'description_zh'>, lang: 'en' | 'zh'): string {
  const zh = lang === 'zh' && typeof w.description_zh === 'string' ? w.description_zh.trim() : '';
  return zh || w.description;
}

/** A workflow's name to show in `lang`: `name_zh` for Chinese when given, else its English name. */
export function workflowDisplayName(w: Pick<WorkflowTemplate, 'id' | 'name' | 'name_zh'>, lang: 'en' | 'zh'): string {
  const zh = lang === 'zh' && typeof w.name_zh === 'string' ? w.name_zh.trim() : '';
  return zh || w.name || w.id.replace(/_/g, ' ');
}
