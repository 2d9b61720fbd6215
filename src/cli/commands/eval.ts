/**
 * `geoweave eval --tasks FILE.jsonl [--train FILE.jsonl] [--k 1,3,5,10,20] [--mode …|all] [--json]`, or
 * `geoweave eval --cv 5 --train FILE.jsonl` (cross-validation on the training file only; the test
 * file is not read). Modes: the product's retrieval modes (bm25, dense, hybrid, full) and two
 * learned baselines (transitions, knn) that read only the training flows; `all` prints them all.
 * `--weights '{"terminal":0.1}'` overrides fusion weights (for CV experiments; the reranking trees
 * are then off); `--no-trees` ranks next steps by the fitted weights alone (what the trees add);
 * `--seed N` shuffles the CV folds (repeated CV);
 * `--misses FILE.jsonl` writes every next-step prediction whose target missed the top 3.
 * The shipped analyst practice (tool-manifests/practice.jsonl) is not loaded here: evaluation
 * learns only from `--train`. `--with-practice` evaluates a team as the extension opens its folder:
 * the builtin catalog and the practice beside `--manifests`, `--train` recorded as the team's own
 * flows, the fusion refitted as `learn` refits it (the practice in the share of the team's steps
 * that run its tools); the baselines still read only `--train`.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ParsedArgs, UsageError, opt } from '../args';
import type { CliIO } from '../main';
import { flowsOnCatalog, openFrom, optionsFrom, table, fmt } from '../common';
import { loadCatalog } from '../../core/manifests/load';
import { readTasks, missingIds, EvalTask, flowOf } from '../../core/eval/tasks';
import { DEFAULT_KS, evaluate, EvalReport, StepRecord } from '../../core/eval/evaluate';
import { crossValidate, CvReport, FoldRanker } from '../../core/eval/cv';
import { geoweaveRanker, Ranker } from '../../core/eval/ranker';
import { knnBaseline, transitionsBaseline } from '../../core/eval/baselines';
import type { RetrievalMode, Weights } from '../../core/retrieval/context';
import { DEFAULT_WEIGHTS } from '../../core/retrieval/context';
import { writeFileAtomic } from '../../core/index/fs-util';

const PRODUCT_MODES: RetrievalMode[] = ['bm25', 'dense', 'hybrid', 'full'];
const BASELINES = ['transitions', 'knn'] as const;
type Mode = RetrievalMode | (typeof BASELINES)[number];
const MODES: Mode[] = [...PRODUCT_MODES, ...BASELINES];

function parseModes(v: string | undefined): Mode[] {
  const m = v ?? 'full';
  if (m === 'all') return MODES;
  const list = m.split(',').map((s) => s.trim());
  for (const x of list) if (!MODES.includes(x as Mode)) throw new UsageError(`--mode must be one of ${MODES.join(', ')} (comma-separated) or all, got "${x}"`);
  return list as Mode[];
}

function baseline(mode: Mode, train: EvalTask[]): Ranker | undefined {
  if (mode === 'transitions') return transitionsBaseline(train);
  if (mode === 'knn') return knnBaseline(train);
  return undefined;
}

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
    if (!Object.prototype.hasOwnProperty.call(DEFAULT_WEIGHTS, k)) throw new UsageError(`--weights: unknown weight "${k}" (known: ${Object.keys(DEFAULT_WEIGHTS).join(', ')})`);
    if (typeof x !== 'number' || !Number.isFinite(x)) throw new UsageError(`--weights: "${k}" must be a number`);
  }
  return o as Partial<Weights>;
}

function writeMisses(file: string | undefined, steps: StepRecord[]): void {
  if (!file) return;
  writeFileAtomic(file, steps.filter((s) => s.rank === 0 || s.rank > 3).map((s) => JSON.stringify(s)).join('\n') + '\n');
}

/** The columns every table shows: forward R@5, R@10, COMP@10 (COMP@20 when asked), next hit@1, hit@3. */
function columns(ks: number[]): { fcols: string[]; ncols: string[] } {
  const fcols = ['R@5', 'R@10', 'COMP@10', 'COMP@20'].filter((c) => ks.includes(Number(c.split('@')[1])));
  const ncols = ks.filter((k) => k <= 3 || ks.length <= 2).map((k) => `hit@${k}`);
  return { fcols, ncols };
}

const cell = (r: Record<string, number>, c: string) => (c in r ? fmt(r[c]) : '—');

async function runCv(args: ParsedArgs, io: CliIO, folds: number, ks: number[], modes: Mode[], weights: Partial<Weights> | undefined): Promise<number> {
  const trainFile = opt(args, 'train');
  if (!trainFile) throw new UsageError('--cv N cross-validates over --train FILE.jsonl; give --train');
  // Log names ("mcp__hydro__snow_cover", "NDVI") read as the catalog names its tools, as --train is below.
  const o = optionsFrom(args, io);
  const ids = loadCatalog({ noBuiltin: o.noBuiltin, extraDirs: o.extraManifestDirs, workspaceDir: o.workspaceDir }).tools.map((t) => t.manifest.id);
  const train = flowsOnCatalog(ids, readTasks(trainFile), trainFile, io);
  const seedArg = opt(args, 'seed') ?? '0';
  const seed = Number(seedArg);
  if (!Number.isInteger(seed) || seed < 0) throw new UsageError(`--seed must be a non-negative integer (0 = folds dealt in id order), got "${seedArg}"`);
  const results: { mode: Mode; cv: CvReport }[] = [];
  const steps: StepRecord[] = [];
  for (const m of modes) {
    const fold = async (tasks: EvalTask[]): Promise<FoldRanker> => {
      const b = baseline(m, tasks);
      if (b) return { ranker: b };
      const learnedDir = fs.mkdtempSync(path.join(os.tmpdir(), 'geoweave-cv-'));
      const gw = await openFrom(args, io, { learnedDir, weights, practice: false, ...(args.flags.has('no-trees') ? { trees: false } : {}) });
      await gw.recordTrajectories(tasks.map((t) => ({ task: t.query, tools: flowOf(t) })));
      // Nested: each fold fits its fusion on its own training flows only.
      if (m === 'full' && !args.flags.has('no-fit')) await gw.fitFusion(tasks);
      return { ranker: geoweaveRanker(gw, m as RetrievalMode), dispose: async () => { await gw.dispose(); fs.rmSync(learnedDir, { recursive: true, force: true }); } };
    };
    results.push({ mode: m, cv: await crossValidate(fold, train, folds, { ks, seed, steps: m === 'full' || modes.length === 1 ? steps : undefined }) });
  }
  writeMisses(opt(args, 'misses'), steps);
  if (args.flags.has('json')) {
    io.out(JSON.stringify(Object.fromEntries(results.map((r) => [r.mode, r.cv]))));
    return 0;
  }
  io.out(`${folds}-fold cross-validation over ${train.length} tasks of ${trainFile}${seed ? ` (folds shuffled with seed ${seed})` : ''}\n`);
  const { fcols, ncols } = columns(ks.includes(10) ? ks : [...ks, 10]);
  const rows: string[][] = [];
  for (const { mode, cv } of results) {
    cv.folds.forEach((f, i) => rows.push([mode, `fold ${i + 1}`, String(f.steps), ...fcols.map((c) => cell(f.report.forward, c)), ...ncols.map((c) => cell(f.report.next, c))]));
    rows.push([mode, 'mean', '', ...fcols.map((c) => cell(cv.mean.forward, c)), ...ncols.map((c) => cell(cv.mean.next, c))]);
    rows.push([mode, 'pooled', String(cv.folds.reduce((a, f) => a + f.steps, 0)), ...fcols.map(() => ''), ...ncols.map((c) => cell(cv.pooled, c))]);
  }
  io.out(table(rows, ['mode', 'fold', 'steps', ...fcols, ...ncols.map((c) => `next ${c}`)]));
  return 0;
}

export async function run(args: ParsedArgs, io: CliIO): Promise<number> {
  const tasksFile = opt(args, 'tasks');
  const ks = parseKs(opt(args, 'k'));
  const modes = parseModes(opt(args, 'mode'));
  const weights = parseWeights(opt(args, 'weights'));
  const cvArg = opt(args, 'cv');
  if (cvArg !== undefined) {
    const folds = Number(cvArg);
    if (!Number.isInteger(folds) || folds < 2) throw new UsageError(`--cv must be an integer number of folds >= 2, got "${cvArg}"`);
    return runCv(args, io, folds, ks, modes, weights);
  }
  if (!tasksFile) throw new UsageError(`usage: geoweave eval --tasks FILE.jsonl [--train FILE.jsonl] [--k 1,3,5,10,20] [--mode ${MODES.join('|')}|all] [--weights JSON] [--misses FILE] [--json], or geoweave eval --cv N --train FILE.jsonl [...]`);
  let tasks = readTasks(tasksFile);
  const trainFile = opt(args, 'train');
  let train = trainFile ? readTasks(trainFile) : [];
  // Learning from --train never touches the real state: it goes to a temporary folder.
  const learnedDir = fs.mkdtempSync(path.join(os.tmpdir(), 'geoweave-eval-'));
  // Evaluation learns only from --train: the shipped analyst practice stays out, unless
  // --with-practice asks for a team as the extension opens it (the builtin catalog and its practice
  // beside the team's tools and flows, the fusion refitted as `learn` refits it).
  const withPractice = args.flags.has('with-practice');
  if (withPractice && args.flags.has('no-builtin')) throw new UsageError('--with-practice evaluates beside the builtin catalog and its shipped practice; drop --no-builtin');
  if (withPractice && args.flags.has('no-practice')) throw new UsageError('--with-practice and --no-practice contradict each other; give one');
  const gw = await openFrom(args, io, { learnedDir, weights, ...(args.flags.has('no-trees') ? { trees: false } : {}), ...(withPractice ? {} : { practice: false }) });
  try {
    tasks = flowsOnCatalog(gw, tasks, tasksFile, io);
    if (!tasks.length) throw new UsageError(`${tasksFile}: no task calls a tool of the catalog; nothing to evaluate (give the catalog with --manifests DIR)`);
    if (trainFile) train = flowsOnCatalog(gw, train, trainFile, io);
    for (const m of missingIds(tasks, (id) => !!gw.getTool(id))) io.err(`warning: ${tasksFile}: tool not in the catalog: ${m}`);
    if (train.length) {
      for (const m of missingIds(train, (id) => !!gw.getTool(id))) io.err(`warning: ${trainFile}: tool not in the catalog: ${m}`);
      await gw.recordTrajectories(train.map((t) => ({ task: t.query, tools: flowOf(t) })));
    }
    // The fusion weights are fitted on the training flows only (k-fold), as `learn` fits them on a team's flows.
    const fit = modes.includes('full') && !args.flags.has('no-fit');
    const fusion = !fit ? undefined : withPractice ? await gw.refitFusion({ force: true }) : await gw.fitFusion(train);
    if (fusion && !args.flags.has('json')) io.err(fusion.report ? `fusion fitted on ${fusion.report.flows} ${withPractice ? 'practice and training' : 'training'} flows (${fusion.report.folds}-fold, ${fusion.report.seconds} s): out-of-fold next hit@3 ${fmt(fusion.report.next.before['hit@3'])} → ${fmt(fusion.report.next.after['hit@3'])}, forward R@10 ${fmt(fusion.report.forward.before['R@10'])} → ${fmt(fusion.report.forward.after['R@10'])}${fusion.report.nextPrior ? `; next-step weights: prior (${fusion.report.nextPrior})` : ''}${fusion.report.trees ? `; reranking trees: ${fusion.report.trees.trees} (${fusion.report.trees.seconds} s)` : ''}` : `fusion: prior weights (${fusion.reason})`);
    const reports = new Map<Mode, EvalReport>();
    const steps: StepRecord[] = [];
    for (const m of modes) {
      const ranker = baseline(m, train) ?? geoweaveRanker(gw, m as RetrievalMode);
      reports.set(m, await evaluate(ranker, tasks, { ks, workflows: m === 'full' ? gw.workflows : undefined, steps: m === 'full' || modes.length === 1 ? steps : undefined }));
    }
    writeMisses(opt(args, 'misses'), steps);
    if (args.flags.has('json')) {
      const shape = (r: EvalReport) => ({ tasks: r.tasks, tools: gw.tools.length, forward: r.forward, next: r.next, ci95: r.ci95 });
      if (modes.length === 1) io.out(JSON.stringify(shape(reports.get(modes[0])!)));
      else io.out(JSON.stringify(Object.fromEntries([...reports].map(([m, r]) => [m, shape(r)]))));
      return 0;
    }
    io.out(`${tasks.length} tasks, ${gw.tools.length} tools${train.length ? `, learned from ${train.length} training tasks` : ''}\n`);
    const { fcols, ncols } = columns(ks);
    io.out(table([...reports].map(([m, r]) => [m, ...fcols.map((c) => cell(r.forward, c)), ...ncols.map((c) => cell(r.next, c))]), ['mode', ...fcols, ...ncols.map((c) => `next ${c}`)]));
    if (modes.length === 1) {
      const r = reports.get(modes[0])!;
      if (Object.keys(r.forward).length) io.out('\nforward: ' + Object.entries(r.forward).map(([k2, v]) => `${k2}=${fmt(v)}`).join(' '));
      io.out('next:    ' + Object.entries(r.next).map(([k2, v]) => `${k2}=${fmt(v)}`).join(' '));
    }
    // How far the numbers could move with another draw of tasks: differences inside it are noise.
    const ciKeys = [...fcols, ...ncols].filter((c) => c === 'R@10' || c === 'hit@3');
    const ciMode = reports.has('full') ? 'full' : modes[modes.length - 1];
    const ci = reports.get(ciMode)!.ci95;
    if (ciKeys.length && ci) io.out(`\n95% interval, bootstrap over tasks (${ciMode}): ${ciKeys.filter((c) => ci[c]).map((c) => `${c === 'hit@3' ? 'next ' : ''}${c} ${fmt(ci[c][0])}–${fmt(ci[c][1])}`).join(', ')}`);
    const full = reports.get('full')?.workflows;
    if (full) io.out(`\nworkflow templates: offered for ${full.offered} of the ${full.fitting} tasks whose flow holds 3+ of a template's steps${full.other ? ` (${full.other} got another template)` : ''}`);
    return 0;
  } finally {
    await gw.dispose();
    fs.rmSync(learnedDir, { recursive: true, force: true });
  }
}
