/** Polygon layers read from GeoJSON, Shapefile, GeoPackage or KML: features with attributes, rings and the layer's CRS. */
import type { Ring } from '../algorithms/vectorize';
import type { Crs } from '../crs/crs';

export interface VectorFeature {
  /** 0-based position in the file. */
  index: number;
  /** The feature's own id (GeoJSON id, GeoPackage primary key, Shapefile record number). */
  id: string | number;
  props: Record<string, unknown>;
  /** Geometry type as the file names it ("Polygon", "LineString", ...); null for a feature without geometry. */
  geomType: string | null;
  /** Polygons (each: exterior ring then holes) in the layer's CRS; empty for non-polygon geometries. */
  polygons: Ring[][];
  /** Point and MultiPoint coordinates in the layer's CRS (reference samples); absent for other geometries. */
  points?: [number, number][];
}

export interface VectorLayer {
  file: string;
  format: 'GeoJSON' | 'Shapefile' | 'GeoPackage' | 'KML';
  /** The layer's name (GeoPackage table, file stem otherwise). */
  layer: string;
  /** The CRS the file declares; undefined when it declares none (a Shapefile without .prj). */
  crs: Crs | undefined;
  features: VectorFeature[];
}

/** A vector file that cannot be read; the message names the file and what to do. */
export class VectorError extends Error {}
