/** DEM access for slope/aspect/hillshade: grid spacing in elevation units (metres; geographic DEMs converted at the centre latitude), strip runs with a 1-row halo. */
import type { RasterArg, ToolContext } from './types';
import type { ResolvedBand } from '../bands';
import type { RasterDataset } from '../io/dataset';
import { pixelSizeMetres } from '../algorithms/area';
import { groundPixelSize } from './ground-area';
import { resolveRoles, closeResolved, gt, StripOutput } from './analysis-support';
import { runStrips, StripRunResult } from '../pipeline/run-strips';
import type { StripKernelSpec } from '../pipeline/strip-kernels';

export interface Dem { band: ResolvedBand; ds: RasterDataset; w: number; h: number; ewres: number; nsres: number; note?: string; close(): Promise<void> }

export async function openDem(ctx: ToolContext<{ dem: RasterArg }>): Promise<Dem> {
  const r = await resolveRoles(ctx, 'dem', ctx.args.dem, ['band'], { band: 1 });
  const ds = r.band.dataset;
  const g = gt(ds, 'a terrain tool (slope, aspect, hillshade)');
  let ewres = g[1], nsres = g[5];
  let note: string | undefined;
  if (ds.geo.geographic) {
    const m = pixelSizeMetres(g, ds.width, ds.height, true);
    ewres = Math.sign(g[1]) * m.x; nsres = Math.sign(g[5]) * m.y;
    note = `geographic DEM: pixel size taken as ${m.x.toFixed(2)} x ${m.y.toFixed(2)} m at the centre latitude`;
  } else {
    // A conformal grid such as Web Mercator stretches pixels: slopes need their size on the ground.
    const m = groundPixelSize(ds, false);
    if (m.note) { ewres = Math.sign(g[1]) * m.x; nsres = Math.sign(g[5]) * m.y; note = m.note; }
  }
  return { band: r.band, ds, w: ds.width, h: ds.height, ewres, nsres, note, close: () => closeResolved(r) };
}

/**
 * Runs a 3×3 terrain kernel over the DEM in strips with one halo row each side (results equal the
 * whole-raster computation), on worker threads when they pay; band statistics and the preview are kept
 * as the tiles are written.
 */
export function runTerrain(ctx: ToolContext, dem: Dem, out: StripOutput, kernel: StripKernelSpec, stats = false): Promise<StripRunResult> {
  const b = dem.band;
  return runStrips({
    inputs: [{ source: b.dataset.source, band: b.band, scale: b.scale, offset: b.offset }], kernel,
    inWidth: dem.w, inHeight: dem.h, outPath: out.path,
    out: { width: dem.w, height: dem.h, bands: 1, dtype: out.dtype, geo: { ...dem.ds.geo }, nodata: out.nodata, descriptions: [out.description] },
    stats, preview: true, signal: ctx.signal, progress: (f) => ctx.progress(f),
  });
}
