/** time_series_trend: per-pixel least-squares slope per year over dated rasters, plus the mean series (streamed in strips). */
import { defineTool } from './types';
import type { ResolvedBand } from '../bands';
import { TrendAccumulator, decimalYear } from '../algorithms/trend';
import { resolveRoles, closeResolved, streamStrips, assertSameGrid, outPath, quicklook, sig, Preview } from './analysis-support';
import { pct, StatsAccumulator, whereText } from '../stats';
import { TWO_DATES } from '../../results/trend-notes';

export const timeSeriesTrendTool = defineTool({
  id: 'time_series_trend',
  params: {
    images: { kind: 'raster_list', required: true, description: 'rasters on one grid, one per date' },
    dates: { kind: 'string_list', required: true, description: 'ISO dates (YYYY-MM-DD), one per image' },
    band: { kind: 'band', default: 1 },
  },
  async run(ctx) {
    const { images, dates } = ctx.args;
    if (images.length < 2) throw new Error(`argument "images" needs at least 2 rasters, got ${images.length}`);
    if (dates.length !== images.length) throw new Error(`argument "dates" has ${dates.length} entries but "images" has ${images.length}; give one date per image`);
    const years = dates.map((d, k) => { try { return decimalYear(d); } catch (e) { throw new Error(`argument "dates"[${k}]: ${e instanceof Error ? e.message : e}`); } });
    if (new Set(years).size < 2) throw new Error('argument "dates" must contain at least two different dates');
    const resolved: Record<string, ResolvedBand>[] = [];
    try {
      for (let k = 0; k < images.length; k++) {
        const r = await resolveRoles(ctx, 'image', images[k], ['band'], { band: ctx.args.band }).catch((e) => {
          throw new Error(`argument "images"[${k}]: ${e instanceof Error ? e.message.replace(/^argument "image": /, '') : e}`);
        });
        resolved.push(r);
        if (k > 0) assertSameGrid(resolved[0].band.dataset, 'images[0]', r.band.dataset, `images[${k}]`);
      }
      const bands = resolved.map((r) => r.band);
      const ds = bands[0].dataset;
      const { width: w, height: h } = ds;
      const minObs = Math.min(3, images.length);
      const sums = new Float64Array(images.length), counts = new Float64Array(images.length);
      const acc = new StatsAccumulator(w, h);
      const preview = new Preview(w, h);
      let down = 0, up = 0;
      const file = outPath(ctx, 'time_series_trend', 'trend', 'tif');
      await streamStrips(ctx, ds, bands, [{ path: file, dtype: 'float32', nodata: -9999, description: 'trend: least-squares slope per year' }], (ins, y0, rows) => {
        const t = new TrendAccumulator(w * rows);
        ins.forEach((a, k) => {
          t.add(a, years[k]);
          for (let i = 0; i < a.length; i++) if (a[i] === a[i]) { sums[k] += a[i]; counts[k]++; }
        });
        const slope = t.slope(minObs);
        for (let i = 0; i < slope.length; i++) { if (slope[i] < 0) down++; else if (slope[i] > 0) up++; }
        acc.add(slope, 0, y0, w, rows);
        preview.add(slope, y0, rows);
        return [slope];
      });
      const st = acc.result();
      if (!st.valid) throw new Error(`no pixel has ${minObs} valid observations for a trend`);
      const series = images.map((img, k) => ({ date: dates[k], year: years[k], mean: counts[k] ? sig(sums[k] / counts[k], 6) : null, valid: counts[k], image: img }))
        .sort((a, b) => a.year - b.year);
      const p10 = st.percentiles!.p10, p90 = st.percentiles!.p90;
      const whereDown = whereText(acc.where((v) => v <= p10).cells, acc.sampleCells());
      const png = await quicklook(outPath(ctx, 'time_series_trend', 'trend', 'png'), preview.data, preview.pw, preview.ph, { kind: 'diverging', title: 'Trend per year' });
      const s0 = series[0], s1 = series[series.length - 1];
      const sign = (v: number) => (v >= 0 ? '+' : '') + sig(v);
      return {
        tool: 'time_series_trend',
        outputs: { trend: { path: file, type: 'raster', roles: ['trend'], description: `per-pixel OLS slope per year over ${images.length} dates` } },
        stats: { series, mean_trend_per_year: st.mean, p10, p90, declining_fraction: sig(down / st.valid, 4), rising_fraction: sig(up / st.valid, 4), min_observations: minObs },
        summary: `The scene mean went from ${sig(s0.mean ?? NaN)} (${s0.date}) to ${sig(s1.mean ?? NaN)} (${s1.date}); the per-pixel trend averages ${sign(st.mean!)} per year, `
          + `with ${pct(down / st.valid)} of pixels declining and the steepest declines (< ${sign(p10)}/yr) ${whereDown}.`
          // Two dates fit a line exactly: every pixel's noise reads as a rise or a decline.
          + (images.length === 2 ? ` ${TWO_DATES}` : ''),
        quicklook: png,
      };
    } finally {
      await Promise.all(resolved.map((r) => closeResolved(r)));
    }
  },
});
