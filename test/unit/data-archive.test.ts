/**
 * Data that arrives archived, as analysts download it: a Sentinel-2 L2A `.SAFE.zip` of JPEG 2000
 * bands (Copernicus Data Space), a Landsat Collection 2 `.tar` (EarthExplorer), gzipped tars with
 * pax and GNU long names, ZIP64. Before extraction readiness points at the archive that holds what
 * a tool needs; `extract` writes it beside the archive byte for byte (archives made by Python's
 * zipfile and tarfile), the scan then finds the product and NDVI over it equals numpy's. Hostile
 * archives (names escaping the folder, links, a bomb that lies about its size, a bad CRC, another
 * method, a duplicate name, a cancellation) fail or skip naming the entry, and leave nothing behind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { describeArchive, extractArchive, listArchive, safeName } from '../../src/core/data/archive/archive';
import { scanDataFolder } from '../../src/core/data/scan';
import { executability } from '../../src/core/retrieval/executability';
import { runTool } from '../../src/core/raster/engine';
import { localizeNote } from '../../src/core/retrieval/reason-language';
import { main } from '../../src/cli/main';
import type { ToolManifest } from '../../src/core/manifests/types';
import { needGdal, py, tmpDir } from '../helpers/raster-gdal';
import { zipBytes } from '../helpers/zip-writer';

const skip = needGdal();
const ndviManifest = (): ToolManifest => JSON.parse(fs.readFileSync(path.join(__dirname, '../../../tool-manifests/ndvi.json'), 'utf8'));

const SAFE = 'S2B_MSIL2A_20240612T103021_N0510_R108_T31TDF_20240612T130000.SAFE';
const LANDSAT = 'LC09_L2SP_196030_20240610_20240611_02_T1';

/** Files under `dir` (relative, sorted) with their sha256, to compare what was extracted with what was archived. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else out[r] = createHash('sha256').update(fs.readFileSync(path.join(dir, r))).digest('hex');
    }
  };
  walk('');
  return out;
}

/** A Sentinel-2 L2A SAFE of JPEG 2000 bands and a Landsat scene of GeoTIFFs (numpy arrays saved beside them), then archived. */
function makeArchives(dir: string): void {
  py(String.raw`
import sys, os, zipfile, tarfile
from osgeo import gdal, osr
import numpy as np
gdal.UseExceptions()
d0 = sys.argv[1] if len(sys.argv) > 1 else '.'
os.chdir(${JSON.stringify(dir)})
srs = osr.SpatialReference(); srs.ImportFromEPSG(32631)
rng = np.random.default_rng(7)
def band(path, a, fmt):
    m = gdal.GetDriverByName('MEM').Create('', a.shape[1], a.shape[0], 1, gdal.GDT_UInt16)
    m.SetGeoTransform((399960, 10, 0, 4800000, 0, -10)); m.SetProjection(srs.ExportToWkt())
    m.GetRasterBand(1).WriteArray(a)
    os.makedirs(os.path.dirname(path) or '.', exist_ok=True)
    gdal.GetDriverByName(fmt).CreateCopy(path, m, options=['REVERSIBLE=YES', 'QUALITY=100'] if fmt == 'JP2OpenJPEG' else [])
src = 'src/${SAFE}'
r10 = src + '/GRANULE/L2A_T31TDF_A037843_20240612T103021/IMG_DATA/R10m'
red = rng.integers(300, 2000, (60, 80)).astype(np.uint16); nir = rng.integers(1500, 5000, (60, 80)).astype(np.uint16)
red[:4, :6] = 0; nir[:4, :6] = 0
for b, a in [('B02', red + 50), ('B03', red + 100), ('B04', red), ('B08', nir)]:
    band(f'{r10}/T31TDF_20240612T103021_{b}_10m.jp2', a, 'JP2OpenJPEG')
open(src + '/MTD_MSIL2A.xml', 'w').write('<n1:Level-2A_User_Product/>')
np.save('red.npy', red); np.save('nir.npy', nir)
d = gdal.GetDriverByName('GTiff').Create('decoy.tif', 80, 60, 2, gdal.GDT_UInt16)
d.SetGeoTransform((399960, 10, 0, 4800000, 0, -10)); d.SetProjection(srs.ExportToWkt())
for i, (desc, a) in enumerate([('Red', red), ('NIR', nir)]): d.GetRasterBand(i + 1).SetDescription(desc); d.GetRasterBand(i + 1).WriteArray(a)
d = None
with zipfile.ZipFile('${SAFE}.zip', 'w', zipfile.ZIP_DEFLATED) as z:
    for root, _, files in os.walk(src):
        for f in sorted(files):
            z.write(os.path.join(root, f), os.path.relpath(os.path.join(root, f), 'src'))
    z.writestr('__MACOSX/._MTD_MSIL2A.xml', b'resource fork')
ls = 'src/${LANDSAT}'
for b in ['SR_B4', 'SR_B5', 'QA_PIXEL']:
    band(f'{ls}/${LANDSAT}_{b}.TIF', rng.integers(7000, 30000, (30, 40)).astype(np.uint16), 'GTiff')
open(f'{ls}/${LANDSAT}_MTL.txt', 'w').write('GROUP = LANDSAT_METADATA_FILE\n')
with tarfile.open('${LANDSAT}.tar', 'w', format=tarfile.GNU_FORMAT) as t:
    for f in sorted(os.listdir(ls)): t.add(os.path.join(ls, f), f)
# pax names (non-ASCII, > 100 bytes) in a gzipped tar, and a GNU long name
with tarfile.open('long.tar.gz', 'w:gz', format=tarfile.PAX_FORMAT) as t:
    t.add(f'{ls}/${LANDSAT}_SR_B4.TIF', 'relevés/' + 'é' * 60 + '_SR_B4.tif')
with zipfile.ZipFile('zip64.zip', 'w', zipfile.ZIP_STORED) as z:
    with z.open('b5.tif', 'w', force_zip64=True) as f: f.write(open(f'{ls}/${LANDSAT}_SR_B5.TIF', 'rb').read())
# 70 000 entries: the directory needs ZIP64's end record
with zipfile.ZipFile('many.zip', 'w', zipfile.ZIP_STORED) as z:
    for i in range(70000): z.writestr(f'tiles/{i:05d}.txt', b'')
    z.writestr('tiles/dem.tif', open(f'{ls}/${LANDSAT}_SR_B4.TIF', 'rb').read())
`);
}

test('a Sentinel-2 .SAFE.zip: readiness names the archive; extracted beside itself byte for byte, its product is found and NDVI equals numpy', { ...skip, timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-archive-');
  makeArchives(dir);
  const ws = path.join(dir, 'ws');
  fs.mkdirSync(ws);
  fs.renameSync(path.join(dir, `${SAFE}.zip`), path.join(ws, `${SAFE}.zip`));

  const s = await describeArchive(`${SAFE}.zip`, ws);
  assert.equal(s.holds, 'a Sentinel-2 L2A product (4 band files)', 'the archive bears the product\'s name');
  assert.deepEqual([s.rasters, s.vectors, s.target, s.extracted, s.complete], [4, 0, SAFE, false, true]);

  // Before: nothing to read, and readiness says where the bands are.
  const before = await scanDataFolder(ws);
  assert.deepEqual(before.items, []);
  assert.deepEqual(before.archives, [{ path: `${SAFE}.zip`, holds: s.holds, rasters: 4, vectors: 0 }]);
  const r0 = executability(ndviManifest(), before);
  assert.equal(r0.ready, false);
  const note = r0.notes.find((n) => n.includes('extract it first'));
  assert.equal(note, `needs red + NIR for image — none found; ${SAFE}.zip holds ${s.holds}: extract it first`);
  assert.match(localizeNote(note!, 'zh'), /未找到；压缩包 .*\.SAFE\.zip 中有.*请先解压/);

  // Beside another scene, a task that names the archive still means the archive, not that scene.
  fs.copyFileSync(path.join(dir, 'decoy.tif'), path.join(ws, 'other.tif'));
  const decoy = await scanDataFolder(ws);
  assert.equal(executability(ndviManifest(), decoy).ready, true, 'NDVI runs on the other scene when the task says nothing');
  const named = executability(ndviManifest(), { ...decoy, task: `NDVI of ${SAFE}.zip` });
  assert.equal(named.ready, false);
  assert.deepEqual(named.notes.filter((n) => n.includes('extract')), [`needs red + NIR for image — ${SAFE}.zip, which the task names, holds ${s.holds}: extract it first`]);
  assert.match(localizeNote(named.notes.find((n) => n.includes('extract'))!, 'zh'), /任务点名的压缩包 .*\.SAFE\.zip 中有/);
  fs.rmSync(path.join(ws, 'other.tif'));

  const seen: number[] = [];
  const r = await extractArchive(path.join(ws, `${SAFE}.zip`), { onProgress: (done) => seen.push(done) });
  assert.equal(r.target, path.join(ws, SAFE));
  assert.equal(r.files, 5);
  assert.deepEqual(r.skipped, []);
  assert.ok(seen.length > 0 && seen[seen.length - 1] === r.bytes);
  assert.deepEqual(tree(path.join(ws, SAFE)), tree(path.join(dir, 'src', SAFE)), 'every file as it was archived; the Finder resource fork left out');
  assert.deepEqual(fs.readdirSync(ws).sort(), [SAFE, `${SAFE}.zip`], 'no temporary folder left');

  // After: the SAFE is one Sentinel-2 product, NDVI is ready on it and equals numpy.
  const after = await scanDataFolder(ws);
  assert.equal(after.archives, undefined);
  const product = after.items.find((i) => i.product);
  assert.equal(product?.path, SAFE);
  const r1 = executability(ndviManifest(), after);
  assert.equal(r1.ready, true, r1.notes.join('; '));
  assert.equal(r1.args.image, SAFE);
  const run = await runTool('ndvi', { image: SAFE }, { outDir: path.join(dir, 'out'), cwd: ws });
  const diff = py(`
import numpy as np
from osgeo import gdal
red = np.load(${JSON.stringify(path.join(dir, 'red.npy'))}).astype('f8'); nir = np.load(${JSON.stringify(path.join(dir, 'nir.npy'))}).astype('f8')
ref = (nir - red) / (nir + red); ref[(red == 0) | (nir == 0)] = np.nan
d = gdal.Open(${JSON.stringify(run.outputs.index.path)}); b = d.GetRasterBand(1); a = b.ReadAsArray().astype("f8")
nd = b.GetNoDataValue()
if nd is not None: a[a == nd] = np.nan
print(int(np.sum(np.isnan(a) != np.isnan(ref))), float(np.nanmax(np.abs(a - ref))))`).trim().split(' ');
  assert.equal(diff[0], '0', 'the same pixels are no data');
  assert.ok(Number(diff[1]) < 1e-6, `NDVI within 1e-6 of numpy (max ${diff[1]})`);

  // Extracting again is refused, and what was extracted is left as it is.
  await assert.rejects(extractArchive(path.join(ws, `${SAFE}.zip`)), /already exists; it was extracted before/);
});

test('a Landsat .tar, pax and GNU long names in a gzipped tar, ZIP64 entries and a ZIP64 directory of 70 000 entries', { ...skip, timeout: 300_000 }, async () => {
  const dir = tmpDir('gw-archive-');
  makeArchives(dir);
  const tar = path.join(dir, `${LANDSAT}.tar`);
  const s = await describeArchive(tar);
  assert.equal(s.holds, 'a Landsat 8-9 Collection 2 Level-2 scene (3 band files)');
  assert.equal(s.target, LANDSAT, 'loose band files go into a folder named after the archive');
  const r = await extractArchive(tar);
  assert.equal(r.files, 4);
  assert.deepEqual(tree(r.target), tree(path.join(dir, 'src', LANDSAT)));
  const scan = await scanDataFolder(dir);
  assert.ok(scan.items.some((i) => i.product && /landsat/i.test(i.product.sensor)), scan.items.map((i) => i.path).join(', '));

  const long = await extractArchive(path.join(dir, 'long.tar.gz'));
  assert.equal(long.target, path.join(dir, 'relevés'));
  assert.deepEqual(Object.keys(tree(long.target)), ['é'.repeat(60) + '_SR_B4.tif']);
  assert.equal(tree(long.target)['é'.repeat(60) + '_SR_B4.tif'], tree(path.join(dir, 'src', LANDSAT))[`${LANDSAT}_SR_B4.TIF`]);

  // An archive of one file puts that file beside it.
  const z64 = await extractArchive(path.join(dir, 'zip64.zip'));
  assert.equal(z64.target, path.join(dir, 'b5.tif'));
  assert.equal(createHash('sha256').update(fs.readFileSync(z64.target)).digest('hex'), tree(path.join(dir, 'src', LANDSAT))[`${LANDSAT}_SR_B5.TIF`]);
  const many = await listArchive(path.join(dir, 'many.zip'));
  assert.equal(many.entries.length, 70_001);
  assert.equal((await describeArchive(path.join(dir, 'many.zip'))).holds, 'a raster (dem.tif)');

  // The command line says the same and extracts the same way.
  const out: string[] = [], err: string[] = [];
  const code = await main(['extract', '--list', '--json', tar, path.join(dir, 'many.zip')], { out: (t) => out.push(t), err: (t) => err.push(t) });
  assert.equal(code, 0, err.join('\n'));
  const listed = JSON.parse(out.join(''));
  assert.deepEqual(listed.map((x: { holds: string; extracted: boolean }) => [x.holds, x.extracted]), [[s.holds, true], ['a raster (dem.tif)', false]]);
  assert.equal(await main(['extract', path.join(dir, 'red.npy')], { out: () => {}, err: (t) => err.push(t) }), 2);
  assert.match(err.join('\n'), /red\.npy: not an archive GeoWeave extracts/);
});

const zip = zipBytes;

test('hostile archives: escaping names and links are skipped; a bomb, a bad CRC, another method, a twice-held name, a cancellation and a non-tar fail naming the entry and leave nothing', async () => {
  const dir = tmpDir('gw-archive-');
  const tif = Buffer.from('II*\0 pretend raster');
  const write = (name: string, b: Buffer) => { fs.writeFileSync(path.join(dir, name), b); return path.join(dir, name); };
  const leftovers = () => fs.readdirSync(dir).filter((n) => !/\.(zip|tar|tgz)$/.test(n));

  assert.equal(safeName('../evil.tif'), undefined);
  assert.equal(safeName('/etc/passwd'), undefined);
  assert.equal(safeName('C:\\Windows\\x.tif'), undefined);
  assert.equal(safeName('a\\..\\..\\b.tif'), undefined);
  assert.equal(safeName('./a//b.tif'), 'a/b.tif');

  const slip = write('slip.zip', zip([
    { name: '../../evil.tif', data: tif }, { name: '/abs.tif', data: tif }, { name: 'd/link.tif', data: Buffer.from('/etc/passwd'), mode: 0o120777 },
    { name: 'd/ok.tif', data: tif },
  ]));
  const r = await extractArchive(slip);
  assert.equal(r.target, path.join(dir, 'd'));
  assert.deepEqual(Object.keys(tree(r.target)), ['ok.tif']);
  assert.deepEqual(r.skipped, ["../../evil.tif: its name points outside the archive's folder", "/abs.tif: its name points outside the archive's folder", 'd/link.tif: a link (links are not extracted)']);
  assert.ok(!fs.existsSync(path.join(dir, '..', 'evil.tif')) && !fs.existsSync('/abs.tif'));
  fs.rmSync(r.target, { recursive: true });

  const failing: [string, Buffer, RegExp][] = [
    ['bomb.zip', zip([{ name: 'a.tif', data: tif }, { name: 'b.tif', data: Buffer.alloc(8 << 20), lie: { size: 1000 } }]), /bomb\.zip: entry b\.tif inflates past the 1000 bytes its directory declares; .*nothing was written/],
    ['crc.zip', zip([{ name: 'a.tif', data: tif, lie: { crc: 1234 } }]), /crc\.zip: entry a\.tif fails its CRC check; the archive is damaged; nothing was written/],
    ['bzip.zip', zip([{ name: 'a.tif', data: tif, method: 12 }]), /bzip\.zip: entry a\.tif uses ZIP method 12 \(bzip2\), not stored or deflate; extract it with 7z or unzip/],
    ['locked.zip', zip([{ name: 'a.tif', data: tif, flags: 1 }]), /locked\.zip: entry a\.tif is encrypted/],
    ['twice.zip', zip([{ name: 'x/a.tif', data: tif }, { name: 'x/a.tif', data: tif }]), /the archive holds this name twice; nothing was written/],
    ['cut.zip', zip([{ name: 'a.tif', data: tif }]).subarray(0, 40), /cut\.zip: not a readable ZIP archive \(no ZIP directory\)/],
    ['offset.zip', zip([{ name: 'a.tif', data: tif }], { offset: 5 }), /offset\.zip: entry a\.tif is damaged \(no local header at 5\); nothing was written/],
    ['text.tar', Buffer.from('this is not a tar archive\n'.repeat(40)), /text\.tar: not a readable tar archive \(no tar header at its start\)/],
  ];
  for (const [name, b, re] of failing) {
    await assert.rejects(extractArchive(write(name, b)), re, name);
    assert.deepEqual(leftovers(), [], `${name}: nothing left behind`);
    // Nothing of a failed extraction is still reading: the archive can go at once without an error surfacing later.
    fs.rmSync(path.join(dir, name));
  }
  await new Promise((r) => setTimeout(r, 300));

  // A tar cut inside an entry, and a cancellation after the first bytes.
  const tarFile = path.join(dir, 'scene.tar');
  const hdr = (name: string, size: number) => {
    const h = Buffer.alloc(512);
    h.write(name, 0); h.write('0000644\0', 100); h.write(size.toString(8).padStart(11, '0') + '\0', 124); h.write('0', 156); h.write('ustar\x0000', 257);
    h.fill(0x20, 148, 156);
    let sum = 0; for (const x of h) sum += x;
    h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
    return h;
  };
  const big = Buffer.alloc(4 << 20, 7);
  fs.writeFileSync(tarFile, Buffer.concat([hdr('a.tif', tif.length), tif, Buffer.alloc(512 - tif.length), hdr('b.tif', big.length), big.subarray(0, 1 << 20)]));
  await assert.rejects(extractArchive(tarFile), /scene\.tar: entry b\.tif is cut short \(the archive ends inside it\); nothing was written/);
  assert.deepEqual(leftovers(), []);
  fs.writeFileSync(tarFile, Buffer.concat([hdr('a.tif', tif.length), tif, Buffer.alloc(512 - tif.length), hdr('b.tif', big.length), big, Buffer.alloc(1024)]));
  const ac = new AbortController();
  await assert.rejects(extractArchive(tarFile, { signal: ac.signal, onProgress: () => ac.abort() }), /scene\.tar: extraction cancelled; nothing was written/);
  assert.deepEqual(leftovers(), []);
  const ok = await extractArchive(tarFile);
  assert.equal(fs.statSync(path.join(ok.target, 'b.tif')).size, big.length);
});
