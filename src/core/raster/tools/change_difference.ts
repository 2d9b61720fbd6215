/** change_difference: after − before and a change mask. */
import type { BuiltinTool } from './types';
import { difference, changeMask } from '../algorithms/change';
import { otsuThreshold } from '../algorithms/otsu';
import { MASK_NODATA } from '../algorithms/morphology';
import { loadBand, assertSameGrid, outPath, writeBand, quicklook, whereOf, rowAreas, areaText, sig, finiteMean } from './analysis-support';
import { pct } from '../stats';

export const changeDifferenceTool: BuiltinTool = {
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
    const a = await loadBand(ctx, 'before');
    const b = await loadBand(ctx, 'after');
    assertSameGrid(a.ds, 'before', b.ds, 'after');
    const { w, h } = a;
    const diff = difference(a.data, b.data);
    const given = ctx.args.threshold !== undefined && ctx.args.threshold !== null && ctx.args.threshold !== '';
    let threshold: number, absolute: boolean, method: string;
    if (given) {
      threshold = Number(ctx.args.threshold);
      if (!Number.isFinite(threshold)) throw new Error(`argument "threshold" must be a number, got ${ctx.args.threshold}`);
      absolute = threshold === 0;
      method = threshold > 0 ? 'increase above threshold' : threshold < 0 ? 'decrease below threshold' : 'any nonzero change';
    } else {
      const abs = new Float32Array(diff.length);
      for (let i = 0; i < diff.length; i++) abs[i] = Math.abs(diff[i]);
      threshold = otsuThreshold(abs).threshold;
      absolute = true;
      method = 'Otsu on |difference|';
    }
    const mask = changeMask(diff, threshold, absolute);
    const rowA = rowAreas(a.ds);
    let valid = 0, changed = 0, m2 = 0, up = 0;
    for (let i = 0; i < mask.length; i++) {
      if (mask[i] === MASK_NODATA) continue;
      valid++;
      if (mask[i] === 1) { changed++; m2 += rowA[Math.floor(i / w)]; if (diff[i] > 0) up++; }
    }
    if (valid === 0) throw new Error(`"before" ${a.ds.source} and "after" ${b.ds.source} share no valid pixels`);
    const st = finiteMean(diff);
    const fDiff = await writeBand(outPath(ctx, 'change_difference', 'difference', 'tif'), a.ds, diff, 'float32', -9999, 'difference: after - before');
    const fMask = await writeBand(outPath(ctx, 'change_difference', 'change_mask', 'tif'), a.ds, mask, 'uint8', MASK_NODATA, `change_mask: ${method} ${sig(threshold, 6)}`);
    const png = await quicklook(outPath(ctx, 'change_difference', 'difference', 'png'), diff, w, h, { kind: 'diverging', title: 'after − before' });
    const where = whereOf(w, h, (i) => mask[i] === 1, (i) => mask[i] !== MASK_NODATA);
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
        threshold, threshold_method: method, mean_difference: sig(st.mean, 6), min_difference: st.min, max_difference: st.max,
        valid_pixels: valid, changed_pixels: changed, changed_fraction: sig(changed / valid, 4), changed_m2: m2,
      },
      summary: `Values ${what} over ${pct(changed / valid)} of the valid area (${areaText(m2)}), ${where}; the mean difference is ${sig(st.mean) >= 0 ? '+' : ''}${sig(st.mean)}.`,
      quicklook: png,
    };
  },
};
