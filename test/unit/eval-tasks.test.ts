import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTasks, missingIds, TaskFileError } from '../../src/core/eval/tasks';
import { recallAt, ndcgAt, completeAt, hitAt } from '../../src/core/eval/metrics';

test('task lines parse; gold defaults to the flow', () => {
  const t = parseTasks('{"id":"a","query":"q1","gold":["ndvi"],"flow":["ndvi"]}\n\n{"id":"b","query":"q2","flow":["dnbr","burn_severity"]}\n');
  assert.equal(t.length, 2);
  assert.deepEqual(t[1].gold, ['dnbr', 'burn_severity']);
  assert.equal(t[1].line, 3);
});

test('malformed task lines fail naming the line', () => {
  assert.throws(() => parseTasks('{"id":"a","query":"q","gold":["x"]}\n{"id":"b", "query": }', 'tasks.jsonl'), (e: Error) => e instanceof TaskFileError && /tasks\.jsonl:2: not valid JSON/.test(e.message));
  assert.throws(() => parseTasks('{"id":"a","query":"","gold":["x"]}'), /:1: "query"/);
  assert.throws(() => parseTasks('\n\n{"id":"a","query":"q","gold":5}'), /:3: "gold" must be an array/);
  assert.throws(() => parseTasks('{"id":"a","query":"q","gold":["x"]}\n{"id":"a","query":"q","gold":["x"]}'), /:2: duplicate id "a" \(first on line 1\)/);
  assert.throws(() => parseTasks('[1,2]'), /:1: expected an object/);
});

test('gold ids missing from the catalog are reported with task and line', () => {
  const t = parseTasks('{"id":"a","query":"q","gold":["ndvi","nope"],"flow":["ndvi"]}');
  assert.deepEqual(missingIds(t, (id) => id === 'ndvi'), ['a: nope (line 1)']);
});

test('metrics against hand-computed values', () => {
  const ranked = ['a', 'x', 'b', 'y', 'c'];
  assert.equal(recallAt(ranked, ['a', 'b', 'z'], 3), 2 / 3);
  assert.equal(completeAt(ranked, ['a', 'b'], 3), 1);
  assert.equal(completeAt(ranked, ['a', 'c'], 3), 0);
  assert.equal(hitAt(ranked, 'b', 2), 0);
  assert.equal(hitAt(ranked, 'b', 3), 1);
  const ideal = 1 + 1 / Math.log2(3);
  assert.ok(Math.abs(ndcgAt(ranked, ['a', 'b'], 3) - (1 + 1 / 2) / ideal) < 1e-12);
});
