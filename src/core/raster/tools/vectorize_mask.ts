/** vectorize_mask: mask → GeoJSON polygons (pixel outlines, holes kept) in the raster's CRS, streamed strip by strip. */
import { defineTool } from './types';
import { StripVectorizer, PolygonSet } from '../algorithms/vectorize-stream';
import { resolveRoles, closeResolved, outPath, gt, areaText, checkAbort, rowAreas } from './analysis-support';
import { stripRowsFor, readSetMask } from './strip-support';
import { writePolygonsGeoJson } from './polygons-geojson';
import { CELL_NAMES } from '../stats';

export const vectorizeMaskTool = defineTool({
  id: 'vectorize_mask',
  params: { image: { kind: 'raster', required: true, description: 'mask raster (nonzero = set)' } },
  async run(ctx) {
    const R = await resolveRoles(ctx, 'image', ctx.args.image, ['band'], { band: 1 });
    const ds = R.band.dataset;
    const { width: w, height: h } = ds;
    const geographic = ds.geo.geographic;
    let set: PolygonSet, rowA: Float64Array;
    try {
      rowA = rowAreas(ds, 'vectorize_mask');
      // Memory: two mask rows, the boundary chains open across the current row, finished rings.
      const vz = new StripVectorizer(w, h, geographic ? rowA : undefined);
      const step = stripRowsFor(ds);
      // Two strip buffers taken in turn: the vectorizer keeps a view of the previous strip's last row until the
      // next push, and a new 5 MB strip per push (at 10000²) was garbage the heap grew by before it was collected.
      const bufs = [new Uint8Array(w * Math.min(step, h)), new Uint8Array(w * Math.min(step, h))];
      for (let y0 = 0, k = 0; y0 < h; y0 += step, k ^= 1) {
        checkAbort(ctx.signal);
        const rows = Math.min(step, h - y0);
        vz.push(await readSetMask(R.band, 0, y0, w, rows, ctx.signal, bufs[k]), rows, ctx.signal, true);
        ctx.progress((0.8 * (y0 + rows)) / h);
      }
      set = vz.finish();
    } finally { await closeResolved(R); }
    checkAbort(ctx.signal);
    const g = gt(ds, 'vectorize_mask');
    // Projected grids: every pixel has the same area, so a polygon's area is exact as pixels × pixel area.
    // Geographic grids: the sum of its pixels' ellipsoidal areas by row.
    const area = new Float64Array(set.count);
    for (let k = 0; k < set.count; k++) area[k] = Number((geographic ? set.rowArea(k) : set.pixels(k) * rowA[0]).toFixed(2));
    const file = await writePolygonsGeoJson(
      outPath(ctx, 'vectorize_mask', 'polygons', 'geojson'), set, g, ds.geo.epsg, (k) => area[k], ctx.signal,
      (f) => ctx.progress(0.8 + 0.2 * f),
    );
    let total = 0, holes = 0, big = -1;
    for (let k = 0; k < set.count; k++) {
      total += area[k];
      holes += set.ringCount(k) - 1;
      if (big < 0 || area[k] > area[big]) big = k;
    }
    let where = '';
    if (big >= 0) {
      // The mean of the exterior ring's vertices (closing point included), as a cell of a 3×3 grid.
      const ring = set.ring(big, 0, g);
      const cx = ring.reduce((s, c) => s + c[0], 0) / ring.length, cy = ring.reduce((s, c) => s + c[1], 0) / ring.length;
      const px = (cx - g[0]) / g[1], py = (cy - g[3]) / g[5];
      where = CELL_NAMES[Math.min(2, Math.max(0, Math.floor((3 * py) / h))) * 3 + Math.min(2, Math.max(0, Math.floor((3 * px) / w)))];
    }
    const n = set.count;
    return {
      tool: 'vectorize_mask',
      outputs: { polygons: { path: file, type: 'vector', roles: ['polygons'], description: `mask outlines in ${ds.geo.epsg ? `EPSG:${ds.geo.epsg}` : 'the raster CRS'}` } },
      stats: { count: n, holes, total_m2: total, largest_m2: big >= 0 ? area[big] : 0, crs: ds.geo.epsg ? `EPSG:${ds.geo.epsg}` : null },
      summary: n
        ? `${n} polygon${n > 1 ? 's' : ''} (${holes} hole${holes === 1 ? '' : 's'}) cover ${areaText(total)}; the largest, ${areaText(area[big])} (${Math.round((100 * area[big]) / total)}% of the total), lies in the ${where}.`
        : 'The mask is empty: no polygons.',
    };
  },
});
