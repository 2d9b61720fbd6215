/**
 * Damaged MODIS HDF4 and VIIRS HDF-EOS5 quality fields through cloud_mask (src/core/raster/land-qa.ts):
 * a MOD13Q1-like pixel reliability field, an MCD43A4-like mandatory quality field and a
 * VNP09GA-like SurfReflect_QF1_1 + QF2_1 pair (read together), each compressed and not (so flips land
 * in inflate streams and in raw values), as the HDF-EOS libraries write them, then truncated and
 * bit-flipped. Files hold little besides the QA fields, so most damage lands in them or in the
 * metadata that places them. Each trial runs cloud_mask in a child process: it passes when the mask
 * is written or the tool fails naming the file, within its time and memory bounds, with no
 * half-written output and nothing outside the output folder touched.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { judge, emptyDir, fingerprint, damaged, trialRoom, closeRoom } from './harness';
import { mulberry32 } from '../../src/core/raster/algorithms/prng';
import { gdalMissing, tmpDir } from '../helpers/raster-gdal';
import { hdf4LibsMissing, writeHdf4, type EosFieldSpec } from '../helpers/hdf4-writer';
import { he5LibMissing, writeHe5, type He5FieldSpec } from '../helpers/he5-writer';

const W = 64, H = 48;
const UL: [number, number] = [1111950.519667, 5559752.598333], LR: [number, number] = [2223901.039333, 4447802.078667];
const sinu = { xdim: W, ydim: H, ul: UL, lr: LR, proj: 'SNSOID' as const, sphere: -1, params: [6371007.181] };

test('land QA abuse: MOD13 pixel reliability, MCD43A4 mandatory quality (HDF4) and VNP09GA QF1/QF2 (HDF-EOS5), truncated and bit-flipped, through cloud_mask', { timeout: 900_000 }, async () => {
  const room = trialRoom('gw-abuse-landqa-');
  const { inDir, outDir, outside, outsideBefore, tally, runner } = room;
  const rnd = mulberry32(4311);
  const made = tmpDir('gw-abuse-landqa-src-');
  const seen = { read: 0, refused: 0 };
  const trial = async (label: string, name: string, bytes: Buffer, field: string, opts: { mustSucceed?: boolean } = {}) => {
    emptyDir(inDir);
    fs.rmSync(outDir, { recursive: true, force: true });
    fs.mkdirSync(outDir, { recursive: true });
    fs.writeFileSync(path.join(inDir, name), bytes);
    const frozen = fingerprint(inDir);
    const r = await runner.run({ kind: 'runTool', tool: 'cloud_mask', args: { image: `${path.join(inDir, name)}#${field}` }, outDir });
    seen[r.status === 'ok' ? 'read' : 'refused']++;
    judge(tally, 'land-qa', label, r, {
      names: [name], outDir, mustSucceed: opts.mustSucceed,
      frozen: [{ dir: inDir, before: frozen }, { dir: outside, before: outsideBefore }], tempRoots: [inDir, outDir],
    });
  };
  try {
    const haveGdal = !gdalMissing() || process.env.CI;
    if (haveGdal && (!hdf4LibsMissing() || process.env.CI)) {
      for (const comp of [4, 0]) {
        const rel = path.join(made, `MOD13Q1.A2023001.h18v04.061.c${comp}.hdf`);
        const relField: EosFieldSpec = { name: '250m 16 days pixel reliability', dims: 'YDim,XDim', type: 'int8', shape: [H, W], ...(comp ? { tile: [24, 32], comp } : {}), fill: -1, expr: 'np.where(i % 41 == 5, -1, (i * 7 + i // 64) % 4)', attrs: { long_name: '250m 16 days pixel reliability', units: 'rank', valid_range: ['int8', [0, 3]] } };
        writeHdf4({ file: rel, grids: [{ name: 'MODIS_Grid_16DAY_250m_500m_VI', ...sinu, fields: [relField] }] });
        const mcd = path.join(made, `MCD43A4.A2023001.h18v04.061.c${comp}.hdf`);
        const qField: EosFieldSpec = { name: 'BRDF_Albedo_Band_Mandatory_Quality_Band1', dims: 'YDim,XDim', type: 'uint8', shape: [H, W], ...(comp ? { tile: [24, 32], comp } : {}), fill: 255, expr: 'np.where(i % 43 == 0, 255, (i // 7) % 2)', attrs: { long_name: 'BRDF_Albedo_Band_Mandatory_Quality_Band1', valid_range: ['uint8', [0, 254]] } };
        writeHdf4({ file: mcd, grids: [{ name: 'MOD_Grid_BRDF', ...sinu, fields: [qField] }] });
        for (const [file, field] of [[rel, relField.name], [mcd, qField.name]] as const) {
          const name = path.basename(file);
          const orig = fs.readFileSync(file);
          await trial(`${name} intact`, name, orig, field, { mustSucceed: true });
          for (const [how, bytes] of damaged(orig, rnd, 12, 16, 6)) await trial(`${name} ${how}`, name, bytes, field);
          // The data at the end of the file (HDF4 writes the field's values after its descriptors): flips there only.
          for (let j = 0; j < 8; j++) {
            const b = Buffer.from(orig);
            const at = orig.length - 1 - Math.floor(rnd() * Math.min(orig.length - 1, W * H));
            b[at] ^= 1 << Math.floor(rnd() * 8);
            await trial(`${name} bits flipped in its last ${W * H} bytes at ${at}`, name, b, field);
          }
        }
      }
    }
    if (haveGdal && (!he5LibMissing() || process.env.CI)) {
      for (const deflate of [4, 0]) {
        const file = path.join(made, `VNP09GA.A2023001.h18v04.002.d${deflate}.h5`);
        const qf = (n: number, expr: string): He5FieldSpec => ({ name: `SurfReflect_QF${n}_1`, dims: 'YDim,XDim', type: 'uint8', shape: [H, W], ...(deflate ? { tile: [H / 2, W / 2], deflate } : {}), expr, attrs: { long_name: `Surface reflectance quality flags ${n}` } });
        writeHe5({ file, grids: [{ name: 'VNP_Grid_1km_2D', ...sinu, fields: [qf(1, '(i * 37 + i // 64) % 256'), qf(2, '(i * 13) % 256')] }] });
        const name = path.basename(file);
        const orig = fs.readFileSync(file);
        for (const field of ['SurfReflect_QF1_1', 'SurfReflect_QF2_1']) await trial(`${name}#${field} intact`, name, orig, field, { mustSucceed: true });
        for (const [how, bytes] of damaged(orig, rnd, 14, 20, 6)) await trial(`${name} ${how}`, name, bytes, 'SurfReflect_QF1_1');
        // Flips in the second half of the file, where HDF5 puts the chunks after the superblock and object headers.
        for (let j = 0; j < 10; j++) {
          const b = Buffer.from(orig);
          const at = Math.floor(orig.length / 2 + rnd() * (orig.length / 2 - 1));
          b[at] ^= 1 << Math.floor(rnd() * 8);
          await trial(`${name} bits flipped in its second half at ${at}`, name, b, j % 2 ? 'SurfReflect_QF2_1' : 'SurfReflect_QF1_1');
        }
      }
    }
  } finally {
    fs.rmSync(made, { recursive: true, force: true });
    closeRoom(room);
    console.log(`land QA trials: ${seen.read} masks written, ${seen.refused} refused`);
  }
  if (!gdalMissing() || process.env.CI) assert.ok(tally.trials.length >= 100, `only ${tally.trials.length} trials`);
  assert.deepEqual(tally.failures().map((f) => `${f.outcome}: ${f.input}: ${f.detail}`), []);
});
