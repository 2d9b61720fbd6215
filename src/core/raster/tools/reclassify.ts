/** reclassify: continuous values → classes 1..N by breaks and labels (streamed in strips). */
import { defineTool } from './types';
import { classScheme } from '../algorithms/reclassify';
import {
  resolveRoles, closeResolved, outPath, quicklook, rowAreas, areaText, labelsDescription,
} from './analysis-support';
import { runStrips } from '../pipeline/run-strips';
import { pct, whereText } from '../stats';

export const reclassifyTool = defineTool({
  id: 'reclassify',
  params: {
    image: { kind: 'raster', required: true },
    band: { kind: 'band', default: 1 },
    breaks: { kind: 'number_list', required: true, description: 'ascending numbers: N+1 interval edges for N labels, or N thresholds for N+1 labels' },
    labels: { kind: 'string_list', description: 'class names (class codes are 1..N in this order)' },
  },
  async run(ctx) {
    const scheme = classScheme(ctx.args.breaks, ctx.args.labels ?? []);
    const R = await resolveRoles(ctx, 'image', ctx.args.image, ['band'], { band: ctx.args.band });
    try {
      const ds = R.band.dataset;
      const { width: w, height: h } = ds;
      const labelMap: Record<number, string> = {};
      for (const c of scheme.classes) labelMap[c.code] = c.label;
      const file = outPath(ctx, 'reclassify', 'classes', 'tif');
      const b = R.band;
      const run = await runStrips({
        inputs: [{ source: ds.source, band: b.band, scale: b.scale, offset: b.offset }],
        kernel: { type: 'reclassify', scheme, rowAreas: rowAreas(ds, 'reclassify') }, inWidth: w, inHeight: h, outPath: file,
        out: { width: w, height: h, bands: 1, dtype: 'uint8', geo: { ...ds.geo }, nodata: 0, descriptions: [labelsDescription('classes', labelMap)] },
        preview: true, signal: ctx.signal, progress: (f) => ctx.progress(f),
      });
      const t = run.tallies!, preview = run.preview!;
      const n = scheme.classes.length;
      const valid = t.valid as number, pix = t.pix as number[], m2 = t.m2 as number[];
      const cells = Array.from({ length: n + 1 }, (_, c) => (t.cells as number[]).slice(c * 9, c * 9 + 9)), validCells = t.validCells as number[];
      if (valid === 0) throw new Error(`argument "image": ${ds.source} band ${R.band.band} has no valid pixels`);
      const table = scheme.classes.map((c) => ({
        code: c.code, label: c.label, lower: c.lower, upper: c.upper, pixels: pix[c.code], m2: m2[c.code],
        percent: (100 * pix[c.code]) / valid,
      }));
      const png = await quicklook(outPath(ctx, 'reclassify', 'classes', 'png'), preview.data, preview.w, preview.h, { kind: 'class', labels: labelMap, title: 'Classes' });
      const sorted = [...table].sort((a, b) => b.pixels - a.pixels);
      const [top, second] = sorted;
      const unclassified = pix[0];
      let summary = `"${top.label}" is the largest class with ${pct(top.pixels / valid)} of valid pixels (${areaText(top.m2)}), ${whereText(cells[top.code], validCells)}`;
      if (second && second.pixels) summary += `; "${second.label}" follows with ${pct(second.pixels / valid)} (${areaText(second.m2)}), ${whereText(cells[second.code], validCells)}`;
      summary += '.';
      if (unclassified > 0) summary += ` ${pct(unclassified / valid)} of valid pixels fall outside the breaks and are nodata.`;
      return {
        tool: 'reclassify',
        outputs: { classes: { path: file, type: 'raster', roles: ['class'], description: labelsDescription('classes', labelMap) } },
        stats: { classes: table, valid_pixels: valid, unclassified_pixels: unclassified },
        summary,
        quicklook: png,
      };
    } finally { await closeResolved(R); }
  },
});
