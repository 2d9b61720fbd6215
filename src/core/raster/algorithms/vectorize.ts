/** Mask → polygons by tracing pixel-edge outlines (4-connected regions, holes kept, collinear points dropped). */
import { StripVectorizer } from './vectorize-stream';

export type GeoTransform = [number, number, number, number, number, number];
export type Ring = [number, number][];

export interface MaskPolygon {
  /** Exterior ring first (counter-clockwise in map coordinates), then holes (clockwise); rings closed. */
  rings: Ring[];
  pixels: number;
}

/**
 * Polygons of the 1 pixels of a whole mask held in memory (small masks, tests); the tool streams rows
 * through StripVectorizer instead. Order: descending pixel count, ties by first pixel in raster order.
 */
export function vectorizeMask(mask: Uint8Array, w: number, h: number, gt: GeoTransform, signal?: AbortSignal): MaskPolygon[] {
  const v = new StripVectorizer(w, h);
  v.push(mask, h, signal);
  const set = v.finish();
  const polys: MaskPolygon[] = [];
  for (let k = 0; k < set.count; k++) {
    const rings: Ring[] = [];
    for (let j = 0; j < set.ringCount(k); j++) rings.push(set.ring(k, j, gt));
    polys.push({ rings, pixels: set.pixels(k) });
  }
  return polys;
}

/** Shoelace signed area of a ring: positive when counter-clockwise in map coordinates. */
export function signedArea(r: Ring): number {
  let s = 0;
  for (let i = 0; i < r.length; i++) {
    const [x0, y0] = r[i], [x1, y1] = r[(i + 1) % r.length];
    s += x0 * y1 - x1 * y0;
  }
  return s / 2;
}

/** Area of a polygon with holes in map units² (shoelace). */
export function polygonArea(rings: Ring[]): number {
  let a = 0;
  rings.forEach((r, i) => { const s = Math.abs(signedArea(r)); a += i === 0 ? s : -s; });
  return a;
}
