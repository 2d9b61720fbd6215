/** reclassify: continuous values → classes 1..N by breaks and labels. */
import type { BuiltinTool } from './types';
import { classScheme, reclassify } from '../algorithms/reclassify';
import { loadBand, outPath, writeBand, quicklook, maskedFloat, whereOf, rowAreas, areaText, numberListArg, listArg, labelsDescription } from './analysis-support';
import { pct } from '../stats';

export const reclassifyTool: BuiltinTool = {
  id: 'reclassify',
  params: {
    image: { kind: 'raster', required: true },
    band: { kind: 'band', default: 1 },
    breaks: { kind: 'number_list', required: true, description: 'ascending numbers: N+1 interval edges for N labels, or N thresholds for N+1 labels' },
    labels: { kind: 'string_list', description: 'class names (class codes are 1..N in this order)' },
  },
  async run(ctx) {
    const breaks = numberListArg(ctx.args.breaks, 'breaks');
    const labels = listArg(ctx.args.labels);
    const scheme = classScheme(breaks, labels);
    const b = await loadBand(ctx, 'image');
    const { data, w, h, ds } = b;
    const classes = reclassify(data, scheme);
    const rowA = rowAreas(ds);
    const n = scheme.classes.length;
    const pix = new Array(n + 1).fill(0), m2 = new Array(n + 1).fill(0);
    let valid = 0;
    for (let i = 0; i < classes.length; i++) {
      if (data[i] === data[i]) valid++;
      const c = classes[i];
      pix[c]++; m2[c] += rowA[Math.floor(i / w)];
    }
    const table = scheme.classes.map((c) => ({
      code: c.code, label: c.label, lower: c.lower, upper: c.upper, pixels: pix[c.code], m2: m2[c.code],
      percent: valid ? (100 * pix[c.code]) / valid : 0,
    }));
    const labelMap: Record<number, string> = {};
    for (const c of scheme.classes) labelMap[c.code] = c.label;
    const file = await writeBand(outPath(ctx, 'reclassify', 'classes', 'tif'), ds, classes, 'uint8', 0, labelsDescription('classes', labelMap));
    const png = await quicklook(outPath(ctx, 'reclassify', 'classes', 'png'), maskedFloat(classes, 0), w, h, { kind: 'class', labels: labelMap, title: 'Classes' });
    const sorted = [...table].sort((a, b2) => b2.pixels - a.pixels);
    const top = sorted[0];
    const second = sorted[1];
    const unclassified = valid - table.reduce((s, r) => s + r.pixels, 0);
    const where = top && top.pixels ? whereOf(w, h, (i) => classes[i] === top.code, (i) => data[i] === data[i]) : '';
    let summary = `"${top.label}" is the largest class with ${pct(top.pixels / Math.max(valid, 1))} of valid pixels (${areaText(top.m2)}), ${where}`;
    if (second && second.pixels) summary += `; "${second.label}" follows with ${pct(second.pixels / valid)} (${areaText(second.m2)})`;
    summary += '.';
    if (unclassified > 0) summary += ` ${pct(unclassified / valid)} of valid pixels fall outside the breaks and are nodata.`;
    return {
      tool: 'reclassify',
      outputs: { classes: { path: file, type: 'raster', roles: ['class'], description: labelsDescription('classes', labelMap) } },
      stats: { classes: table, valid_pixels: valid, unclassified_pixels: unclassified },
      summary,
      quicklook: png,
    };
  },
};
