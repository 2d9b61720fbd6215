/** vectorize_mask: mask → GeoJSON polygons (pixel outlines, holes kept) in the raster's CRS. */
import type { BuiltinTool } from './types';
import { vectorizeMask, polygonArea } from '../algorithms/vectorize';
import { resolveRoles, closeResolved, outPath, writeJson, gt, areaText, checkAbort, rowAreas } from './analysis-support';
import { assertBandFits, readMask } from './strip-support';
import { connectedComponents } from '../algorithms/components';
import { CELL_NAMES } from '../stats';

export const vectorizeMaskTool: BuiltinTool = {
  id: 'vectorize_mask',
  params: { image: { kind: 'raster', required: true, description: 'mask raster (nonzero = set)' } },
  async run(ctx) {
    const R = await resolveRoles(ctx, 'image', ['band'], { band: ctx.args.band ?? 1 });
    let mask: Uint8Array;
    const ds = R.band.dataset;
    const { width: w, height: h } = ds;
    try {
      // Whole-band algorithm: mask 1 + labels 4 + fill stack 4 + edge flags 1 bytes per pixel, plus a
      // second labelling (8) on geographic grids; the polygons themselves come on top.
      assertBandFits('vectorize_mask', ds, 10 + (ds.geo.geographic ? 8 : 0));
      mask = await readMask(ctx.signal, R.band);
    } finally { await closeResolved(R); }
    const g = gt(ds);
    const polys = vectorizeMask(mask, w, h, g, ctx.signal);
    checkAbort(ctx.signal);
    const geographic = ds.geo.geographic;
    // Geographic grids: exact ellipsoidal area as the sum of the pixels' areas by row. Polygons come
    // in 4-connected label order, so the same labelling maps pixels to polygons.
    let geoAreas: Float64Array | undefined;
    if (geographic) {
      const comp = connectedComponents(mask, w, h, { connectivity: 4, signal: ctx.signal });
      const rowA = rowAreas(ds);
      geoAreas = new Float64Array(comp.sizes.length + 1);
      for (let i = 0; i < comp.labels.length; i++) if (comp.labels[i]) geoAreas[comp.labels[i]] += rowA[Math.floor(i / w)];
    }
    const features = polys.map((p, k) => {
      const m2 = geoAreas ? geoAreas[k + 1] : polygonArea(p.rings);
      return {
        type: 'Feature',
        properties: { id: k + 1, pixels: p.pixels, area_m2: Number(m2.toFixed(2)), holes: p.rings.length - 1 },
        geometry: { type: 'Polygon', coordinates: p.rings },
      };
    });
    const crs = ds.geo.epsg ? { type: 'name', properties: { name: `urn:ogc:def:crs:EPSG::${ds.geo.epsg}` } } : undefined;
    const doc = { type: 'FeatureCollection', name: 'polygons', ...(crs ? { crs } : {}), features };
    const file = writeJson(outPath(ctx, 'vectorize_mask', 'polygons', 'geojson'), doc);
    const total = features.reduce((s, f) => s + f.properties.area_m2, 0);
    const holes = features.reduce((s, f) => s + f.properties.holes, 0);
    const sorted = [...features].sort((a, c) => c.properties.area_m2 - a.properties.area_m2);
    const big = sorted[0];
    let where = '';
    if (big) {
      const ring = big.geometry.coordinates[0];
      const cx = ring.reduce((s, c) => s + c[0], 0) / ring.length, cy = ring.reduce((s, c) => s + c[1], 0) / ring.length;
      const px = (cx - g[0]) / g[1], py = (cy - g[3]) / g[5];
      where = CELL_NAMES[Math.min(2, Math.max(0, Math.floor((3 * py) / h))) * 3 + Math.min(2, Math.max(0, Math.floor((3 * px) / w)))];
    }
    return {
      tool: 'vectorize_mask',
      outputs: { polygons: { path: file, type: 'vector', roles: ['polygons'], description: `mask outlines in ${ds.geo.epsg ? `EPSG:${ds.geo.epsg}` : 'the raster CRS'}` } },
      stats: { count: features.length, holes, total_m2: total, largest_m2: big?.properties.area_m2 ?? 0, crs: ds.geo.epsg ? `EPSG:${ds.geo.epsg}` : null },
      summary: features.length
        ? `${features.length} polygon${features.length > 1 ? 's' : ''} (${holes} hole${holes === 1 ? '' : 's'}) cover ${areaText(total)}; the largest, ${areaText(big!.properties.area_m2)} (${Math.round((100 * big!.properties.area_m2) / total)}% of the total), lies in the ${where}.`
        : 'The mask is empty: no polygons.',
    };
  },
};
