/**
 * Hostile GDAL virtual rasters: a gdalbuildvrt mosaic (ComplexSources with nodata, fractional
 * DstRects from mixed resolutions), a -separate band stack and a gdal_translate -scale -ot Byte VRT,
 * each truncated, bit-flipped and with attributes set to values no writer uses; sources that are
 * directories, devices, FIFOs, missing, text, huge sparse files or cut TIFFs; VRTs that list
 * themselves, chains past the depth limit, fan-outs, 20 000 sources, files at and over the size limit.
 * Each VRT goes through a tool in a child process; the trial passes when the tool succeeds with only
 * its reported outputs, or fails naming the VRT with nothing left behind, within its time bound and
 * memory limit.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { Tally } from './tally';
import { TrialRunner, judge, emptyDir, fingerprint, Op } from './harness';
import { mulberry32 } from '../../src/core/raster/algorithms/prng';

const BASES = String.raw`
import sys, os
from osgeo import gdal, osr
import numpy as np
gdal.UseExceptions()
os.chdir(sys.argv[1])
srs = osr.SpatialReference(); srs.ImportFromEPSG(32633)
def mk(name, x0, y0, w, h, res, seed):
    d = gdal.GetDriverByName('GTiff').Create(name, w, h, 1, gdal.GDT_UInt16, ['TILED=YES', 'BLOCKXSIZE=16', 'BLOCKYSIZE=16', 'COMPRESS=DEFLATE'])
    d.SetGeoTransform((x0, res, 0, y0, 0, -res)); d.SetProjection(srs.ExportToWkt())
    a = np.random.default_rng(seed).integers(1, 4000, (h, w)).astype(np.uint16); a[:4, :6] = 0
    d.GetRasterBand(1).WriteArray(a); d.GetRasterBand(1).SetNoDataValue(0); d = None
mk('a.tif', 500000, 4000000, 48, 40, 30, 1)
# 45 m pixels beside 30 m ones: gdalbuildvrt's average resolution gives both sources fractional DstRects.
mk('b.tif', 500995, 3999490, 32, 28, 45, 2)
gdal.BuildVRT('mosaic.vrt', ['a.tif', 'b.tif'])
gdal.BuildVRT('stack.vrt', ['a.tif', 'b.tif'], options=gdal.BuildVRTOptions(separate=True))
gdal.Translate('scaled.vrt', 'a.tif', format='VRT', outputType=gdal.GDT_Byte, scaleParams=[[0, 4000, 0, 255]])
`;

function opFor(k: number, file: string, outDir: string): Op {
  const ops: Op[] = [
    { kind: 'runTool', tool: 'raster_info', args: { image: file }, outDir },
    { kind: 'runTool', tool: 'raster_stats', args: { image: file }, outDir },
    { kind: 'runTool', tool: 'quicklook', args: { image: file }, outDir },
    { kind: 'read', file },
    { kind: 'runTool', tool: 'band_math', args: { image: file, expression: 'b1 * 2 + 1' }, outDir },
    { kind: 'runTool', tool: 'clip_bbox', args: { image: file, bbox: [-1e9, -1e9, 1e9, 1e9] }, outDir },
  ];
  return ops[k % ops.length];
}

type Edit = (xml: string) => string | null;
/** The first `el`'s attribute set to `v` (null when the base has no such attribute). */
const attr = (el: string, name: string, v: string): Edit => (x) => {
  const re = new RegExp(`(<${el}\\b[^>]*?\\s${name}=")[^"]*(")`);
  return re.test(x) ? x.replace(re, (_m, a: string, b: string) => a + v + b) : null;
};
/** The first `<el>`'s text set to `v`. */
const textOf = (el: string, v: string): Edit => (x) => {
  const re = new RegExp(`(<${el}>)[^<]*(</${el}>)`);
  return re.test(x) ? x.replace(re, (_m, a: string, b: string) => a + v + b) : null;
};

/** [what, edit, must fail (the parser alone refuses it)]. */
const EDITS: [string, Edit, boolean?][] = [
  ...['0', '-1', '-2147483648', 'abc', '', '1.5', 'NaN', 'Infinity', '1e400'].map((v): [string, Edit, boolean] => [`rasterXSize "${v}"`, attr('VRTDataset', 'rasterXSize', v), true]),
  ...['1e12', '2147483648', '2147483647', '200000', '0x10', ' 48 '].map((v): [string, Edit] => [`rasterXSize "${v}"`, attr('VRTDataset', 'rasterXSize', v)]),
  ...['0', '-5', 'NaN'].map((v): [string, Edit, boolean] => [`rasterYSize "${v}"`, attr('VRTDataset', 'rasterYSize', v), true]),
  ...['1e12', '4294967296', '1'].map((v): [string, Edit] => [`rasterYSize "${v}"`, attr('VRTDataset', 'rasterYSize', v)]),
  // Source and destination rectangles: not numbers, not finite, empty or negative (refused), and finite but absurd.
  ...(['SrcRect', 'DstRect'] as const).flatMap((el) => [
    ...[['xOff', 'NaN'], ['xOff', 'Infinity'], ['yOff', '-inf'], ['xSize', '-48'], ['xSize', '0'], ['ySize', 'NaN'], ['ySize', '1e400'], ['xSize', 'x']]
      .map(([a, v]): [string, Edit, boolean] => [`${el} ${a} "${v}"`, attr(el, a, v), true]),
    ...[['xOff', '1e300'], ['xOff', '-1e300'], ['yOff', '2147483647'], ['xSize', '1e-300'], ['ySize', '1e-300'], ['xSize', '1e300'], ['xSize', '1e-9'], ['ySize', '2147483648'], ['yOff', '-1e9']]
      .map(([a, v]): [string, Edit] => [`${el} ${a} "${v}"`, attr(el, a, v)]),
  ]),
  ...['0', '-1', 'mask,1', 'mask', '1.5', 'abc', ''].map((v): [string, Edit, boolean] => [`SourceBand "${v}"`, textOf('SourceBand', v), true]),
  ...['99999', '2', '9007199254740993'].map((v): [string, Edit] => [`SourceBand "${v}"`, textOf('SourceBand', v)]),
  ...['nan', 'NaN', '-inf', '1e38', '-1e38', '65536', '-1', '1.5', '4e9'].map((v): [string, Edit] => [`NoDataValue "${v}"`, textOf('NoDataValue', v)]),
  ...['1e400', 'abc', '', '0x', '--1'].map((v): [string, Edit, boolean] => [`NoDataValue "${v}"`, textOf('NoDataValue', v), v !== '']),
  ...['nan', '1e400', 'abc', '-1e308'].map((v): [string, Edit, boolean] => [`NODATA "${v}"`, textOf('NODATA', v), v === 'abc']),
  ...['1e400', 'NaN', 'inf'].map((v): [string, Edit, boolean] => [`ScaleRatio "${v}"`, textOf('ScaleRatio', v), true]),
  ...['1e308', '-1', '0', '1e-320'].map((v): [string, Edit] => [`ScaleRatio "${v}"`, textOf('ScaleRatio', v)]),
  ...['Bogus', '', 'CInt16', 'Int64', 'UInt64', 'Float16', 'byte', '__proto__', 'constructor'].map((v): [string, Edit, boolean] => [`dataType "${v}"`, attr('VRTRasterBand', 'dataType', v), true]),
  ...['0', '2', '-1', 'abc'].map((v): [string, Edit, boolean] => [`band "${v}"`, attr('VRTRasterBand', 'band', v), true]),
  ...['0', '-1', '1e-300', '0.5', '1e300', 'abc'].map((v): [string, Edit] => [`blockXSize and blockYSize "${v}"`, (x) => attr('VRTRasterBand', 'blockYSize', v)(attr('VRTRasterBand', 'blockXSize', v)(x.replace(/<VRTRasterBand (?![^>]*blockXSize)/, '<VRTRasterBand blockXSize="16" blockYSize="16" '))!)]),
  ...['0', '1e12', '-3'].map((v): [string, Edit] => [`SourceProperties RasterXSize "${v}"`, attr('SourceProperties', 'RasterXSize', v)]),
  ['GeoTransform of NaNs', textOf('GeoTransform', 'NaN,NaN,0,NaN,0,NaN'), true], ['GeoTransform with a zero pixel size', textOf('GeoTransform', '0,0,0,0,0,0'), true],
  ['GeoTransform 1e308', textOf('GeoTransform', '1e308,1e308,0,-1e308,0,-1e308')], ['GeoTransform of five numbers', textOf('GeoTransform', '1,2,3,4,5'), true],
  ['SRS that is not one', textOf('SRS', 'nonsense')], ['SRS of an unknown EPSG code', textOf('SRS', 'EPSG:999999')],
  ['SRS of 200000 characters', textOf('SRS', 'PROJCS['.repeat(28_000))],
  ['a derived band', (x) => x.replace('<VRTRasterBand ', '<VRTRasterBand subClass="VRTDerivedRasterBand" '), true],
  ['a warped dataset', (x) => x.replace('<VRTDataset ', '<VRTDataset subClass="VRTWarpedDataset" '), true],
  ['cubic resampling', (x) => x.replace(/<(Simple|Complex)Source>/, '<$1Source resampling="cubic">'), true],
  ['a LUT', (x) => x.replace('</SourceBand>', '</SourceBand><LUT>0:0,1:1</LUT>').replace(/<SimpleSource>([\s\S]*?)<\/SimpleSource>/, '<ComplexSource>$1</ComplexSource>'), true],
  ['a /vsicurl/ source', textOf('SourceFilename', '/vsicurl/http://127.0.0.1:9/a.tif'), true],
  ['an empty source name', textOf('SourceFilename', ''), true],
  ['a source name of 5000 characters', textOf('SourceFilename', 'x'.repeat(5000))],
  ['a source path up the tree', textOf('SourceFilename', '../'.repeat(40) + 'etc/passwd')],
  ['a source path with a NUL reference', textOf('SourceFilename', 'a.tif&#0;.x')],
  ['no bands', (x) => x.replace(/<VRTRasterBand[\s\S]*<\/VRTRasterBand>/, ''), true],
  ['a GCPList', (x) => x.replace('<VRTRasterBand', '<GCPList><GCP Id="1" Pixel="0" Line="0" X="1" Y="2"/></GCPList><VRTRasterBand'), true],
  ['5000 empty bands', (x) => x.replace(/<VRTRasterBand[\s\S]*<\/VRTRasterBand>/, Array.from({ length: 5000 }, (_, i) => `<VRTRasterBand dataType="Byte" band="${i + 1}"/>`).join(''))],
];

test('VRT abuse: truncated, bit-flipped and hostile-attribute VRTs, hostile sources, self-reference, depth, size', { timeout: 900_000 }, async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-abuse-vrt-'));
  const corpus = path.join(root, 'corpus'), inDir = path.join(root, 'in'), outDir = path.join(root, 'out'), outside = path.join(root, 'outside');
  // Hostile sources live here, outside inDir: hashing an 8 GB sparse file per trial would take minutes.
  const special = path.join(root, 'special');
  fs.mkdirSync(corpus); fs.mkdirSync(outside); fs.mkdirSync(special);
  fs.writeFileSync(path.join(outside, 'victim.txt'), 'must not change');
  const outsideBefore = fingerprint(outside);
  const tally = new Tally();
  const runner = new TrialRunner(Number(process.env.GEOWEAVE_ABUSE_TIMEOUT_MS) || 20_000);
  const t0 = Date.now();
  try {
    const py = spawnSync('/usr/bin/python3', ['-c', BASES, corpus], { encoding: 'utf8' });
    if (py.status !== 0) {
      if (process.env.CI) assert.fail(`GDAL is required in CI: ${py.stderr}`);
      return;
    }
    const tifs = ['a.tif', 'b.tif'].map((n) => [n, fs.readFileSync(path.join(corpus, n))] as const);
    let k = 0;
    const trial = async (label: string, vrt: string | Buffer, opts: { mustFail?: boolean; mustSucceed?: boolean; extra?: [string, string | Buffer][]; op?: (file: string) => Op } = {}) => {
      emptyDir(inDir); emptyDir(outDir);
      for (const [n, b] of tifs) fs.writeFileSync(path.join(inDir, n), b);
      for (const [n, b] of opts.extra ?? []) fs.writeFileSync(path.join(inDir, n), b);
      const file = path.join(inDir, 'hostile.vrt');
      fs.writeFileSync(file, vrt);
      const frozenIn = fingerprint(inDir);
      const r = await runner.run(opts.op?.(file) ?? opFor(k++, file, outDir));
      judge(tally, 'vrt', label, r, {
        names: [file], outDir, mustFail: opts.mustFail, mustSucceed: opts.mustSucceed,
        frozen: [{ dir: inDir, before: frozenIn }, { dir: outside, before: outsideBefore }],
        tempRoots: [inDir, outDir],
      });
    };
    const tool = (name: string) => (file: string): Op => (name === 'read' ? { kind: 'read', file } : { kind: 'runTool', tool: name, args: { image: file }, outDir });
    const PIXEL_TOOLS = ['raster_stats', 'quicklook', 'read'];

    for (const name of ['mosaic.vrt', 'stack.vrt', 'scaled.vrt']) {
      const orig = fs.readFileSync(path.join(corpus, name), 'utf8');
      const rnd = mulberry32([...name].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 13));
      for (let rep = 0; rep < 6; rep++) await trial(`${name} intact (${rep + 1})`, orig, { mustSucceed: true });

      // Cut short anywhere: inside the root tag, an attribute, the SRS, a source, the closing tags.
      const cuts = [0, 1, 7, 11, 12, orig.indexOf('<SRS') + 30, orig.indexOf('<GeoTransform') + 40, orig.indexOf('<SrcRect') + 20, orig.lastIndexOf('</VRTRasterBand>'), orig.length - 2];
      for (let j = 0; j < 14; j++) cuts.push(Math.floor(rnd() * orig.length));
      for (const at of cuts) await trial(`${name} truncated at ${at}`, Buffer.from(orig).subarray(0, at));

      // Bits flipped: anywhere, and inside the numbers the window arithmetic uses.
      const nums = [...orig.matchAll(/(?:xOff|yOff|xSize|ySize|rasterXSize|rasterYSize)="([^"]*)"/g)].map((m) => m.index! + m[0].indexOf('"') + 1);
      for (let j = 0; j < 24; j++) {
        const b = Buffer.from(orig);
        const flips: number[] = [];
        for (let f = 0; f < 1 + Math.floor(rnd() * 4); f++) {
          const at = j % 2 ? Math.floor(rnd() * b.length) : nums[Math.floor(rnd() * nums.length)] + Math.floor(rnd() * 3);
          b[at] ^= 1 << Math.floor(rnd() * 8); flips.push(at);
        }
        await trial(`${name} bits flipped at ${flips.join(',')}`, b);
      }

      for (const [what, edit, mustFail] of EDITS) {
        const x = edit(orig);
        if (x !== null && x !== orig) await trial(`${name} ${what}`, x, { mustFail });
      }
    }

    // Sources no raster is made of. Each goes through the tools that read pixels (opening alone reads no source).
    const mosaic = fs.readFileSync(path.join(corpus, 'mosaic.vrt'), 'utf8');
    // Without SourceProperties: a VRT source is not the 48×40 a.tif they describe.
    const withSource = (p: string, rel = false) => mosaic.replace(/<SourceProperties[^>]*>/g, '').replace('<SourceFilename relativeToVRT="1">a.tif</SourceFilename>', `<SourceFilename relativeToVRT="${rel ? 1 : 0}">${p}</SourceFilename>`);
    fs.mkdirSync(path.join(special, 'dir.tif'));
    fs.writeFileSync(path.join(special, 'text.tif'), 'a text file, not a raster\n'.repeat(50));
    fs.writeFileSync(path.join(special, 'empty.tif'), '');
    fs.writeFileSync(path.join(special, 'sparse.tif'), ''); fs.truncateSync(path.join(special, 'sparse.tif'), 8 * 2 ** 30);
    // A TIFF header and 8 GB of zeros: its first IFD is at 0.
    fs.writeFileSync(path.join(special, 'sparse-ii.tif'), Buffer.from('II*\0\x08\0\0\0', 'latin1')); fs.truncateSync(path.join(special, 'sparse-ii.tif'), 8 * 2 ** 30);
    const a = tifs[0][1];
    fs.writeFileSync(path.join(special, 'cut.tif'), a.subarray(0, Math.floor(a.length * 0.8)));
    const flipped = Buffer.from(a);
    for (let i = a.length - 600; i < a.length; i += 7) flipped[i] ^= 0x5a;
    fs.writeFileSync(path.join(special, 'flipped.tif'), flipped);
    fs.symlinkSync('loop.tif', path.join(special, 'loop.tif'));
    const fifo = spawnSync('mkfifo', [path.join(special, 'fifo.tif')]).status === 0;
    const sources: [string, string][] = [
      ['a directory', path.join(special, 'dir.tif')], ['/dev/zero', '/dev/zero'], ['/dev/stdin', '/dev/stdin'], ['/proc/self/mem', '/proc/self/mem'],
      ['a missing file', path.join(special, 'nowhere.tif')], ['a text file', path.join(special, 'text.tif')], ['an empty file', path.join(special, 'empty.tif')],
      ['an 8 GB sparse file', path.join(special, 'sparse.tif')], ['an 8 GB sparse file with a TIFF header', path.join(special, 'sparse-ii.tif')],
      ['a symlink to itself', path.join(special, 'loop.tif')], ['a TIFF cut in its tiles', path.join(special, 'cut.tif')],
      ['a TIFF with its last tiles scrambled', path.join(special, 'flipped.tif')], ...(fifo ? [['a FIFO', path.join(special, 'fifo.tif')] as [string, string]] : []),
    ];
    for (const [what, p] of sources) for (const t of PIXEL_TOOLS) await trial(`mosaic.vrt whose first source is ${what} (${t})`, withSource(p), { op: tool(t) });

    // One file many times, as sources of one band (GDAL opens it once; so must we, or 20 000 descriptors).
    const simple = (f: string, extra = '') => `<SimpleSource><SourceFilename relativeToVRT="1">${f}</SourceFilename><SourceBand>1</SourceBand>${extra}</SimpleSource>`;
    const vrtOf = (body: string, w = 48, h = 40) => `<VRTDataset rasterXSize="${w}" rasterYSize="${h}"><VRTRasterBand dataType="UInt16" band="1">${body}</VRTRasterBand></VRTDataset>`;
    for (const t of PIXEL_TOOLS) await trial(`20000 SimpleSources of one file (${t})`, vrtOf(simple('a.tif').repeat(20_000)), { mustSucceed: true, op: tool(t) });
    await trial('100001 SimpleSources in one band', vrtOf(simple('a.tif').repeat(100_001)), { mustFail: true, op: tool('raster_info') });

    // Reference loops and depth: itself, a pair listing each other, a chain within the limit and one past it.
    const chain = (n: number, last: string): [string, string][] => Array.from({ length: n }, (_, i) => [`c${i}.vrt`, withSource(i === n - 1 ? last : `c${i + 1}.vrt`, true)]);
    for (const t of PIXEL_TOOLS) {
      await trial(`a VRT that lists itself (${t})`, withSource('hostile.vrt', true), { op: tool(t) });
      await trial(`two VRTs listing each other (${t})`, withSource('other.vrt', true), { op: tool(t), extra: [['other.vrt', withSource('hostile.vrt', true)]] });
      await trial(`a chain of 8 VRTs (${t})`, withSource('c0.vrt', true), { op: tool(t), extra: chain(7, 'a.tif'), mustSucceed: true });
      await trial(`a chain of 12 VRTs (${t})`, withSource('c0.vrt', true), { op: tool(t), extra: chain(11, 'a.tif') });
      await trial(`a chain of 12 VRTs ending in a missing file (${t})`, withSource('c0.vrt', true), { op: tool(t), extra: chain(11, 'nowhere.tif') });
    }
    // A chain that fans out: 8 windows of the next file per level, 7 levels: 8^7 reads of a.tif if nothing bounds them.
    const fan = (next: string) => vrtOf(Array.from({ length: 8 }, (_, j) => simple(next, `<SrcRect xOff="${j}" yOff="0" xSize="40" ySize="40"/><DstRect xOff="${j}" yOff="0" xSize="40" ySize="40"/>`)).join(''));
    await trial('a fan-out of 8 sources per level, 7 levels deep (raster_stats)', fan('f1.vrt'), { op: tool('raster_stats'), extra: Array.from({ length: 6 }, (_, i) => [`f${i + 1}.vrt`, fan(i === 5 ? 'a.tif' : `f${i + 2}.vrt`)] as [string, string]) });

    // Size: over the 32 MB limit (refused before it is read), just under it (valid but padded), and just
    // under it made of 8 million empty elements (what the limit is there to bound: the parsed tree).
    const under = (32 << 20) - 64;
    await trial('a 40 MB VRT', mosaic.replace('</VRTDataset>', `<!--${'x'.repeat(40 << 20)}--></VRTDataset>`), { mustFail: true, op: tool('raster_info') });
    await trial('a VRT padded to just under 32 MB', mosaic.replace('</VRTDataset>', `${' '.repeat(under - mosaic.length)}</VRTDataset>`), { mustSucceed: true, op: tool('raster_stats') });
    const head = '<VRTDataset rasterXSize="48" rasterYSize="40"><VRTRasterBand band="1"/>';
    await trial('a VRT of 8 million empty elements, just under 32 MB', head + '<a/>'.repeat(Math.floor((under - head.length - 13) / 4)) + '</VRTDataset>', { op: tool('raster_info') });
    await trial('a VRT of one element with 600000 attributes', `${head}<a ${Array.from({ length: 600_000 }, (_, i) => `b${i.toString(36)}=""`).join(' ')}/></VRTDataset>`, { op: tool('raster_info') });
    await trial('a VRT nested 300000 elements deep', mosaic.replace('<GeoTransform>', `<GeoTransform>${'<a>'.repeat(300_000)}${'</a>'.repeat(300_000)}`), { op: tool('raster_info') });

    // Other encodings and preambles.
    await trial('a VRT behind a byte-order mark', `\uFEFF${mosaic}`, { op: tool('raster_stats') });
    await trial('a VRT in UTF-16', Buffer.from(`\uFEFF${mosaic}`, 'utf16le'), { mustFail: true, op: tool('raster_info') });
    await trial('a VRT behind an entity-expanding DOCTYPE', `<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>${mosaic.replace('<ColorInterp>Gray</ColorInterp>', '<Description>&c;&c;&c;</Description>')}`, { op: tool('raster_info') });
    await trial('a VRT behind 20000 comments', `${'<!-- c -->'.repeat(20_000)}${mosaic}`, { op: tool('raster_info') });
    await trial('a VRT with an external entity', `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]>${mosaic.replace('<ColorInterp>Gray</ColorInterp>', '<Description>&x;</Description>')}`, { op: tool('raster_info') });
  } finally {
    runner.close();
    fs.rmSync(special, { recursive: true, force: true });
    console.log(tally.summary());
    console.log(`${tally.trials.length} trials in ${Math.round((Date.now() - t0) / 1000)} s`);
    const fails = tally.failures();
    if (fails.length) console.log(fails.slice(0, 40).map((f) => `${f.outcome}: ${f.input}: ${f.detail}`).join('\n'));
  }
  assert.ok(tally.trials.length >= 300, `only ${tally.trials.length} trials`);
  assert.deepEqual(tally.failures().map((f) => `${f.outcome}: ${f.input}: ${f.detail}`), []);
  fs.rmSync(root, { recursive: true, force: true });
});
