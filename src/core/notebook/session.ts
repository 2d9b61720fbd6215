/** Where a notebook keeps its session (task) and working memory: `metadata.memory`. */
import type { MemoryState } from '../memory/types';
import type { CellRunRecord } from './types';
import { setOwn } from './cell-value';
import { provenanceFromMetadata } from '../raster/provenance';
import { batchFromMetadata } from './batch';

export const MEMORY_KEY = 'memory';
export const RUN_KEY = 'lastRun';
/** Cell metadata key of a tool cell's id: its memory step is known by it across saves and reloads. */
export const CELL_ID_KEY = 'cellId';

export function cellIdFromMetadata(metadata: Record<string, unknown> | undefined): string | undefined {
  const id = metadata?.[CELL_ID_KEY];
  return typeof id === 'string' && id ? id : undefined;
}

/** The memory stored in notebook metadata, or undefined when absent or malformed. */
export function memoryFromMetadata(metadata: Record<string, unknown> | undefined): MemoryState | undefined {
  const m = metadata?.[MEMORY_KEY] as MemoryState | undefined;
  if (!m || typeof m !== 'object' || typeof m.task !== 'string' || !Array.isArray(m.trace)) return undefined;
  return { task: m.task, trace: m.trace, windowSize: typeof m.windowSize === 'number' ? m.windowSize : 5 };
}

export function withMemory(metadata: Record<string, unknown> | undefined, memory: MemoryState): Record<string, unknown> {
  return { ...(metadata ?? {}), [MEMORY_KEY]: memory };
}

/**
 * The last run recorded in a cell's metadata, or undefined when absent or malformed. Outputs that
 * are not `{path, type}` are left out (the file may come from anywhere; references check where
 * paths point before anything is read).
 */
export function runFromMetadata(metadata: Record<string, unknown> | undefined): CellRunRecord | undefined {
  const r = metadata?.[RUN_KEY] as Partial<CellRunRecord> | undefined;
  if (!r || typeof r !== 'object' || typeof r.tool !== 'string' || !r.outputs || typeof r.outputs !== 'object' || Array.isArray(r.outputs)) return undefined;
  const outputs: CellRunRecord['outputs'] = {};
  for (const [name, o] of Object.entries(r.outputs)) {
    if (!o || typeof o !== 'object' || typeof o.path !== 'string' || !OUTPUT_TYPES.has(o.type)) continue;
    const roles = Array.isArray(o.roles) && o.roles.every((x) => typeof x === 'string') ? o.roles : undefined;
    setOwn(outputs, name, { path: o.path, type: o.type, ...(roles ? { roles } : {}) });
  }
  const provenance = provenanceFromMetadata(r.provenance);
  const batch = r.batch !== undefined ? batchFromMetadata(r.batch) : undefined;
  return {
    ok: r.ok === true,
    tool: r.tool,
    summary: typeof r.summary === 'string' ? r.summary : '',
    outputs,
    ...(typeof r.quicklook === 'string' ? { quicklook: r.quicklook } : {}),
    time: typeof r.time === 'string' ? r.time : '',
    ...(r.view && typeof r.view === 'object' ? { view: r.view } : {}),
    ...(provenance ? { provenance } : {}),
    ...(batch ? { batch } : {}),
  };
}

const OUTPUT_TYPES = new Set(['raster', 'vector', 'table']);

/** The line a reopened notebook shows for a cell's last run; the recorded text is shown as text, never as markup. */
export function lastRunMarkdown(run: CellRunRecord): string {
  return `_Last run ${escapeMarkdown(run.time)}:_ ${escapeMarkdown(run.summary)}`;
}

function escapeMarkdown(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, '\\$&').replace(/\s*\n\s*/g, ' ');
}
