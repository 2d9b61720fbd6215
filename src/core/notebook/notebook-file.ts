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
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) out[k] = sortKeys(x);
    }
    return out;
  }
  return v;
}

/** Reads a notebook file. Never throws: an unreadable file becomes a notebook with one markdown cell
 *  that says what is wrong, marked so that saving it back is refused. */
export function parseNotebook(text: string, fileLabel = 'this file'): NotebookRecord {
  if (text.trim() === '') return { cells: [], metadata: {} };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return unreadable(fileLabel, `it is not valid JSON (${(e as Error).message})`);
  }
  const problem = checkNotebookShape(data);
  if (problem) return unreadable(fileLabel, problem);
  const d = data as { cells: Record<string, unknown>[]; metadata?: Record<string, unknown> };
  return {
    cells: d.cells.map((c) => {
      const cell: NotebookCellRecord = { kind: c.kind as 'markdown' | 'tool', source: sourceText(c.source) };
      if (c.metadata && typeof c.metadata === 'object' && Object.keys(c.metadata).length) cell.metadata = c.metadata as Record<string, unknown>;
      return cell;
    }),
    metadata: d.metadata && typeof d.metadata === 'object' ? d.metadata : {},
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
  for (let i = 0; i < d.cells.length; i++) {
    const c = d.cells[i] as Record<string, unknown> | null;
    if (!c || typeof c !== 'object') return `cells[${i}] is not an object`;
    if (c.kind !== 'markdown' && c.kind !== 'tool') return `cells[${i}].kind is ${JSON.stringify(c.kind)}, expected "markdown" or "tool"`;
    if (!(typeof c.source === 'string' || (Array.isArray(c.source) && c.source.every((l) => typeof l === 'string')))) {
      return `cells[${i}].source must be a list of lines`;
    }
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
