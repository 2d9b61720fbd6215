/**
 * Hostile JPEG 2000: every layer of a .jp2/.j2k (boxes, the codestream's main header, tile-part
 * headers, packet data, the GMLJP2 XML and the PAM sidecar) truncated, bit-flipped, or set to values
 * no encoder writes (image and tile sizes, component counts, bit depths, wavelet levels, Psot). Each
 * file goes through a tool in a child process; the trial passes when the tool succeeds with only its
 * reported outputs, or fails naming the file with nothing left behind, within its time bound and
 * memory limit (OpenJPEG's WebAssembly heap included).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { Tally } from './tally';
import { TrialRunner, judge, emptyDir, fingerprint, Op } from './harness';
import { readJp2Layout } from '../../src/core/raster/io/jp2/codestream';
import { mulberry32 } from '../../src/core/raster/algorithms/prng';

const BASES = String.raw`
import sys
from osgeo import gdal, osr
import numpy as np
gdal.UseExceptions()
d0 = sys.argv[1]
def mk(name, dt, bands, co, srs=32631, nodata=None, W=300, H=260):
    m = gdal.GetDriverByName('MEM').Create('', W, H, bands, dt)
    gt = (5.9, 0.0001, 0, 49.9, 0, -0.0001) if srs == 4326 else (399960, 10, 0, 5000040, 0, -10)
    m.SetGeoTransform(gt); s = osr.SpatialReference(); s.ImportFromEPSG(srs); m.SetProjection(s.ExportToWkt())
    yy, xx = np.mgrid[0:H, 0:W]
    for b in range(bands):
        m.GetRasterBand(b + 1).WriteArray(((xx * 7 + yy * 3 + b * 50) % 250 + 1).astype(np.uint16 if dt == gdal.GDT_UInt16 else np.uint8))
        if nodata is not None: m.GetRasterBand(b + 1).SetNoDataValue(nodata)
    gdal.Translate(d0 + '/' + name, m, format='JP2OpenJPEG', creationOptions=co)
mk('s2.jp2', gdal.GDT_UInt16, 1, ['REVERSIBLE=YES', 'QUALITY=100', 'BLOCKXSIZE=128', 'BLOCKYSIZE=128', 'RESOLUTIONS=4'])
mk('rgb_gml.jp2', gdal.GDT_Byte, 3, ['REVERSIBLE=YES', 'QUALITY=100', 'BLOCKXSIZE=100', 'BLOCKYSIZE=100', 'GeoJP2=NO'], srs=4326)
mk('bare.j2k', gdal.GDT_UInt16, 1, ['REVERSIBLE=YES', 'QUALITY=100', 'CODEC=J2K', 'BLOCKXSIZE=128', 'BLOCKYSIZE=96', 'TLM=YES', 'PLT=YES'], nodata=7)
mk('lossy.jp2', gdal.GDT_UInt16, 1, ['QUALITY=30', 'BLOCKXSIZE=256', 'BLOCKYSIZE=256'])
# Large enough that a quicklook decodes a resolution level (every 3rd pixel: level 1, 1050×750).
mk('zbig.jp2', gdal.GDT_UInt16, 1, ['REVERSIBLE=YES', 'QUALITY=100', 'BLOCKXSIZE=512', 'BLOCKYSIZE=512', 'RESOLUTIONS=3'], W=2100, H=1500)
`;

function opFor(k: number, file: string, outDir: string): Op {
  const ops: Op[] = [
    { kind: 'read', file },
    { kind: 'runTool', tool: 'raster_stats', args: { image: file }, outDir },
    { kind: 'runTool', tool: 'band_math', args: { image: file, expression: 'b1 * 2 + 1' }, outDir },
    { kind: 'runTool', tool: 'threshold', args: { image: file, op: 'gt', value: 100 }, outDir },
    { kind: 'runTool', tool: 'quicklook', args: { image: file }, outDir },
    { kind: 'runTool', tool: 'resample', args: { image: file, factor: 2, method: 'average' }, outDir },
    { kind: 'runTool', tool: 'clip_bbox', args: { image: file, bbox: [-1e9, -1e9, 1e9, 1e9] }, outDir },
    { kind: 'runTool', tool: 'slope', args: { dem: file }, outDir },
  ];
  return ops[k % ops.length];
}

test('JPEG 2000 abuse: truncated, bit-flipped and odd-header .jp2/.j2k files, hostile GMLJP2 and PAM', { timeout: 600_000 }, async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-abuse-jp2-'));
  const corpus = path.join(root, 'corpus'), inDir = path.join(root, 'in'), outDir = path.join(root, 'out'), outside = path.join(root, 'outside');
  fs.mkdirSync(corpus); fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'victim.txt'), 'must not change');
  const outsideBefore = fingerprint(outside);
  const tally = new Tally();
  const runner = new TrialRunner(Number(process.env.GEOWEAVE_ABUSE_TIMEOUT_MS) || 20_000);
  try {
    const py = spawnSync('/usr/bin/python3', ['-c', BASES, corpus], { encoding: 'utf8' });
    if (py.status !== 0) {
      if (process.env.CI) assert.fail(`GDAL with JP2OpenJPEG is required in CI: ${py.stderr}`);
      return;
    }
    let k = 0;
    const trial = async (label: string, name: string, bytes: Buffer, opts: { mustSucceed?: boolean; sidecar?: Buffer } = {}) => {
      emptyDir(inDir); emptyDir(outDir);
      const file = path.join(inDir, `hostile${path.extname(name)}`);
      fs.writeFileSync(file, bytes);
      if (opts.sidecar) fs.writeFileSync(`${file}.aux.xml`, opts.sidecar);
      const frozenIn = fingerprint(inDir);
      // The large file goes through quicklook (reduced-resolution decoding) and raster_info (its levels).
      const op: Op = name.startsWith('zbig') ? { kind: 'runTool', tool: k++ % 2 ? 'raster_info' : 'quicklook', args: { image: file }, outDir } : opFor(k++, file, outDir);
      const r = await runner.run(op);
      judge(tally, 'jpeg2000', label, r, {
        names: [file], outDir, mustSucceed: opts.mustSucceed,
        frozen: [{ dir: inDir, before: frozenIn }, { dir: outside, before: outsideBefore }],
        tempRoots: [inDir, outDir],
      });
    };

    for (const name of fs.readdirSync(corpus).filter((f) => /\.(jp2|j2k)$/.test(f)).sort()) {
      const base = path.join(corpus, name);
      const orig = fs.readFileSync(base);
      const sidecar = fs.existsSync(`${base}.aux.xml`) ? fs.readFileSync(`${base}.aux.xml`) : undefined;
      const fd = fs.openSync(base, 'r');
      const L = readJp2Layout(fd, orig.length);
      fs.closeSync(fd);
      const parts = [...L.tileParts.values()].flat().sort((a, b) => a.offset - b.offset);
      const siz = L.csOffset + 2;
      const rnd = mulberry32([...name].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 11));
      const within = (a: number, n: number) => a + Math.floor(rnd() * Math.max(1, n));
      for (let rep = 0; rep < 2; rep++) await trial(`${name} intact (${rep + 1})`, name, orig, { mustSucceed: true, sidecar });

      // Truncated in every layer.
      const cuts: [string, number][] = [['signature', 6], ['boxes', within(0, L.csOffset)], ['SIZ', siz + 20], ['main header', within(siz, parts[0].offset - siz)],
        ['first tile-part header', parts[0].offset + 6], ['first tile data', within(parts[0].offset + 14, parts[0].length - 14)],
        ['last tile data', within(parts[parts.length - 1].offset + 14, parts[parts.length - 1].length - 14)], ['end-1', orig.length - 1]];
      for (const [where, at] of cuts) await trial(`${name} truncated in ${where} at ${at}`, name, orig.subarray(0, Math.max(0, at)), { sidecar });

      // Bits flipped in every layer.
      const spans: [string, number, number][] = [['boxes', 0, L.csOffset], ['SIZ', siz, 40], ['main header', siz, parts[0].offset - siz],
        ['tile-part headers', parts[0].offset, 12], ['packets', parts[0].offset + 14, parts[parts.length - 1].offset + parts[parts.length - 1].length - parts[0].offset - 14]];
      for (const [where, a, n] of spans) {
        if (n <= 0) continue;
        for (let j = 0; j < (where === 'packets' ? 6 : 5); j++) {
          const b = Buffer.from(orig);
          const flips: number[] = [];
          for (let f = 0; f < 1 + Math.floor(rnd() * 4); f++) { const at = within(a, n); b[at] ^= 1 << Math.floor(rnd() * 8); flips.push(at); }
          await trial(`${name} bits flipped in ${where} at ${flips.join(',')}`, name, b, { sidecar });
        }
      }

      // SIZ fields no encoder writes (offsets inside the SIZ segment: marker at 0).
      const u32 = (off: number, v: number) => (b: Buffer) => b.writeUInt32BE(v >>> 0, siz + off);
      const edits: [string, (b: Buffer) => void][] = [
        ['width 2^32-1', u32(6, 2 ** 32 - 1)], ['height 2^31', u32(10, 2 ** 31)], ['width 0', u32(6, 0)], ['width 200000', u32(6, 200_000)],
        ['image offset past the width', u32(14, 1_000_000)], ['tile width 1', u32(22, 1)], ['tile width 0', u32(22, 0)], ['tile height 2^31', u32(26, 2 ** 31)],
        ['tile offset past the image offset', u32(30, 5)], ['components 0', (b) => b.writeUInt16BE(0, siz + 38)], ['components 16384', (b) => b.writeUInt16BE(16384, siz + 38)],
        ['38-bit samples', (b) => { b[siz + 40] = 37; }], ['signed', (b) => { b[siz + 40] |= 0x80; }], ['sub-sampled 2×2', (b) => { b[siz + 41] = 2; b[siz + 42] = 2; }],
        ['sub-sampling 0', (b) => { b[siz + 41] = 0; }],
      ];
      const cod = L.mainSegments.find((s) => s.marker === 0xff52);
      if (cod) edits.push(['33 wavelet levels', (b) => { b[cod.offset + 9] = 33; }], ['code-blocks 2^14', (b) => { b[cod.offset + 10] = 12; b[cod.offset + 11] = 12; }],
        ['progression order 9', (b) => { b[cod.offset + 5] = 9; }], ['0 layers', (b) => b.writeUInt16BE(0, cod.offset + 6)],
        // COD turned into a comment (COM): no coding style, so no decomposition levels to read.
        ['no COD marker', (b) => b.writeUInt16BE(0xff64, cod.offset)]);
      const p0 = parts[0].offset;
      edits.push(['Psot 0 on the first tile-part', (b) => b.writeUInt32BE(0, p0 + 6)], ['Psot 2^32-1', (b) => b.writeUInt32BE(2 ** 32 - 1, p0 + 6)],
        ['Psot 13', (b) => b.writeUInt32BE(13, p0 + 6)], ['tile index 65535', (b) => b.writeUInt16BE(65535, p0 + 4)], ['tile index repeated', (b) => { if (parts[1]) b.writeUInt16BE(b.readUInt16BE(p0 + 4), parts[1].offset + 4); }]);
      for (const [what, edit] of edits) {
        const b = Buffer.from(orig);
        edit(b);
        await trial(`${name} ${what}`, name, b, { sidecar });
      }
    }

    // Hostile XML: a GMLJP2 box whose coverage is unclosed 8 MB of openings, vectors that are not numbers,
    // a zero pixel size; and hostile PAM sidecars beside an intact bare codestream.
    const s2 = fs.readFileSync(path.join(corpus, 's2.jp2'));
    const xmlBox = (xml: string) => { const body = Buffer.from(xml); const h = Buffer.alloc(8); h.writeUInt32BE(body.length + 8, 0); h.write('xml ', 4, 'latin1'); return Buffer.concat([h, body]); };
    // Inserted after the signature and ftyp boxes (20 + 12 bytes in GDAL's files: found by walking).
    const afterFtyp = 12 + s2.readUInt32BE(12);
    const withBox = (box: Buffer) => Buffer.concat([s2.subarray(0, afterFtyp), box, s2.subarray(afterFtyp)]);
    const noGeo = (b: Buffer) => { const i = b.indexOf(Buffer.from('uuid')); if (i > 0) b.write('skip', i, 'latin1'); const j = b.indexOf(Buffer.from('asoc')); if (j > 0) b.write('skip', j, 'latin1'); return b; };
    const xmls: [string, string][] = [
      ['unclosed RectifiedGrid ×400000', '<gml:RectifiedGrid>'.repeat(400_000)],
      ['vectors that are not numbers', '<gml:RectifiedGrid srsName="urn:ogc:def:crs:EPSG::32631"><gml:origin><gml:Point><gml:pos>a b</gml:pos></gml:Point></gml:origin><gml:offsetVector>x y</gml:offsetVector><gml:offsetVector>1e999 0</gml:offsetVector></gml:RectifiedGrid>'],
      ['zero pixel size', '<gml:RectifiedGrid srsName="urn:ogc:def:crs:EPSG::32631"><gml:origin><gml:Point><gml:pos>1 2</gml:pos></gml:Point></gml:origin><gml:offsetVector>0 0</gml:offsetVector><gml:offsetVector>0 0</gml:offsetVector></gml:RectifiedGrid>'],
      ['an unknown EPSG code', '<gml:RectifiedGrid srsName="urn:ogc:def:crs:EPSG::999999"><gml:origin><gml:Point><gml:pos>1 2</gml:pos></gml:Point></gml:origin><gml:offsetVector>10 0</gml:offsetVector><gml:offsetVector>0 -10</gml:offsetVector></gml:RectifiedGrid>'],
    ];
    for (const [what, xml] of xmls) await trial(`s2.jp2 without GeoJP2, GMLJP2 with ${what}`, 's2.jp2', noGeo(withBox(xmlBox(xml))));
    // Beside a file georeferenced inside (a bare codestream's georeferencing lives in its sidecar, so a
    // hostile one leaves it without, and a terrain tool then rightly refuses it).
    const pams: [string, string | Buffer][] = [
      ['unclosed bands ×200000', '<PAMDataset>' + '<PAMRasterBand band="1">'.repeat(200_000)],
      ['a geotransform of NaNs and an SRS that is not one', '<PAMDataset><SRS>nonsense</SRS><GeoTransform>NaN,NaN,0,1,0,1</GeoTransform></PAMDataset>'],
      ['5 MB', Buffer.alloc(5 << 20, 0x20)],
      ['nodata "abc", scale 1e400, band 2^40', '<PAMDataset><PAMRasterBand band="1"><NoDataValue>abc</NoDataValue><Scale>1e400</Scale></PAMRasterBand><PAMRasterBand band="1099511627776"><NoDataValue>1</NoDataValue></PAMRasterBand></PAMDataset>'],
    ];
    for (const [what, pam] of pams) await trial(`s2.jp2 with a PAM sidecar of ${what}`, 's2.jp2', s2, { sidecar: Buffer.from(pam), mustSucceed: true });
  } finally {
    runner.close();
    console.log(tally.summary());
    const fails = tally.failures();
    if (fails.length) console.log(fails.slice(0, 20).map((f) => `${f.outcome}: ${f.input}: ${f.detail}`).join('\n'));
  }
  assert.ok(tally.trials.length >= 200, `only ${tally.trials.length} trials`);
  assert.deepEqual(tally.failures().map((f) => `${f.outcome}: ${f.input}: ${f.detail}`), []);
  fs.rmSync(root, { recursive: true, force: true });
});
