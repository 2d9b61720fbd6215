/**
 * Overviews read as GDAL reads them: a COG's and gdaladdo's internal overviews (DEFLATE through the
 * direct reader, LZW through geotiff.js, strips, an internal mask beside them, an external .ovr), and a JPEG 2000
 * codestream's resolution levels (1 and 3 components, tiles cut at the edges). Sizes, samples of
 * whole levels and of windows across tiles, and geotransforms equal GDAL's; previews, quicklooks and
 * raster_info read them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openRaster, type RasterDataset } from '../../src/core/raster/io/dataset';
import { readPreview } from '../../src/core/raster/tools/common';
import { runTool } from '../../src/core/raster/engine';
import { localizeSummary } from '../../src/core/results/summary-language';
import { rasterFileView } from '../../src/core/results/raster-view';
import { needGdal, py, tmpDir } from '../helpers/raster-gdal';

const W = 1500, H = 1100;
const FILES = [
  // A COG (DEFLATE: the direct tile reader), overviews averaged.
  { name: 'cog.tif', bands: 1, make: `gdal.Translate(f, m, format='COG', creationOptions=['COMPRESS=DEFLATE', 'BLOCKSIZE=256', 'OVERVIEW_RESAMPLING=AVERAGE'])` },
  // LZW (geotiff.js decodes), gdaladdo overviews with an internal mask: mask IFDs sit between them.
  {
    name: 'lzw.tif', bands: 3, make: `gdal.Translate(f, m, creationOptions=['COMPRESS=LZW', 'TILED=YES', 'BLOCKXSIZE=256', 'BLOCKYSIZE=256'])
gdal.SetConfigOption('GDAL_TIFF_INTERNAL_MASK', 'YES')
d = gdal.Open(f, gdal.GA_Update); d.CreateMaskBand(gdal.GMF_PER_DATASET); d.GetRasterBand(1).GetMaskBand().WriteArray((yy % 97 > 3).astype(np.uint8) * 255)
d.BuildOverviews('NEAREST', [2, 4, 8]); d = None`,
  },
  // Strips, and a factor that is not a power of two.
  { name: 'strips.tif', bands: 1, make: `gdal.Translate(f, m, creationOptions=['COMPRESS=DEFLATE'])\nd = gdal.Open(f, gdal.GA_Update); d.BuildOverviews('AVERAGE', [3, 9]); d = None` },
  // External overviews (`<file>.ovr`, as gdaladdo writes for a file opened read-only and QGIS's "Build Pyramids" by default).
  { name: 'external.tif', bands: 1, make: `gdal.Translate(f, m, creationOptions=['COMPRESS=DEFLATE', 'TILED=YES'])\nd = gdal.Open(f); d.BuildOverviews('AVERAGE', [2, 4, 8]); d = None\nassert os.path.exists(f + '.ovr')` },
  // JPEG 2000: 3 decomposition levels, 512² tiles cut at the right and bottom edges.
  { name: 'band.jp2', bands: 1, make: `gdal.Translate(f, m, format='JP2OpenJPEG', creationOptions=['REVERSIBLE=YES', 'QUALITY=100', 'BLOCKXSIZE=512', 'BLOCKYSIZE=512', 'RESOLUTIONS=4'])` },
  // Three components, lossy, tiles that do not halve evenly (300 → 150 → 75 → 38).
  { name: 'rgb.jp2', bands: 3, type: 'Byte', make: `gdal.Translate(f, m, format='JP2OpenJPEG', creationOptions=['QUALITY=30', 'BLOCKXSIZE=300', 'BLOCKYSIZE=300', 'RESOLUTIONS=4'])` },
];

/** Writes the file and dumps GDAL's reading of every overview: sizes, geotransforms, samples (band-sequential, native type). */
function make(dir: string, c: (typeof FILES)[number]): { file: string; levels: { w: number; h: number; gt: number[] }[] } {
  const file = path.join(dir, c.name);
  const type = c.type ?? 'UInt16';
  const out = py(`
from osgeo import gdal, osr
import numpy as np, json, os
gdal.UseExceptions()
f = ${JSON.stringify(file)}
rng = np.random.default_rng(11)
m = gdal.GetDriverByName('MEM').Create('', ${W}, ${H}, ${c.bands}, gdal.GDT_${type})
m.SetGeoTransform((400000, 10, 0, 5100000, 0, -10)); s = osr.SpatialReference(); s.ImportFromEPSG(32631); m.SetProjection(s.ExportToWkt())
yy, xx = np.mgrid[0:${H}, 0:${W}]
for b in range(1, ${c.bands} + 1):
    a = 0.5 + 0.3 * np.sin(xx / (17.0 + b)) * np.cos(yy / 29.0) + 0.2 * (rng.random((${H}, ${W})) - 0.5)
    m.GetRasterBand(b).WriteArray((a * ${type === 'Byte' ? 255 : 12000}).astype(np.${type === 'Byte' ? 'uint8' : 'uint16'}))
${c.make}
d = gdal.Open(f)
levels = []
for i in range(d.GetRasterBand(1).GetOverviewCount()):
    o = gdal.OpenEx(f, open_options=['OVERVIEW_LEVEL=%d' % i])
    ov = d.GetRasterBand(1).GetOverview(i)
    levels.append({'w': ov.XSize, 'h': ov.YSize, 'gt': list(o.GetGeoTransform())})
    np.concatenate([d.GetRasterBand(b).GetOverview(i).ReadAsArray().ravel() for b in range(1, d.RasterCount + 1)]).tofile(f + '.ov%d' % i)
print(json.dumps(levels))
`);
  return { file, levels: JSON.parse(out) };
}

function gdalLevel(file: string, i: number, bands: number, w: number, h: number, byte: boolean): ArrayLike<number>[] {
  const b = fs.readFileSync(`${file}.ov${i}`);
  const all = byte ? new Uint8Array(b.buffer, b.byteOffset, b.length) : new Uint16Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
  return Array.from({ length: bands }, (_, k) => all.subarray(k * w * h, (k + 1) * w * h));
}

test('overviews equal GDAL\'s: COG, gdaladdo beside a mask, strips, an external .ovr, JPEG 2000 resolution levels (sizes, samples, windows, geotransforms)', needGdal(), async () => {
  const dir = tmpDir();
  for (const c of FILES) {
    const { file, levels } = make(dir, c);
    assert.ok(levels.length >= 2, `${c.name}: GDAL sees ${levels.length} overviews`);
    const ds = await openRaster(file);
    try {
      const ovs = await ds.overviews!();
      assert.deepEqual(ovs.map((o) => [o.width, o.height]), levels.map((l) => [l.w, l.h]), `${c.name}: overview sizes`);
      for (const [i, o] of ovs.entries()) {
        const l = levels[i];
        o.geo.geoTransform.forEach((v, k) => assert.ok(Math.abs(v - l.gt[k]) < 1e-6, `${c.name} overview ${i}: geotransform ${o.geo.geoTransform} vs GDAL ${l.gt}`));
        assert.equal(o.geo.epsg, 32631);
        assert.equal(o.bandCount, c.bands);
        const want = gdalLevel(file, i, c.bands, l.w, l.h, c.type === 'Byte');
        for (let b = 1; b <= c.bands; b++) {
          const got = await o.readWindowRaw(b, 0, 0, o.width, o.height);
          let diff = 0;
          for (let k = 0; k < got.length; k++) if (got[k] !== want[b - 1][k]) diff++;
          assert.equal(diff, 0, `${c.name} overview ${i} (${o.width}×${o.height}) band ${b}: ${diff} samples differ from GDAL`);
          // A window across tile edges, read on its own (a fresh dataset: nothing cached from the whole read).
          const x = Math.floor(o.width / 3), y = Math.floor(o.height / 4), ww = Math.min(o.width - x, Math.ceil(o.width / 2)), hh = Math.min(o.height - y, Math.ceil(o.height / 2));
          const fresh = await openRaster(file);
          const win = await (await fresh.overviews!())[i].readWindowRaw(b, x, y, ww, hh);
          await fresh.close();
          for (let r = 0; r < hh; r++) for (let q = 0; q < ww; q++) {
            if (win[r * ww + q] !== want[b - 1][(y + r) * o.width + x + q]) assert.fail(`${c.name} overview ${i} band ${b}: window x=${x} y=${y} differs at (${q}, ${r})`);
          }
        }
      }
    } finally { await ds.close(); }
  }
});

test('a preview reads the smallest overview as large as itself; a file without overviews is sampled as before', needGdal(), async () => {
  const dir = tmpDir();
  const { file, levels } = make(dir, FILES[0]);
  // 1500×1100 at most 400 a side: every 4th pixel, 375×275, which is overview 1 (level 2) exactly.
  const ds = await openRaster(file);
  const p = await readPreview(ds, 1, 400);
  assert.deepEqual([p.w, p.h], [375, 275]);
  assert.deepEqual([levels[1].w, levels[1].h], [375, 275]);
  const want = gdalLevel(file, 1, 1, 375, 275, false)[0];
  assert.deepEqual(Array.from(p.data), Array.from(want), 'the preview is GDAL\'s overview');
  await ds.close();
  // No overviews: every f-th pixel of the full grid.
  const plain = path.join(dir, 'plain.tif');
  py(`from osgeo import gdal\ngdal.UseExceptions()\ngdal.Translate(${JSON.stringify(plain)}, ${JSON.stringify(file)}, creationOptions=['COMPRESS=DEFLATE', 'TILED=YES', 'COPY_SRC_OVERVIEWS=NO'])`);
  const pd = await openRaster(plain);
  assert.deepEqual(await pd.overviews!(), []);
  const q = await readPreview(pd, 1, 400);
  const full = await pd.readWindow(1, 0, 0, W, H);
  for (let py = 0; py < 275; py += 37) for (let px = 0; px < 375; px += 23) assert.equal(q.data[py * 375 + px], full[py * 4 * W + px * 4]);
  await pd.close();
});

test('raster_info lists the overviews; quicklook of a JPEG 2000 band reads a resolution level; closed means closed', needGdal(), async () => {
  const dir = tmpDir();
  const { file } = make(dir, FILES.find((c) => c.name === 'band.jp2')!);
  const info = await runTool('raster_info', { image: file }, { outDir: dir });
  assert.deepEqual(info.stats.overviews, [[750, 550], [375, 275], [188, 138]]);
  assert.match(info.summary, /Overviews: 750×550, 375×275, 188×138\./);
  // In Chinese too (the summary template keeps every number).
  const zh = localizeSummary(info, 'zh');
  assert.ok(zh.translated, zh.text);
  assert.match(zh.text, /像元.*概视图：750×550, 375×275, 188×138。$/);
  const q = await runTool('quicklook', { image: file }, { outDir: dir });
  // 1500 wide at most 1024 a side: every 2nd pixel, 750×550, the first resolution level.
  assert.deepEqual([q.stats.width, q.stats.height], [750, 550]);
  const want = gdalLevel(file, 0, 1, 750, 550, false)[0];
  let sum = 0; for (let k = 0; k < want.length; k++) sum += want[k];
  assert.ok(Math.abs((q.stats.mean as number) - sum / want.length) < 1e-3 * (sum / want.length), `quicklook mean ${q.stats.mean} is the level's mean ${sum / want.length}`);
  // The raster viewer's view of the file: raster_info's summary, the band table, the file on the map; nothing written.
  const before = fs.readdirSync(dir).sort();
  const view = await rasterFileView(file);
  assert.equal(view.tool, 'raster_info');
  assert.match(view.summary, /^1500×1100 pixels, 1 uint16 band at 10 m in EPSG:32631 .*Overviews: 750×550, 375×275, 188×138\.$/);
  assert.deepEqual(view.map?.layers.map((l) => `${l.id} ${l.path} ${l.visible} ${l.auto}`), [`in:image ${file} true true`]);
  assert.ok(view.tables.some((t) => t.rows.length === 1), 'a table of the one band');
  assert.deepEqual(view.outputs, []);
  assert.equal(view.lang, undefined);
  const zhView = await rasterFileView(file, 'zh');
  assert.equal(zhView.lang, 'zh');
  assert.match(zhView.summary, /^1500×1100 像元/);
  assert.deepEqual(fs.readdirSync(dir).sort(), before, 'the viewer writes nothing');
  const ds: RasterDataset = await openRaster(file);
  const [o] = await ds.overviews!();
  await ds.close();
  await assert.rejects(o.readWindow(1, 0, 0, 10, 10), /closed/);
});
