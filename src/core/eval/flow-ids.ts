/**
 * Tool names in a team's logs as its catalog names them. An assistant's log names a tool as its
 * client exposed it: Claude Code calls an MCP tool `mcp__<server>__<tool>`, gateways write
 * `<server>.<tool>` or `<server>:<tool>`, and a hand-kept log may write `NDVI` for `ndvi`. Such a
 * flow names no tool of the catalog, so `learn` skipped every one of them and evaluation scored
 * nothing. A name the catalog lacks is read as the catalog tool it ends with (after `__`, `.`,
 * `:` or `/`), or the one it names up to letter case, when exactly one tool fits; anything else is
 * left as written (and reported as unknown, as before).
 */
import type { EvalTask } from './tasks';

const NAMESPACE = /__|[.:/]/g;
const MAX_NAME = 512;
const MAX_PREFIXES = 8;

/** Reads log names against a catalog: the catalog id a name stands for, or undefined. */
export function catalogNameReader(ids: Iterable<string>): (name: string) => string | undefined {
  const exact = new Set(ids);
  const folded = new Map<string, string | null>();
  for (const id of exact) {
    const k = id.toLowerCase();
    folded.set(k, folded.has(k) ? null : id);
  }
  const one = (n: string) => (exact.has(n) ? n : folded.get(n.toLowerCase()) ?? undefined);
  return (name) => {
    if (exact.has(name)) return name;
    const whole = one(name);
    if (whole) return whole;
    // The longest ending first: "mcp__hydro__snow_depth" tries "hydro__snow_depth", then "snow_depth".
    // A namespace is a word or two: a name of thousands of separators is not read (each try copies it).
    let tries = 0;
    for (const m of name.length <= MAX_NAME ? name.matchAll(NAMESPACE) : []) {
      const hit = one(name.slice(m.index! + m[0].length));
      if (hit) return hit;
      if (++tries >= MAX_PREFIXES) break;
    }
    return undefined;
  };
}

/**
 * The tasks with their flow and gold names read against the catalog; each name read differently
 * (log name → catalog id); and the calls left out of chat logs. An assistant also calls tools of
 * its own (a web search, a code runner, a file reader) that no catalog of the team's holds: in a
 * log they are left out of the flow rather than making the whole flow unknown. A flow file's
 * unknown id is more likely a typo, and stays (learn then skips that flow and says so).
 */
export function readFlowNames(tasks: EvalTask[], ids: Iterable<string>): { tasks: EvalTask[]; read: Map<string, string>; dropped: Map<string, number> } {
  const reader = catalogNameReader(ids);
  const read = new Map<string, string>();
  const dropped = new Map<string, number>();
  const out = tasks.map((t) => {
    // Each step's name read once: kept as the catalog names it, left out (a chat log's own tool), or as written.
    const steps = (names: string[]) => names.flatMap((n) => {
      const id = reader(n);
      if (id === undefined) {
        if (!t.chat) return [n];
        if (names === t.flow) dropped.set(n, (dropped.get(n) ?? 0) + 1);
        return [];
      }
      if (id !== n) read.set(n, id);
      return [id];
    });
    return { ...t, flow: steps(t.flow), gold: [...new Set(steps(t.gold))] };
  });
  return { tasks: out, read, dropped };
}
