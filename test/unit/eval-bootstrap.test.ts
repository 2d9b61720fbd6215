import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'path';
import { bootstrapInterval } from '../../src/core/eval/bootstrap';
import { evaluate } from '../../src/core/eval/evaluate';
import { geoweaveRanker } from '../../src/core/eval/ranker';
import { readTasks } from '../../src/core/eval/tasks';
import { GeoWeave } from '../../src/core/geoweave';
import { tmpDir } from '../fixtures/helpers';

const ROOT = path.join(__dirname, '..', '..', '..');

test('bootstrap interval: matches the binomial interval for independent 0/1 tasks, holds the estimate, reproducible', () => {
  // 1000 tasks, 800 hits: the normal approximation gives 0.8 ± 1.96·sqrt(0.8·0.2/1000) = ±0.0248.
  const groups = Array.from({ length: 1000 }, (_, i) => ({ num: i % 5 === 0 ? 0 : 1, den: 1 }));
  const [lo, hi] = bootstrapInterval(groups, { samples: 2000 });
  assert.ok(Math.abs(lo - (0.8 - 0.0248)) < 0.006 && Math.abs(hi - (0.8 + 0.0248)) < 0.006, `${lo}–${hi}`);
  assert.deepEqual(bootstrapInterval(groups, { samples: 2000 }), [lo, hi], 'same seed, same interval');
  // A tenth of the tasks: about sqrt(10) times wider.
  const [lo10, hi10] = bootstrapInterval(groups.filter((_, i) => i < 100), { samples: 2000 });
  const ratio = (hi10 - lo10) / (hi - lo);
  assert.ok(ratio > 2.5 && ratio < 3.8, `width ratio ${ratio}`);
  // Identical tasks leave nothing to vary; no tasks give no interval.
  assert.deepEqual(bootstrapInterval(Array.from({ length: 10 }, () => ({ num: 2, den: 3 }))), [2 / 3, 2 / 3]);
  assert.ok(bootstrapInterval([]).every(Number.isNaN));
});

test('bootstrap interval: steps of one task move together, so the ratio of sums is resampled per task', () => {
  // 100 tasks of 4 steps, all hit or all missed: as uncertain as 100 independent steps, not 400.
  const grouped = Array.from({ length: 100 }, (_, i) => ({ num: i % 5 === 0 ? 0 : 4, den: 4 }));
  const single = Array.from({ length: 100 }, (_, i) => ({ num: i % 5 === 0 ? 0 : 1, den: 1 }));
  const w = (g: { num: number; den: number }[]) => { const [a, b] = bootstrapInterval(g, { samples: 2000 }); return b - a; };
  assert.ok(Math.abs(w(grouped) - w(single)) < 0.02, `${w(grouped)} vs ${w(single)}`);
});

test('evaluate reports a 95% interval around every metric', async () => {
  const tasks = readTasks(path.join(ROOT, 'bench', 'tasks.jsonl')).slice(0, 40);
  const gw = await GeoWeave.open({ stateDir: tmpDir(), practice: false });
  try {
    const r = await evaluate(geoweaveRanker(gw, 'full'), tasks, { ks: [3, 10] });
    for (const [key, v] of [...Object.entries(r.forward), ...Object.entries(r.next)]) {
      const [lo, hi] = r.ci95![key];
      assert.ok(lo <= v && v <= hi, `${key}: ${v} outside ${lo}–${hi}`);
    }
    assert.ok(r.ci95!['hit@3'][1] - r.ci95!['hit@3'][0] > 0.05, 'forty tasks leave a wide interval');
  } finally {
    await gw.dispose();
  }
});
