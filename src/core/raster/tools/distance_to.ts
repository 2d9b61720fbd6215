/** distance_to: Euclidean distance in metres from every pixel to the nearest mask pixel, streamed in strips. */
import * as fs from 'node:fs';
import { defineTool } from './types';
import { columnPassStrip, rowPassStrip } from '../algorithms/distance';
import { pixelSizeMetres } from '../algorithms/area';
import { resolveRoles, closeResolved, outPath, gt, checkAbort, WhereCounter } from './analysis-support';
import { groundPixelSize } from './ground-area';
import { openRaster, RasterDataset } from '../io/dataset';
import { GeoTiffWriter } from '../io/writer';
import { QuicklookSampler, stripRowsFor, readByteMask } from './strip-support';
import { pct, sortFloat32 } from '../stats';
import { ValueCounts } from '../algorithms/value-counts';

function metres(m: number): string {
  return m >= 1000 ? `${(m / 1000).toFixed(1)} km` : `${Math.round(m)} m`;
}

/** Float32 value of the order statistic `rank` from a 16-bit high/low histogram pair (non-negative floats sort like their bits). */
function fromBits(hi: number, lo?: number): number {
  const u = new Uint32Array([lo === undefined ? hi >>> 0 : ((hi << 16) | lo) >>> 0]);
  return new Float32Array(u.buffer)[0];
}

function binOf(hist: Uint32Array, rank: number): { bin: number; before: number } {
  let c = 0;
  for (let b = 0; b < hist.length; b++) { if (c + hist[b] > rank) return { bin: b, before: c }; c += hist[b]; }
  throw new Error('rank outside the histogram');
}

/** Reads the written distances back top to bottom (exact float32) in strips (when too many distinct values to count). */
async function scan(file: string, step: number, signal: AbortSignal, visit: (d: Float32Array, y0: number, rows: number) => void): Promise<void> {
  const ds: RasterDataset = await openRaster(file);
  try {
    for (let y0 = 0; y0 < ds.height; y0 += step) {
      checkAbort(signal);
      const rows = Math.min(step, ds.height - y0);
      visit(await ds.readWindowRaw(1, 0, y0, ds.width, rows, signal) as Float32Array, y0, rows);
    }
  } finally { await ds.close(); }
}

/** Per column, the topmost target row of the strip (rows y0..) into `next`, where there is one; returns the strip's targets. */
function topmostTargets(m: Uint8Array, w: number, y0: number, rows: number, next: Int32Array): number {
  let n = 0;
  for (let r = rows - 1; r >= 0; r--) {
    const o = r * w;
    for (let x = 0; x < w; x++) if (m[o + x] === 1) { n++; next[x] = y0 + r; }
  }
  return n;
}

/** Per column, the lowest target row of the strip into `above`, where there is one. */
function lowestTargets(m: Uint8Array, w: number, y0: number, rows: number, above: Int32Array): void {
  for (let r = 0; r < rows; r++) {
    const o = r * w;
    for (let x = 0; x < w; x++) if (m[o + x] === 1) above[x] = y0 + r;
  }
}

/** Sum (continuing `sum` in raster order, as one pass over the band would), count, max and count within `near`. */
function stripSums(d: Float32Array, near: number, sum: number): { sum: number; cnt: number; max: number; within: number } {
  let cnt = 0, max = -Infinity, within = 0;
  for (let i = 0; i < d.length; i++) {
    const v = d[i];
    if (v === v && v !== Infinity) { sum += v; cnt++; if (v > max) max = v; }
    if (v <= near) within++;
  }
  return { sum, cnt, max, within };
}

/** Exact order statistics of the written float32 distances: a high 16-bit histogram, then the low bits of two bins. */
async function orderStats(file: string, step: number, n: number, rMed: number, rFar: number, signal: AbortSignal): Promise<{ median: number; far: number }> {
  const hiHist = new Uint32Array(65536);
  await scan(file, step, signal, (d) => {
    const bits = new Uint32Array(d.buffer, d.byteOffset, d.length);
    for (let i = 0; i < bits.length; i++) hiHist[bits[i] >>> 16]++;
  });
  const bMed = binOf(hiHist, rMed), bFar = binOf(hiHist, rFar);
  const loMed = new Uint32Array(65536), loFar = new Uint32Array(65536);
  await scan(file, step, signal, (d) => {
    const bits = new Uint32Array(d.buffer, d.byteOffset, d.length);
    for (let i = 0; i < bits.length; i++) {
      const hi = bits[i] >>> 16;
      if (hi === bMed.bin) loMed[bits[i] & 0xffff]++;
      if (hi === bFar.bin) loFar[bits[i] & 0xffff]++;
    }
  });
  return { median: fromBits(bMed.bin, binOf(loMed, rMed - bMed.before).bin), far: fromBits(bFar.bin, binOf(loFar, rFar - bFar.before).bin) };
}

export const distanceToTool = defineTool({
  id: 'distance_to',
  params: { image: { kind: 'raster', required: true, description: 'mask raster (nonzero = target)' } },
  async run(ctx) {
    const R = await resolveRoles(ctx, 'image', ctx.args.image, ['band'], { band: 1 });
    const ds = R.band.dataset;
    const { width: w, height: h } = ds;
    const file = outPath(ctx, 'distance_to', 'distance', 'tif');
    // Strips are the output's tile rows: the second pass writes them bottom-up.
    const step = Math.max(16, Math.ceil(Math.min(stripRowsFor(ds), 1024) / 16) * 16);
    const nStrips = Math.ceil(h / step);
    const g = gt(ds, 'distance_to');
    const px = ds.geo.geographic ? pixelSizeMetres(g, w, h, true) : groundPixelSize(ds, true);
    let wr: GeoTiffWriter | undefined;
    let targets = 0;
    // Statistics in raster order from the float32 values as they are written (no read-back of the output).
    const n = w * h;
    const near = Math.max(100, 5 * px.x);
    let sum = 0, cnt = 0, max = -Infinity, within = 0;
    const counts = new ValueCounts();
    const cx1 = Math.ceil(w / 3), cx2 = Math.ceil((2 * w) / 3), cy1 = Math.ceil(h / 3), cy2 = Math.ceil((2 * h) / 3);
    const segs = [0, cx1, cx2, w];
    const qlStep = Math.max(1, Math.floor(n / 200_000));
    const qlSample: number[] = [];
    const ql = new QuicklookSampler(w, h);
    try {
      // Pass 1, bottom-up: per strip, the nearest target row below it in each column.
      const belowAt: Int32Array[] = new Array(nStrips);
      // Each strip's mask is used before the next is read: one buffer for every read of both passes.
      const once = { into: new Uint8Array(w * Math.min(step, h)) };
      const next = new Int32Array(w).fill(-1);
      for (let s = nStrips - 1; s >= 0; s--) {
        checkAbort(ctx.signal);
        const y0 = s * step, rows = Math.min(step, h - y0);
        belowAt[s] = Int32Array.from(next);
        const m = await readByteMask(R.band, 0, y0, w, rows, ctx.signal, once);
        targets += topmostTargets(m, w, y0, rows, next);
        ctx.progress((0.3 * (nStrips - s)) / nStrips);
      }
      if (targets === 0) throw new Error(`argument "image": ${ds.source} has no mask pixels (nonzero values) to measure distance to`);
      // Pass 2, top-down: column distances from above/below, then the row pass; tile rows written in order.
      wr = await GeoTiffWriter.create(file, {
        width: w, height: h, bands: 1, dtype: 'float32', geo: { ...ds.geo }, nodata: -9999, descriptions: ['distance (metres) to the nearest mask pixel'], blockSize: step,
      });
      const above = new Int32Array(w).fill(-1);
      // One pair of strip buffers for the whole pass (each strip is consumed before the next is computed).
      const gBuf = new Float64Array(w * step), dBuf = new Float32Array(w * step);
      for (let s = 0; s < nStrips; s++) {
        checkAbort(ctx.signal);
        const y0 = s * step, rows = Math.min(step, h - y0);
        const m = await readByteMask(R.band, 0, y0, w, rows, ctx.signal, once);
        const d = rowPassStrip(columnPassStrip(m, w, y0, rows, above, belowAt[s], px.y, gBuf), w, rows, px.x, dBuf);
        lowestTargets(m, w, y0, rows, above);
        const bits = new Uint32Array(d.buffer, d.byteOffset, d.length);
        const part = stripSums(d, near, sum);
        sum = part.sum; cnt += part.cnt; within += part.within; if (part.max > max) max = part.max;
        for (let r = 0; r < rows; r++) {
          const y = y0 + r, rc = y < cy1 ? 0 : y < cy2 ? 3 : 6;
          for (let k = 0; k < 3; k++) if (segs[k + 1] > segs[k]) counts.add(bits, r * w + segs[k], r * w + segs[k + 1], rc + k);
        }
        for (let i = Math.ceil((y0 * w) / qlStep) * qlStep - y0 * w; i < d.length; i += qlStep) { const v = d[i]; if (v === v && Number.isFinite(v)) qlSample.push(v); }
        ql.add(y0, rows, (i) => d[i]);
        await wr.writeStripRow(s, [d]);
        ctx.progress(0.3 + (0.6 * (s + 1)) / nStrips);
      }
      await wr.finish();
    } catch (e) {
      if (wr) await wr.abort().catch(() => undefined);
      throw e;
    } finally { await closeResolved(R); }
    wr = undefined;
    try {
      const rMed = Math.floor((n - 1) / 2), rFar = Math.floor(0.9 * (n - 1));
      let median: number, far: number;
      const where = new WhereCounter(w, h);
      if (!counts.overflowed) {
        const sorted = counts.sorted();
        median = fromBits(ValueCounts.atRank(sorted, rMed)); far = fromBits(ValueCounts.atRank(sorted, rFar));
        const farBits = new Uint32Array(new Float32Array([far]).buffer)[0];
        const hits = counts.cellsAtOrAbove(sorted, farBits), totals = counts.cellsAtOrAbove(sorted, 0);
        where.hits.splice(0, 9, ...hits); where.totals.splice(0, 9, ...totals);
      } else {
        // Too many distinct distances to count exactly: order statistics from the written file.
        ({ median, far } = await orderStats(file, step, n, rMed, rFar, ctx.signal));
        await scan(file, step, ctx.signal, (d, y0, rows) => where.add(y0, rows, (i) => d[i] >= far, () => true));
      }
      // The quicklook's colour range from the same samples renderQuicklook would take of the whole band.
      const sample = sortFloat32(Float32Array.from(qlSample));
      let range: [number, number] = [0, 1];
      if (sample.length) {
        const lo = sample[Math.floor(0.02 * (sample.length - 1))], hi = sample[Math.ceil(0.98 * (sample.length - 1))];
        range = lo === hi ? [lo - 0.5, hi + 0.5] : [lo, hi];
      }
      const png = await ql.render(outPath(ctx, 'distance_to', 'distance', 'png'), { kind: 'continuous', title: 'Distance', unit: 'm', range });
      const mean = cnt ? sum / cnt : NaN;
      const maxM = cnt ? max : NaN;
      return {
        tool: 'distance_to',
        outputs: { distance: { path: file, type: 'raster', roles: ['distance'], description: 'Euclidean distance in metres to the nearest nonzero mask pixel' } },
        stats: {
          mean_m: mean, median_m: median, max_m: maxM, p90_m: far, target_pixels: targets,
          within_m: near, within_fraction: Number((within / n).toFixed(4)),
          pixel_size_m: [px.x, px.y], ...(ds.geo.geographic ? { note: 'geographic grid: metres per pixel taken at the centre latitude' } : {}),
        },
        summary: `The mean distance to the nearest mask pixel is ${metres(mean)} (median ${metres(median)}, max ${metres(maxM)}); ${pct(within / n)} of the area lies within ${metres(near)}, and the most remote 10% (> ${metres(far)}) is ${where.text()}.`,
        quicklook: png,
      };
    } catch (e) {
      await fs.promises.rm(file, { force: true });
      throw e;
    }
  },
});
