/** The data a request is judged on: for a task, the files it names and only the earlier outputs that
 *  belong to it; after steps, the workspace plus what the steps produced. */
import type { MemoryState } from '../memory/types';
import type { DataContext, DataItem } from '../retrieval/types';
import { namedInTask, withProducts } from '../retrieval/executability';

/**
 * The data for a new task. An earlier output is offered as an input only when the task names it or
 * the tool that made it is one the task is about (`related`): a burn-severity map from an earlier
 * step is not the input of a vegetation task.
 */
export function dataForTask(task: string, data: DataContext, related: ReadonlySet<string>): DataContext {
  const named = namedInTask(task, data.items);
  const keep = (it: DataItem) => !it.producedBy || related.has(it.producedBy) || named.includes(it);
  return { ...data, items: data.items.filter(keep), task };
}

/** Outputs of the steps in memory as data items (files only), oldest first. */
export function productsOf(memory: MemoryState): DataItem[] {
  const out: DataItem[] = [];
  for (const s of memory.trace) {
    if (!s.ok) continue;
    for (const o of s.outputs) {
      if (!o.path || (o.type !== 'raster' && o.type !== 'vector' && o.type !== 'table')) continue;
      out.push({ path: o.path, type: o.type, ...(o.roles ? { roles: o.roles } : {}), producedBy: s.tool });
    }
  }
  return out;
}

/** The data after the steps in memory: the context's items, then products it does not list yet. */
export function dataAfterSteps(memory: MemoryState, data: DataContext): DataContext {
  return { items: withProducts(data.items, productsOf(memory)) };
}
