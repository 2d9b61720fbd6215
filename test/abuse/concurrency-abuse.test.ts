/**
 * Abuse: several writers on one state folder. Rounds of five parallel `learn` runs with different
 * flows (every flow must survive), two long-lived "windows" saving after every event (every event
 * must count), and writers killed at random moments (the next writer must find a readable state
 * and clean up after the dead one).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { spawn } from 'child_process';
import { Tally } from './tally';
import { CATALOG_ARGS, CLI, cli, leftovers, prng, repoRoot, runNode, tmpDir } from './state-support';
import { readLearnedState } from '../../src/core/learning/state-file';

const SEED = Number(process.env.GEOWEAVE_ABUSE_SEED ?? 11);
const TOOLS = ['ndvi', 'evi', 'threshold', 'area_by_class', 'zonal_stats', 'slope', 'dnbr', 'burn_severity', 'cloud_mask'];

/** `n` flows of 2–4 fixture tools, each with a task worded uniquely (so no two merge into one case). */
function flows(r: ReturnType<typeof prng>, tag: string, n: number): { query: string; flow: string[] }[] {
  return Array.from({ length: n }, (_, i) => {
    const len = 2 + r.int(3);
    const flow: string[] = [];
    while (flow.length < len) {
      const t = r.pick(TOOLS);
      if (t !== flow[flow.length - 1]) flow.push(t);
    }
    return { query: `survey ${tag}x${i} fields`, flow };
  });
}

/** Expected totals: transition successes and cases from the flows learned. */
function expected(all: { flow: string[] }[]): { transitions: number; cases: number } {
  return { transitions: all.reduce((n, f) => n + f.flow.length - 1, 0), cases: all.length };
}

function totals(stateDir: string): { transitions: number; cases: number; problem?: string } {
  const r = readLearnedState(path.join(stateDir, 'learned.json'));
  if (!('state' in r)) return { transitions: -1, cases: -1, problem: 'problem' in r ? r.problem : 'missing' };
  let t = 0;
  for (const row of Object.values(r.state.transitions)) for (const c of Object.values(row)) t += c.s;
  return { transitions: Math.round(t * 1e6) / 1e6, cases: r.state.cases?.length ?? 0 };
}

/** Counts decay (half-life 90 days) between writers' clocks: equal up to that, a lost update is off by at least 1. */
const near = (a: number, b: number) => Math.abs(a - b) < 0.01;

/** A long-lived process that records `events` feedback events, saving after each, as a VS Code window does. */
const WINDOW_SCRIPT = `
const { IntentionGraph } = require(${JSON.stringify(path.join(repoRoot, 'out', 'src', 'core', 'learning', 'intention-graph.js'))});
const [dir, tag, events] = process.argv.slice(1);
const g = IntentionGraph.load(dir, { log: (l, m) => process.stderr.write(l + ': ' + m + '\\n') });
let failed = 0;
for (let i = 0; i < Number(events); i++) {
  g.recordFeedback(['window' + tag], 'ndvi', true, 'cloud_mask');
  if (!g.save((l, m) => process.stderr.write(l + ': ' + m + '\\n'))) failed++;
}
process.exit(failed ? 1 : 0);
`;

test('parallel writers on one state folder: nothing lost, nothing left behind', { timeout: 180_000 }, async () => {
  const tally = new Tally();
  const r = prng(SEED);
  const root = tmpDir();

  // Rounds of five parallel `learn` runs.
  for (let round = 0; round < 3; round++) {
    const state = path.join(root, `learn-${round}`);
    const sets = Array.from({ length: 5 }, (_, k) => flows(r, `r${round}p${k}`, 15 + r.int(10)));
    const files = sets.map((set, k) => {
      const f = path.join(root, `flows-${round}-${k}.jsonl`);
      fs.writeFileSync(f, set.map((x) => JSON.stringify(x)).join('\n') + '\n');
      return f;
    });
    const runs = await Promise.all(files.map((f) => cli(['learn', '--trajectories', f, '--state', state, ...CATALOG_ARGS], { timeoutMs: 60_000 })));
    const want = expected(sets.flat());
    const got = totals(state);
    const bad = runs.find((x) => x.status !== 0 || x.timedOut || x.signal);
    const input = `round ${round}: 5 × learn, ${want.cases} flows`;
    if (bad) tally.add('parallel learn', input, bad.timedOut ? 'hang' : 'crashed', bad.stderr.slice(0, 300));
    else if (got.cases !== want.cases || !near(got.transitions, want.transitions)) tally.add('parallel learn', input, 'partial', `kept ${got.cases}/${want.cases} cases, ${got.transitions}/${want.transitions} transitions${got.problem ? `: ${got.problem}` : ''}`);
    else if (leftovers(state).length) tally.add('parallel learn', input, 'partial', `left ${leftovers(state).join(', ')}`);
    else tally.add('parallel learn', input, 'handled');
  }

  // Two windows on one folder, saving after every event.
  for (let round = 0; round < 2; round++) {
    const state = path.join(root, `windows-${round}`);
    fs.mkdirSync(state);
    const events = 20 + r.int(20);
    const runs = await Promise.all(['a', 'b'].map((tag) => runNode(['-e', WINDOW_SCRIPT, state, tag, String(events)], { timeoutMs: 60_000 })));
    const got = totals(state);
    const input = `round ${round}: 2 windows × ${events} saves`;
    const bad = runs.find((x) => x.status !== 0 || x.timedOut || x.signal);
    if (bad) tally.add('two windows', input, bad.timedOut ? 'hang' : 'crashed', bad.stderr.slice(0, 300));
    else if (!near(got.transitions, 2 * 2 * events)) tally.add('two windows', input, 'partial', `cloud_mask → ndvi counts ${got.transitions}, expected ${4 * events}`);
    else if (leftovers(state).length) tally.add('two windows', input, 'partial', `left ${leftovers(state).join(', ')}`);
    else tally.add('two windows', input, 'handled');
  }

  // Writers killed at random moments; the next one must read a whole state and clean up.
  const big = flows(r, 'kill', 400);
  const bigFile = path.join(root, 'big.jsonl');
  fs.writeFileSync(bigFile, big.map((x) => JSON.stringify(x)).join('\n') + '\n');
  const follow = flows(r, 'after', 3);
  const followFile = path.join(root, 'after.jsonl');
  fs.writeFileSync(followFile, follow.map((x) => JSON.stringify(x)).join('\n') + '\n');
  for (let k = 0; k < 6; k++) {
    const state = path.join(root, `kill-${k}`);
    const base = await cli(['learn', '--trajectories', followFile, '--state', state, ...CATALOG_ARGS]);
    assert.equal(base.status, 0, base.stderr);
    const delay = 150 + r.int(500);
    const victims = [0, 1].map(() => spawn(process.execPath, [CLI, 'learn', '--trajectories', bigFile, '--state', state, ...CATALOG_ARGS], { stdio: 'ignore', env: { ...process.env, GEOWEAVE_WORKERS: '0' } }));
    await new Promise((res) => setTimeout(res, delay));
    for (const v of victims) v.kill('SIGKILL');
    await Promise.all(victims.map((v) => new Promise((res) => (v.exitCode !== null || v.signalCode ? res(undefined) : v.on('exit', res)))));
    const readable = totals(state);
    const after = await cli(['learn', '--trajectories', followFile, '--state', state, ...CATALOG_ARGS], { timeoutMs: 30_000 });
    const input = `2 writers killed after ${delay} ms`;
    if (readable.problem) tally.add('killed writers', input, 'partial', `learned.json unreadable after the kill: ${readable.problem}`);
    else if (after.status !== 0) tally.add('killed writers', input, after.timedOut ? 'hang' : 'crashed', after.stderr.slice(0, 300));
    else if (leftovers(state).length) tally.add('killed writers', input, 'partial', `left ${leftovers(state).map((f) => path.basename(f)).join(', ')}`);
    else tally.add('killed writers', input, 'handled');
  }

  console.log(tally.summary());
  assert.deepEqual(tally.failures(), []);
  fs.rmSync(root, { recursive: true, force: true });
});
