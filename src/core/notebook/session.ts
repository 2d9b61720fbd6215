/** Where a notebook keeps its session (task) and working memory: `metadata.memory`. */
import type { MemoryState } from '../memory/types';
import type { CellRunRecord } from './types';

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

export function runFromMetadata(metadata: Record<string, unknown> | undefined): CellRunRecord | undefined {
  const r = metadata?.[RUN_KEY] as CellRunRecord | undefined;
  return r && typeof r === 'object' && typeof r.tool === 'string' && r.outputs && typeof r.outputs === 'object' ? r : undefined;
}
