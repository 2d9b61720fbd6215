/** morphology: binary open/close/dilate/erode of a mask with a disc. */
import type { BuiltinTool } from './types';
import { morphology, toByteMask, MASK_NODATA, MorphOp } from '../algorithms/morphology';
import { loadBand, outPath, writeBand, quicklook, maskedFloat, whereOf, rowAreas, areaText } from './analysis-support';
import { pct } from '../stats';

const VERB: Record<MorphOp, string> = { open: 'Opening', close: 'Closing', dilate: 'Dilation', erode: 'Erosion' };

export const morphologyTool: BuiltinTool = {
  id: 'morphology',
  params: {
    image: { kind: 'raster', required: true, description: 'mask raster (nonzero = set)' },
    op: { kind: 'string', required: true, enum: ['open', 'close', 'dilate', 'erode'] },
    radius: { kind: 'integer', default: 1, description: 'disc radius in pixels' },
  },
  async run(ctx) {
    const op = String(ctx.args.op) as MorphOp;
    const radius = Number(ctx.args.radius ?? 1);
    if (!Number.isInteger(radius) || radius < 1 || radius > 100) throw new Error(`argument "radius" must be an integer from 1 to 100, got ${ctx.args.radius}`);
    const b = await loadBand(ctx, 'image');
    const { w, h, ds } = b;
    const mask = toByteMask(b.data);
    const out = morphology(mask, w, h, op, radius, ctx.signal);
    const rowA = rowAreas(ds);
    let before = 0, after = 0, added = 0, removed = 0, m2 = 0;
    for (let i = 0; i < out.length; i++) {
      const a = mask[i] === 1, c = out[i] === 1;
      if (a) before++;
      if (c) { after++; m2 += rowA[Math.floor(i / w)]; }
      if (c && !a) added++;
      if (a && !c) removed++;
    }
    const file = await writeBand(outPath(ctx, 'morphology', 'mask', 'tif'), ds, out, 'uint8', MASK_NODATA, `mask: ${op} radius ${radius}`);
    const png = await quicklook(outPath(ctx, 'morphology', 'mask', 'png'), maskedFloat(out, MASK_NODATA), w, h, { kind: 'mask', title: `${op} r=${radius}` });
    const changedWhere = whereOf(w, h, (i) => (mask[i] === 1) !== (out[i] === 1), (i) => mask[i] !== MASK_NODATA);
    const change = added >= removed
      ? `added ${added} pixels (${before ? pct(added / before) : 'n/a'} of the original mask)`
      : `removed ${removed} pixels (${pct(removed / Math.max(before, 1))} of the original mask)`;
    return {
      tool: 'morphology',
      outputs: { mask: { path: file, type: 'raster', roles: ['mask'], description: `${op} with a disc of radius ${radius}` } },
      stats: { op, radius, pixels_before: before, pixels_after: after, added, removed, mask_m2: m2 },
      summary: `${VERB[op]} with a ${radius}-pixel disc ${change}, ${added + removed ? changedWhere : 'nowhere'}; the mask now has ${after} pixels (${areaText(m2)}).`,
      quicklook: png,
    };
  },
};
