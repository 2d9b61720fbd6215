/** A polygon layer brought into a raster's CRS (vertex by vertex, as gdal_rasterize does), with names for its features. */
import type { Ring } from '../algorithms/vectorize';
import type { RasterDataset } from '../io/dataset';
import { crsOfGeo, transformer, CrsError } from '../crs/crs';
import { VectorError, VectorFeature, VectorLayer } from './types';

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
  let rasterCrs;
  try { rasterCrs = crsOfGeo(ds.geo, ds.source); } catch (e) { throw new VectorError(`argument "${arg}": ${(e as Error).message}`); }
  let note: string | undefined;
  let map: ((x: number, y: number) => [number, number]) | undefined;
  if (!layer.crs) {
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
  const features = layer.features.map((feature) => ({
    feature,
    polygons: !map ? feature.polygons : feature.polygons.map((poly) => poly.map((ring) => ring.map(([x, y]) => {
      const p = map!(x, y);
      if (!Number.isFinite(p[0]) || !Number.isFinite(p[1])) {
        throw new VectorError(`argument "${arg}": feature ${feature.id} in ${layer.file} has the point ${x}, ${y}, which has no position in ${rasterCrs!.label}`);
      }
      return p;
    }))),
  }));
  return { features, ...(note ? { note } : {}) };
}
