/** Forward help: restate an analyst's task (novice wording, any language) as remote-sensing terms and tool ids. */
import { LlmClient, LlmUnavailable } from './client';
import { clip, isRecord, stringList } from './validate';

/** One catalog entry offered to the model; only id and name go into the prompt. */
export interface VocabularyEntry {
  id: string;
  name: string;
  tags?: string[];
}

/** The model's restatement of a task; toolHints only ever holds ids from the vocabulary. */
export interface TaskExpansion {
  /** English remote-sensing terms, e.g. ["burn scar", "wildfire", "severity"]. */
  keywords: string[];
  /** Indices or measures, e.g. ["dNBR", "area"]. */
  indicators: string[];
  /** One of TASK_TYPES (never 'other') when the model gave a usable one. */
  taskType?: string;
  /** Vocabulary ids, best first. */
  toolHints: string[];
}

/** Task types the model may choose from (mirrors the workflows and tool families). */
export const TASK_TYPES = [
  'vegetation', 'water', 'flood', 'burn', 'urban', 'change', 'terrain', 'land_cover',
  'snow', 'temperature', 'water_quality', 'crop', 'preprocessing', 'other',
] as const;

const MAX_KEYWORDS = 8;
const MAX_INDICATORS = 5;
const MAX_HINTS = 6;
const MAX_TASK_CHARS = 1000;

const SYSTEM = [
  'You turn a remote-sensing analyst\'s task (any language, possibly non-expert wording) into English remote-sensing terms and pick tools from a catalog.',
  'Reply with one JSON object only:',
  `{"keywords":[English remote-sensing terms, at most ${MAX_KEYWORDS}],"indicators":[spectral indices or measures such as NDVI, dNBR, area, at most ${MAX_INDICATORS}],` +
    `"taskType":"one of ${TASK_TYPES.join('|')}","toolIds":[catalog ids, best first, at most ${MAX_HINTS}]}`,
  'Use only ids that appear in the catalog.',
].join('\n');

/** Builds the chat messages for expandTask (exported so callers and tests can inspect the prompt). */
export function expansionMessages(task: string, vocabulary: VocabularyEntry[]): { role: 'system' | 'user'; content: string }[] {
  const catalog = vocabulary.map((v) => `${v.id}: ${clip(v.name, 60)}`).join('\n');
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: `Catalog (id: name):\n${catalog}\n\nTask: """${clip(task, MAX_TASK_CHARS)}"""` },
  ];
}

/**
 * Asks the model to restate `task` as remote-sensing keywords, indicators, a task type and likely tool ids.
 * Throws LlmUnavailable on any failure (server down, timeout, reply without the expected shape).
 */
export async function expandTask(
  client: LlmClient,
  task: string,
  vocabulary: VocabularyEntry[],
  signal?: AbortSignal,
): Promise<TaskExpansion> {
  if (typeof task !== 'string' || !task.trim()) return { keywords: [], indicators: [], toolHints: [] };
  const vocab = (vocabulary ?? []).filter((v) => v && typeof v.id === 'string' && v.id.trim());
  const reply = await client.chatJson(expansionMessages(task, vocab), { signal });
  return parseExpansion(reply, vocab, client.server);
}

/** Validates a reply: unknown tool ids are dropped, names are mapped to ids, lists are bounded. */
export function parseExpansion(reply: unknown, vocabulary: VocabularyEntry[], server = 'the LLM server'): TaskExpansion {
  const known = ['keywords', 'indicators', 'taskType', 'toolIds', 'toolHints', 'tools'];
  if (!isRecord(reply) || !known.some((k) => k in reply)) {
    throw new LlmUnavailable(
      `LLM server at ${server} answered the task expansion without keywords/indicators/toolIds; falling back to builtin retrieval.`,
      'bad-response', server);
  }
  const byKey = new Map<string, string>();
  for (const v of vocabulary) byKey.set(v.id.toLowerCase(), v.id);
  for (const v of vocabulary) {
    const name = typeof v.name === 'string' ? v.name.toLowerCase().trim() : '';
    if (name && !byKey.has(name)) byKey.set(name, v.id);
  }
  const hints: string[] = [];
  for (const h of stringList(reply.toolIds ?? reply.toolHints ?? reply.tools, 50, 120)) {
    const id = byKey.get(h.toLowerCase());
    if (id && !hints.includes(id)) hints.push(id);
    if (hints.length >= MAX_HINTS) break;
  }
  const out: TaskExpansion = {
    keywords: stringList(reply.keywords, MAX_KEYWORDS, 60),
    indicators: stringList(reply.indicators, MAX_INDICATORS, 40),
    toolHints: hints,
  };
  const taskType = typeof reply.taskType === 'string' ? reply.taskType.trim().toLowerCase().replace(/[\s-]+/g, '_') : '';
  if (taskType !== 'other' && (TASK_TYPES as readonly string[]).includes(taskType)) out.taskType = taskType;
  return out;
}
