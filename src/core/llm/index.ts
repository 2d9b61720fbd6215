/** The optional LLM layer: every call throws LlmUnavailable on failure so callers fall back to the builtin path. */
export { LlmClient, LlmUnavailable, isLlmUnavailable, parseJsonReply, DEFAULT_TIMEOUT_MS } from './client';
export type { LlmConfig, LlmFailure, ChatMessage, ChatOptions } from './client';
export { expandTask, parseExpansion, expansionMessages, TASK_TYPES } from './query-expansion';
export type { TaskExpansion, VocabularyEntry } from './query-expansion';
export { complementaryQueries, parseComplementary, complementaryMessages, RATIONALES } from './complementary';
export type { ComplementaryQuery } from './complementary';
