/** `geoweave suggest "<task>"`: forward candidates with reasons. */
import * as fs from 'fs';
import * as path from 'path';
import { ParsedArgs, UsageError, opt, optInt } from '../args';
import type { CliIO } from '../main';
import { openFrom, table, fmt } from '../common';
import type { DataContext, Readiness } from '../../core/retrieval/types';
import type { RetrievalMode } from '../../core/retrieval/context';

/** `--data` is a folder to scan (rasters are described from their headers) or a DataContext JSON file. */
export async function readDataContext(file: string | undefined, io?: CliIO): Promise<DataContext | undefined> {
  if (!file) return undefined;
  if (fs.existsSync(file) && fs.statSync(file).isDirectory()) {
    const { scanDataFolder } = await import('../../core/data/scan');
    return scanDataFolder(path.resolve(file), (msg) => io?.err(`warning: ${msg}`));
  }
  let data: DataContext;
  try {
    data = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UsageError(`--data ${file}: cannot read JSON (${(e as Error).message}); give a data folder or a JSON file {"items": [...]}`);
  }
  if (!data || !Array.isArray(data.items)) throw new UsageError(`--data ${file}: expected {"items": [{"path", "type", "bands"?, "roles"?}]}`);
  return data;
}

export function modeFrom(args: ParsedArgs): RetrievalMode {
  const m = opt(args, 'mode') ?? 'full';
  if (!['bm25', 'dense', 'hybrid', 'full'].includes(m)) throw new UsageError(`--mode must be bm25, dense, hybrid or full, got "${m}"`);
  return m as RetrievalMode;
}

export async function run(args: ParsedArgs, io: CliIO): Promise<number> {
  const task = args.positionals.join(' ').trim();
  if (!task) throw new UsageError('usage: geoweave suggest "<task>" [--k 10] [--json] [--data context.json]');
  const k = optInt(args, 'k', 10);
  const data = await readDataContext(opt(args, 'data'), io);
  const gw = await openFrom(args, io);
  try {
    const res = await gw.forwardCandidates(task, { k, data, mode: modeFrom(args) });
    if (args.flags.has('json')) {
      io.out(JSON.stringify(res, null, 2));
      return 0;
    }
    const slots = Object.entries(res.slots).map(([k2, v]) => `${k2}=${Array.isArray(v) ? v.join('|') : v}`).join('  ');
    io.out(`task: ${task}${slots ? `\nslots: ${slots}` : ''}\n`);
    io.out(table(res.candidates.map((c, i) => [String(i + 1), c.id, fmt(c.score), c.readiness.runnable ? (data ? runState(c.readiness) : 'runnable') : 'catalog', c.reason]), ['#', 'tool', 'score', 'run', 'why']));
    if (res.llm) io.out(`\nLLM: ${res.llm === 'used' ? 'used for query expansion' : 'unavailable, builtin retrieval only'}`);
    if (res.workflow) io.out(`\nworkflow ${res.workflow.id} (${fmt(res.workflow.score, 2)}): ${res.workflow.steps.join(' → ')}\n  ${res.workflow.description}`);
    return 0;
  } finally {
    await gw.dispose();
  }
}

/** "ready", "ready (guess)", "not ready" (projection, extent, grid; the reason says why) or "missing x,y". */
function runState(r: Readiness): string {
  if (r.ready) return r.caveats?.length ? 'ready (guess)' : 'ready';
  return r.issues?.length ? 'not ready' : `missing ${r.missing.join(',')}`;
}
