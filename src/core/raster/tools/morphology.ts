/** morphology: binary open/close/dilate/erode of a mask with a disc, streamed in strips with a halo of rows. */
import { defineTool } from './types';
import { morphologyStrip, morphologyHalo, MASK_NODATA, MorphOp } from '../algorithms/morphology';
import { resolveRoles, closeResolved, outPath, rowAreas, areaText, checkAbort, WhereCounter, labelsFromDescription, maskDescription } from './analysis-support';
import { RowSink, QuicklookSampler, stripRowsFor, readByteMask } from './strip-support';
import { pct } from '../stats';

const VERB: Record<MorphOp, string> = { open: 'Opening', close: 'Closing', dilate: 'Dilation', erode: 'Erosion' };

export const morphologyTool = defineTool({
  id: 'morphology',
  params: {
    image: { kind: 'raster', required: true, description: 'mask raster (nonzero = set)' },
    op: { kind: 'string', required: true, enum: ['open', 'close', 'dilate', 'erode'] },
    radius: { kind: 'integer', default: 1, min: 1, max: 100, description: 'disc radius in pixels' },
  },
  async run(ctx) {
    const { op, radius } = ctx.args;
    const R = await resolveRoles(ctx, 'image', ctx.args.image, ['band'], { band: 1 });
    let sink: RowSink | undefined;
    try {
      const ds = R.band.dataset;
      const { width: w, height: h } = ds;
      const rowA = rowAreas(ds, 'morphology');
      const halo = morphologyHalo(op, radius);
      const step = stripRowsFor(ds);
      const where = new WhereCounter(w, h);
      const ql = new QuicklookSampler(w, h);
      let before = 0, after = 0, added = 0, removed = 0, m2 = 0;
      // The cleaned mask means what its input meant ("ndvi < 0.3"): keep the labels for area_by_class and the legend.
      const inLabels = labelsFromDescription(ds.bandDescriptions[R.band.band - 1]);
      const desc = inLabels?.[0] !== undefined && inLabels[1] !== undefined
        ? maskDescription(`mask (${op} radius ${radius})`, { yes: inLabels[1], no: inLabels[0] }) : `mask: ${op} radius ${radius}`;
      sink = await RowSink.create(outPath(ctx, 'morphology', 'mask', 'tif'), ds, 'uint8', MASK_NODATA, desc);
      for (let y0 = 0; y0 < h; y0 += step) {
        checkAbort(ctx.signal);
        const rows = Math.min(step, h - y0);
        const top = Math.max(0, y0 - halo), bottom = Math.min(h, y0 + rows + halo);
        const win = await readByteMask(R.band, 0, top, w, bottom - top, ctx.signal);
        const out = morphologyStrip(win, w, bottom - top, op, radius, y0, rows, top, h, ctx.signal);
        const o = (y0 - top) * w; // the strip's first pixel in the window
        for (let i = 0; i < out.length; i++) {
          const a = win[o + i] === 1, c = out[i] === 1;
          if (a) before++;
          if (c) { after++; m2 += rowA[y0 + Math.floor(i / w)]; }
          if (c && !a) added++;
          if (a && !c) removed++;
        }
        where.add(y0, rows, (i) => (win[o + i] === 1) !== (out[i] === 1), (i) => win[o + i] !== MASK_NODATA);
        ql.add(y0, rows, (i) => (out[i] === MASK_NODATA ? NaN : out[i]));
        await sink.push(out, rows);
        ctx.progress((y0 + rows) / h);
      }
      const file = await sink.finish();
      sink = undefined;
      const png = await ql.render(outPath(ctx, 'morphology', 'mask', 'png'), { kind: 'mask', title: `${op} r=${radius}`, ...(inLabels?.[0] !== undefined && inLabels[1] !== undefined ? { labels: { 0: inLabels[0], 1: inLabels[1] } } : {}) });
      const change = added >= removed
        ? `added ${added} pixels (${before ? pct(added / before) : 'n/a'} of the original mask)`
        : `removed ${removed} pixels (${pct(removed / Math.max(before, 1))} of the original mask)`;
      return {
        tool: 'morphology',
        outputs: { mask: { path: file, type: 'raster', roles: ['mask'], description: `${op} with a disc of radius ${radius}` } },
        stats: { op, radius, pixels_before: before, pixels_after: after, added, removed, mask_m2: m2 },
        summary: `${VERB[op]} with a ${radius}-pixel disc ${change}, ${added + removed ? where.text() : 'nowhere'}; the mask now has ${after} pixels (${areaText(m2)}).`,
        quicklook: png,
      };
    } finally {
      if (sink) await sink.abort().catch(() => undefined);
      await closeResolved(R);
    }
  },
});
