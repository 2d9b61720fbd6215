/** Whether two rasters share one grid (size, CRS, geotransform), and the message that names both grids and the tool that aligns them. */
import type { RasterDataset } from '../io/dataset';
import { crsOfGeo, sameCrs } from '../crs/crs';

function shortCrs(ds: RasterDataset): string {
  if (ds.geo.epsg !== undefined) return `EPSG:${ds.geo.epsg}`;
  try { return crsOfGeo(ds.geo, ds.source)?.label ?? 'no CRS'; } catch { return ds.geo.wkt ?? 'an unreadable CRS'; }
}

function crsDiffers(a: RasterDataset, b: RasterDataset): boolean {
  if (a.geo.epsg !== undefined || b.geo.epsg !== undefined) {
    if (a.geo.epsg === b.geo.epsg) return false;
  }
  try {
    const ca = crsOfGeo(a.geo, a.source), cb = crsOfGeo(b.geo, b.source);
    if (!ca || !cb) return !!ca !== !!cb;
    return !sameCrs(ca, cb);
  } catch {
    return (a.geo.epsg ?? a.geo.wkt ?? null) !== (b.geo.epsg ?? b.geo.wkt ?? null);
  }
}

/** Undefined when `a` and `b` are on one grid; else the message naming both grids and how to align `b` onto `a`. */
export function gridMismatch(a: RasterDataset, aArg: string, b: RasterDataset, bArg: string): string | undefined {
  const why: string[] = [];
  if (a.width !== b.width || a.height !== b.height) why.push(`size ${a.width}x${a.height} vs ${b.width}x${b.height}`);
  if (crsDiffers(a, b)) why.push(`CRS ${shortCrs(a)} vs ${shortCrs(b)}`);
  const ga = a.geo.geoTransform, gb = b.geo.geoTransform;
  const tol = 1e-6 * Math.max(Math.abs(ga[1]), Math.abs(ga[5]), 1e-12);
  if (ga.some((v, i) => Math.abs(v - gb[i]) > (i === 0 || i === 3 ? Math.max(tol, 1e-6 * Math.abs(v)) : tol))) {
    why.push(`geotransform [${ga.join(', ')}] vs [${gb.join(', ')}]`);
  }
  if (!why.length) return undefined;
  const { gridText } = require('./align') as typeof import('./align');
  return `grids do not match: "${aArg}" ${a.source} (${gridText(a)}) and "${bArg}" ${b.source} (${gridText(b)}) differ in ${why.join('; ')}; `
    + `put "${bArg}" onto the grid of "${aArg}" with the align tool (align image=${b.source} reference=${a.source}, resampling=near for classes and masks, bilinear for continuous values) and pass its output`;
}
