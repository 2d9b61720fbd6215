/** connected_patches: 8-connected patches of a mask, labelled 1..n by descending size; two streamed passes over strips. */
import { defineTool } from './types';
import { StripLabeller } from '../algorithms/components';
import { resolveRoles, closeResolved, outPath, rowAreas, areaText, gt, checkAbort } from './analysis-support';
import { RowSink, QuicklookSampler, stripRowsFor, readByteMask } from './strip-support';
import { CELL_NAMES } from '../stats';

function cellOf(x: number, y: number, w: number, h: number): string {
  return CELL_NAMES[Math.min(2, Math.floor((3 * y) / h)) * 3 + Math.min(2, Math.floor((3 * x) / w))];
}

export const connectedPatchesTool = defineTool({
  id: 'connected_patches',
  params: {
    image: { kind: 'raster', required: true, description: 'mask raster (nonzero = set)' },
    min_pixels: { kind: 'integer', default: 1, min: 1, description: 'drop patches smaller than this' },
  },
  async run(ctx) {
    const minPixels = ctx.args.min_pixels;
    const R = await resolveRoles(ctx, 'image', ctx.args.image, ['band'], { band: 1 });
    let sink: RowSink | undefined;
    try {
      const ds = R.band.dataset;
      const { width: w, height: h } = ds;
      const step = stripRowsFor(ds);
      const lab = new StripLabeller(w);
      // Pass 1: provisional labels, unions across strip boundaries, sizes and centroids.
      for (let y0 = 0; y0 < h; y0 += step) {
        checkAbort(ctx.signal);
        const rows = Math.min(step, h - y0);
        lab.scan(await readByteMask(R.band, 0, y0, w, rows, ctx.signal), y0, rows, true, undefined, ctx.signal);
        ctx.progress((0.5 * (y0 + rows)) / h);
      }
      const comp = lab.finish(minPixels);
      // Pass 2: final labels written strip by strip; areas summed in raster order.
      const rowA = rowAreas(ds, 'connected_patches');
      const patchM2 = new Float64Array(comp.sizes.length + 1);
      const ql = new QuicklookSampler(w, h);
      sink = await RowSink.create(outPath(ctx, 'connected_patches', 'labels', 'tif'), ds, 'int32', 0, 'labels: patch id, 1 = largest');
      for (let y0 = 0; y0 < h; y0 += step) {
        checkAbort(ctx.signal);
        const rows = Math.min(step, h - y0);
        const labels = new Int32Array(w * rows);
        lab.scan(await readByteMask(R.band, 0, y0, w, rows, ctx.signal), y0, rows, false, labels, ctx.signal);
        for (let i = 0; i < labels.length; i++) { const l = labels[i]; if (l) patchM2[l] += rowA[y0 + Math.floor(i / w)]; }
        ql.add(y0, rows, (i) => (labels[i] === 0 ? NaN : ((labels[i] - 1) % 12) + 1));
        await sink.push(labels, rows);
        ctx.progress(0.5 + (0.5 * (y0 + rows)) / h);
      }
      const file = await sink.finish();
      sink = undefined;
      const g = gt(ds, 'connected_patches');
      // Objects only for the patches reported; totals and the median come from the per-label areas.
      const patch = (k: number) => {
        const [cx, cy] = comp.centroids[k];
        return {
          label: k + 1, pixels: comp.sizes[k], m2: patchM2[k + 1], ha: patchM2[k + 1] / 1e4,
          centroid: [g[0] + (cx + 0.5) * g[1] + (cy + 0.5) * g[2], g[3] + (cx + 0.5) * g[4] + (cy + 0.5) * g[5]],
          where: cellOf(cx, cy, w, h),
        };
      };
      const count = comp.sizes.length;
      const png = await ql.render(outPath(ctx, 'connected_patches', 'labels', 'png'), { kind: 'class', title: `${count} patches` });
      let total = 0;
      const sizesHa = new Float64Array(count);
      for (let k = 0; k < count; k++) { total += patchM2[k + 1]; sizesHa[k] = patchM2[k + 1] / 1e4; }
      sizesHa.sort();
      const median = count ? sizesHa[Math.floor((count - 1) / 2)] : 0;
      const top = Array.from({ length: Math.min(50, count) }, (_, k) => patch(k));
      const big = top[0];
      return {
        tool: 'connected_patches',
        outputs: { labels: { path: file, type: 'raster', roles: ['labels', 'class'], description: '8-connected patch labels, 1 = largest, 0 = background' } },
        stats: {
          count, removed: comp.removed, min_pixels: minPixels, sizes: comp.sizes,
          total_m2: total, median_ha: median, patches: top,
        },
        summary: count
          ? `${count} patch${count > 1 ? 'es' : ''} (${areaText(total)} in all${comp.removed ? `; ${comp.removed} smaller than ${minPixels} px dropped` : ''}); the largest covers ${areaText(big.m2)} (${Math.round((100 * big.m2) / total)}% of the patch area) in the ${big.where}, and the median patch is ${areaText(median * 1e4)}.`
          : `No patches${comp.removed ? ` of at least ${minPixels} pixels (${comp.removed} smaller ones dropped)` : ': the mask is empty'}.`,
        quicklook: png,
      };
    } finally {
      if (sink) await sink.abort().catch(() => undefined);
      await closeResolved(R);
    }
  },
});
