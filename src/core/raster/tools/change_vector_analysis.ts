/** change_vector_analysis: magnitude and direction of multi-band change; streamed in strips. */
import { defineTool } from './types';
import { changeVector } from '../algorithms/change';
import {
  resolveRoles, closeResolved, streamStrips, streamedOtsu, assertSameGrid, outPath, quicklook, rowAreas, areaText, sig, WhereCounter, Preview,
} from './analysis-support';
import type { ResolvedBand } from '../bands';
import { roleFromDescription } from '../bands';
import { openRaster } from '../io/dataset';
import { pct } from '../stats';

export const changeVectorAnalysisTool = defineTool({
  id: 'change_vector_analysis',
  params: {
    before: { kind: 'raster', required: true, single: true },
    after: { kind: 'raster', required: true, single: true },
    bands: { kind: 'string_list', description: 'bands to compare (1-based indices or role names); default: all bands except QA/SCL' },
  },
  async run(ctx) {
    let list = ctx.args.bands ?? [];
    if (list.length === 0) {
      const ds = await openRaster(ctx.args.before, { signal: ctx.signal });
      list = ds.bandDescriptions.map((d, i) => (roleFromDescription(d) === 'qa' ? '' : String(i + 1))).filter(Boolean);
      await ds.close();
    }
    if (list.length < 2) throw new Error(`argument "bands": change vector analysis needs at least 2 bands, got ${list.length}`);
    const roles = list.map((_, i) => `band${i + 1}`);
    const roleArgs = Object.fromEntries(roles.map((r, i) => [r, list[i]]));
    const A = await resolveRoles(ctx, 'before', ctx.args.before, roles, roleArgs);
    try {
      const B = await resolveRoles(ctx, 'after', ctx.args.after, roles, roleArgs);
      try {
        const ds = A[roles[0]].dataset;
        assertSameGrid(ds, 'before', B[roles[0]].dataset, 'after');
        const { width: w, height: h } = ds;
        const nb = roles.length;
        const inputs: ResolvedBand[] = [...roles.map((r) => A[r]), ...roles.map((r) => B[r])];
        const split = (ins: Float32Array[]) => changeVector(ins.slice(0, nb), ins.slice(nb));
        const o = await streamedOtsu(ctx, ds, inputs, (ins) => split(ins).magnitude);
        if (o.validCount === 0) throw new Error(`"before" ${ds.source} and "after" ${B[roles[0]].dataset.source} share no valid pixels`);
        const t = o.threshold;
        const rowA = rowAreas(ds, 'change_vector_analysis');
        let n = 0, sum = 0, mx = 0, strong = 0, m2 = 0;
        const hist = new Array(8).fill(0);
        const sector = nb === 2 ? 45 : 22.5;
        const where = new WhereCounter(w, h);
        const preview = new Preview(w, h);
        const dirDesc = nb === 2
          ? 'direction: degrees counter-clockwise from the +first-band axis (0..360)'
          : 'direction: degrees between the change vector and the all-bands-increase diagonal (0 = all increase, 180 = all decrease)';
        const fMag = outPath(ctx, 'change_vector_analysis', 'magnitude', 'tif');
        const fDir = outPath(ctx, 'change_vector_analysis', 'direction', 'tif');
        await streamStrips(ctx, ds, inputs, [
          { path: fMag, dtype: 'float32', nodata: -9999, description: 'magnitude: change vector length' },
          { path: fDir, dtype: 'float32', nodata: -9999, description: dirDesc },
        ], (ins, y0, rows) => {
          const { magnitude, direction } = split(ins);
          for (let i = 0; i < magnitude.length; i++) {
            const m = magnitude[i];
            if (m !== m) continue;
            n++; sum += m; if (m > mx) mx = m;
            if (m > t) {
              strong++; m2 += rowA[y0 + Math.floor(i / w)];
              const d = direction[i];
              if (d === d) hist[Math.min(7, Math.floor(d / sector))]++;
            }
          }
          where.add(y0, rows, (i) => magnitude[i] > t, (i) => magnitude[i] === magnitude[i]);
          preview.add(magnitude, y0, rows);
          return [magnitude, direction];
        });
        const mean = sum / n;
        const dom = hist.indexOf(Math.max(...hist));
        const png = await quicklook(outPath(ctx, 'change_vector_analysis', 'magnitude', 'png'), preview.data, preview.pw, preview.ph, { kind: 'continuous', title: 'change magnitude' });
        const dirText = nb === 2
          ? `directions mostly ${dom * 45}–${dom * 45 + 45}°`
          : `directions mostly ${dom * 22.5}–${dom * 22.5 + 22.5}° from the all-increase diagonal (${dom < 4 ? 'bands mostly brighter' : 'bands mostly darker'})`;
        return {
          tool: 'change_vector_analysis',
          outputs: {
            magnitude: { path: fMag, type: 'raster', roles: ['magnitude'], description: `Euclidean norm of the differences over ${nb} bands` },
            direction: { path: fDir, type: 'raster', roles: ['direction'], description: dirDesc },
          },
          stats: {
            bands: list, mean_magnitude: sig(mean, 6), max_magnitude: mx, strong_threshold: t,
            strong_pixels: strong, strong_fraction: sig(strong / n, 4), strong_m2: m2, direction_histogram: hist, direction_sector_deg: sector,
          },
          summary: `Change magnitude averages ${sig(mean)} over ${nb} bands; ${pct(strong / n)} of the valid area (${areaText(m2)}) changes strongly (magnitude > ${sig(t)}, Otsu), ${where.text()}, with ${dirText}.`,
          quicklook: png,
        };
      } finally { await closeResolved(B); }
    } finally { await closeResolved(A); }
  },
});
