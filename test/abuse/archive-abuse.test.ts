/**
 * Hostile archives given to "Extract Archive": ZIPs and tars (plain and gzipped) truncated and
 * bit-flipped at random, directories whose sizes, offsets, counts and CRCs lie, bombs, names that
 * climb out of the folder, links, entries of other methods, tars whose headers claim huge sizes.
 * Each extraction runs in a child process; a trial passes when it succeeds with every file inside
 * its target folder, or fails naming the archive with nothing left in the folder it extracts into,
 * within its time and memory bounds, and never touches anything outside.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { spawnSync } from 'node:child_process';
import { zipBytes } from '../helpers/zip-writer';
import { judge, emptyDir, fingerprint, listTree, damaged, trialRoom, closeRoom } from './harness';
import { mulberry32 } from '../../src/core/raster/algorithms/prng';

const zip = zipBytes;

/** A ustar header (`type` '0' file, '2' symlink, '5' folder, 'L' GNU long name, 'x' pax). */
function header(name: string, size: number, type = '0', sizeField?: string): Buffer {
  const h = Buffer.alloc(512);
  h.write(name.slice(0, 99), 0); h.write('0000644\0', 100); h.write(sizeField ?? size.toString(8).padStart(11, '0') + '\0', 124); h.write(type, 156);
  h.write('ustar\x0000', 257);
  h.fill(0x20, 148, 156);
  let sum = 0; for (const x of h) sum += x;
  h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
  return h;
}

function tar(entries: { name: string; data: Buffer; type?: string; sizeField?: string }[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    parts.push(header(e.name, e.data.length, e.type, e.sizeField), e.data, Buffer.alloc((512 - (e.data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

test('archive abuse: truncated, bit-flipped, lying, escaping and bombing ZIPs and tars', { timeout: 900_000 }, async () => {
  const room = trialRoom('gw-abuse-archive-');
  const { inDir, outDir: into, outside, outsideBefore, tally, runner } = room;
  const trial = async (label: string, name: string, bytes: Buffer, opts: { mustFail?: boolean } = {}) => {
    emptyDir(inDir); emptyDir(into);
    const file = path.join(inDir, name);
    fs.writeFileSync(file, bytes);
    const frozenIn = fingerprint(inDir);
    const r = await runner.run({ kind: 'extract', file, into });
    // A failure leaves the folder as it was: no partial product, no hidden temporary folder.
    if (r.status === 'error' && listTree(into).length) {
      tally.add('archives', label, 'partial', `failed but left ${listTree(into).slice(0, 3).join(', ')}: ${r.message}`);
      return;
    }
    judge(tally, 'archives', label, r, {
      names: [file, name], mustFail: opts.mustFail,
      frozen: [{ dir: inDir, before: frozenIn }, { dir: outside, before: outsideBefore }],
      check: (res) => {
        const target = path.relative(into, String(res.result?.stats?.target ?? ''));
        const stray = listTree(into).filter((f) => f !== target && !f.startsWith(`${target}/`));
        return stray.length ? `escape: ${stray.slice(0, 3).join(', ')} outside the target ${target}` : null;
      },
    });
  };
  try {
    const rnd = mulberry32(41);
    const tif = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7) % 251));
    const intactZip = zip([{ name: 'S2.SAFE/GRANULE/g/IMG_DATA/R10m/T31_B04_10m.jp2', data: tif }, { name: 'S2.SAFE/MTD.xml', data: Buffer.from('<x/>'), method: 0 }, { name: 'S2.SAFE/x/B08.tif', data: tif }]);
    const intactTar = tar([{ name: 'LC09_SR_B4.TIF', data: tif }, { name: 'LC09_MTL.txt', data: Buffer.from('GROUP = X\n') }, { name: 'LC09_SR_B5.TIF', data: tif.subarray(0, 1000) }]);
    const intactTgz = zlib.gzipSync(intactTar);
    for (const [name, orig] of [['s2.zip', intactZip], ['scene.tar', intactTar], ['scene.tar.gz', intactTgz]] as [string, Buffer][]) {
      await trial(`${name} intact`, name, orig);
      for (const [how, bytes] of damaged(orig, rnd, 25, 40, 6)) await trial(`${name} ${how}`, name, bytes);
    }
    // Directories that lie.
    const e = [{ name: 'a/b.tif', data: tif }];
    await trial('ZIP size declared smaller (a bomb)', 'bomb.zip', zip([{ name: 'a/b.tif', data: Buffer.alloc(200 << 20) }], { size: 1000 }), { mustFail: true });
    await trial('ZIP declaring 4 GB', 'huge.zip', zip(e, { size: 0xfffffffe }), { mustFail: true });
    await trial('ZIP compressed size past the end', 'csize.zip', zip(e, { csize: 1 << 30 }), { mustFail: true });
    await trial('ZIP offset past the end', 'offset.zip', zip(e, { offset: 1 << 30 }), { mustFail: true });
    await trial('ZIP wrong CRC', 'crc.zip', zip(e, { crc: 42 }), { mustFail: true });
    await trial('ZIP count larger than the directory', 'count.zip', zip(e, { count: 9 }), { mustFail: true });
    await trial('ZIP directory offset inside the data', 'cd.zip', zip(e, { cdOffset: 3 }), { mustFail: true });
    await trial('ZIP of a bzip2 entry', 'bz.zip', zip([{ name: 'a.tif', data: tif, method: 12 }]), { mustFail: true });
    await trial('ZIP of escaping names and a link', 'slip.zip', zip([{ name: '../../outside/victim.txt', data: Buffer.from('owned') }, { name: '/tmp/gw-owned.txt', data: tif }, { name: 'd/l', data: Buffer.from('../../outside'), mode: 0o120777 }, { name: 'd/ok.tif', data: tif }]));
    await trial('ZIP of 60 000 empty entries', 'many.zip', zip(Array.from({ length: 60_000 }, (_, i) => ({ name: `d/${i}.txt`, data: Buffer.alloc(0), method: 0 }))));
    await trial('ZIP with a file and a folder of one name', 'clash.zip', zip([{ name: 'd/x', data: tif }, { name: 'd/x/y.tif', data: tif }]), { mustFail: true });
    await trial('an empty .zip', 'empty.zip', Buffer.alloc(0), { mustFail: true });
    // Tars that lie.
    await trial('tar size in base-256 of 2^60', 'b256.tar', tar([{ name: 'a.tif', data: tif, sizeField: '\x80' + '\0'.repeat(3) + '\x10' + '\0'.repeat(7) }]), { mustFail: true });
    await trial('tar of escaping names, a symlink and a hard link', 'slip.tar', tar([{ name: '../outside/victim.txt', data: Buffer.from('owned') }, { name: 'd/l', data: Buffer.alloc(0), type: '2' }, { name: 'd/h', data: Buffer.alloc(0), type: '1' }, { name: 'd/ok.tif', data: tif }]));
    await trial('tar with a 2 MB GNU long name', 'longname.tar', tar([{ name: '././@LongLink', data: Buffer.alloc(2 << 20, 0x61), type: 'L' }, { name: 'a.tif', data: tif }]), { mustFail: true });
    await trial('tar with a pax path climbing out', 'pax.tar', tar([{ name: 'PaxHeader', data: Buffer.from('30 path=../../outside/evil.tif\n'), type: 'x' }, { name: 'a.tif', data: tif }]));
    await trial('a gzip bomb named .tgz (100 MB of zeros)', 'bomb.tgz', zlib.gzipSync(Buffer.concat([header('a.bin', 100 << 20), Buffer.alloc(100 << 20)])));
    await trial('text named .tar', 'text.tar', Buffer.from('not a tar\n'.repeat(200)), { mustFail: true });
    await trial('a ZIP named .tar', 'zip.tar', intactZip, { mustFail: true });
    // A FIFO named like an archive: refused, not waited on.
    emptyDir(inDir); emptyDir(into);
    spawnSync('mkfifo', [path.join(inDir, 'pipe.zip')]);
    const fifo = await runner.run({ kind: 'extract', file: path.join(inDir, 'pipe.zip'), into });
    judge(tally, 'archives', 'a FIFO named .zip', fifo, { names: ['pipe.zip'], mustFail: true, frozen: [{ dir: outside, before: outsideBefore }] });
  } finally {
    closeRoom(room);
  }
  assert.ok(tally.trials.length >= 200, `only ${tally.trials.length} trials`);
  assert.deepEqual(tally.failures().map((f) => `${f.outcome}: ${f.input}: ${f.detail}`), []);
  assert.ok(!fs.existsSync('/tmp/gw-owned.txt'));
});
