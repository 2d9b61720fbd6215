/** A polygon layer brought into a raster's CRS (vertex by vertex, as gdal_rasterize does), with names for its features. */
import type { Ring } from '../algorithms/vectorize';
import type { RasterDataset } from '../io/dataset';
import { crsOfGeo, transformer, CrsError, LONLAT } from '../crs/crs';
import { VectorError, VectorFeature, VectorLayer } from './types';
import { requireMapGrid } from '../tools/common';

/** Attribute names that hold a feature's name, best first (compared without case). */
const NAME_KEYS = ['name', 'nom', 'naam', 'nombre', 'nome', 'label', 'title', 'commune', 'municipality', 'district', 'county', 'region', 'province', 'state', 'country', 'site', 'field', 'plot', 'parcel'];

/** The name attribute of a layer (a key whose values are mostly non-empty strings), or undefined. */
export function nameAttribute(features: VectorFeature[]): string | undefined {
  const keys = new Set<string>();
  for (const f of features) for (const k of Object.keys(f.props)) keys.add(k);
  const isNamey = (k: string) => {
    const l = k.toLowerCase();
    return NAME_KEYS.includes(l) || /^name_?\d$/.test(l) || /_name$|^name_/.test(l);
  };
  const rank = (k: string) => { const l = k.toLowerCase(); const i = NAME_KEYS.indexOf(l); return i >= 0 ? i : NAME_KEYS.length; };
  const candidates = [...keys].filter(isNamey).sort((a, b) => rank(a) - rank(b));
  for (const k of candidates) {
    const strings = features.filter((f) => typeof f.props[k] === 'string' && (f.props[k] as string).trim()).length;
    if (strings >= Math.max(1, features.length / 2)) return k;
  }
  return undefined;
}

export interface RasterPolygons {
  /** Each feature's polygons in the raster's CRS. */
  features: { feature: VectorFeature; polygons: Ring[][] }[];
  /** A sentence about the CRS handling (a reprojection done, or a CRS assumed), when there is one. */
  note?: string;
}

/** Features of `layer` in the CRS of `ds`; non-polygon features are refused naming the first one. */
export function layerOnRaster(layer: VectorLayer, ds: RasterDataset, arg: string): RasterPolygons {
  const bad = layer.features.find((f) => f.geomType !== null && !f.polygons.length);
  if (bad) throw new VectorError(`argument "${arg}": feature ${bad.id} in ${layer.file} is a ${bad.geomType}; zones and clip shapes must be polygons (buffer points and lines first)`);
  const { map, note, rasterCrs } = layerToRaster(layer, ds, arg);
  const g = ds.geo.geoTransform;
  const tol = 0.0001 * Math.min(Math.hypot(g[1], g[4]), Math.hypot(g[2], g[5]));
  const features = layer.features.map((feature) => ({
    feature,
    polygons: !map ? feature.polygons : feature.polygons.map((poly) => poly.map((ring) => {
      const at = (x: number, y: number): [number, number] => {
        const p = map!(x, y);
        if (!Number.isFinite(p[0]) || !Number.isFinite(p[1])) {
          throw new VectorError(`argument "${arg}": feature ${feature.id} in ${layer.file} has the point ${x}, ${y}, which has no position in ${rasterCrs!.label}`);
        }
        return p;
      };
      return densifyRing(ring, at, tol);
    })),
  }));
  return { features, ...(note ? { note } : {}) };
}

/** The mapping of a layer's coordinates into the CRS of `ds` (undefined when they are the same), with a note on the CRS handling. */
function layerToRaster(layer: VectorLayer, ds: RasterDataset, arg: string): { map?: (x: number, y: number) => [number, number]; note?: string; rasterCrs: ReturnType<typeof crsOfGeo> } {
  // Polygons in map coordinates cannot be placed on a raster that has none.
  requireMapGrid(ds, `placing the polygons of argument "${arg}"`);
  let rasterCrs;
  try { rasterCrs = crsOfGeo(ds.geo, ds.source); } catch (e) { throw new VectorError(`argument "${arg}": ${(e as Error).message}`); }
  let note: string | undefined;
  let map: ((x: number, y: number) => [number, number]) | undefined;
  const lonLat = !layer.crs && rasterCrs && !rasterCrs.geographic ? lonLatAwayFrom(layer, ds) : undefined;
  if (lonLat && rasterCrs) {
    // A Shapefile whose .prj was lost on the way: in the raster's metres its polygons would sit
    // near the equator's origin, and every zone would come out empty.
    map = transformer(LONLAT, rasterCrs).forward;
    note = `${layer.file} declares no CRS (no .prj), and its coordinates (${lonLat}) are longitude and latitude, far from the raster in ${rasterCrs.label}: they were read as ${LONLAT.label}; give the file a .prj if they are not (ogr2ogr -a_srs EPSG:<code>)`;
  } else if (!layer.crs) {
    note = `${layer.file} declares no CRS (no .prj): its coordinates were taken to be in the raster's CRS${rasterCrs ? ` (${rasterCrs.label})` : ''}`;
  } else if (!rasterCrs) {
    throw new VectorError(`argument "${arg}": ${layer.file} is in ${layer.crs.label} but ${ds.source} names no CRS, so the polygons cannot be placed on it; assign the raster its CRS (gdal_edit.py -a_srs) first`);
  } else {
    let t;
    try { t = transformer(layer.crs, rasterCrs); } catch (e) { throw new VectorError(`argument "${arg}": ${e instanceof CrsError ? e.message : String(e)}`); }
    if (!t.identity) {
      map = t.forward;
      note = `${layer.format} ${layer.crs.label} reprojected to the raster's ${rasterCrs.label}`;
    }
  }
  return { map, note, rasterCrs };
}

/**
 * The bounds of a layer without a CRS as text when every coordinate fits longitude and latitude and
 * the layer, read in the raster's own (projected) coordinates, would not touch the raster; else undefined.
 */
function lonLatAwayFrom(layer: VectorLayer, ds: RasterDataset): string | undefined {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const f of layer.features) {
    for (const [x, y] of [...f.polygons.flat(2), ...(f.points ?? [])]) {
      x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
    }
  }
  if (!(x0 <= x1) || x0 < -180 || x1 > 180 || y0 < -90 || y1 > 90) return undefined;
  const g = ds.geo.geoTransform;
  const xs = [0, ds.width].flatMap((c) => [0, ds.height].map((r) => g[0] + c * g[1] + r * g[2]));
  const ys = [0, ds.width].flatMap((c) => [0, ds.height].map((r) => g[3] + c * g[4] + r * g[5]));
  const overlaps = x0 <= Math.max(...xs) && x1 >= Math.min(...xs) && y0 <= Math.max(...ys) && y1 >= Math.min(...ys);
  const n = (v: number) => String(Number(v.toFixed(4)));
  return overlaps ? undefined : `${n(x0)}, ${n(y0)} to ${n(x1)}, ${n(y1)}`;
}

/** A point layer's features in the CRS of `ds`: each with its points (features without points are refused, naming the first). */
export function pointsOnRaster(layer: VectorLayer, ds: RasterDataset, arg: string): { features: { feature: VectorFeature; points: [number, number][] }[]; note?: string } {
  const bad = layer.features.find((f) => f.geomType !== null && !f.points?.length);
  if (bad) throw new VectorError(`argument "${arg}": feature ${bad.id} in ${layer.file} is a ${bad.geomType}; give a layer of reference points, or of polygons`);
  const { map, note } = layerToRaster(layer, ds, arg);
  const features = layer.features.filter((f) => f.points?.length).map((feature) => ({
    feature,
    points: feature.points!.map(([x, y]) => {
      const p = map ? map(x, y) : [x, y] as [number, number];
      if (!Number.isFinite(p[0]) || !Number.isFinite(p[1])) throw new VectorError(`argument "${arg}": feature ${feature.id} in ${layer.file} has the point ${x}, ${y}, which has no position on ${ds.source}`);
      return p;
    }),
  }));
  return { features, ...(note ? { note } : {}) };
}

/**
 * A ring transformed point by point, with points added along each edge where the straight edge
 * in its own CRS bends in the target CRS by more than `tol` (as gdalwarp densifies a cutline):
 * a lon/lat edge is straight in lon/lat, not in UTM.
 */
export function densifyRing(ring: Ring, at: (x: number, y: number) => [number, number], tol: number): Ring {
  const out: Ring = [];
  const split = (ax: number, ay: number, pa: [number, number], bx: number, by: number, pb: [number, number], depth: number) => {
    const mx = (ax + bx) / 2, my = (ay + by) / 2;
    const pm = at(mx, my);
    if (depth < 16 && Math.hypot(pm[0] - (pa[0] + pb[0]) / 2, pm[1] - (pa[1] + pb[1]) / 2) > tol) {
      split(ax, ay, pa, mx, my, pm, depth + 1);
      out.push(pm);
      split(mx, my, pm, bx, by, pb, depth + 1);
    }
  };
  let prev: [number, number] | undefined;
  for (let k = 0; k < ring.length; k++) {
    const [x, y] = ring[k];
    const p = at(x, y);
    if (prev && k > 0) split(ring[k - 1][0], ring[k - 1][1], prev, x, y, p, 0);
    out.push(p);
    prev = p;
  }
  return out;
}
