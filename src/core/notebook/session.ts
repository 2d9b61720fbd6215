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

/** Cell metadata key of a tool cell's last failure: a reopened notebook shows the error it ended with. */
export const ERROR_KEY = 'lastError';

/** How a cell's last run failed, as the cell showed it (secrets already redacted). */
export interface CellErrorRecord { name: string; message: string; time: string }

/** A message is kept to this many characters in the file (an error quoting a whole server answer stays readable). */
const MAX_ERROR_CHARS = 4000;

export function errorRecord(name: string, message: string, time: string): CellErrorRecord {
  return { name: name.slice(0, 200), message: message.length > MAX_ERROR_CHARS ? `${message.slice(0, MAX_ERROR_CHARS)}…` : message, time };
}

/** The last failure recorded in a cell's metadata, or undefined when absent or malformed. */
export function errorFromMetadata(metadata: Record<string, unknown> | undefined): CellErrorRecord | undefined {
  const e = metadata?.[ERROR_KEY] as Partial<CellErrorRecord> | undefined;
  if (!e || typeof e !== 'object' || typeof e.name !== 'string' || typeof e.message !== 'string') return undefined;
  return errorRecord(e.name, e.message, typeof e.time === 'string' ? e.time : '');
}

/** The line a reopened notebook shows for a cell's last run; the recorded text is shown as text, never as markup. */
export function lastRunMarkdown(run: CellRunRecord): string {
  return `_Last run ${escapeMarkdown(run.time)}:_ ${escapeMarkdown(run.summary)}`;
}

function escapeMarkdown(s: string): string {
  return s.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, '\\$&').replace(/\s*\n\s*/g, ' ');
}
