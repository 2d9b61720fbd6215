/** DEM loading for slope/aspect/hillshade: grid spacing in elevation units (metres; geographic DEMs converted at the centre latitude). */
import type { ToolContext } from './types';
import type { TerrainGrid } from '../algorithms/terrain';
import { pixelSizeMetres } from '../algorithms/area';
import { loadBand, gt, LoadedBand } from './analysis-support';

export async function loadDem(ctx: ToolContext): Promise<{ dem: LoadedBand; grid: TerrainGrid; note?: string }> {
  const dem = await loadBand({ ...ctx, args: { ...ctx.args, band: 1 } }, 'dem');
  const g = gt(dem.ds);
  let ewres = g[1], nsres = g[5];
  let note: string | undefined;
  if (dem.ds.geo.geographic) {
    const m = pixelSizeMetres(g, dem.w, dem.h, true);
    ewres = Math.sign(g[1]) * m.x; nsres = Math.sign(g[5]) * m.y;
    note = `geographic DEM: pixel size taken as ${m.x.toFixed(2)} x ${m.y.toFixed(2)} m at the centre latitude`;
  }
  return { dem, grid: { w: dem.w, h: dem.h, ewres, nsres }, note };
}
