/** Streams a PolygonSet to a GeoJSON FeatureCollection (temp file, then rename) without building the document in memory. */
import * as fs from 'node:fs';
import type { PolygonSet } from '../algorithms/vectorize-stream';
import type { GeoTransform } from '../algorithms/vectorize';
import { checkAbort } from './analysis-support';
import { openTempExclusive } from '../io/atomic-file';

const FLUSH = 1 << 20;

/**
 * Writes features {id, pixels, area_m2, holes} in polygon order, rings oriented and closed, numbers as
 * JSON.stringify writes them. Flushes every megabyte (even inside one huge ring), checking for an abort
 * each time; on any error the temp file is removed.
 */
export async function writePolygonsGeoJson(
  file: string, set: PolygonSet, g: GeoTransform, epsg: number | undefined, areaM2: (k: number) => number,
  signal: AbortSignal, progress?: (f: number) => void,
): Promise<string> {
  const { tmp, fh } = await openTempExclusive(file);
  let closed = false;
  let buf = '';
  let k = 0;
  const flush = async () => {
    await fh.write(buf);
    buf = '';
    checkAbort(signal);
    progress?.(k / Math.max(1, set.count));
  };
  try {
    const crs = epsg ? `"crs":${JSON.stringify({ type: 'name', properties: { name: `urn:ogc:def:crs:EPSG::${epsg}` } })},` : '';
    buf = `{"type":"FeatureCollection","name":"polygons",${crs}"features":[`;
    for (; k < set.count; k++) {
      const nr = set.ringCount(k);
      const props = JSON.stringify({ id: k + 1, pixels: set.pixels(k), area_m2: areaM2(k), holes: nr - 1 });
      buf += `${k ? ',' : ''}{"type":"Feature","properties":${props},"geometry":{"type":"Polygon","coordinates":[`;
      for (let j = 0; j < nr; j++) {
        const px = set.ringPixels(k, j);
        const n = px.length / 2;
        const rev = set.reversed(g, j > 0);
        let first = '';
        buf += j ? ',[' : '[';
        for (let i = 0; i < n; i++) {
          const q = rev ? n - 1 - i : i;
          const x = px[2 * q], y = px[2 * q + 1];
          const c = `[${g[0] + x * g[1] + y * g[2]},${g[3] + x * g[4] + y * g[5]}]`;
          if (i === 0) first = c;
          buf += c + ',';
          if (buf.length >= FLUSH) await flush();
        }
        buf += first + ']';
      }
      buf += ']}}';
    }
    buf += ']}';
    await flush();
    await fh.close();
    closed = true;
    await fs.promises.rename(tmp, file);
    return file;
  } catch (e) {
    if (!closed) await fh.close().catch(() => undefined);
    await fs.promises.unlink(tmp).catch(() => undefined);
    throw e;
  }
}
