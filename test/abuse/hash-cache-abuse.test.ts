// Hostile input-hash caches (src/core/raster/hash-cache.ts): whatever the cache file holds, a run
// gets the true hash of its input, never a throw; the cache is only ever a cache.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { sha256File } from '../../src/core/raster/provenance';
import { statKey } from '../../src/core/raster/hash-cache';
import { tmpDir } from '../helpers/raster-gdal';

test('hash cache abuse: corrupt, foreign, prototype-key, non-hex and unwritable caches never give a wrong hash', async () => {
  const root = tmpDir('gw-hash-abuse-');
  const old = process.env.GEOWEAVE_CACHE_DIR;
  let n = 0;
  const trial = async (what: string, plant: (dir: string, key: (f: string) => string) => void) => {
    const dir = path.join(root, `c${n}`);
    const f = path.join(root, `in${n++}.bin`);
    fs.writeFileSync(f, `input ${what}`);
    plant(dir, (p) => statKey(p, fs.statSync(p)));
    process.env.GEOWEAVE_CACHE_DIR = dir;
    const got = await sha256File(f);
    assert.equal(got.sha256, createHash('sha256').update(`input ${what}`).digest('hex'), what);
  };
  const write = (dir: string, body: string) => { fs.mkdirSync(dir, { recursive: true }); fs.writeFileSync(path.join(dir, 'input-hashes.json'), body); };
  try {
    await trial('not JSON', (d) => write(d, '{"format": "geoweave-input-hashes/1", "entries": {'));
    await trial('JSON null', (d) => write(d, 'null'));
    await trial('an array', (d) => write(d, '[1,2,3]'));
    await trial('another format', (d) => write(d, JSON.stringify({ format: 'other/1', entries: {} })));
    await trial('__proto__ and constructor keys', (d) => write(d, '{"format":"geoweave-input-hashes/1","entries":{"__proto__":"' + 'a'.repeat(64) + '","constructor":"' + 'b'.repeat(64) + '"}}'));
    await trial('a non-hex hash for the very key', (d, key) => write(d, JSON.stringify({ format: 'geoweave-input-hashes/1', entries: { [key(path.join(root, `in${n - 1}.bin`))]: 'not a hash' } })));
    await trial('entries of numbers and objects', (d) => write(d, JSON.stringify({ format: 'geoweave-input-hashes/1', entries: { a: 1, b: { x: 1 }, c: null } })));
    await trial('the cache folder is a file', (d) => fs.writeFileSync(d, 'x'));
    await trial('the cache file is a folder', (d) => fs.mkdirSync(path.join(d, 'input-hashes.json'), { recursive: true }));
    await trial('a 5 MB cache file', (d) => write(d, JSON.stringify({ format: 'geoweave-input-hashes/1', entries: Object.fromEntries(Array.from({ length: 60000 }, (_, i) => [`/x/${i}`, 'c'.repeat(64)])) })));
  } finally {
    if (old === undefined) delete process.env.GEOWEAVE_CACHE_DIR; else process.env.GEOWEAVE_CACHE_DIR = old;
  }
  // The oversized cache was trimmed when this run wrote its entry back.
  const big = JSON.parse(fs.readFileSync(path.join(root, `c${n - 1}`, 'input-hashes.json'), 'utf8'));
  assert.ok(Object.keys(big.entries).length <= 4096, `kept ${Object.keys(big.entries).length} entries`);
});
