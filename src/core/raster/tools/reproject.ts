/** reproject: a raster warped into another CRS (EPSG code, proj4 string or WKT) through proj4, on a north-up grid. */
import { openRaster } from '../io/dataset';
import { crsOfGeo, transformer, CrsError } from '../crs/crs';
import { num } from '../stats';
import type { GeoTransform } from '../algorithms/vectorize';
import { outPath, rasterOutput, requireMapGrid } from './common';
import { bandOneText, geoFor, warpRaster, pixelSizes } from './warp-support';
import { MAX_RESAMPLE_PIXELS, MAX_RESAMPLE_SIDE } from './spatial-tools';
import { warpMethod, RESAMPLING, unitOf } from './align';
import { defineTool } from './types';

export const reprojectTool = defineTool({
  id: 'reproject',
  params: {
    image: { kind: 'raster', required: true, single: true },
    dst_crs: { kind: 'crs', required: true, description: 'target CRS: EPSG:4326, EPSG:32632, a proj4 string or WKT' },
    resampling: { kind: 'string', default: 'near', enum: RESAMPLING, description: 'near for classes and masks, bilinear or cubic for continuous values, average to aggregate' },
    resolution: { kind: 'number', description: 'output pixel size in units of the target CRS (default: about the input\'s)' },
  },
  async run(ctx) {
    const dstCrs = ctx.args.dst_crs;
    const method = warpMethod(ctx.args.resampling);
    const ds = await openRaster(ctx.args.image, { signal: ctx.signal });
    try {
      requireMapGrid(ds, 'reproject');
      const srcCrs = crsOfGeo(ds.geo, ds.source);
      if (!srcCrs) throw new CrsError(`reproject: ${ds.source} names no CRS, so it cannot be reprojected; assign its CRS first (gdal_edit.py -a_srs EPSG:<code>)`);
      const t = transformer(srcCrs, dstCrs);
      const g = ds.geo.geoTransform;
      const at = (px: number, py: number) => t.forward(g[0] + px * g[1] + py * g[2], g[3] + px * g[4] + py * g[5]);
      // The input's outline and a grid inside it, in the target CRS.
      let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      const n = 20;
      for (let i = 0; i <= n; i++) {
        for (let j = 0; j <= n; j++) {
          const [x, y] = at((ds.width * i) / n, (ds.height * j) / n);
          if (!Number.isFinite(x) || !Number.isFinite(y)) continue;
          x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
        }
      }
      if (!(x1 > x0 && y1 > y0)) throw new CrsError(`reproject: ${ds.source} (${srcCrs.label}) has no area in ${dstCrs.label}`);
      let res = ctx.args.resolution ?? NaN;
      if (ctx.args.resolution !== undefined && !(res > 0)) throw new Error(`reproject: argument "resolution" must be a positive pixel size in ${unitOf(dstCrs)}, got ${res}`);
      if (!(res > 0)) {
        // As gdalwarp: the input's diagonal in the target CRS over its diagonal in pixels.
        const a = at(0, 0), b = at(ds.width, ds.height);
        res = Math.hypot(b[0] - a[0], b[1] - a[1]) / Math.hypot(ds.width, ds.height);
        if (!(res > 0)) res = Math.min((x1 - x0) / ds.width, (y1 - y0) / ds.height);
      }
      const W = Math.max(1, Math.floor((x1 - x0) / res + 0.5)), H = Math.max(1, Math.floor((y1 - y0) / res + 0.5));
      if (W > MAX_RESAMPLE_SIDE || H > MAX_RESAMPLE_SIDE || W * H > MAX_RESAMPLE_PIXELS) {
        throw new Error(`reproject: a ${num(res)} ${unitOf(dstCrs)} grid over ${ds.source} in ${dstCrs.label} would be ${W}×${H} pixels, more than GeoWeave writes (${MAX_RESAMPLE_PIXELS} pixels, ${MAX_RESAMPLE_SIDE} on a side); pass a larger resolution=`);
      }
      const gt: GeoTransform = [x0, res, 0, y1, 0, -res];
      const geo = geoFor(dstCrs, gt, 'reproject: argument "dst_crs"');
      const out = outPath(ctx, 'reprojected');
      const w = await warpRaster(ctx, ds, { width: W, height: H, geo, crs: dstCrs }, method, out, 'reproject');
      const r = w.acc.result();
      const [sx] = pixelSizes(g);
      const outside = r.count ? r.nodata / r.count : 0;
      const summary = `Reprojected ${ds.width}×${ds.height} pixels of ${num(sx)} ${unitOf(srcCrs)} in ${srcCrs.label} to ${W}×${H} pixels of ${num(res)} ${unitOf(dstCrs)} in ${dstCrs.label} (${method}); `
        + `${bandOneText(r, ds, num)}${outside >= 0.005 ? `; ${Math.round(outside * 100)}% of the new grid is nodata (outside the input or nodata there)` : ''}.`;
      return {
        tool: 'reproject', outputs: { reprojected: rasterOutput(out, ['reprojected'], `${ds.source} in ${dstCrs.label}`) },
        stats: { width: W, height: H, geoTransform: gt, crs: dstCrs.label, source_crs: srcCrs.label, resampling: method, kernel_scale: [w.xScale, w.yScale], ...r },
        summary,
      };
    } finally { await ds.close(); }
  },
});
