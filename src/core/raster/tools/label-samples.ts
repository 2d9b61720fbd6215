/**
 * Labelled pixels from a vector layer (training or reference data): every pixel whose centre lies in a
 * polygon, or the pixel holding each point, with the feature's class attribute. Layers in any CRS
 * (GeoJSON, Shapefile, GeoPackage) are brought onto the raster's grid as zonal_stats does.
 */
import type { RasterDataset } from '../io/dataset';
import type { ToolContext } from './types';
import { readVectorLayer, VectorError } from '../vector/read';
import { layerOnRaster, pointsOnRaster } from '../vector/to-raster';
import { preparePolygon, rasterizeRows, invertGeoTransform } from '../algorithms/zonal';
import { readResolved, ResolvedBand } from '../bands';
import { checkAbort, gt } from './analysis-support';
import { stripRowsFor } from './strip-support';

export interface LabelledPixels {
  /** Pixel column, row and the raw class attribute of each sample (one per covered pixel or per point). */
  xs: Int32Array; ys: Int32Array; values: (string | number)[];
  kind: 'points' | 'polygons';
  features: number;
  /** Points off the raster, and polygons covering no pixel centre. */
  outside: number;
  note?: string;
}

/** Most samples one layer may give (each costs a few bytes per band). */
export const MAX_SAMPLES = 20_000_000;

export function labelledPixels(ctx: ToolContext, file: string, ds: RasterDataset, arg: string, field: string): LabelledPixels {
  const fail = (e: unknown): never => {
    const msg = (e as Error).message;
    throw new Error(msg.startsWith('argument') ? msg : `argument "${arg}": ${msg}`);
  };
  let layer;
  try { layer = readVectorLayer(file); } catch (e) { return fail(e); }
  const feats = layer.features.filter((f) => f.geomType !== null);
  if (!feats.length) fail(new VectorError(`${file} has no features with a geometry`));
  const attrs = new Set<string>();
  for (const f of feats) for (const k of Object.keys(f.props)) attrs.add(k);
  if (!attrs.has(field)) {
    const ci = [...attrs].find((k) => k.toLowerCase() === field.toLowerCase());
    throw new Error(`argument "class_field": ${file} has no attribute "${field}"${ci ? `; did you mean "${ci}"?` : ''} (its attributes: ${[...attrs].join(', ') || 'none'})`);
  }
  const label = (f: { id: string | number; props: Record<string, unknown> }): string | number => {
    const v = f.props[field];
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    if (typeof v === 'string' && v.trim()) return /^\s*-?\d+(\.\d+)?\s*$/.test(v) ? Number(v) : v.trim();
    throw new Error(`argument "${arg}": feature ${f.id} in ${file} has no usable "${field}" value (${JSON.stringify(v ?? null)}); give every feature a class`);
  };
  const xs: number[] = [], ys: number[] = [], values: (string | number)[] = [];
  let outside = 0;
  const w = ds.width, h = ds.height;
  const isPoints = feats.every((f) => f.points?.length);
  let note: string | undefined;
  if (isPoints) {
    let placed;
    try { placed = pointsOnRaster(layer, ds, arg); } catch (e) { return fail(e); }
    note = placed.note;
    const inv = invertGeoTransform(gt(ds, 'placing labelled samples'));
    for (const { feature, points } of placed.features) {
      const v = label(feature);
      for (const [X, Y] of points) {
        const [px, py] = inv(X, Y);
        const x = Math.floor(px), y = Math.floor(py);
        if (x < 0 || y < 0 || x >= w || y >= h) { outside++; continue; }
        xs.push(x); ys.push(y); values.push(v);
      }
    }
  } else {
    let placed;
    try { placed = layerOnRaster(layer, ds, arg); } catch (e) { return fail(e); }
    note = placed.note;
    for (const [k, { feature, polygons }] of placed.features.entries()) {
      if (feature.geomType === null) continue;
      if (k % 16 === 0) checkAbort(ctx.signal);
      const v = label(feature);
      const before = xs.length;
      for (const poly of polygons) {
        rasterizeRows(preparePolygon(poly, gt(ds, 'placing labelled samples'), h), w, 0, h, (y, x) => {
          if (xs.length >= MAX_SAMPLES) throw new Error(`argument "${arg}": the polygons of ${file} cover more than ${MAX_SAMPLES} pixels; use smaller polygons or a sample of them`);
          xs.push(x); ys.push(y); values.push(v);
        });
      }
      if (xs.length === before) outside++;
    }
  }
  return { xs: Int32Array.from(xs), ys: Int32Array.from(ys), values, kind: isPoints ? 'points' : 'polygons', features: feats.length, outside, ...(note ? { note } : {}) };
}

/** Values of each band at the sample pixels (NaN = nodata), reading only the strips that hold samples. */
export async function valuesAt(ctx: ToolContext, bands: ResolvedBand[], xs: Int32Array, ys: Int32Array): Promise<Float32Array[]> {
  const ds = bands[0].dataset;
  const n = xs.length;
  const out = bands.map(() => new Float32Array(n));
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => ys[a] - ys[b]);
  const step = stripRowsFor(ds);
  let k = 0;
  while (k < n) {
    checkAbort(ctx.signal);
    const y0 = Math.floor(ys[order[k]] / step) * step, rows = Math.min(step, ds.height - y0);
    let end = k;
    while (end < n && ys[order[end]] < y0 + rows) end++;
    for (let b = 0; b < bands.length; b++) {
      const strip = await readResolved(bands[b], 0, y0, ds.width, rows, ctx.signal);
      for (let j = k; j < end; j++) { const i = order[j]; out[b][i] = strip[(ys[i] - y0) * ds.width + xs[i]]; }
    }
    k = end;
  }
  return out;
}
