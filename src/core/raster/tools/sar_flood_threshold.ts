/**
 * sar_flood_threshold: open water from SAR backscatter (Sentinel-1 GRD VV or VH). Water is a specular
 * reflector, so it is dark: mask = 1 where backscatter in dB is below the threshold. Linear
 * backscatter (σ⁰ power) is converted with dB = 10·log10(σ⁰); values ≤ 0 have no dB and are nodata.
 * Without a threshold, Otsu's method on the dB histogram picks it (water is the lower class).
 */
import { defineTool } from './types';
import { MASK_NODATA } from '../algorithms/morphology';
import {
  resolveRoles, closeResolved, streamStrips, streamedOtsu, scanStrips, outPath, quicklook, rowAreas, areaText, sig, WhereCounter, Preview, maskDescription,
} from './analysis-support';
import { pct } from '../stats';

/** dB of a backscatter strip in `units` (NaN for nodata and for linear values ≤ 0). */
export function toDb(a: Float32Array, units: 'db' | 'linear'): Float64Array {
  const out = new Float64Array(a.length);
  if (units === 'db') { for (let i = 0; i < a.length; i++) out[i] = a[i]; return out; }
  for (let i = 0; i < a.length; i++) { const v = a[i]; out[i] = v > 0 ? 10 * Math.log10(v) : NaN; }
  return out;
}

export const sarFloodThresholdTool = defineTool({
  id: 'sar_flood_threshold',
  params: {
    image: { kind: 'raster', required: true, description: 'SAR backscatter (Sentinel-1 GRD VV or VH), linear σ⁰ or dB' },
    band: { kind: 'band', default: 1, description: '1-based band index' },
    threshold_db: { kind: 'number', description: 'backscatter in dB below which a pixel is water (VV: about −15 to −18 dB); Otsu on the dB histogram when omitted' },
    units: { kind: 'string', enum: ['auto', 'db', 'linear'], default: 'auto', description: 'units of the input; auto: dB when any value is negative, else linear power' },
  },
  async run(ctx) {
    const R = await resolveRoles(ctx, 'image', ctx.args.image, ['band'], { band: ctx.args.band });
    try {
      const b = R.band, ds = b.dataset;
      const { width: w, height: h } = ds;
      let units = ctx.args.units;
      const given = ctx.args.threshold_db;
      if (given !== undefined && !(given > -60 && given < 30)) {
        throw new Error(`argument "threshold_db": ${given} dB is outside the range of SAR backscatter (−60..30 dB); open water is usually below −15 dB in VV`);
      }
      let valid = 0, negatives = 0, positives = 0;
      if (units === 'auto') {
        ctx.progress(0, 'detecting units');
        await scanStrips(ctx, ds, [b], ([a]) => {
          for (let i = 0; i < a.length; i++) { const v = a[i]; if (v !== v) continue; valid++; if (v < 0) negatives++; else if (v > 0) positives++; }
        });
        if (valid === 0) throw new Error(`argument "image": ${ds.source} band ${b.band} has no valid pixels`);
        units = negatives > 0 ? 'db' : 'linear';
        if (units === 'linear' && positives === 0) throw new Error(`argument "image": ${ds.source} band ${b.band} is all zero; it is not backscatter (pass units=db if 0 dB is meant)`);
      }
      const u = units as 'db' | 'linear';
      let threshold: number, method: string, separability: number | undefined;
      if (given !== undefined) { threshold = given; method = 'given'; } else {
        ctx.progress(0, 'Otsu histogram');
        const o = await streamedOtsu(ctx, ds, [b], (ins) => toDb(ins[0], u));
        if (o.validCount === 0) throw new Error(`argument "image": ${ds.source} band ${b.band} has no valid ${u === 'linear' ? 'positive ' : ''}backscatter values`);
        if (!(o.max > o.min)) throw new Error(`argument "image": ${ds.source} band ${b.band} is constant (${sig(o.min)} dB); Otsu cannot split it, pass threshold_db`);
        threshold = o.threshold; method = 'otsu'; separability = o.separability;
      }
      const rowA = rowAreas(ds, 'sar_flood_threshold');
      let n = 0, water = 0, m2 = 0, sumW = 0, sumL = 0;
      const where = new WhereCounter(w, h);
      const preview = new Preview(w, h);
      const labels = { yes: `water (backscatter < ${sig(threshold, 6)} dB)`, no: 'not water' };
      const desc = maskDescription(`water mask (${method === 'otsu' ? 'Otsu' : 'given'} threshold)`, labels);
      const file = outPath(ctx, 'sar_flood_threshold', 'mask', 'tif');
      await streamStrips(ctx, ds, [b], [{ path: file, dtype: 'uint8', nodata: MASK_NODATA, description: desc }], ([a], y0, rows) => {
        const db = toDb(a, u);
        const mask = new Uint8Array(db.length);
        for (let i = 0; i < db.length; i++) {
          const v = db[i];
          if (v !== v) { mask[i] = MASK_NODATA; continue; }
          n++;
          if (v < threshold) { mask[i] = 1; water++; sumW += v; m2 += rowA[y0 + Math.floor(i / w)]; } else sumL += v;
        }
        where.add(y0, rows, (i) => mask[i] === 1, (i) => mask[i] !== MASK_NODATA);
        preview.add(mask, y0, rows, MASK_NODATA);
        return [mask];
      });
      if (n === 0) throw new Error(`argument "image": ${ds.source} band ${b.band} has no valid backscatter values`);
      const png = await quicklook(outPath(ctx, 'sar_flood_threshold', 'mask', 'png'), preview.data, preview.pw, preview.ph, { kind: 'mask', title: `Water (< ${sig(threshold)} dB)`, labels: { 0: labels.no, 1: labels.yes } });
      const meanW = water ? sumW / water : NaN, meanL = n - water ? sumL / (n - water) : NaN;
      const how = method === 'otsu' ? `Otsu's threshold ${sig(threshold)} dB` : `the threshold ${sig(threshold)} dB`;
      return {
        tool: 'sar_flood_threshold',
        outputs: { mask: { path: file, type: 'raster', roles: ['mask'], description: `1 = water (backscatter < ${sig(threshold, 6)} dB), 0 = not water` } },
        stats: {
          threshold_db: threshold, method, units: u, ...(separability !== undefined ? { separability: sig(separability, 4) } : {}),
          valid_pixels: n, water_pixels: water, water_fraction: sig(water / n, 4), water_m2: m2,
          mean_water_db: sig(meanW, 6), mean_land_db: sig(meanL, 6),
        },
        summary: `With ${how} on ${u === 'linear' ? 'linear backscatter converted to dB' : 'backscatter in dB'}, ${pct(water / n)} of the valid pixels (${areaText(m2)}) are open water`
          + `${water ? `, ${where.text()}` : ''}; water averages ${sig(meanW)} dB against ${sig(meanL)} dB elsewhere.`,
        quicklook: png,
      };
    } finally { await closeResolved(R); }
  },
});
