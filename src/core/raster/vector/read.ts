/** Opens a polygon layer by file type: GeoJSON, Shapefile (.shp with .dbf/.prj), GeoPackage ("file.gpkg" or "file.gpkg#layer") or KML. */
import * as fs from 'node:fs';
import { readGeoJson } from './geojson';
import { readShapefile } from './shapefile';
import { readGeoPackage } from './geopackage';
import { readKml } from './kml';
import { VectorError, VectorLayer } from './types';
import { unreadVectorFormat } from './formats';

/** Splits "layers.gpkg#fields" into the file and the layer name. */
export function splitLayer(p: string): { file: string; layer?: string } {
  const m = /^(.*\.gpkg)#([^#]+)$/i.exec(p);
  return m ? { file: m[1], layer: m[2] } : { file: p };
}

export function readVectorLayer(p: string): VectorLayer {
  return finiteOnly(readByType(p));
}

/**
 * Refuses a layer with a NaN or infinite coordinate, naming the feature: such a vertex (a damaged .shp,
 * a bit-flipped WKB) makes every crossing test false, so the zone would silently cover nothing.
 */
function finiteOnly(layer: VectorLayer): VectorLayer {
  for (const f of layer.features) {
    const bad = (x: number, y: number) => !Number.isFinite(x) || !Number.isFinite(y);
    const hit = f.polygons.some((poly) => poly.some((ring) => ring.some(([x, y]) => bad(x, y)))) || (f.points ?? []).some(([x, y]) => bad(x, y));
    if (hit) throw new VectorError(`${layer.file}: feature ${f.id} of layer ${layer.layer} has a coordinate that is not a finite number (NaN or infinite); the file is damaged — repair or drop that feature (e.g. ogr2ogr -skipfailures, or QGIS "Fix geometries")`);
  }
  return layer;
}

function readByType(p: string): VectorLayer {
  const { file, layer } = splitLayer(p);
  let st: fs.Stats;
  try { st = fs.statSync(file); } catch { throw new VectorError(`${file}: file not found`); }
  if (!st.isFile()) throw new VectorError(`${file}: not a file`);
  if (/\.shp$/i.test(file)) return readShapefile(file);
  if (/\.gpkg$/i.test(file)) return readGeoPackage(file, layer);
  if (/\.(geo)?json$/i.test(file)) return readGeoJson(file);
  if (/\.km[lz]$/i.test(file)) return readKml(file);
  throw new VectorError(`${file}: ${unreadVectorFormat(file)?.replace(/^a /, 'is a ') ?? 'not a vector format GeoWeave reads (GeoJSON, Shapefile .shp, GeoPackage .gpkg, KML)'}`);
}
export { VectorError };
export type { VectorLayer };
