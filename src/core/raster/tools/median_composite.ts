/**
 * median_composite: per-pixel, per-band median of the clear observations of a stack of co-registered
 * scenes (as numpy.nanmedian: the mean of the two middle values for an even count). An observation is
 * skipped when it is nodata, when its scene's cloud mask is 1 (or nodata), or when the scene's QA band
 * flags it (REFERENCE.md: Sentinel-2 SCL 3, 8, 9, 10 are cloud/shadow/cirrus and 0 is no data;
 * Landsat QA_PIXEL bits 1-4 are dilated cloud, cirrus, cloud, shadow and bit 0 is fill).
 * Streamed in strips, one band at a time; writes the composite and the clear-observation count.
 */
import { defineTool, type BandArg } from './types';
import { openRaster, RasterDataset } from '../io/dataset';
import { GeoTiffWriter } from '../io/writer';
import { roleFromDescription } from '../bands';
import { assertSameGrid, checkAbort, outPath, quicklook, sig, Preview, WhereCounter } from './analysis-support';
import { pct } from '../stats';
import { outPath as commonOutPath } from './common';

type QaKind = 'scl' | 'qa_pixel';

/** true where a QA value marks the pixel unusable (cloud, shadow, cirrus, no data/fill). */
export function qaFlagged(kind: QaKind, v: number): boolean {
  if (v !== v) return true;
  if (kind === 'scl') return v === 0 || v === 3 || v === 8 || v === 9 || v === 10;
  return (v & 0b11111) !== 0; // fill, dilated cloud, cirrus, cloud, cloud shadow
}

/** Median of the first n values of `buf` (sorted in place); NaN when n is 0. */
export function medianOf(buf: Float64Array, n: number): number {
  if (n === 0) return NaN;
  for (let i = 1; i < n; i++) { const v = buf[i]; let j = i - 1; while (j >= 0 && buf[j] > v) { buf[j + 1] = buf[j]; j--; } buf[j + 1] = v; }
  return n % 2 ? buf[(n - 1) >> 1] : (buf[n / 2 - 1] + buf[n / 2]) / 2;
}

function bandIndex(ds: RasterDataset, v: BandArg, arg: string): number {
  if (typeof v === 'number' || /^\d+$/.test(v)) {
    const n = Number(v);
    if (n < 1 || n > ds.bandCount) throw new Error(`argument "${arg}": band ${n} does not exist in ${ds.source} (it has ${ds.bandCount} band${ds.bandCount > 1 ? 's' : ''})`);
    return n;
  }
  const name = v.toLowerCase();
  const i = ds.bandDescriptions.findIndex((d) => roleFromDescription(d) === name || (d ?? '').toLowerCase() === name);
  if (i < 0) throw new Error(`argument "${arg}": no band of ${ds.source} is described as "${v}"; give a 1-based band index`);
  return i + 1;
}

export const medianCompositeTool = defineTool({
  id: 'median_composite',
  params: {
    images: { kind: 'raster_list', required: true, glob: true, description: 'co-registered scenes (same grid and band layout), as a list or a glob such as "scenes/*.tif"' },
    masks: { kind: 'raster_list', glob: true, description: 'optional cloud masks, one per scene (1 = cloud, 0 = clear; mask nodata is skipped too)' },
    qa: { kind: 'band', description: 'QA band inside each scene (Sentinel-2 SCL or Landsat QA_PIXEL) whose flags skip pixels; it is left out of the composite' },
    sensor: { kind: 'string', enum: ['sentinel2_l2a', 'landsat89_c2l2', 'landsat457_c2l2'], description: 'how to read the QA band: SCL classes (sentinel2_l2a) or QA_PIXEL bits (Landsat); guessed from the band description' },
    bands: { kind: 'string_list', description: 'bands to composite (1-based indices or descriptions); default every band except the QA band' },
  },
  async run(ctx) {
    const { images, masks = [] } = ctx.args;
    if (images.length < 2) throw new Error(`argument "images" needs at least 2 scenes for a composite, got ${images.length}`);
    if (masks.length && masks.length !== images.length) throw new Error(`argument "masks" has ${masks.length} entries but "images" has ${images.length}; give one mask per scene, in the same order`);
    const dss: RasterDataset[] = [], mds: RasterDataset[] = [];
    try {
      for (let k = 0; k < images.length; k++) {
        const ds = await openRaster(images[k], { signal: ctx.signal }).catch((e) => { throw new Error(`argument "images"[${k}]: ${(e as Error).message}`); });
        dss.push(ds);
        if (k > 0) {
          assertSameGrid(dss[0], 'images[0]', ds, `images[${k}]`);
          if (ds.bandCount !== dss[0].bandCount) throw new Error(`argument "images"[${k}]: ${ds.source} has ${ds.bandCount} bands but ${dss[0].source} has ${dss[0].bandCount}; composite scenes with the same band layout`);
        }
      }
      for (let k = 0; k < masks.length; k++) {
        const m = await openRaster(masks[k], { signal: ctx.signal }).catch((e) => { throw new Error(`argument "masks"[${k}]: ${(e as Error).message}`); });
        mds.push(m);
        assertSameGrid(dss[0], 'images[0]', m, `masks[${k}]`);
      }
      const first = dss[0];
      let qaBand: number | undefined, qaKind: QaKind | undefined;
      if (ctx.args.qa !== undefined) {
        qaBand = bandIndex(first, ctx.args.qa, 'qa');
        const { sensor } = ctx.args;
        const desc = (first.bandDescriptions[qaBand - 1] ?? '').toLowerCase();
        qaKind = sensor === 'sentinel2_l2a' ? 'scl' : sensor ? 'qa_pixel' : desc.includes('scl') ? 'scl' : desc.includes('qa_pixel') ? 'qa_pixel' : undefined;
        if (!qaKind) throw new Error(`argument "qa": cannot tell how to read band ${qaBand} of ${first.source} (its description is "${desc}"); pass sensor=sentinel2_l2a (SCL classes) or sensor=landsat89_c2l2 (QA_PIXEL bits)`);
      } else if (ctx.args.sensor !== undefined) {
        throw new Error('argument "sensor" only says how to read the "qa" band; pass qa=<band> too, or leave sensor out');
      }
      const bandArg = ctx.args.bands ?? [];
      const bands = bandArg.length ? bandArg.map((b) => bandIndex(first, b, 'bands'))
        : Array.from({ length: first.bandCount }, (_, i) => i + 1).filter((b) => b !== qaBand && roleFromDescription(first.bandDescriptions[b - 1]) !== 'qa');
      if (!bands.length) throw new Error(`argument "bands": nothing left to composite in ${first.source} once the QA band is left out`);
      const { width: w, height: h } = first;
      const N = dss.length, B = bands.length;
      const descriptions = bands.map((b) => first.bandDescriptions[b - 1] ?? `band ${b}`);
      const compFile = outPath(ctx, 'median_composite', 'composite', 'tif');
      const countFile = commonOutPath(ctx, 'clear_count', 'tif');
      const tile = 256;
      const comp = await GeoTiffWriter.create(compFile, { width: w, height: h, bands: B, dtype: 'float32', geo: { ...first.geo }, nodata: -9999, descriptions, blockSize: tile });
      const writers = [comp];
      const preview = new Preview(w, h);
      const where = new WhereCounter(w, h);
      let validPx = 0, noObs = 0, obsSum = 0, cloudSkipped = 0;
      const used = new Float64Array(N);
      try {
        writers.push(await GeoTiffWriter.create(countFile, { width: w, height: h, bands: 1, dtype: 'uint16', geo: { ...first.geo }, nodata: null, descriptions: ['clear observations per pixel'], blockSize: tile }));
        const buf = new Float64Array(N);
        for (let by = 0; by < comp.tilesDown; by++) {
          checkAbort(ctx.signal);
          const y0 = by * tile, rows = Math.min(tile, h - y0), n = w * rows;
          // usable[k][i]: scene k may contribute at pixel i (mask and QA say clear).
          const usable: Uint8Array[] = [];
          for (let k = 0; k < N; k++) {
            const u = new Uint8Array(n).fill(1);
            if (mds[k]) {
              const m = await mds[k].readWindow(1, 0, y0, w, rows, ctx.signal);
              for (let i = 0; i < n; i++) if (!(m[i] === 0)) { u[i] = 0; cloudSkipped++; }
            }
            if (qaBand !== undefined) {
              const q = await dss[k].readWindowRaw(qaBand, 0, y0, w, rows, ctx.signal);
              for (let i = 0; i < n; i++) if (u[i] && qaFlagged(qaKind!, q[i])) { u[i] = 0; cloudSkipped++; }
            }
            usable.push(u);
          }
          const outs: Float32Array[] = [];
          const count = new Uint16Array(n);
          for (let bi = 0; bi < B; bi++) {
            const strips: Float32Array[] = [];
            for (let k = 0; k < N; k++) strips.push(await dss[k].readWindow(bands[bi], 0, y0, w, rows, ctx.signal));
            checkAbort(ctx.signal);
            const o = new Float32Array(n);
            for (let i = 0; i < n; i++) {
              let c = 0;
              for (let k = 0; k < N; k++) { const v = strips[k][i]; if (usable[k][i] && v === v) buf[c++] = v; }
              o[i] = medianOf(buf, c);
              if (bi === 0) {
                count[i] = c;
                if (c) { validPx++; obsSum += c; for (let k = 0; k < N; k++) if (usable[k][i] && strips[k][i] === strips[k][i]) used[k]++; } else noObs++;
              }
            }
            outs.push(o);
          }
          where.add(y0, rows, (i) => count[i] === 0, () => true);
          preview.add(outs[0], y0, rows);
          for (let bx = 0; bx < comp.tilesAcross; bx++) {
            const x0 = bx * tile, bw = Math.min(tile, w - x0);
            const cut = (src: ArrayLike<number>) => { const blk = new Float64Array(bw * rows); for (let y = 0; y < rows; y++) for (let x = 0; x < bw; x++) blk[y * bw + x] = src[y * w + x0 + x]; return blk; };
            await comp.writeBlock(bx, by, outs.map(cut));
            await writers[1].writeBlock(bx, by, [cut(count)]);
          }
          ctx.progress((by + 1) / comp.tilesDown);
        }
        for (const wr of writers) await wr.finish();
      } catch (e) {
        await Promise.all(writers.map((wr) => wr.abort().catch(() => undefined)));
        throw e;
      }
      if (validPx === 0) throw new Error(`no pixel has a clear observation in any of the ${N} scenes; check the masks (1 = cloud) and the QA band`);
      const png = await quicklook(compFile.replace(/\.tif$/, '.png'), preview.data, preview.pw, preview.ph, { kind: 'continuous', title: `Median composite, ${descriptions[0]}` });
      const total = w * h;
      const skip = masks.length || qaBand !== undefined;
      return {
        tool: 'median_composite',
        outputs: {
          composite: { path: compFile, type: 'raster', roles: ['composite'], description: `per-pixel median of clear observations of ${N} scenes, bands ${descriptions.join(', ')}` },
          clear_count: { path: countFile, type: 'raster', roles: ['count'], description: `clear observations per pixel of ${descriptions[0]} (0 = no composite value)` },
        },
        stats: {
          scenes: N, bands, band_descriptions: descriptions, ...(qaBand !== undefined ? { qa_band: qaBand, qa_kind: qaKind } : {}), masks: masks.length,
          composite_pixels: validPx, no_observation_pixels: noObs, mean_clear_observations: sig(obsSum / validPx, 4),
          flagged_observations: cloudSkipped, observations_used_per_scene: images.map((img, k) => ({ image: img, used: used[k], fraction: sig(used[k] / total, 4) })),
        },
        summary: `Median of ${N} scenes over ${B} band${B > 1 ? 's' : ''}: each pixel has on average ${sig(obsSum / validPx, 3)} clear observations${skip ? ` after skipping ${cloudSkipped} flagged ones` : ''}; `
          + (noObs ? `${pct(noObs / total)} of the pixels have none and are nodata, ${where.text()}.` : 'every pixel has at least one.'),
        quicklook: png,
      };
    } finally {
      await Promise.all([...dss, ...mds].map((d) => d.close().catch(() => undefined)));
    }
  },
});
