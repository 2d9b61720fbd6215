// Input hashes cached on disk between processes (src/core/raster/hash-cache.ts): a re-run in a new
// `geoweave run` process does not read an unchanged input again; any change to the file does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { sha256File } from '../../src/core/raster/provenance';
import { cachedHash, rememberHash, statKey } from '../../src/core/raster/hash-cache';

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const old: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(vars)) { old[k] = process.env[k]; if (v === undefined) delete process.env[k]; else process.env[k] = v; }
  return fn().finally(() => { for (const [k, v] of Object.entries(old)) { if (v === undefined) delete process.env[k]; else process.env[k] = v; } });
}

test('a hash is kept on disk, read back by another process, and dropped when the file changes', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-hash-cache-'));
  const f = path.join(dir, 'scene.tif');
  fs.writeFileSync(f, 'first bytes');
  const cacheA = path.join(dir, 'cache-a');
  await withEnv({ GEOWEAVE_CACHE_DIR: cacheA, GEOWEAVE_HASH_CACHE: undefined }, async () => {
    assert.equal((await sha256File(f)).sha256, sha('first bytes'));
  });
  const stored = JSON.parse(fs.readFileSync(path.join(cacheA, 'input-hashes.json'), 'utf8'));
  assert.equal(stored.entries[statKey(f, fs.statSync(f))], sha('first bytes'));

  // What another process finds on disk is what it returns, without reading the file: a cache
  // file holding a different hash for the file's exact state proves the read came from the cache.
  const cacheB = path.join(dir, 'cache-b');
  fs.mkdirSync(cacheB);
  const planted = 'ab'.repeat(32);
  await withEnv({ GEOWEAVE_CACHE_DIR: cacheB }, async () => {
    // A file this process has not hashed (its in-memory cache would answer first).
    const g = path.join(dir, 'other.tif');
    fs.writeFileSync(g, 'other bytes');
    fs.writeFileSync(path.join(cacheB, 'input-hashes.json'), JSON.stringify({ format: 'geoweave-input-hashes/1', entries: { [statKey(g, fs.statSync(g))]: planted } }));
    assert.equal((await sha256File(g)).sha256, planted);
    fs.appendFileSync(g, ' and more');
    assert.equal((await sha256File(g)).sha256, sha('other bytes and more'), 'a changed file is read again');
  });
});

test('GEOWEAVE_HASH_CACHE=off writes no cache; a corrupt cache file is ignored', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-hash-cache-'));
  const f = path.join(dir, 'x.bin');
  fs.writeFileSync(f, 'x');
  const cache = path.join(dir, 'cache');
  await withEnv({ GEOWEAVE_CACHE_DIR: cache, GEOWEAVE_HASH_CACHE: 'off' }, async () => {
    assert.equal((await sha256File(f)).sha256, sha('x'));
  });
  assert.equal(fs.existsSync(cache), false);
  const cache2 = path.join(dir, 'cache2');
  fs.mkdirSync(cache2);
  fs.writeFileSync(path.join(cache2, 'input-hashes.json'), '{not json');
  const g = path.join(dir, 'y.bin');
  fs.writeFileSync(g, 'y');
  await withEnv({ GEOWEAVE_CACHE_DIR: cache2, GEOWEAVE_HASH_CACHE: undefined }, async () => {
    assert.equal((await sha256File(g)).sha256, sha('y'));
  });
  assert.equal(JSON.parse(fs.readFileSync(path.join(cache2, 'input-hashes.json'), 'utf8')).format, 'geoweave-input-hashes/1');
});

test('lookups without parsing the file find exactly the entries JSON.parse finds (quotes, backslashes, NULs, keys inside keys)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-hashcache-'));
  try {
    const file = path.join(dir, 'input-hashes.json');
    const keys = ['/a/b.tif\0' + '12\0' + '3', '/q"uote\\back.tif\u0000x', '/ü/ñ.tif', 'x"/a/b.tif', 'x\\"/a/b.tif', '/a/b.tif'];
    const want = new Map<string, string>();
    // Written by rememberHash one by one (each write re-reads the file), then read back by fresh lookups.
    keys.forEach((k, i) => { const h = sha(`h${i}`); rememberHash(k, h, file); want.set(k, h); });
    const text = fs.readFileSync(file, 'utf8');
    const parsed = JSON.parse(text).entries as Record<string, string>;
    for (const k of [...keys, '/missing.tif', '"/a/b.tif', 'b.tif']) {
      rememberHash('/other.tif', sha('other'), file); // resets the module's memo of the file
      assert.equal(cachedHash(k, file), parsed[k], `lookup of ${JSON.stringify(k)}`);
      assert.equal(cachedHash(k, file), want.get(k) ?? (k === '/other.tif' ? sha('other') : undefined));
    }
    // A key that only occurs inside another key (after an escaped quote) is not found.
    fs.writeFileSync(file, JSON.stringify({ format: 'geoweave-input-hashes/1', entries: { 'x"/only.tif': sha('x') } }));
    rememberHash('/other2.tif', sha('o2'), path.join(dir, 'elsewhere.json'));
    assert.equal(cachedHash('/only.tif', file), undefined);
    assert.equal(cachedHash('x"/only.tif', file), sha('x'));
  } finally { fs.rmSync(dir, { recursive: true, force: true }); }
});
