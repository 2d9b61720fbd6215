/**
 * clip_to_vector: a raster cut to polygons (GeoJSON, Shapefile, GeoPackage; any CRS). As
 * gdalwarp -cutline -crop_to_cutline: the extent is the polygons' box snapped inwards to the
 * raster's pixel grid, and pixels whose centre lies outside every polygon become nodata.
 */
import { openRaster, GeoInfo } from '../io/dataset';
import type { WriteSpec } from '../io/writer';
import { preparePolygon, rasterizeRowSpans, PreparedPolygon } from '../algorithms/zonal';
import type { GeoTransform } from '../algorithms/vectorize';
import { readVectorLayer } from '../vector/read';
import { layerOnRaster } from '../vector/to-raster';
import { num } from '../stats';
import { outPath, rasterOutput, requireMapGrid, projectedPixelArea } from './common';
import { classLegend, writableType, writeStrips } from './spatial-tools';
import { defineTool } from './types';

export const clipToVectorTool = defineTool({
  id: 'clip_to_vector',
  params: {
    image: { kind: 'raster', required: true, single: true },
    cutline: { kind: 'vector', required: true, description: 'polygons to keep: GeoJSON, Shapefile (.shp), GeoPackage (.gpkg, "file.gpkg#layer") in any CRS, or KML' },
    crop: { kind: 'boolean', default: true, description: 'shrink the extent to the polygons (gdalwarp -crop_to_cutline); false keeps the whole grid' },
  },
  async run(ctx) {
    const { cutline } = ctx.args;
    const ds = await openRaster(ctx.args.image, { signal: ctx.signal });
    try {
      requireMapGrid(ds, 'clip_to_vector');
      const g = ds.geo.geoTransform;
      if (g[2] !== 0 || g[4] !== 0) throw new Error(`clip_to_vector: ${ds.source} has a rotated geotransform; put it on a north-up grid first (reproject)`);
      let placed;
      try {
        placed = layerOnRaster(readVectorLayer(cutline), ds, 'cutline');
      } catch (e) {
        const msg = (e as Error).message;
        throw new Error(msg.startsWith('argument') ? msg : `argument "cutline": ${msg}`);
      }
      const polys = placed.features.flatMap((f) => f.polygons);
      if (!polys.length) throw new Error(`argument "cutline": ${cutline} has no polygons`);
      let minx = Infinity, miny = Infinity, maxx = -Infinity, maxy = -Infinity;
      for (const poly of polys) for (const ring of poly) for (const [x, y] of ring) {
        if (x < minx) minx = x; if (x > maxx) maxx = x; if (y < miny) miny = y; if (y > maxy) maxy = y;
      }
      // Column/row window of the output on the raster's grid (may reach past the raster: that part is nodata).
      let c0 = 0, c1 = ds.width, r0 = 0, r1 = ds.height;
      if (ctx.args.crop) {
        const eps = 1e-8;
        const px = (x: number) => (x - g[0]) / g[1], py = (y: number) => (y - g[3]) / g[5];
        const [xa, xb] = [px(minx), px(maxx)].sort((a, b) => a - b), [ya, yb] = [py(miny), py(maxy)].sort((a, b) => a - b);
        c0 = Math.ceil(xa - eps); c1 = Math.floor(xb + eps); r0 = Math.ceil(ya - eps); r1 = Math.floor(yb + eps);
      }
      const W = c1 - c0, H = r1 - r0;
      if (W <= 0 || H <= 0 || c1 <= 0 || r1 <= 0 || c0 >= ds.width || r0 >= ds.height) {
        throw new Error(`argument "cutline": the polygons of ${cutline} (box ${[minx, miny, maxx, maxy].map((v) => num(v)).join(', ')} in the raster's CRS) do not cover a pixel of ${ds.source}`);
      }
      if (W * H > 1 << 28) throw new Error(`clip_to_vector: the polygons' box is ${W}×${H} pixels of ${ds.source}, more than GeoWeave writes; clip_bbox first`);
      const gt: GeoTransform = [g[0] + c0 * g[1], g[1], 0, g[3] + r0 * g[5], 0, g[5]];
      const geo: GeoInfo = { ...ds.geo, geoTransform: gt };
      const prepared: PreparedPolygon[] = polys.map((poly) => preparePolygon(poly, gt, H));
      const dtype = writableType(ds.dtype);
      const nodata = ds.nodata ?? (dtype === 'float32' ? -9999 : 0);
      const spec: WriteSpec = {
        width: W, height: H, bands: ds.bandCount, dtype, geo, nodata,
        descriptions: ds.bandDescriptions.map((d) => d ?? ''), scales: ds.scales, offsets: ds.offsets,
        ...classLegend(ds, dtype),
      };
      let inside = 0;
      let maskY = -1, mask = new Uint8Array(0);
      const out = outPath(ctx, 'clipped');
      const acc = await writeStrips(ctx, out, spec, async (band, y0, h) => {
        if (maskY !== y0) {
          // Locals, not the closure's variables, in the per-pixel loops.
          const m = new Uint8Array(W * h);
          for (const p of prepared) rasterizeRowSpans(p, W, y0, y0 + h, (y, a, b) => { m.fill(1, (y - y0) * W + a, (y - y0) * W + b + 1); });
          let n = 0;
          for (let i = 0; i < m.length; i++) n += m[i];
          inside += n; mask = m; maskY = y0;
        }
        // Float32 outputs get float32 strips (written and summarised without another copy).
        const res = dtype === 'float32' ? new Float32Array(W * h) : new Float64Array(W * h);
        // The part of the strip that lies on the raster (copyMaskedRow writes every pixel of it: NaN off the mask).
        const sx0 = Math.max(0, c0), sx1 = Math.min(ds.width, c1), sy0 = Math.max(0, r0 + y0), sy1 = Math.min(ds.height, r0 + y0 + h);
        if (!(sx0 === c0 && sx1 === c1 && sy0 === r0 + y0 && sy1 === r0 + y0 + h)) res.fill(NaN);
        if (sx1 > sx0 && sy1 > sy0) {
          const src = await ds.readWindowRaw(band, sx0, sy0, sx1 - sx0, sy1 - sy0, ctx.signal);
          const sw = sx1 - sx0;
          const nd = ds.nodata === null ? null : ds.dtype === 'float32' ? Math.fround(ds.nodata) : ds.nodata;
          for (let sy = sy0; sy < sy1; sy++) copyMaskedRow(src, (sy - sy0) * sw, res, (sy - r0 - y0) * W + (sx0 - c0), mask, sx1 - sx0, nd);
        }
        return res;
      });
      const r = acc.result();
      const px = projectedPixelArea(ds);
      const area = px === undefined ? '' : ` (${num((inside * px) / 1e4)} ha inside)`;
      const summary = `Clipped ${ds.source} to ${placed.features.length} polygon feature${placed.features.length === 1 ? '' : 's'} of ${cutline}: ${W}×${H} pixels, ${inside} inside the polygons${area}; `
        + `band 1 mean ${num(r.mean)} inside.${placed.note ? ` ${placed.note[0].toUpperCase()}${placed.note.slice(1)}.` : ''}`;
      return {
        tool: 'clip_to_vector', outputs: { clipped: rasterOutput(out, ['clipped']) },
        stats: { width: W, height: H, window: { x: c0, y: r0, width: W, height: H }, geoTransform: gt, pixels_inside: inside, ...(placed.note ? { crs_note: placed.note } : {}), ...r },
        summary,
      };
    } finally { await ds.close(); }
  },
});

/**
 * One row of the clip: n samples of `src` from `so` into `res` from `o` where `mask` is set (nodata → NaN).
 * A function of its own with local arguments, so the loop is a tight typed-array copy (the closure's
 * version reloaded its captured variables per pixel: ~17 ns a pixel).
 */
function copyMaskedRow(src: ArrayLike<number>, so: number, res: Float32Array | Float64Array, o: number, mask: Uint8Array, n: number, nd: number | null): void {
  const ndv = nd === null ? NaN : nd;
  for (let i = 0; i < n; i++) {
    const v = src[so + i];
    res[o + i] = mask[o + i] === 0 || v === ndv ? NaN : v;
  }
}
