/**
 * The vector formats GeoWeave reads, by file extension: one place for the engine, the workspace
 * scan, the notebook's completions and the messages, so a format added here is offered everywhere.
 */

/** Extensions read as vector layers (".json" only where a vector argument is expected). */
export const VECTOR_FILE = /\.(geojson|json|shp|gpkg|kml|kmz)(#[^#]*)?$/i;
/** Vector files counted as data in a folder, by extension (plain .json files are mostly not geodata). */
export const VECTOR_GLOB_EXTENSIONS = ['geojson', 'shp', 'gpkg', 'kml', 'kmz'];
/** The same as a pattern. */
export const VECTOR_DATA = new RegExp(`\\.(${VECTOR_GLOB_EXTENSIONS.join('|')})$`, 'i');

/** True when `p` names a vector file GeoWeave reads (by extension). */
export function isVectorPath(p: string): boolean {
  return VECTOR_FILE.test(p);
}

/** Vector formats analysts have that GeoWeave does not read, with what they are called. */
const UNREAD: [RegExp, string][] = [
  [/\.fgb$/i, 'FlatGeobuf'],
  [/\.gml$/i, 'GML'],
  [/\.gpx$/i, 'GPX'],
  [/\.(tab|mif)$/i, 'MapInfo'],
  [/\.dxf$/i, 'DXF (CAD)'],
  [/\.(parquet|geoparquet)$/i, 'GeoParquet'],
  [/\.topojson$/i, 'TopoJSON'],
  [/\.(osm|pbf)$/i, 'OpenStreetMap'],
  [/\.csv$/i, 'CSV'],
];

/** "a FlatGeobuf file, which GeoWeave does not read; convert it …" for such a path, else undefined. */
export function unreadVectorFormat(p: string): string | undefined {
  const hit = UNREAD.find(([re]) => re.test(p));
  return hit && `a ${hit[1]} file, which GeoWeave does not read; convert it with ogr2ogr -f GPKG OUT.gpkg IN (or -f GeoJSON) and give OUT.gpkg`;
}
