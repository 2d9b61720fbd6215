/** change_vector_analysis: magnitude and direction of multi-band change. */
import type { BuiltinTool } from './types';
import { changeVector } from '../algorithms/change';
import { otsuThreshold } from '../algorithms/otsu';
import { loadRoles, assertSameGrid, outPath, writeBand, quicklook, whereOf, rowAreas, areaText, sig, listArg, finiteMean } from './analysis-support';
import { roleFromDescription } from '../bands';
import { openRaster } from '../io/dataset';
import { pct } from '../stats';

export const changeVectorAnalysisTool: BuiltinTool = {
  id: 'change_vector_analysis',
  params: {
    before: { kind: 'raster', required: true },
    after: { kind: 'raster', required: true },
    bands: { kind: 'string_list', description: 'bands to compare (1-based indices or role names); default: all bands except QA/SCL' },
  },
  async run(ctx) {
    let list = listArg(ctx.args.bands);
    if (list.length === 0) {
      const ds = await openRaster(String(ctx.args.before), { cwd: ctx.cwd, signal: ctx.signal });
      list = ds.bandDescriptions.map((d, i) => (roleFromDescription(d) === 'qa' ? '' : String(i + 1))).filter(Boolean);
      await ds.close();
    }
    const roles = list.map((_, i) => `band${i + 1}`);
    const roleArgs = Object.fromEntries(roles.map((r, i) => [r, list[i]]));
    const A = await loadRoles(ctx, 'before', roles, roleArgs); await A.close();
    const B = await loadRoles(ctx, 'after', roles, roleArgs); await B.close();
    const a0 = A.bands[roles[0]], b0 = B.bands[roles[0]];
    assertSameGrid(a0.ds, 'before', b0.ds, 'after');
    const { w, h } = a0;
    const { magnitude, direction } = changeVector(roles.map((r) => A.bands[r].data), roles.map((r) => B.bands[r].data));
    const st = finiteMean(magnitude);
    if (st.count === 0) throw new Error(`"before" ${a0.ds.source} and "after" ${b0.ds.source} share no valid pixels`);
    const t = otsuThreshold(magnitude).threshold;
    const rowA = rowAreas(a0.ds);
    let strong = 0, m2 = 0;
    const hist = new Array(8).fill(0);
    const sector = list.length === 2 ? 45 : 22.5;
    for (let i = 0; i < magnitude.length; i++) {
      if (magnitude[i] > t) {
        strong++; m2 += rowA[Math.floor(i / w)];
        const d = direction[i];
        if (d === d) hist[Math.min(7, Math.floor(d / sector))]++;
      }
    }
    const domSector = hist.indexOf(Math.max(...hist));
    const fMag = await writeBand(outPath(ctx, 'change_vector_analysis', 'magnitude', 'tif'), a0.ds, magnitude, 'float32', -9999, 'magnitude: change vector length');
    const dirDesc = list.length === 2
      ? 'direction: degrees counter-clockwise from the +first-band axis (0..360)'
      : 'direction: degrees between the change vector and the all-bands-increase diagonal (0 = all increase, 180 = all decrease)';
    const fDir = await writeBand(outPath(ctx, 'change_vector_analysis', 'direction', 'tif'), a0.ds, direction, 'float32', -9999, dirDesc);
    const png = await quicklook(outPath(ctx, 'change_vector_analysis', 'magnitude', 'png'), magnitude, w, h, { kind: 'continuous', title: 'change magnitude' });
    const where = whereOf(w, h, (i) => magnitude[i] > t, (i) => magnitude[i] === magnitude[i]);
    const dirText = list.length === 2
      ? `directions mostly ${domSector * 45}–${domSector * 45 + 45}°`
      : `directions mostly ${domSector * 22.5}–${domSector * 22.5 + 22.5}° from the all-increase diagonal (${domSector < 4 ? 'bands mostly brighter' : 'bands mostly darker'})`;
    return {
      tool: 'change_vector_analysis',
      outputs: {
        magnitude: { path: fMag, type: 'raster', roles: ['magnitude'], description: `Euclidean norm of the differences over ${list.length} bands` },
        direction: { path: fDir, type: 'raster', roles: ['direction'], description: dirDesc },
      },
      stats: {
        bands: list, mean_magnitude: sig(st.mean, 6), max_magnitude: st.max, strong_threshold: t,
        strong_pixels: strong, strong_fraction: sig(strong / st.count, 4), strong_m2: m2, direction_histogram: hist, direction_sector_deg: sector,
      },
      summary: `Change magnitude averages ${sig(st.mean)} over ${list.length} bands; ${pct(strong / st.count)} of the valid area (${areaText(m2)}) changes strongly (magnitude > ${sig(t)}, Otsu), ${where}, with ${dirText}.`,
      quicklook: png,
    };
  },
};
