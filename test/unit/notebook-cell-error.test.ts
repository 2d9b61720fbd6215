/** A tool cell's last failure in its metadata: what a reopened notebook shows again. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorFromMetadata, errorRecord, ERROR_KEY } from '../../src/core/notebook/session';

test('a cell\'s last failure is read back from its metadata; malformed records are none; long messages are cut', () => {
  const rec = errorRecord('slope failed', 'file not found: no_such_dem.tif', '2026-12-06T10:00:00Z');
  assert.deepEqual(errorFromMetadata({ [ERROR_KEY]: JSON.parse(JSON.stringify(rec)) }), rec);
  assert.equal(errorFromMetadata({}), undefined);
  assert.equal(errorFromMetadata({ [ERROR_KEY]: { name: 1, message: 'x' } }), undefined);
  assert.equal(errorFromMetadata({ [ERROR_KEY]: 'boom' }), undefined);
  assert.deepEqual(errorFromMetadata({ [ERROR_KEY]: { name: 'n', message: 'm' } }), { name: 'n', message: 'm', time: '' });
  const long = errorRecord('n', 'x'.repeat(10000), 't');
  assert.equal(long.message.length, 4001);
  assert.ok(long.message.endsWith('…'));
});
