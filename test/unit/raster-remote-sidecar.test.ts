/** The PAM sidecar of a remote raster (`<url>.aux.xml`): a palette GeoTIFF made by GDAL with a colour
 *  table and SetCategoryNames, served with its .aux.xml by a local node:http server. Its category
 *  names reach area_by_class's table and summary as the local file's do; the sidecar is asked for
 *  once; a missing one (404), a refusing server (500) or a dropped connection means none, silently;
 *  a malformed or oversized one is ignored with the local file's warning, naming the URL. */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { AddressInfo } from 'node:net';
import { openRaster } from '../../src/core/raster/io/dataset';
import { runTool } from '../../src/core/raster/engine';
import { sidecarUrl } from '../../src/core/raster/io/remote-sidecar';
import { needGdal, py, tmpDir } from '../helpers/raster-gdal';

const gdal = needGdal();
const NAMES: [number, string, [number, number, number]][] = [
  [10, 'Tree cover', [0, 100, 0]], [40, 'Cropland', [240, 150, 255]], [80, '水体', [0, 100, 200]],
];

/** How the server answers for the sidecar: the file, or a misbehaviour. */
type SidecarMode = 'file' | '404' | '500' | 'reset' | 'huge' | 'broken';

let dir = '';
let base = '';
let server: http.Server;
let mode: SidecarMode = 'file';
const hits = new Map<string, number>();

before(async () => {
  if (gdal.skip) return;
  dir = tmpDir('gw-remote-aux-');
  py(String.raw`
from osgeo import gdal, osr
import numpy as np
gdal.UseExceptions()
classes = ${JSON.stringify(NAMES)}
W, H = 120, 80
ds = gdal.GetDriverByName('GTiff').Create('${dir}/lc.tif', W, H, 1, gdal.GDT_Byte, ['TILED=YES', 'BLOCKXSIZE=64', 'BLOCKYSIZE=64', 'COMPRESS=DEFLATE'])
ds.SetGeoTransform((500000, 10, 0, 4400000, 0, -10))
s = osr.SpatialReference(); s.ImportFromEPSG(32650); ds.SetProjection(s.ExportToWkt())
b = ds.GetRasterBand(1)
yy, xx = np.mgrid[0:H, 0:W]
b.WriteArray(np.array([c[0] for c in classes], dtype=np.uint8)[(xx * len(classes)) // W])
ct = gdal.ColorTable()
for v, n, c in classes: ct.SetColorEntry(v, tuple(c) + (255,))
b.SetColorTable(ct)
b.SetRasterColorInterpretation(gdal.GCI_PaletteIndex)
names = [''] * 256
for v, n, c in classes: names[v] = n
b.SetCategoryNames(names)
ds = None
`);
  assert.ok(fs.existsSync(path.join(dir, 'lc.tif.aux.xml')), 'GDAL wrote the PAM sidecar');
  // A static server with single Range requests; the sidecar path answers as `mode` says.
  server = http.createServer((req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(p, (hits.get(p) ?? 0) + 1);
    if (p.endsWith('.aux.xml')) {
      if (mode === '404') { res.writeHead(404); res.end(); return; }
      if (mode === '500') { res.writeHead(500); res.end(); return; }
      if (mode === 'reset') { req.socket.destroy(); return; }
      if (mode === 'broken') { res.writeHead(200, { 'Content-Type': 'application/xml' }); res.end('<PAMDataset><PAMRasterBand band="1"><CategoryNames><Category>a</Category>'); return; }
      if (mode === 'huge') { res.writeHead(200, { 'Content-Length': 5 << 20 }); res.end(Buffer.alloc(5 << 20, 0x20)); return; }
    }
    const file = path.join(dir, path.basename(p));
    if (!fs.existsSync(file)) { res.writeHead(404); res.end(); return; }
    const size = fs.statSync(file).size;
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (!range) { res.writeHead(200, { 'Content-Length': size }); fs.createReadStream(file).pipe(res); return; }
    const start = Number(range[1]), end = Math.min(size - 1, range[2] ? Number(range[2]) : size - 1);
    res.writeHead(206, { 'Content-Range': `bytes ${start}-${end}/${size}`, 'Content-Length': end - start + 1 });
    fs.createReadStream(file, { start, end }).pipe(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  if (server) await new Promise((r) => server.close(r));
});

const auxHits = () => hits.get('/lc.tif.aux.xml') ?? 0;
type AreaRow = { class: number; label?: string; color?: string };

test('a remote palette raster\'s category names reach area_by_class as the local file\'s do; the sidecar is asked for once', gdal, async () => {
  mode = 'file';
  const url = `${base}/lc.tif`;
  const before = auxHits();
  const ds = await openRaster(url);
  try {
    assert.equal(auxHits() - before, 1, 'one GET of the sidecar per opening');
    assert.ok(ds.colorTable, 'the colour table is read over HTTP');
    const names = ds.categoryNames?.[0] ?? [];
    for (const [v, n] of NAMES) assert.equal(names[v], n);
    assert.equal(ds.warnings, undefined);
  } finally { await ds.close(); }

  const remote = await runTool('area_by_class', { image: url }, { cwd: dir, outDir: path.join(dir, 'out_remote') });
  const local = await runTool('area_by_class', { image: path.join(dir, 'lc.tif') }, { cwd: dir, outDir: path.join(dir, 'out_local') });
  const rows = (r: typeof remote) => ((r.stats as { table: AreaRow[] }).table).map((t) => ({ class: t.class, label: t.label, color: t.color }));
  assert.deepEqual(rows(remote), rows(local));
  for (const [v, n, rgb] of NAMES) {
    const row = rows(remote).find((t) => t.class === v)!;
    assert.equal(row.label, n);
    assert.equal(row.color, '#' + rgb.map((x) => x.toString(16).padStart(2, '0')).join(''));
  }
  assert.match(remote.summary, /水体 \(80\)/);
  assert.match(remote.summary, /Tree cover \(10\)|Cropland \(40\)/);
});

test('no sidecar (404), a 500 or a dropped connection: no names, no warning, and the sidecar is not asked for again', gdal, async () => {
  for (const m of ['404', '500', 'reset'] as SidecarMode[]) {
    mode = m;
    const before = auxHits();
    const ds = await openRaster(`${base}/lc.tif`);
    try {
      assert.equal(ds.categoryNames, undefined, m);
      assert.equal(ds.warnings, undefined, m);
      assert.ok(ds.colorTable, `${m}: the raster itself is read`);
      assert.equal(auxHits() - before, 1, `${m}: asked once, not retried`);
    } finally { await ds.close(); }
  }
  mode = '404';
  const r = await runTool('area_by_class', { image: `${base}/lc.tif` }, { cwd: dir, outDir: path.join(dir, 'out_404') });
  assert.deepEqual((r.stats as { table: AreaRow[] }).table.map((t) => t.label), [undefined, undefined, undefined], 'no label column without names');
  assert.equal((r.stats as { warnings?: string[] }).warnings, undefined);
});

test('a malformed or oversized remote sidecar is ignored with the local file\'s warning, naming the URL (credentials and signatures redacted)', gdal, async () => {
  mode = 'broken';
  const broken = '<PAMDataset><PAMRasterBand band="1"><CategoryNames><Category>a</Category>';
  const localFile = path.join(dir, 'lc_broken.tif');
  fs.copyFileSync(path.join(dir, 'lc.tif'), localFile);
  fs.writeFileSync(`${localFile}.aux.xml`, broken);
  const local = await openRaster(localFile);
  const localWarning = local.warnings?.[0] ?? '';
  await local.close();
  assert.ok(localWarning.startsWith(`${localFile}.aux.xml: `), localWarning);

  const url = `${base.replace('http://', 'http://alice:pw123@')}/lc.tif?X-Amz-Signature=abc123&v=2`;
  const ds = await openRaster(url);
  try {
    assert.equal(ds.categoryNames, undefined);
    assert.equal(ds.warnings?.length, 1);
    const shown = `${base}/lc.tif.aux.xml?X-Amz-Signature=[redacted]&v=2`;
    assert.equal(ds.warnings![0], localWarning.replace(`${localFile}.aux.xml`, shown));
  } finally { await ds.close(); }
  const r = await runTool('area_by_class', { image: `${base}/lc.tif` }, { cwd: dir, outDir: path.join(dir, 'out_broken') });
  assert.match(((r.stats as { warnings?: string[] }).warnings ?? []).join('\n'), new RegExp(`^${base.replace(/\./g, '\\.')}/lc\\.tif\\.aux\\.xml: .*category names are ignored$`));

  mode = 'huge';
  const big = await openRaster(`${base}/lc.tif`);
  try {
    assert.equal(big.categoryNames, undefined);
    assert.deepEqual(big.warnings, [`${base}/lc.tif.aux.xml: more than the 4 MB read for category names; they are ignored`]);
  } finally { await big.close(); }
});

test('the sidecar of a signed URL keeps its query after the .aux.xml', () => {
  assert.equal(sidecarUrl('https://h.example/a/b.tif?X-Amz-Signature=s&v=1'), 'https://h.example/a/b.tif.aux.xml?X-Amz-Signature=s&v=1');
  assert.equal(sidecarUrl('http://h.example/c.tif'), 'http://h.example/c.tif.aux.xml');
});
