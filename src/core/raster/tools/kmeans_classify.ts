/** kmeans_classify: unsupervised clusters of several bands (seeded, deterministic). */
import type { BuiltinTool } from './types';
import { fitKMeans, assignKMeans } from '../algorithms/kmeans';
import { loadRoles, outPath, writeBand, quicklook, maskedFloat, whereOf, rowAreas, areaText, listArg, sig, checkAbort } from './analysis-support';
import { roleFromDescription } from '../bands';
import { openRaster } from '../io/dataset';
import { pct } from '../stats';

export const kmeansClassifyTool: BuiltinTool = {
  id: 'kmeans_classify',
  params: {
    image: { kind: 'raster', required: true },
    bands: { kind: 'string_list', description: 'bands to cluster (1-based indices or role names); default: every band except QA/SCL' },
    k: { kind: 'integer', default: 5 },
    seed: { kind: 'integer', default: 1 },
  },
  async run(ctx) {
    const k = Number(ctx.args.k ?? 5), seed = Number(ctx.args.seed ?? 1);
    if (!Number.isInteger(k) || k < 2 || k > 50) throw new Error(`argument "k" must be an integer from 2 to 50, got ${ctx.args.k}`);
    let bandList = listArg(ctx.args.bands);
    if (bandList.length === 0) {
      const ds = await openRaster(String(ctx.args.image), { cwd: ctx.cwd, signal: ctx.signal });
      bandList = ds.bandDescriptions.map((d, i) => (roleFromDescription(d) === 'qa' ? '' : String(i + 1))).filter(Boolean);
      await ds.close();
    }
    const roles = bandList.map((_, i) => `band${i + 1}`);
    const roleArgs: Record<string, unknown> = {};
    roles.forEach((r, i) => { roleArgs[r] = bandList[i]; });
    const { bands, close } = await loadRoles(ctx, 'image', roles, roleArgs);
    await close();
    checkAbort(ctx.signal);
    const arrays = roles.map((r) => bands[r].data);
    const first = bands[roles[0]];
    const { w, h, ds } = first;
    ctx.progress(0.3, 'fitting');
    const model = fitKMeans(arrays, { k, seed, signal: ctx.signal });
    ctx.progress(0.7, 'assigning');
    const classes = assignKMeans(arrays, model, undefined, ctx.signal);
    const rowA = rowAreas(ds);
    const pix = new Array(k + 1).fill(0), m2 = new Array(k + 1).fill(0);
    for (let i = 0; i < classes.length; i++) { pix[classes[i]]++; m2[classes[i]] += rowA[Math.floor(i / w)]; }
    const valid = classes.length - pix[0];
    const table = model.centers.map((c, j) => ({
      class: j + 1, pixels: pix[j + 1], m2: m2[j + 1], percent: valid ? (100 * pix[j + 1]) / valid : 0,
      center: Object.fromEntries(bandList.map((bn, bi) => [ds.bandDescriptions[bands[roles[bi]].band - 1] ?? `b${bn}`, sig(c[bi], 5)])),
    }));
    const file = await writeBand(outPath(ctx, 'kmeans_classify', 'classes', 'tif'), ds, classes, 'uint8', 0, `classes: k-means k=${k} seed=${seed}, ordered dark to bright`);
    const png = await quicklook(outPath(ctx, 'kmeans_classify', 'classes', 'png'), maskedFloat(classes, 0), w, h, { kind: 'class', title: `k-means, k=${k}` });
    const sorted = [...table].sort((a, b) => b.pixels - a.pixels);
    const big = sorted[0], small = sorted[sorted.length - 1];
    const whereBig = whereOf(w, h, (i) => classes[i] === big.class, (i) => classes[i] !== 0);
    const whereSmall = whereOf(w, h, (i) => classes[i] === small.class, (i) => classes[i] !== 0);
    return {
      tool: 'kmeans_classify',
      outputs: { classes: { path: file, type: 'raster', roles: ['class'], description: `k-means clusters 1..${k} (1 = darkest)` } },
      stats: { k, seed, bands: bandList, iterations: model.iterations, sample_pixels: model.sampleSize, classes: table },
      summary: `${k} spectral clusters over ${bandList.length} bands: the largest, class ${big.class}, covers ${pct(big.pixels / valid)} of valid pixels (${areaText(big.m2)}) ${whereBig}; `
        + `the smallest, class ${small.class}, covers ${pct(small.pixels / valid)} ${whereSmall}. Classes are ordered from darkest (1) to brightest (${k}).`,
      quicklook: png,
    };
  },
};
