/** distance_to: Euclidean distance in metres from every pixel to the nearest mask pixel. */
import type { BuiltinTool } from './types';
import { distanceTransform } from '../algorithms/distance';
import { pixelSizeMetres } from '../algorithms/area';
import { resolveRoles, closeResolved, outPath, writeBand, quicklook, whereOf, gt, finiteMean } from './analysis-support';
import { assertBandFits, readMask } from './strip-support';

import { pct } from '../stats';

function metres(m: number): string {
  return m >= 1000 ? `${(m / 1000).toFixed(1)} km` : `${Math.round(m)} m`;
}

/** Bytes per pixel distance_to allocates for a whole band (see run). */
export const DISTANCE_BYTES_PER_PIXEL = 17;

export const distanceToTool: BuiltinTool = {
  id: 'distance_to',
  params: { image: { kind: 'raster', required: true, description: 'mask raster (nonzero = target)' } },
  async run(ctx) {
    const R = await resolveRoles(ctx, 'image', ['band'], { band: ctx.args.band ?? 1 });
    let mask: Uint8Array;
    const ds = R.band.dataset;
    const { width: w, height: h } = ds;
    try {
      // Whole-band algorithm: mask 1 + column pass 8 + distances 4 + sorted copy 4 bytes per pixel.
      assertBandFits('distance_to', ds, DISTANCE_BYTES_PER_PIXEL);
      mask = await readMask(ctx.signal, R.band);
    } finally { await closeResolved(R); }
    let targets = 0;
    for (let i = 0; i < mask.length; i++) if (mask[i] === 1) targets++;
    if (targets === 0) throw new Error(`argument "image": ${ds.source} has no mask pixels (nonzero values) to measure distance to`);
    const px = pixelSizeMetres(gt(ds), w, h, ds.geo.geographic);
    const d = distanceTransform(mask, w, h, px.x, px.y, ctx.signal);
    const st = finiteMean(d);
    const sorted = Float32Array.from(d).sort();
    const median = sorted[Math.floor((sorted.length - 1) / 2)];
    const far = sorted[Math.floor(0.9 * (sorted.length - 1))];
    let within = 0;
    const near = Math.max(100, 5 * px.x);
    for (let i = 0; i < d.length; i++) if (d[i] <= near) within++;
    const file = await writeBand(outPath(ctx, 'distance_to', 'distance', 'tif'), ds, d, 'float32', -9999, 'distance (metres) to the nearest mask pixel');
    const png = await quicklook(outPath(ctx, 'distance_to', 'distance', 'png'), d, w, h, { kind: 'continuous', title: 'Distance', unit: 'm' });
    const where = whereOf(w, h, (i) => d[i] >= far, () => true);
    return {
      tool: 'distance_to',
      outputs: { distance: { path: file, type: 'raster', roles: ['distance'], description: 'Euclidean distance in metres to the nearest nonzero mask pixel' } },
      stats: {
        mean_m: st.mean, median_m: median, max_m: st.max, p90_m: far, target_pixels: targets,
        within_m: near, within_fraction: Number((within / d.length).toFixed(4)),
        pixel_size_m: [px.x, px.y], ...(ds.geo.geographic ? { note: 'geographic grid: metres per pixel taken at the centre latitude' } : {}),
      },
      summary: `The mean distance to the nearest mask pixel is ${metres(st.mean)} (median ${metres(median)}, max ${metres(st.max)}); ${pct(within / d.length)} of the area lies within ${metres(near)}, and the most remote 10% (> ${metres(far)}) is ${where}.`,
      quicklook: png,
    };
  },
};
