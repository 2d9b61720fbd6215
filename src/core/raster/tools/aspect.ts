/** aspect: Horn aspect in degrees clockwise from north, as gdaldem aspect (flat and edges nodata). */
import type { BuiltinTool } from './types';
import { aspectDegrees } from '../algorithms/terrain';
import { loadDem } from './terrain-support';
import { outPath, writeBand, quicklook, whereOf } from './analysis-support';
import { pct } from '../stats';

const DIRS = ['north', 'north-east', 'east', 'south-east', 'south', 'south-west', 'west', 'north-west'];

export const aspectTool: BuiltinTool = {
  id: 'aspect',
  params: { dem: { kind: 'raster', required: true, description: 'elevation raster' } },
  async run(ctx) {
    const { dem, grid, note } = await loadDem(ctx);
    const a = aspectDegrees(dem.data, grid, ctx.signal);
    const counts = new Array(8).fill(0);
    let valid = 0, flat = 0, windows = 0;
    for (let y = 1; y < dem.h - 1; y++) {
      for (let x = 1; x < dem.w - 1; x++) {
        const i = y * dem.w + x;
        if (dem.data[i] !== dem.data[i]) continue;
        windows++;
        const v = a[i];
        if (v !== v) { flat++; continue; }
        valid++;
        counts[Math.floor(((v + 22.5) % 360) / 45)]++;
      }
    }
    if (valid === 0) throw new Error(`argument "dem": ${dem.ds.source} has no sloping 3x3 window`);
    const file = await writeBand(outPath(ctx, 'aspect', 'aspect', 'tif'), dem.ds, a, 'float32', -9999, 'aspect (degrees clockwise from north; flat = nodata)');
    const png = await quicklook(outPath(ctx, 'aspect', 'aspect', 'png'), a, dem.w, dem.h, { kind: 'continuous', title: 'Aspect', unit: '°', range: [0, 360] });
    const order = counts.map((c, k) => k).sort((p, q) => counts[q] - counts[p]);
    const dom = order[0];
    const where = whereOf(dem.w, dem.h, (i) => a[i] === a[i] && Math.floor(((a[i] + 22.5) % 360) / 45) === dom, (i) => a[i] === a[i]);
    const shares = Object.fromEntries(DIRS.map((d, k) => [d, Number((counts[k] / valid).toFixed(4))]));
    return {
      tool: 'aspect',
      outputs: { aspect: { path: file, type: 'raster', roles: ['aspect'], description: 'degrees clockwise from north (Horn, as gdaldem); flat cells nodata' } },
      stats: { direction_shares: shares, flat_fraction: windows ? Number((flat / windows).toFixed(4)) : 0, ...(note ? { note } : {}) },
      summary: `Slopes face mostly ${DIRS[dom]} (${pct(counts[dom] / valid)} of sloping pixels, ${where}) and ${DIRS[order[1]]} (${pct(counts[order[1]] / valid)}); ${pct(flat / Math.max(windows, 1))} of the area is flat.`,
      quicklook: png,
    };
  },
};
