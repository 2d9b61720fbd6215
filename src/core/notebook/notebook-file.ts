/** The `.geonb` file format: JSON with sorted keys, two-space indent and a trailing newline; cell
 *  sources are arrays of lines so notebooks diff well. */
import type { NotebookCellRecord, NotebookRecord } from './types';

export const NOTEBOOK_FORMAT = 'geoweave-notebook';
export const NOTEBOOK_VERSION = 1;
/** Notebook metadata key marking a notebook built from an unreadable file. */
export const UNREADABLE_KEY = 'unreadable';

/** JSON with object keys sorted at every level; arrays keep their order. */
export function stableStringify(value: unknown): string {
  return JSON.stringify(sortKeys(value), null, 2) + '\n';
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') {
    // No prototype: a key named "__proto__" is kept as a key, not taken as the object's prototype.
    const out: Record<string, unknown> = Object.create(null);
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) out[k] = sortKeys(x);
    }
    return out;
  }
  return v;
}

/** Deeper metadata than this is not something GeoWeave writes, and could not be written back. */
export const MAX_METADATA_DEPTH = 64;

/**
 * Why a metadata value cannot be saved back unchanged: nesting deeper than MAX_METADATA_DEPTH, or a
 * number JSON cannot hold (1e999 reads as Infinity and would be written as null). Undefined when fine.
 */
export function metadataProblem(value: unknown, where: string): string | undefined {
  const stack: { v: unknown; at: string; depth: number }[] = [{ v: value, at: where, depth: 0 }];
  while (stack.length) {
    const { v, at, depth } = stack.pop()!;
    if (typeof v === 'number' && !Number.isFinite(v)) return `${at} holds a number too large for JSON (it would be saved as null)`;
    if (!v || typeof v !== 'object') continue;
    if (depth >= MAX_METADATA_DEPTH) return `${at} nests deeper than ${MAX_METADATA_DEPTH} levels`;
    if (Array.isArray(v)) v.forEach((x, i) => stack.push({ v: x, at: `${at}[${i}]`, depth: depth + 1 }));
    else for (const k of Object.keys(v)) stack.push({ v: (v as Record<string, unknown>)[k], at: `${at}.${k}`, depth: depth + 1 });
  }
  return undefined;
}

/** Reads a notebook file. Never throws: an unreadable file becomes a notebook with one markdown cell
 *  that says what is wrong, marked so that saving it back is refused. */
export function parseNotebook(text: string, fileLabel = 'this file'): NotebookRecord {
  // A byte-order mark (some Windows editors add one) is not part of the JSON.
  const body = text.replace(/^\uFEFF/, '');
  if (body.trim() === '') return { cells: [], metadata: {} };
  let data: unknown;
  try {
    data = JSON.parse(body);
  } catch (e) {
    return unreadable(fileLabel, `it is not valid JSON (${(e as Error).message})`);
  }
  const problem = checkNotebookShape(data);
  if (problem) return unreadable(fileLabel, problem);
  const d = data as { cells: Record<string, unknown>[]; metadata?: Record<string, unknown> };
  return {
    cells: d.cells.map((c) => {
      const cell: NotebookCellRecord = { kind: c.kind as 'markdown' | 'tool', source: sourceText(c.source) };
      if (c.metadata && Object.keys(c.metadata).length) cell.metadata = c.metadata as Record<string, unknown>;
      return cell;
    }),
    metadata: d.metadata ?? {},
  };
}

function checkNotebookShape(data: unknown): string | undefined {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return 'it is not a JSON object';
  const d = data as Record<string, unknown>;
  if (d.format !== NOTEBOOK_FORMAT) {
    if ('nbformat' in d) return 'it is a Jupyter notebook (.ipynb), not a GeoWeave notebook; open it with the Jupyter extension';
    return `"format" is ${JSON.stringify(d.format)}, expected "${NOTEBOOK_FORMAT}"`;
  }
  if (typeof d.version !== 'number' || d.version > NOTEBOOK_VERSION) {
    return `"version" is ${JSON.stringify(d.version)}; this GeoWeave reads version ${NOTEBOOK_VERSION}: update the extension`;
  }
  if (!Array.isArray(d.cells)) return '"cells" is missing or not a list';
  if (d.metadata !== undefined && (!d.metadata || typeof d.metadata !== 'object' || Array.isArray(d.metadata))) return '"metadata" is not an object';
  const meta = metadataProblem(d.metadata, 'metadata');
  if (meta) return meta;
  for (let i = 0; i < d.cells.length; i++) {
    const c = d.cells[i] as Record<string, unknown> | null;
    if (!c || typeof c !== 'object' || Array.isArray(c)) return `cells[${i}] is not an object`;
    if (c.kind !== 'markdown' && c.kind !== 'tool') return `cells[${i}].kind is ${JSON.stringify(c.kind)}, expected "markdown" or "tool"`;
    if (!(typeof c.source === 'string' || (Array.isArray(c.source) && c.source.every((l) => typeof l === 'string')))) {
      return `cells[${i}].source must be a list of lines`;
    }
    if (c.metadata !== undefined && (!c.metadata || typeof c.metadata !== 'object' || Array.isArray(c.metadata))) return `cells[${i}].metadata is not an object`;
    const cellMeta = metadataProblem(c.metadata, `cells[${i}].metadata`);
    if (cellMeta) return cellMeta;
  }
  return undefined;
}

function sourceText(s: unknown): string {
  return Array.isArray(s) ? s.join('\n') : String(s);
}

function unreadable(fileLabel: string, reason: string): NotebookRecord {
  const message = [
    `# This notebook could not be opened`,
    '',
    `GeoWeave could not read ${fileLabel}: ${reason}.`,
    '',
    'The file on disk is unchanged. Saving is disabled for this view so it is not overwritten;',
    'open the file with "Reopen Editor With… → Text Editor" to fix it by hand.',
  ].join('\n');
  return { cells: [{ kind: 'markdown', source: message }], metadata: { [UNREADABLE_KEY]: reason } };
}

/** Writes a notebook deterministically. Throws for a notebook built from an unreadable file. */
export function serializeNotebook(nb: NotebookRecord): string {
  if (nb.metadata[UNREADABLE_KEY]) {
    throw new Error(`GeoWeave will not save over a file it could not read (${String(nb.metadata[UNREADABLE_KEY])}); fix the file as text first`);
  }
  const problem = metadataProblem(nb.metadata, 'metadata') ?? nb.cells.map((c, i) => metadataProblem(c.metadata, `cells[${i}].metadata`)).find((p) => p);
  if (problem) throw new Error(`cannot save the notebook: ${problem}`);
  return stableStringify({
    format: NOTEBOOK_FORMAT,
    version: NOTEBOOK_VERSION,
    metadata: nb.metadata,
    cells: nb.cells.map((c) => ({
      kind: c.kind,
      source: c.source.split(/\r?\n/),
      metadata: c.metadata && Object.keys(c.metadata).length ? c.metadata : undefined,
    })),
  });
}
