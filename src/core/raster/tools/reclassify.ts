/** reclassify: continuous values → classes 1..N by breaks and labels (streamed in strips). */
import type { BuiltinTool } from './types';
import { classScheme, reclassify } from '../algorithms/reclassify';
import {
  resolveRoles, closeResolved, streamStrips, outPath, quicklook, rowAreas, areaText, numberListArg, listArg, labelsDescription, Preview,
} from './analysis-support';
import { pct, whereText } from '../stats';

export const reclassifyTool: BuiltinTool = {
  id: 'reclassify',
  params: {
    image: { kind: 'raster', required: true },
    band: { kind: 'band', default: 1 },
    breaks: { kind: 'number_list', required: true, description: 'ascending numbers: N+1 interval edges for N labels, or N thresholds for N+1 labels' },
    labels: { kind: 'string_list', description: 'class names (class codes are 1..N in this order)' },
  },
  async run(ctx) {
    const scheme = classScheme(numberListArg(ctx.args.breaks, 'breaks'), listArg(ctx.args.labels));
    const R = await resolveRoles(ctx, 'image', ['band'], { band: ctx.args.band ?? 1 });
    try {
      const ds = R.band.dataset;
      const { width: w, height: h } = ds;
      const rowA = rowAreas(ds);
      const n = scheme.classes.length;
      const pix = new Array(n + 1).fill(0), m2 = new Array(n + 1).fill(0);
      // 3×3 cell counts per class, for "where" of the largest class.
      const cells = Array.from({ length: n + 1 }, () => new Array(9).fill(0));
      const validCells = new Array(9).fill(0);
      const cx1 = Math.ceil(w / 3), cx2 = Math.ceil((2 * w) / 3), cy1 = Math.ceil(h / 3), cy2 = Math.ceil((2 * h) / 3);
      let valid = 0;
      const preview = new Preview(w, h);
      const labelMap: Record<number, string> = {};
      for (const c of scheme.classes) labelMap[c.code] = c.label;
      const file = outPath(ctx, 'reclassify', 'classes', 'tif');
      await streamStrips(ctx, ds, [R.band], [{ path: file, dtype: 'uint8', nodata: 0, description: labelsDescription('classes', labelMap) }], ([data], y0, rows) => {
        const classes = reclassify(data, scheme);
        for (let r = 0; r < rows; r++) {
          const y = y0 + r, rc = y < cy1 ? 0 : y < cy2 ? 3 : 6;
          for (let x = 0; x < w; x++) {
            const i = r * w + x;
            if (data[i] !== data[i]) continue;
            const c = classes[i], cell = rc + (x < cx1 ? 0 : x < cx2 ? 1 : 2);
            valid++; validCells[cell]++;
            pix[c]++; m2[c] += rowA[y]; cells[c][cell]++;
          }
        }
        preview.add(classes, y0, rows, 0);
        return [classes];
      });
      if (valid === 0) throw new Error(`argument "image": ${ds.source} band ${R.band.band} has no valid pixels`);
      const table = scheme.classes.map((c) => ({
        code: c.code, label: c.label, lower: c.lower, upper: c.upper, pixels: pix[c.code], m2: m2[c.code],
        percent: (100 * pix[c.code]) / valid,
      }));
      const png = await quicklook(outPath(ctx, 'reclassify', 'classes', 'png'), preview.data, preview.pw, preview.ph, { kind: 'class', labels: labelMap, title: 'Classes' });
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
};
