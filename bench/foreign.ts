/**
 * Foreign checks: how a team that brings its own catalog and flows fares. Each check is a catalog,
 * training flows and test tasks the product was not tuned on; `geoweave eval` learns (and fits)
 * from the training flows only and prints the product beside the learned baselines.
 *
 * - `bare`: our own catalog under the bare-catalog protocol (src/core/eval/bare.ts): manifests cut to
 *   id, name, first sentence and input names/types, ids made opaque, practice.jsonl as training,
 *   tasks.jsonl and dev.jsonl as tests.
 * - every folder of `bench/foreign/` (manifests/, train.jsonl, test.jsonl, optional fewshot.jsonl):
 *   catalogs and flows written blind to ours (see each folder's README.md).
 *
 * Run: `npm run bench:foreign [-- --only bare,floodrisk] [--slice N] [--json] [--out DIR]`.
 * `--slice N` keeps the first N training and test tasks (the unit test runs a small slice).
 * `--draws N`: few-shot teams drawn at random instead: for each foreign folder, N draws of
 * `--flows F` (default 20) training flows, each fitted and tested on the folder's test tasks; the
 * mean and spread over the draws per ranker, and on how many draws the product is below a baseline.
 * `--crowded`: each foreign team's catalog inside the union of every foreign catalog (see `crowdedChecks`).
 * `--extension`: each foreign team as the extension opens its folder: its catalog beside the builtin
 * one and the shipped practice flows, its training flows recorded as its own, the fusion refitted
 * as `learn` refits it (`eval --with-practice`; the baselines read the training flows alone).
 * `--extension --draws N [--flows F]`: the drawn few-shot teams as the extension opens them.
 */
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { main } from '../src/cli/main';
import { readTasks } from '../src/core/eval/tasks';
import { bareManifest, bareTask, opaqueId } from '../src/core/eval/bare';
import { loadCatalog } from '../src/core/manifests/load';
import { writeFileAtomic } from '../src/core/index/fs-util';
import { MIN_FIT_FLOWS } from '../src/core/fusion/fusion';

const ROOT = path.resolve(__dirname, '..', '..');
const MODES = ['full', 'knn', 'transitions'];
const COLS: [string, 'forward' | 'next', string][] = [['R@10', 'forward', 'R@10'], ['COMP@10', 'forward', 'COMP@10'], ['COMP@20', 'forward', 'COMP@20'], ['hit@1', 'next', 'hit@1'], ['hit@3', 'next', 'hit@3']];

export interface Check { name: string; manifests: string; train: string; test: string }
type Report = Record<string, { forward: Record<string, number>; next: Record<string, number> }>;

const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join('\n') + '\n';

/** Writes the bare form of the builtin catalog and its task files into `dir`; returns its checks. */
export function writeBare(dir: string, slice?: number): Check[] {
  const rename = (id: string) => opaqueId(id);
  const mdir = path.join(dir, 'manifests');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(mdir, { recursive: true });
  for (const t of loadCatalog({}).tools) {
    const m = bareManifest(t.manifest, rename);
    writeFileAtomic(path.join(mdir, `${m.id}.json`), JSON.stringify(m, null, 2) + '\n');
  }
  const file = (src: string, name: string) => {
    const tasks = readTasks(path.join(ROOT, src)).slice(0, slice);
    writeFileAtomic(path.join(dir, name), jsonl(tasks.map((t) => bareTask(t, rename))));
    return path.join(dir, name);
  };
  const train = file('tool-manifests/practice.jsonl', 'practice.jsonl');
  return [
    { name: 'bare: tasks.jsonl', manifests: mdir, train, test: file('bench/tasks.jsonl', 'tasks.jsonl') },
    { name: 'bare: dev.jsonl', manifests: mdir, train, test: file('bench/dev.jsonl', 'dev.jsonl') },
  ];
}

/** The checks of `bench/foreign/*` (with a few-shot variant where a folder has fewshot.jsonl). */
export function foreignChecks(dir: string, slice?: number, out?: string): Check[] {
  const checks: Check[] = [];
  if (!fs.existsSync(dir)) return checks;
  for (const name of fs.readdirSync(dir).sort()) {
    const d = path.join(dir, name);
    if (!fs.existsSync(path.join(d, 'train.jsonl')) || !fs.existsSync(path.join(d, 'test.jsonl'))) continue;
    const cut = (f: string) => {
      if (!slice) return path.join(d, f);
      const o = path.join(out!, `${name}-${f}`);
      writeFileAtomic(o, jsonl(readTasks(path.join(d, f)).slice(0, slice).map(({ line: _line, ...t }) => t)));
      return o;
    };
    const test = cut('test.jsonl');
    checks.push({ name, manifests: path.join(d, 'manifests'), train: cut('train.jsonl'), test });
    if (fs.existsSync(path.join(d, 'fewshot.jsonl'))) checks.push({ name: `${name}: 20 flows`, manifests: path.join(d, 'manifests'), train: cut('fewshot.jsonl'), test });
  }
  return checks;
}

/**
 * Few-shot teams drawn at random: `flows` training flows of each foreign check, `draws` times. A
 * team's first flows are whatever jobs came in, not one per pipeline family as `fewshot.jsonl`; a
 * fit on so few flows moves with which ones they are, and the draws show how far. Deterministic:
 * a draw takes the flows with the smallest hash of (check, draw, task id).
 */
export function fewShotDraws(checks: Check[], draws: number, flows: number, out: string): Check[] {
  const dir = path.join(out, 'draws');
  fs.mkdirSync(dir, { recursive: true });
  const drawn: Check[] = [];
  for (const c of checks) {
    const tasks = readTasks(c.train).map(({ line: _line, ...t }) => t);
    if (tasks.length < 2 * flows) continue;
    for (let d = 1; d <= draws; d++) {
      const keyed = tasks.map((t) => ({ t, key: createHash('sha256').update(`${c.name}\u0000${d}\u0000${t.id}`).digest('hex') }));
      const pick = keyed.sort((a, b) => a.key.localeCompare(b.key)).slice(0, flows).map((x) => x.t);
      const train = path.join(dir, `${c.name}-${flows}-${d}.jsonl`);
      writeFileAtomic(train, jsonl(pick));
      drawn.push({ ...c, name: `${c.name}: draw ${d} of ${flows} flows`, train });
    }
  }
  return drawn;
}

/**
 * Each team's catalog among every other team's tools: a team's catalog is seldom only the tools its
 * flows run (a QGIS install lists hundreds), and past 300 tools the product scores a candidate pool
 * rather than the whole catalog (WHOLE_CATALOG). The team keeps its own manifest of an id another
 * team also has. Deterministic: files are copied in name order.
 */
export function crowdedChecks(checks: Check[], out: string): Check[] {
  const homes = [...new Set(checks.map((c) => c.manifests))].sort();
  // The manifests as the product loads them (id and file), in file order.
  const tools = (d: string) => loadCatalog({ noBuiltin: true, extraDirs: [d] }).tools.sort((a, b) => a.file.localeCompare(b.file));
  const made = new Map<string, { dir: string; tools: number }>();
  for (const home of homes) {
    const dir = path.join(out, 'crowded', path.basename(path.dirname(home)), 'manifests');
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const ids = new Set<string>();
    for (const other of [home, ...homes.filter((h) => h !== home)]) {
      const prefix = other === home ? '' : `${path.basename(path.dirname(other))}--`;
      for (const t of tools(other)) {
        if (ids.has(t.manifest.id)) continue;
        ids.add(t.manifest.id);
        // The home team's files as they are; another team's tools one file each, as the product read
        // them: a file of many tools (an MCP list, an OpenAPI service) would also bring the ones whose
        // ids an earlier team took.
        if (other === home) fs.copyFileSync(t.file, path.join(dir, path.basename(t.file)));
        else fs.writeFileSync(path.join(dir, `${prefix}${t.manifest.id.replace(/[^A-Za-z0-9_.-]/g, '_')}.json`), JSON.stringify(t.manifest));
      }
    }
    made.set(home, { dir, tools: ids.size });
  }
  return checks.map((c) => {
    const { dir, tools: n } = made.get(c.manifests)!;
    return { ...c, name: `${c.name}, among ${n} tools`, manifests: dir };
  });
}

/** Mean and spread over the draws of one check, and on how many draws the product is below the best baseline per column. */
function printDraws(name: string, reports: Report[]): void {
  console.log(`\n${name} (${reports.length} draws; mean ± standard deviation)`);
  console.log(['mode'.padEnd(12), ...COLS.map(([c]) => c.padStart(13))].join(' '));
  for (const m of Object.keys(reports[0])) {
    const cells = COLS.map(([, part, key]) => {
      const xs = reports.map((r) => r[m]?.[part]?.[key]).filter((x): x is number => x !== undefined);
      if (!xs.length) return '—'.padStart(13);
      const mean = xs.reduce((a, x) => a + x, 0) / xs.length;
      const sd = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / xs.length);
      return `${mean.toFixed(3)} ± ${sd.toFixed(3)}`.padStart(13);
    });
    console.log([m.padEnd(12), ...cells].join(' '));
  }
  const below = COLS.map(([col]) => [col, reports.filter((r) => shortfalls(r).some((s) => s.startsWith(`${col} `))).length] as const);
  console.log(`draws with full below a baseline: ${below.map(([c, n]) => `${c} ${n}`).join(', ')}`);
}

/** `geoweave eval` on one check, as a team would run it; the JSON report per mode. */
export async function runCheck(c: Check, modes = MODES, extra: string[] = []): Promise<Report> {
  const state = fs.mkdtempSync(path.join(os.tmpdir(), 'geoweave-foreign-'));
  let out = '';
  let err = '';
  try {
    // A team beside the builtin catalog and its practice cannot also drop the builtin catalog.
    const builtin = extra.includes('--with-practice') ? [] : ['--no-builtin'];
    const code = await main(['eval', ...builtin, '--manifests', c.manifests, '--tasks', c.test, '--train', c.train, '--state', state, '--mode', modes.join(','), '--k', '1,3,5,10,20', '--json', ...extra],
      { out: (t) => { out += t; }, err: (t) => { err += t + '\n'; } });
    if (code !== 0) throw new Error(`eval on ${c.name} failed (${code}): ${err}`);
    const r = JSON.parse(out);
    return modes.length === 1 ? { [modes[0]]: r } : r;
  } finally {
    fs.rmSync(state, { recursive: true, force: true });
  }
}

/** Columns where the product is below the best baseline. */
export function shortfalls(r: Report): string[] {
  const out: string[] = [];
  for (const [col, part, key] of COLS) {
    const full = r.full?.[part]?.[key];
    const best = Math.max(...Object.entries(r).filter(([m]) => m !== 'full').map(([, x]) => x[part]?.[key] ?? -1));
    if (full !== undefined && best >= 0 && full < best) out.push(`${col} ${full.toFixed(3)} < ${best.toFixed(3)}`);
  }
  return out;
}

function printTable(name: string, r: Report): void {
  console.log(`\n${name}`);
  console.log(['mode'.padEnd(12), ...COLS.map(([c]) => c.padStart(8))].join(' '));
  for (const [m, x] of Object.entries(r)) console.log([m.padEnd(12), ...COLS.map(([, part, key]) => (x[part]?.[key] !== undefined ? x[part][key].toFixed(3) : '—').padStart(8))].join(' '));
  const s = shortfalls(r);
  console.log(s.length ? `full below a baseline: ${s.join(', ')}` : 'full ≥ every baseline on every column');
}

async function cli(argv: string[]): Promise<void> {
  const arg = (n: string) => { const i = argv.indexOf(`--${n}`); return i >= 0 ? argv[i + 1] : undefined; };
  const slice = arg('slice') ? Number(arg('slice')) : undefined;
  const only = arg('only')?.split(',');
  const extension = argv.includes('--extension');
  const extra = [...(arg('eval-args')?.split(' ').filter(Boolean) ?? []), ...(extension ? ['--with-practice'] : [])];
  const out = arg('out') ?? path.join(ROOT, 'bench', '.data', 'foreign');
  fs.mkdirSync(out, { recursive: true });
  const draws = arg('draws') ? Number(arg('draws')) : 0;
  if (arg('draws') && !(Number.isInteger(draws) && draws > 0)) throw new Error(`--draws must be a whole number of draws, got "${arg('draws')}"`);
  const flows = arg('flows') ? Number(arg('flows')) : 20;
  if (!(Number.isInteger(flows) && flows >= MIN_FIT_FLOWS)) throw new Error(`--flows must be a whole number of flows, at least ${MIN_FIT_FLOWS} (a fit needs ${MIN_FIT_FLOWS}), got "${arg('flows')}"`);
  const teams = foreignChecks(path.join(ROOT, 'bench', 'foreign'), slice, out);
  // Draws are taken from each team's full training flows (not from its 20-flow variant).
  const foreign = teams.filter((c) => !c.name.includes(':'));
  const crowded = argv.includes('--crowded');
  if (crowded && (draws > 0 || extension)) throw new Error('--crowded is a view of its own; give --draws or --extension (or both, few-shot teams as the extension opens them) without it');
  // The bare catalog is the builtin one renamed: beside the builtin catalog it would be there twice.
  const checks = (draws ? fewShotDraws(foreign, draws, flows, out) : crowded ? crowdedChecks(teams, out) : extension ? teams : [...writeBare(path.join(out, 'bare'), slice), ...teams])
    .filter((c) => !only || only.some((o) => c.name.startsWith(o)));
  if (draws && !checks.length) throw new Error(`--draws: no team${only ? ` among ${only.join(', ')}` : ''} has twice ${flows} training flows to draw from${slice ? ` (--slice ${slice} keeps fewer)` : ''}`);
  const all: Record<string, Report> = {};
  for (const c of checks) {
    const t0 = Date.now();
    all[c.name] = await runCheck(c, MODES, extra);
    if (!argv.includes('--json') && !draws) {
      printTable(`${c.name} (${readTasks(c.test).length} test tasks, ${readTasks(c.train).length} training flows; ${((Date.now() - t0) / 1000).toFixed(1)} s)`, all[c.name]);
    }
  }
  if (draws && !argv.includes('--json')) {
    for (const c of foreign) {
      const rs = Object.entries(all).filter(([n]) => n.startsWith(`${c.name}: draw `)).map(([, r]) => r);
      if (rs.length) printDraws(`${c.name}, ${flows} flows drawn at random`, rs);
    }
  }
  if (argv.includes('--json')) console.log(JSON.stringify(all));
}

if (require.main === module) {
  cli(process.argv.slice(2)).catch((e) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
