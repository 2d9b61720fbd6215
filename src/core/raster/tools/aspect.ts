/** aspect: Horn aspect in degrees clockwise from north, as gdaldem aspect (flat and edges nodata); streamed in strips. */
import { defineTool } from './types';
import { openDem, runTerrain } from './terrain-support';
import { outPath, quicklook } from './analysis-support';
import { pct, whereText } from '../stats';

const DIRS = ['north', 'north-east', 'east', 'south-east', 'south', 'south-west', 'west', 'north-west'];

export const aspectTool = defineTool({
  id: 'aspect',
  params: { dem: { kind: 'raster', required: true, description: 'elevation raster' } },
  async run(ctx) {
    const dem = await openDem(ctx);
    try {
      const { w, h } = dem;
      const file = outPath(ctx, 'aspect', 'aspect', 'tif');
      const run = await runTerrain(ctx, dem, { path: file, dtype: 'float32', nodata: -9999, description: 'aspect (degrees clockwise from north; flat = nodata)' },
        { type: 'aspect', ewres: dem.ewres, nsres: dem.nsres });
      const t = run.tallies!, preview = run.preview!;
      const valid = t.valid as number, counts = t.counts as number[];
      const cells = counts.map((_, d) => (t.cells as number[]).slice(d * 9, d * 9 + 9)), validCells = t.validCells as number[];
      if (valid === 0) throw new Error(`argument "dem": ${dem.ds.source} has no sloping 3x3 window`);
      // Flat share among interior cells (edges are nodata by construction).
      const interior = Math.max(1, (w - 2) * (h - 2));
      const flat = Math.max(0, interior - valid) / interior;
      const png = await quicklook(outPath(ctx, 'aspect', 'aspect', 'png'), preview.data, preview.w, preview.h, { kind: 'continuous', title: 'Aspect', unit: '°', range: [0, 360] });
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
});
