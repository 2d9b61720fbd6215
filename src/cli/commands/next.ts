/** `geoweave next --task "<task>" --done a,b [--result "<summary>"]`: complementary suggestions. */
import { ParsedArgs, UsageError, opt, optInt } from '../args';
import type { CliIO } from '../main';
import { openFrom, table, fmt } from '../common';
import { memoryFromFlow } from '../../core/eval/memory-from-flow';
import { modeFrom, readDataContext } from './suggest';

export async function run(args: ParsedArgs, io: CliIO): Promise<number> {
  const task = opt(args, 'task');
  const doneArg = opt(args, 'done');
  if (!task || !doneArg) throw new UsageError('usage: geoweave next --task "<task>" --done id1,id2 [--result "<summary>"] [--k 10] [--json]');
  const done = doneArg.split(',').map((s) => s.trim()).filter(Boolean);
  if (!done.length) throw new UsageError('--done needs at least one tool id');
  const k = optInt(args, 'k', 10);
  const gw = await openFrom(args, io);
  try {
    const unknown = done.filter((id) => !gw.getTool(id));
    if (unknown.length) throw new UsageError(`--done: unknown tool id(s) ${unknown.join(', ')}; see "geoweave index stats" or the manifests folder`);
    const memory = memoryFromFlow(gw, task, done, opt(args, 'result') ?? '');
    const res = await gw.complementarySuggestions(memory, { k, data: await readDataContext(opt(args, 'data'), io), mode: modeFrom(args) });
    if (args.flags.has('json')) {
      io.out(JSON.stringify(res, null, 2));
      return 0;
    }
    io.out(`task: ${task}\ndone: ${done.join(' → ')}\n`);
    io.out(table(res.ranked.map((s, i) => [String(i + 1), s.id, fmt(s.score), s.rationale, s.reason]), ['#', 'tool', 'score', 'rationale', 'why']));
    if (res.llm) io.out(`\nLLM: ${res.llm === 'used' ? 'used for complementary queries' : 'unavailable, builtin suggestions only'}`);
    return 0;
  } finally {
    await gw.dispose();
  }
}
