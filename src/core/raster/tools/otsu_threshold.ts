/** otsu_threshold: automatic two-class split of one band (mask = 1 above the threshold). */
import type { BuiltinTool } from './types';
import { otsuThreshold } from '../algorithms/otsu';
import { MASK_NODATA } from '../algorithms/morphology';
import { loadBand, outPath, writeBand, quicklook, maskedFloat, whereOf, rowAreas, areaText, sig } from './analysis-support';
import { pct } from '../stats';

export const otsuThresholdTool: BuiltinTool = {
  id: 'otsu_threshold',
  params: {
    image: { kind: 'raster', required: true, description: 'raster to split (e.g. an MNDWI or NDVI index)' },
    band: { kind: 'band', default: 1, description: '1-based band index or role name' },
  },
  async run(ctx) {
    ctx.progress(0, 'reading');
    const b = await loadBand(ctx, 'image');
    const { data, w, h, ds } = b;
    const o = otsuThreshold(data, 256);
    if (o.validCount === 0) throw new Error(`argument "image": ${ds.source} band ${b.band} has no valid pixels`);
    if (!(o.max > o.min)) throw new Error(`argument "image": ${ds.source} band ${b.band} is constant (${o.min}); nothing to threshold`);
    ctx.progress(0.5, 'thresholding');
    const mask = new Uint8Array(w * h);
    let above = 0, sumHi = 0, sumLo = 0, m2 = 0;
    const rowA = rowAreas(ds);
    for (let i = 0; i < mask.length; i++) {
      const v = data[i];
      if (v !== v) { mask[i] = MASK_NODATA; continue; }
      if (v > o.threshold) { mask[i] = 1; above++; sumHi += v; m2 += rowA[Math.floor(i / w)]; } else sumLo += v;
    }
    const valid = o.validCount;
    const file = await writeBand(outPath(ctx, 'otsu_threshold', 'mask', 'tif'), ds, mask, 'uint8', MASK_NODATA, `mask: value > ${sig(o.threshold, 6)} (Otsu)`);
    const png = await quicklook(outPath(ctx, 'otsu_threshold', 'mask', 'png'), maskedFloat(mask, MASK_NODATA), w, h, { kind: 'mask', title: `Otsu mask (> ${sig(o.threshold)})` });
    const where = whereOf(w, h, (i) => mask[i] === 1, (i) => mask[i] !== MASK_NODATA);
    const meanHi = above ? sumHi / above : NaN, meanLo = valid - above ? sumLo / (valid - above) : NaN;
    ctx.progress(1);
    return {
      tool: 'otsu_threshold',
      outputs: { mask: { path: file, type: 'raster', roles: ['mask'], description: `1 where band ${b.band} > ${sig(o.threshold, 6)}` } },
      stats: {
        threshold: o.threshold, separability: sig(o.separability, 4), valid_pixels: valid, mask_pixels: above,
        mask_fraction: sig(above / valid, 4), mask_m2: m2, mean_above: sig(meanHi, 6), mean_below: sig(meanLo, 6),
      },
      summary: `The Otsu threshold ${sig(o.threshold)} splits the valid pixels into a lower class (mean ${sig(meanLo)}) and an upper class (mean ${sig(meanHi)}); `
        + `${pct(above / valid)} of them (${areaText(m2)}) are above it and set in the mask, ${where}.`,
      quicklook: png,
    };
  },
};
