/** `geoweave learn --trajectories FILE.jsonl`: learns transitions and affinities from executed flows. */
import { ParsedArgs, UsageError, opt } from '../args';
import type { CliIO } from '../main';
import { flowsOnCatalog, openFrom, stateDirFrom } from '../common';
import { flowOf, readTasks } from '../../core/eval/tasks';
import { stateDirProblem } from '../../core/state-dir';

export async function run(args: ParsedArgs, io: CliIO): Promise<number> {
  const file = opt(args, 'trajectories');
  if (!file) throw new UsageError('usage: geoweave learn --trajectories FILE.jsonl (lines {"query", "flow": [tool ids], "ok"?}, or assistant chat logs {"messages": [...]} whose tool calls are the flow)');
  const tasks = readTasks(file);
  // Learning into a throwaway folder would look like success and keep nothing: refuse instead.
  const stateDir = stateDirFrom(args);
  const problem = stateDirProblem(stateDir);
  if (problem) {
    io.err(`geoweave learn: the state folder ${stateDir} is unusable (${problem}); nothing was learned. Fix its permissions or pass another --state DIR.`);
    return 1;
  }
  const gw = await openFrom(args, io);
  try {
    const items: { task: string; tools: string[] }[] = [];
    let skipped = 0;
    for (const t of flowsOnCatalog(gw, tasks, file, io)) {
      const tools = flowOf(t);
      const unknown = [...new Set(tools.filter((id) => !gw.getTool(id)))];
      if (unknown.length) {
        skipped++;
        io.err(`warning: ${file}:${t.line}: unknown tool${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; this trajectory is not learned (check the id or add its manifest with --manifests DIR)`);
        continue;
      }
      items.push({ task: t.query, tools });
    }
    if (!items.length) {
      io.err(`geoweave learn: nothing learned: every trajectory in ${file} names a tool the catalog does not have`);
      return 1;
    }
    if (!(await gw.recordTrajectories(items))) {
      io.err(`geoweave learn: the learned state in ${gw.stateFolder} could not be saved (see the warning above); nothing was learned`);
      return 1;
    }
    const s = gw.stats();
    io.out(`learned ${items.length} trajectories${skipped ? ` (skipped ${skipped} with unknown tools)` : ''}; ${s.learnedTransitions} tool transitions known (state: ${gw.stateFolder})`);
    // The flows changed: the fusion weights are refitted on them (skipped with --no-fit).
    if (!args.flags.has('no-fit')) {
      const st = await gw.refitFusion();
      io.out(st.report ? `fusion weights refitted on ${st.report.flows} flows in ${st.report.seconds} s (out-of-fold next hit@3 ${st.report.next.before['hit@3'].toFixed(3)} → ${st.report.next.after['hit@3'].toFixed(3)}${st.report.nextPrior ? `; next-step weights: prior, ${st.report.nextPrior}` : ''})` : `fusion weights: prior kept (${st.reason})`);
    }
    return 0;
  } finally {
    await gw.dispose();
  }
}
