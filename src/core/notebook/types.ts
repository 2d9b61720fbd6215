/** Types of GeoWeave notebooks and tool cells; plain data, no VS Code. */
import type { RunProvenance } from '../raster/provenance';
import type { BatchRecord } from './batch';

/** A reference to an output of an earlier tool cell: `$cell.output` in the cell text. */
export interface OutputReference {
  $ref: { cell: string; output: string };
}

/** An argument value as written in a tool cell. */
export type ArgValue =
  | string
  | number
  | boolean
  | null
  | OutputReference
  | ArgValue[]
  | { [key: string]: ArgValue };

/** One tool call: the content of a tool cell. */
export interface ToolCall {
  tool: string;
  /** Name other cells use in `$name.output`; defaults to the tool id. */
  name?: string;
  /** Arguments in the order they were written. */
  args: Record<string, ArgValue>;
}

/** Where something sits in a tool cell's text (0-based line, character range). */
export interface TextRange {
  line: number;
  start: number;
  end: number;
}

/** An edit that fixes a problem: replace the range with `text` (an empty range inserts). */
export interface CellEdit extends TextRange {
  text: string;
}

/** A quick fix offered for a problem (Ctrl+. in the editor). */
export interface CellFix {
  title: string;
  edits: CellEdit[];
}

/** A problem found in a tool cell, positioned for diagnostics. */
export interface CellProblem extends TextRange {
  message: string;
  severity: 'error' | 'warning';
  fix?: CellFix;
}

/** The parsed layout of a tool cell: what is where, for completion, hover and diagnostics. */
export interface ToolCellLayout {
  header?: { tool: string; name?: string; toolRange: TextRange; nameRange?: TextRange };
  args: { name: string; nameRange: TextRange; valueText: string; valueRange: TextRange; value?: ArgValue }[];
}

export interface ParsedToolCell {
  /** Present when the cell has a header; arguments with syntax errors are left out. */
  call?: ToolCall;
  layout: ToolCellLayout;
  problems: CellProblem[];
}

/** What a tool cell's last successful run produced; kept in the cell's metadata. */
export interface CellRunRecord {
  ok: boolean;
  tool: string;
  summary: string;
  outputs: Record<string, { path: string; type: 'raster' | 'vector' | 'table'; roles?: string[] }>;
  quicklook?: string;
  time: string;
  /** What the cell showed (bounded in size): a reopened notebook shows it again. */
  view?: unknown;
  /** How the run was made: tool and versions, arguments, hashed inputs, duration. */
  provenance?: RunProvenance;
  /** A batch run (one input argument given several files): every item's status and outputs; the
   *  top-level `outputs` are then empty and each item's summary and provenance are in its folder. */
  batch?: BatchRecord;
}

/** One cell of a `.geonb` file. */
export interface NotebookCellRecord {
  kind: 'markdown' | 'tool';
  source: string;
  metadata?: Record<string, unknown>;
}

/** A `.geonb` file as data: cells and notebook metadata (which carries the memory). */
export interface NotebookRecord {
  cells: NotebookCellRecord[];
  metadata: Record<string, unknown>;
}
