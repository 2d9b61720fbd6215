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
  const feats: any[] = doc?.type === 'FeatureCollection' ? doc.features : doc?.type === 'Feature' ? [doc]
    : doc && typeof doc.type === 'string' && 'coordinates' in doc ? [{ type: 'Feature', properties: {}, geometry: doc }] : [];
  if (!Array.isArray(feats)) throw new VectorError(`${file}: "features" is not an array`);
  const declared = declaredCrs(doc, file);
  let maxAbsX = 0, maxAbsY = 0;
  const features: VectorFeature[] = feats.map((f, i) => {
    const g = f?.geometry;
    let polygons: VectorFeature['polygons'] = [];
    if (g?.type === 'Polygon') polygons = [g.coordinates];
    else if (g?.type === 'MultiPolygon') polygons = g.coordinates;
    let points: [number, number][] | undefined;
    if (g?.type === 'Point' || g?.type === 'MultiPoint') {
      const pts = g.type === 'Point' ? [g.coordinates] : g.coordinates;
      if (!Array.isArray(pts) || pts.some((pt: unknown) => !Array.isArray(pt) || typeof pt[0] !== 'number' || typeof pt[1] !== 'number')) throw new VectorError(`${file}: feature ${i + 1} has a ${g.type} coordinate that is not a number pair`);
      points = pts.map((pt: number[]) => [pt[0], pt[1]] as [number, number]);
      for (const pt of points) { maxAbsX = Math.max(maxAbsX, Math.abs(pt[0])); maxAbsY = Math.max(maxAbsY, Math.abs(pt[1])); }
    }
    if (!Array.isArray(polygons)) throw new VectorError(`${file}: feature ${i + 1} has a ${g.type} without coordinates`);
    for (const poly of polygons) for (const ring of poly ?? []) for (const pt of ring ?? []) {
      if (!Array.isArray(pt) || typeof pt[0] !== 'number' || typeof pt[1] !== 'number') throw new VectorError(`${file}: feature ${i + 1} has a coordinate that is not a number pair`);
      maxAbsX = Math.max(maxAbsX, Math.abs(pt[0])); maxAbsY = Math.max(maxAbsY, Math.abs(pt[1]));
    }
    const props = f?.properties && typeof f.properties === 'object' ? { ...f.properties } : {};
    return { index: i, id: f?.id ?? props.id ?? i + 1, props, geomType: g?.type ?? null, polygons, ...(points ? { points } : {}) };
  });
  if (!declared && (maxAbsX > 180 || maxAbsY > 90)) {
    throw new VectorError(`${file}: has no crs member, so it is lon/lat (RFC 7946), but its coordinates reach ${Math.round(Math.max(maxAbsX, maxAbsY))}, which is not degrees; add "crs": {"type": "name", "properties": {"name": "EPSG:<code>"}} or convert it with ogr2ogr -t_srs EPSG:4326`);
  }
  return { file, format: 'GeoJSON', layer: path.basename(file).replace(/\.(geo)?json$/i, ''), crs: declared ?? LONLAT, features };
}
