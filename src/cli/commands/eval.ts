/** `geoweave eval --tasks FILE.jsonl [--train FILE.jsonl] [--k 1,3,5,10,20] [--mode …] [--json]`. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ParsedArgs, UsageError, opt } from '../args';
import type { CliIO } from '../main';
import { openFrom, table, fmt } from '../common';
import { readTasks, missingIds } from '../../core/eval/tasks';
import { DEFAULT_KS, evaluate, EvalReport } from '../../core/eval/evaluate';
import type { RetrievalMode } from '../../core/retrieval/context';

const MODES: RetrievalMode[] = ['bm25', 'dense', 'hybrid', 'full'];

function parseKs(v: string | undefined): number[] {
  if (!v) return DEFAULT_KS;
  const ks = v.split(',').map((s) => Number(s.trim()));
  if (!ks.length || ks.some((k) => !Number.isInteger(k) || k <= 0)) throw new UsageError(`--k must be a comma-separated list of positive integers, got "${v}"`);
  return [...new Set(ks)].sort((a, b) => a - b);
}

export async function run(args: ParsedArgs, io: CliIO): Promise<number> {
  const tasksFile = opt(args, 'tasks');
  if (!tasksFile) throw new UsageError('usage: geoweave eval --tasks FILE.jsonl [--train FILE.jsonl] [--k 1,3,5,10,20] [--mode bm25|dense|hybrid|full|all] [--json]');
  const ks = parseKs(opt(args, 'k'));
  const modeArg = opt(args, 'mode') ?? 'full';
  if (modeArg !== 'all' && !MODES.includes(modeArg as RetrievalMode)) throw new UsageError(`--mode must be bm25, dense, hybrid, full or all, got "${modeArg}"`);
  const modes = modeArg === 'all' ? MODES : [modeArg as RetrievalMode];
  const tasks = readTasks(tasksFile);
  const trainFile = opt(args, 'train');
  const train = trainFile ? readTasks(trainFile) : [];
  // Learning from --train never touches the real state: it goes to a temporary folder.
  const learnedDir = fs.mkdtempSync(path.join(os.tmpdir(), 'geoweave-eval-'));
  const gw = await openFrom(args, io, { learnedDir });
  try {
    for (const m of missingIds(tasks, (id) => !!gw.getTool(id))) io.err(`warning: ${tasksFile}: tool not in the catalog: ${m}`);
    if (train.length) {
      for (const m of missingIds(train, (id) => !!gw.getTool(id))) io.err(`warning: ${trainFile}: tool not in the catalog: ${m}`);
      await gw.recordTrajectories(train.map((t) => ({ task: t.query, tools: t.flow.length ? t.flow : t.gold })));
    }
    const reports = new Map<RetrievalMode, EvalReport>();
    for (const m of modes) reports.set(m, await evaluate(gw, tasks, ks, m));
    if (args.flags.has('json')) {
      if (modes.length === 1) io.out(JSON.stringify(reports.get(modes[0])));
      else io.out(JSON.stringify(Object.fromEntries(reports)));
      return 0;
    }
    io.out(`${tasks.length} tasks, ${gw.tools.length} tools${train.length ? `, learned from ${train.length} training tasks` : ''}\n`);
    const cols = [...ks.map((k) => `R@${k}`), ...ks.map((k) => `nDCG@${k}`), ...ks.map((k) => `COMP@${k}`)];
    const pick = ['R@5', 'R@10', 'COMP@10'].filter((c) => cols.includes(c));
    const fcols = pick.length ? pick : cols.slice(0, 3);
    const ncols = ks.filter((k) => k <= 3 || ks.length <= 2).map((k) => `hit@${k}`);
    io.out(table([...reports].map(([m, r]) => [m, ...fcols.map((c) => fmt(r.forward[c])), ...ncols.map((c) => fmt(r.next[c]))]), ['mode', ...fcols, ...ncols.map((c) => `next ${c}`)]));
    if (modes.length === 1) {
      const r = reports.get(modes[0])!;
      io.out('\nforward: ' + Object.entries(r.forward).map(([k2, v]) => `${k2}=${fmt(v)}`).join(' '));
      io.out('next:    ' + Object.entries(r.next).map(([k2, v]) => `${k2}=${fmt(v)}`).join(' '));
    }
    return 0;
  } finally {
    await gw.dispose();
    fs.rmSync(learnedDir, { recursive: true, force: true });
  }
}
