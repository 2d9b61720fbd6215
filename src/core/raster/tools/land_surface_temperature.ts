/** land_surface_temperature: LST (°C) from thermal brightness temperature with NDVI-based emissivity (streamed in strips). */
import type { BuiltinTool } from './types';
import { landSurfaceTemperature } from '../algorithms/lst';
import { resolveRoles, closeResolved, streamStrips, outPath, quicklook, sig, Preview } from './analysis-support';
import { StatsAccumulator, whereText } from '../stats';

export const landSurfaceTemperatureTool: BuiltinTool = {
  id: 'land_surface_temperature',
  params: {
    image: { kind: 'raster', required: true },
    sensor: { kind: 'string', enum: ['sentinel2_l2a', 'landsat89_c2l2', 'naip', 'planetscope_4b'] },
    thermal: { kind: 'band', description: 'brightness temperature band in kelvin (Landsat C2 L2 ST_B10 is already LST)' },
    red: { kind: 'band' },
    nir: { kind: 'band' },
  },
  async run(ctx) {
    const R = await resolveRoles(ctx, 'image', ['thermal', 'red', 'nir'], { thermal: ctx.args.thermal, red: ctx.args.red, nir: ctx.args.nir });
    try {
      const T = R.thermal, ds = T.dataset;
      const { width: w, height: h } = ds;
      const alreadySurface = ctx.args.sensor === 'landsat89_c2l2';
      const acc = new StatsAccumulator(w, h);
      const preview = new Preview(w, h);
      let tSum = 0, tN = 0;
      const file = outPath(ctx, 'land_surface_temperature', 'lst', 'tif');
      await streamStrips(ctx, ds, [T, R.red, R.nir], [{ path: file, dtype: 'float32', nodata: -9999, description: 'lst (degrees Celsius)' }], ([bt, red, nir], y0, rows) => {
        for (let i = 0; i < bt.length; i++) if (bt[i] === bt[i]) { tSum += bt[i]; tN++; }
        if (tN > 1000 && (tSum / tN < 150 || tSum / tN > 400)) {
          throw new Error(`argument "thermal": band ${T.band} of ${ds.source} averages ${sig(tSum / tN)}, not a temperature in kelvin; give the brightness-temperature band (or sensor=landsat89_c2l2 for ST_B10 DNs)`);
        }
        let lst: Float32Array;
        if (alreadySurface) {
          // Landsat C2 L2 ST_B10 is a surface temperature already: convert units only.
          lst = new Float32Array(bt.length);
          for (let i = 0; i < lst.length; i++) lst[i] = bt[i] - 273.15;
        } else lst = landSurfaceTemperature(bt, red, nir);
        acc.add(lst, 0, y0, w, rows);
        preview.add(lst, y0, rows);
        return [lst];
      });
      if (tN === 0) throw new Error(`argument "thermal": band ${T.band} of ${ds.source} has no valid pixels`);
      if (tSum / tN < 150 || tSum / tN > 400) {
        throw new Error(`argument "thermal": band ${T.band} of ${ds.source} averages ${sig(tSum / tN)}, not a temperature in kelvin; give the brightness-temperature band (or sensor=landsat89_c2l2 for ST_B10 DNs)`);
      }
      const st = acc.result();
      if (!st.valid) throw new Error(`argument "image": no pixel of ${ds.source} has valid thermal, red and NIR values`);
      const p10 = st.percentiles!.p10, p90 = st.percentiles!.p90;
      const totals = acc.sampleCells();
      const hot = whereText(acc.where((v) => v >= p90).cells, totals);
      const cool = whereText(acc.where((v) => v <= p10).cells, totals);
      const png = await quicklook(outPath(ctx, 'land_surface_temperature', 'lst', 'png'), preview.data, preview.pw, preview.ph, { kind: 'continuous', title: 'Land surface temperature', unit: '°C' });
      return {
        tool: 'land_surface_temperature',
        outputs: { lst: { path: file, type: 'raster', roles: ['lst', 'temperature'], description: 'land surface temperature, °C' } },
        stats: { mean_c: st.mean, min_c: st.min, max_c: st.max, p10_c: p10, p90_c: p90, method: alreadySurface ? 'Landsat C2 L2 ST (units only)' : 'single channel, NDVI emissivity (λ = 10.895 µm)' },
        summary: `Land surface temperature averages ${st.mean!.toFixed(1)} °C (${st.min!.toFixed(1)} to ${st.max!.toFixed(1)} °C); the hottest 10% (≥ ${p90.toFixed(1)} °C) ${hot.replace(/^mostly/, 'are mostly')}, the coolest 10% (≤ ${p10.toFixed(1)} °C) ${cool}.`,
        quicklook: png,
      };
    } finally { await closeResolved(R); }
  },
};
