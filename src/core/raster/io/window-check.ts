import { CTORS, type DType, type TypedArray } from './samples';

/** What is wrong with a band window request on a raster (band out of range, window off the grid), or undefined. */
export function windowProblem(ds: { source: string; width: number; height: number; bandCount: number }, band: number, x: number, y: number, w: number, h: number): string | undefined {
  if (!Number.isInteger(band) || band < 1 || band > ds.bandCount) {
    return `${ds.source}: band ${band} is out of range (the file has ${ds.bandCount} band${ds.bandCount === 1 ? '' : 's'}, numbered 1..${ds.bandCount})`;
  }
  if (!(Number.isInteger(x) && Number.isInteger(y) && Number.isInteger(w) && Number.isInteger(h)) || x < 0 || y < 0 || w <= 0 || h <= 0 || x + w > ds.width || y + h > ds.height) {
    return `${ds.source}: window x=${x} y=${y} w=${w} h=${h} is outside the ${ds.width}x${ds.height} raster`;
  }
  return undefined;
}

/**
 * Checks a window request on an open dataset and gives the array its samples go into: `into` when
 * it is of the band's type and long enough, else a new one. The one prologue of every reader's
 * readWindowRaw.
 */
export function windowTarget(
  ds: { source: string; width: number; height: number; bandCount: number; dtype: DType }, open: boolean, fail: (message: string) => Error,
  band: number, x: number, y: number, w: number, h: number, into?: ArrayLike<number>,
): TypedArray {
  if (!open) throw fail(`${ds.source}: dataset is closed`);
  const problem = windowProblem(ds, band, x, y, w, h);
  if (problem) throw fail(problem);
  const Ctor = CTORS[ds.dtype];
  return into instanceof Ctor && into.length >= w * h ? (into as TypedArray).subarray(0, w * h) : new Ctor(w * h);
}
