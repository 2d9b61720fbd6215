/** Colour tables and category names of class rasters, against GDAL: palette GeoTIFFs (8- and 16-bit)
 *  made by GDAL with a gdal.ColorTable and SetCategoryNames (PAM .aux.xml), read by GeoWeave (both
 *  the light IFD reader and geotiff.js), drawn in the quicklook (pixels and legend), on the map
 *  (MapClass), in the .qml, kept by clip/resample/reproject (gdalinfo reads the same table back) and
 *  named in area_by_class's table. Hostile ColorMaps and sidecars are ignored with a warning. */
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { openRaster, setLightIfd } from '../../src/core/raster/io/dataset';
import { parsePamCategoryNames, colorTableFromColorMap, usedValues } from '../../src/core/raster/io/color-table';
import { renderQuicklook, takePalette, ownLegend } from '../../src/core/raster/quicklook';
import { readPreview } from '../../src/core/raster/tools/common';
import { qmlStyle } from '../../src/core/results/qml';
import { MapData, tableClasses } from '../../src/core/results/map-data';
import { runTool } from '../../src/core/raster/engine';
import { resultView } from '../../src/core/results/view-model';
import { styleProcessRaster } from '../../src/core/notebook/process-style';
import { patchEntry, ifdEntries } from '../helpers/tiff-patch';
import { gdalSkip, pyJson, tmpDir } from '../helpers/raster-gdal';

const skip = gdalSkip('colour table tests', ['gdalinfo']);

/** WorldCover's classes and colours (value, name, colour). */
const WORLDCOVER: [number, string, [number, number, number]][] = [
  [10, 'Tree cover', [0, 100, 0]], [20, 'Shrubland', [255, 187, 34]], [30, 'Grassland', [255, 255, 76]],
  [40, 'Cropland', [240, 150, 255]], [50, 'Built-up', [250, 0, 0]], [60, 'Bare / sparse vegetation', [180, 180, 180]],
  [80, 'Permanent water bodies', [0, 100, 200]], [90, 'Herbaceous wetland', [0, 150, 160]],
];

/** Makes the test rasters with GDAL and prints, per file, GDAL's colour table entries and category names. */
const MAKE = String.raw`
import sys, json
from osgeo import gdal, osr
import numpy as np
gdal.UseExceptions()
d0 = sys.argv[1]
classes = json.loads(sys.argv[2])
W, H = 300, 200
yy, xx = np.mgrid[0:H, 0:W]
def mk(name, dt, co, values, table, names, nodata):
    ds = gdal.GetDriverByName('GTiff').Create(d0 + '/' + name, W, H, 1, dt, co)
    ds.SetGeoTransform((500000, 10, 0, 4400000, 0, -10))
    s = osr.SpatialReference(); s.ImportFromEPSG(32650); ds.SetProjection(s.ExportToWkt())
    b = ds.GetRasterBand(1)
    b.WriteArray(values)
    if nodata is not None: b.SetNoDataValue(nodata)
    ct = gdal.ColorTable()
    for v, c in table: ct.SetColorEntry(v, tuple(c) + (255,))
    b.SetColorTable(ct)
    b.SetRasterColorInterpretation(gdal.GCI_PaletteIndex)
    if names: b.SetCategoryNames(names)
    ds = None
# 8-bit: WorldCover classes in vertical stripes, nodata 0 in the top rows.
vals = np.array([c[0] for c in classes], dtype=np.uint8)
v8 = vals[(xx * len(vals)) // W].astype(np.uint8)
v8[:10, :] = 0
names = [''] * 256
for v, n, c in classes: names[v] = n
names[0] = 'No data'
mk('wc8.tif', gdal.GDT_Byte, ['TILED=YES', 'COMPRESS=DEFLATE'], v8, [(v, c) for v, n, c in classes], names, 0)
# The same through geotiff.js (LZW is not the light reader's).
mk('wc8_lzw.tif', gdal.GDT_Byte, ['COMPRESS=LZW'], v8, [(v, c) for v, n, c in classes], names, 0)
# 16-bit: classes up to 40000, 65536 entries, no names, no nodata.
v16 = np.where(xx < W // 2, 7, np.where(yy < H // 2, 1234, 40000)).astype(np.uint16)
mk('c16.tif', gdal.GDT_UInt16, ['TILED=YES', 'COMPRESS=DEFLATE'], v16, [(7, (10, 20, 30)), (1234, (200, 100, 0)), (40000, (1, 254, 128))], None, None)
out = {}
for f in ['wc8.tif', 'wc8_lzw.tif', 'c16.tif']:
    ds = gdal.Open(d0 + '/' + f)
    b = ds.GetRasterBand(1)
    ct = b.GetColorTable()
    out[f] = {'count': ct.GetCount(), 'entries': [list(ct.GetColorEntry(i))[:3] for i in range(ct.GetCount())], 'names': b.GetCategoryNames(), 'aux': __import__('os').path.exists(d0 + '/' + f + '.aux.xml')}
print(json.dumps(out))
`;

let dir = '';
let gdal: Record<string, { count: number; entries: number[][]; names: string[] | null; aux: boolean }> = {};

before(() => {
  if (skip) return;
  dir = tmpDir('gw-ct-');
  gdal = pyJson(MAKE, dir, JSON.stringify(WORLDCOVER));
});

/** GDAL's colour table of `file` (RGB per entry) and its category names. */
function gdalTable(file: string): { count: number; entries: number[][]; names: string[] | null } {
  return pyJson(String.raw`
import sys, json
from osgeo import gdal
ds = gdal.Open(sys.argv[1])
b = ds.GetRasterBand(1)
ct = b.GetColorTable()
print(json.dumps({'count': ct.GetCount() if ct else 0, 'entries': [list(ct.GetColorEntry(i))[:3] for i in range(ct.GetCount())] if ct else [], 'names': b.GetCategoryNames(), 'interp': gdal.GetColorInterpretationName(b.GetColorInterpretation())}))
`, file);
}

/** RGBA pixels of a PNG as GDAL reads it: { w, h, px(x, y) }. */
function pngPixels(file: string): { w: number; h: number; px: (x: number, y: number) => number[] } {
  const r = pyJson(String.raw`
import sys, json
from osgeo import gdal
d = gdal.Open(sys.argv[1])
a = d.ReadAsArray()
print(json.dumps({'w': d.RasterXSize, 'h': d.RasterYSize, 'bands': a.shape[0], 'data': a.transpose(1, 2, 0).reshape(-1).tolist()}))
`, file);
  return { w: r.w, h: r.h, px: (x, y) => r.data.slice((y * r.w + x) * r.bands, (y * r.w + x + 1) * r.bands) };
}

test('the colour table equals GDAL\'s GetColorTable() (8-bit light reader and geotiff.js, 16-bit), category names from the .aux.xml', { skip }, async () => {
  for (const f of ['wc8.tif', 'wc8_lzw.tif', 'c16.tif']) {
    for (const light of [true, false]) {
      setLightIfd(light);
      try {
        const ds = await openRaster(path.join(dir, f));
        try {
          const g = gdal[f];
          assert.ok(ds.colorTable, `${f}: a colour table`);
          assert.equal(ds.colorTable!.count, g.count, `${f}: entries`);
          for (let v = 0; v < g.count; v++) {
            const ours: number[] = Array.from(ds.colorTable!.rgb.subarray(3 * v, 3 * v + 3));
            if (ours.join() !== g.entries[v].join()) assert.deepEqual(ours, g.entries[v], `${f} entry ${v}`);
          }
          if (g.names) {
            assert.ok(g.aux, 'GDAL wrote the names into the .aux.xml');
            assert.deepEqual(ds.categoryNames?.[0]?.slice(0, g.names.length), g.names);
          } else assert.equal(ds.categoryNames, undefined);
          assert.equal(ds.warnings, undefined);
        } finally { await ds.close(); }
      } finally { setLightIfd(true); }
    }
  }
});

test('a ColorMap of 16-bit values that are not multiples of 257 scales to 8 bits as GDAL does', { skip }, async () => {
  const b = fs.readFileSync(path.join(dir, 'wc8.tif'));
  const e = ifdEntries(b).find((x) => x.tag === 320)!;
  const odd = [0, 255, 256, 511, 65535, 1000, 12345, 40000, 257, 65534];
  for (let k = 0; k < 768; k++) b.writeUInt16LE(odd[k % odd.length], e.value + 2 * k);
  const f = path.join(dir, 'odd_cm.tif');
  fs.writeFileSync(f, b);
  const g = gdalTable(f);
  const ds = await openRaster(f);
  try {
    for (let v = 0; v < 256; v++) assert.deepEqual(Array.from(ds.colorTable!.rgb.subarray(3 * v, 3 * v + 3)), g.entries[v], `entry ${v}`);
  } finally { await ds.close(); }
});

test('quicklook: pixels of a class are its table colour, nodata transparent; the legend is the classes present, by name; the .qml has the entries', { skip }, async () => {
  const ds = await openRaster(path.join(dir, 'wc8.tif'));
  const png = path.join(dir, 'ql', 'wc8.png');
  try {
    const p = await readPreview(ds, 1, 768);
    // kind 'continuous' on purpose: the colour table wins.
    const pal = await renderQuicklook(png, p.data, p.w, p.h, { kind: 'continuous', title: 'wc8', ...ownLegend(ds) });
    assert.equal(pal.kind, 'class');
    assert.deepEqual(pal.classes!.map((c) => c.value), WORLDCOVER.map((c) => c[0]));
    for (const [v, name, rgb] of WORLDCOVER) {
      const c = pal.classes!.find((k) => k.value === v)!;
      assert.deepEqual(c.color, rgb);
      assert.equal(c.label, name);
    }
    // The image sits below the 16-px title, centred in a canvas at least 320 wide.
    const img = pngPixels(png);
    const ox = Math.floor((img.w - p.w) / 2);
    for (let k = 0; k < WORLDCOVER.length; k++) {
      const x = Math.floor(((k + 0.5) * 300) / WORLDCOVER.length);
      assert.deepEqual(img.px(ox + x, 16 + 100), [...WORLDCOVER[k][2], 255], `class ${WORLDCOVER[k][0]} at x=${x}`);
    }
    assert.equal(img.px(ox + 5, 16 + 2)[3], 0, 'nodata (0) is transparent');
    // The legend swatches: one per class present, in table colours (first row at y = 16 + 200 + 6).
    const swatch = img.px(4 + 3, 16 + 200 + 6 + 3);
    assert.deepEqual(swatch, [...WORLDCOVER[0][2], 255]);
    const qml = qmlStyle(takePalette(png) ?? pal);
    for (const [v, name, rgb] of WORLDCOVER) {
      const hex = '#' + rgb.map((x) => x.toString(16).padStart(2, '0')).join('');
      assert.ok(qml.includes(`<paletteEntry value="${v}" color="${hex}" alpha="255" label="${name.replace('/', '/')}"/>`), `qml entry ${v}`);
    }
    assert.ok(!qml.includes('paletteEntry value="0"'), 'no entry for nodata');
    assert.match(qml, /rasterrenderer type="paletted"/);
    // The quicklook tool on the input draws it the same way, whatever its colormap argument.
    const q = await runTool('quicklook', { image: path.join(dir, 'wc8.tif'), colormap: 'continuous' }, { cwd: dir, outDir: path.join(dir, 'out_ql') });
    const shot = pngPixels(q.quicklook!);
    const qx = Math.floor((shot.w - 300) / 2);
    for (let k = 0; k < WORLDCOVER.length; k++) assert.deepEqual(shot.px(qx + Math.floor(((k + 0.5) * 300) / WORLDCOVER.length), 16 + 100), [...WORLDCOVER[k][2], 255]);
  } finally { await ds.close(); }
});

test('a process tool\'s palette output (styleProcessRaster) is styled in its table with category names', { skip }, async () => {
  const f = path.join(dir, 'proc', 'wc8.tif');
  fs.mkdirSync(path.dirname(f), { recursive: true });
  fs.copyFileSync(path.join(dir, 'wc8.tif'), f);
  fs.copyFileSync(path.join(dir, 'wc8.tif.aux.xml'), `${f}.aux.xml`);
  const st = await styleProcessRaster(f);
  assert.equal(st!.stats.style, 'paletted');
  const qml = fs.readFileSync(st!.style, 'utf8');
  for (const [v, name] of WORLDCOVER) assert.match(qml, new RegExp(`paletteEntry value="${v}" color="#[0-9a-f]{6}" alpha="255" label="${name}"`));
  assert.equal((qml.match(/<paletteEntry /g) ?? []).length, WORLDCOVER.length);
});

test('16-bit table: the legend and the map list only the classes present; the .qml only the used entries', { skip }, async () => {
  const ds = await openRaster(path.join(dir, 'c16.tif'));
  try {
    assert.equal(ds.colorTable!.count, 65536);
    assert.deepEqual(usedValues(ds.colorTable!, []), [7, 1234, 40000]);
    const p = await readPreview(ds, 1, 768);
    const png = path.join(dir, 'ql', 'c16.png');
    const pal = await renderQuicklook(png, p.data, p.w, p.h, { kind: 'continuous', ...ownLegend(ds) });
    assert.deepEqual(pal.classes!.map((c) => [c.value, c.color, c.label]), [[7, [10, 20, 30], 'class 7'], [1234, [200, 100, 0], 'class 1234'], [40000, [1, 254, 128], 'class 40000']]);
    const qml = qmlStyle(pal);
    assert.equal((qml.match(/<paletteEntry /g) ?? []).length, 3);
  } finally { await ds.close(); }
  const map = new MapData({ roots: () => [dir], cacheDir: path.join(dir, 'cache') });
  try {
    const info = await map.describe({ path: path.join(dir, 'c16.tif'), bands: [1] });
    assert.equal(info.kind, 'class');
    assert.deepEqual(info.classes, [
      { value: 7, label: 'class 7', color: '#0a141e' }, { value: 1234, label: 'class 1234', color: '#c86400' }, { value: 40000, label: 'class 40000', color: '#01fe80' },
    ]);
  } finally { await map.dispose(); }
});

test('map: a palette layer is a class layer in its table colours, named, nodata without a class; classes the overview missed are unlisted', { skip }, async () => {
  const map = new MapData({ roots: () => [dir], cacheDir: path.join(dir, 'cache') });
  try {
    const info = await map.describe({ path: path.join(dir, 'wc8.tif'), bands: [1], auto: true });
    assert.equal(info.kind, 'class');
    const listed = info.classes!.filter((c) => !c.unlisted);
    assert.deepEqual(listed.map((c) => [c.value, c.label]), WORLDCOVER.map((c) => [c[0], c[1]]));
    for (const [v, , rgb] of WORLDCOVER) assert.equal(info.classes!.find((c) => c.value === v)!.color, '#' + rgb.map((x) => x.toString(16).padStart(2, '0')).join(''));
    assert.ok(!info.classes!.some((c) => c.value === 0), 'nodata has no class');
    // Classes not seen in the overview: coloured, not in the legend.
    const ds = await openRaster(path.join(dir, 'wc8.tif'));
    try {
      const cls = tableClasses(ds.colorTable!, [10, 20], ds.categoryNames![0], undefined, 0);
      assert.deepEqual(cls.filter((c) => !c.unlisted).map((c) => c.label), ['Tree cover', 'Shrubland']);
      assert.deepEqual(cls.filter((c) => c.unlisted).map((c) => c.value), WORLDCOVER.slice(2).map((c) => c[0]));
      assert.equal(cls.find((c) => c.value === 80)!.label, 'Permanent water bodies');
    } finally { await ds.close(); }
  } finally { await map.dispose(); }
});

test('clip_bbox, resample (nearest) and reproject keep the colour table and names: GDAL reads the input\'s back; area_by_class names the classes', { skip }, async () => {
  const input = path.join(dir, 'wc8.tif');
  const runs: [string, Record<string, unknown>][] = [
    ['clip_bbox', { image: input, bbox: [500500, 4398500, 502500, 4399800] }],
    ['resample', { image: input, factor: 2, method: 'nearest' }],
    ['reproject', { image: input, dst_crs: 'EPSG:4326', resampling: 'nearest' }],
  ];
  const want = gdalTable(input);
  for (const [tool, args] of runs) {
    const r = await runTool(tool, args, { cwd: dir, outDir: path.join(dir, `out_${tool}`) });
    const out = Object.values(r.outputs)[0];
    assert.equal(out.sidecar, `${out.path}.aux.xml`, `${tool}: the names' sidecar is reported`);
    const got = gdalTable(out.path);
    assert.equal(got.count, 256, `${tool}: GDAL sees a colour table`);
    assert.deepEqual(got.entries, want.entries, `${tool}: same entries`);
    assert.deepEqual(got.names, want.names, `${tool}: same category names`);
    // Its quicklook and style are in the table's colours too.
    const qml = fs.readFileSync(out.style!, 'utf8');
    assert.match(qml, /paletteEntry value="10" color="#006400" alpha="255" label="Tree cover"/, `${tool}: qml`);
  }
  // A later output of the same name without names replaces the sidecar too (no stale category names).
  const again = await runTool('clip_bbox', { image: path.join(dir, 'c16.tif'), bbox: [500500, 4398500, 502500, 4399800] }, { cwd: dir, outDir: path.join(dir, 'out_clip_bbox') });
  const clipped = Object.values(again.outputs)[0];
  assert.equal(clipped.sidecar, undefined);
  assert.ok(!fs.existsSync(`${clipped.path}.aux.xml`), 'the earlier clip\'s .aux.xml is gone');
  assert.equal(gdalTable(clipped.path).count, 65536);
  // Averaging makes new values: no table.
  const avg = await runTool('resample', { image: input, factor: 2, method: 'average' }, { cwd: dir, outDir: path.join(dir, 'out_avg') });
  assert.equal(gdalTable(Object.values(avg.outputs)[0].path).count, 0);

  const a = await runTool('area_by_class', { image: input }, { cwd: dir, outDir: path.join(dir, 'out_area') });
  const table = (a.stats as any).table as { class: number; label: string; color: string }[];
  for (const [v, name, rgb] of WORLDCOVER) {
    const row = table.find((t) => t.class === v)!;
    assert.equal(row.label, name);
    assert.equal(row.color, '#' + rgb.map((x) => x.toString(16).padStart(2, '0')).join(''));
  }
  assert.match(a.summary, /Tree cover|Shrubland|Grassland|Cropland|Built-up|Bare|water|wetland/);
  const view = resultView(a, { image: input });
  const t = view.tables.find((x) => x.columns.some((c) => c.key === 'label'))!;
  assert.equal(t.columns[0].key, 'label');
  assert.ok(!t.columns.some((c) => c.key === 'color'), 'the colour is the swatch, not a column');
  const li = t.columns.findIndex((c) => c.key === 'label');
  t.rows.forEach((row, i) => {
    const c = WORLDCOVER.find((w) => w[1] === row[li])!;
    assert.equal(t.swatches![i], '#' + c[2].map((x) => x.toString(16).padStart(2, '0')).join(''));
  });
});

test('hostile: a ColorMap of the wrong count is ignored with a warning (the pixels still read); a broken .aux.xml is ignored naming the file', { skip }, async () => {
  const src = fs.readFileSync(path.join(dir, 'wc8.tif'));
  for (const count of [3, 767, 769, 3 * 65536, 2 ** 31]) {
    const f = path.join(dir, `bad_cm_${count}.tif`);
    const b = Buffer.from(src);
    patchEntry(b, 320, { count });
    fs.writeFileSync(f, b);
    for (const light of [true, false]) {
      setLightIfd(light);
      try {
        let ds;
        try { ds = await openRaster(f); } catch (e) {
          // A count past the end of the file is the structure check's clear error, naming the tag.
          assert.match((e as Error).message, /ColorMap/);
          assert.ok((e as Error).message.includes(f));
          continue;
        }
        try {
          assert.equal(ds.colorTable, undefined, `count ${count}: no table`);
          assert.match(ds.warnings!.join('\n'), /ColorMap has \d+ values; 8-bit samples need 3 × 256 = 768; the colour table is ignored/);
          assert.equal((await ds.readWindow(1, 0, 20, 1, 1))[0], 10);
        } finally { await ds.close(); }
      } finally { setLightIfd(true); }
    }
  }
  assert.equal(typeof colorTableFromColorMap(new Uint16Array(768), 8, 2, 1), 'string', 'signed samples have no palette');
  assert.equal(typeof colorTableFromColorMap(new Uint16Array(768), 8, 1, 3), 'string', 'three samples have no palette');

  const f = path.join(dir, 'badaux.tif');
  fs.copyFileSync(path.join(dir, 'wc8.tif'), f);
  for (const [xml, why] of [
    ['<PAMDataset><PAMRasterBand band="1"><CategoryNames><Category>a</Category>', /not closed/],
    ['{"json": true}', /not a GDAL PAM document/],
    ['<PAMDataset><PAMRasterBand band="1"><CategoryNames><Category>a</Category></PAMRasterBand></PAMDataset>', /CategoryNames> of band 1 is not closed/],
  ] as [string, RegExp][]) {
    fs.writeFileSync(`${f}.aux.xml`, xml);
    const ds = await openRaster(f);
    try {
      assert.ok(ds.colorTable);
      assert.equal(ds.categoryNames, undefined);
      assert.equal(ds.warnings!.length, 1);
      assert.ok(ds.warnings![0].startsWith(`${f}.aux.xml: `), ds.warnings![0]);
      assert.match(ds.warnings![0], why);
    } finally { await ds.close(); }
  }
  // Entities, empty and self-closed categories, other bands, and a huge document bounded.
  assert.deepEqual(parsePamCategoryNames('<?xml version="1.0"?>\n<PAMDataset><PAMRasterBand band="2"><CategoryNames><Category>x</Category></CategoryNames></PAMRasterBand><PAMRasterBand band="1"><CategoryNames><Category/><Category>A &amp; B &lt;1&gt;</Category><Category></Category><Category>&#x4e2d;</Category></CategoryNames></PAMRasterBand></PAMDataset>', 1), [['', 'A & B <1>', '', '中']]);
  const many = `<PAMDataset><PAMRasterBand band="1"><CategoryNames>${'<Category>n</Category>'.repeat(70000)}</CategoryNames></PAMRasterBand></PAMDataset>`;
  assert.equal(parsePamCategoryNames(many, 1)![0]!.length, 65536);
});
