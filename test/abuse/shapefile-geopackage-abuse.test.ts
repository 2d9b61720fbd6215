/**
 * Hostile Shapefiles and GeoPackages as zones and cutlines. A Shapefile is several files, so a trial
 * plants a set: a damaged .shp or .dbf (truncated, bit-flipped, a header that lies about its record
 * count or length, a NaN vertex), sidecars that are FIFOs, folders or megabytes of garbage. A
 * GeoPackage is an SQLite database whose author chooses the SQL: views that never end, catalog tables
 * that are views, virtual tables, geometry blobs that are not WKB, CRS rows that are missing or wrong.
 * Each trial runs a tool in a child process; it passes when the tool succeeds with only its reported
 * outputs, or fails naming the file with nothing left behind, within its time and memory bounds.
 * Found by these trials: a .dbf record length of 0 ran the heap out, a FIFO .prj blocked the process
 * for good, and a recursive view as the layer hung it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { Tally } from './tally';
import { TrialRunner, judge, emptyDir, fingerprint, Op } from './harness';
import { writeRaster } from '../../src/core/raster/io/writer';
import { mulberry32 } from '../../src/core/raster/algorithms/prng';

type GT = [number, number, number, number, number, number];
/** A planted file: bytes, or a FIFO / folder in its place. */
type Planted = Buffer | 'fifo' | 'dir';

/** Three fields with a hole each, in lon/lat over the raster (UTM 50N), as a GeoPackage and a Shapefile (.cpg UTF-8). */
const MAKE = String.raw`
import sys, sqlite3
from osgeo import ogr, osr
ogr.UseExceptions()
d0 = sys.argv[1]
s = osr.SpatialReference(); s.ImportFromEPSG(4326); s.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
for drv, name in (('ESRI Shapefile', 'fields.shp'), ('GPKG', 'fields.gpkg')):
    ds = ogr.GetDriverByName(drv).CreateDataSource(d0 + '/' + name)
    lyr = ds.CreateLayer('fields', s, ogr.wkbPolygon, options=['ENCODING=UTF-8'] if drv == 'ESRI Shapefile' else [])
    lyr.CreateField(ogr.FieldDefn('name', ogr.OFTString)); lyr.CreateField(ogr.FieldDefn('area', ogr.OFTReal))
    for i in range(3):
        x0, y0 = 117.01 + i * 0.005, 39.99
        f = ogr.Feature(lyr.GetLayerDefn()); f.SetField('name', 'field %d 田' % i); f.SetField('area', 1.5 * i)
        f.SetGeometry(ogr.CreateGeometryFromWkt('POLYGON((%f %f,%f %f,%f %f,%f %f,%f %f),(%f %f,%f %f,%f %f,%f %f))' % (
            x0, y0, x0 + 0.004, y0, x0 + 0.004, y0 + 0.004, x0, y0 + 0.004, x0, y0,
            x0 + 0.001, y0 + 0.001, x0 + 0.002, y0 + 0.001, x0 + 0.002, y0 + 0.002, x0 + 0.001, y0 + 0.001)))
        lyr.CreateFeature(f)
    ds = None
`;

/**
 * SQL that turns a copy of the intact GeoPackage into a hostile one (run by python3's sqlite3). GDAL's
 * R-tree triggers call SpatiaLite-style functions plain SQLite lacks, so they go first.
 */
const EDIT = String.raw`
import sys, sqlite3
c = sqlite3.connect(sys.argv[1])
for (name,) in c.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'").fetchall():
    c.execute('DROP TRIGGER "%s"' % name.replace('"', '""'))
c.executescript(sys.argv[2]); c.commit(); c.close()
`;

const ENDLESS = `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c)`;
const GPKG_EDITS: [string, string, { mustRun?: boolean }?][] = [
  ['the layer is an endless view', `CREATE VIEW endless AS ${ENDLESS} SELECT x AS fid, NULL AS geom FROM c; UPDATE gpkg_geometry_columns SET table_name = 'endless';`],
  ['the layer is a view that spins inside one row', `CREATE VIEW spin AS ${ENDLESS} SELECT (SELECT count(*) FROM c) AS fid, NULL AS geom; UPDATE gpkg_geometry_columns SET table_name = 'spin';`],
  ['gpkg_geometry_columns is an endless view', `ALTER TABLE gpkg_geometry_columns RENAME TO gc0; CREATE VIEW gpkg_geometry_columns AS ${ENDLESS} SELECT 'fields' AS table_name, 'geom' AS column_name, 'POLYGON' AS geometry_type_name, 4326 AS srs_id FROM c;`],
  ['gpkg_spatial_ref_sys is an endless view', `ALTER TABLE gpkg_spatial_ref_sys RENAME TO srs0; CREATE VIEW gpkg_spatial_ref_sys AS ${ENDLESS} SELECT 4326 AS srs_id, 'EPSG' AS organization, 4326 AS organization_coordsys_id, 'x' AS definition FROM c;`],
  ['the layer is a virtual table', `CREATE VIRTUAL TABLE vt USING fts5(fid, geom); INSERT INTO vt VALUES (1, NULL); UPDATE gpkg_geometry_columns SET table_name = 'vt';`],
  ['the layer names a table that does not exist', `UPDATE gpkg_geometry_columns SET table_name = 'gone';`],
  ['the layer names a geometry column that does not exist', `UPDATE gpkg_geometry_columns SET column_name = 'nowhere';`],
  ['the CRS row is missing', `DELETE FROM gpkg_spatial_ref_sys WHERE srs_id = 4326;`],
  ['the CRS is an unknown code with a garbage definition', `UPDATE gpkg_spatial_ref_sys SET organization = 'ACME', organization_coordsys_id = 77, definition = 'PROJCS[garbage' WHERE srs_id = 4326;`],
  ['geometries that are not GeoPackage blobs', `UPDATE fields SET geom = X'00112233445566778899';`],
  ['geometries that are text', `UPDATE fields SET geom = 'POLYGON((0 0,1 0,1 1,0 0))';`],
  ['a WKB ring that claims four billion points', `UPDATE fields SET geom = X'47500001E6100000' || X'0103000000' || X'01000000' || X'FFFFFFFF';`],
  ['a MultiPolygon of a million polygons in 30 bytes', `UPDATE fields SET geom = X'47500001E6100000' || X'0106000000' || X'40420F00' || X'0103000000' || X'00000000';`],
  ['no feature table', `DELETE FROM gpkg_geometry_columns;`],
  ['two point layers, no polygons', `CREATE TABLE pts (fid INTEGER PRIMARY KEY, geom BLOB); INSERT INTO gpkg_geometry_columns VALUES ('pts', 'geom', 'POINT', 4326, 0, 0); UPDATE gpkg_geometry_columns SET geometry_type_name = 'POINT';`],
  ['empty polygons (all NULL geometry)', `UPDATE fields SET geom = NULL;`],
  // Read in place, a WAL database gets -wal and -shm files beside it that a read-only reader cannot remove.
  ['in WAL mode, as QGIS leaves a file it edited (nothing may appear beside it)', `PRAGMA journal_mode=WAL;`, { mustRun: true }],
  ['a feature table of 300 000 rows', `${ENDLESS.replace('SELECT x + 1 FROM c', 'SELECT x + 1 FROM c WHERE x < 300000')} INSERT INTO fields (name, area, geom) SELECT 'r', x, NULL FROM c;`, { mustRun: true }],
];

function opFor(k: number, image: string, vector: string, outDir: string): Op {
  return k % 2 === 0
    ? { kind: 'runTool', tool: 'zonal_stats', args: { image, zones: vector }, outDir }
    : { kind: 'runTool', tool: 'clip_to_vector', args: { image, cutline: vector }, outDir };
}

test('Shapefile and GeoPackage abuse: damaged parts, lying headers, FIFO sidecars, views and virtual tables', { timeout: 900_000 }, async (t) => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-abuse-shp-gpkg-'));
  const base = path.join(root, 'base'), inDir = path.join(root, 'in'), outDir = path.join(root, 'out'), outside = path.join(root, 'outside');
  fs.mkdirSync(base); fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'victim.txt'), 'must not change');
  const made = spawnSync('/usr/bin/python3', ['-c', MAKE, base], { encoding: 'utf8' });
  if (made.status !== 0) {
    if (process.env.CI) assert.fail(`GDAL (python3-gdal) is required in CI: ${made.stderr}`);
    t.skip('python3-gdal is not installed');
    return;
  }
  const outsideBefore = fingerprint(outside);
  const tally = new Tally();
  const runner = new TrialRunner(Number(process.env.GEOWEAVE_ABUSE_TIMEOUT_MS) || 20_000);
  const image = path.join(root, 'scene.tif');
  await writeRaster(image, { width: 140, height: 100, bands: 1, dtype: 'float32', geo: { geoTransform: [500800, 10, 0, 4427200, 0, -10] as GT, epsg: 32650, geographic: false }, nodata: -9999, blockSize: 32 },
    [Float32Array.from({ length: 14000 }, (_, i) => (i % 140) + Math.floor(i / 140))]);
  let k = 0;
  const refused: string[] = [];
  /** Plants `files` in an empty input folder and runs a tool on `main` (a name among them). */
  const trial = async (label: string, files: Record<string, Planted>, main: string, opts: { mustFail?: boolean; mustRun?: boolean } = {}) => {
    emptyDir(inDir); emptyDir(outDir);
    for (const [name, what] of Object.entries(files)) {
      const p = path.join(inDir, name);
      if (what === 'dir') fs.mkdirSync(p);
      else if (what === 'fifo') { if (spawnSync('mkfifo', [p]).status !== 0) fs.mkdirSync(p); }
      else fs.writeFileSync(p, what);
    }
    const file = path.join(inDir, main);
    const frozenIn = fingerprint(inDir);
    const r = await runner.run(opFor(k++, image, file, outDir));
    if (opts.mustRun && r.status !== 'ok') refused.push(`${label}: ${r.status} ${r.message ?? ''}`.slice(0, 300));
    judge(tally, 'shapefiles and geopackages', label, r, {
      names: [inDir, ...Object.keys(files)], outDir, mustFail: opts.mustFail,
      frozen: [{ dir: inDir, before: frozenIn }, { dir: outside, before: outsideBefore }],
      tempRoots: [inDir, outDir],
    });
  };
  try {
    const rnd = mulberry32(29);
    const shp: Record<string, Buffer> = {};
    for (const ext of ['shp', 'shx', 'dbf', 'prj', 'cpg']) shp[`fields.${ext}`] = fs.readFileSync(path.join(base, `fields.${ext}`));
    const withPart = (name: string, what: Planted | undefined): Record<string, Planted> => {
      const o: Record<string, Planted> = { ...shp };
      if (what === undefined) delete o[name]; else o[name] = what;
      return o;
    };
    const edited = (name: string, edit: (b: Buffer) => void) => { const b = Buffer.from(shp[name]); edit(b); return withPart(name, b); };
    await trial('Shapefile intact', shp, 'fields.shp', { mustRun: true });
    await trial('Shapefile without .shx', withPart('fields.shx', undefined), 'fields.shp', { mustRun: true });
    await trial('Shapefile without .dbf', withPart('fields.dbf', undefined), 'fields.shp', { mustRun: true });
    await trial('Shapefile without .cpg', withPart('fields.cpg', undefined), 'fields.shp', { mustRun: true });
    await trial('Shapefile without .prj', withPart('fields.prj', undefined), 'fields.shp');
    for (const part of ['fields.shp', 'fields.dbf', 'fields.prj']) {
      const orig = shp[part];
      for (let j = 0; j < 6; j++) {
        const at = 1 + Math.floor(rnd() * (orig.length - 2));
        await trial(`${part} truncated at ${at}`, withPart(part, orig.subarray(0, at)), 'fields.shp');
      }
      for (let j = 0; j < 6; j++) {
        const b = Buffer.from(orig);
        const flips: number[] = [];
        for (let f = 0; f < 1 + Math.floor(rnd() * 4); f++) { const at = Math.floor(rnd() * b.length); b[at] ^= 1 << Math.floor(rnd() * 8); flips.push(at); }
        await trial(`${part} bits flipped at ${flips.join(',')}`, withPart(part, b), 'fields.shp');
      }
    }
    for (const part of ['fields.prj', 'fields.dbf', 'fields.cpg']) {
      await trial(`${part} is a FIFO`, withPart(part, 'fifo'), 'fields.shp');
      await trial(`${part} is a folder`, withPart(part, 'dir'), 'fields.shp');
    }
    await trial('.prj of 2 MB', withPart('fields.prj', Buffer.alloc(2 << 20, 'PROJCS[')), 'fields.shp');
    await trial('.prj that is not WKT', withPart('fields.prj', Buffer.from('hello, I am not a CRS')), 'fields.shp', { mustFail: true });
    await trial('.cpg naming an unknown code page', withPart('fields.cpg', Buffer.from('x-klingon')), 'fields.shp', { mustRun: true });
    // The first record's content starts at byte 108; a polygon's part count at +36, point count at +40, parts at +44.
    const firstPoints = (b: Buffer) => 108 + 44 + 4 * b.readInt32LE(108 + 36);
    await trial('.shp with a NaN vertex', edited('fields.shp', (b) => b.writeDoubleLE(NaN, firstPoints(b))), 'fields.shp', { mustFail: true });
    await trial('.shp with an infinite vertex', edited('fields.shp', (b) => b.writeDoubleLE(-Infinity, firstPoints(b) + 8)), 'fields.shp', { mustFail: true });
    await trial('.shp with a vertex at 1e300', edited('fields.shp', (b) => b.writeDoubleLE(1e300, firstPoints(b) + 16)), 'fields.shp');
    await trial('.shp part count of two billion', edited('fields.shp', (b) => b.writeInt32LE(2 ** 31 - 1, 108 + 36)), 'fields.shp', { mustFail: true });
    await trial('.shp negative point count', edited('fields.shp', (b) => b.writeInt32LE(-5, 108 + 40)), 'fields.shp', { mustFail: true });
    await trial('.shp part index past the points', edited('fields.shp', (b) => b.writeInt32LE(2 ** 30, 108 + 48)), 'fields.shp');
    await trial('.shp record length of 2 GB', edited('fields.shp', (b) => b.writeInt32BE(2 ** 31 - 1, 104)), 'fields.shp', { mustFail: true });
    await trial('.shp record length negative', edited('fields.shp', (b) => b.writeInt32BE(-4, 104)), 'fields.shp', { mustFail: true });
    await trial('.shp of polylines', edited('fields.shp', (b) => { for (let p = 100; p + 8 <= b.length; p += 8 + 2 * b.readInt32BE(p + 4)) b.writeInt32LE(3, p + 8); }), 'fields.shp', { mustFail: true });
    await trial('.shp header only', withPart('fields.shp', shp['fields.shp'].subarray(0, 100)), 'fields.shp', { mustFail: true });
    await trial('.dbf counting four billion records of length 0', edited('fields.dbf', (b) => { b.writeUInt32LE(0xfffffff0, 4); b.writeUInt16LE(0, 10); }), 'fields.shp', { mustFail: true });
    await trial('.dbf counting four billion records', edited('fields.dbf', (b) => b.writeUInt32LE(0xfffffff0, 4)), 'fields.shp', { mustFail: true });
    await trial('.dbf header length 0', edited('fields.dbf', (b) => b.writeUInt16LE(0, 8)), 'fields.shp', { mustFail: true });
    await trial('.dbf header length past the end', edited('fields.dbf', (b) => b.writeUInt16LE(65535, 8)), 'fields.shp', { mustFail: true });
    await trial('.dbf field 255 bytes wide', edited('fields.dbf', (b) => { b[32 + 16] = 255; }), 'fields.shp');
    await trial('.dbf of another layer (one record)', edited('fields.dbf', (b) => b.writeUInt32LE(1, 4)), 'fields.shp', { mustFail: true });

    const gpkg = fs.readFileSync(path.join(base, 'fields.gpkg'));
    await trial('GeoPackage intact', { 'fields.gpkg': gpkg }, 'fields.gpkg', { mustRun: true });
    await trial('GeoPackage layer named', { 'fields.gpkg': gpkg }, 'fields.gpkg#fields', { mustRun: true });
    await trial('GeoPackage layer that does not exist', { 'fields.gpkg': gpkg }, 'fields.gpkg#nosuch', { mustFail: true });
    await trial('GeoPackage layer named with SQL', { 'fields.gpkg': gpkg }, 'fields.gpkg#fields"; DROP TABLE fields; --', { mustFail: true });
    for (let j = 0; j < 6; j++) {
      const at = 1 + Math.floor(rnd() * (gpkg.length - 2));
      await trial(`GeoPackage truncated at ${at}`, { 'fields.gpkg': gpkg.subarray(0, at) }, 'fields.gpkg');
    }
    for (let j = 0; j < 10; j++) {
      const b = Buffer.from(gpkg);
      const flips: number[] = [];
      for (let f = 0; f < 1 + Math.floor(rnd() * 4); f++) { const at = Math.floor(rnd() * b.length); b[at] ^= 1 << Math.floor(rnd() * 8); flips.push(at); }
      await trial(`GeoPackage bits flipped at ${flips.join(',')}`, { 'fields.gpkg': b }, 'fields.gpkg');
    }
    await trial('an empty .gpkg', { 'fields.gpkg': Buffer.alloc(0) }, 'fields.gpkg', { mustFail: true });
    await trial('a text file named .gpkg', { 'fields.gpkg': Buffer.from('not sqlite '.repeat(50)) }, 'fields.gpkg', { mustFail: true });
    await trial('an SQLite database that is not a GeoPackage', { 'fields.gpkg': sqlite(root, gpkg, 'DROP TABLE gpkg_geometry_columns;') }, 'fields.gpkg', { mustFail: true });
    for (const [label, sql, o] of GPKG_EDITS) {
      await trial(`GeoPackage: ${label}`, { 'fields.gpkg': sqlite(root, gpkg, sql) }, 'fields.gpkg', o?.mustRun ? { mustRun: true } : {});
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

/** A copy of `gpkg` with `sql` applied, as bytes. */
function sqlite(root: string, gpkg: Buffer, sql: string): Buffer {
  const f = path.join(root, `edit-${process.hrtime.bigint()}.gpkg`);
  fs.writeFileSync(f, gpkg);
  const r = spawnSync('/usr/bin/python3', ['-c', EDIT, f, sql], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`could not build the hostile GeoPackage (${sql.slice(0, 80)}): ${r.stderr}`);
  const b = fs.readFileSync(f);
  fs.rmSync(f);
  return b;
}
