import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePanelMessage, MAX_TASK_LENGTH } from '../../src/shared/protocol';

test('valid panel messages come back typed', () => {
  const ok = [
    { type: 'ready' },
    { type: 'describeTask', task: 'map vegetation health' },
    { type: 'insert', toolId: 'ndvi', origin: 'forward', run: true },
    { type: 'insert', toolId: 'area_by_class', origin: 'complementary', run: false },
    { type: 'insertWorkflow', workflowId: 'burn_severity' },
    { type: 'dismiss', toolId: 'ndwi', origin: 'complementary' },
    { type: 'clearMemory' },
  ];
  for (const m of ok) assert.deepEqual(parsePanelMessage(m), { ok: true, message: m });
});

test('extra fields are dropped, not passed through', () => {
  assert.deepEqual(parsePanelMessage({ type: 'ready', evil: 1 }), { ok: true, message: { type: 'ready' } });
  assert.deepEqual(parsePanelMessage({ type: 'dismiss', toolId: 'x', origin: 'forward', run: true }), { ok: true, message: { type: 'dismiss', toolId: 'x', origin: 'forward' } });
});

test('invalid messages are rejected with a reason', () => {
  const bad: [unknown, RegExp][] = [
    [null, /not an object/],
    ['ready', /not an object/],
    [[{ type: 'ready' }], /not an object/],
    [{ type: 'runShell', cmd: 'rm -rf /' }, /unknown message type "runShell"/],
    [{}, /unknown message type undefined/],
    [{ type: 'describeTask' }, /describeTask: task must be a string/],
    [{ type: 'describeTask', task: 'x'.repeat(MAX_TASK_LENGTH + 1) }, /longer than 2000/],
    [{ type: 'insert', toolId: '../../etc/passwd', origin: 'forward', run: true }, /toolId must be a tool id/],
    [{ type: 'insert', toolId: 'ndvi', origin: 'elsewhere', run: true }, /origin must be one of forward, complementary, workflow/],
    [{ type: 'insert', toolId: 'ndvi', origin: 'forward', run: 'yes' }, /run must be true or false/],
    [{ type: 'insertWorkflow', workflowId: 3 }, /workflowId must be a workflow id/],
  ];
  for (const [m, re] of bad) {
    const r = parsePanelMessage(m);
    assert.equal(r.ok, false, JSON.stringify(m));
    if (!r.ok) assert.match(r.error, re);
  }
});
