/** What the compact result renderer shows, built from a tool result's JSON. The JSON comes from
 *  the notebook file, so nothing here trusts its shape: every field ends up a plain string that
 *  the renderer puts into the DOM with textContent. The statistics are not repeated here: the
 *  cell's markdown output already shows them as a table beside the summary. */
import { argSummary } from './result-view';

/** The compact view of one tool result. */
export interface ResultCard {
  tool: string;
  summary: string;
  outputs: { name: string; path: string; type?: string }[];
  /** "image=s2_scene.tif, red=3", empty when the result carries no arguments. */
  args: string;
}

export function resultCard(data: unknown): ResultCard {
  const r = isRecord(data) ? data : {};
  const tool = typeof r.tool === 'string' && r.tool ? r.tool : 'tool';
  const summary = typeof r.summary === 'string' ? r.summary : '';
  const outputs: ResultCard['outputs'] = [];
  if (isRecord(r.outputs)) {
    for (const [name, o] of Object.entries(r.outputs)) {
      if (isRecord(o) && typeof o.path === 'string') outputs.push({ name, path: o.path, ...(typeof o.type === 'string' ? { type: o.type } : {}) });
      else if (typeof o === 'string') outputs.push({ name, path: o });
    }
  }
  const args = isRecord(r.arguments) ? argSummary(r.arguments) : '';
  return { tool, summary, outputs, args };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}
