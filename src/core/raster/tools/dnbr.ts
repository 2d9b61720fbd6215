/** dnbr: differenced normalized burn ratio, NBR_pre − NBR_post (streamed in strips). */
import { defineTool } from './types';
import { SENSORS } from '../sensor-presets';
import { dnbr } from '../algorithms/burn';
import {
  resolveRoles, closeResolved, streamStrips, assertSameGrid, outPath, quicklook, rowAreas, areaText, sig, WhereCounter, Preview,
} from './analysis-support';
import { pct } from '../stats';

export const dnbrTool = defineTool({
  id: 'dnbr',
  params: {
    pre: { kind: 'raster', required: true, description: 'pre-fire image' },
    post: { kind: 'raster', required: true, description: 'post-fire image' },
    sensor: { kind: 'string', enum: [...SENSORS] },
    nir: { kind: 'band' },
    swir2: { kind: 'band' },
  },
  async run(ctx) {
    const roleArgs = { nir: ctx.args.nir, swir2: ctx.args.swir2, sensor: ctx.args.sensor };
    const P = await resolveRoles(ctx, 'pre', ctx.args.pre, ['nir', 'swir2'], roleArgs);
    try {
      const Q = await resolveRoles(ctx, 'post', ctx.args.post, ['nir', 'swir2'], roleArgs);
      try {
        const ds = P.nir.dataset;
        assertSameGrid(ds, 'pre', Q.nir.dataset, 'post');
        const { width: w, height: h } = ds;
        const rowA = rowAreas(ds, 'dnbr');
        const where = new WhereCounter(w, h);
        const preview = new Preview(w, h);
        let n = 0, sum = 0, mn = Infinity, mx = -Infinity, burned = 0, m2 = 0, severe = 0;
        const file = outPath(ctx, 'dnbr', 'dnbr', 'tif');
        await streamStrips(ctx, ds, [P.nir, P.swir2, Q.nir, Q.swir2], [{ path: file, dtype: 'float32', nodata: -9999, description: 'dnbr' }], (ins, y0, rows) => {
          const d = dnbr(ins[0], ins[1], ins[2], ins[3]);
          for (let i = 0; i < d.length; i++) {
            const v = d[i];
            if (v !== v) continue;
            n++; sum += v; if (v < mn) mn = v; if (v > mx) mx = v;
            if (v >= 0.27) { burned++; m2 += rowA[y0 + Math.floor(i / w)]; }
            if (v >= 0.66) severe++;
          }
          where.add(y0, rows, (i) => d[i] >= 0.27, (i) => d[i] === d[i]);
          preview.add(d, y0, rows);
          return [d];
        });
        if (n === 0) throw new Error(`"pre" ${ds.source} and "post" ${Q.nir.dataset.source} share no valid pixels`);
        const mean = sum / n;
        const png = await quicklook(outPath(ctx, 'dnbr', 'dnbr', 'png'), preview.data, preview.pw, preview.ph, { kind: 'diverging', title: 'dNBR (pre − post)', range: [-1, 1] });
        return {
          tool: 'dnbr',
          outputs: { dnbr: { path: file, type: 'raster', roles: ['dnbr', 'index'], description: 'NBR_pre − NBR_post (positive = burned)' } },
          stats: {
            mean: sig(mean, 6), min: mn, max: mx, valid_pixels: n,
            moderate_or_worse_pixels: burned, moderate_or_worse_m2: m2, high_severity_pixels: severe,
            bands: { nir: [P.nir.band, Q.nir.band], swir2: [P.swir2.band, Q.swir2.band] },
          },
          summary: burned
            ? `dNBR reaches ${sig(mx)} (mean ${sig(mean)}); ${pct(burned / n)} of the valid area (${areaText(m2)}) exceeds 0.27, moderate or worse burn, ${where.text()}, and ${pct(severe / n)} exceeds 0.66 (high severity).`
            : `No pixel reaches a moderate burn (dNBR ≥ 0.27); dNBR averages ${sig(mean)} with maximum ${sig(mx)}.`,
          quicklook: png,
        };
      } finally { await closeResolved(Q); }
    } finally { await closeResolved(P); }
  },
});
