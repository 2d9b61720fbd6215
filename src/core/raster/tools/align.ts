/** align: a raster warped onto another raster's grid (CRS, pixel size, extent), so the two combine pixel by pixel. */
import { openRaster, RasterDataset } from '../io/dataset';
import { crsOfGeo, crsLabelOf, Crs } from '../crs/crs';
import type { WarpMethod } from '../algorithms/warp';
import { num } from '../stats';
import { outPath, rasterOutput, requireMapGrid } from './common';
import { bandOneText, warpRaster, pixelSizes, TargetGrid } from './warp-support';
import { defineTool, type ToolContext } from './types';
import type { ToolRunResult } from '../types';

/** Resampling names the warp tools accept (gdalwarp's, and ours). */
export const RESAMPLING = ['near', 'nearest', 'bilinear', 'cubic', 'average'] as const;

export function warpMethod(s: typeof RESAMPLING[number]): WarpMethod {
  return s === 'near' ? 'nearest' : s;
}

export function unitOf(crs: Crs | undefined): string {
  return crs?.geographic ? '°' : 'm';
}

/** "EPSG:32632 (WGS 84 / UTM zone 32N), 10 m pixels, 600×600 from (500000, 4430000)". */
export function gridText(ds: RasterDataset): string {
  const g = ds.geo.geoTransform;
  const [sx, sy] = pixelSizes(g);
  const unit = ds.geo.geographic ? '°' : ' m';
  return `${crsLabelOf(ds.geo, ds.source)}, ${num(sx)}${sx === sy ? '' : `×${num(sy)}`}${unit} pixels, ${ds.width}×${ds.height} from (${num(g[0])}, ${num(g[3])})`;
}

/** The grid of a reference raster, written with its own georeferencing (EPSG code or keys). */
export function gridOf(ref: RasterDataset): TargetGrid {
  return { width: ref.width, height: ref.height, geo: { ...ref.geo, geoTransform: [...ref.geo.geoTransform] as TargetGrid['geo']['geoTransform'] }, crs: crsOfGeo(ref.geo, ref.source) };
}

/** Warps `image` onto the grid of `reference` (align, and resample with reference=). */
export async function warpOntoReference(
  ctx: ToolContext, image: string, reference: string, tool: string, method: WarpMethod, outName: string,
): Promise<ToolRunResult> {
  const ref = await openRaster(reference, { signal: ctx.signal });
  try {
    const ds = await openRaster(image, { signal: ctx.signal });
    try {
      requireMapGrid(ref, tool);
      requireMapGrid(ds, tool);
      const grid = gridOf(ref);
      const out = outPath(ctx, outName);
      const w = await warpRaster(ctx, ds, grid, method, out, tool);
      const r = w.acc.result();
      const outside = r.count ? r.nodata / r.count : 0;
      const summary = `Put ${ds.source} (${gridText(ds)}) onto the grid of ${ref.source} (${gridText(ref)}) with ${method}; `
        + `${bandOneText(r, ds, num)}${outside >= 0.005 ? `; ${Math.round(outside * 100)}% of the grid is nodata (outside the input or nodata there)` : ''}.`;
      return {
        tool, outputs: { [outName]: rasterOutput(out, [outName], `${ds.source} on the grid of ${ref.source}`) },
        stats: { width: ref.width, height: ref.height, geoTransform: ref.geo.geoTransform, crs: crsLabelOf(ref.geo, ref.source), resampling: method, kernel_scale: [w.xScale, w.yScale], ...r },
        summary,
      };
    } finally { await ds.close(); }
  } finally { await ref.close(); }
}

export const alignTool = defineTool({
  id: 'align',
  params: {
    image: { kind: 'raster', required: true, single: true, description: 'raster to put onto the reference grid' },
    reference: { kind: 'raster', required: true, single: true, description: 'raster whose grid (CRS, pixel size, extent) the output takes' },
    resampling: { kind: 'string', default: 'near', enum: RESAMPLING, description: 'near for classes and masks, bilinear or cubic for continuous values, average to aggregate' },
  },
  run: (ctx) => warpOntoReference(ctx, ctx.args.image, ctx.args.reference, 'align', warpMethod(ctx.args.resampling), 'aligned'),
});
