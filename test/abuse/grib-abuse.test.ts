/**
 * Hostile GRIB files: GRIB2 messages as GDAL writes them (simple, complex packing with spatial
 * differencing, PNG, JPEG 2000, two fields) and GRIB1 with a bitmap as ecCodes writes it, truncated
 * and bit-flipped, and headers with values no writer uses (section lengths past the message, absurd
 * grids, 40-bit values, more groups than values, bitmaps too short, constant fields of 30 and 64 M
 * points in a few hundred bytes). Each is opened and read in full,
 * or run through band_math writing a GeoTIFF, in a child process; a trial passes when it reads or
 * fails naming the file, within its time and memory bounds, leaving no half-written output. The
 * data scan of a folder holding a damaged file of several messages (whose messages it lists as
 * layers, io/grib-layers.ts) never throws: it lists the file or its messages, or reports it
 * unreadable with a reason.
 * A file of its own (not raw-abuse.test.ts), so that GRIB's trials run without the others'.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { judge, emptyDir, fingerprint, damaged, trialRoom, closeRoom, type Op } from './harness';
import { mulberry32 } from '../../src/core/raster/algorithms/prng';
import { gdalMissing, py, tmpDir } from '../helpers/raster-gdal';

test('GRIB abuse: GRIB2 of every packing and GRIB1 with a bitmap, truncated, bit-flipped and with absurd headers', { timeout: 900_000 }, async () => {
  const room = trialRoom('gw-abuse-grib-');
  const { inDir, outDir, outside, outsideBefore, tally, runner } = room;
  const rnd = mulberry32(2026);
  const made = tmpDir('gw-abuse-grib-src-');
  let k = 0;
  const trial = async (label: string, bytes: Buffer, opts: { mustFail?: boolean; mustSucceed?: boolean; selector?: string } = {}) => {
    emptyDir(inDir);
    fs.rmSync(outDir, { recursive: true, force: true });
    fs.mkdirSync(outDir, { recursive: true });
    fs.writeFileSync(path.join(inDir, 'field.grib2'), bytes);
    // One message named after `#` (io/grib-select.ts), or the file whole.
    const file = path.join(inDir, 'field.grib2') + (opts.selector === undefined ? '' : `#${opts.selector}`);
    const frozen = fingerprint(inDir);
    // Every fourth trial writes a GeoTIFF from the field: a failure must leave no partial output.
    const op: Op = k++ % 4 === 3 ? { kind: 'runTool', tool: 'band_math', args: { image: file, expression: 'b1 * 2 + 1' }, outDir } : { kind: 'read', file };
    judge(tally, 'grib', label, await runner.run(op), {
      names: ['field.grib2'], outDir, mustFail: opts.mustFail, mustSucceed: opts.mustSucceed,
      frozen: [{ dir: inDir, before: frozen }, { dir: outside, before: outsideBefore }], tempRoots: [inDir, outDir],
    });
  };
  /** The scan of a folder holding `bytes` as field.grib2: it returns, listing the file or its messages, or naming it unreadable with a reason. */
  const scanTrial = async (label: string, bytes: Buffer, layers?: number) => {
    emptyDir(inDir);
    fs.writeFileSync(path.join(inDir, 'field.grib2'), bytes);
    const frozen = fingerprint(inDir);
    judge(tally, 'grib-scan', label, await runner.run({ kind: 'scan', dir: inDir }), {
      names: ['field.grib2'], mustSucceed: true,
      frozen: [{ dir: inDir, before: frozen }, { dir: outside, before: outsideBefore }], tempRoots: [inDir],
      check: (r) => {
        const s = r.result?.stats as { items: string[]; unreadable: { path: string; reason: string }[] };
        const listed = s.items.filter((p) => p === 'field.grib2' || p.startsWith('field.grib2#'));
        const unreadable = s.unreadable.find((u) => u.path === 'field.grib2');
        if (!listed.length && !unreadable) return `field.grib2 is neither listed nor reported unreadable (${r.result?.summary})`;
        if (unreadable && !unreadable.reason.trim()) return 'reported unreadable without a reason';
        if (layers !== undefined && listed.filter((p) => p.includes('#')).length !== layers) return `lists ${listed.join(', ')}; expected ${layers} messages`;
        return null;
      },
    });
  };
  try {
    if (!gdalMissing() || process.env.CI) {
      py(`from osgeo import gdal
import numpy as np
gdal.UseExceptions()
m = gdal.GetDriverByName('MEM').Create('', 72, 37, 2, gdal.GDT_Float32)
m.SetGeoTransform((-2.5, 5, 0, 92.5, 0, -5)); m.SetProjection('EPSG:4326')
yy, xx = np.mgrid[0:37, 0:72]
for b in (1, 2):
    a = (280 + 20 * np.sin(xx / 7.0 + b) * np.cos(yy / 9.0) + (xx * 13 + yy * 7) % 5 * 0.1).astype('f4')
    if b == 2: a[5:12, 20:40] = -9999
    m.GetRasterBand(b).WriteArray(a); m.GetRasterBand(b).SetNoDataValue(-9999)
for name, opts in [('simple', ['DATA_ENCODING=SIMPLE_PACKING']), ('complex2', ['DATA_ENCODING=COMPLEX_PACKING', 'SPATIAL_DIFFERENCING_ORDER=2']),
                   ('complex1', ['DATA_ENCODING=COMPLEX_PACKING', 'SPATIAL_DIFFERENCING_ORDER=1']), ('png', ['DATA_ENCODING=PNG']), ('jpeg2000', ['DATA_ENCODING=JPEG2000'])]:
    gdal.Translate(name + '.grib2', m, format='GRIB', creationOptions=opts)
# Constant fields packed in a few hundred bytes: 30 M points (read within the memory bound) and 64 M (refused).
for name, w, h in [('big', 6000, 5000), ('huge', 8000, 8000)]:
    c = gdal.GetDriverByName('MEM').Create('', w, h, 1, gdal.GDT_Byte)
    c.SetGeoTransform((-180, 360 / w, 0, 90, 0, -180 / h)); c.SetProjection('EPSG:4326'); c.GetRasterBand(1).Fill(7)
    gdal.Translate(name + '.grib2', c, format='GRIB', creationOptions=['DATA_ENCODING=COMPLEX_PACKING'])`, made);
      await trial('GRIB2 a constant field of 30 M points', fs.readFileSync(path.join(made, 'big.grib2')), { mustSucceed: true });
      await trial('GRIB2 a constant field of 64 M points', fs.readFileSync(path.join(made, 'huge.grib2')), { mustFail: true });
      for (const name of ['simple', 'complex2', 'complex1', 'png', 'jpeg2000']) {
        const orig = fs.readFileSync(path.join(made, `${name}.grib2`));
        await trial(`GRIB2 ${name} intact`, orig, { mustSucceed: true });
        for (const [how, bytes] of damaged(orig, rnd, 12, 12, 5)) await trial(`GRIB2 ${name} ${how}`, bytes);
      }
      // Headers no writer makes, in the complex-packed file's first message.
      const c = fs.readFileSync(path.join(made, 'complex2.grib2'));
      const at: Record<number, number> = {};
      for (let p = 16; p < c.length - 4 && c.toString('latin1', p, p + 4) !== '7777'; p += c.readUInt32BE(p)) at[c[p + 4]] ??= p;
      const s3 = at[3], s5 = at[5];
      const edit = (label: string, f: (b: Buffer) => void, opts: { mustFail?: boolean } = { mustFail: true }) => { const b = Buffer.from(c); f(b); return trial(`GRIB2 ${label}`, b, opts); };
      await edit('total length 2^60', (b) => b.writeBigUInt64BE(1n << 60n, 8));
      await edit('total length 0', (b) => b.writeBigUInt64BE(0n, 8));
      await edit('section 3 of 4 GB', (b) => b.writeUInt32BE(0xffffffff, s3));
      await edit('section 3 of 0 bytes', (b) => b.writeUInt32BE(0, s3));
      await edit('grid 4e9 × 4e9', (b) => { b.writeUInt32BE(0xfffffff0, s3 + 30); b.writeUInt32BE(0xfffffff0, s3 + 34); });
      await edit('grid 100000 × 100000', (b) => { b.writeUInt32BE(100000, s3 + 30); b.writeUInt32BE(100000, s3 + 34); });
      await edit('grid 0 × 37', (b) => b.writeUInt32BE(0, s3 + 30));
      await edit('shape of the earth 77', (b) => { b[s3 + 14] = 77; });
      await edit('40-bit values', (b) => { b[s5 + 19] = 40; });
      await edit('4e9 groups', (b) => b.writeUInt32BE(0xffffffff, s5 + 31));
      await edit('groups 40 bits wide', (b) => { b[s5 + 35] = 40; b[s5 + 36] = 0; });
      await edit('differencing of order 7', (b) => { b[s5 + 47] = 7; });
      await edit('differencing descriptors of 9 octets', (b) => { b[s5 + 48] = 9; });
      await edit('4e9 values', (b) => b.writeUInt32BE(0xffffffff, s5 + 5));
      await edit('template 5.51 (spectral)', (b) => b.writeUInt16BE(51, s5 + 9));
      await edit('template 3.90 (space view)', (b) => b.writeUInt16BE(90, s3 + 12));
      await edit('no end section', (b) => b.write('XXXX', b.length - 4, 'latin1'));
      await trial('GRIB2 its first 16 bytes', c.subarray(0, 16), { mustFail: true });
      // Messages named after `#`: the two bands by number; numbers and names that are none of them,
      // a path, a huge selector; and a selector on a damaged file.
      const simple = fs.readFileSync(path.join(made, 'simple.grib2'));
      for (const sel of ['1', '2']) await trial(`GRIB2 #${sel}`, simple, { selector: sel, mustSucceed: true });
      for (const sel of ['3', '0', '-1', '1e3', '99999999999999999999', 'NOSUCH', 'TMP:', ':', ' ', '../../etc/passwd', 'x'.repeat(100_000)]) {
        await trial(`GRIB2 #${sel.length > 30 ? `${sel.slice(0, 5)}… (${sel.length} characters)` : JSON.stringify(sel)}`, simple, { selector: sel, mustFail: true });
      }
      for (const [how, bytes] of damaged(simple, rnd, 3, 3, 2)) await trial(`GRIB2 #2 of a file ${how}`, bytes, { selector: '2' });
      await trial('GRIB2 message repeated 300 times', Buffer.concat(Array.from({ length: 300 }, () => c)), { mustSucceed: true });
      // The scan of a file of several messages of every packing (two fields each), intact, then cut and bit-flipped.
      const several = Buffer.concat(['simple', 'complex2', 'png', 'jpeg2000'].map((n) => fs.readFileSync(path.join(made, `${n}.grib2`))));
      await scanTrial('scan: GRIB2 of 4 packings intact', several, 8);
      for (const [how, bytes] of damaged(several, rnd, 12, 12, 5)) await scanTrial(`scan: GRIB2 of 4 packings ${how}`, bytes);
      // Cut at each message's end and inside each: the messages before a cut are whole.
      for (let p = 0, n = 0; p < several.length - 8; p += Number(several.readBigUInt64BE(p + 8)), n++) {
        if (n) await scanTrial(`scan: GRIB2 cut after message ${n}`, several.subarray(0, p));
        await scanTrial(`scan: GRIB2 cut inside message ${n + 1}`, several.subarray(0, p + 20));
      }
      await scanTrial('scan: GRIB2 message repeated 3000 times', Buffer.concat(Array.from({ length: 3000 }, () => c)));
    }
    if (spawnSync('grib_set', ['-V']).status === 0 || process.env.CI) {
      // GRIB1 with a bitmap, as ecCodes writes it from its sample.
      const vals: number[] = [];
      for (let j = 0; j < 19; j++) for (let i = 0; i < 24; i++) vals.push(j > 3 && j < 9 && i > 4 && i < 13 ? -999 : 280 + i * 0.5 - j * 1.25);
      fs.writeFileSync(path.join(made, 'g1.rules'), `set Ni=24; set Nj=19; set latitudeOfFirstGridPointInDegrees=90; set longitudeOfFirstGridPointInDegrees=0;
set latitudeOfLastGridPointInDegrees=0; set longitudeOfLastGridPointInDegrees=345; set iDirectionIncrementInDegrees=15; set jDirectionIncrementInDegrees=5;
set bitsPerValue=12; set missingValue=-999; set bitmapPresent=1; set values={${vals.join(',')}}; write;\n`);
      const r = spawnSync('grib_filter', ['-o', path.join(made, 'bitmap.grib1'), path.join(made, 'g1.rules'), '/usr/share/eccodes/samples/GRIB1.tmpl']);
      assert.equal(r.status, 0, String(r.stderr));
      const g1 = fs.readFileSync(path.join(made, 'bitmap.grib1'));
      await trial('GRIB1 intact', g1, { mustSucceed: true });
      for (const [how, bytes] of damaged(g1, rnd, 15, 15, 5)) await trial(`GRIB1 ${how}`, bytes);
      const b = Buffer.from(g1); b.writeUIntBE(0xffffff, 8, 3);
      await trial('GRIB1 section 1 of 16 MB', b, { mustFail: true });
      await scanTrial('scan: GRIB1 twice', Buffer.concat([g1, g1]), 2);
      for (const [how, bytes] of damaged(Buffer.concat([g1, g1]), rnd, 6, 6, 4)) await scanTrial(`scan: GRIB1 twice ${how}`, bytes);
    }
  } finally {
    fs.rmSync(made, { recursive: true, force: true });
    closeRoom(room);
  }
  assert.ok(tally.trials.length >= 150, `only ${tally.trials.length} trials`);
  assert.deepEqual(tally.failures().map((f) => `${f.outcome}: ${f.input}: ${f.detail}`), []);
});
