/** change_difference: after − before and a change mask; streamed in strips. */
import { defineTool } from './types';
import { difference, changeMask } from '../algorithms/change';
import { MASK_NODATA } from '../algorithms/morphology';
import {
  resolveRoles, closeResolved, streamStrips, streamedOtsu, assertSameGrid, outPath, quicklook, rowAreas, areaText, sig, WhereCounter, Preview,
} from './analysis-support';
import { pct } from '../stats';

export const changeDifferenceTool = defineTool({
  id: 'change_difference',
  params: {
    before: { kind: 'raster', required: true },
    after: { kind: 'raster', required: true },
    band: { kind: 'band', default: 1 },
    threshold: {
      kind: 'number',
      description: 'positive: change = increase above it; negative: change = decrease below it; omitted: |difference| above an Otsu threshold',
    },
  },
  async run(ctx) {
    const A = await resolveRoles(ctx, 'before', ctx.args.before, ['band'], { band: ctx.args.band });
    try {
      const B = await resolveRoles(ctx, 'after', ctx.args.after, ['band'], { band: ctx.args.band });
      try {
        const a = A.band, b = B.band, ds = a.dataset;
        assertSameGrid(ds, 'before', b.dataset, 'after');
        const { width: w, height: h } = ds;
        let threshold: number, absolute: boolean, method: string;
        if (ctx.args.threshold !== undefined) {
          threshold = ctx.args.threshold;
          absolute = threshold === 0;
          method = threshold > 0 ? 'increase above threshold' : threshold < 0 ? 'decrease below threshold' : 'any nonzero change';
        } else {
          const o = await streamedOtsu(ctx, ds, [a, b], ([x, y]) => {
            const d = difference(x, y);
            for (let i = 0; i < d.length; i++) d[i] = Math.abs(d[i]);
            return d;
          });
          if (o.validCount === 0) throw new Error(`"before" ${ds.source} and "after" ${b.dataset.source} share no valid pixels`);
          threshold = o.threshold; absolute = true; method = 'Otsu on |difference|';
        }
        const rowA = rowAreas(ds, 'change_difference');
        let valid = 0, changed = 0, m2 = 0, up = 0, sum = 0, mn = Infinity, mx = -Infinity;
        const where = new WhereCounter(w, h);
        const preview = new Preview(w, h);
        const fDiff = outPath(ctx, 'change_difference', 'difference', 'tif');
        const fMask = outPath(ctx, 'change_difference', 'change_mask', 'tif');
        await streamStrips(ctx, ds, [a, b], [
          { path: fDiff, dtype: 'float32', nodata: -9999, description: 'difference: after - before' },
          { path: fMask, dtype: 'uint8', nodata: MASK_NODATA, description: `change_mask: ${method} ${sig(threshold, 6)}` },
        ], ([x, y], y0, rows) => {
          const diff = difference(x, y);
          const mask = changeMask(diff, threshold, absolute);
          for (let i = 0; i < mask.length; i++) {
            if (mask[i] === MASK_NODATA) continue;
            const d = diff[i];
            valid++; sum += d; if (d < mn) mn = d; if (d > mx) mx = d;
            if (mask[i] === 1) { changed++; m2 += rowA[y0 + Math.floor(i / w)]; if (d > 0) up++; }
          }
          where.add(y0, rows, (i) => mask[i] === 1, (i) => mask[i] !== MASK_NODATA);
          preview.add(diff, y0, rows);
          return [diff, mask];
        });
        if (valid === 0) throw new Error(`"before" ${ds.source} and "after" ${b.dataset.source} share no valid pixels`);
        const mean = sum / valid;
        const png = await quicklook(outPath(ctx, 'change_difference', 'difference', 'png'), preview.data, preview.pw, preview.ph, { kind: 'diverging', title: 'after − before' });
        const what = absolute
          ? `changed by more than ${sig(Math.abs(threshold))} (${method}; ${pct(up / Math.max(changed, 1))} of it increases)`
          : threshold > 0 ? `increased by more than ${sig(threshold)}` : `decreased by more than ${sig(-threshold)}`;
        return {
          tool: 'change_difference',
          outputs: {
            difference: { path: fDiff, type: 'raster', roles: ['difference'], description: 'after − before' },
            change_mask: { path: fMask, type: 'raster', roles: ['mask'], description: `1 = ${method} ${sig(threshold, 6)}` },
          },
          stats: {
            threshold, threshold_method: method, mean_difference: sig(mean, 6), min_difference: mn, max_difference: mx,
            valid_pixels: valid, changed_pixels: changed, changed_fraction: sig(changed / valid, 4), changed_m2: m2,
          },
          summary: `Values ${what} over ${pct(changed / valid)} of the valid area (${areaText(m2)}), ${where.text()}; the mean difference is ${mean >= 0 ? '+' : ''}${sig(mean)}.`,
          quicklook: png,
        };
      } finally { await closeResolved(B); }
    } finally { await closeResolved(A); }
  },
});
