import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NextStepModel, type StepFlow } from '../../src/core/learning/next-step-model';
import { canTrainAhead, StepModelPool } from '../../src/core/learning/step-model-pool';
import { IntentionGraph } from '../../src/core/learning/intention-graph';
import { ToolClassifier } from '../../src/core/learning/tool-classifier';
import { mulberry32 } from '../../src/core/raster/algorithms/prng';

/** Flows of a few pipelines, worded in a few ways (enough for the model to learn something). */
function flows(seed: number, count: number): StepFlow[] {
  const r = mulberry32(seed);
  const pipes = [['load', 'mask', 'ndvi', 'zonal'], ['load', 'sar', 'flood', 'area'], ['dem', 'slope', 'hazard', 'report']];
  const words = ['crop', 'field', 'flood', 'river', 'slope', 'landslide', 'vigour', 'water', 'area', 'terrain'];
  return Array.from({ length: count }, () => {
    const p = Math.floor(r() * pipes.length);
    return { terms: words.filter(() => r() < 0.3).concat(words[p * 3]), tools: pipes[p], w: 1 };
  });
}

const same = (a: NextStepModel, b: NextStepModel, terms: string[], done: string[]) => assert.deepEqual([...a.predict(terms, done)], [...b.predict(terms, done)]);

test('step model pool: a model trained ahead on the thread predicts exactly as one trained here; an unstarted one is trained here', { skip: !canTrainAhead() && 'no worker script or one core' }, async () => {
  const pool = new StepModelPool();
  try {
    const a = flows(1, 60);
    const b = flows(2, 40);
    pool.ahead('a', a);
    pool.ahead('b', b);
    const ta = await pool.take('a');
    const tb = await pool.take('b');
    assert.ok(ta && tb);
    for (const [m, f] of [[ta, a], [tb, b]] as const) {
      const here = new NextStepModel(f);
      same(m, here, ['flood', 'river'], ['load']);
      same(m, here, ['crop'], ['load', 'mask']);
      same(m, here, [], []);
    }
    assert.equal(await pool.take('a'), undefined, 'taken once');
    assert.equal(await pool.take('never queued'), undefined);
    // Queued behind one the thread is training: taken before the thread reaches it, it is trained here.
    pool.ahead('c', flows(3, 400));
    pool.ahead('d', flows(4, 30));
    const td = await pool.take('d');
    same(td!, new NextStepModel(flows(4, 30)), ['slope'], ['dem']);
    assert.ok(await pool.take('c'));
  } finally {
    pool.close();
  }
});

test('step model pool: a closed pool trains what it is asked for here; a graph takes a model only for the cases it was trained on', async () => {
  const pool = new StepModelPool();
  pool.close();
  pool.ahead('x', flows(5, 20));
  assert.equal(await pool.take('x'), undefined, 'nothing is queued once closed');

  const g = new IntentionGraph(undefined);
  g.setPrior([{ terms: ['flood'], tools: ['load', 'sar', 'flood'] }, { terms: ['crop'], tools: ['load', 'mask', 'ndvi'] }]);
  const { flows: f, version } = g.stepFlows();
  const trained = new NextStepModel(f);
  g.adoptNextModel(trained, version);
  assert.equal(g.nextModel(), trained);

  const h = new IntentionGraph(undefined);
  h.setPrior([{ terms: ['flood'], tools: ['load', 'sar', 'flood'] }]);
  const old = h.stepFlows();
  h.setPrior([{ terms: ['crop'], tools: ['load', 'mask', 'ndvi'] }]);
  const stale = new NextStepModel(old.flows);
  h.adoptNextModel(stale, old.version);
  assert.notEqual(h.nextModel(), stale, 'trained on cases that changed since: not taken');
  assert.ok((h.nextModel().predict(['crop'], ['load']).get('mask') ?? 0) > 0);
});

test('step model pool: a tool classifier trained ahead on the thread, or restored from its state, predicts exactly as one trained here; a graph takes one only for its cases', { skip: !canTrainAhead() && 'no worker script or one core' }, async () => {
  const pool = new StepModelPool();
  try {
    const a = flows(6, 80);
    pool.aheadClassifier('a', a);
    pool.ahead('a', a);
    const clf = await pool.takeClassifier('a');
    const model = await pool.take('a');
    assert.ok(clf instanceof ToolClassifier && model instanceof NextStepModel, 'each kind comes back as its own model under the same key');
    const here = new ToolClassifier(a);
    for (const terms of [['flood', 'river'], ['crop'], ['unknown'], []]) {
      assert.deepEqual([...clf.predict(terms)], [...here.predict(terms)]);
      assert.deepEqual([...ToolClassifier.restore(here.state()).predict(terms)], [...here.predict(terms)]);
      assert.equal(clf.knows(terms), here.knows(terms));
    }
    assert.ok((here.predict(['flood']).get('sar') ?? 0) > (here.predict(['crop']).get('sar') ?? 1), 'it learned something to compare');
    assert.equal(await pool.takeClassifier('a'), undefined, 'taken once');
  } finally {
    pool.close();
  }
  const g = new IntentionGraph(undefined);
  g.setPrior([{ terms: ['flood'], tools: ['load', 'sar', 'flood'] }]);
  const old = g.classifierFlows();
  const stale = new ToolClassifier(old.flows);
  g.setPrior([{ terms: ['crop'], tools: ['load', 'mask', 'ndvi'] }]);
  g.adoptClassifier(stale, old.version);
  assert.notEqual(g.classifier(), stale, 'trained on cases that changed since: not taken');
  const now = g.classifierFlows();
  const h = new IntentionGraph(undefined);
  h.setPrior([{ terms: ['crop'], tools: ['load', 'mask', 'ndvi'] }]);
  const fresh = new ToolClassifier(h.classifierFlows().flows);
  h.adoptClassifier(fresh, h.classifierFlows().version);
  assert.equal(h.classifier(), fresh);
  assert.ok(now.version > old.version);
});

test('step model pool: while the thread trains the model asked for, the taker trains the last one queued of that kind instead of waiting', { skip: !canTrainAhead() && 'no worker script or one core' }, async () => {
  const pool = new StepModelPool();
  try {
    // The first is long enough to still be in training when it is asked for.
    pool.ahead('a', flows(7, 3000));
    pool.ahead('b', flows(8, 50));
    pool.aheadClassifier('k', flows(9, 50));
    pool.ahead('c', flows(10, 60));
    const a = await pool.take('a');
    assert.equal(pool.trained.here, 1, 'the last next-step model queued (c), not the classifier of another kind');
    const c = await pool.take('c');
    same(c!, new NextStepModel(flows(10, 60)), ['flood'], ['load']);
    same(a!, new NextStepModel(flows(7, 3000)), ['crop'], ['load', 'mask']);
    assert.ok(await pool.take('b'));
    assert.ok(await pool.takeClassifier('k'));
    assert.equal(pool.trained.here + pool.trained.thread, 4, 'each trained once');
  } finally {
    pool.close();
  }
});
