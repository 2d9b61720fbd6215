/** The tool-cell syntax: a header line `tool_id` or `tool_id as name`, then one `argument: value`
 *  line per argument; `#` at the start of a line is a comment; `$name.output` refers to an output
 *  of an earlier cell (named by its `as name`, otherwise by its tool id). */
import type { ArgValue, CellProblem, ParsedToolCell, ToolCall, ToolCellLayout } from './types';
import { parseValue, printValue, setOwn, ValueSyntaxError } from './cell-value';

const HEADER = /^([A-Za-z_][A-Za-z0-9_.:-]*)(?:\s+as\s+([A-Za-z_][A-Za-z0-9_-]*))?\s*$/;
const ARG = /^([A-Za-z_][A-Za-z0-9_]*)\s*:(.*)$/;

export function parseToolCell(text: string): ParsedToolCell {
  const lines = text.split(/\r?\n/);
  const layout: ToolCellLayout = { args: [] };
  const problems: CellProblem[] = [];
  const args: Record<string, ArgValue> = {};
  const seen = new Set<string>();
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i];
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const indent = raw.length - raw.trimStart().length;
    if (!layout.header) {
      const m = HEADER.exec(trimmed);
      if (!m) {
        problems.push({ line: i, start: indent, end: raw.length, severity: 'error',
          message: `the first line names the tool, e.g. "ndvi" or "ndvi as veg"; got "${trimmed}"` });
        // Keep reading arguments so one typo in the header does not hide the rest.
        layout.header = { tool: '', toolRange: { line: i, start: indent, end: raw.length } };
        continue;
      }
      const toolRange = { line: i, start: indent, end: indent + m[1].length };
      const nameStart = m[2] ? raw.lastIndexOf(m[2]) : -1;
      layout.header = { tool: m[1], name: m[2], toolRange,
        nameRange: m[2] ? { line: i, start: nameStart, end: nameStart + m[2].length } : undefined };
      continue;
    }
    const m = ARG.exec(trimmed);
    if (!m) {
      problems.push({ line: i, start: indent, end: raw.length, severity: 'error',
        message: `expected "argument: value", got "${trimmed}"` });
      continue;
    }
    const name = m[1];
    const nameRange = { line: i, start: indent, end: indent + name.length };
    const valueStart = raw.indexOf(':', nameRange.end) + 1;
    const valueText = raw.slice(valueStart);
    const lead = valueText.length - valueText.trimStart().length;
    const valueRange = { line: i, start: valueStart + lead, end: raw.trimEnd().length };
    const entry: ToolCellLayout['args'][number] = { name, nameRange, valueText: valueText.trim(), valueRange };
    layout.args.push(entry);
    if (seen.has(name)) {
      problems.push({ ...nameRange, severity: 'error', message: `argument "${name}" is given twice` });
      continue;
    }
    seen.add(name);
    try {
      entry.value = parseValue(valueText);
      setOwn(args, name, entry.value);
    } catch (e) {
      const off = e instanceof ValueSyntaxError ? e.offset : 0;
      problems.push({ line: i, start: Math.min(valueStart + off, raw.length), end: Math.max(raw.length, valueStart + off + 1),
        severity: 'error', message: `${name}: ${(e as Error).message}` });
    }
  }
  if (!layout.header) {
    problems.push({ line: 0, start: 0, end: lines[0]?.length ?? 0, severity: 'error', message: 'empty tool cell: write a tool id on the first line, e.g. "ndvi"' });
    return { layout, problems };
  }
  if (!layout.header.tool) return { layout, problems };
  const call: ToolCall = { tool: layout.header.tool, args };
  if (layout.header.name) call.name = layout.header.name;
  return { call, layout, problems };
}

/** Prints a tool call in the canonical form: header, then one argument per line in the given order. */
export function printToolCall(call: ToolCall): string {
  const header = call.name && call.name !== call.tool ? `${call.tool} as ${call.name}` : call.tool;
  const lines = [header, ...Object.entries(call.args).map(([k, v]) => `${k}: ${printValue(v)}`)];
  return lines.join('\n');
}

/** The name a cell is referred to by: its explicit `as name`, or its tool id. */
export function cellName(call: Pick<ToolCall, 'tool' | 'name'>): string {
  return call.name ?? call.tool;
}
