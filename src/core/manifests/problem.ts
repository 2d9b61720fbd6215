/** How a manifest problem reads, for Problems, logs and the CLI (no dependencies: the extension
 *  uses it at activation without loading the validator). */
import type { ManifestProblem } from './types';

/** The problem's text with its JSON path in front; schema messages already read "/tags must be array". */
export function problemMessage(p: ManifestProblem): string {
  return p.path && !p.message.startsWith(p.path) ? `${p.path}: ${p.message}` : p.message;
}

/** One line per problem. */
export function formatProblem(p: ManifestProblem): string {
  return `${p.severity}: ${p.file}: ${problemMessage(p)}`;
}

