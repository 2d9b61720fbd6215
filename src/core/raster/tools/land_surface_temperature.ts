/** land_surface_temperature: LST (°C) from thermal brightness temperature with NDVI-based emissivity. */
import type { BuiltinTool } from './types';
import { landSurfaceTemperature } from '../algorithms/lst';
import { loadRoles, outPath, writeBand, quicklook, whereOf, finiteMean, sig } from './analysis-support';
import { pct } from '../stats';

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
    const { bands, close } = await loadRoles(ctx, 'image', ['thermal', 'red', 'nir'], { thermal: ctx.args.thermal, red: ctx.args.red, nir: ctx.args.nir });
    await close();
    const T = bands.thermal, { w, h, ds } = T;
    const stT = finiteMean(T.data);
    if (stT.count === 0) throw new Error(`argument "thermal": band ${T.band} of ${ds.source} has no valid pixels`);
    if (stT.mean < 150 || stT.mean > 400) {
      throw new Error(`argument "thermal": band ${T.band} of ${ds.source} averages ${sig(stT.mean)}, not a temperature in kelvin; give the brightness-temperature band (or sensor=landsat89_c2l2 for ST_B10 DNs)`);
    }
    const alreadySurface = ctx.args.sensor === 'landsat89_c2l2';
    let lst: Float32Array;
    if (alreadySurface) {
      // Landsat C2 L2 ST_B10 is a surface temperature already: convert units only.
      lst = new Float32Array(T.data.length);
      for (let i = 0; i < lst.length; i++) lst[i] = T.data[i] - 273.15;
    } else {
      lst = landSurfaceTemperature(T.data, bands.red.data, bands.nir.data);
    }
    const st = finiteMean(lst);
    const sorted = Float32Array.from(lst.filter((v) => v === v)).sort();
    const p90 = sorted[Math.floor(0.9 * (sorted.length - 1))], p10 = sorted[Math.floor(0.1 * (sorted.length - 1))];
    const file = await writeBand(outPath(ctx, 'land_surface_temperature', 'lst', 'tif'), ds, lst, 'float32', -9999, 'lst (degrees Celsius)');
    const png = await quicklook(outPath(ctx, 'land_surface_temperature', 'lst', 'png'), lst, w, h, { kind: 'continuous', title: 'Land surface temperature', unit: '°C' });
    const hot = whereOf(w, h, (i) => lst[i] >= p90, (i) => lst[i] === lst[i]);
    const cool = whereOf(w, h, (i) => lst[i] <= p10, (i) => lst[i] === lst[i]);
    return {
      tool: 'land_surface_temperature',
      outputs: { lst: { path: file, type: 'raster', roles: ['lst', 'temperature'], description: 'land surface temperature, °C' } },
      stats: { mean_c: sig(st.mean, 5), min_c: st.min, max_c: st.max, p10_c: p10, p90_c: p90, method: alreadySurface ? 'Landsat C2 L2 ST (units only)' : 'single channel, NDVI emissivity (λ = 10.895 µm)' },
      summary: `Land surface temperature averages ${st.mean.toFixed(1)} °C (${st.min.toFixed(1)} to ${st.max.toFixed(1)} °C); the hottest 10% (≥ ${p90.toFixed(1)} °C) ${hot.replace(/^mostly/, 'are mostly')}, the coolest 10% (≤ ${p10.toFixed(1)} °C) ${cool.replace(/^mostly/, 'mostly')}.`,
      quicklook: png,
    };
  },
};
