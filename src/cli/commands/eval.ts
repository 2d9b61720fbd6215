/**
 * `geoweave eval --tasks FILE.jsonl [--train FILE.jsonl] [--k 1,3,5,10,20] [--mode …] [--json]`, or
 * `geoweave eval --cv 5 --train FILE.jsonl` (cross-validation on the training file only; the test
 * file is not read). `--weights '{"terminal":0.1}'` overrides fusion weights (for CV experiments);
 * `--seed N` shuffles the CV folds (repeated CV);
 * `--misses FILE.jsonl` writes every next-step prediction whose target missed the top 3.
 * The shipped analyst practice (tool-manifests/practice.jsonl) is never loaded here: evaluation
 * learns only from `--train`.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ParsedArgs, UsageError, opt } from '../args';
import type { CliIO } from '../main';
import { openFrom, table, fmt } from '../common';
import { readTasks, missingIds } from '../../core/eval/tasks';
import { DEFAULT_KS, evaluate, EvalReport, StepRecord } from '../../core/eval/evaluate';
import { crossValidate } from '../../core/eval/cv';
import type { RetrievalMode, Weights } from '../../core/retrieval/context';
import { DEFAULT_WEIGHTS } from '../../core/retrieval/context';
import { writeFileAtomic } from '../../core/index/fs-util';

const MODES: RetrievalMode[] = ['bm25', 'dense', 'hybrid', 'full'];

function parseKs(v: string | undefined): number[] {
  if (!v) return DEFAULT_KS;
  const ks = v.split(',').map((s) => Number(s.trim()));
  if (!ks.length || ks.some((k) => !Number.isInteger(k) || k <= 0)) throw new UsageError(`--k must be a comma-separated list of positive integers, got "${v}"`);
  return [...new Set(ks)].sort((a, b) => a - b);
}

function parseWeights(v: string | undefined): Partial<Weights> | undefined {
  if (!v) return undefined;
  let o: unknown;
  try {
    o = JSON.parse(v);
  } catch (e) {
    throw new UsageError(`--weights must be a JSON object like '{"terminal":0.1}' (${(e as Error).message})`);
  }
  if (!o || typeof o !== 'object' || Array.isArray(o)) throw new UsageError(`--weights must be a JSON object like '{"terminal":0.1}'`);
  for (const [k, x] of Object.entries(o)) {
    if (!(k in DEFAULT_WEIGHTS)) throw new UsageError(`--weights: unknown weight "${k}" (known: ${Object.keys(DEFAULT_WEIGHTS).join(', ')})`);
    if (typeof x !== 'number' || !Number.isFinite(x)) throw new UsageError(`--weights: "${k}" must be a number`);
  }
  return o as Partial<Weights>;
}

function writeMisses(file: string | undefined, steps: StepRecord[]): void {
  if (!file) return;
  writeFileAtomic(file, steps.filter((s) => s.rank === 0 || s.rank > 3).map((s) => JSON.stringify(s)).join('\n') + '\n');
}

async function runCv(args: ParsedArgs, io: CliIO, folds: number, ks: number[], modes: RetrievalMode[], weights: Partial<Weights> | undefined): Promise<number> {
  const trainFile = opt(args, 'train');
  if (!trainFile) throw new UsageError('--cv N cross-validates over --train FILE.jsonl; give --train');
  const train = readTasks(trainFile);
  const dirs: string[] = [];
  const open = () => {
    const learnedDir = fs.mkdtempSync(path.join(os.tmpdir(), 'geoweave-cv-'));
    dirs.push(learnedDir);
    return openFrom(args, io, { learnedDir, weights, practice: false });
  };
  try {
    const results = [];
    const steps: StepRecord[] = [];
    const seedArg = opt(args, 'seed') ?? '0';
    const seed = Number(seedArg);
    if (!Number.isInteger(seed) || seed < 0) throw new UsageError(`--seed must be a non-negative integer (0 = folds dealt in id order), got "${seedArg}"`);
    for (const m of modes) results.push({ mode: m, cv: await crossValidate(open, train, folds, { ks, mode: m, seed, steps: m === 'full' || modes.length === 1 ? steps : undefined }) });
    writeMisses(opt(args, 'misses'), steps);
    if (args.flags.has('json')) {
      io.out(JSON.stringify(Object.fromEntries(results.map((r) => [r.mode, r.cv]))));
      return 0;
    }
    io.out(`${folds}-fold cross-validation over ${train.length} tasks of ${trainFile}${seed ? ` (folds shuffled with seed ${seed})` : ''}\n`);
    const ncols = ks.filter((k) => k <= 3 || ks.length <= 2).map((k) => `hit@${k}`);
    const rows: string[][] = [];
    for (const { mode, cv } of results) {
      cv.folds.forEach((f, i) => rows.push([mode, `fold ${i + 1}`, String(f.steps), fmt(f.report.forward['R@10'] ?? NaN), fmt(f.report.forward['COMP@10'] ?? NaN), ...ncols.map((c) => fmt(f.report.next[c]))]));
      rows.push([mode, 'mean', '', fmt(cv.mean.forward['R@10'] ?? NaN), fmt(cv.mean.forward['COMP@10'] ?? NaN), ...ncols.map((c) => fmt(cv.mean.next[c]))]);
      rows.push([mode, 'pooled', String(cv.folds.reduce((a, f) => a + f.steps, 0)), '', '', ...ncols.map((c) => fmt(cv.pooled[c]))]);
    }
    io.out(table(rows, ['mode', 'fold', 'steps', 'R@10', 'COMP@10', ...ncols.map((c) => `next ${c}`)]));
    return 0;
  } finally {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  }
}

export async function run(args: ParsedArgs, io: CliIO): Promise<number> {
  const tasksFile = opt(args, 'tasks');
  const cvArg = opt(args, 'cv');
  if (cvArg !== undefined) {
    const folds = Number(cvArg);
    if (!Number.isInteger(folds) || folds < 2) throw new UsageError(`--cv must be an integer number of folds >= 2, got "${cvArg}"`);
    const modeArg = opt(args, 'mode') ?? 'full';
    if (modeArg !== 'all' && !MODES.includes(modeArg as RetrievalMode)) throw new UsageError(`--mode must be bm25, dense, hybrid, full or all, got "${modeArg}"`);
    return runCv(args, io, folds, parseKs(opt(args, 'k')), modeArg === 'all' ? MODES : [modeArg as RetrievalMode], parseWeights(opt(args, 'weights')));
  }
  if (!tasksFile) throw new UsageError('usage: geoweave eval --tasks FILE.jsonl [--train FILE.jsonl] [--k 1,3,5,10,20] [--mode bm25|dense|hybrid|full|all] [--weights JSON] [--misses FILE] [--json], or geoweave eval --cv N --train FILE.jsonl [...]');
  const ks = parseKs(opt(args, 'k'));
  const modeArg = opt(args, 'mode') ?? 'full';
  if (modeArg !== 'all' && !MODES.includes(modeArg as RetrievalMode)) throw new UsageError(`--mode must be bm25, dense, hybrid, full or all, got "${modeArg}"`);
  const modes = modeArg === 'all' ? MODES : [modeArg as RetrievalMode];
  const tasks = readTasks(tasksFile);
  const trainFile = opt(args, 'train');
  const train = trainFile ? readTasks(trainFile) : [];
  // Learning from --train never touches the real state: it goes to a temporary folder.
  const learnedDir = fs.mkdtempSync(path.join(os.tmpdir(), 'geoweave-eval-'));
  // Evaluation learns only from --train: the shipped analyst practice stays out.
  const gw = await openFrom(args, io, { learnedDir, weights: parseWeights(opt(args, 'weights')), practice: false });
  try {
    for (const m of missingIds(tasks, (id) => !!gw.getTool(id))) io.err(`warning: ${tasksFile}: tool not in the catalog: ${m}`);
    if (train.length) {
      for (const m of missingIds(train, (id) => !!gw.getTool(id))) io.err(`warning: ${trainFile}: tool not in the catalog: ${m}`);
      await gw.recordTrajectories(train.map((t) => ({ task: t.query, tools: t.flow.length ? t.flow : t.gold })));
    }
    const reports = new Map<RetrievalMode, EvalReport>();
    const steps: StepRecord[] = [];
    for (const m of modes) reports.set(m, await evaluate(gw, tasks, ks, m, undefined, m === 'full' || modes.length === 1 ? steps : undefined));
    writeMisses(opt(args, 'misses'), steps);
    if (args.flags.has('json')) {
      // The documented shape only (the workflow count is for the table).
      const shape = (r: EvalReport) => ({ tasks: r.tasks, tools: r.tools, forward: r.forward, next: r.next });
      if (modes.length === 1) io.out(JSON.stringify(shape(reports.get(modes[0])!)));
      else io.out(JSON.stringify(Object.fromEntries([...reports].map(([m, r]) => [m, shape(r)]))));
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
    // How far the numbers could move with another draw of tasks: differences inside it are noise.
    const ciKeys = [...fcols, ...ncols].filter((c) => c === 'R@10' || c === 'hit@3');
    const ciMode = reports.has('full') ? 'full' : modes[modes.length - 1];
    const ci = reports.get(ciMode)!.ci95;
    if (ciKeys.length && ci) io.out(`\n95% interval, bootstrap over tasks (${ciMode}): ${ciKeys.map((c) => `${c === 'hit@3' ? 'next ' : ''}${c} ${fmt(ci[c][0])}–${fmt(ci[c][1])}`).join(', ')}`);
    const full = reports.get('full')?.workflows;
    if (full) io.out(`\nworkflow templates: offered for ${full.offered} of the ${full.fitting} tasks whose flow holds 3+ of a template's steps${full.other ? ` (${full.other} got another template)` : ''}`);
    return 0;
  } finally {
    await gw.dispose();
    fs.rmSync(learnedDir, { recursive: true, force: true });
  }
}
