/** slope: Horn slope in degrees, as gdaldem slope (edges nodata). */
import type { BuiltinTool } from './types';
import { slopeDegrees } from '../algorithms/terrain';
import { loadDem } from './terrain-support';
import { outPath, writeBand, quicklook, whereOf, finiteMean, sig } from './analysis-support';
import { pct } from '../stats';

export const slopeTool: BuiltinTool = {
  id: 'slope',
  params: {
    dem: { kind: 'raster', required: true, description: 'elevation raster (metres)' },
    z_factor: { kind: 'number', default: 1, description: 'multiplier for elevations (vertical exaggeration or unit conversion)' },
  },
  async run(ctx) {
    const z = Number(ctx.args.z_factor ?? 1);
    if (!(z > 0)) throw new Error(`argument "z_factor" must be positive, got ${ctx.args.z_factor}`);
    const { dem, grid, note } = await loadDem(ctx);
    const s = slopeDegrees(dem.data, grid, z, ctx.signal);
    const st = finiteMean(s);
    if (st.count === 0) throw new Error(`argument "dem": ${dem.ds.source} has no 3x3 window without nodata`);
    let steep = 0, flat = 0;
    for (let i = 0; i < s.length; i++) { if (s[i] > 25) steep++; else if (s[i] < 2) flat++; }
    const file = await writeBand(outPath(ctx, 'slope', 'slope', 'tif'), dem.ds, s, 'float32', -9999, 'slope (degrees)');
    const png = await quicklook(outPath(ctx, 'slope', 'slope', 'png'), s, dem.w, dem.h, { kind: 'continuous', title: 'Slope', unit: '°' });
    // The steepest decile locates rugged terrain even when little exceeds 25°.
    const sorted = Float32Array.from(s.filter((v) => v === v)).sort();
    const p90 = sorted[Math.floor(0.9 * (sorted.length - 1))];
    const where = whereOf(dem.w, dem.h, (i) => (steep ? s[i] > 25 : s[i] >= p90), (i) => s[i] === s[i]);
    const frac = steep / st.count;
    return {
      tool: 'slope',
      outputs: { slope: { path: file, type: 'raster', roles: ['slope'], description: 'slope in degrees (Horn, as gdaldem)' } },
      stats: { mean: sig(st.mean, 6), min: st.min, max: st.max, p90: p90, steeper_than_25: sig(frac, 4), flatter_than_2: sig(flat / st.count, 4), z_factor: z, ...(note ? { note } : {}) },
      summary: steep
        ? `Slope averages ${st.mean.toFixed(1)}° (max ${st.max.toFixed(1)}°); ${pct(frac)} of the area is steeper than 25°, ${where}.`
        : `Slope averages ${st.mean.toFixed(1)}° (max ${st.max.toFixed(1)}°, none steeper than 25°); the steepest 10% (> ${p90.toFixed(1)}°) lie ${where.replace(/^mostly in/, 'mostly in')}, and ${pct(flat / st.count)} is nearly flat (< 2°).`,
      quicklook: png,
    };
  },
};
