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
