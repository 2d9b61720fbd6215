/** GeoPackage reader (SQLite through better-sqlite3): one feature table, its attributes, geometries and CRS. */
import * as fs from 'node:fs';
import { parseCrs, crsFromEpsg, Crs, CrsError } from '../crs/crs';
import { epsgDefinition } from '../crs/epsg';
import { parseWkb } from './wkb';
import { VectorError, VectorFeature, VectorLayer } from './types';

interface Statement { all(...params: unknown[]): any[]; get(...params: unknown[]): any; iterate(...params: unknown[]): IterableIterator<any> }
interface Database { prepare(sql: string): Statement; close(): void }

/** Largest GeoPackage read as a copy in memory (see openDb); larger ones are opened in place. */
const IN_MEMORY_BELOW = 256 << 20;

/**
 * A write-ahead-log GeoPackage (QGIS switches files it edits to WAL) opened in place, even read-only,
 * makes SQLite create `-wal` and `-shm` files beside it that a read-only connection cannot remove: a
 * zonal statistics run would leave two files in the analyst's data folder. When no `-wal` file exists
 * the main file holds everything committed, so it is read from a copy in memory (marked as a rollback
 * journal database, which deserialisation requires) and nothing is created beside it. A `-wal` file
 * that exists may hold saved edits not yet checkpointed; then only SQLite's own reading sees them.
 */
function walCopy(file: string): Buffer | undefined {
  let st: fs.Stats;
  try { st = fs.statSync(file); } catch { return undefined; }
  if (!st.isFile() || st.size < 100 || st.size > IN_MEMORY_BELOW || fs.existsSync(`${file}-wal`)) return undefined;
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(20);
    fs.readSync(fd, head, 0, 20, 0);
    if (head.toString('latin1', 0, 15) !== 'SQLite format 3' || (head[18] !== 2 && head[19] !== 2)) return undefined;
  } finally {
    fs.closeSync(fd);
  }
  const b = fs.readFileSync(file);
  b[18] = 1; b[19] = 1;
  return b;
}

function openDb(file: string): Database {
  let Ctor: new (f: string | Buffer, o: object) => Database;
  try {
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    Ctor = require('better-sqlite3');
  } catch (e) {
    throw new VectorError(`${file}: GeoPackage support needs the better-sqlite3 module, which did not load (${(e as Error).message}); convert the layer with ogr2ogr -f GeoJSON out.geojson ${file}`);
  }
  try {
    const copy = walCopy(file);
    return copy ? new Ctor(copy, { readonly: true }) : new Ctor(file, { readonly: true, fileMustExist: true });
  } catch (e) {
    throw new VectorError(`${file}: not a readable GeoPackage (${(e as Error).message})`);
  }
}

function quoteIdent(s: string): string { return `"${s.replace(/"/g, '""')}"`; }

/** The WKB inside a GeoPackage geometry blob ("GP" header, srs id, optional envelope). */
function gpkgWkb(blob: Uint8Array): Uint8Array | null {
  if (blob.length < 8 || blob[0] !== 0x47 || blob[1] !== 0x50) throw new Error('not a GeoPackage geometry (no GP magic)');
  const flags = blob[3];
  if (flags & 0x10) return null; // empty geometry
  const env = (flags >> 1) & 7;
  const envBytes = [0, 32, 48, 48, 64][env];
  if (envBytes === undefined) throw new Error(`unknown envelope code ${env}`);
  return blob.subarray(8 + envBytes);
}

function layerCrs(db: Database, file: string, srsId: number): Crs | undefined {
  if (srsId === 0 || srsId === -1) return undefined;
  plainTable(db, file, 'gpkg_spatial_ref_sys', 'the CRS table');
  const row = db.prepare('SELECT organization, organization_coordsys_id, definition FROM gpkg_spatial_ref_sys WHERE srs_id = ?').get(srsId);
  if (!row) throw new VectorError(`${file}: its layer names srs_id ${srsId}, which gpkg_spatial_ref_sys does not define`);
  const org = String(row.organization ?? '').toUpperCase();
  const code = Number(row.organization_coordsys_id);
  try {
    if (org === 'EPSG' && epsgDefinition(code)) return crsFromEpsg(code);
    if (row.definition && String(row.definition).trim() !== 'undefined') return parseCrs(String(row.definition), `the CRS of ${file}`);
    return crsFromEpsg(code, `the CRS of ${file}`);
  } catch (e) {
    throw new VectorError(e instanceof CrsError ? e.message : String(e));
  }
}

/** Most features read from one layer: beyond this a zone layer is a dataset to tile, not to hold in memory. */
const MAX_FEATURES = 2_000_000;
/** Most geometry bytes read from one layer (WKB), for the same reason. */
const MAX_GEOMETRY_BYTES = 1 << 30;

/**
 * Refuses a name that SQLite would not read as a plain stored table. A view, or a virtual table, runs
 * whatever query the file's author wrote when it is read: `WITH RECURSIVE` makes one endless, and a
 * single endless step cannot be interrupted from JavaScript. GeoPackages from QGIS, GDAL and ArcGIS
 * store features in tables.
 */
function plainTable(db: Database, file: string, name: string, what: string): void {
  const row = db.prepare("SELECT type, sql FROM sqlite_master WHERE name = ? COLLATE NOCASE").get(name);
  if (!row) throw new VectorError(`${file}: ${what} "${name}" is not in the database`);
  if (row.type !== 'table' || /^\s*create\s+virtual\b/i.test(String(row.sql ?? ''))) {
    throw new VectorError(`${file}: ${what} "${name}" is a ${row.type === 'table' ? 'virtual table' : `SQL ${row.type}`}, not a stored table; GeoWeave reads features only from tables (a view runs arbitrary SQL). Copy it into a table first: ogr2ogr -f GPKG fixed.gpkg ${file} ${name}`);
  }
}

/** Reads `layer` (or the only feature table) of a GeoPackage. */
export function readGeoPackage(file: string, layer?: string): VectorLayer {
  const db = openDb(file);
  try {
    return readLayer(db, file, layer);
  } catch (e) {
    if (e instanceof VectorError) throw e;
    // SQLite's own errors (a damaged page, a missing column) name neither the file nor the remedy.
    throw new VectorError(`${file}: the GeoPackage cannot be read (${(e as Error).message}); check it with ogrinfo ${file}, or export the layer with ogr2ogr`);
  } finally {
    db.close();
  }
}

function readLayer(db: Database, file: string, layer?: string): VectorLayer {
  try {
    plainTable(db, file, 'gpkg_geometry_columns', 'the catalog table');
  } catch (e) {
    if (e instanceof VectorError && /is not in the database/.test(e.message)) throw new VectorError(`${file}: not a GeoPackage (no gpkg_geometry_columns table)`);
    if (e instanceof VectorError) throw e;
    throw new VectorError(`${file}: not a GeoPackage (${(e as Error).message})`);
  }
  let tables: { table_name: string; column_name: string; geometry_type_name: string; srs_id: number }[];
  try {
    tables = db.prepare('SELECT table_name, column_name, geometry_type_name, srs_id FROM gpkg_geometry_columns').all();
  } catch (e) {
    throw new VectorError(`${file}: not a GeoPackage (no gpkg_geometry_columns table: ${(e as Error).message})`);
  }
  if (!tables.length) throw new VectorError(`${file}: the GeoPackage has no feature table`);
  let t = layer ? tables.find((x) => x.table_name === layer) : tables.length === 1 ? tables[0] : undefined;
  if (!t && !layer) t = tables.find((x) => /polygon|surface/i.test(x.geometry_type_name));
  if (!t) {
    throw new VectorError(`${file}: ${layer ? `has no layer "${layer}"` : 'has several layers'} (${tables.map((x) => `${x.table_name}: ${x.geometry_type_name}`).join(', ')}); name one as "${file}#<layer>"`);
  }
  plainTable(db, file, t.table_name, 'layer');
  const crs = layerCrs(db, file, Number(t.srs_id));
  const cols: { name: string; pk: number }[] = db.prepare(`PRAGMA table_info(${quoteIdent(t.table_name)})`).all();
  const pk = cols.find((c) => c.pk)?.name;
  const stmt = db.prepare(`SELECT * FROM ${quoteIdent(t.table_name)}${pk ? ` ORDER BY ${quoteIdent(pk)}` : ''}`);
  const rows: any[] = [];
  let bytes = 0;
  for (const r of stmt.iterate()) {
    const g = r[t.column_name];
    bytes += g && typeof g.length === 'number' ? g.length : 0;
    if (rows.length >= MAX_FEATURES || bytes > MAX_GEOMETRY_BYTES) {
      const over = rows.length >= MAX_FEATURES ? `more than ${MAX_FEATURES} features` : `more than ${MAX_GEOMETRY_BYTES >> 20} MB of geometry`;
      throw new VectorError(`${file}: layer ${t.table_name} holds ${over}, more than GeoWeave reads as zones; filter it first (ogr2ogr -where or -spat)`);
    }
    rows.push(r);
  }
  const features: VectorFeature[] = rows.map((r, i) => {
    const props: Record<string, unknown> = {};
    for (const c of cols) if (c.name !== t!.column_name && c.name !== pk) props[c.name] = r[c.name];
    const blob = r[t!.column_name] as Uint8Array | null;
    let geomType: string | null = null, polygons: VectorFeature['polygons'] = [], points: VectorFeature['points'];
    if (blob) {
      try {
        const wkb = gpkgWkb(blob);
        if (wkb) { const g = parseWkb(wkb); geomType = g.type; polygons = g.polygons; points = g.points; }
      } catch (e) {
        throw new VectorError(`${file}: feature ${pk ? `${pk}=${r[pk]}` : i + 1} of layer ${t!.table_name} has an unreadable geometry (${(e as Error).message})`);
      }
    }
    return { index: i, id: pk ? r[pk] : i + 1, props, geomType, polygons, ...(points ? { points } : {}) };
  });
  return { file, format: 'GeoPackage', layer: t.table_name, crs, features };
}
