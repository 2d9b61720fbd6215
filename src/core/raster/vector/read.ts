/** Opens a polygon layer by file type: GeoJSON, Shapefile (.shp with .dbf/.prj) or GeoPackage ("file.gpkg" or "file.gpkg#layer"). */
import * as fs from 'node:fs';
import { readGeoJson } from './geojson';
import { readShapefile } from './shapefile';
import { readGeoPackage } from './geopackage';
import { VectorError, VectorLayer } from './types';

/** File extensions read as vector layers. */
export const VECTOR_FILE = /\.(geojson|json|shp|gpkg)(#[^#]*)?$/i;

/** True when `p` names a vector file GeoWeave reads (by extension). */
export function isVectorPath(p: string): boolean {
  return VECTOR_FILE.test(p);
}

/** Splits "layers.gpkg#fields" into the file and the layer name. */
export function splitLayer(p: string): { file: string; layer?: string } {
  const m = /^(.*\.gpkg)#([^#]+)$/i.exec(p);
  return m ? { file: m[1], layer: m[2] } : { file: p };
}

export function readVectorLayer(p: string): VectorLayer {
  const { file, layer } = splitLayer(p);
  let st: fs.Stats;
  try { st = fs.statSync(file); } catch { throw new VectorError(`${file}: file not found`); }
  if (!st.isFile()) throw new VectorError(`${file}: not a file`);
  if (/\.shp$/i.test(file)) return readShapefile(file);
  if (/\.gpkg$/i.test(file)) return readGeoPackage(file, layer);
  if (/\.(geo)?json$/i.test(file)) return readGeoJson(file);
  throw new VectorError(`${file}: not a vector format GeoWeave reads (GeoJSON, Shapefile .shp, GeoPackage .gpkg)`);
}
export { VectorError };
export type { VectorLayer };
