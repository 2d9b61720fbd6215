/** `geoweave learn --trajectories FILE.jsonl`: learns transitions and affinities from executed flows. */
import { ParsedArgs, UsageError, opt } from '../args';
import type { CliIO } from '../main';
import { openFrom } from '../common';
import { readTasks, missingIds } from '../../core/eval/tasks';

export async function run(args: ParsedArgs, io: CliIO): Promise<number> {
  const file = opt(args, 'trajectories');
  if (!file) throw new UsageError('usage: geoweave learn --trajectories FILE.jsonl (lines {"query", "flow": [tool ids], "ok"?})');
  const tasks = readTasks(file);
  const gw = await openFrom(args, io);
  try {
    const missing = missingIds(tasks, (id) => !!gw.getTool(id));
    for (const m of missing) io.err(`warning: ${file}: unknown tool ${m}`);
    const items = tasks.map((t) => ({ task: t.query, tools: t.flow.length ? t.flow : t.gold }));
    await gw.recordTrajectories(items);
    const s = gw.stats();
    io.out(`learned ${items.length} trajectories; ${s.learnedTransitions} tool transitions known (state: ${gw.stateFolder})`);
    // The flows changed: the fusion weights are refitted on them (skipped with --no-fit).
    if (!args.flags.has('no-fit')) {
      const st = await gw.refitFusion();
      io.out(st.report ? `fusion weights refitted on ${st.report.flows} flows in ${st.report.seconds} s (out-of-fold next hit@3 ${st.report.next.before['hit@3'].toFixed(3)} → ${st.report.next.after['hit@3'].toFixed(3)})` : `fusion weights: prior kept (${st.reason})`);
    }
    return 0;
  } finally {
    await gw.dispose();
  }
}
