/**
 * random_forest_classify: supervised classification. Training pixels come from labelled polygons (or
 * points) in any CRS; a seeded random forest (../algorithms/random-forest.ts) is fitted on their band
 * values and applied to every pixel in strips. Pixels with a nodata band are nodata (0) in the output.
 */
import { defineTool } from './types';
import { trainForest, predictForest } from '../algorithms/random-forest';
import { mulberry32 } from '../algorithms/prng';
import { featureBands, closeResolved, streamStrips, outPath, quicklook, rowAreas, areaText, sig, labelsDescription, Preview, WhereCounter } from './analysis-support';
import { labelledPixels, valuesAt } from './label-samples';
import { pct } from '../stats';

export const randomForestClassifyTool = defineTool({
  id: 'random_forest_classify',
  params: {
    image: { kind: 'raster', required: true, single: true, description: 'multispectral image or stack of bands and indices' },
    training: { kind: 'vector', required: true, description: 'training polygons (or points) with a class attribute: GeoJSON, Shapefile, GeoPackage or KML, any CRS' },
    class_field: { kind: 'string', required: true, description: 'attribute holding the class: integer codes 1..65535 kept as they are, or names numbered 1..n in alphabetical order' },
    bands: { kind: 'string_list', description: 'bands to use (1-based indices or role names); default every band except QA/SCL' },
    n_trees: { kind: 'integer', default: 100, min: 1, max: 1000 },
    mtry: { kind: 'integer', min: 1, description: 'features tried per split; default ⌊√bands⌋' },
    max_depth: { kind: 'integer', default: 0, min: 0, description: '0 = grow until the leaves are pure' },
    min_samples_leaf: { kind: 'integer', default: 1, min: 1 },
    max_samples: { kind: 'integer', default: 20000, min: 10, description: 'most training pixels used (a seeded random subset beyond that)' },
    seed: { kind: 'integer', default: 1 },
  },
  async run(ctx) {
    const { n_trees: nTrees, seed, max_depth: maxDepth, min_samples_leaf: minLeaf, max_samples: maxSamples } = ctx.args;
    const { resolved: R, inputs, bandList } = await featureBands(ctx, 'image', ctx.args.image, ctx.args.bands);
    try {
      const ds = inputs[0].dataset;
      const F = inputs.length;
      const mtry = ctx.args.mtry ?? Math.max(1, Math.floor(Math.sqrt(F)));
      if (mtry > F) throw new Error(`argument "mtry" must be from 1 to the ${F} bands used, got ${mtry}`);
      ctx.progress(0, 'reading training data');
      const field = ctx.args.class_field;
      const L = labelledPixels(ctx, ctx.args.training, ds, 'training', field);
      // Class codes: integers as they are, names numbered alphabetically.
      const numeric = L.values.every((v) => typeof v === 'number');
      if (!numeric && L.values.some((v) => typeof v === 'number')) throw new Error(`argument "class_field": "${field}" mixes numbers and names; use one or the other`);
      let codes: number[], labels: Record<number, string> | undefined;
      const names = [...new Set(L.values.map(String))];
      if (numeric) {
        codes = [...new Set(L.values as number[])].sort((a, b) => a - b);
        const bad = codes.find((c) => !Number.isInteger(c) || c < 1 || c > 65535);
        if (bad !== undefined) throw new Error(`argument "class_field": class ${bad} is not an integer code from 1 to 65535 (0 is the output's nodata); renumber the classes or use names`);
      } else {
        names.sort((a, b) => a.localeCompare(b));
        codes = names.map((_, i) => i + 1);
        labels = Object.fromEntries(names.map((nm, i) => [i + 1, nm]));
      }
      if (codes.length < 2) throw new Error(`argument "training": every training feature has the class ${numeric ? codes[0] : names[0]}; a classifier needs at least two classes`);
      const indexOf = new Map<string, number>(numeric ? codes.map((c, i) => [String(c), i]) : names.map((nm, i) => [nm, i]));
      const cols = await valuesAt(ctx, inputs, L.xs, L.ys);
      // Keep samples with every band valid, then a seeded subset of at most max_samples.
      let keep: number[] = [];
      for (let i = 0; i < L.xs.length; i++) if (cols.every((c) => c[i] === c[i])) keep.push(i);
      const dropped = L.xs.length - keep.length;
      if (!keep.length) throw new Error(`argument "training": none of the ${L.xs.length} training pixels has a valid value in every band of ${ds.source}; check that the polygons cover the image`);
      if (keep.length > maxSamples) {
        const rand = mulberry32(seed ^ 0x5eed);
        for (let i = 0; i < maxSamples; i++) { const j = i + Math.floor(rand() * (keep.length - i)); const t = keep[i]; keep[i] = keep[j]; keep[j] = t; }
        keep = keep.slice(0, maxSamples).sort((a, b) => a - b);
      }
      const X = cols.map((c) => Float32Array.from(keep, (i) => c[i]));
      const y = Int32Array.from(keep, (i) => indexOf.get(String(L.values[i]))!);
      const perClass = codes.map(() => 0);
      for (const c of y) perClass[c]++;
      ctx.progress(0.05, 'training');
      const forest = trainForest(X, y, codes.length, {
        nTrees, mtry, maxDepth, minSamplesLeaf: minLeaf, seed, signal: ctx.signal,
        onTree: (t) => ctx.progress(0.05 + 0.45 * (t / nTrees), t === nTrees ? 'classifying' : undefined),
      });
      const maxCode = codes[codes.length - 1];
      const dtype = maxCode <= 254 ? 'uint8' : 'uint16';
      const desc = labels ? labelsDescription('classes', labels) : `classes: random forest of ${nTrees} trees, codes ${codes.join(', ')}`;
      const { width: w, height: h } = ds;
      const rowA = rowAreas(ds, 'random_forest_classify');
      const pix = codes.map(() => 0), m2 = codes.map(() => 0);
      const wheres = codes.map(() => new WhereCounter(w, h));
      let nodata = 0;
      const preview = new Preview(w, h);
      const file = outPath(ctx, 'random_forest_classify', 'classes', 'tif');
      const codeArr = Int32Array.from(codes);
      await streamStrips(ctx, ds, inputs, [{ path: file, dtype, nodata: 0, description: desc }], (ins, y0, rows) => {
        const n = w * rows;
        const cls = predictForest(forest, ins, n, ctx.signal);
        const out = dtype === 'uint8' ? new Uint8Array(n) : new Uint16Array(n);
        for (let i = 0; i < n; i++) {
          let ok = true;
          for (let f = 0; f < F; f++) if (ins[f][i] !== ins[f][i]) { ok = false; break; }
          if (!ok) { nodata++; continue; }
          out[i] = codeArr[cls[i]];
          pix[cls[i]]++; m2[cls[i]] += rowA[y0 + Math.floor(i / w)];
        }
        codes.forEach((c, k) => wheres[k].add(y0, rows, (i) => out[i] === c, (i) => out[i] !== 0));
        preview.add(out, y0, rows, 0);
        return [out];
      }).then(() => ctx.progress(1));
      const valid = w * h - nodata;
      const name = (k: number) => (labels ? `${labels[codes[k]]} (${codes[k]})` : `class ${codes[k]}`);
      const table = codes.map((c, k) => ({ class: c, ...(labels ? { label: labels[c] } : {}), training_pixels: perClass[k], pixels: pix[k], m2: m2[k], percent: valid ? sig((100 * pix[k]) / valid, 4) : 0 }));
      const png = await quicklook(outPath(ctx, 'random_forest_classify', 'classes', 'png'), preview.data, preview.pw, preview.ph, { kind: 'class', title: `Random forest, ${nTrees} trees`, ...(labels ? { labels } : {}) });
      const order = codes.map((_, k) => k).sort((a, b) => pix[b] - pix[a]);
      const big = order[0];
      return {
        tool: 'random_forest_classify',
        outputs: { classes: { path: file, type: 'raster', roles: ['class'], description: `random forest classes (${codes.map((c, k) => name(k)).join(', ')}); 0 = nodata` } },
        stats: {
          n_trees: nTrees, mtry: forest.mtry, max_depth: maxDepth, min_samples_leaf: minLeaf, seed, bands: bandList,
          training_pixels: keep.length, training_pixels_dropped_nodata: dropped, training_kind: L.kind, training_features: L.features,
          oob_accuracy: forest.oobAccuracy === null ? null : sig(forest.oobAccuracy, 4), oob_samples: forest.oobSamples,
          classes: table, nodata_pixels: nodata, ...(L.outside ? { training_features_off_image: L.outside } : {}), ...(L.note ? { crs_note: L.note } : {}),
        },
        summary: `A random forest of ${nTrees} trees over ${F} band${F > 1 ? 's' : ''}, trained on ${keep.length} pixels of ${codes.length} classes (out-of-bag accuracy ${forest.oobAccuracy === null ? 'n/a' : pct(forest.oobAccuracy)}), `
          + `maps ${name(big)} as the largest class with ${pct(valid ? pix[big] / valid : 0)} of the valid pixels (${areaText(m2[big])}), ${wheres[big].text()}.`
          + (L.note ? ` ${L.note[0].toUpperCase()}${L.note.slice(1)}.` : ''),
        quicklook: png,
      };
    } finally { await closeResolved(R); }
  },
});
