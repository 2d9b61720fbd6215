/** connected_patches: 8-connected patches of a mask, labelled 1..n by descending size. */
import type { BuiltinTool } from './types';
import { connectedComponents } from '../algorithms/components';
import { toByteMask } from '../algorithms/morphology';
import { loadBand, outPath, writeBand, quicklook, rowAreas, areaText, gt } from './analysis-support';
import { CELL_NAMES } from '../stats';

function cellOf(x: number, y: number, w: number, h: number): string {
  return CELL_NAMES[Math.min(2, Math.floor((3 * y) / h)) * 3 + Math.min(2, Math.floor((3 * x) / w))];
}

export const connectedPatchesTool: BuiltinTool = {
  id: 'connected_patches',
  params: {
    image: { kind: 'raster', required: true, description: 'mask raster (nonzero = set)' },
    min_pixels: { kind: 'integer', default: 1, description: 'drop patches smaller than this' },
  },
  async run(ctx) {
    const minPixels = Number(ctx.args.min_pixels ?? 1);
    if (!Number.isInteger(minPixels) || minPixels < 1) throw new Error(`argument "min_pixels" must be a positive integer, got ${ctx.args.min_pixels}`);
    const b = await loadBand(ctx, 'image');
    const { w, h, ds } = b;
    const mask = toByteMask(b.data);
    const comp = connectedComponents(mask, w, h, { connectivity: 8, minPixels, signal: ctx.signal });
    const rowA = rowAreas(ds);
    const patchM2 = new Float64Array(comp.sizes.length + 1);
    for (let i = 0; i < comp.labels.length; i++) { const l = comp.labels[i]; if (l) patchM2[l] += rowA[Math.floor(i / w)]; }
    const g = gt(ds);
    const patches = comp.sizes.map((s, k) => {
      const [cx, cy] = comp.centroids[k];
      return {
        label: k + 1, pixels: s, m2: patchM2[k + 1], ha: patchM2[k + 1] / 1e4,
        centroid: [g[0] + (cx + 0.5) * g[1] + (cy + 0.5) * g[2], g[3] + (cx + 0.5) * g[4] + (cy + 0.5) * g[5]],
        where: cellOf(cx, cy, w, h),
      };
    });
    const file = await writeBand(outPath(ctx, 'connected_patches', 'labels', 'tif'), ds, comp.labels, 'int32', 0, 'labels: patch id, 1 = largest');
    const ql = new Float32Array(comp.labels.length);
    for (let i = 0; i < ql.length; i++) ql[i] = comp.labels[i] === 0 ? NaN : ((comp.labels[i] - 1) % 12) + 1;
    const png = await quicklook(outPath(ctx, 'connected_patches', 'labels', 'png'), ql, w, h, { kind: 'class', title: `${patches.length} patches` });
    const total = patches.reduce((s, p) => s + p.m2, 0);
    const sizesHa = patches.map((p) => p.ha).sort((a, c) => a - c);
    const median = sizesHa.length ? sizesHa[Math.floor((sizesHa.length - 1) / 2)] : 0;
    const big = patches[0];
    return {
      tool: 'connected_patches',
      outputs: { labels: { path: file, type: 'raster', roles: ['labels', 'class'], description: '8-connected patch labels, 1 = largest, 0 = background' } },
      stats: {
        count: patches.length, removed: comp.removed, min_pixels: minPixels, sizes: patches.map((p) => p.pixels),
        total_m2: total, median_ha: median, patches: patches.slice(0, 50),
      },
      summary: patches.length
        ? `${patches.length} patch${patches.length > 1 ? 'es' : ''} (${areaText(total)} in all${comp.removed ? `; ${comp.removed} smaller than ${minPixels} px dropped` : ''}); the largest covers ${areaText(big.m2)} (${Math.round((100 * big.m2) / total)}% of the patch area) in the ${big.where}, and the median patch is ${areaText(median * 1e4)}.`
        : `No patches${comp.removed ? ` of at least ${minPixels} pixels (${comp.removed} smaller ones dropped)` : ': the mask is empty'}.`,
      quicklook: png,
    };
  },
};
