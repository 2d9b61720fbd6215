/** aspect: Horn aspect in degrees clockwise from north, as gdaldem aspect (flat and edges nodata); streamed in strips. */
import type { BuiltinTool } from './types';
import { aspectDegrees } from '../algorithms/terrain';
import { openDem, streamTerrain } from './terrain-support';
import { outPath, quicklook, Preview } from './analysis-support';
import { pct, whereText } from '../stats';

const DIRS = ['north', 'north-east', 'east', 'south-east', 'south', 'south-west', 'west', 'north-west'];

export const aspectTool: BuiltinTool = {
  id: 'aspect',
  params: { dem: { kind: 'raster', required: true, description: 'elevation raster' } },
  async run(ctx) {
    const dem = await openDem(ctx);
    try {
      const { w, h } = dem;
      const counts = new Array(8).fill(0);
      const cells = Array.from({ length: 8 }, () => new Array(9).fill(0));
      const validCells = new Array(9).fill(0);
      const cx1 = Math.ceil(w / 3), cx2 = Math.ceil((2 * w) / 3), cy1 = Math.ceil(h / 3), cy2 = Math.ceil((2 * h) / 3);
      let valid = 0, nodata = 0;
      const preview = new Preview(w, h);
      const file = outPath(ctx, 'aspect', 'aspect', 'tif');
      await streamTerrain(ctx, dem, { path: file, dtype: 'float32', nodata: -9999, description: 'aspect (degrees clockwise from north; flat = nodata)' },
        (z, g) => aspectDegrees(z, g, ctx.signal),
        (a, y0, rows) => {
          for (let r = 0; r < rows; r++) {
            const y = y0 + r, rc = y < cy1 ? 0 : y < cy2 ? 3 : 6;
            for (let x = 0; x < w; x++) {
              const v = a[r * w + x];
              if (v !== v) { nodata++; continue; }
              const d = Math.floor(((v + 22.5) % 360) / 45), cell = rc + (x < cx1 ? 0 : x < cx2 ? 1 : 2);
              valid++; counts[d]++; cells[d][cell]++; validCells[cell]++;
            }
          }
          preview.add(a, y0, rows);
          return a;
        });
      if (valid === 0) throw new Error(`argument "dem": ${dem.ds.source} has no sloping 3x3 window`);
      // Flat share among interior cells (edges are nodata by construction).
      const interior = Math.max(1, (w - 2) * (h - 2));
      const flat = Math.max(0, interior - valid) / interior;
      const png = await quicklook(outPath(ctx, 'aspect', 'aspect', 'png'), preview.data, preview.pw, preview.ph, { kind: 'continuous', title: 'Aspect', unit: '°', range: [0, 360] });
      const order = counts.map((_, k) => k).sort((p, q) => counts[q] - counts[p]);
      const dom = order[0];
      const shares = Object.fromEntries(DIRS.map((d, k) => [d, Number((counts[k] / valid).toFixed(4))]));
      return {
        tool: 'aspect',
        outputs: { aspect: { path: file, type: 'raster', roles: ['aspect'], description: 'degrees clockwise from north (Horn, as gdaldem); flat cells nodata' } },
        stats: { direction_shares: shares, flat_or_nodata_fraction: Number(flat.toFixed(4)), ...(dem.note ? { note: dem.note } : {}) },
        summary: `Slopes face mostly ${DIRS[dom]} (${pct(counts[dom] / valid)} of sloping pixels, ${whereText(cells[dom], validCells)}) and ${DIRS[order[1]]} (${pct(counts[order[1]] / valid)}); ${pct(flat)} of the area is flat or nodata.`,
        quicklook: png,
      };
    } finally { await dem.close(); }
  },
};
