/** hillshade: Horn hillshade 1..255 (0 = nodata), as gdaldem hillshade; streamed in strips. */
import { defineTool } from './types';
import { openDem, runTerrain } from './terrain-support';
import { outPath, quicklook } from './analysis-support';
import { pct, whereText } from '../stats';

export const hillshadeTool = defineTool({
  id: 'hillshade',
  params: {
    dem: { kind: 'raster', required: true },
    azimuth: { kind: 'number', default: 315, description: 'sun azimuth, degrees clockwise from north' },
    altitude: { kind: 'number', default: 45, min: 0, max: 90, description: 'sun altitude above the horizon, degrees' },
    z_factor: { kind: 'number', default: 1 },
  },
  async run(ctx) {
    const { azimuth, altitude, z_factor: z } = ctx.args;
    if (!(z > 0)) throw new Error(`hillshade: argument "z_factor" must be positive, got ${z}`);
    const dem = await openDem(ctx);
    try {
      const file = outPath(ctx, 'hillshade', 'hillshade', 'tif');
      const run = await runTerrain(ctx, dem, { path: file, dtype: 'uint8', nodata: 0, description: `hillshade (azimuth ${azimuth}, altitude ${altitude})` },
        { type: 'hillshade', ewres: dem.ewres, nsres: dem.nsres, z, azimuth, altitude });
      const t = run.tallies!, preview = run.preview!;
      const valid = t.valid as number, dark = t.dark as number, sum = t.sum as number;
      const where = { text: () => whereText(t.hits as number[], t.totals as number[]) };
      if (valid === 0) throw new Error(`argument "dem": ${dem.ds.source} has no 3x3 window without nodata`);
      const png = await quicklook(outPath(ctx, 'hillshade', 'hillshade', 'png'), preview.data, preview.w, preview.h, { kind: 'hillshade', title: `Hillshade ${azimuth}°/${altitude}°` });
      return {
        tool: 'hillshade',
        outputs: { hillshade: { path: file, type: 'raster', roles: ['hillshade'], description: `shaded relief, sun at ${azimuth}° azimuth, ${altitude}° altitude` } },
        stats: { mean: sum / valid, shadow_fraction: Number((dark / valid).toFixed(4)), azimuth, altitude, z_factor: z, ...(dem.note ? { note: dem.note } : {}) },
        summary: dark
          ? `With the sun at ${azimuth}°/${altitude}°, ${pct(dark / valid)} of the terrain is in shade (grey < 100), ${where.text()}, on slopes facing away from the sun; mean brightness ${Math.round(sum / valid)} of 255.`
          : `With the sun at ${azimuth}°/${altitude}° the relief is gentle: no pixel falls below grey 100; mean brightness ${Math.round(sum / valid)} of 255.`,
        quicklook: png,
      };
    } finally { await dem.close(); }
  },
});
