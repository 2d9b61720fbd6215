/** slope: Horn slope in degrees, as gdaldem slope (edges nodata); streamed in strips. */
import { defineTool } from './types';
import { openDem, runTerrain } from './terrain-support';
import { outPath, quicklook } from './analysis-support';
import { pct, whereText } from '../stats';

export const slopeTool = defineTool({
  id: 'slope',
  params: {
    dem: { kind: 'raster', required: true, description: 'elevation raster (metres)' },
    z_factor: { kind: 'number', default: 1, description: 'multiplier for elevations (vertical exaggeration or unit conversion)' },
  },
  async run(ctx) {
    const z = ctx.args.z_factor;
    if (!(z > 0)) throw new Error(`slope: argument "z_factor" must be positive, got ${z}`);
    const dem = await openDem(ctx);
    try {
      const file = outPath(ctx, 'slope', 'slope', 'tif');
      const run = await runTerrain(ctx, dem, { path: file, dtype: 'float32', nodata: -9999, description: 'slope (degrees)' },
        { type: 'slope', ewres: dem.ewres, nsres: dem.nsres, z }, true);
      const acc = run.stats!, preview = run.preview!;
      const steep = run.tallies!.steep as number, flat = run.tallies!.flat as number;
      const st = acc.result();
      if (!st.valid) throw new Error(`argument "dem": ${dem.ds.source} has no 3x3 window without nodata`);
      const p90 = st.percentiles!.p90;
      const totals = acc.sampleCells();
      const where = whereText(acc.where((v) => (steep ? v > 25 : v >= p90)).cells, totals);
      const png = await quicklook(outPath(ctx, 'slope', 'slope', 'png'), preview.data, preview.w, preview.h, { kind: 'continuous', title: 'Slope', unit: '°' });
      const frac = steep / st.valid;
      return {
        tool: 'slope',
        outputs: { slope: { path: file, type: 'raster', roles: ['slope'], description: 'slope in degrees (Horn, as gdaldem)' } },
        stats: { mean: st.mean, min: st.min, max: st.max, p90, steeper_than_25: Number(frac.toFixed(4)), flatter_than_2: Number((flat / st.valid).toFixed(4)), z_factor: z, ...(dem.note ? { note: dem.note } : {}) },
        summary: steep
          ? `Slope averages ${st.mean!.toFixed(1)}° (max ${st.max!.toFixed(1)}°); ${pct(frac)} of the area is steeper than 25°, ${where}.`
          : `Slope averages ${st.mean!.toFixed(1)}° (max ${st.max!.toFixed(1)}°, none steeper than 25°); the steepest 10% (> ${p90.toFixed(1)}°) lie ${where}, and ${pct(flat / st.valid)} is nearly flat (< 2°).`,
        quicklook: png,
      };
    } finally { await dem.close(); }
  },
});
