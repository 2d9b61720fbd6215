/**
 * Hostile rasters: every layer of a TIFF (header, IFD, out-of-line tag data, image blocks) truncated
 * and bit-flipped, header fields set to values no writer uses (huge dimensions included), every sample
 * type and codec. Each file goes through a tool in a child process; the trial passes when the tool
 * succeeds with only its reported outputs, or fails naming the file with nothing left behind, within
 * its time bound and memory limit, without touching anything outside the output folder.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { Tally } from './tally';
import { TrialRunner, judge, emptyDir, fingerprint, Op } from './harness';
import { layersOf } from './tiff-layers';
import { patchEntry, ifdEntries, ifdChain, patchNextIfd } from '../helpers/tiff-patch';
import { writeRaster } from '../../src/core/raster/io/writer';
import { mulberry32 } from '../../src/core/raster/algorithms/prng';

type GT = [number, number, number, number, number, number];
const GEO = { geoTransform: [500000, 10, 0, 4430000, 0, -10] as GT, epsg: 32650, geographic: false };

/** Base files GDAL writes: one per sample type / codec / layout the reader has a separate path for. */
const GDAL_BASES = String.raw`
import sys
from osgeo import gdal, osr
import numpy as np
gdal.UseExceptions()
d0 = sys.argv[1]
rng = np.random.default_rng(5)
W, H = 48, 40
def mk(name, dt, bands, co, fn):
    d = gdal.GetDriverByName('GTiff').Create(d0 + '/' + name, W, H, bands, dt, co)
    d.SetGeoTransform((300000, 30, 0, 5000000, 0, -30))
    s = osr.SpatialReference(); s.ImportFromEPSG(32633); d.SetProjection(s.ExportToWkt())
    for b in range(bands):
        band = d.GetRasterBand(b + 1); band.WriteArray(fn(b))
        if dt not in (gdal.GDT_CInt16,): band.SetNoDataValue(0)
        band.SetDescription(['red', 'nir', 'swir1'][b % 3])
    d = None
ramp = lambda b: (np.add.outer(np.arange(H), np.arange(W)) * (b + 1) + 1)
T16 = ['TILED=YES', 'BLOCKXSIZE=16', 'BLOCKYSIZE=16']
mk('u16_strip_lzw_be.tif', gdal.GDT_UInt16, 3, ['COMPRESS=LZW', 'PREDICTOR=2', 'ENDIANNESS=BIG', 'BLOCKYSIZE=8'], ramp)
mk('i64_deflate.tif', gdal.GDT_Int64, 1, T16 + ['COMPRESS=DEFLATE', 'PREDICTOR=2'], lambda b: ramp(b) * 1000 - 5)
mk('f32_pred3_band.tif', gdal.GDT_Float32, 2, T16 + ['COMPRESS=DEFLATE', 'PREDICTOR=3', 'INTERLEAVE=BAND'], lambda b: ramp(b) / 7.0)
mk('u8_nbits4.tif', gdal.GDT_Byte, 1, ['NBITS=4', 'BLOCKYSIZE=5'], lambda b: ramp(b) % 16)
mk('f16.tif', gdal.GDT_Float32, 1, T16 + ['NBITS=16', 'COMPRESS=LZW'], lambda b: ramp(b) / 3.0)
mk('u24.tif', gdal.GDT_UInt32, 1, T16 + ['NBITS=24'], lambda b: ramp(b) * 4099)
mk('jpeg.tif', gdal.GDT_Byte, 1, T16 + ['COMPRESS=JPEG'], lambda b: ramp(b) % 200)
mk('zstd.tif', gdal.GDT_UInt16, 2, T16 + ['COMPRESS=ZSTD', 'PREDICTOR=2'], ramp)
mk('packbits.tif', gdal.GDT_Byte, 1, ['COMPRESS=PACKBITS'], lambda b: (ramp(b) % 3 == 0).astype(np.uint8))
mk('big.tif', gdal.GDT_Float32, 1, T16 + ['BIGTIFF=YES', 'COMPRESS=DEFLATE'], lambda b: ramp(b) * 0.5)
mk('cint16.tif', gdal.GDT_CInt16, 1, [], ramp)
mk('i8.tif', gdal.GDT_Byte, 1, T16 + ['PIXELTYPE=SIGNEDBYTE', 'COMPRESS=DEFLATE', 'PREDICTOR=2'], lambda b: ramp(b) % 200 - 100)
mk('i16_pixel3.tif', gdal.GDT_Int16, 3, T16 + ['COMPRESS=LZW', 'PREDICTOR=2'], lambda b: ramp(b) - 50)
mk('u32_be.tif', gdal.GDT_UInt32, 1, ['ENDIANNESS=BIG', 'COMPRESS=DEFLATE', 'BLOCKYSIZE=3'], lambda b: ramp(b) * 100000)
# Big-endian with a block per row: offsets beyond geotiff.js's first fetch (read by block-table.ts).
mk('u16_be_rows.tif', gdal.GDT_UInt16, 3, ['ENDIANNESS=BIG', 'COMPRESS=DEFLATE', 'BLOCKYSIZE=1', 'INTERLEAVE=BAND'], ramp)
mk('i32.tif', gdal.GDT_Int32, 2, T16 + ['INTERLEAVE=BAND'], lambda b: ramp(b) * -3)
mk('u64.tif', gdal.GDT_UInt64, 1, T16 + ['COMPRESS=LZW', 'PREDICTOR=2', 'ENDIANNESS=BIG'], lambda b: ramp(b) * 10**12)
mk('f64.tif', gdal.GDT_Float64, 1, ['COMPRESS=DEFLATE', 'PREDICTOR=3'], lambda b: ramp(b) / 3.0)
mk('u12.tif', gdal.GDT_UInt16, 2, T16 + ['NBITS=12', 'COMPRESS=DEFLATE'], lambda b: ramp(b) % 4096)
mk('u31.tif', gdal.GDT_UInt32, 1, ['NBITS=31', 'BLOCKYSIZE=7'], lambda b: ramp(b) * 999983)
mk('f64_lerc.tif', gdal.GDT_Float64, 1, T16 + ['COMPRESS=LERC_DEFLATE'], lambda b: ramp(b) * 0.25)
# Palette class maps (PhotometricInterpretation 3 + ColorMap, category names in the .aux.xml sidecar), 8- and 16-bit.
def palette(name, dt, co, fn):
    mk(name, dt, 1, co, fn)
    d = gdal.Open(d0 + '/' + name, gdal.GA_Update)
    b = d.GetRasterBand(1)
    ct = gdal.ColorTable()
    for v in range(1, 12): ct.SetColorEntry(v * 10, (v * 20, 255 - v * 20, (v * 37) % 256, 255))
    b.SetColorTable(ct); b.SetCategoryNames(['n%d' % i for i in range(120)])
    d = None
palette('palette_u8.tif', gdal.GDT_Byte, ['COMPRESS=DEFLATE'], lambda b: (ramp(b) % 11 + 1) * 10)
palette('palette_u16.tif', gdal.GDT_UInt16, T16 + ['COMPRESS=DEFLATE'], lambda b: (ramp(b) % 11 + 1) * 10)
`;

/** Header fields set to what no writer uses (classic TIFFs). `type 4` widens a SHORT to LONG. */
const HEADER_EDITS: [string, number, { count?: number; value?: number; type?: number }][] = [
  ['width 0', 256, { type: 4, value: 0 }], ['width 1', 256, { type: 4, value: 1 }], ['width 2^31', 256, { type: 4, value: 2 ** 31 }],
  ['width 2^32-1', 256, { type: 4, value: 2 ** 32 - 1 }], ['height 0', 257, { type: 4, value: 0 }], ['height 2^32-1', 257, { type: 4, value: 2 ** 32 - 1 }],
  ['height 1e9', 257, { type: 4, value: 1e9 }], ['width 200000', 256, { type: 4, value: 200_000 }],
  ['tile width 0', 322, { type: 4, value: 0 }], ['tile width 8', 322, { type: 4, value: 8 }], ['tile width 65535', 322, { type: 4, value: 65535 }],
  ['tile length 1', 323, { type: 4, value: 1 }], ['tile length 2^31', 323, { type: 4, value: 2 ** 31 }],
  ['rows per strip 0', 278, { type: 4, value: 0 }], ['rows per strip 1', 278, { type: 4, value: 1 }], ['rows per strip 2^32-1', 278, { type: 4, value: 2 ** 32 - 1 }],
  ['spp 0', 277, { value: 0 }], ['spp 2', 277, { value: 2 }], ['spp 65535', 277, { value: 65535 }],
  ['bits 0', 258, { value: 0 }], ['bits 3', 258, { value: 3 }], ['bits 33', 258, { value: 33 }], ['bits 64', 258, { value: 64 }], ['bits 128', 258, { value: 128 }],
  ['format 0', 339, { value: 0 }], ['format 2', 339, { value: 2 }], ['format 3', 339, { value: 3 }], ['format 5', 339, { value: 5 }], ['format 9', 339, { value: 9 }],
  ['compression 0', 259, { value: 0 }], ['compression 2', 259, { value: 2 }], ['compression 7', 259, { value: 7 }], ['compression 99', 259, { value: 99 }], ['compression 34925', 259, { value: 34925 }],
  ['predictor 0', 317, { value: 0 }], ['predictor 3', 317, { value: 3 }], ['predictor 4', 317, { value: 4 }], ['predictor 65535', 317, { value: 65535 }],
  ['planar 0', 284, { value: 0 }], ['planar 2', 284, { value: 2 }], ['planar 3', 284, { value: 3 }],
  ['photometric 3', 262, { value: 3 }], ['photometric 6', 262, { value: 6 }], ['photometric 32844', 262, { value: 32844 }],
  ['offsets count 0', 324, { count: 0 }], ['offsets count 1e9', 324, { count: 1e9 }], ['offset 0', 324, { count: 1, value: 0 }], ['offset 2^32-1', 324, { count: 1, value: 2 ** 32 - 1 }],
  ['strip offsets count 1e9', 273, { count: 1e9 }], ['strip offset 8', 273, { count: 1, value: 8 }],
  ['byte counts 2^31', 325, { count: 1, value: 2 ** 31 }], ['byte counts 0', 325, { count: 1, value: 0 }], ['strip byte count 2^31', 279, { count: 1, value: 2 ** 31 }],
  ['pixel scale count 1', 33550, { count: 1 }], ['tiepoint count 2', 33922, { count: 2 }], ['geokeys count 1', 34735, { count: 1 }],
  ['geokeys count 1e9', 34735, { count: 1e9 }], ['geokeys offset past end', 34735, { value: 2 ** 31 }], ['nodata count 2^31', 42113, { count: 2 ** 31 }],
  ['metadata count 2^30', 42112, { count: 2 ** 30 }], ['unknown field type', 257, { type: 99 }],
  // Colour tables whose size does not fit the samples, past the end of the file, of another type, or pointing at the header.
  ['colormap count 3', 320, { count: 3 }], ['colormap count 767', 320, { count: 767 }], ['colormap count 769', 320, { count: 769 }],
  ['colormap count 3*65536', 320, { count: 3 * 65536 }], ['colormap count 2^31', 320, { count: 2 ** 31 }],
  ['colormap as LONGs', 320, { type: 4 }], ['colormap as RATIONALs', 320, { type: 5 }], ['colormap at offset 8', 320, { value: 8 }],
];

/** A tool run (or a plain read) for a hostile file, round robin. */
function opFor(k: number, file: string, outDir: string): Op {
  const ops: Op[] = [
    { kind: 'read', file },
    { kind: 'runTool', tool: 'raster_stats', args: { image: file }, outDir },
    { kind: 'runTool', tool: 'band_math', args: { image: file, expression: 'b1 * 2 + 1' }, outDir },
    { kind: 'runTool', tool: 'threshold', args: { image: file, op: 'gt', value: 1 }, outDir },
    { kind: 'runTool', tool: 'slope', args: { dem: file }, outDir },
    { kind: 'runTool', tool: 'quicklook', args: { image: file }, outDir },
    { kind: 'runTool', tool: 'resample', args: { image: file, factor: 2, method: 'average' }, outDir },
    { kind: 'runTool', tool: 'clip_bbox', args: { image: file, bbox: [-1e9, -1e9, 1e9, 1e9] }, outDir },
    { kind: 'runTool', tool: 'connected_patches', args: { image: file }, outDir },
    { kind: 'runTool', tool: 'ndvi', args: { image: file, red: 1, nir: 1 }, outDir },
  ];
  return ops[k % ops.length];
}

test('raster abuse: truncated, bit-flipped and odd-header TIFFs of every sample type', { timeout: 600_000 }, async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-abuse-raster-'));
  const corpus = path.join(root, 'corpus'), inDir = path.join(root, 'in'), outDir = path.join(root, 'out'), outside = path.join(root, 'outside');
  fs.mkdirSync(corpus); fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'victim.txt'), 'must not change');
  const outsideBefore = fingerprint(outside);
  const tally = new Tally();
  const runner = new TrialRunner(Number(process.env.GEOWEAVE_ABUSE_TIMEOUT_MS) || 20_000);
  try {
    // Bases: ours (no GDAL needed) and GDAL's (one per reader path). In CI GDAL must be there.
    await writeRaster(path.join(corpus, 'ours_f32.tif'), { width: 70, height: 50, bands: 2, dtype: 'float32', geo: GEO, nodata: -9999, blockSize: 16, descriptions: ['red', 'nir'] },
      [Float32Array.from({ length: 3500 }, (_, i) => (i % 70) + Math.floor(i / 70) * 0.5), Float32Array.from({ length: 3500 }, (_, i) => (i % 13) * 3)]);
    await writeRaster(path.join(corpus, 'ours_mask.tif'), { width: 64, height: 48, bands: 1, dtype: 'uint8', geo: GEO, nodata: 255, blockSize: 16 },
      [Uint8Array.from({ length: 64 * 48 }, (_, i) => ((i % 64) ^ Math.floor(i / 64)) & 1)]);
    const py = spawnSync('/usr/bin/python3', ['-c', GDAL_BASES, corpus], { encoding: 'utf8' });
    if (py.status !== 0 && process.env.CI) assert.fail(`GDAL is required in CI: ${py.stderr}`);
    // GDAL's PAM sidecars (category names) travel with their base: each trial's file gets its base's.
    // GEOWEAVE_ABUSE_BASES=palette runs only the bases whose names contain it (a quick look at one reader path).
    const only = process.env.GEOWEAVE_ABUSE_BASES;
    const bases = fs.readdirSync(corpus).filter((f) => f.endsWith('.tif') && (!only || f.includes(only))).sort().map((f) => path.join(corpus, f));
    const sidecarOf = (base: string): Buffer | undefined => (fs.existsSync(`${base}.aux.xml`) ? fs.readFileSync(`${base}.aux.xml`) : undefined);

    let k = 0;
    const trial = async (label: string, bytes: Buffer, opts: { mustFail?: boolean; mustSucceed?: boolean; sidecar?: Buffer } = {}) => {
      emptyDir(inDir); emptyDir(outDir);
      const file = path.join(inDir, 'hostile.tif');
      fs.writeFileSync(file, bytes);
      if (opts.sidecar) fs.writeFileSync(`${file}.aux.xml`, opts.sidecar);
      const frozenIn = fingerprint(inDir);
      const op = opFor(k++, file, outDir);
      const r = await runner.run(op);
      const outcome = judge(tally, 'rasters', label, r, {
        names: [file], outDir, mustFail: opts.mustFail, mustSucceed: opts.mustSucceed,
        frozen: [{ dir: inDir, before: frozenIn }, { dir: outside, before: outsideBefore }],
        tempRoots: [inDir, outDir],
      });
      // GEOWEAVE_ABUSE_KEEP=DIR keeps the input and the operation of every trial that was not handled.
      const keep = process.env.GEOWEAVE_ABUSE_KEEP;
      if (keep && outcome !== 'handled') {
        fs.mkdirSync(keep, { recursive: true });
        const base = path.join(keep, `${k}-${label.replace(/[^\w.-]+/g, '_').slice(0, 80)}`);
        fs.writeFileSync(`${base}.tif`, bytes);
        fs.writeFileSync(`${base}.json`, JSON.stringify(op));
      }
    };

    for (const base of bases) {
      const name = path.basename(base);
      const orig = fs.readFileSync(base);
      const L = layersOf(orig);
      const rnd = mulberry32([...name].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7));
      const within = ([a, n]: [number, number]) => a + Math.floor(rnd() * Math.max(1, n));
      await trial(`${name} intact`, orig, { mustFail: name === 'cint16.tif', sidecar: sidecarOf(base) });
      // Truncated in every layer.
      const cuts: [string, number][] = [['header', 5], ['ifd', within(L.ifd)], ['end-1', orig.length - 1]];
      L.tags.slice(0, 3).forEach(([a, n, tag]) => cuts.push([`tag ${tag} data`, within([a, n])]));
      if (L.blocks.length) { cuts.push(['first block', within(L.blocks[0])]); cuts.push(['last block', within(L.blocks[L.blocks.length - 1])]); }
      for (const [where, at] of cuts) await trial(`${name} truncated in ${where} at ${at}`, orig.subarray(0, Math.max(0, Math.min(orig.length - 1, at))));
      // Bits flipped in every layer.
      const spans: [string, [number, number]][] = [['header', L.header], ['ifd', L.ifd]];
      L.tags.slice(0, 3).forEach(([a, n, tag]) => spans.push([`tag ${tag} data`, [a, n]]));
      if (L.blocks.length) spans.push(['blocks', [L.blocks[0][0], L.blocks[L.blocks.length - 1][0] + L.blocks[L.blocks.length - 1][1] - L.blocks[0][0]]]);
      for (const [where, span] of spans) {
        for (let j = 0; j < (where === 'ifd' ? 10 : 4); j++) {
          const b = Buffer.from(orig);
          const flips: number[] = [];
          for (let f = 0; f < 1 + Math.floor(rnd() * 4); f++) { const at = within(span); b[at] ^= 1 << Math.floor(rnd() * 8); flips.push(at); }
          await trial(`${name} bits flipped in ${where} at ${flips.join(',')}`, b);
        }
      }
    }

    // Header fields no writer uses, on classic bases of both byte orders, tiled and striped, interleaved and separate.
    const classic = bases.filter((b) => ['ours_f32.tif', 'u16_strip_lzw_be.tif', 'i64_deflate.tif', 'f32_pred3_band.tif', 'u8_nbits4.tif', 'zstd.tif', 'palette_u8.tif', 'palette_u16.tif'].includes(path.basename(b)));
    for (const base of classic) {
      const orig = fs.readFileSync(base);
      const tags = new Set(ifdEntries(orig).map((e) => e.tag));
      for (const [what, tag, change] of HEADER_EDITS) {
        if (!tags.has(tag)) continue;
        const b = Buffer.from(orig);
        patchEntry(b, tag, change);
        await trial(`${path.basename(base)} ${what}`, b, { sidecar: sidecarOf(base) });
      }
    }
    // Hostile PAM sidecars beside an intact palette file: truncated, bit-flipped, not XML, unclosed, entity
    // tricks, oversized. The raster must still give a result (the names are ignored with a warning).
    const pal = bases.find((b) => path.basename(b) === 'palette_u8.tif');
    const aux = pal && sidecarOf(pal);
    if (pal && aux) {
      const orig = fs.readFileSync(pal);
      const rnd = mulberry32(99);
      const flipped = Buffer.from(aux);
      for (let f = 0; f < 8; f++) flipped[Math.floor(rnd() * flipped.length)] ^= 1 << Math.floor(rnd() * 8);
      const sidecars: [string, Buffer][] = [
        ['truncated', aux.subarray(0, Math.floor(aux.length / 2))], ['bits flipped', flipped], ['empty', Buffer.alloc(0)],
        ['binary', Buffer.from(Array.from({ length: 4096 }, () => Math.floor(rnd() * 256)))],
        ['unclosed categories', Buffer.from('<PAMDataset><PAMRasterBand band="1"><CategoryNames>' + '<Category>x'.repeat(50000))],
        ['entity expansion', Buffer.from('<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]><PAMDataset><PAMRasterBand band="1"><CategoryNames><Category>&b;</Category></CategoryNames></PAMRasterBand></PAMDataset>')],
        ['5 MB', Buffer.concat([Buffer.from('<PAMDataset><PAMRasterBand band="1"><CategoryNames>'), Buffer.alloc(5 << 20, 0x20), Buffer.from('</CategoryNames></PAMRasterBand></PAMDataset>')])],
        ['100000 categories', Buffer.from(`<PAMDataset><PAMRasterBand band="1"><CategoryNames>${'<Category>n</Category>'.repeat(100000)}</CategoryNames></PAMRasterBand></PAMDataset>`)],
        ['band 0 and band 2^40', Buffer.from('<PAMDataset><PAMRasterBand band="0"><CategoryNames><Category>a</Category></CategoryNames></PAMRasterBand><PAMRasterBand band="1099511627776"><CategoryNames><Category>b</Category></CategoryNames></PAMRasterBand></PAMDataset>')],
      ];
      for (const [what, sc] of sidecars) await trial(`palette_u8.tif with a ${what} .aux.xml`, orig, { sidecar: sc, mustSucceed: true });
    }
  } finally {
    runner.close();
    console.log(tally.summary());
    const fails = tally.failures();
    if (fails.length) console.log(fails.slice(0, 20).map((f) => `${f.outcome}: ${f.input}: ${f.detail}`).join('\n'));
  }
  if (!process.env.GEOWEAVE_ABUSE_BASES) assert.ok(tally.trials.length >= 1000, `only ${tally.trials.length} trials`);
  assert.deepEqual(tally.failures().map((f) => `${f.outcome}: ${f.input}: ${f.detail}`), []);
  fs.rmSync(root, { recursive: true, force: true });
});

/** Files with overviews: a COG (overview IFDs and tiles before the image's) and gdaladdo's, appended after it, beside a mask. */
const GDAL_OVERVIEW_BASES = String.raw`
import sys
from osgeo import gdal
import numpy as np
gdal.UseExceptions()
d0 = sys.argv[1]
m = gdal.GetDriverByName('MEM').Create('', 1300, 900, 1, gdal.GDT_UInt16)
m.SetGeoTransform((300000, 30, 0, 5000000, 0, -30))
yy, xx = np.mgrid[0:900, 0:1300]
m.GetRasterBand(1).WriteArray(((np.sin(xx / 40.0) + np.cos(yy / 30.0) + 2) * 1000).astype(np.uint16))
gdal.Translate(d0 + '/cog.tif', m, format='COG', creationOptions=['COMPRESS=DEFLATE', 'BLOCKSIZE=128'])
gdal.Translate(d0 + '/addo.tif', m, creationOptions=['COMPRESS=LZW', 'TILED=YES', 'BLOCKXSIZE=128', 'BLOCKYSIZE=128'])
gdal.SetConfigOption('GDAL_TIFF_INTERNAL_MASK', 'YES')
d = gdal.Open(d0 + '/addo.tif', gdal.GA_Update); d.CreateMaskBand(gdal.GMF_PER_DATASET); d.GetRasterBand(1).GetMaskBand().WriteArray((yy % 50 > 2).astype(np.uint8) * 255)
d.BuildOverviews('AVERAGE', [2, 4, 8]); d = None
# External overviews: a read-only open writes them to ext.tif.ovr.
gdal.Translate(d0 + '/ext.tif', m, creationOptions=['COMPRESS=DEFLATE', 'TILED=YES', 'BLOCKXSIZE=128', 'BLOCKYSIZE=128'])
d = gdal.Open(d0 + '/ext.tif'); d.BuildOverviews('AVERAGE', [2, 4]); d = None
`;

/** What is done to one overview IFD (the image's own IFD and tiles are left whole). */
const OVERVIEW_EDITS: [string, number, { count?: number; value?: number; type?: number }][] = [
  ['kind 0 (a second image)', 254, { value: 0 }], ['kind 4 (a mask)', 254, { value: 4 }], ['kind 0xffffffff', 254, { type: 4, value: 0xffffffff }],
  ['width 0', 256, { type: 4, value: 0 }], ['width 2^31', 256, { type: 4, value: 2 ** 31 }], ['width 1301', 256, { type: 4, value: 1301 }],
  ['height 2^32-1', 257, { type: 4, value: 2 ** 32 - 1 }], ['tile width 0', 322, { type: 4, value: 0 }], ['tile width 65535', 322, { type: 4, value: 65535 }],
  ['offsets count 0', 324, { count: 0 }], ['offsets count 1e9', 324, { count: 1e9 }], ['offset 2^32-1', 324, { count: 1, value: 2 ** 32 - 1 }],
  ['byte counts 2^31', 325, { count: 1, value: 2 ** 31 }], ['bits 33', 258, { value: 33 }], ['spp 2', 277, { value: 2 }],
  ['compression 99', 259, { value: 99 }], ['format 3', 339, { value: 3 }], ['predictor 4', 317, { value: 4 }],
];

test('raster abuse: broken overviews are passed over, and a quicklook still shows the image', { timeout: 600_000 }, async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-abuse-overviews-'));
  const corpus = path.join(root, 'corpus'), inDir = path.join(root, 'in'), outDir = path.join(root, 'out'), outside = path.join(root, 'outside');
  fs.mkdirSync(corpus); fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'victim.txt'), 'must not change');
  const outsideBefore = fingerprint(outside);
  const tally = new Tally();
  const runner = new TrialRunner(Number(process.env.GEOWEAVE_ABUSE_TIMEOUT_MS) || 20_000);
  try {
    const py = spawnSync('/usr/bin/python3', ['-c', GDAL_OVERVIEW_BASES, corpus], { encoding: 'utf8' });
    if (py.status !== 0) { if (process.env.CI) assert.fail(`GDAL is required in CI: ${py.stderr}`); return; }
    let k = 0;
    const trial = async (label: string, bytes: Buffer, mustSucceed: boolean, ovr?: Buffer) => {
      emptyDir(inDir); emptyDir(outDir);
      const file = path.join(inDir, 'hostile.tif');
      fs.writeFileSync(file, bytes);
      if (ovr) fs.writeFileSync(`${file}.ovr`, ovr);
      const frozenIn = fingerprint(inDir);
      // quicklook reads the overviews' pixels; raster_info opens every one of them.
      const op: Op = k++ % 3 === 2 ? { kind: 'runTool', tool: 'raster_info', args: { image: file }, outDir } : { kind: 'runTool', tool: 'quicklook', args: { image: file }, outDir };
      judge(tally, 'overviews', label, await runner.run(op), {
        names: [file], outDir, mustSucceed,
        frozen: [{ dir: inDir, before: frozenIn }, { dir: outside, before: outsideBefore }], tempRoots: [inDir, outDir],
      });
    };
    for (const name of ['cog.tif', 'addo.tif']) {
      const orig = fs.readFileSync(path.join(corpus, name));
      const chain = ifdChain(orig);
      const kindOf = (at: number) => ifdEntries(orig, at).find((e) => e.tag === 254)?.value ?? 0;
      const overviews = chain.filter((at) => (kindOf(at) & 1) === 1 && (kindOf(at) & 4) === 0);
      assert.ok(overviews.length >= 3, `${name}: ${overviews.length} overview IFDs`);
      await trial(`${name} intact`, orig, true);
      const rnd = mulberry32(name.length * 977);
      for (const [i, at] of overviews.entries()) {
        const tags = new Set(ifdEntries(orig, at).map((e) => e.tag));
        for (const [what, tag, change] of OVERVIEW_EDITS) {
          if (!tags.has(tag)) continue;
          await trial(`${name} overview ${i + 1}: ${what}`, patchEntry(Buffer.from(orig), tag, change, at), true);
        }
        // Its tiles: bits flipped (a DEFLATE/LZW stream that may still decode, to other values), or cut off.
        const offs = ifdEntries(orig, at).find((e) => e.tag === 324)!;
        const cnts = ifdEntries(orig, at).find((e) => e.tag === 325)!;
        const le = orig[0] === 0x49;
        const u32 = (o: number) => (le ? orig.readUInt32LE(o) : orig.readUInt32BE(o));
        const first = offs.count === 1 ? offs.value : u32(offs.value), len = cnts.count === 1 ? cnts.value : u32(cnts.value);
        for (let j = 0; j < 3; j++) {
          const b = Buffer.from(orig);
          for (let f = 0; f < 6; f++) b[first + Math.floor(rnd() * len)] ^= 1 << Math.floor(rnd() * 8);
          await trial(`${name} overview ${i + 1}: bits flipped in its first tile`, b, true);
        }
        // A COG keeps the overviews' tiles before the image's: cutting there cuts the image too.
        await trial(`${name} truncated in overview ${i + 1}'s first tile`, orig.subarray(0, first + Math.floor(len / 2)), name === 'addo.tif');
      }
      // The IFD chain looping back onto the image's IFD, and onto an overview's own.
      await trial(`${name} last IFD links back to the first`, patchNextIfd(Buffer.from(orig), chain[0], chain[chain.length - 1]), true);
      await trial(`${name} an overview IFD links to itself`, patchNextIfd(Buffer.from(orig), overviews[0], overviews[0]), true);
      // Overviews appended after the image (gdaladdo): cut inside their IFDs.
      if (name === 'addo.tif') for (const at of overviews) await trial(`${name} truncated in the IFD at ${at}`, orig.subarray(0, at + 7), true);
    }
    // A hostile `.ovr` beside an intact image: cut, bit-flipped, not a TIFF, empty, another image's.
    const ext = fs.readFileSync(path.join(corpus, 'ext.tif')), ovr = fs.readFileSync(path.join(corpus, 'ext.tif.ovr'));
    await trial('ext.tif with its .ovr', ext, true, ovr);
    const rnd = mulberry32(4242);
    for (const f of [0.001, 0.01, 0.3, 0.7, 0.999]) await trial(`ext.tif with its .ovr cut at ${f}`, ext, true, ovr.subarray(0, Math.floor(ovr.length * f)));
    for (let j = 0; j < 8; j++) {
      const b = Buffer.from(ovr);
      // The header and first IFD (the first 600 bytes) half the time, the tiles otherwise.
      for (let f = 0; f < 4; f++) b[j % 2 ? Math.floor(rnd() * 600) : 600 + Math.floor(rnd() * (b.length - 600))] ^= 1 << Math.floor(rnd() * 8);
      await trial(`ext.tif with its .ovr bit-flipped (${j % 2 ? 'header' : 'tiles'})`, ext, true, b);
    }
    await trial('ext.tif with a text .ovr', ext, true, Buffer.from('not overviews\n'));
    await trial('ext.tif with an empty .ovr', ext, true, Buffer.alloc(0));
    await trial('ext.tif with another image as its .ovr', ext, true, fs.readFileSync(path.join(corpus, 'cog.tif')));
    await trial('ext.tif with a larger image as its .ovr', ext, true, Buffer.concat([ext]));
  } finally {
    runner.close();
    console.log(tally.summary());
    const fails = tally.failures();
    if (fails.length) console.log(fails.slice(0, 20).map((f) => `${f.outcome}: ${f.input}: ${f.detail}`).join('\n'));
  }
  assert.ok(tally.trials.length >= 100, `only ${tally.trials.length} trials`);
  assert.deepEqual(tally.failures().map((f) => `${f.outcome}: ${f.input}: ${f.detail}`), []);
  fs.rmSync(root, { recursive: true, force: true });
});
