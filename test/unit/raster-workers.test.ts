/** The worker count's free-core sample: other processes' CPU counts, this process's own does not. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as os from 'node:os';
import { busyCoresElsewhere, chooseWorkers, INLINE_BELOW_PIXELS, SAMPLE_MS } from '../../src/core/raster/pipeline/workers';

const oneCore = os.cpus().length < 2 ? 'one CPU: a pinned core leaves nothing to measure against' : false;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The median of three samples: one sample is 8 kernel ticks per CPU, so ±1 tick moves it by ~0.13 core. */
async function busy(): Promise<number> {
  const v = [await busyCoresElsewhere(), await busyCoresElsewhere(), await busyCoresElsewhere()].sort((a, b) => a - b);
  return v[1];
}

test('free-core sample: a child spinning on one core reads as one busy core; our own busy loop does not count', { skip: oneCore }, async (t) => {
  const before = await busy();
  // A whole extra core only shows where one is free: on a saturated machine a spinner just takes a share.
  if (before > os.cpus().length - 1.3) { t.skip(`others already keep ${before.toFixed(2)} of ${os.cpus().length} cores busy`); return; }
  // This process spins for most of the sample window: the load average counted exactly this.
  const spinning = async () => {
    const own = busyCoresElsewhere();
    const end = Date.now() + SAMPLE_MS - 10;
    while (Date.now() < end) { /* spin */ }
    return own;
  };
  const withOwn = [await spinning(), await spinning(), await spinning()].sort((a, b) => a - b)[1];
  const child = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
  let pinned: number;
  try {
    await sleep(300);
    pinned = await busy();
  } finally {
    child.kill('SIGKILL');
  }
  const after = await busy();
  t.diagnostic(`busy cores elsewhere: ${before.toFixed(2)} before, ${withOwn.toFixed(2)} while this process spun, ${pinned.toFixed(2)} with the child, ${after.toFixed(2)} after (load average ${os.loadavg()[0].toFixed(2)})`);
  const base = Math.min(before, after);
  assert.ok(withOwn < before + 0.4, `our own CPU is not counted (${withOwn.toFixed(2)} while spinning, ${before.toFixed(2)} before)`);
  assert.ok(pinned - base > 0.6 && pinned - base < 1.4, `the child adds about one busy core (${base.toFixed(2)} → ${pinned.toFixed(2)})`);
  // On two cores with one pinned, fewer than 1.5 are free: the run goes inline.
  if (os.cpus().length === 2) {
    const c = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
    try { await sleep(300); assert.equal(await chooseWorkers(INLINE_BELOW_PIXELS * 2), 0); } finally { c.kill('SIGKILL'); }
  }
});

test('chooseWorkers: explicit counts and GEOWEAVE_WORKERS win; small runs take no sample', async () => {
  const saved = process.env.GEOWEAVE_WORKERS;
  try {
    delete process.env.GEOWEAVE_WORKERS;
    assert.equal(await chooseWorkers(1e9, 3), 3);
    assert.equal(await chooseWorkers(10, 2), 2, 'an explicit request wins even for a small run');
    const t0 = Date.now();
    assert.equal(await chooseWorkers(INLINE_BELOW_PIXELS - 1), 0);
    assert.equal(await chooseWorkers(INLINE_BELOW_PIXELS * 5, undefined, INLINE_BELOW_PIXELS * 10), 0, 'below a kernel\'s own inline threshold');
    assert.ok(Date.now() - t0 < SAMPLE_MS / 2, `no sample below the threshold (${Date.now() - t0} ms)`);
    process.env.GEOWEAVE_WORKERS = '2';
    assert.equal(await chooseWorkers(INLINE_BELOW_PIXELS * 2), 2);
    assert.equal(await chooseWorkers(1e9, 0), 0, 'an explicit 0 beats the environment');
    process.env.GEOWEAVE_WORKERS = 'lots';
    assert.equal(await chooseWorkers(1e9), 0);
    delete process.env.GEOWEAVE_WORKERS;
    const t1 = Date.now();
    const n = await chooseWorkers(INLINE_BELOW_PIXELS * 2);
    assert.ok(Date.now() - t1 >= SAMPLE_MS - 5, 'a large run samples');
    assert.ok(n >= 0 && n <= Math.min(8, os.availableParallelism()), `${n} workers`);
  } finally {
    if (saved === undefined) delete process.env.GEOWEAVE_WORKERS; else process.env.GEOWEAVE_WORKERS = saved;
  }
});
