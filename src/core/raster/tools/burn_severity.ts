/** burn_severity: USGS dNBR classes (Key & Benson 2006), streamed in strips. */
import { defineTool } from './types';
import { burnSeverity, BURN_CLASSES, BURNED_MIN_CODE } from '../algorithms/burn';
import {
  resolveRoles, closeResolved, streamStrips, outPath, quicklook, rowAreas, areaText, labelsDescription, WhereCounter, Preview,
} from './analysis-support';
import { pct } from '../stats';

export const SEVERITY_LABELS: Record<number, string> = Object.fromEntries(BURN_CLASSES.map((c) => [c.code, c.label]));

export const burnSeverityTool = defineTool({
  id: 'burn_severity',
  params: {
    image: { kind: 'raster', required: true, description: 'dNBR raster (e.g. the output of dnbr)' },
  },
  async run(ctx) {
    const R = await resolveRoles(ctx, 'image', ctx.args.image, ['band'], { band: 1 });
    try {
      const ds = R.band.dataset;
      const { width: w, height: h } = ds;
      const rowA = rowAreas(ds, 'burn_severity');
      const pix = new Array(8).fill(0), m2 = new Array(8).fill(0);
      let outside = 0, valid = 0;
      const where = new WhereCounter(w, h);
      const preview = new Preview(w, h);
      const desc = labelsDescription('severity', SEVERITY_LABELS);
      const file = outPath(ctx, 'burn_severity', 'severity', 'tif');
      await streamStrips(ctx, ds, [R.band], [{ path: file, dtype: 'uint8', nodata: 0, description: desc }], ([d], y0, rows) => {
        for (let i = 0; i < d.length; i++) { const v = d[i]; if (v === v) { valid++; if (v < -2 || v > 2) outside++; } }
        if (valid > 10000 && outside / valid > 0.01) {
          throw new Error(`argument "image": ${ds.source} does not look like dNBR (${pct(outside / valid)} of values outside -2..2); pass the output of dnbr`);
        }
        const cls = burnSeverity(d);
        for (let i = 0; i < cls.length; i++) { pix[cls[i]]++; m2[cls[i]] += rowA[y0 + Math.floor(i / w)]; }
        where.add(y0, rows, (i) => cls[i] >= BURNED_MIN_CODE, (i) => cls[i] !== 0);
        preview.add(cls, y0, rows, 0);
        return [cls];
      });
      if (valid && outside / valid > 0.01) {
        throw new Error(`argument "image": ${ds.source} does not look like dNBR (${pct(outside / valid)} of values outside -2..2); pass the output of dnbr`);
      }
      const table = BURN_CLASSES.map((c) => ({
        code: c.code, label: c.label, lower: c.lower, upper: c.upper, pixels: pix[c.code], m2: m2[c.code], ha: m2[c.code] / 1e4,
        percent: valid ? (100 * pix[c.code]) / valid : 0,
      }));
      const png = await quicklook(outPath(ctx, 'burn_severity', 'severity', 'png'), preview.data, preview.pw, preview.ph, { kind: 'class', labels: SEVERITY_LABELS, title: 'Burn severity (USGS dNBR)' });
      const burnedM2 = m2.slice(BURNED_MIN_CODE).reduce((s, v) => s + v, 0);
      const burnedPix = pix.slice(BURNED_MIN_CODE).reduce((s, v) => s + v, 0);
      const severeM2 = m2[6] + m2[7];
      const regrowth = m2[1] + m2[2];
      const summary = burnedPix
        ? `Burned area ${areaText(burnedM2)} (${pct(burnedPix / valid)} of the valid area), ${pct(severeM2 / burnedM2)} of it moderate-high or high severity, ${where.text().replace(/^mostly/, 'concentrated')}.`
          + (regrowth > 0.01 * burnedM2 ? ` Enhanced regrowth on ${areaText(regrowth)}.` : '')
        : 'No burned pixels: all valid dNBR values are below 0.1 (unburned or regrowth).';
      return {
        tool: 'burn_severity',
        outputs: { severity: { path: file, type: 'raster', roles: ['class', 'severity'], description: desc } },
        stats: { classes: table, burned_m2: burnedM2, burned_ha: burnedM2 / 1e4, moderate_high_or_high_m2: severeM2 },
        summary,
        quicklook: png,
      };
    } finally { await closeResolved(R); }
  },
});
