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
