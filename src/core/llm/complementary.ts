/** Backward help: from the task and the latest results, ask what would quantify, explain, verify, compare or extend them. */
import type { MemoryState } from '../memory/types';
import type { Rationale } from '../retrieval/types';
import { LlmClient, LlmUnavailable } from './client';
import { clip, isRecord } from './validate';

/** One search query for the complementary ranking, with the reason it is asked. */
export interface ComplementaryQuery {
  rationale: Rationale;
  text: string;
}

export const RATIONALES: readonly Rationale[] = ['quantify', 'explain', 'verify', 'compare', 'extend'];

const MAX_PER_RATIONALE = 2;
const MAX_TEXT_CHARS = 160;
const DEFAULT_WINDOW = 3;

const SYSTEM = [
  'You help a remote-sensing analyst decide the next step. Given the task and the latest results, say what would',
  'quantify (turn it into numbers, areas, statistics), explain (find causes or drivers), verify (check quality or accuracy),',
  'compare (other dates, areas or indices) or extend (carry it to the next product) the latest finding.',
  'Each query is a short English tool-search phrase (at most 15 words) naming the analysis, not the tool id.',
  `Give at most ${MAX_PER_RATIONALE} queries per rationale and skip rationales that do not fit.`,
  'Reply with one JSON object only: {"queries":[{"rationale":"quantify|explain|verify|compare|extend","text":"..."}]}',
].join('\n');

/** Builds the chat messages from the task and the working-memory window (exported for inspection). */
export function complementaryMessages(memory: MemoryState): { role: 'system' | 'user'; content: string }[] {
  const window = Number.isInteger(memory.windowSize) && memory.windowSize > 0 ? memory.windowSize : DEFAULT_WINDOW;
  const steps = (memory.trace ?? []).slice(-window);
  const lines = steps.map((s, i) => {
    const outputs = (s.outputs ?? [])
      .map((o) => `${o.name} (${o.type}${o.roles?.length ? `; ${o.roles.join(', ')}` : ''})`)
      .join(', ');
    return `${i + 1}. ${s.tool}(${clip(s.argSummary ?? '', 160)})${s.ok ? '' : ' FAILED'} → ${clip(s.resultSummary ?? '', 400)}` +
      (outputs ? ` [outputs: ${clip(outputs, 200)}]` : '');
  });
  return [
    { role: 'system', content: SYSTEM },
    {
      role: 'user',
      content: `Task: """${clip(memory.task ?? '', 600)}"""\nLatest steps (oldest first; the last one is the finding):\n${lines.join('\n')}`,
    },
  ];
}

/**
 * Asks the model for complementary queries to the latest steps (at most 2 per rationale).
 * Returns [] when there is no step yet; throws LlmUnavailable on any failure.
 */
export async function complementaryQueries(
  client: LlmClient,
  memory: MemoryState,
  signal?: AbortSignal,
): Promise<ComplementaryQuery[]> {
  if (!memory || !Array.isArray(memory.trace) || memory.trace.length === 0) return [];
  const reply = await client.chatJson(complementaryMessages(memory), { signal });
  return parseComplementary(reply, client.server);
}

/**
 * Validates a reply. Accepts {"queries":[{rationale,text}]}, a bare array of those, or
 * {"quantify":["..."], ...}; unknown rationales and empty texts are dropped, duplicates removed.
 */
export function parseComplementary(reply: unknown, server = 'the LLM server'): ComplementaryQuery[] {
  const pairs: [unknown, unknown][] = [];
  const list = Array.isArray(reply) ? reply : isRecord(reply) && Array.isArray(reply.queries) ? reply.queries : undefined;
  if (list) {
    for (const q of list) if (isRecord(q)) pairs.push([q.rationale, q.text ?? q.query]);
  } else if (isRecord(reply) && RATIONALES.some((r) => r in reply)) {
    for (const r of RATIONALES) {
      const v = reply[r];
      for (const t of Array.isArray(v) ? v : [v]) pairs.push([r, t]);
    }
  } else {
    throw new LlmUnavailable(
      `LLM server at ${server} answered the complementary request without a "queries" list; falling back to builtin suggestions.`,
      'bad-response', server);
  }
  const out: ComplementaryQuery[] = [];
  const count = new Map<Rationale, number>();
  const seen = new Set<string>();
  for (const [r, t] of pairs) {
    const rationale = typeof r === 'string' ? (r.trim().toLowerCase() as Rationale) : undefined;
    if (!rationale || !RATIONALES.includes(rationale)) continue;
    if (typeof t !== 'string') continue;
    const text = t.replace(/\s+/g, ' ').trim();
    if (!text || text.length > MAX_TEXT_CHARS * 2) continue;
    const key = `${rationale}\u0000${text.toLowerCase()}`;
    if (seen.has(key) || (count.get(rationale) ?? 0) >= MAX_PER_RATIONALE) continue;
    seen.add(key);
    count.set(rationale, (count.get(rationale) ?? 0) + 1);
    out.push({ rationale, text: clip(text, MAX_TEXT_CHARS) });
  }
  return out;
}
