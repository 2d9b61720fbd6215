import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { deflateSync, inflateSync, constants as zc } from 'node:zlib';
import { codecStatus, deflateAddon, deflateBytes, inflateKnown } from '../../src/core/raster/io/native-deflate';
import { unpredictJs } from '../../src/core/raster/io/raw-tiles';
import { predictFloat32, predictInterleaved } from '../../src/core/raster/io/encode';
import { needGdal, py, readF64, tmpDir } from '../helpers/raster-gdal';

const MODULE = path.join(__dirname, '..', '..', 'src', 'core', 'raster', 'io', 'native-deflate.js');
const addon = deflateAddon();
/** CI builds the addon (GEOWEAVE_REQUIRE_NATIVE=1): there its absence is a failure, elsewhere a skip. */
const needAddon = () => (addon || process.env.GEOWEAVE_REQUIRE_NATIVE === '1' ? {} : { skip: `native DEFLATE addon not built: ${codecStatus()}` });

/** Byte equality whatever the view type (Buffer or Uint8Array). */
function sameBytes(actual: Uint8Array, expected: Uint8Array, what?: string): void {
  const a = Buffer.from(actual.buffer, actual.byteOffset, actual.byteLength), b = Buffer.from(expected.buffer, expected.byteOffset, expected.byteLength);
  assert.ok(a.equals(b), `${what ?? 'bytes'}: ${a.length} bytes, ${b.length} expected${a.length === b.length ? ', contents differ' : ''}`);
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

/** Inputs: empty, 1 byte, random, runs, a predicted-float-like ramp, text, and a 3 MB mix. */
function samples(): [string, Uint8Array][] {
  const r = rng(42);
  const random = new Uint8Array(200_003).map(() => (r() * 256) | 0);
  const runs = new Uint8Array(262_144);
  for (let i = 0; i < runs.length; i++) runs[i] = (i >> 9) % 7 === 0 ? 255 : 0;
  const ramp = new Uint8Array(new Float32Array(65_536).map((_, i) => Math.sin(i / 300) * 1000 + i * 0.01).buffer);
  const big = new Uint8Array(3 << 20);
  for (let i = 0; i < big.length; i++) big[i] = i % 1000 < 500 ? (r() * 16) | 0 : (i >> 12) & 255;
  return [
    ['empty', new Uint8Array(0)], ['1 byte', Uint8Array.of(7)], ['random', random], ['runs', runs],
    ['float ramp', ramp], ['text', Buffer.from('GeoWeave raster engine, tiled DEFLATE GeoTIFF. '.repeat(500))], ['3 MB mix', big],
  ];
}

test('addon: compress at every level -> Node zlib inflates the same bytes; output deterministic', needAddon(), () => {
  const a = addon!;
  assert.match(a.version, /^1\.\d+/);
  for (const [name, input] of samples()) {
    for (const level of name === '3 MB mix' ? [0, 1, 4, 6, 12] : [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]) {
      const out = new Uint8Array(a.deflateBound(level, input.length));
      const n = a.deflate(input, level, out);
      assert.ok(n > 0 && n <= out.length, `${name} level ${level}: ${n} bytes`);
      sameBytes(new Uint8Array(inflateSync(out.subarray(0, n))), input, `${name} level ${level}: zlib reads it back`);
      const again = new Uint8Array(out.length);
      assert.equal(a.deflate(input, level, again), n);
      sameBytes(again.subarray(0, n), out.subarray(0, n), `${name} level ${level}: same bytes twice`);
    }
  }
  // Compression actually compresses structured data (and level 0 stores).
  const runs = samples().find(([n]) => n === 'runs')![1];
  const out = new Uint8Array(a.deflateBound(6, runs.length));
  assert.ok(a.deflate(runs, 6, out) < runs.length / 50);
  assert.ok(a.deflate(runs, 0, new Uint8Array(a.deflateBound(0, runs.length))) > runs.length);
});

test('addon: Node zlib deflate (any level and strategy) -> addon inflate into the exact size', needAddon(), () => {
  const a = addon!;
  for (const [name, input] of samples()) {
    for (const opts of [{ level: 1, strategy: zc.Z_RLE, memLevel: 9 }, { level: 6 }, { level: 9 }, { level: 0 }]) {
      const z = deflateSync(input, opts);
      const out = new Uint8Array(input.length);
      assert.equal(a.inflate(z, out, true), input.length, `${name} ${JSON.stringify(opts)}`);
      sameBytes(out, input);
      const loose = new Uint8Array(input.length + 10);
      assert.equal(a.inflate(z, loose), input.length, 'without exact: the bytes written');
      sameBytes(loose.subarray(0, input.length), input);
    }
  }
});

test('addon: corrupt or truncated input and wrong sizes throw coded errors, never crash', needAddon(), () => {
  const a = addon!;
  const input = Buffer.from('0123456789abcdef'.repeat(4096));
  const z = deflateSync(input);
  const code = (c: string) => (e: unknown) => (e as { code?: string }).code === c;
  assert.throws(() => a.inflate(Uint8Array.of(1, 2, 3, 4, 5), new Uint8Array(100)), code('ERR_DEFLATE_BAD_DATA'));
  assert.throws(() => a.inflate(new Uint8Array(0), new Uint8Array(100)), code('ERR_DEFLATE_BAD_DATA'));
  assert.throws(() => a.inflate(z.subarray(0, z.length >> 1), new Uint8Array(input.length)), code('ERR_DEFLATE_BAD_DATA'));
  const flipped = Buffer.from(z); flipped[flipped.length - 1] ^= 0xff; // Adler-32 checksum
  assert.throws(() => a.inflate(flipped, new Uint8Array(input.length)), code('ERR_DEFLATE_BAD_DATA'));
  assert.throws(() => a.inflate(z, new Uint8Array(input.length - 1)), code('ERR_DEFLATE_OUTPUT_SIZE'));
  assert.throws(() => a.inflate(z, new Uint8Array(input.length + 1), true), code('ERR_DEFLATE_OUTPUT_SIZE'));
  assert.throws(() => a.deflate(input, 6, new Uint8Array(10)), code('ERR_DEFLATE_OUTPUT_SIZE'));
  assert.throws(() => a.deflate(input, 13, new Uint8Array(1 << 20)), RangeError);
  assert.throws(() => a.deflate(input, 1.5, new Uint8Array(1 << 20)), RangeError);
  assert.throws(() => a.inflate(new Float32Array(4) as unknown as Uint8Array, new Uint8Array(4)), TypeError);
  assert.throws(() => a.inflate('abc' as unknown as Uint8Array, new Uint8Array(4)), TypeError);
  assert.throws(() => (a.inflate as (...x: unknown[]) => number)(z), /needs input and output/);
});

test('inflateKnown: block of known size; short streams come back short, long ones cut, corrupt ones named', () => {
  const block = new Uint8Array(new Uint16Array(512 * 64).map((_, i) => (i * 37) & 0xfff).buffer);
  const z = deflateSync(block);
  sameBytes(inflateKnown(z, block.length), block);
  sameBytes(inflateKnown(z, block.length + 100), block, 'short stream: the bytes there are');
  sameBytes(inflateKnown(z, 1000), block.subarray(0, 1000), 'long stream: cut to the block');
  sameBytes(inflateKnown(z, 1000, false), block, 'cut = false: the whole stream');
  sameBytes(inflateKnown(z, 0, false), block, 'unknown size: the whole stream');
  assert.throws(() => inflateKnown(Uint8Array.of(0x78, 0x9c, 1, 2, 3), 100), /corrupt DEFLATE data/);
  const back = deflateBytes(block, { level: 6, zlib: { level: 6 } });
  assert.equal(back.byteOffset, 0);
  assert.equal(back.byteLength, back.buffer.byteLength, 'owns its ArrayBuffer (transferable)');
  sameBytes(new Uint8Array(inflateSync(back)), block);
});

test('addon unpredict equals the JavaScript predictor loops (2: 1/2/4-byte samples, 3: float32/float64; 1-4 samples per pixel; short last row ignored)', needAddon(), () => {
  const r = rng(9);
  for (const [predictor, bytes] of [[2, 1], [2, 2], [2, 4], [3, 4], [3, 8]] as [2 | 3, number][]) {
    for (const stride of [1, 2, 3, 4]) {
      const width = 37, rowBytes = width * stride * bytes;
      // 5 whole rows and a partial one (a short block): only whole rows are touched.
      const data = new Uint8Array(rowBytes * 5 + 3).map(() => (r() * 256) | 0);
      const js = data.slice(), native = data.slice();
      unpredictJs(js, predictor, rowBytes, stride, bytes);
      addon!.unpredict!(native, predictor, rowBytes, stride, bytes);
      sameBytes(native, js, `predictor ${predictor}, ${bytes}-byte samples, ${stride} per pixel`);
    }
  }
  // A float32 ramp through GDAL's predictor 3 encoding, undone by both, comes back exactly.
  const vals = new Float32Array(512).map((_, i) => Math.sin(i / 30) * 1000 + i * 0.5);
  const src = new Uint8Array(vals.buffer), n = vals.length, enc = new Uint8Array(n * 4);
  for (let i = 0; i < n; i++) for (let k = 0; k < 4; k++) enc[k * n + i] = src[i * 4 + (3 - k)];
  for (let i = enc.length - 1; i > 0; i--) enc[i] = (enc[i] - enc[i - 1]) & 255;
  const native = enc.slice(), js = enc.slice();
  addon!.unpredict!(native, 3, n * 4, 1, 4);
  unpredictJs(js, 3, n * 4, 1, 4);
  sameBytes(native, src, 'predictor 3 round trip (addon)');
  sameBytes(js, src, 'predictor 3 round trip (JavaScript)');
  assert.throws(() => addon!.unpredict!(new Uint8Array(8), 3, 8, 1, 2), /unsupported/);
  assert.throws(() => addon!.unpredict!(new Uint8Array(8), 2, 0, 1, 2), /rowBytes/);
  assert.throws(() => addon!.unpredict!('x' as unknown as Uint8Array, 2, 8, 1, 2), /Uint8Array/);
});

test('addon predict equals the JavaScript encoder loops (2 on 1/2/4-byte samples in place, 3 on float32 tiles) and unpredict undoes it', needAddon(), () => {
  const r = rng(11);
  const tile = 64;
  const vals = new Float32Array(tile * tile).map((_, i) => (r() < 0.1 ? NaN : Math.sin(i / 50) * 300 + r()));
  const js = new Uint8Array(tile * tile * 4), native = new Uint8Array(tile * tile * 4);
  predictFloat32(new Uint32Array(vals.buffer), tile, js);
  addon!.predict!(new Uint8Array(vals.buffer), native, 3, tile * 4, 4);
  sameBytes(native, js, 'predictor 3');
  addon!.unpredict!(native, 3, tile * 4, 1, 4);
  sameBytes(native, new Uint8Array(vals.buffer), 'predictor 3 undone');
  for (const [Ctor, bytes] of [[Uint8Array, 1], [Int16Array, 2], [Uint16Array, 2], [Int32Array, 4]] as [typeof Int16Array, number][]) {
    const a = new Ctor(tile * tile).map(() => Math.floor((r() - 0.5) * 2 ** (8 * bytes)));
    const jsA = a.slice(), nat = a.slice();
    for (let row = 0; row < tile; row++) for (let i = tile - 1; i > 0; i--) jsA[row * tile + i] = jsA[row * tile + i] - jsA[row * tile + i - 1];
    const nb = new Uint8Array(nat.buffer);
    addon!.predict!(nb, nb, 2, tile * bytes, bytes);
    sameBytes(nb, new Uint8Array(jsA.buffer), `predictor 2, ${Ctor.name}`);
    addon!.unpredict!(nb, 2, tile * bytes, 1, bytes);
    sameBytes(nb, new Uint8Array(a.buffer), `predictor 2 undone, ${Ctor.name}`);
  }
  assert.throws(() => addon!.predict!(new Uint8Array(8), new Uint8Array(8), 3, 8, 2), /unsupported/);
  const shared = new Uint8Array(16);
  assert.throws(() => addon!.predict!(shared, shared, 3, 16, 4), /overlap/);
});

test('addon huffman: Huffman-only zlib streams Node zlib reads back, deterministic, about the size of zlib Z_HUFFMAN_ONLY', needAddon(), () => {
  const a = addon!;
  assert.equal(typeof a.huffman, 'function');
  const r = rng(5);
  // Skewed bytes (long codes: the length limit is exercised), one value only, and sizes at the 65535-byte block edges.
  const geometric = new Uint8Array(1 << 20).map(() => { let v = 0; while (r() < 0.55 && v < 255) v++; return v; });
  const one = new Uint8Array(70_000).fill(9);
  const edges = [65_534, 65_535, 65_536, 131_070, 131_071].map((n) => [`${n} bytes`, new Uint8Array(n).map((_, i) => (i * 7 + (i >> 9)) & 31)] as [string, Uint8Array]);
  for (const [name, input] of [...samples(), ['geometric', geometric], ['one value', one], ...edges] as [string, Uint8Array][]) {
    const out = new Uint8Array(a.huffmanBound!(input.length));
    const n = a.huffman!(input, out);
    assert.ok(n > 0 && n <= out.length, `${name}: ${n} bytes`);
    sameBytes(new Uint8Array(inflateSync(out.subarray(0, n))), input, `${name}: zlib reads it back`);
    const again = new Uint8Array(out.length);
    assert.equal(a.huffman!(input, again), n);
    sameBytes(again.subarray(0, n), out.subarray(0, n), `${name}: same bytes twice`);
    // Never much larger than zlib's own Huffman-only coding (random data: stored blocks, never expanded).
    const z = deflateSync(input, { level: 1, strategy: zc.Z_HUFFMAN_ONLY, memLevel: 9 }).length;
    if (input.length > 100_000 && name !== 'runs' && name !== 'text' && name !== '3 MB mix') assert.ok(n <= z * 1.005, `${name}: ${n} bytes against zlib's ${z}`);
    assert.ok(n <= input.length + 6 + 6 * (Math.floor(input.length / 65_535) + 1), `${name}: ${n} bytes for ${input.length}`);
  }
  assert.throws(() => a.huffman!(geometric, new Uint8Array(100)), (e: Error & { code?: string }) => e.code === 'ERR_DEFLATE_OUTPUT_SIZE');
  // Through deflateBytes (the setting imagery tiles get): the same stream.
  const viaSetting = deflateBytes(geometric, { level: 1, zlib: { level: 1, strategy: zc.Z_HUFFMAN_ONLY }, preferZlib: true, own: 'huffman' });
  sameBytes(new Uint8Array(inflateSync(viaSetting)), geometric, 'deflateBytes with huffman');
});

test('addon huffman rle: run-length zlib streams Node zlib reads back, deterministic, about the size of zlib Z_RLE', needAddon(), () => {
  const a = addon!;
  assert.equal((a as { huffmanRle?: boolean }).huffmanRle, true);
  const r = rng(8);
  // Runs of every length around the match limits (3, 258), a run across the 65535-byte block edge, float planes.
  const runs = new Uint8Array(600_000);
  for (let i = 0; i < runs.length;) { const v = (r() * 4) | 0, l = 1 + ((r() * r() * 700) | 0); for (let k = 0; k < l && i < runs.length; k++) runs[i++] = v; }
  const across = new Uint8Array(140_000); across.fill(5, 65_000, 66_000); across.fill(9, 131_000, 131_100);
  const exact = new Uint8Array(2_000); for (let i = 0, v = 0; i < exact.length; v++) for (const l of [1, 2, 3, 4, 257, 258, 259, 516]) for (let k = 0; k < l && i < exact.length; k++) exact[i++] = v & 255;
  const vals = new Float32Array(512 * 512).map((_, i) => Math.sin(i / 3000) * 0.5 + r() * 0.05);
  const planes = new Uint8Array(vals.length * 4);
  a.predict!(new Uint8Array(vals.buffer), planes, 3, 512 * 4, 4);
  for (const [name, input] of [...samples(), ['runs', runs], ['across blocks', across], ['run lengths', exact], ['float planes', planes], ['zeros', new Uint8Array(300_000)]] as [string, Uint8Array][]) {
    const out = new Uint8Array(a.huffmanBound!(input.length));
    const n = a.huffman!(input, out, true);
    sameBytes(new Uint8Array(inflateSync(out.subarray(0, n))), input, `${name}: zlib reads it back`);
    const again = new Uint8Array(out.length);
    assert.equal(a.huffman!(input, again, true), n);
    sameBytes(again.subarray(0, n), out.subarray(0, n), `${name}: same bytes twice`);
    const z = deflateSync(input, { level: 1, strategy: zc.Z_RLE, memLevel: 9 }).length;
    if (input.length > 500_000) assert.ok(n <= z * 1.05 + 64, `${name}: ${n} bytes against zlib Z_RLE's ${z}`);
  }
  const viaSetting = deflateBytes(planes, { level: 1, zlib: { level: 1, strategy: zc.Z_RLE }, preferZlib: true, own: 'rle' });
  sameBytes(new Uint8Array(inflateSync(viaSetting)), planes, 'deflateBytes with rle');
});

test('addon predict with a stride equals predictInterleaved (2: 1/2/4-byte samples, 1-5 bands) and unpredict with the stride undoes it', needAddon(), () => {
  const r = rng(23);
  const tile = 40;
  for (const [Ctor, bytes] of [[Uint8Array, 1], [Int16Array, 2], [Uint16Array, 2], [Int32Array, 4]] as [typeof Int16Array, number][]) {
    for (let S = 1; S <= 5; S++) {
      const a = new Ctor(tile * tile * S).map(() => Math.floor((r() - 0.5) * 2 ** (8 * bytes)));
      const jsA = a.slice(), nat = a.slice();
      predictInterleaved(jsA as unknown as Uint16Array, tile * S, S);
      const nb = new Uint8Array(nat.buffer);
      addon!.predict!(nb, nb, 2, tile * S * bytes, bytes, S);
      sameBytes(nb, new Uint8Array(jsA.buffer), `${Ctor.name}, ${S} bands`);
      addon!.unpredict!(nb, 2, tile * S * bytes, S, bytes);
      sameBytes(nb, new Uint8Array(a.buffer), `${Ctor.name}, ${S} bands undone`);
    }
  }
  assert.throws(() => addon!.predict!(new Uint8Array(16), new Uint8Array(16), 3, 16, 4, 2), /unsupported/);
});

test('worker threads load the addon too', needAddon(), async () => {
  const code = `
    const { parentPort } = require('node:worker_threads');
    const m = require(${JSON.stringify(MODULE)});
    const input = Buffer.from('worker '.repeat(10000));
    const z = m.deflateBytes(input, { level: 6, zlib: { level: 6 } });
    parentPort.postMessage({ status: m.codecStatus(), ok: Buffer.from(m.inflateKnown(z, input.length)).equals(input) });`;
  const msg = await new Promise<{ status: string; ok: boolean }>((resolve, reject) => {
    const w = new Worker(code, { eval: true });
    w.once('message', resolve);
    w.once('error', reject);
  });
  assert.ok(msg.ok);
  assert.match(msg.status, /^libdeflate 1\./);
});

test('without the addon: Node zlib does the work and one line says why', () => {
  const script = `
    const m = require(${JSON.stringify(MODULE)});
    const input = Buffer.from('fallback '.repeat(10000));
    const z = m.deflateBytes(input, { level: 6, zlib: { level: 6 } });
    const ok = Buffer.from(m.inflateKnown(z, input.length)).equals(Buffer.from(require('node:zlib').inflateSync(z)));
    m.deflateBytes(input, { level: 1, zlib: { level: 1 } });
    console.log(JSON.stringify({ status: m.codecStatus(), ok, addon: m.deflateAddon() }));`;
  for (const env of [{ GEOWEAVE_DEFLATE_ADDON: '/nonexistent/geoweave_deflate.node' }, { GEOWEAVE_DEFLATE_ADDON: __filename }]) {
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, GEOWEAVE_DEFLATE: '', ...env } });
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.ok, true);
    assert.equal(out.addon, null);
    assert.match(out.status, /^Node's zlib \(.*did not load/);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0], /^geoweave: DEFLATE through Node's zlib, about 2x slower than the libdeflate addon: .*geoweave_deflate\.node|test\.js did not load/);
  }
  const off = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, GEOWEAVE_DEFLATE: 'zlib' } });
  assert.equal(off.status, 0, off.stderr);
  assert.match(JSON.parse(off.stdout).status, /GEOWEAVE_DEFLATE=zlib/);
  assert.equal(off.stderr, '', 'chosen on purpose: no warning');
});

test('GDAL reads tiles written with each DEFLATE setting (sparse mask, smooth field, noisy field), with and without the addon', needGdal(), async () => {
  const W = 700, H = 600;
  // The same generator runs here and in the writing child processes (too much data for a command line).
  const GEN = `(W, H) => {
    let s = 9; const r = () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
    const mask = new Float64Array(W * H).map((_, i) => ((i % W) - 350) ** 2 + (Math.floor(i / W) - 300) ** 2 < 150 ** 2 ? 1 : 0);
    const smooth = new Float64Array(W * H).map((_, i) => Math.hypot((i % W) - 200, Math.floor(i / W) - 100) * 10);
    const noisy = new Float64Array(W * H).map((_, i) => Math.sin(i / 50) + r() * 0.5);
    const grey = new Float64Array(W * H).map((_, i) => 128 + Math.round(60 * Math.sin((i % W) / 20) * Math.cos(Math.floor(i / W) / 30) + r() * 6));
    return [['mask', 'uint8', mask], ['smooth', 'float32', smooth], ['noisy', 'float32', noisy], ['grey', 'uint8', grey]];
  }`;
  const cases = (0, eval)(GEN)(W, H) as [string, 'uint8' | 'float32', Float64Array][];
  for (const codec of ['addon', 'zlib']) {
    const dir = tmpDir();
    const files = cases.map(([name]) => path.join(dir, `${name}.tif`));
    // Each codec in its own process, the way a run picks it up (GEOWEAVE_DEFLATE is read once per process).
    const script = `
      const { writeRaster } = require(${JSON.stringify(path.join(__dirname, '..', '..', 'src', 'core', 'raster', 'io', 'writer.js'))});
      const data = (${GEN})(${W}, ${H}).map(([, dtype, a]) => [dtype, a]);
      const files = ${JSON.stringify(files)};
      (async () => {
        for (let k = 0; k < files.length; k++) await writeRaster(files[k], { width: ${W}, height: ${H}, bands: 1, dtype: data[k][0], nodata: null, blockSize: 256,
          geo: { epsg: 32633, geographic: false, geoTransform: [500000, 10, 0, 5000000, 0, -10] } }, [data[k][1]]);
        console.log(require(${JSON.stringify(MODULE)}).codecStatus());
      })().catch((e) => { console.error(e); process.exit(1); });`;
    const env = { ...process.env, GEOWEAVE_DEFLATE: codec === 'zlib' ? 'zlib' : '' };
    const res = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env, maxBuffer: 1 << 26 });
    assert.equal(res.status, 0, res.stderr);
    if (codec === 'addon' && addon) assert.match(res.stdout, /^libdeflate/);
    if (codec === 'zlib') assert.match(res.stdout, /GEOWEAVE_DEFLATE=zlib/);
    for (let k = 0; k < cases.length; k++) {
      const dump = files[k] + '.f64';
      py(`from osgeo import gdal\nimport numpy as np\nd = gdal.Open(${JSON.stringify(files[k])})\nd.GetRasterBand(1).ReadAsArray().astype(np.float64).ravel().tofile(${JSON.stringify(dump)})`);
      const got = readF64(dump);
      const want = cases[k][2];
      let bad = 0;
      for (let i = 0; i < want.length; i++) if (got[i] !== (cases[k][1] === 'float32' ? Math.fround(want[i]) : want[i])) bad++;
      assert.equal(bad, 0, `${codec} ${cases[k][0]}: ${bad} pixels differ as GDAL reads them`);
    }
  }
});
