import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { AddressInfo } from 'node:net';
import { openRaster } from '../../src/core/raster/io/dataset';
import { runTool } from '../../src/core/raster/engine';
import { needGdal, py, tmpDir } from '../helpers/raster-gdal';
import { makeS2 } from '../helpers/raster-fixtures';

/** A static server of one file on 127.0.0.1 that honours single Range requests and counts bytes sent. */
function serve(file: string): Promise<{ url: string; stats: { ranged: number; full: number; bytes: number }; close: () => Promise<void> }> {
  const stats = { ranged: 0, full: 0, bytes: 0 };
  const size = fs.statSync(file).size;
  const server = http.createServer((req, res) => {
    // Any other path is not there (the reader asks for the PAM sidecar `<file>.aux.xml` too).
    if (new URL(req.url ?? '/', 'http://x').pathname !== `/${path.basename(file)}`) { res.writeHead(404); res.end(); return; }
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (req.method === 'HEAD') { res.writeHead(200, { 'Content-Length': size, 'Accept-Ranges': 'bytes' }); res.end(); return; }
    if (range) {
      const start = Number(range[1]);
      const end = Math.min(size - 1, range[2] ? Number(range[2]) : size - 1);
      if (start >= size) { res.writeHead(416, { 'Content-Range': `bytes */${size}` }); res.end(); return; }
      stats.ranged++; stats.bytes += end - start + 1;
      res.writeHead(206, { 'Content-Range': `bytes ${start}-${end}/${size}`, 'Content-Length': end - start + 1, 'Accept-Ranges': 'bytes' });
      fs.createReadStream(file, { start, end }).pipe(res);
      return;
    }
    stats.full++; stats.bytes += size;
    res.writeHead(200, { 'Content-Length': size });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => {
    const port = (server.address() as AddressInfo).port;
    resolve({ url: `http://127.0.0.1:${port}/${path.basename(file)}`, stats, close: () => new Promise((r) => server.close(() => r())) });
  }));
}

test('a Cloud-Optimized GeoTIFF over HTTP is read with range requests, window for window like the local file', needGdal(), async () => {
  const dir = tmpDir();
  const src = makeS2(dir);
  const cog = path.join(dir, 'cog.tif');
  py(`from osgeo import gdal\ngdal.Translate(${JSON.stringify(cog)}, ${JSON.stringify(src)}, format='COG', creationOptions=['COMPRESS=DEFLATE', 'BLOCKSIZE=256'])`);
  const srv = await serve(cog);
  try {
    const remote = await openRaster(srv.url);
    const local = await openRaster(cog);
    assert.equal(remote.width, local.width);
    assert.deepEqual(remote.geo, local.geo);
    assert.deepEqual(remote.bandDescriptions, local.bandDescriptions);
    const a = await remote.readWindowRaw(5, 300, 260, 64, 48);
    const b = await local.readWindowRaw(5, 300, 260, 64, 48);
    assert.deepEqual(Array.from(a), Array.from(b));
    assert.equal(srv.stats.full, 0, 'no full-file GET');
    assert.ok(srv.stats.ranged > 0, 'range requests were made');
    assert.ok(srv.stats.bytes < fs.statSync(cog).size / 2, `read ${srv.stats.bytes} of ${fs.statSync(cog).size} bytes for one window`);
    await remote.close(); await local.close();

    // A whole tool run over the URL gives the same numbers as over the local file.
    const r1 = await runTool('ndvi', { image: srv.url }, { outDir: path.join(dir, 'remote') });
    const r2 = await runTool('ndvi', { image: cog }, { outDir: path.join(dir, 'local') });
    assert.equal(r1.stats.mean, r2.stats.mean);
    assert.equal(path.basename(r1.outputs.index.path), 'cog_ndvi.tif');
  } finally {
    await srv.close();
  }
});

test('a quicklook of a COG over HTTP reads its overview: a fraction of the file, and the picture GDAL\'s overview gives', needGdal(), async () => {
  const dir = tmpDir();
  const cog = path.join(dir, 'big_cog.tif');
  const [gw, gh] = py(`from osgeo import gdal
import numpy as np
gdal.UseExceptions()
rng = np.random.default_rng(3)
m = gdal.GetDriverByName('MEM').Create('', 3000, 2400, 1, gdal.GDT_UInt16)
m.SetGeoTransform((300000, 10, 0, 4500000, 0, -10))
m.GetRasterBand(1).WriteArray(rng.integers(0, 10000, (2400, 3000)).astype(np.uint16))
gdal.Translate(${JSON.stringify(cog)}, m, format='COG', creationOptions=['COMPRESS=DEFLATE', 'BLOCKSIZE=256'])
d = gdal.Open(${JSON.stringify(cog)}); o = d.GetRasterBand(1).GetOverview(0)
print(o.XSize, o.YSize)`).trim().split(' ').map(Number);
  const srv = await serve(cog);
  try {
    // 3000 wide at most 1024 a side: every 3rd pixel, 1000×800, from the smallest overview at least
    // that large: the first, 1500×1200 (the second, 750×600, is too small).
    const q = await runTool('quicklook', { image: srv.url }, { outDir: path.join(dir, 'q') });
    assert.deepEqual([q.stats.width, q.stats.height], [1000, 800]);
    const size = fs.statSync(cog).size;
    assert.equal(srv.stats.full, 0);
    assert.ok(srv.stats.bytes < size * 0.4, `a quicklook fetched ${srv.stats.bytes} of ${size} bytes (the first overview is a quarter of the pixels)`);
    const local = await openRaster(cog);
    const [ov] = await local.overviews!();
    assert.deepEqual([ov.width, ov.height], [gw, gh]);
    assert.deepEqual([gw, gh], [1500, 1200]);
    const full = await ov.readWindow(1, 0, 0, 1500, 1200);
    let sum = 0, n = 0;
    for (let j = 0; j < 800; j++) for (let i = 0; i < 1000; i++) { sum += full[Math.floor(j * 3 * 1200 / 2400) * 1500 + Math.floor(i * 3 * 1500 / 3000)]; n++; }
    assert.ok(Math.abs((q.stats.mean as number) - sum / n) < 1e-6 * (sum / n), `quicklook mean ${q.stats.mean} is that of the overview's pixels ${sum / n}`);
    await local.close();
  } finally {
    await srv.close();
  }
});

test('an unreachable URL fails with an error naming it', async () => {
  await assert.rejects(() => openRaster('http://127.0.0.1:9/missing.tif'), /127\.0\.0\.1:9\/missing\.tif/);
});
