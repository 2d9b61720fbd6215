/** Session memory (the task), the full trace and the working memory window: pure JSON in, JSON out. */
import type { MemoryState, MemoryStep } from './types';

export const DEFAULT_WINDOW = 5;

export function createMemory(task: string, windowSize: number = DEFAULT_WINDOW): MemoryState {
  if (!Number.isInteger(windowSize) || windowSize < 1) throw new Error(`memory windowSize must be a positive integer, got ${windowSize}`);
  return { task, trace: [], windowSize };
}

/** Appends `step` to the trace; returns the same state so calls can be chained or reassigned. */
export function addStep(state: MemoryState, step: MemoryStep): MemoryState {
  state.trace.push(step);
  return state;
}

/**
 * Records the run of a notebook cell: the step replaces that cell's earlier one, and the trace follows
 * the cells (see `followCells`). `step` undefined only removes the cell's step (its run failed or was
 * stopped, so its result no longer stands).
 */
export function recordCellRun(state: MemoryState, cell: string, step: MemoryStep | undefined, cells: string[]): MemoryState {
  state.trace = state.trace.filter((s) => s.cell !== cell);
  if (step) state.trace.push({ ...step, cell });
  return followCells(state, cells);
}

/**
 * Orders the trace as the cells are ordered (`cells`, top to bottom), not by the order of the clicks,
 * and drops steps of cells no longer in the notebook; steps without a cell (older notebooks, the CLI)
 * stay first. Returns the state.
 */
export function followCells(state: MemoryState, cells: string[]): MemoryState {
  const order = new Map(cells.map((id, i) => [id, i]));
  const loose = state.trace.filter((s) => s.cell === undefined);
  const kept = state.trace.filter((s) => s.cell !== undefined && order.has(s.cell));
  kept.sort((a, b) => order.get(a.cell!)! - order.get(b.cell!)!);
  state.trace = [...loose, ...kept];
  return state;
}

/** The last `windowSize` steps, oldest first. */
export function workingMemory(state: MemoryState): MemoryStep[] {
  return state.trace.slice(-state.windowSize);
}

/** Keeps the task, drops the trace (in place; returns the state). */
export function clear(state: MemoryState): MemoryState {
  state.trace = [];
  return state;
}

export const clearMemory = clear;

/** Tools already run in this session (whole trace), in order of first use. */
export function toolsRun(state: MemoryState): string[] {
  return [...new Set(state.trace.map((s) => s.tool))];
}

/** Validates JSON read from notebook metadata; throws naming the bad field. */
export function parseMemory(json: unknown): MemoryState {
  const m = json as MemoryState;
  if (!m || typeof m !== 'object') throw new Error('memory must be an object');
  if (typeof m.task !== 'string') throw new Error('memory.task must be a string');
  if (!Array.isArray(m.trace)) throw new Error('memory.trace must be an array');
  m.trace.forEach((s, i) => {
    if (!s || typeof s.tool !== 'string') throw new Error(`memory.trace[${i}].tool must be a string`);
    if (!Array.isArray(s.outputs)) throw new Error(`memory.trace[${i}].outputs must be an array`);
  });
  const windowSize = Number.isInteger(m.windowSize) && m.windowSize > 0 ? m.windowSize : DEFAULT_WINDOW;
  return { task: m.task, trace: m.trace, windowSize };
}
