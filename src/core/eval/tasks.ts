/** Task files (JSONL): {"id", "query", "gold": [tool ids], "flow": [ordered tool ids]}; errors name the line. */
import * as fs from 'fs';
import { readToolId } from '../manifests/tool-id';
import { isChatLog, readChatLog } from './chat-log';

export interface EvalTask {
  id: string;
  query: string;
  gold: string[];
  flow: string[];
  /** 1-based line in the file. */
  line: number;
  /** Read from an assistant's chat log: its calls may include the assistant's own tools (a web search, a code runner) that no catalog holds. */
  chat?: true;
}

/** The tools a task ran, in order: its flow, or its gold tools when it has no flow. */
export function flowOf(t: Pick<EvalTask, 'flow' | 'gold'>): string[] {
  return t.flow.length ? t.flow : t.gold;
}

export class TaskFileError extends Error {}

/** Where a task's ordered steps may be: ours first, then names other tools' logs use. */
export const FLOW_KEYS = ['flow', 'tools', 'steps', 'trajectory', 'workflow'];
/** Where a step object names its tool. */
const STEP_KEYS = ['tool', 'tool_id', 'toolId', 'tool_name', 'id', 'name'];
/** Where the analyst's request may be: ours first, then what other benchmarks and logs call it. */
export const QUERY_KEYS = ['query', 'task', 'question', 'instruction', 'prompt', 'request'];
/** Steps written as one string ("search -> download -> ndvi"): split at arrows, commas, semicolons or bars. */
const STEP_SEPARATOR = /\s*(?:->|→|=>|>|,|;|\|)\s*/;

export function parseTasks(text: string, file = '<tasks>'): EvalTask[] {
  const tasks: EvalTask[] = [];
  const ids = new Map<string, number>();
  // A byte-order mark (Windows editors write one) is not part of the first line.
  text.replace(/^\uFEFF/, '').split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    if (!raw.trim()) return;
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(raw);
    } catch (e) {
      throw new TaskFileError(`${file}:${line}: not valid JSON (${(e as Error).message})`);
    }
    if (!o || typeof o !== 'object' || Array.isArray(o)) throw new TaskFileError(`${file}:${line}: expected an object {"id", "query", "gold", "flow"}`);
    // An assistant's chat log (no query or flow of its own): the request and the tool calls in it.
    // (A key holding text first: a log kept as {"request": {messages}, ...} has no request text.)
    const queryKey = QUERY_KEYS.find((k) => typeof o[k] === 'string') ?? QUERY_KEYS.find((k) => o[k] !== undefined && !isChatLog(o));
    const chat = !queryKey && !FLOW_KEYS.some((k) => o[k] !== undefined) && isChatLog(o) ? readChatLog(o) : undefined;
    if (chat) {
      if (!chat.query.trim()) throw new TaskFileError(`${file}:${line}: a chat log with no user message; the task is what the analyst asked (a "user" message before the first tool call)`);
      if (!chat.flow.length) throw new TaskFileError(`${file}:${line}: a chat log with no tool call; nothing to learn or evaluate (tool calls are read from OpenAI tool_calls, Anthropic tool_use blocks, Gemini functionCall parts or MCP tools/call requests)`);
      o = { ...o, query: chat.query, flow: chat.flow };
    }
    const query = o[queryKey ?? 'query'];
    if (typeof query !== 'string' || !query.trim()) throw new TaskFileError(`${file}:${line}: "${queryKey ?? 'query'}" must be a non-empty string (the task as the analyst put it${queryKey ? '' : '; or give an assistant chat log with "messages"'})`);
    // Steps as other systems log them are objects ({"tool": "ndvi", "args": {...}}): their tool id is taken.
    const stepId = (x: unknown): unknown => (x && typeof x === 'object' && !Array.isArray(x) ? STEP_KEYS.map((k) => (x as Record<string, unknown>)[k]).find((v) => typeof v === 'string') : x);
    const strList = (name: string, v: unknown, required: boolean): string[] => {
      if (v === undefined && !required) return [];
      const ids = Array.isArray(v) ? v.map(stepId) : typeof v === 'string' && v.trim() ? v.trim().split(STEP_SEPARATOR).filter(Boolean) : v;
      if (!Array.isArray(ids) || ids.some((x) => typeof x !== 'string')) throw new TaskFileError(`${file}:${line}: "${name}" must be an array of tool ids (or of steps {"tool": id, ...}, or one string "a -> b -> c")`);
      // Ids as the catalog reads them ("otb/BandMath" → "otb_BandMath"; ours come back unchanged).
      return (ids as string[]).map(readToolId);
    };
    const flowKey = FLOW_KEYS.find((k) => o[k] !== undefined) ?? 'flow';
    const flow = strList(flowKey, o[flowKey], false);
    const gold = o.gold === undefined ? [...new Set(flow)] : strList('gold', o.gold, true);
    if (!gold.length) throw new TaskFileError(`${file}:${line}: "gold" (or "flow") must name at least one tool`);
    const id = o.id === undefined ? `line${line}` : String(o.id);
    if (ids.has(id)) throw new TaskFileError(`${file}:${line}: duplicate id "${id}" (first on line ${ids.get(id)})`);
    ids.set(id, line);
    tasks.push({ id, query, gold: [...new Set(gold)], flow, line, ...(chat ? { chat: true as const } : {}) });
  });
  if (!tasks.length) throw new TaskFileError(`${file}: no tasks (the file is empty or blank); write one JSON object per line: {"id", "query", "gold": [tool ids], "flow": [tool ids in order]}`);
  return tasks;
}

export function readTasks(file: string): EvalTask[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new TaskFileError(`cannot read task file ${file}: ${(e as Error).message}`);
  }
  return parseTasks(text, file);
}

/** Gold/flow ids that are not in the catalog: "task id: tool id (line n)". */
export function missingIds(tasks: EvalTask[], known: (id: string) => boolean): string[] {
  const out: string[] = [];
  for (const t of tasks) for (const id of new Set([...t.gold, ...t.flow])) if (!known(id)) out.push(`${t.id}: ${id} (line ${t.line})`);
  return out;
}
