/** `geoweave index build|stats`: (re)build the tool index (and refit the fusion weights), or show what it holds. */
import { ParsedArgs, UsageError } from '../args';
import type { CliIO } from '../main';
import { openFrom, fmt } from '../common';
import { formatProblem } from '../../core/manifests/problem';
import type { GeoWeave } from '../../core/geoweave';
import { FITTED_FORWARD, FITTED_NEXT } from '../../core/retrieval/signals';
import { describeReach } from '../../core/retrieval/reach';

/** One paragraph on the fusion weights: where they come from, on what they were fitted, what the fit gained. */
export function describeFusion(gw: GeoWeave): string {
  const f = gw.fusionStatus();
  const st = f.state;
  const lines: string[] = [];
  const from = { state: 'fitted on this catalog\'s flows', shipped: 'shipped with the builtin catalog, fitted on its practice flows', given: 'fitted on the given flows', prior: 'the hand-set prior (not fitted)' }[f.source];
  lines.push(`fusion weights: ${from}${st?.fittedAt ? ` (${st.fittedAt})` : ''}${f.source !== 'prior' && f.source !== 'given' ? (f.current ? '; current' : '; stale: the catalog\'s flows or GeoWeave\'s fit changed since, "geoweave learn" or "index build" refits') : ''}`);
  if (st?.reason) lines.push(`  prior kept: ${st.reason}`);
  const r = st?.report;
  if (r) {
    lines.push(`  fitted on ${r.flows} flows, ${r.steps} next steps${r.stepsTotal ? ` (sampled from ${r.stepsTotal})` : ''}, ${r.folds}-fold, in ${r.seconds} s`);
    const sim = [r.newTools?.hidden ? `${r.newTools.hidden} tools hidden as new (${r.newTools.tasks} tasks, ${r.newTools.steps} steps)` : '', r.recurring?.flows ? `${r.recurring.flows} flows lent as recurring tasks (${r.recurring.steps} steps)` : ''].filter(Boolean);
    if (sim.length) lines.push(`  simulated: ${sim.join('; ')}`);
    lines.push(`  out of fold: forward R@10 ${fmt(r.forward.before['R@10'])} → ${fmt(r.forward.after['R@10'])}, COMP@10 ${fmt(r.forward.before['COMP@10'])} → ${fmt(r.forward.after['COMP@10'])}; next hit@1 ${fmt(r.next.before['hit@1'])} → ${fmt(r.next.after['hit@1'])}, hit@3 ${fmt(r.next.before['hit@3'])} → ${fmt(r.next.after['hit@3'])}${r.nextPrior ? ` (next-step weights: prior, ${r.nextPrior})` : ''}`);
    if (r.trees) lines.push(`  reranking trees: ${r.trees.trees ? `${r.trees.trees} kept` : 'none kept (they did not help)'}; on ${r.trees.heldSteps} held-out next steps hit@1 + hit@3 + ½ MRR ${fmt(r.trees.before)} → ${fmt(r.trees.after)}, fitted in ${r.trees.seconds} s`);
  }
  const w = gw.weights as unknown as Record<string, number>;
  lines.push(`  forward: ${FITTED_FORWARD.map((n) => `${n} ${+w[n].toFixed(3)}`).join(', ')}`);
  lines.push(`  next:    ${FITTED_NEXT.map((n) => `${n} ${+w[n].toFixed(3)}`).join(', ')}`);
  return lines.join('\n');
}

export async function run(args: ParsedArgs, io: CliIO): Promise<number> {
  const sub = args.positionals[0];
  if (sub !== 'build' && sub !== 'stats') throw new UsageError('usage: geoweave index build|stats [--manifests DIR] [--state DIR] [--json]');
  const t0 = Date.now();
  const gw = await openFrom(args, io, { rebuildIndex: sub === 'build' });
  try {
    const s = gw.stats();
    const errors = gw.problems.filter((p) => p.severity === 'error');
    if (args.flags.has('json')) {
      const { state, ...fusion } = gw.fusionStatus();
      io.out(JSON.stringify({ ...s, stateDir: gw.stateFolder, fusion: { ...fusion, ...(state ? { fittedAt: state.fittedAt, report: state.report, reason: state.reason } : {}), weights: gw.weights }, problems: gw.problems }, null, 2));
    } else {
      if (sub === 'build') io.out(`built the index in ${Date.now() - t0} ms`);
      io.out(`tools: ${s.tools}\nworkflows: ${s.workflows}\nembedder: ${s.embedder} (dimension ${s.dimension})\nindex: ${s.indexFile}\nlearned transitions: ${s.learnedTransitions} (plus ${s.practiceTransitions} from analyst practice${s.practiceTransitions && s.practiceShare < 1 ? `, counted as ${(100 * s.practiceShare).toFixed(1)} % of the evidence, each of its flows weighing ${s.practiceWeight.toPrecision(2)} of one of yours: your flows run other tools` : ''})\nsimilar-task cases: ${s.cases}`);
      if (s.folders.length > 1) io.out(`manifest folders:\n${s.folders.map((f) => `  ${describeReach(f)}`).join('\n')}`);
      io.out(describeFusion(gw));
      for (const p of gw.problems) io.err(formatProblem(p));
    }
    return errors.length ? 1 : 0;
  } finally {
    await gw.dispose();
  }
}
