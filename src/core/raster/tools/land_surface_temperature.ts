/**
 * land_surface_temperature: LST (°C), streamed in strips. Landsat C2 L2 ST_B10 is already a surface
 * temperature and is only converted to °C; a brightness-temperature band gets the single-channel
 * NDVI-emissivity correction. With a Landsat QA_PIXEL band the summary figures cover clear pixels only.
 */
import { defineTool, type RasterArg, type ToolContext } from './types';
import { landSurfaceTemperature, surfaceKelvinToCelsius, isSurfaceTemperatureBand } from '../algorithms/lst';
import { resolveRoles, closeResolved, streamStrips, outPath, quicklook, sig, Preview, assertSameGrid } from './analysis-support';
import { StatsAccumulator, whereText, pct } from '../stats';
import type { ResolvedBand } from '../bands';

/** QA_PIXEL bits 1-4: dilated cloud, cirrus, cloud, cloud shadow (as cloud_mask); bit 0 is fill. */
const QA_CLOUDY = 0b11110;

function kelvinError(T: ResolvedBand, mean: number): Error {
  return new Error(`argument "thermal": band ${T.band} of ${T.dataset.source} averages ${sig(mean)}, not a temperature in kelvin; give a brightness-temperature band in kelvin, or Landsat C2 L2 ST_B10 (DNs are scaled by its band name or sensor=landsat89_c2l2)`);
}

export const landSurfaceTemperatureTool = defineTool({
  id: 'land_surface_temperature',
  params: {
    image: { kind: 'raster', required: true },
    sensor: { kind: 'string', enum: ['sentinel2_l2a', 'landsat89_c2l2', 'naip', 'planetscope_4b'] },
    thermal: { kind: 'band', description: 'Landsat C2 L2 ST_B10 (surface temperature: converted to °C only) or a brightness-temperature band in kelvin (emissivity-corrected from NDVI)' },
    red: { kind: 'band', description: 'needed for a brightness-temperature band only' },
    nir: { kind: 'band', description: 'needed for a brightness-temperature band only' },
  },
  async run(ctx) {
    const { image, sensor } = ctx.args;
    const open: Record<string, ResolvedBand>[] = [];
    try {
      const R0 = await resolveRoles(ctx, 'image', image, ['thermal'], { thermal: ctx.args.thermal, sensor });
      open.push(R0);
      const T = R0.thermal, ds = T.dataset;
      const desc = ds.bandDescriptions[T.band - 1];
      const surface = isSurfaceTemperatureBand(desc, sensor);
      const inputs: ResolvedBand[] = [T];
      if (!surface) {
        const R1 = await resolveRoles(ctx, 'image', image, ['red', 'nir'], { red: ctx.args.red, nir: ctx.args.nir, sensor });
        open.push(R1);
        inputs.push(R1.red, R1.nir);
      }
      const qa = await landsatQa(ctx, image, sensor, ds);
      if (qa) { open.push(qa.resolved); inputs.push(qa.band); }
      for (const b of inputs.slice(1)) if (b.dataset !== ds) assertSameGrid(ds, 'image (thermal)', b.dataset, 'image');

      const { width: w } = ds;
      const acc = new StatsAccumulator(w, ds.height);
      const preview = new Preview(w, ds.height);
      let tSum = 0, tN = 0, valid = 0, cloudy = 0;
      const file = outPath(ctx, 'land_surface_temperature', 'lst', 'tif');
      await streamStrips(ctx, ds, inputs, [{ path: file, dtype: 'float32', nodata: -9999, description: 'lst (degrees Celsius)' }], (ins, y0, rows) => {
        const bt = ins[0];
        for (let i = 0; i < bt.length; i++) if (bt[i] === bt[i]) { tSum += bt[i]; tN++; }
        if (tN > 1000 && (tSum / tN < 150 || tSum / tN > 400)) throw kelvinError(T, tSum / tN);
        const lst = surface ? surfaceKelvinToCelsius(bt) : landSurfaceTemperature(bt, ins[1], ins[2]);
        let forStats: Float32Array = lst;
        if (qa) {
          // Cloud tops are not land: the raster keeps them, the summary figures leave them out.
          const q = ins[ins.length - 1];
          forStats = new Float32Array(lst);
          for (let i = 0; i < lst.length; i++) {
            if (lst[i] !== lst[i]) continue;
            valid++;
            if (q[i] !== q[i] || (q[i] & QA_CLOUDY)) { cloudy++; forStats[i] = NaN; }
          }
        }
        acc.add(forStats, 0, y0, w, rows);
        preview.add(lst, y0, rows);
        return [lst];
      });
      if (tN === 0) throw new Error(`argument "thermal": band ${T.band} of ${ds.source} has no valid pixels`);
      if (tSum / tN < 150 || tSum / tN > 400) throw kelvinError(T, tSum / tN);
      const st = acc.result();
      if (!st.valid) {
        throw new Error(qa
          ? `argument "image": every valid pixel of ${ds.source} is flagged cloud, shadow or cirrus in QA_PIXEL (band ${qa.band.band}); pick a clearer scene`
          : `argument "image": no pixel of ${ds.source} has valid thermal, red and NIR values`);
      }
      const p10 = st.percentiles!.p10, p90 = st.percentiles!.p90;
      const totals = acc.sampleCells();
      const hot = whereText(acc.where((v) => v >= p90).cells, totals);
      const cool = whereText(acc.where((v) => v <= p10).cells, totals);
      const png = await quicklook(outPath(ctx, 'land_surface_temperature', 'lst', 'png'), preview.data, preview.pw, preview.ph, { kind: 'continuous', title: 'Land surface temperature', unit: '°C' });
      const name = desc ? `${desc} (band ${T.band})` : `band ${T.band}`;
      const method = surface
        ? `${name} is Landsat C2 L2 surface temperature, already emissivity-corrected by USGS: converted from kelvin to °C only, not corrected again.`
        : `${name} was taken as brightness temperature and corrected with NDVI-based emissivity (single channel, λ = 10.895 µm).`;
      const over = qa ? ` over the ${pct(1 - cloudy / valid)} of the scene that QA_PIXEL marks clear` : '';
      const masked = qa && cloudy
        ? ` The ${pct(cloudy / valid)} flagged cloud, cloud shadow or cirrus in QA_PIXEL (band ${qa.band.band}) keep their values in the raster but are left out of these figures; mask them with cloud_mask and apply_mask.`
        : '';
      return {
        tool: 'land_surface_temperature',
        outputs: { lst: { path: file, type: 'raster', roles: ['lst', 'temperature'], description: 'land surface temperature, °C' } },
        stats: {
          mean_c: st.mean, min_c: st.min, max_c: st.max, p10_c: p10, p90_c: p90,
          input: surface ? 'surface temperature (Landsat C2 L2 ST)' : 'brightness temperature',
          method: surface ? 'Landsat C2 L2 ST (units only)' : 'single channel, NDVI emissivity (λ = 10.895 µm)',
          thermal_band: T.band, thermal_scaling: T.how ?? null,
          ...(qa ? { qa_band: qa.band.band, cloudy_fraction: valid ? cloudy / valid : 0, stats_over: 'QA_PIXEL clear pixels' } : {}),
        },
        summary: `Land surface temperature averages ${st.mean!.toFixed(1)} °C${over} (${st.min!.toFixed(1)} to ${st.max!.toFixed(1)} °C); the hottest 10% (≥ ${p90.toFixed(1)} °C) ${hot.replace(/^mostly/, 'are mostly')}, the coolest 10% (≤ ${p10.toFixed(1)} °C) ${cool}. ${method}${masked}`,
        quicklook: png,
      };
    } finally {
      for (const r of open) await closeResolved(r);
    }
  },
});

/** The Landsat QA_PIXEL band of the thermal raster, when it has one (by band name, or the landsat89_c2l2 stack). */
async function landsatQa(
  ctx: ToolContext, image: RasterArg, sensor: string | undefined, ds: { bandDescriptions: (string | null)[] },
): Promise<{ resolved: Record<string, ResolvedBand>; band: ResolvedBand } | undefined> {
  const named = ds.bandDescriptions.some((d) => d?.trim().toLowerCase() === 'qa_pixel');
  if (!named && sensor !== 'landsat89_c2l2') return undefined;
  let r: Record<string, ResolvedBand>;
  try { r = await resolveRoles(ctx, 'image', image, ['qa'], { sensor }); } catch { return undefined; }
  const b = r.qa;
  const d = b.dataset.bandDescriptions[b.band - 1]?.trim().toLowerCase();
  if (d && d !== 'qa_pixel') { await closeResolved(r); return undefined; }
  return { resolved: r, band: b };
}
