/** How a manifest problem reads, for Problems, logs and the CLI (no dependencies: the extension
 *  uses it at activation without loading the validator). */
import type { ManifestProblem } from './types';

/** The problem's text with its JSON path in front; schema messages already read "/tags must be array". */
export function problemMessage(p: ManifestProblem): string {
  return p.path && !p.message.startsWith(p.path) ? `${readablePointer(p.path)}: ${p.message}` : p.message;
}

/**
 * A JSON pointer as a reader takes it: a key holding "/" (an OpenAPI route) is decoded and quoted,
 * `/paths/"/jobs/{id}"/get/description` rather than `/paths/~1jobs~1{id}/get/description`.
 */
export function readablePointer(pointer: string): string {
  if (!/~[01]/.test(pointer)) return pointer;
  return pointer.split('/').map((seg) => {
    const key = seg.replace(/~1/g, '/').replace(/~0/g, '~');
    return key.includes('/') ? JSON.stringify(key) : key;
  }).join('/');
}

/** One line per problem. */
export function formatProblem(p: ManifestProblem): string {
  return `${p.severity}: ${p.file}: ${problemMessage(p)}`;
}

