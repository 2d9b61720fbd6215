/** DEM access for slope/aspect/hillshade: grid spacing in elevation units (metres; geographic DEMs converted at the centre latitude), strip streaming with a 1-row halo. */
import type { ToolContext } from './types';
import type { TerrainGrid } from '../algorithms/terrain';
import type { ResolvedBand } from '../bands';
import type { RasterDataset } from '../io/dataset';
import { pixelSizeMetres } from '../algorithms/area';
import { resolveRoles, closeResolved, streamStrips, gt, StripOutput } from './analysis-support';

export interface Dem { band: ResolvedBand; ds: RasterDataset; w: number; h: number; ewres: number; nsres: number; note?: string; close(): Promise<void> }

export async function openDem(ctx: ToolContext): Promise<Dem> {
  const r = await resolveRoles(ctx, 'dem', ['band'], { band: 1 });
  const ds = r.band.dataset;
  const g = gt(ds);
  let ewres = g[1], nsres = g[5];
  let note: string | undefined;
  if (ds.geo.geographic) {
    const m = pixelSizeMetres(g, ds.width, ds.height, true);
    ewres = Math.sign(g[1]) * m.x; nsres = Math.sign(g[5]) * m.y;
    note = `geographic DEM: pixel size taken as ${m.x.toFixed(2)} x ${m.y.toFixed(2)} m at the centre latitude`;
  }
  return { band: r.band, ds, w: ds.width, h: ds.height, ewres, nsres, note, close: () => closeResolved(r) };
}

/**
 * Runs a 3×3 terrain kernel strip by strip (one halo row each side, so results equal the whole-raster
 * computation) and hands each core strip to `use`, which returns what to write.
 */
export async function streamTerrain(
  ctx: ToolContext, dem: Dem, out: StripOutput,
  kernel: (z: Float32Array, g: TerrainGrid) => Float32Array,
  use: (core: Float32Array, y0: number, rows: number) => ArrayLike<number>,
): Promise<void> {
  const { w } = dem;
  await streamStrips(ctx, dem.ds, [dem.band], [out], ([z], y0, rows, top) => {
    const full = kernel(z, { w, h: z.length / w, ewres: dem.ewres, nsres: dem.nsres });
    return [use(full.subarray(top * w, (top + rows) * w), y0, rows)];
  }, 1);
}
