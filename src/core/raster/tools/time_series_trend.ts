/** time_series_trend: per-pixel least-squares slope per year over dated rasters, plus the mean series. */
import type { BuiltinTool } from './types';
import { TrendAccumulator, decimalYear } from '../algorithms/trend';
import { loadRoles, assertSameGrid, outPath, writeBand, quicklook, whereOf, finiteMean, sig, listArg, checkAbort, LoadedBand } from './analysis-support';
import { pct } from '../stats';

export const timeSeriesTrendTool: BuiltinTool = {
  id: 'time_series_trend',
  params: {
    images: { kind: 'raster_list', required: true, description: 'rasters on one grid, one per date' },
    dates: { kind: 'string_list', required: true, description: 'ISO dates (YYYY-MM-DD), one per image' },
    band: { kind: 'band', default: 1 },
  },
  async run(ctx) {
    const images = Array.isArray(ctx.args.images) ? ctx.args.images.map(String) : listArg(ctx.args.images);
    const dates = listArg(ctx.args.dates);
    if (images.length < 2) throw new Error(`argument "images" needs at least 2 rasters, got ${images.length}`);
    if (dates.length !== images.length) throw new Error(`argument "dates" has ${dates.length} entries but "images" has ${images.length}; give one date per image`);
    const years = dates.map((d, k) => { try { return decimalYear(d); } catch (e) { throw new Error(`argument "dates"[${k}]: ${e instanceof Error ? e.message : e}`); } });
    if (new Set(years).size < 2) throw new Error('argument "dates" must contain at least two different dates');
    let first: LoadedBand | undefined;
    let acc: TrendAccumulator | undefined;
    const series: { date: string; year: number; mean: number | null; valid: number; image: string }[] = [];
    for (let k = 0; k < images.length; k++) {
      checkAbort(ctx.signal);
      ctx.progress(k / (images.length + 1), `reading ${images[k]}`);
      const sub = { ...ctx, args: { ...ctx.args, image: images[k] } };
      const { bands, close } = await loadRoles(sub, 'image', ['band'], { band: ctx.args.band ?? 1 }).catch((e) => {
        throw new Error(`argument "images"[${k}]: ${e instanceof Error ? e.message.replace(/^argument "image": /, '') : e}`);
      });
      await close();
      const b = bands.band;
      if (!first) { first = b; acc = new TrendAccumulator(b.w * b.h); }
      else assertSameGrid(first.ds, 'images[0]', b.ds, `images[${k}]`);
      acc!.add(b.data, years[k]);
      const st = finiteMean(b.data);
      series.push({ date: dates[k], year: years[k], mean: st.count ? sig(st.mean, 6) : null, valid: st.count, image: images[k] });
    }
    const slope = acc!.slope(Math.min(3, images.length));
    const st = finiteMean(slope);
    if (st.count === 0) throw new Error('no pixel has enough valid observations for a trend');
    const { w, h, ds } = first!;
    let down = 0, up = 0;
    const sorted = Float32Array.from(slope.filter((v) => v === v)).sort();
    const p10 = sorted[Math.floor(0.1 * (sorted.length - 1))], p90 = sorted[Math.floor(0.9 * (sorted.length - 1))];
    for (let i = 0; i < slope.length; i++) { if (slope[i] < 0) down++; else if (slope[i] > 0) up++; }
    const file = await writeBand(outPath(ctx, 'time_series_trend', 'trend', 'tif'), ds, slope, 'float32', -9999, 'trend: least-squares slope per year');
    const png = await quicklook(outPath(ctx, 'time_series_trend', 'trend', 'png'), slope, w, h, { kind: 'diverging', title: 'Trend per year' });
    const whereDown = whereOf(w, h, (i) => slope[i] <= p10, (i) => slope[i] === slope[i]);
    const ordered = [...series].sort((a, b) => a.year - b.year);
    const s0 = ordered[0], s1 = ordered[ordered.length - 1];
    const sign = (v: number) => (v >= 0 ? '+' : '') + sig(v);
    return {
      tool: 'time_series_trend',
      outputs: { trend: { path: file, type: 'raster', roles: ['trend'], description: `per-pixel OLS slope per year over ${images.length} dates` } },
      stats: { series: ordered, mean_trend_per_year: sig(st.mean, 6), p10, p90, declining_fraction: sig(down / st.count, 4), rising_fraction: sig(up / st.count, 4) },
      summary: `The scene mean went from ${sig(s0.mean ?? NaN)} (${s0.date}) to ${sig(s1.mean ?? NaN)} (${s1.date}); the per-pixel trend averages ${sign(st.mean)} per year, `
        + `with ${pct(down / st.count)} of pixels declining and the steepest declines (< ${sign(p10)}/yr) ${whereDown}.`,
      quicklook: png,
    };
  },
};
