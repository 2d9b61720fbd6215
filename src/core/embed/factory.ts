import type { Embedder, EmbedderConfig } from './types';
import { BuiltinEmbedder } from './builtin';

/** Builds the embedder a config names; transformers/openai modules load only when chosen. */
export async function createEmbedder(config: EmbedderConfig, signal?: AbortSignal): Promise<Embedder> {
  switch (config.kind) {
    case 'builtin':
      return new BuiltinEmbedder();
    case 'transformers': {
      const { TransformersEmbedder } = await import('./transformers');
      return TransformersEmbedder.load(config, { signal });
    }
    case 'openai': {
      const { OpenAIEmbedder } = await import('./openai');
      return OpenAIEmbedder.connect(config, { signal });
    }
    default:
      throw new Error(
        `embedder.kind "${(config as { kind?: unknown }).kind}" is unknown; use "builtin", "transformers" or "openai"`,
      );
  }
}
