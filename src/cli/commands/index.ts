/** `geoweave index build|stats`: (re)build the tool index, or show what it holds. */
import { ParsedArgs, UsageError } from '../args';
import type { CliIO } from '../main';
import { openFrom } from '../common';
import { formatProblem } from '../../core/manifests/problem';

export async function run(args: ParsedArgs, io: CliIO): Promise<number> {
  const sub = args.positionals[0];
  if (sub !== 'build' && sub !== 'stats') throw new UsageError('usage: geoweave index build|stats [--manifests DIR] [--state DIR] [--json]');
  const t0 = Date.now();
  const gw = await openFrom(args, io, { rebuildIndex: sub === 'build' });
  try {
    const s = gw.stats();
    const errors = gw.problems.filter((p) => p.severity === 'error');
    if (args.flags.has('json')) {
      io.out(JSON.stringify({ ...s, stateDir: gw.stateFolder, problems: gw.problems }, null, 2));
    } else {
      if (sub === 'build') io.out(`built the index in ${Date.now() - t0} ms`);
      io.out(`tools: ${s.tools}\nworkflows: ${s.workflows}\nembedder: ${s.embedder} (dimension ${s.dimension})\nindex: ${s.indexFile}\nlearned transitions: ${s.learnedTransitions} (plus ${s.practiceTransitions} from analyst practice)\nsimilar-task cases: ${s.cases}`);
      for (const p of gw.problems) io.err(formatProblem(p));
    }
    return errors.length ? 1 : 0;
  } finally {
    await gw.dispose();
  }
}
