/**
 * Hostile vector files and rasters in the wrong format, as zones and cutlines: KML and KMZ (truncated,
 * bit-flipped, entity expansion, a zipped bomb, a damaged ZIP directory), GeoJSON, and the formats
 * GeoWeave names instead of reading (FlatGeobuf, JPEG 2000, VRT), plus rasters with no geotransform
 * (control points only) through the tools that need one. Each trial runs a tool in a child process;
 * it passes when the tool succeeds with only its reported outputs, or fails naming the file with
 * nothing left behind, within its time and memory bounds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { zipBytes } from '../helpers/zip-writer';
import { judge, emptyDir, fingerprint, damaged, trialRoom, Op } from './harness';
import { writeRaster } from '../../src/core/raster/io/writer';
import { mulberry32 } from '../../src/core/raster/algorithms/prng';

type GT = [number, number, number, number, number, number];

const KML = `<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2"><Document><name>fields</name>
<Style id="s"><PolyStyle><fill>0</fill></PolyStyle></Style>
<Folder>${[0, 1, 2].map((i) => `<Placemark><name>field ${i}</name><styleUrl>#s</styleUrl>
<ExtendedData><Data name="crop"><value>c${i}</value></Data></ExtendedData>
<MultiGeometry><Polygon><outerBoundaryIs><LinearRing><coordinates>${[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]].map(([x, y]) => `${117.01 + i * 0.005 + x * 0.004},${39.99 + y * 0.004},0`).join(' ')}</coordinates></LinearRing></outerBoundaryIs>
<innerBoundaryIs><LinearRing><coordinates>${[[0.3, 0.3], [0.6, 0.3], [0.6, 0.6], [0.3, 0.3]].map(([x, y]) => `${117.01 + i * 0.005 + x * 0.004},${39.99 + y * 0.004}`).join(' ')}</coordinates></LinearRing></innerBoundaryIs></Polygon></MultiGeometry></Placemark>`).join('\n')}
</Folder></Document></kml>`;

/** A ZIP with the given entries (stored or deflated), as a KMZ is; `lie` overrides the central directory's fields. */
function zip(entries: { name: string; data: Buffer; deflate?: boolean }[], lie: { size?: number; offset?: number } = {}): Buffer {
  return zipBytes(entries.map((e) => ({ name: e.name, data: e.data, method: e.deflate ? 8 : 0 })), { csize: lie.size, offset: lie.offset });
}

function opFor(k: number, image: string, vector: string, outDir: string): Op {
  const ops: Op[] = [
    { kind: 'runTool', tool: 'zonal_stats', args: { image, zones: vector }, outDir },
    { kind: 'runTool', tool: 'clip_to_vector', args: { image, cutline: vector }, outDir },
  ];
  return ops[k % ops.length];
}

test('vector abuse: hostile KML, KMZ and GeoJSON zones and cutlines, formats GeoWeave names, rasters without a grid', { timeout: 600_000 }, async () => {
  const { root, inDir, outDir, outside, outsideBefore, tally, runner } = trialRoom('gw-abuse-vector-');
  const image = path.join(root, 'scene.tif');
  // Over the fields (117.01-117.024°E, 39.99-39.994°N in UTM 50N).
  await writeRaster(image, { width: 140, height: 100, bands: 1, dtype: 'float32', geo: { geoTransform: [500800, 10, 0, 4427200, 0, -10] as GT, epsg: 32650, geographic: false }, nodata: -9999, blockSize: 32 },
    [Float32Array.from({ length: 14000 }, (_, i) => (i % 140) + Math.floor(i / 140))]);
  let k = 0;
  // Inputs that are fine must give a result, not merely a clean error.
  const refused: string[] = [];
  const trial = async (label: string, name: string, bytes: Buffer, opts: { mustFail?: boolean; mustRun?: boolean; raster?: string; op?: (img: string, f: string) => Op } = {}) => {
    emptyDir(inDir); emptyDir(outDir);
    const file = path.join(inDir, name);
    fs.writeFileSync(file, bytes);
    const frozenIn = fingerprint(inDir);
    const op = opts.op ? opts.op(image, file) : opFor(k++, opts.raster ?? image, file, outDir);
    const r = await runner.run(op);
    if (opts.mustRun && r.status !== 'ok') refused.push(`${label}: ${r.status} ${r.message ?? ''}`.slice(0, 300));
    judge(tally, 'vectors', label, r, {
      names: [file, path.basename(file)], outDir, mustFail: opts.mustFail,
      frozen: [{ dir: inDir, before: frozenIn }, { dir: outside, before: outsideBefore }],
      tempRoots: [inDir, outDir],
    });
  };
  try {
    const rnd = mulberry32(23);
    const kml = Buffer.from(KML);
    const kmz = zip([{ name: 'doc.kml', data: kml, deflate: true }, { name: 'files/pin.png', data: Buffer.from('png') }]);
    const geojson = Buffer.from(JSON.stringify({ type: 'FeatureCollection', features: [{ type: 'Feature', properties: { name: 'a' }, geometry: { type: 'GeometryCollection', geometries: [{ type: 'Polygon', coordinates: [[[117.01, 39.99], [117.02, 39.99], [117.02, 40], [117.01, 39.99]]] }, { type: 'Point', coordinates: [117.015, 39.995] }] } }] }));
    for (const [name, orig] of [['fields.kml', kml], ['fields.kmz', kmz], ['fields.geojson', geojson]] as [string, Buffer][]) {
      await trial(`${name} intact`, name, orig, { mustRun: true });
      for (const [how, bytes] of damaged(orig, rnd, 8, 8)) await trial(`${name} ${how}`, name, bytes);
    }
    // Entity expansion, deep nesting, a huge coordinate list, projected coordinates, another XML document.
    const laughs = `<?xml version="1.0"?><!DOCTYPE kml [<!ENTITY a "${'x'.repeat(100)}">${Array.from({ length: 9 }, (_, i) => `<!ENTITY ${'b'.repeat(i + 1)} "${`&${i ? 'b'.repeat(i) : 'a'};`.repeat(10)}">`).join('')}]><kml><Placemark><name>&bbbbbbbbb;</name></Placemark></kml>`;
    await trial('KML billion laughs', 'laughs.kml', Buffer.from(laughs));
    await trial('KML nested 100000 folders', 'deep.kml', Buffer.from(`<kml>${'<Folder>'.repeat(100_000)}${'</Folder>'.repeat(100_000)}</kml>`));
    await trial('KML with 500000 vertices', 'many.kml', Buffer.from(`<kml><Placemark><Polygon><outerBoundaryIs><LinearRing><coordinates>${Array.from({ length: 500_000 }, (_, i) => `${117.01 + 0.01 * Math.cos(i)},${39.99 + 0.01 * Math.sin(i)}`).join(' ')}</coordinates></LinearRing></outerBoundaryIs></Polygon></Placemark></kml>`));
    await trial('KML in metres', 'utm.kml', Buffer.from('<kml><Placemark><Polygon><outerBoundaryIs><LinearRing><coordinates>500900,4428000 501500,4428000 501500,4427600 500900,4428000</coordinates></LinearRing></outerBoundaryIs></Polygon></Placemark></kml>'), { mustFail: true });
    await trial('an SVG named .kml', 'svg.kml', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><rect/></svg>'), { mustFail: true });
    await trial('an empty .kml', 'empty.kml', Buffer.alloc(0), { mustFail: true });
    // KMZ: a bomb (300 MB of zeros), sizes and offsets that lie, no KML inside, another method, not a ZIP at all.
    await trial('KMZ bomb', 'bomb.kmz', zip([{ name: 'doc.kml', data: Buffer.alloc(300 << 20), deflate: true }]), { mustFail: true });
    await trial('KMZ entry size past the end', 'size.kmz', zip([{ name: 'doc.kml', data: kml, deflate: true }], { size: 2 ** 31 }), { mustFail: true });
    await trial('KMZ entry offset past the end', 'offset.kmz', zip([{ name: 'doc.kml', data: kml }], { offset: 2 ** 30 }), { mustFail: true });
    await trial('KMZ without KML', 'icons.kmz', zip([{ name: 'files/pin.png', data: Buffer.from('png') }]), { mustFail: true });
    const bzip = zip([{ name: 'doc.kml', data: kml }]);
    bzip.writeUInt16LE(12, bzip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])) + 10);
    await trial('KMZ with a bzip2 entry', 'bzip.kmz', bzip, { mustFail: true });
    await trial('a text file named .kmz', 'text.kmz', Buffer.from('not a zip '.repeat(10)), { mustFail: true });
    // Formats named, not read.
    for (const name of ['fields.fgb', 'fields.gml', 'fields.gpx', 'fields.csv', 'fields.parquet']) await trial(`${name} (a format GeoWeave names)`, name, Buffer.from('whatever is inside'), { mustFail: true });
    // A VRT without its source, a JPEG 2000 and an ERDAS Imagine file (both read), and rasters without a geotransform, as the image.
    const py = spawnSync('/usr/bin/python3', ['-c', String.raw`
import sys
from osgeo import gdal, osr
import numpy as np
gdal.UseExceptions()
d0 = sys.argv[1]
a = (np.add.outer(np.arange(40), np.arange(48)) % 200).astype(np.uint8)
s = osr.SpatialReference(); s.ImportFromEPSG(4326)
d = gdal.GetDriverByName('GTiff').Create(d0 + '/gcp.tif', 48, 40, 1, gdal.GDT_Byte)
d.SetGCPs([gdal.GCP(117.0, 40.0, 0, 0, 0), gdal.GCP(117.05, 40.0, 0, 48, 0), gdal.GCP(117.0, 39.96, 0, 0, 40)], s.ExportToWkt())
d.GetRasterBand(1).WriteArray(a); d = None
d = gdal.GetDriverByName('GTiff').Create(d0 + '/plain.tif', 48, 40, 1, gdal.GDT_Byte); d.GetRasterBand(1).WriteArray(a); d = None
d = gdal.GetDriverByName('GTiff').Create(d0 + '/src.tif', 48, 40, 1, gdal.GDT_Byte); d.SetGeoTransform((500000, 10, 0, 4430000, 0, -10)); d.SetProjection(osr.SpatialReference(s.ExportToWkt()).ExportToWkt()); d.GetRasterBand(1).WriteArray(a); d = None
gdal.Translate(d0 + '/band.jp2', d0 + '/src.tif', format='JP2OpenJPEG')
gdal.Translate(d0 + '/scene.vrt', d0 + '/src.tif', format='VRT')
gdal.Translate(d0 + '/scene.img', d0 + '/src.tif', format='HFA')
`, root], { encoding: 'utf8' });
    if (py.status !== 0 && process.env.CI) assert.fail(`GDAL is required in CI: ${py.stderr}`);
    if (py.status === 0) {
      const kmlFile = path.join(root, 'fields.kml');
      fs.writeFileSync(kmlFile, kml);
      for (const name of ['gcp.tif', 'plain.tif']) {
        const bytes = fs.readFileSync(path.join(root, name));
        const need = (tool: string, args: (f: string) => Record<string, unknown>) => (_: string, f: string): Op => ({ kind: 'runTool', tool, args: args(f), outDir });
        await trial(`${name}: zonal_stats with KML zones`, name, bytes, { mustFail: true, op: need('zonal_stats', (f) => ({ image: f, zones: kmlFile })) });
        await trial(`${name}: clip_bbox`, name, bytes, { mustFail: true, op: need('clip_bbox', (f) => ({ image: f, bbox: '117.01,39.97,117.02,39.98', bbox_crs: 'lonlat' })) });
        await trial(`${name}: slope`, name, bytes, { mustFail: true, op: need('slope', (f) => ({ dem: f })) });
        await trial(`${name}: reproject`, name, bytes, { mustFail: true, op: need('reproject', (f) => ({ image: f, dst_crs: 'EPSG:32650' })) });
        await trial(`${name}: area_by_class`, name, bytes, { mustFail: true, op: need('area_by_class', (f) => ({ image: f })) });
        await trial(`${name}: threshold runs`, name, bytes, { mustRun: true, op: need('threshold', (f) => ({ image: f, op: 'gt', value: 50 })) });
      }
      // A VRT copied away from its source fails with its source named; an ERDAS Imagine file is read
      // (io/hfa*.ts; its hostile files are raw-abuse.test.ts's).
      await trial('scene.vrt as the image', 'scene.vrt', fs.readFileSync(path.join(root, 'scene.vrt')), { mustFail: true, op: (_, f) => ({ kind: 'runTool', tool: 'raster_stats', args: { image: f }, outDir }) });
      await trial('scene.img as the image', 'scene.img', fs.readFileSync(path.join(root, 'scene.img')), { mustRun: true, op: (_, f) => ({ kind: 'runTool', tool: 'raster_stats', args: { image: f }, outDir }) });
      // JPEG 2000 is read (io/jp2/; its hostile files are jp2-abuse.test.ts's).
      await trial('band.jp2 as the image', 'band.jp2', fs.readFileSync(path.join(root, 'band.jp2')), { mustRun: true, op: (_, f) => ({ kind: 'runTool', tool: 'raster_stats', args: { image: f }, outDir }) });
    }
  } finally {
    runner.close();
    console.log(tally.summary());
    const fails = tally.failures();
    if (fails.length) console.log(fails.slice(0, 20).map((f) => `${f.outcome}: ${f.input}: ${f.detail}`).join('\n'));
  }
  assert.ok(tally.trials.length >= 80, `only ${tally.trials.length} trials`);
  assert.deepEqual(tally.failures().map((f) => `${f.outcome}: ${f.input}: ${f.detail}`), []);
  assert.deepEqual(refused, []);
  fs.rmSync(root, { recursive: true, force: true });
});
