/**
 * ndvi_anomaly: departure of a target NDVI from a baseline stack (same period, earlier years), per pixel,
 * skipping nodata: difference = target − mean(baseline); zscore = (target − mean) / std, with the
 * sample standard deviation (n − 1). Pixels with fewer than `min_years` valid baseline values, or a
 * zero std for a z-score, are nodata. Streamed in strips.
 */
import { defineTool } from './types';
import type { ResolvedBand } from '../bands';
import { resolveRoles, closeResolved, streamStrips, assertSameGrid, outPath, quicklook, rowAreas, areaText, sig, WhereCounter, Preview } from './analysis-support';
import { pct } from '../stats';

/** Per-pixel anomaly of `target` against the `base` strips (NaN = nodata). */
export function anomaly(target: Float32Array, base: Float32Array[], method: 'difference' | 'zscore', minYears: number): Float32Array {
  const out = new Float32Array(target.length);
  for (let i = 0; i < target.length; i++) {
    const t = target[i];
    let n = 0, s = 0;
    for (const b of base) { const v = b[i]; if (v === v) { n++; s += v; } }
    if (t !== t || n < minYears) { out[i] = NaN; continue; }
    const mean = s / n;
    if (method === 'difference') { out[i] = t - mean; continue; }
    let ss = 0;
    for (const b of base) { const v = b[i]; if (v === v) ss += (v - mean) * (v - mean); }
    const sd = Math.sqrt(ss / (n - 1));
    out[i] = sd > 0 ? (t - mean) / sd : NaN;
  }
  return out;
}

export const ndviAnomalyTool = defineTool({
  id: 'ndvi_anomaly',
  params: {
    image: { kind: 'raster', required: true, description: 'target NDVI (or other index) raster' },
    baseline: { kind: 'raster_list', required: true, description: 'NDVI rasters of the same period in earlier years, on the same grid' },
    method: { kind: 'string', enum: ['difference', 'zscore'], default: 'difference', description: 'difference: target − mean; zscore: (target − mean) / std (sample std, n − 1)' },
    band: { kind: 'band', default: 1 },
    min_years: { kind: 'integer', min: 1, description: 'fewest valid baseline values a pixel needs (default 1 for difference, 2 for zscore)' },
  },
  async run(ctx) {
    const { baseline, method } = ctx.args;
    const minYears = ctx.args.min_years ?? (method === 'zscore' ? 2 : 1);
    if (method === 'zscore' && baseline.length < 2) throw new Error(`argument "baseline": a z-score needs at least 2 baseline rasters for a standard deviation, got ${baseline.length}; add earlier years or use method=difference`);
    if (minYears > baseline.length) throw new Error(`argument "min_years" must be from 1 to the ${baseline.length} baseline rasters, got ${minYears}`);
    if (method === 'zscore' && minYears < 2) throw new Error('argument "min_years" must be at least 2 for method=zscore (a standard deviation needs two values)');
    const opened: Record<string, ResolvedBand>[] = [];
    try {
      const T = await resolveRoles(ctx, 'image', ctx.args.image, ['band'], { band: ctx.args.band });
      opened.push(T);
      const ds = T.band.dataset;
      for (let k = 0; k < baseline.length; k++) {
        const r = await resolveRoles(ctx, 'baseline', baseline[k], ['band'], { band: ctx.args.band }).catch((e) => {
          throw new Error(`argument "baseline"[${k}]: ${e instanceof Error ? e.message.replace(/^argument "baseline": /, '') : e}`);
        });
        opened.push(r);
        assertSameGrid(ds, 'image', r.band.dataset, `baseline[${k}]`);
      }
      const { width: w, height: h } = ds;
      const rowA = rowAreas(ds, 'ndvi_anomaly');
      const lowCut = method === 'zscore' ? -1 : -0.1, highCut = -lowCut;
      let n = 0, sum = 0, mn = Infinity, mx = -Infinity, low = 0, high = 0, lowM2 = 0, targetValid = 0;
      const where = new WhereCounter(w, h);
      const preview = new Preview(w, h);
      const file = outPath(ctx, 'ndvi_anomaly', 'anomaly', 'tif');
      const desc = method === 'zscore' ? `anomaly: z-score of the target against ${baseline.length} baseline rasters` : `anomaly: target − mean of ${baseline.length} baseline rasters`;
      await streamStrips(ctx, ds, opened.map((r) => r.band), [{ path: file, dtype: 'float32', nodata: -9999, description: desc }], ([t, ...base], y0, rows) => {
        const a = anomaly(t, base, method, minYears);
        for (let i = 0; i < a.length; i++) {
          if (t[i] === t[i]) targetValid++;
          const v = a[i];
          if (v !== v) continue;
          n++; sum += v; if (v < mn) mn = v; if (v > mx) mx = v;
          if (v <= lowCut) { low++; lowM2 += rowA[y0 + Math.floor(i / w)]; } else if (v >= highCut) high++;
        }
        where.add(y0, rows, (i) => a[i] <= lowCut, (i) => a[i] === a[i]);
        preview.add(a, y0, rows);
        return [a];
      });
      if (n === 0) throw new Error(`no pixel has a valid target value and ${minYears} valid baseline value${minYears > 1 ? 's' : ''}${method === 'zscore' ? ' with a non-zero spread' : ''}; check the nodata of "image" and "baseline"`);
      const mean = sum / n;
      const unit = method === 'zscore' ? 'σ' : 'NDVI';
      const png = await quicklook(outPath(ctx, 'ndvi_anomaly', 'anomaly', 'png'), preview.data, preview.pw, preview.ph, {
        kind: 'diverging', title: method === 'zscore' ? 'NDVI anomaly (z-score)' : 'NDVI anomaly (target − baseline mean)', ...(method === 'zscore' ? { range: [-3, 3] as [number, number] } : { range: [-0.5, 0.5] as [number, number] }),
      });
      const cut = method === 'zscore' ? '−1σ' : '−0.1';
      return {
        tool: 'ndvi_anomaly',
        outputs: { anomaly: { path: file, type: 'raster', roles: ['anomaly', 'difference'], description: desc.replace(/^anomaly: /, '') } },
        stats: {
          method, baseline_rasters: baseline.length, min_years: minYears, mean: sig(mean, 6), min: mn, max: mx, valid_pixels: n,
          no_baseline_pixels: targetValid - n, below_pixels: low, below_fraction: sig(low / n, 4), below_m2: lowM2, above_pixels: high, above_fraction: sig(high / n, 4), cut: lowCut,
        },
        summary: `Against a ${baseline.length}-raster baseline the ${method === 'zscore' ? 'standardized ' : ''}anomaly averages ${sig(mean)} ${unit}; `
          + `${pct(low / n)} of the pixels (${areaText(lowM2)}) are at or below ${cut}${low ? `, ${where.text()}` : ''}, and ${pct(high / n)} are at or above ${cut.replace('−', '+')}.`,
        quicklook: png,
      };
    } finally { await Promise.all(opened.map((r) => closeResolved(r))); }
  },
});
