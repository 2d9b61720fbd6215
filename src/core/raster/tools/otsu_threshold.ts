/** otsu_threshold: automatic two-class split of one band (mask = 1 above the threshold); streamed in strips. */
import { defineTool } from './types';
import { MASK_NODATA } from '../algorithms/morphology';
import {
  resolveRoles, closeResolved, streamStrips, streamedOtsu, outPath, quicklook, rowAreas, areaText, sig, WhereCounter, Preview, maskDescription,
} from './analysis-support';
import { pct } from '../stats';

export const otsuThresholdTool = defineTool({
  id: 'otsu_threshold',
  params: {
    image: { kind: 'raster', required: true, description: 'raster to split (e.g. an MNDWI or NDVI index)' },
    band: { kind: 'band', default: 1, description: '1-based band index or role name' },
  },
  async run(ctx) {
    const R = await resolveRoles(ctx, 'image', ctx.args.image, ['band'], { band: ctx.args.band });
    try {
      const b = R.band, ds = b.dataset;
      const { width: w, height: h } = ds;
      ctx.progress(0, 'histogram');
      const o = await streamedOtsu(ctx, ds, [b], (ins) => ins[0]);
      if (o.validCount === 0) throw new Error(`argument "image": ${ds.source} band ${b.band} has no valid pixels`);
      if (!(o.max > o.min)) throw new Error(`argument "image": ${ds.source} band ${b.band} is constant (${o.min}); nothing to threshold`);
      const rowA = rowAreas(ds, 'otsu_threshold');
      let valid = 0, above = 0, sumHi = 0, sumLo = 0, m2 = 0;
      const where = new WhereCounter(w, h);
      const preview = new Preview(w, h);
      const named = ds.bandDescriptions[b.band - 1] ?? `band ${b.band}`;
      const labels = { yes: `${named} > ${sig(o.threshold, 6)}`, no: `${named} ≤ ${sig(o.threshold, 6)}` };
      const desc = maskDescription('mask (Otsu)', labels);
      const file = outPath(ctx, 'otsu_threshold', 'mask', 'tif');
      await streamStrips(ctx, ds, [b], [{ path: file, dtype: 'uint8', nodata: MASK_NODATA, description: desc }], ([data], y0, rows) => {
        const mask = new Uint8Array(data.length);
        for (let i = 0; i < mask.length; i++) {
          const v = data[i];
          if (v !== v) { mask[i] = MASK_NODATA; continue; }
          valid++;
          if (v > o.threshold) { mask[i] = 1; above++; sumHi += v; m2 += rowA[y0 + Math.floor(i / w)]; } else sumLo += v;
        }
        where.add(y0, rows, (i) => mask[i] === 1, (i) => mask[i] !== MASK_NODATA);
        preview.add(mask, y0, rows, MASK_NODATA);
        return [mask];
      });
      const png = await quicklook(outPath(ctx, 'otsu_threshold', 'mask', 'png'), preview.data, preview.pw, preview.ph, { kind: 'mask', title: `Otsu mask (> ${sig(o.threshold)})`, labels: { 0: labels.no, 1: labels.yes } });
      const meanHi = above ? sumHi / above : NaN, meanLo = valid - above ? sumLo / (valid - above) : NaN;
      return {
        tool: 'otsu_threshold',
        outputs: { mask: { path: file, type: 'raster', roles: ['mask'], description: `1 where band ${b.band} > ${sig(o.threshold, 6)}` } },
        stats: {
          threshold: o.threshold, separability: sig(o.separability, 4), valid_pixels: valid, mask_pixels: above,
          mask_fraction: sig(above / valid, 4), mask_m2: m2, mean_above: sig(meanHi, 6), mean_below: sig(meanLo, 6),
        },
        summary: `The Otsu threshold ${sig(o.threshold)} splits the valid pixels into a lower class (mean ${sig(meanLo)}) and an upper class (mean ${sig(meanHi)}); `
          + `${pct(above / valid)} of them (${areaText(m2)}) are above it and set in the mask, ${where.text()}.`,
        quicklook: png,
      };
    } finally { await closeResolved(R); }
  },
});
