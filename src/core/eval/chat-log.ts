/**
 * A task and its flow read from an assistant's chat log, as teams that wire their tools to an LLM
 * keep them: the analyst's request is in the user messages, the tools run are the assistant's tool
 * calls in order. Read so such a team can learn from and evaluate on its logs as they are, without
 * converting them to {"query", "flow"} first. Formats:
 * - OpenAI chat: `messages` with `tool_calls[].function.name` (or the older `function_call.name`);
 * - OpenAI Responses: `input` items of type `function_call` with `name`;
 * - Anthropic messages: `messages` whose content blocks of type `tool_use` carry `name`;
 * - Gemini: `contents` whose `parts` carry `functionCall.name`;
 * - MCP: JSON-RPC `tools/call` requests among the messages, with `params.name`.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

export interface ChatFlow {
  /** What the analyst asked before the first tool ran; '' when the log has no user text. */
  query: string;
  /** The tools called, in order. */
  flow: string[];
}

/** The message list of a chat log, or undefined when the object is not one. */
function messagesOf(o: Obj): unknown[] | undefined {
  for (const k of ['messages', 'input', 'contents', 'conversation']) if (Array.isArray(o[k])) return o[k] as unknown[];
  return undefined;
}

/** True when the object looks like a chat log rather than a task line. */
export function isChatLog(o: Obj): boolean {
  return messagesOf(o) !== undefined;
}

/** The text a user message carries: a string, or the text of its text blocks (tool results are not the analyst's words). */
function userText(m: Obj): string {
  const c = m.content ?? m.parts;
  if (typeof c === 'string') return c;
  if (!Array.isArray(c)) return '';
  return c
    .map((b) => (typeof b === 'string' ? b : isObj(b) && typeof b.text === 'string' && (b.type === undefined || /^(input_)?text$/.test(String(b.type))) ? b.text : ''))
    .filter((s) => s.trim())
    .join('\n');
}

/** The tools one message calls, in order. */
function callsOf(m: Obj): string[] {
  const out: string[] = [];
  const push = (v: unknown) => {
    if (typeof v === 'string' && v.trim()) out.push(v.trim());
  };
  if (Array.isArray(m.tool_calls)) for (const c of m.tool_calls) if (isObj(c)) push(isObj(c.function) ? c.function.name : c.name);
  if (isObj(m.function_call)) push(m.function_call.name);
  if (m.type === 'function_call') push(m.name);
  if (m.method === 'tools/call' && isObj(m.params)) push(m.params.name);
  const blocks = Array.isArray(m.content) ? m.content : Array.isArray(m.parts) ? m.parts : [];
  for (const b of blocks) {
    if (!isObj(b)) continue;
    if (b.type === 'tool_use' || b.type === 'function_call') push(b.name);
    if (isObj(b.functionCall)) push(b.functionCall.name);
  }
  return out;
}

/**
 * The request and the tools run. The query is the user's words up to the first tool call: what the
 * analyst had asked when the first tool was chosen (a later "also post it to the channel" is known
 * to the steps after it, not to the task as first put). A system prompt is the deployment's words,
 * not the analyst's, and is left out.
 */
export function readChatLog(o: Obj): ChatFlow {
  const msgs = messagesOf(o) ?? [];
  const before: string[] = [];
  const any: string[] = [];
  const flow: string[] = [];
  for (const m of msgs) {
    if (!isObj(m)) continue;
    const role = m.role;
    if (role === 'user' && m.type !== 'function_call_output') {
      const t = userText(m).trim();
      if (t) {
        any.push(t);
        if (!flow.length) before.push(t);
      }
    }
    flow.push(...callsOf(m));
  }
  return { query: (before.length ? before : any.slice(0, 1)).join('\n'), flow };
}
