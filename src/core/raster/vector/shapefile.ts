/** Shapefile reader: .shp polygons (Polygon, PolygonZ, PolygonM) and points (Point, MultiPoint and their Z/M forms), .dbf attributes, .prj CRS, .cpg encoding. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Ring } from '../algorithms/vectorize';
import { parseCrs, CrsError } from '../crs/crs';
import { VectorError, VectorFeature, VectorLayer } from './types';

const SHAPE_NAMES: Record<number, string> = {
  0: 'Null', 1: 'Point', 3: 'PolyLine', 5: 'Polygon', 8: 'MultiPoint', 11: 'PointZ', 13: 'PolyLineZ', 15: 'PolygonZ',
  18: 'MultiPointZ', 21: 'PointM', 23: 'PolyLineM', 25: 'PolygonM', 28: 'MultiPointM', 31: 'MultiPatch',
};

/** Largest .prj or .cpg read: a CRS definition or an encoding name is a few kilobytes at most. */
const SMALL_SIDECAR_BYTES = 1 << 20;

/**
 * The sidecar `ext` of `shp` (any case), or undefined. Only a regular file counts: reading a FIFO or a
 * device named `fields.prj` would block the process for good (a blocked read cannot even be cancelled).
 */
function sidecar(shp: string, ext: string): string | undefined {
  const dir = path.dirname(shp), stem = path.basename(shp).replace(/\.shp$/i, '');
  for (const e of [ext, ext.toUpperCase()]) {
    const p = path.join(dir, `${stem}.${e}`);
    let st: fs.Stats;
    try { st = fs.statSync(p); } catch { continue; }
    if (!st.isFile()) throw new VectorError(`${shp}: its ${path.basename(p)} is not a regular file (a folder, FIFO or device); move it away or replace it with the real .${ext}`);
    if ((ext === 'prj' || ext === 'cpg') && st.size > SMALL_SIDECAR_BYTES) throw new VectorError(`${shp}: its ${path.basename(p)} is ${st.size} bytes, far more than a .${ext} holds; replace it with the real one`);
    return p;
  }
  return undefined;
}

function readShapes(file: string): { type: string; polygons: Ring[][]; points?: [number, number][] }[] {
  const b = fs.readFileSync(file);
  if (b.length < 100 || b.readInt32BE(0) !== 9994) throw new VectorError(`${file}: not a Shapefile .shp (no 9994 file code)`);
  const out: { type: string; polygons: Ring[][]; points?: [number, number][] }[] = [];
  let p = 100;
  while (p + 8 <= b.length) {
    const words = b.readInt32BE(p + 4);
    const start = p + 8, end = start + words * 2;
    if (words < 2 || end > b.length) throw new VectorError(`${file}: record ${out.length + 1} runs past the end of the file (the .shp is truncated)`);
    const t = b.readInt32LE(start);
    if (t === 5 || t === 15 || t === 25) {
      const parts = b.readInt32LE(start + 36), points = b.readInt32LE(start + 40);
      const at = start + 44, pts = at + parts * 4;
      if (parts < 0 || points < 0 || pts + points * 16 > end) throw new VectorError(`${file}: record ${out.length + 1} declares more points than it holds`);
      const rings: Ring[] = [];
      for (let k = 0; k < parts; k++) {
        const a = b.readInt32LE(at + k * 4), z = k + 1 < parts ? b.readInt32LE(at + (k + 1) * 4) : points;
        const ring: Ring = [];
        for (let i = Math.max(0, a); i < Math.min(z, points); i++) ring.push([b.readDoubleLE(pts + i * 16), b.readDoubleLE(pts + i * 16 + 8)]);
        rings.push(ring);
      }
      // Rings of all parts together: the even-odd fill keeps holes (clockwise outer, counter-clockwise inner) as holes.
      out.push({ type: 'Polygon', polygons: rings.length ? [rings] : [] });
    } else if (t === 1 || t === 11 || t === 21) {
      if (start + 20 > end) throw new VectorError(`${file}: record ${out.length + 1} is too short for a point`);
      out.push({ type: 'Point', polygons: [], points: [[b.readDoubleLE(start + 4), b.readDoubleLE(start + 12)]] });
    } else if (t === 8 || t === 18 || t === 28) {
      const n = b.readInt32LE(start + 36);
      if (n < 0 || start + 40 + n * 16 > end) throw new VectorError(`${file}: record ${out.length + 1} declares more points than it holds`);
      const pts: [number, number][] = [];
      for (let i = 0; i < n; i++) pts.push([b.readDoubleLE(start + 40 + i * 16), b.readDoubleLE(start + 48 + i * 16)]);
      out.push({ type: 'MultiPoint', polygons: [], points: pts });
    } else {
      out.push({ type: SHAPE_NAMES[t] ?? `shape type ${t}`, polygons: [] });
    }
    p = end;
  }
  return out;
}

/** dBase III records: field name → value (strings trimmed, numbers parsed, blanks null). */
function readDbf(file: string, encoding: BufferEncoding): Record<string, unknown>[] {
  const b = fs.readFileSync(file);
  if (b.length < 32) throw new VectorError(`${file}: not a dBase file (${b.length} bytes)`);
  const n = b.readUInt32LE(4), headerLen = b.readUInt16LE(8), recLen = b.readUInt16LE(10);
  // The header's count is checked against the bytes there are before any row is made: a record length of
  // 0 with a count of four billion would otherwise build rows until the heap runs out.
  if (headerLen < 33 || headerLen > b.length) throw new VectorError(`${file}: not a dBase file (header length ${headerLen} of a ${b.length}-byte file)`);
  if (recLen < 1) throw new VectorError(`${file}: its header gives a record length of 0; the .dbf is damaged (rebuild it, e.g. with ogr2ogr)`);
  const holds = Math.floor((b.length - headerLen) / recLen);
  if (n > holds) throw new VectorError(`${file}: its header counts ${n} records but the file holds ${holds}; the .dbf is truncated or damaged`);
  const fields: { name: string; type: string; len: number; dec: number; at: number }[] = [];
  let at = 1;
  for (let o = 32; o + 32 <= headerLen && b[o] !== 0x0d; o += 32) {
    const raw = b.subarray(o, o + 11);
    const name = raw.subarray(0, raw.indexOf(0) >= 0 ? raw.indexOf(0) : 11).toString(encoding).trim();
    const f = { name, type: String.fromCharCode(b[o + 11]), len: b[o + 16], dec: b[o + 17], at };
    fields.push(f);
    at += f.len;
  }
  const rows: Record<string, unknown>[] = [];
  for (let r = 0; r < n; r++) {
    const o = headerLen + r * recLen;
    if (o + recLen > b.length) throw new VectorError(`${file}: record ${r + 1} of ${n} runs past the end of the file`);
    const row: Record<string, unknown> = {};
    for (const f of fields) {
      const s = b.subarray(o + f.at, o + f.at + f.len).toString(encoding).trim();
      if (f.type === 'N' || f.type === 'F') row[f.name] = s === '' || /^\*+$/.test(s) ? null : Number(s);
      else if (f.type === 'L') row[f.name] = /^[YyTt]$/.test(s) ? true : /^[NnFf]$/.test(s) ? false : null;
      else row[f.name] = s === '' ? null : s;
    }
    rows.push(row);
  }
  return rows;
}

function encodingOf(cpg: string | undefined): BufferEncoding {
  if (!cpg) return 'latin1';
  const s = fs.readFileSync(cpg, 'latin1').trim().toLowerCase();
  return /utf-?8/.test(s) ? 'utf8' : 'latin1';
}

export function readShapefile(file: string): VectorLayer {
  const shapes = readShapes(file);
  const dbf = sidecar(file, 'dbf');
  const rows = dbf ? readDbf(dbf, encodingOf(sidecar(file, 'cpg'))) : [];
  if (dbf && rows.length !== shapes.length) throw new VectorError(`${file}: the .shp has ${shapes.length} shapes but ${path.basename(dbf)} has ${rows.length} records; the two files do not belong together`);
  const prj = sidecar(file, 'prj');
  let crs;
  if (prj) {
    try { crs = parseCrs(fs.readFileSync(prj, 'utf8'), `${path.basename(prj)}`); } catch (e) {
      throw new VectorError(`${file}: ${e instanceof CrsError ? e.message : String(e)}`);
    }
  }
  const features: VectorFeature[] = shapes.map((s, i) => ({
    index: i, id: i + 1, props: rows[i] ?? {}, geomType: s.type === 'Null' ? null : s.type, polygons: s.polygons, ...(s.points ? { points: s.points } : {}),
  }));
  return { file, format: 'Shapefile', layer: path.basename(file).replace(/\.shp$/i, ''), crs, features };
}
