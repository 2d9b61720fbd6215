/** GeoJSON reader: features with Polygon/MultiPolygon geometries; lon/lat unless a legacy `crs` member says otherwise. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LONLAT, crsFromEpsg, parseCrs, Crs, CrsError } from '../crs/crs';
import { VectorError, VectorFeature, VectorLayer } from './types';

function declaredCrs(doc: any, file: string): Crs | undefined {
  const name: unknown = doc?.crs?.properties?.name;
  if (typeof name !== 'string') return undefined;
  try {
    if (/CRS:?84$/i.test(name)) return LONLAT;
    const m = /EPSG:{1,2}(\d+)$/i.exec(name);
    return m ? crsFromEpsg(Number(m[1]), `the crs member of ${file}`) : parseCrs(name, `the crs member of ${file}`);
  } catch (e) {
    throw new VectorError(e instanceof CrsError ? e.message : String(e));
  }
}

export function readGeoJson(file: string): VectorLayer {
  let doc: any;
  try { doc = JSON.parse(fs.readFileSync(file, 'utf8')); } catch (e) {
    throw new VectorError(`${file}: not readable GeoJSON (${e instanceof Error ? e.message : e})`);
  }
  return geoJsonLayer(doc, file, { format: 'GeoJSON', layer: path.basename(file).replace(/\.(geo)?json$/i, ''), crs: declaredCrs(doc, file) });
}

/** The members of a geometry collection flattened (polygons and points are what tools use). */
function flatten(g: any): any[] {
  return g?.type === 'GeometryCollection' && Array.isArray(g.geometries) ? g.geometries.flatMap(flatten) : [g];
}

/**
 * A parsed GeoJSON document (or a KML converted to one) as a layer. Without a declared CRS the
 * coordinates are lon/lat (RFC 7946) and are checked to be degrees.
 */
export function geoJsonLayer(doc: any, file: string, opts: { format: VectorLayer['format']; layer: string; crs?: Crs }): VectorLayer {
  const feats: any[] = doc?.type === 'FeatureCollection' ? doc.features : doc?.type === 'Feature' ? [doc]
    : doc && typeof doc.type === 'string' && ('coordinates' in doc || 'geometries' in doc) ? [{ type: 'Feature', properties: {}, geometry: doc }] : [];
  if (!Array.isArray(feats)) throw new VectorError(`${file}: "features" is not an array`);
  const declared = opts.crs;
  let maxAbsX = 0, maxAbsY = 0;
  const features: VectorFeature[] = feats.map((f, i) => {
    const g = f?.geometry;
    const polygons: VectorFeature['polygons'] = [];
    const pts: unknown[] = [];
    let hasPoints = false;
    for (const part of flatten(g)) {
      const c = part?.coordinates;
      const multi = part?.type === 'MultiPolygon' || part?.type === 'MultiPoint';
      if (!/^(Multi)?(Polygon|Point)$/.test(part?.type ?? '')) continue;
      if (!Array.isArray(c)) throw new VectorError(`${file}: feature ${i + 1} has a ${part.type} without coordinates`);
      const into: unknown[] = /Polygon$/.test(part.type) ? polygons : pts;
      if (multi) into.push(...c); else into.push(c);
      if (/Point$/.test(part.type)) hasPoints = true;
    }
    let points: [number, number][] | undefined;
    if (hasPoints) {
      if (pts.some((pt: unknown) => !Array.isArray(pt) || typeof pt[0] !== 'number' || typeof pt[1] !== 'number')) throw new VectorError(`${file}: feature ${i + 1} has a ${g.type} coordinate that is not a number pair`);
      points = (pts as number[][]).map((pt) => [pt[0], pt[1]] as [number, number]);
      for (const pt of points) { maxAbsX = Math.max(maxAbsX, Math.abs(pt[0])); maxAbsY = Math.max(maxAbsY, Math.abs(pt[1])); }
    }
    for (const poly of polygons) for (const ring of poly ?? []) for (const pt of ring ?? []) {
      if (!Array.isArray(pt) || typeof pt[0] !== 'number' || typeof pt[1] !== 'number') throw new VectorError(`${file}: feature ${i + 1} has a coordinate that is not a number pair`);
      maxAbsX = Math.max(maxAbsX, Math.abs(pt[0])); maxAbsY = Math.max(maxAbsY, Math.abs(pt[1]));
    }
    const props = f?.properties && typeof f.properties === 'object' ? { ...f.properties } : {};
    return { index: i, id: f?.id ?? props.id ?? i + 1, props, geomType: g?.type ?? null, polygons, ...(points ? { points } : {}) };
  });
  if ((!declared || (opts.format === 'KML' && declared === LONLAT)) && (maxAbsX > 180 || maxAbsY > 90)) {
    if (opts.format === 'KML') throw new VectorError(`${file}: KML coordinates are longitude,latitude in degrees, but these reach ${Math.round(Math.max(maxAbsX, maxAbsY))}; re-export it from the source in WGS 84`);
    throw new VectorError(`${file}: has no crs member, so it is lon/lat (RFC 7946), but its coordinates reach ${Math.round(Math.max(maxAbsX, maxAbsY))}, which is not degrees; add "crs": {"type": "name", "properties": {"name": "EPSG:<code>"}} or convert it with ogr2ogr -t_srs EPSG:4326`);
  }
  return { file, format: opts.format, layer: opts.layer, crs: declared ?? LONLAT, features };
}
