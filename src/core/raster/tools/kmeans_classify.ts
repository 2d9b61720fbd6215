/** kmeans_classify: unsupervised clusters of several bands (seeded, deterministic); fitted on a reservoir sample, applied in strips. */
import { defineTool } from './types';
import { KMeansSampler, fitKMeansOnSample, assignKMeans } from '../algorithms/kmeans';
import {
  featureBands, closeResolved, scanStrips, streamStrips, outPath, quicklook, rowAreas, areaText, sig, Preview,
} from './analysis-support';
import { pct, whereText } from '../stats';

export const kmeansClassifyTool = defineTool({
  id: 'kmeans_classify',
  params: {
    image: { kind: 'raster', required: true, single: true },
    bands: { kind: 'string_list', description: 'bands to cluster (1-based indices or role names); default: every band except QA/SCL' },
    k: { kind: 'integer', default: 5, min: 2, max: 50 },
    seed: { kind: 'integer', default: 1 },
  },
  async run(ctx) {
    const { k, seed } = ctx.args;
    const { resolved: R, inputs, bandList } = await featureBands(ctx, 'image', ctx.args.image, ctx.args.bands);
    try {
      const ds = inputs[0].dataset;
      const { width: w, height: h } = ds;
      ctx.progress(0, 'sampling');
      const sampler = new KMeansSampler(inputs.length, 20000, seed);
      await scanStrips(ctx, ds, inputs, (ins) => sampler.add(ins));
      ctx.progress(0.3, 'fitting');
      const model = fitKMeansOnSample(sampler, { k, seed, signal: ctx.signal });
      const rowA = rowAreas(ds, 'kmeans_classify');
      const pix = new Array(k + 1).fill(0), m2 = new Array(k + 1).fill(0);
      const cells = Array.from({ length: k + 1 }, () => new Array(9).fill(0));
      const validCells = new Array(9).fill(0);
      const cx1 = Math.ceil(w / 3), cx2 = Math.ceil((2 * w) / 3), cy1 = Math.ceil(h / 3), cy2 = Math.ceil((2 * h) / 3);
      const preview = new Preview(w, h);
      const file = outPath(ctx, 'kmeans_classify', 'classes', 'tif');
      await streamStrips(ctx, ds, inputs, [{ path: file, dtype: 'uint8', nodata: 0, description: `classes: k-means k=${k} seed=${seed}, ordered dark to bright` }], (ins, y0, rows) => {
        const classes = assignKMeans(ins, model, undefined, ctx.signal);
        for (let r = 0; r < rows; r++) {
          const rc = y0 + r < cy1 ? 0 : y0 + r < cy2 ? 3 : 6;
          for (let x = 0; x < w; x++) {
            const c = classes[r * w + x];
            pix[c]++; m2[c] += rowA[y0 + r];
            if (c === 0) continue;
            const cell = rc + (x < cx1 ? 0 : x < cx2 ? 1 : 2);
            cells[c][cell]++; validCells[cell]++;
          }
        }
        preview.add(classes, y0, rows, 0);
        return [classes];
      });
      const valid = w * h - pix[0];
      const table = model.centers.map((c, j) => ({
        class: j + 1, pixels: pix[j + 1], m2: m2[j + 1], percent: valid ? (100 * pix[j + 1]) / valid : 0,
        center: Object.fromEntries(bandList.map((bn, bi) => [ds.bandDescriptions[inputs[bi].band - 1] ?? `b${bn}`, sig(c[bi], 5)])),
      }));
      const png = await quicklook(outPath(ctx, 'kmeans_classify', 'classes', 'png'), preview.data, preview.pw, preview.ph, { kind: 'class', title: `k-means, k=${k}` });
      const sorted = [...table].sort((a, b) => b.pixels - a.pixels);
      const big = sorted[0], small = sorted[sorted.length - 1];
      return {
        tool: 'kmeans_classify',
        outputs: { classes: { path: file, type: 'raster', roles: ['class'], description: `k-means clusters 1..${k} (1 = darkest)` } },
        stats: { k, seed, bands: bandList, iterations: model.iterations, sample_pixels: model.sampleSize, classes: table },
        summary: `${k} spectral clusters over ${bandList.length} bands: the largest, class ${big.class}, covers ${pct(big.pixels / valid)} of valid pixels (${areaText(big.m2)}), ${whereText(cells[big.class], validCells)}; `
          + `the smallest, class ${small.class}, covers ${pct(small.pixels / valid)}, ${whereText(cells[small.class], validCells)}. Classes are ordered from darkest (1) to brightest (${k}).`,
        quicklook: png,
      };
    } finally { await closeResolved(R); }
  },
});
