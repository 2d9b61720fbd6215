/**
 * Child process of files-abuse: reads notebook trials (a JSON file: `[{input, text, workspace,
 * outDir}]`), runs each through the notebook code, and prints one JSON line per trial with its
 * outcome. Run in a child so a stack overflow or a hang ends only this batch, and is seen.
 */
import * as fs from 'fs';
import * as path from 'path';
import { parseNotebook, serializeNotebook, UNREADABLE_KEY } from '../../src/core/notebook/notebook-file';
import { parseToolCell, printToolCall } from '../../src/core/notebook/tool-cell';
import { resolveReferences } from '../../src/core/notebook/references';
import { runFromMetadata } from '../../src/core/notebook/session';
import { cellName } from '../../src/core/notebook/tool-cell';
import type { ArgValue } from '../../src/core/notebook/types';

interface NotebookTrial { input: string; text: string; workspace: string; outDir: string }

function judge(t: NotebookTrial): { outcome: string; detail?: string } {
  const nb = parseNotebook(t.text, t.input);
  if (nb.metadata[UNREADABLE_KEY]) {
    try {
      serializeNotebook(nb);
      return { outcome: 'partial', detail: 'an unreadable notebook would be saved over' };
    } catch {
      return { outcome: 'handled' };
    }
  }
  let text: string;
  try {
    text = serializeNotebook(nb);
  } catch (e) {
    return { outcome: 'partial', detail: `opens but cannot be saved: ${(e as Error).message.slice(0, 200)}` };
  }
  const again = parseNotebook(text, t.input);
  if (canonical(again) !== canonical(nb)) return { outcome: 'partial', detail: 'a read and a write changed the notebook' };
  // Tool cells: parse, print, parse gives the call back; references resolve inside the workspace or not at all.
  const earlier: { name: string; tool: string; run?: ReturnType<typeof runFromMetadata> }[] = [];
  for (const cell of nb.cells) {
    if (cell.kind !== 'tool') continue;
    const parsed = parseToolCell(cell.source);
    if (parsed.call && !parsed.problems.length) {
      const back = parseToolCell(printToolCall(parsed.call));
      if (JSON.stringify(back.call) !== JSON.stringify(parsed.call) || Object.keys(back.call?.args ?? {}).join() !== Object.keys(parsed.call.args).join()) {
        return { outcome: 'partial', detail: `cell does not print back: ${cell.source.slice(0, 80)}` };
      }
      try {
        const args = resolveReferences(parsed.call.args as Record<string, ArgValue>, earlier, { roots: [t.workspace, t.outDir] });
        for (const p of paths(args)) {
          if (path.isAbsolute(p) && !inside(p, [t.workspace, t.outDir])) return { outcome: 'escape', detail: `a reference resolved to ${p}` };
        }
      } catch (e) {
        if (!/^\w+: /.test((e as Error).message)) return { outcome: 'crashed', detail: `unclear reference error: ${(e as Error).message}` };
      }
    }
    if (parsed.call) earlier.push({ name: cellName(parsed.call), tool: parsed.call.tool, run: runFromMetadata(cell.metadata) });
  }
  return { outcome: 'handled' };
}

/** Lossless comparison form: own keys only (a "__proto__" key included), sorted, numbers as written. */
function canonical(v: unknown): string {
  const walk = (x: unknown): unknown => {
    if (typeof x === 'number') return `n:${x}`;
    if (Array.isArray(x)) return x.map(walk);
    if (x && typeof x === 'object') return Object.keys(x).sort().map((k) => [k, walk((x as Record<string, unknown>)[k])]);
    return x;
  };
  return JSON.stringify(walk(v));
}

function paths(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v)) return v.flatMap(paths);
  if (v && typeof v === 'object') return Object.values(v).flatMap(paths);
  return [];
}

function inside(p: string, roots: string[]): boolean {
  let real = p;
  try { real = fs.realpathSync(p); } catch { /* not there */ }
  return roots.some((r) => {
    const rel = path.relative(fs.realpathSync(r), real);
    return !rel.startsWith('..') && !path.isAbsolute(rel);
  });
}

const trials = JSON.parse(fs.readFileSync(process.argv[2], 'utf8')) as NotebookTrial[];
for (const t of trials) {
  let r: { outcome: string; detail?: string };
  try {
    r = judge(t);
  } catch (e) {
    r = { outcome: 'crashed', detail: `threw: ${(e as Error).message.slice(0, 200)}` };
  }
  process.stdout.write(JSON.stringify({ input: t.input, ...r }) + '\n');
}
