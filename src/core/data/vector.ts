/** A vector file (GeoJSON, Shapefile, GeoPackage, KML) described for readiness: its CRS and the box its features cover. */
import * as fs from 'fs';
import * as path from 'path';
import type { DataItem } from '../retrieval/types';
import { boxToLonLat } from '../raster/proj';
import { readVectorLayer, splitLayer } from '../raster/vector/read';

/** Larger files are listed without a box: reading them whole to check overlap would stall the panel. */
const MAX_BYTES = 64 * 1024 * 1024;

/** The EPSG code a GeoJSON declares (legacy `crs` member); RFC 7946 files without one are lon/lat. */
export function geojsonEpsg(doc: unknown): number {
  const name = (doc as { crs?: { properties?: { name?: unknown } } })?.crs?.properties?.name;
  if (typeof name !== 'string' || /CRS84$/i.test(name)) return 4326;
  const m = /EPSG:{1,2}(\d+)/i.exec(name);
  return m ? Number(m[1]) : 4326;
}

/** [minX, minY, maxX, maxY] over every coordinate of the features, or undefined when there are none. */
export function geojsonBox(doc: unknown): [number, number, number, number] | undefined {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  const visit = (c: unknown): void => {
    if (!Array.isArray(c)) return;
    if (typeof c[0] === 'number' && typeof c[1] === 'number') {
      x0 = Math.min(x0, c[0]); x1 = Math.max(x1, c[0]); y0 = Math.min(y0, c[1]); y1 = Math.max(y1, c[1]);
      return;
    }
    for (const x of c) visit(x);
  };
  const geometry = (g: unknown): void => {
    const geo = g as { type?: string; coordinates?: unknown; geometries?: unknown[] } | null;
    if (!geo) return;
    if (geo.type === 'GeometryCollection') geo.geometries?.forEach(geometry);
    else visit(geo.coordinates);
  };
  const d = doc as { type?: string; features?: { geometry?: unknown }[]; geometry?: unknown };
  if (d?.type === 'FeatureCollection') d.features?.forEach((f) => geometry(f?.geometry));
  else if (d?.type === 'Feature') geometry(d.geometry);
  else geometry(d);
  return x0 <= x1 && y0 <= y1 ? [x0, y0, x1, y1] : undefined;
}

/** CRS and extent of a Shapefile or GeoPackage layer (read whole: these files are small next to rasters). */
function describeLayer(item: DataItem, file: string): DataItem {
  try {
    const st = fs.statSync(splitLayer(file).file);
    if (!st.isFile() || st.size > MAX_BYTES) return item;
    const layer = readVectorLayer(file);
    if (layer.crs) item.crs = layer.crs.epsg !== undefined ? `EPSG:${layer.crs.epsg}` : layer.crs.label;
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const f of layer.features) for (const poly of f.polygons) for (const ring of poly) for (const [x, y] of ring) {
      if (x < x0) x0 = x; if (x > x1) x1 = x; if (y < y0) y0 = y; if (y > y1) y1 = y;
    }
    if (x0 <= x1 && y0 <= y1) {
      item.extent = [x0, y0, x1, y1];
      const lonLat = layer.crs?.epsg !== undefined ? boxToLonLat(layer.crs.epsg, item.extent) : undefined;
      if (lonLat) item.lonLat = lonLat;
    }
  } catch {
    // Unreadable: the run will say so; readiness just knows less.
  }
  return item;
}

/** A vector item with CRS and extent when the file is GeoJSON, a Shapefile or a GeoPackage that can be read; just the path otherwise. */
export function describeVector(rel: string, cwd?: string): DataItem {
  const item: DataItem = { path: rel, type: 'vector' };
  if (/\.(shp|gpkg|kml|kmz)(#[^#]*)?$/i.test(rel)) return describeLayer(item, cwd ? path.resolve(cwd, rel) : rel);
  if (!/\.(geo)?json$/i.test(rel)) return item;
  const file = cwd ? path.resolve(cwd, rel) : rel;
  try {
    const st = fs.statSync(file);
    if (!st.isFile() || st.size > MAX_BYTES) return item;
    const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    const epsg = geojsonEpsg(doc);
    item.crs = `EPSG:${epsg}`;
    const extent = geojsonBox(doc);
    if (extent) {
      item.extent = extent;
      const lonLat = boxToLonLat(epsg, extent);
      if (lonLat) item.lonLat = lonLat;
    }
  } catch {
    // Unreadable or not JSON: the run will say so; readiness just knows less.
  }
  return item;
}
