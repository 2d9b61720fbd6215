/** The lazy tool map (one module loaded per run) lists exactly the builtin tools, each the same object. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TOOL_LOADERS } from '../../src/core/raster/tools/lazy-registry';
import { BUILTIN_TOOLS } from '../../src/core/raster/tools/registry';

test('TOOL_LOADERS has every builtin tool and nothing else, loading the registry\'s own objects', () => {
  const ids = BUILTIN_TOOLS.map((t) => t.id).sort();
  assert.deepEqual(Object.keys(TOOL_LOADERS).sort(), ids);
  for (const t of BUILTIN_TOOLS) assert.equal(TOOL_LOADERS[t.id](), t, t.id);
});
