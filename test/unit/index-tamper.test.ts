import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { createHash } from 'crypto';
import { spawnSync } from 'child_process';
import { main } from '../../src/cli/main';
import { checkHnswFile } from '../../src/core/index/hnsw-file';
import { DEFAULT_HNSW } from '../../src/core/index/vector-index';
import { fixtureCatalog, repoRoot, tmpDir } from '../fixtures/helpers';

const catalog = ['--no-builtin', '--manifests', fixtureCatalog];
const quiet = { out: () => undefined, err: () => undefined };

/** A built state folder and the parsed layout of its tools.hnsw. */
async function builtState(): Promise<{ dir: string; file: string; buf: Buffer; dim: number; labels: number[] }> {
  const dir = tmpDir();
  assert.equal(await main(['index', 'build', '--state', dir, ...catalog], quiet), 0);
  const fp = JSON.parse(fs.readFileSync(path.join(dir, 'tools.index.json'), 'utf8'));
  const labels = Object.values(fp.tools as Record<string, { labels: number[] }>).flatMap((t) => t.labels);
  return { dir, file: path.join(dir, 'tools.hnsw'), buf: fs.readFileSync(path.join(dir, 'tools.hnsw')), dim: fp.dimension, labels };
}

/** Writes `buf` as the index and puts its sha256 into the fingerprint, as a forger would. */
function forge(dir: string, buf: Buffer): void {
  fs.writeFileSync(path.join(dir, 'tools.hnsw'), buf);
  const fpFile = path.join(dir, 'tools.index.json');
  const fp = JSON.parse(fs.readFileSync(fpFile, 'utf8'));
  fp.indexSha256 = createHash('sha256').update(buf).digest('hex');
  fs.writeFileSync(fpFile, JSON.stringify(fp));
}

function suggestInChild(dir: string): { status: number | null; signal: string | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'bin', 'geoweave.js'), 'suggest', 'how steep is the terrain', '--k', '3', '--state', dir, ...catalog], { encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

test('a forged tools.hnsw with a matching checksum is rejected and rebuilt, not handed to the addon', async () => {
  const s = await builtState();
  const expect = { dimension: s.dim, M: DEFAULT_HNSW.M, efConstruction: DEFAULT_HNSW.efConstruction, labels: s.labels };
  assert.doesNotThrow(() => checkHnswFile(s.buf, expect), 'the file our writer made passes');
  const bad = Buffer.from(s.buf);
  // Element 0's first level-0 neighbour points far past the end (this segfaulted suggest, exit 139).
  bad.writeUInt16LE(Math.max(1, bad.readUInt16LE(96)), 96);
  bad.writeUInt32LE(0x0fffffff, 100);
  assert.throws(() => checkHnswFile(bad, expect), /element 0 links to element 268435455 at level 0/);
  forge(s.dir, bad);
  const r = suggestInChild(s.dir);
  assert.equal(r.signal, null, `killed by ${r.signal}`);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /tools\.hnsw.*not a usable index.*rebuilding/);
  assert.match(r.stdout, /^1\s+slope/m);
  // The rebuilt index is ours again.
  assert.doesNotThrow(() => checkHnswFile(fs.readFileSync(s.file), expect));
});

test('header fields, truncation and link levels are checked against the file size and the expected shape', async () => {
  const s = await builtState();
  const expect = { dimension: s.dim, M: DEFAULT_HNSW.M, efConstruction: DEFAULT_HNSW.efConstruction, labels: s.labels };
  const variant = (edit: (b: Buffer) => void) => { const b = Buffer.from(s.buf); edit(b); return b; };
  assert.throws(() => checkHnswFile(s.buf.subarray(0, 50), expect), /too short/);
  assert.throws(() => checkHnswFile(s.buf.subarray(0, s.buf.length - 7), expect), /ends inside the link lists|bytes after|do not fit/);
  assert.throws(() => checkHnswFile(variant((b) => b.writeBigUInt64LE(10n ** 12n, 16)), expect), /elements in an index of capacity|do not fit/);
  assert.throws(() => checkHnswFile(variant((b) => b.writeBigUInt64LE(10n ** 12n, 8)), expect), /capacity .* is implausible/);
  assert.throws(() => checkHnswFile(variant((b) => b.writeInt32LE(40, 48)), expect), /entry point has level|maxlevel/);
  assert.throws(() => checkHnswFile(variant((b) => b.writeUInt32LE(1 << 30, 52)), expect), /entry point/);
  assert.throws(() => checkHnswFile(variant((b) => b.writeDoubleLE(1e300, 80)), expect), /mult/);
  assert.throws(() => checkHnswFile(s.buf, { ...expect, dimension: expect.dimension + 1 }), /sizeDataPerElement/);
  assert.throws(() => checkHnswFile(s.buf, { ...expect, labels: [...expect.labels.slice(1), 99_999] }), /label 99999 missing/);
});

test('index files that are symlinks to devices are refused quickly and rebuilt over (the link, not its target)', async () => {
  const s = await builtState();
  fs.rmSync(s.file);
  fs.symlinkSync('/dev/zero', s.file);
  const vectors = path.join(s.dir, 'tools.vectors');
  const victim = path.join(tmpDir(), 'victim.bin');
  fs.writeFileSync(victim, 'keep me');
  fs.rmSync(vectors);
  fs.symlinkSync(victim, vectors);
  const t0 = Date.now();
  const r = suggestInChild(s.dir);
  assert.equal(r.status, 0, r.stderr);
  assert.ok(Date.now() - t0 < 30_000);
  assert.match(r.stderr, /symbolic link|not a regular file|checksum/);
  assert.ok(fs.lstatSync(s.file).isFile() && fs.lstatSync(vectors).isFile());
  assert.equal(fs.readFileSync(victim, 'utf8'), 'keep me');
});
