import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runTool } from '../../src/core/raster/engine';
import { BUILTIN_TOOLS } from '../../src/core/raster/tools/registry';
import type { BuiltinTool } from '../../src/core/raster/tools/types';
import { openRaster } from '../../src/core/raster/io/dataset';
import { writeRaster } from '../../src/core/raster/io/writer';
import { renderQuicklook } from '../../src/core/raster/quicklook';
import { tempPathFor, writeFileAtomic } from '../../src/core/raster/io/atomic-file';
import { parseGdalMetadata } from '../../src/core/raster/io/geoinfo';
import { gdalSkip, pyJson, tmpDir } from '../helpers/raster-gdal';
import { jpegFrameSize, lzwDecode, packbitsDecode } from '../../src/core/raster/io/safe-decoders';
import { mulberry32 } from '../../src/core/raster/algorithms/prng';
import { entry, patchEntry, patchNextIfd } from '../helpers/tiff-patch';

type GT = [number, number, number, number, number, number];
const GEO = { geoTransform: [500000, 10, 0, 4430000, 0, -10] as GT, epsg: 32650, geographic: false };

async function raster(file: string, w: number, h: number, value: (i: number) => number, geo = GEO): Promise<string> {
  await writeRaster(file, { width: w, height: h, bands: 1, dtype: 'float32', geo, nodata: null }, [Float32Array.from({ length: w * h }, (_, i) => value(i))]);
  return file;
}

/** Everything in a folder, hidden entries included (staging folders, temp files). */
const listing = (d: string) => (fs.existsSync(d) ? fs.readdirSync(d).sort() : []);

test('quicklooks of constant huge values, infinities and all-NaN data render (was: "Cannot read properties of undefined")', async () => {
  const dir = tmpDir();
  const cases: [string, number[]][] = [
    ['1e17', [1e17]], ['-1e30', [-1e30]], ['3e38', [3e38]], ['max float', [3.4028234663852886e38, -3.4028234663852886e38]],
    ['with infinities', [5, Infinity, -Infinity]], ['all NaN', [NaN]], ['tiny', [1e-40]],
  ];
  for (const kind of ['continuous', 'diverging', 'index', 'hillshade'] as const) {
    for (const [name, vals] of cases) {
      const data = Float32Array.from({ length: 64 * 48 }, (_, i) => vals[i % vals.length]);
      const png = path.join(dir, `${kind}-${name.replace(/\W/g, '_')}.png`);
      await renderQuicklook(png, data, 64, 48, { kind });
      assert.ok(fs.statSync(png).size > 100, `${kind} ${name}`);
    }
  }
  await renderQuicklook(path.join(dir, 'r.png'), new Float32Array(4).fill(1), 2, 2, { kind: 'continuous', range: [NaN, Infinity] });
});

test('band_math on a constant 1e17 raster writes its tif and quicklook; nothing is left when the run fails', async () => {
  const dir = tmpDir();
  const src = await raster(path.join(dir, 'huge.tif'), 60, 50, () => 1e17);
  const out = path.join(dir, 'out');
  const r = await runTool('band_math', { image: src, expression: 'b1 * 1' }, { outDir: out });
  assert.deepEqual(listing(out), ['huge_band_math.png', 'huge_band_math.qml', 'huge_band_math.tif']);
  assert.equal(r.quicklook, path.join(out, 'huge_band_math.png'));
  assert.ok(!/highest in the/.test(r.summary), r.summary);
});

/** Runs `tool` registered for the duration of `fn`. */
async function withTool<T>(tool: BuiltinTool, fn: () => Promise<T>): Promise<T> {
  BUILTIN_TOOLS.push(tool);
  try { return await fn(); } finally { BUILTIN_TOOLS.splice(BUILTIN_TOOLS.indexOf(tool), 1); }
}

test('runTool removes what a tool wrote when it throws (or is cancelled) after writing', async () => {
  const dir = tmpDir();
  const out = path.join(dir, 'out');
  fs.mkdirSync(out);
  fs.writeFileSync(path.join(out, 'earlier.txt'), 'kept');
  const abort = new AbortController();
  const writesThenFails: BuiltinTool = {
    id: 'test_writes_then_fails', params: { mode: { kind: 'string', required: true } },
    async run(ctx) {
      await writeRaster(path.join(ctx.outDir, 'x_result.tif'), { width: 8, height: 8, bands: 1, dtype: 'float32', geo: GEO }, [new Float32Array(64)]);
      fs.writeFileSync(path.join(ctx.outDir, 'x_table.csv'), 'a,b\n');
      if (ctx.args.mode === 'abort') { abort.abort(); throw new Error('aborted'); }
      throw new Error('test_writes_then_fails: failed after writing');
    },
  };
  await withTool(writesThenFails, async () => {
    await assert.rejects(runTool('test_writes_then_fails', { mode: 'throw' }, { outDir: out }), /failed after writing/);
    await assert.rejects(runTool('test_writes_then_fails', { mode: 'abort' }, { outDir: out, signal: abort.signal }), /aborted/);
  });
  assert.deepEqual(listing(out), ['earlier.txt']);
});

test('runTool refuses a tool output outside the output folder, and removes the staged files', async () => {
  const dir = tmpDir();
  const out = path.join(dir, 'out');
  const outside: BuiltinTool = {
    id: 'test_outside', params: {},
    async run(ctx) {
      fs.writeFileSync(path.join(ctx.outDir, 'inside.csv'), 'x\n');
      return { tool: 'test_outside', outputs: { t: { path: path.join(dir, 'elsewhere.tif'), type: 'raster' } }, stats: {}, summary: '' };
    },
  };
  await withTool(outside, () => assert.rejects(runTool('test_outside', {}, { outDir: out }), /output ".*elsewhere\.tif" is outside the output folder/));
  assert.deepEqual(listing(out), []);
});

test('slope, aspect and hillshade on an all-NaN DEM fail naming "dem" and leave no output', async () => {
  const dir = tmpDir();
  const dem = await raster(path.join(dir, 'nan_dem.tif'), 40, 30, () => NaN);
  const out = path.join(dir, 'out');
  for (const tool of ['slope', 'aspect', 'hillshade']) {
    await assert.rejects(runTool(tool, { dem }, { outDir: out }), (e: Error) => /argument "dem"/.test(e.message) && e.message.includes(dem), tool);
    assert.deepEqual(listing(out), [], `${tool} left files`);
  }
});

test('a header claiming 4294967295×4294967295 pixels is refused naming the file; no temp file is left', async () => {
  const dir = tmpDir();
  const src = await raster(path.join(dir, 'ok.tif'), 16, 16, (i) => i);
  const b = fs.readFileSync(src);
  patchEntry(b, 256, { value: 4294967295 });
  patchEntry(b, 257, { value: 4294967295 });
  const bad = path.join(dir, 'giant.tif');
  fs.writeFileSync(bad, b);
  const out = path.join(dir, 'out');
  for (const tool of ['ndvi', 'band_math', 'slope', 'raster_stats']) {
    const args = tool === 'slope' ? { dem: bad } : tool === 'band_math' ? { image: bad, expression: 'b1' } : tool === 'ndvi' ? { image: bad, red: 1, nir: 1 } : { image: bad };
    await assert.rejects(runTool(tool, args, { outDir: out }), (e: Error) => e.message.includes(bad) && /4294967295x4294967295 pixels is larger than GeoWeave processes/.test(e.message), tool);
  }
  assert.deepEqual(listing(out), []);
  assert.deepEqual(listing(dir).filter((f) => f.includes('.tmp')), []);
});

test('1×1e9 and 1e9×1 images are refused at once, by size', async () => {
  const dir = tmpDir();
  const src = await raster(path.join(dir, 'ok.tif'), 16, 16, (i) => i);
  for (const [w, h] of [[1, 1e9], [1e9, 1], [200_000, 20]]) {
    const b = fs.readFileSync(src);
    patchEntry(b, 256, { value: w }); patchEntry(b, 257, { value: h });
    const f = path.join(dir, `${w}x${h}.tif`);
    fs.writeFileSync(f, b);
    const t0 = Date.now();
    await assert.rejects(openRaster(f), new RegExp(`${w}x${h} pixels is larger than GeoWeave processes`));
    assert.ok(Date.now() - t0 < 1000);
  }
});

test('hostile TIFF structure: counts past the end, short offset arrays, IFD loops, broken GeoKeys, zero pixel size', async () => {
  const dir = tmpDir();
  const src = await raster(path.join(dir, 'ok.tif'), 40, 24, (i) => i % 97);
  const variant = (name: string, edit: (b: Buffer) => void) => {
    const b = fs.readFileSync(src);
    edit(b);
    const f = path.join(dir, name);
    fs.writeFileSync(f, b);
    return f;
  };
  // A tile-offset count of a billion in a file of a few kB: refused before anything is allocated.
  const billion = variant('billion.tif', (b) => patchEntry(b, 324, { count: 1e9 }));
  await assert.rejects(openRaster(billion), /billion\.tif: cannot read TIFF structure \(IFD entry TileOffsets declares 1000000000 values .* past the end of the file/);
  // Fewer offsets than tiles.
  const short = variant('short.tif', (b) => { patchEntry(b, 256, { value: 4000 }); });
  await assert.rejects(openRaster(short), /short\.tif: .*TileOffsets has 1 entry but the 4000x24 image in 512x512 blocks needs 8/);
  // A tile byte count larger than the file.
  const fat = variant('fat.tif', (b) => { patchEntry(b, 325, { value: 1 << 30 }); });
  const out = path.join(dir, 'out');
  await assert.rejects(runTool('raster_stats', { image: fat }, { outDir: out }), (e: Error) => e.message.includes(fat) && /past the end of the file/.test(e.message));
  // The next-IFD link pointing at itself: the first image is all that is read.
  const loop = variant('loop.tif', (b) => patchNextIfd(b, b.readUInt32LE(4)));
  const ds = await openRaster(loop);
  try { assert.equal((await ds.readWindow(1, 0, 0, 40, 24))[96], 96 % 97); } finally { await ds.close(); }
  // A GeoKeyDirectory claiming more keys than it holds: the keys present are read, the CRS kept.
  const keys = variant('keys.tif', (b) => {
    const e = entry(b, 34735);
    const at = e.count * 2 > 4 ? e.value : e.at + 8;
    b.writeUInt16LE(500, at + 6);
  });
  const dk = await openRaster(keys);
  try { assert.equal(dk.geo.epsg, 32650); } finally { await dk.close(); }
  // Zero and non-finite pixel sizes: refused naming the tag (was "NaN% … in the undefined").
  const zero = await raster(path.join(dir, 'zero.tif'), 20, 20, (i) => i % 2, { ...GEO, geoTransform: [500000, 0, 0, 4430000, 0, 0] });
  await assert.rejects(runTool('connected_patches', { image: zero }, { outDir: out }), /zero\.tif: .*pixel size from ModelTiepoint\/ModelPixelScale is zero/);
  const inf = variant('inf.tif', (b) => { const e = entry(b, 33550); b.writeDoubleLE(Infinity, e.value); });
  await assert.rejects(openRaster(inf), /inf\.tif: .*geotransform from ModelTiepoint\/ModelPixelScale is not finite/);
  assert.deepEqual(listing(out), []);
});

test('file:// and other non-http URLs are refused by name; non-TIFF files are named, not echoed', async () => {
  const dir = tmpDir();
  await assert.rejects(openRaster('file:///etc/hostname'), /file:\/\/\/etc\/hostname: file:\/\/ URLs are not read; give a local path \(the part after file:\/\/\)/);
  await assert.rejects(openRaster('ftp://example.com/x.tif'), /ftp:\/\/ URLs are not read/);
  const secret = path.join(dir, 'secret.tif');
  fs.writeFileSync(secret, 'root:$6$saltsalt$hash:19000:0:99999:7:::\n');
  await assert.rejects(openRaster(secret), (e: Error) => /not a TIFF file \(it looks like text\)/.test(e.message) && !/726f6f74|root/.test(e.message));
});

test('GDAL_METADATA with 100,000 unclosed items parses in linear time', () => {
  const xml = '<GDALMetadata>' + '<Item name="DESCRIPTION" sample="0" role="description">x'.repeat(100_000);
  const t0 = Date.now();
  parseGdalMetadata(xml, 1);
  parseGdalMetadata('<GDALMetadata><Item sample="0" role="description">ok</Item>' + '<Item '.repeat(200_000), 1);
  assert.ok(Date.now() - t0 < 1000, `${Date.now() - t0} ms`);
  assert.equal(parseGdalMetadata('<Item name="D" sample="0" role="description">red &amp;amp; nir</Item>', 1)[0].description, 'red & nir');
});

test('temp files have random names and never follow a planted link', async () => {
  const dir = tmpDir();
  const a = tempPathFor(path.join(dir, 'x.png')), b = tempPathFor(path.join(dir, 'x.png'));
  assert.notEqual(a, b);
  assert.match(path.basename(a), /^x\.png\.tmp-[0-9a-f]{24}$/);
  // The old quicklook temp name was "<png>.tmp-<pid>": a link planted there must not be followed.
  const victim = path.join(dir, 'victim.txt');
  fs.writeFileSync(victim, 'precious');
  const out = path.join(dir, 'out');
  fs.mkdirSync(out);
  const src = await raster(path.join(dir, 'img.tif'), 20, 20, (i) => i);
  for (const name of ['img_band_math.png', 'img_band_math.qml', 'img_band_math.tif']) {
    fs.symlinkSync(victim, path.join(out, `${name}.tmp-${process.pid}`));
  }
  // A link at the final name is replaced, not written through.
  fs.symlinkSync(victim, path.join(out, 'img_band_math.png'));
  await runTool('band_math', { image: src, expression: 'b1 + 1' }, { outDir: out });
  assert.equal(fs.readFileSync(victim, 'utf8'), 'precious');
  assert.ok(!fs.lstatSync(path.join(out, 'img_band_math.png')).isSymbolicLink());
  await writeFileAtomic(path.join(out, 'img_band_math.png'), 'data');
  assert.equal(fs.readFileSync(victim, 'utf8'), 'precious');
});

test('staging folders left by a killed run are removed by the next run', async () => {
  const dir = tmpDir();
  const out = path.join(dir, 'out');
  const src = await raster(path.join(dir, 'img.tif'), 20, 20, (i) => i);
  const script = `
    const { runTool } = require(${JSON.stringify(path.resolve(__dirname, '../../src/core/raster/engine.js'))});
    const { BUILTIN_TOOLS } = require(${JSON.stringify(path.resolve(__dirname, '../../src/core/raster/tools/registry.js'))});
    BUILTIN_TOOLS.push({ id: 'hang', params: {}, async run(ctx) {
      require('fs').writeFileSync(require('path').join(ctx.outDir, 'partial.tif'), 'x');
      process.kill(process.pid, 'SIGKILL');
    } });
    runTool('hang', {}, { outDir: ${JSON.stringify(out)} });`;
  const r = spawnSync(process.execPath, ['-e', script], { timeout: 20_000 });
  assert.equal(r.signal, 'SIGKILL');
  assert.equal(listing(out).filter((f) => f.startsWith('.geoweave-run-')).length, 1, 'the killed run left its staging folder');
  await runTool('band_math', { image: src, expression: 'b1' }, { outDir: out });
  assert.deepEqual(listing(out), ['img_band_math.png', 'img_band_math.qml', 'img_band_math.tif']);
});

test('resample: an upsampling that would exceed the output bound is refused with the smallest usable factor', async () => {
  const dir = tmpDir();
  const src = await raster(path.join(dir, 'big.tif'), 1000, 700, (i) => i % 13);
  const out = path.join(dir, 'out');
  const t0 = Date.now();
  await assert.rejects(runTool('resample', { image: src, factor: 0.02 }, { outDir: out }),
    /resample: argument "factor"=0\.02 would make a 50000×35000 output from the 1000×700 .*big\.tif; outputs are limited to 268435456 pixels and 65536 on a side, so use factor ≥ 0\.06/);
  assert.ok(Date.now() - t0 < 2000);
  assert.deepEqual(listing(out), []);
  const ok = await runTool('resample', { image: src, factor: 0.5 }, { outDir: out });
  assert.equal(ok.stats.width, 2000);
});

test('argument names are own properties only: constructor, __proto__, toString are unknown arguments', async () => {
  const out = path.join(tmpDir(), 'out');
  for (const k of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
    const args = JSON.parse(`{"image": "x.tif", ${JSON.stringify(k)}: "x"}`);
    await assert.rejects(runTool('ndvi', args, { outDir: out }), new RegExp(`ndvi: unknown argument "${k}"; ndvi takes`), k);
  }
  await assert.rejects(runTool('ndvi', { image: '{"__proto__": "a.tif", "red": "b.tif"}' }, { outDir: out }), /argument "image" maps the unknown band role "__proto__"; roles are blue, green, red/);
  assert.deepEqual(listing(out), []);
});

test('block decoders stop at the block size: LZW garbage, PackBits runs, oversized JPEG frames', () => {
  const rnd = mulberry32(99);
  const garbage = Uint8Array.from({ length: 200_000 }, () => Math.floor(rnd() * 256));
  const t0 = Date.now();
  for (let k = 0; k < 20; k++) {
    const slice = garbage.subarray(k * 1000);
    try { assert.ok(lzwDecode(slice, 4096).length <= 4096); } catch (e) { assert.match((e as Error).message, /corrupt LZW data/); }
  }
  // 100,000 runs of 128 bytes would be 12.8 MB: the output stops at the block.
  const runs = new Uint8Array(200_000);
  for (let i = 0; i < runs.length; i += 2) { runs[i] = 0x81; runs[i + 1] = 7; }
  const pb = packbitsDecode(runs, 1000);
  assert.equal(pb.length, 1000);
  assert.ok(pb.every((v) => v === 7));
  assert.ok(Date.now() - t0 < 2000);
  const sof = Uint8Array.from([0xff, 0xd8, 0xff, 0xdb, 0, 4, 0, 0, 0xff, 0xc0, 0, 11, 8, 0xff, 0xf0, 0x7f, 0xff, 1, 1, 0x11, 0]);
  assert.deepEqual(jpegFrameSize(sof), { height: 65520, width: 32767 });
});

test('a truncated or corrupt ZSTD tile fails naming the file instead of hanging', { skip: gdalSkip('ZSTD tiles') }, async () => {
  const dir = tmpDir();
  const [src] = pyJson(String.raw`
import sys, json
from osgeo import gdal
import numpy as np
f = sys.argv[1] + '/z.tif'
d = gdal.GetDriverByName('GTiff').Create(f, 48, 40, 2, gdal.GDT_UInt16, ['TILED=YES', 'BLOCKXSIZE=16', 'BLOCKYSIZE=16', 'COMPRESS=ZSTD', 'PREDICTOR=2'])
for b in range(2): d.GetRasterBand(b + 1).WriteArray(np.add.outer(np.arange(40), np.arange(48)) * (b + 1) + 1)
d = None
print(json.dumps([f]))`, dir);
  const bytes = fs.readFileSync(src);
  const cut = path.join(dir, 'cut.tif');
  fs.writeFileSync(cut, bytes.subarray(0, bytes.length - 1));
  const script = `require(${JSON.stringify(path.resolve(__dirname, '../../src/core/raster/io/dataset.js'))}).openRaster(process.argv[1])
    .then((d) => d.readWindow(1, 0, 0, d.width, d.height)).then(() => console.log('read'), (e) => console.log(e.message))`;
  const r = spawnSync(process.execPath, ['-e', script, cut], { encoding: 'utf8', timeout: 20_000 });
  assert.equal(r.signal, null, 'timed out: the ZSTD decoder looped');
  assert.match(r.stdout, /cut\.tif: cannot decode band 1 .*corrupt ZSTD block/);
});
