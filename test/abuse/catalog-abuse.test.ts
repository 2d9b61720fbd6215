/**
 * A team's catalog as it may arrive: JSON Lines catalogs truncated and bit-flipped at random, flows
 * beside them, a folder nested deeper than is read, an empty folder. Loading never throws, every
 * problem names a file or folder, and what loads is a tool of the catalog.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadCatalog } from '../../src/core/manifests/load';
import { builtinCatalog } from '../fixtures/helpers';
import { mulberry32 } from '../../src/core/raster/algorithms/prng';

const TRIALS = 120;

test(`catalog abuse: ${TRIALS} damaged JSON Lines catalogs, nested and empty folders load without a throw, each problem named`, () => {
  const rand = mulberry32(20261206);
  const tools = Array.from({ length: 12 }, (_, i) => JSON.stringify({ id: `t.tool_${i}`, description: `Tool ${i} does a thing.`, inputs: [{ name: 'image', type: 'raster' }] }));
  const good = Buffer.from(tools.join('\n') + '\n');
  const ids = new Set(tools.map((t) => JSON.parse(t).id));
  let loaded = 0, problems = 0;
  for (let trial = 0; trial < TRIALS; trial++) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-catalog-abuse-'));
    try {
      const bytes = Buffer.from(good);
      const kind = trial % 4;
      let data = bytes;
      if (kind === 0) data = bytes.subarray(0, Math.floor(rand() * bytes.length));
      else if (kind === 1) for (let k = 0; k < 1 + Math.floor(rand() * 8); k++) bytes[Math.floor(rand() * bytes.length)] ^= 1 << Math.floor(rand() * 8);
      else if (kind === 2) data = Buffer.concat([bytes, Buffer.from('\n\u0000\uFFFF{"id":\n[1,2]\n"text"\nnull\n')]);
      const sub = kind === 3 ? path.join(dir, 'a', 'b', 'c', 'd', 'e', 'f') : path.join(dir, 'sar');
      fs.mkdirSync(sub, { recursive: true });
      fs.writeFileSync(path.join(sub, 'catalog.jsonl'), data);
      fs.writeFileSync(path.join(dir, 'flows.jsonl'), '{"id":"f1","query":"flood map","flow":["t.tool_1"]}\n'.repeat(1 + Math.floor(rand() * 50)));
      const c = loadCatalog({ noBuiltin: true, extraDirs: [dir], schemaFile: path.join(builtinCatalog, 'schema.json') });
      for (const t of c.tools) assert.ok(ids.has(t.manifest.id) || t.file.endsWith('catalog.jsonl'), `trial ${trial}: ${t.manifest.id} from ${t.file}`);
      for (const p of c.problems) assert.ok(p.file.startsWith(dir) && p.message.length > 0, `trial ${trial}: ${JSON.stringify(p)}`);
      // Flows beside the catalog are never read as tools, nor a problem.
      assert.ok(!c.problems.some((p) => p.file.endsWith('flows.jsonl')), `trial ${trial}`);
      // Deeper than four folders: not read, and then the folder holds nothing, which is said.
      if (kind === 3) assert.ok(c.tools.length === 0 && c.problems.some((p) => p.file === dir && /no tool manifests/.test(p.message)), `trial ${trial}: ${JSON.stringify(c.problems)}`);
      if (kind === 0 && data.length === bytes.length) assert.equal(c.tools.length, 12);
      loaded += c.tools.length;
      problems += c.problems.length;
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  assert.ok(loaded > 0 && problems > 0, `${loaded} tools, ${problems} problems`);
});
