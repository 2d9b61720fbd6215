/** dnbr: differenced normalized burn ratio, NBR_pre − NBR_post. */
import type { BuiltinTool } from './types';
import { dnbr } from '../algorithms/burn';
import { loadRoles, assertSameGrid, outPath, writeBand, quicklook, whereOf, rowAreas, areaText, sig, finiteMean } from './analysis-support';
import { pct } from '../stats';

export const dnbrTool: BuiltinTool = {
  id: 'dnbr',
  params: {
    pre: { kind: 'raster', required: true, description: 'pre-fire image' },
    post: { kind: 'raster', required: true, description: 'post-fire image' },
    sensor: { kind: 'string', enum: ['sentinel2_l2a', 'landsat89_c2l2', 'naip', 'planetscope_4b'] },
    nir: { kind: 'band' },
    swir2: { kind: 'band' },
  },
  async run(ctx) {
    const roleArgs = { nir: ctx.args.nir, swir2: ctx.args.swir2 };
    const P = await loadRoles(ctx, 'pre', ['nir', 'swir2'], roleArgs); await P.close();
    const Q = await loadRoles(ctx, 'post', ['nir', 'swir2'], roleArgs); await Q.close();
    assertSameGrid(P.bands.nir.ds, 'pre', Q.bands.nir.ds, 'post');
    const { w, h, ds } = P.bands.nir;
    const d = dnbr(P.bands.nir.data, P.bands.swir2.data, Q.bands.nir.data, Q.bands.swir2.data);
    const st = finiteMean(d);
    if (st.count === 0) throw new Error(`"pre" ${ds.source} and "post" ${Q.bands.nir.ds.source} share no valid pixels`);
    const rowA = rowAreas(ds);
    let burned = 0, m2 = 0, severe = 0;
    for (let i = 0; i < d.length; i++) {
      if (d[i] >= 0.27) { burned++; m2 += rowA[Math.floor(i / w)]; }
      if (d[i] >= 0.66) severe++;
    }
    const file = await writeBand(outPath(ctx, 'dnbr', 'dnbr', 'tif'), ds, d, 'float32', -9999, 'dnbr');
    const png = await quicklook(outPath(ctx, 'dnbr', 'dnbr', 'png'), d, w, h, { kind: 'diverging', title: 'dNBR (pre − post)', range: [-1, 1] });
    const where = whereOf(w, h, (i) => d[i] >= 0.27, (i) => d[i] === d[i]);
    return {
      tool: 'dnbr',
      outputs: { dnbr: { path: file, type: 'raster', roles: ['dnbr', 'index'], description: 'NBR_pre − NBR_post (positive = burned)' } },
      stats: {
        mean: sig(st.mean, 6), min: st.min, max: st.max, valid_pixels: st.count,
        moderate_or_worse_pixels: burned, moderate_or_worse_m2: m2, high_severity_pixels: severe,
        bands: { nir: [P.bands.nir.band, Q.bands.nir.band], swir2: [P.bands.swir2.band, Q.bands.swir2.band] },
      },
      summary: burned
        ? `dNBR reaches ${sig(st.max)} (mean ${sig(st.mean)}); ${pct(burned / st.count)} of the valid area (${areaText(m2)}) exceeds 0.27, moderate or worse burn, ${where}, and ${pct(severe / st.count)} exceeds 0.66 (high severity).`
        : `No pixel reaches a moderate burn (dNBR ≥ 0.27); dNBR averages ${sig(st.mean)} with maximum ${sig(st.max)}.`,
      quicklook: png,
    };
  },
};
