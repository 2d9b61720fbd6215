/** clip_bbox and resample: grid-changing copies, streamed in strips. */
import { openRaster, RasterDataset, DType, GeoInfo } from '../io/dataset';
import { GeoTiffWriter, WriteSpec } from '../io/writer';
import { encodeTile, stripToTile } from '../io/encode';
import { runStrips } from '../pipeline/run-strips';
import type { StripKernelSpec } from '../pipeline/strip-kernels';
import { StatsAccumulator, num } from '../stats';
import { outPath, rasterOutput, throwIfAborted, inputStem, requireMapGrid, projectedPixelArea } from './common';
import { renderQuicklook, type QuicklookKind } from '../quicklook';
import { basename } from 'node:path';
import { defineTool, type ToolContext } from './types';
// The warp and CRS modules (proj4) are loaded by the branches that use them: a clip or a resample by a
// factor starts without them.
const warp = () => require('./warp-support') as typeof import('./warp-support');
const crsModule = () => require('../crs/crs') as typeof import('../crs/crs');

/** Writer type that holds `d` without loss where possible (int8 → int16; uint32/float64 → float32). */
export function writableType(d: DType): WriteSpec['dtype'] {
  switch (d) {
    case 'uint8': case 'uint16': case 'int16': case 'int32': case 'float32': return d;
    case 'int8': return 'int16';
    default: return 'float32';
  }
}

/** Runs a grid-changing copy on the strip pipeline: statistics of band 1 and the quicklook's pixels are taken as tiles are written. */
async function copyStrips(ctx: ToolContext, ds: RasterDataset, out: string, spec: WriteSpec, kernel: StripKernelSpec, name: string): Promise<{ stats: StatsAccumulator; ql: string }> {
  const inputs = Array.from({ length: ds.bandCount }, (_, i) => ({ source: ds.source, band: i + 1 }));
  const run = await runStrips({
    inputs, kernel, inWidth: ds.width, inHeight: ds.height, out: spec, outPath: out, stats: true, preview: true,
    signal: ctx.signal, progress: (f) => ctx.progress(f * 0.9),
  });
  throwIfAborted(ctx.signal);
  const ql = outPath(ctx, name, 'png');
  const pv = run.preview!;
  // As a read of the written band 1 gives it: its scale and offset applied.
  const sc = spec.scales?.[0] ?? 1, of = spec.offsets?.[0] ?? 0;
  if (sc !== 1 || of !== 0) for (let i = 0; i < pv.data.length; i++) pv.data[i] = pv.data[i] * sc + of;
  await renderQuicklook(ql, pv.data, pv.w, pv.h, { kind: 'continuous', title: `${name.toUpperCase()} ${inputStem(ctx.args)}` });
  return { stats: run.stats!, ql };
}

/**
 * Streams output strips for tools whose pixels are not a strip kernel (the warp, clip_to_vector):
 * `fill(band, y0, h)` returns the band's rows y0..y0+h (w = spec.width); writes tiles.
 * One band's strip is held at a time, so memory is one strip whatever the band count.
 */
export async function writeStrips(ctx: ToolContext, path: string, spec: WriteSpec, fill: (band: number, y0: number, h: number) => Promise<ArrayLike<number>>, kind: QuicklookKind = 'continuous'): Promise<StatsAccumulator> {
  const w = await GeoTiffWriter.create(path, spec);
  const acc = new StatsAccumulator(spec.width, spec.height);
  // The quicklook's pixels, taken from band 1 as it is written: the engine would otherwise read the whole
  // output back for them (readPreview; 25 tile decodes and ~0.15 s CPU at 2500²). Same pixels, same PNG.
  const pv = new PreviewSampler(spec, w.nodata);
  try {
    const t = w.tile;
    for (let by = 0; by < w.tilesDown; by++) {
      const y0 = by * t, h = Math.min(t, spec.height - y0);
      for (let b = 1; b <= spec.bands; b++) {
        throwIfAborted(ctx.signal);
        const strip = await fill(b, y0, h);
        if (b === 1) {
          const nd = w.nodata;
          if (strip instanceof Float32Array) {
            // Already float32 (the warp): no copy; a value equal to nodata is one only if nodata is a float32.
            acc.ignore = nd !== null && Math.fround(nd) === nd ? nd : null;
            acc.add(strip, 0, y0, spec.width, h);
          } else {
            acc.ignore = null;
            const f = new Float32Array(strip.length);
            for (let i = 0; i < f.length; i++) { const v = strip[i]; f[i] = nd !== null && v === nd ? NaN : v; }
            acc.add(f, 0, y0, spec.width, h);
          }
          pv.add(strip, y0, h);
        }
        for (let bx = 0; bx < w.tilesAcross; bx++) {
          const { w: bw } = w.blockSize(bx, by);
          await w.writeEncoded(bx, by, b - 1, encodeTile(stripToTile(strip, spec.width, bx * t, bw, h, t, spec.dtype, w.fill), t, spec.dtype, w.zlevel));
        }
      }
      ctx.progress((by + 1) / w.tilesDown * 0.9);
    }
    await w.finish();
  } catch (e) { await w.abort(); throw e; }
  throwIfAborted(ctx.signal);
  await renderQuicklook(path.replace(/\.tiff?$/i, '.png'), pv.data, pv.w, pv.h, { kind, title: basename(path) });
  return acc;
}

/**
 * readPreview's pixels of band 1 of an output being written (every f-th row and column, f the integer
 * step to ≤ 768 on the long side), as reading the file back would give them: the value written (float32,
 * or rounded and clamped to the integer type; NaN as the fill), nodata as NaN, then scale and offset.
 */
class PreviewSampler {
  readonly f: number; readonly w: number; readonly h: number; readonly data: Float32Array;
  private readonly nd: number | null;
  private readonly lo: number; private readonly hi: number;
  constructor(private readonly spec: WriteSpec, nodata: number | null) {
    const f = this.f = Math.max(1, Math.ceil(Math.max(spec.width, spec.height) / 768));
    this.w = Math.ceil(spec.width / f); this.h = Math.ceil(spec.height / f);
    this.data = new Float32Array(this.w * this.h);
    const isF = spec.dtype === 'float32';
    this.nd = nodata === null || Number.isNaN(nodata) ? null : isF ? Math.fround(nodata) : nodata;
    [this.lo, this.hi] = ({ float32: [-Infinity, Infinity], uint8: [0, 255], uint16: [0, 65535], int16: [-32768, 32767], int32: [-2147483648, 2147483647] } as Record<string, [number, number]>)[spec.dtype];
  }
  add(strip: ArrayLike<number>, y0: number, rows: number): void {
    const { f, w, spec } = this;
    const W = spec.width, isF = spec.dtype === 'float32';
    const sc = spec.scales?.[0] ?? 1, of = spec.offsets?.[0] ?? 0, plain = sc === 1 && of === 0;
    const fillV = this.nd === null ? (isF ? NaN : 0) : this.nd;
    for (let py = Math.ceil(y0 / f); py * f < y0 + rows; py++) {
      const ro = (py * f - y0) * W;
      for (let px = 0; px < w; px++) {
        const v = strip[ro + px * f];
        // The sample in the file: NaN is written as the fill (nodata), so it reads back as nodata.
        let s: number;
        if (v !== v) s = fillV;
        else s = isF ? Math.fround(v) : v <= this.lo ? this.lo : v >= this.hi ? this.hi : Math.round(v);
        this.data[py * w + px] = s === this.nd || s !== s ? NaN : plain ? s : s * sc + of;
      }
    }
  }
}

function baseSpec(ds: RasterDataset, width: number, height: number, geo: GeoInfo, dtype: WriteSpec['dtype']): WriteSpec {
  return {
    width, height, bands: ds.bandCount, dtype, geo, nodata: ds.nodata,
    descriptions: ds.bandDescriptions.map((d) => d ?? ''), scales: ds.scales, offsets: ds.offsets,
    ...classLegend(ds, dtype),
  };
}

/**
 * The colour table and category names an output keeps when its pixels are the input's values copied
 * (clip, nearest resample and warp) into the same type: a WorldCover clip still shows its colours and
 * class names in gdalinfo and QGIS. Averaged or interpolated outputs get neither.
 */
export function classLegend(ds: RasterDataset, dtype: WriteSpec['dtype']): Pick<WriteSpec, 'colorTable' | 'categoryNames'> {
  if (ds.bandCount !== 1 || dtype !== ds.dtype) return {};
  const names = ds.categoryNames?.[0];
  return { ...(ds.colorTable ? { colorTable: ds.colorTable } : {}), ...(names ? { categoryNames: names } : {}) };
}

export const clipBboxTool = defineTool({
  id: 'clip_bbox',
  params: {
    image: { kind: 'raster', required: true, single: true },
    bbox: { kind: 'bbox', required: true, description: 'minx,miny,maxx,maxy' },
    bbox_crs: { kind: 'string', default: 'native', enum: ['native', 'lonlat'] },
  },
  async run(ctx) {
    const ds = await openRaster(ctx.args.image, { signal: ctx.signal });
    try {
      requireMapGrid(ds, 'clip_bbox');
      const g = ds.geo.geoTransform;
      if (g[2] !== 0 || g[4] !== 0) throw new Error(`clip_bbox: ${ds.source} has a rotated geotransform; warp it first`);
      let [minx, miny, maxx, maxy] = ctx.args.bbox;
      if (ctx.args.bbox_crs === 'lonlat') {
        if (minx < -180 || maxx > 180 || miny < -90 || maxy > 90) throw new Error(`clip_bbox: argument "bbox" is not lon/lat degrees: ${ctx.args.bbox.join(',')}`);
        const pts: [number, number][] = [];
        try {
          const { LONLAT, crsOfGeo, transformer } = crsModule();
          const crs = crsOfGeo(ds.geo, ds.source);
          if (!crs) throw new Error('the raster names no CRS; pass the bbox in its own coordinates with bbox_crs=native');
          const t = transformer(LONLAT, crs);
          for (let i = 0; i <= 4; i++) {
            for (let j = 0; j <= 4; j++) {
              const p = t.forward(minx + ((maxx - minx) * i) / 4, miny + ((maxy - miny) * j) / 4);
              if (Number.isFinite(p[0]) && Number.isFinite(p[1])) pts.push(p);
            }
          }
          if (!pts.length) throw new Error(`the box has no position in ${crs.label}`);
        } catch (e) { throw new Error(`clip_bbox: argument "bbox_crs"=lonlat for ${ds.source}: ${(e as Error).message}`); }
        minx = Math.min(...pts.map((p) => p[0])); maxx = Math.max(...pts.map((p) => p[0]));
        miny = Math.min(...pts.map((p) => p[1])); maxy = Math.max(...pts.map((p) => p[1]));
      }
      const c0 = Math.max(0, Math.floor((minx - g[0]) / g[1] + 1e-9)), c1 = Math.min(ds.width, Math.ceil((maxx - g[0]) / g[1] - 1e-9));
      const r0 = Math.max(0, Math.floor((maxy - g[3]) / g[5] + 1e-9)), r1 = Math.min(ds.height, Math.ceil((miny - g[3]) / g[5] - 1e-9));
      if (c1 <= c0 || r1 <= r0) {
        const ext = [g[0], g[3] + g[5] * ds.height, g[0] + g[1] * ds.width, g[3]].map((v) => num(v)).join(', ');
        throw new Error(`clip_bbox: argument "bbox" [${num(minx)}, ${num(miny)}, ${num(maxx)}, ${num(maxy)}] does not overlap ${ds.source} (extent ${ext}${ds.geo.epsg ? ` in EPSG:${ds.geo.epsg}` : ''})`);
      }
      const w = c1 - c0, h = r1 - r0;
      const geo: GeoInfo = { ...ds.geo, geoTransform: [g[0] + c0 * g[1], g[1], 0, g[3] + r0 * g[5], 0, g[5]] };
      const out = outPath(ctx, 'clip');
      const spec = baseSpec(ds, w, h, geo, writableType(ds.dtype));
      // A pixel-interleaved input of integers is copied with its bands together and written the same way (GDAL's
      // default layout): a fourth of the tiles to encode for a 4-band scene, no per-band window copies.
      spec.interleaved = !!ds.pixelInterleaved && !!ds.readInterleaved && spec.dtype === ds.dtype && spec.dtype !== 'float32';
      const { stats, ql } = await copyStrips(ctx, ds, out, spec, { type: 'clip', c0, r0 }, 'clip');
      const r = stats.result();
      const px = projectedPixelArea(ds);
      const area = px === undefined ? '' : ` (${num((w * h * px) / 1e6)} km²)`;
      const summary = `Clipped to ${w}×${h} pixels${area}, ${((w * h) / (ds.width * ds.height) * 100).toFixed(1)}% of the input, columns ${c0}–${c1 - 1} and rows ${r0}–${r1 - 1}; `
        + `band 1 mean ${num(r.mean)} with ${r.count ? Math.round((r.nodata / r.count) * 100) : 0}% nodata.`;
      return { tool: 'clip_bbox', outputs: { clipped: rasterOutput(out, ['clipped']) }, stats: { window: { x: c0, y: r0, width: w, height: h }, geoTransform: geo.geoTransform, ...r }, summary, quicklook: ql };
    } finally { await ds.close(); }
  },
});

/** Largest resample output: a few hundred MB of strips at most, and seconds to minutes, not hours. */
export const MAX_RESAMPLE_PIXELS = 1 << 28;
export const MAX_RESAMPLE_SIDE = 1 << 16;

export const resampleTool = defineTool({
  id: 'resample',
  params: {
    image: { kind: 'raster', required: true, single: true },
    factor: { kind: 'number', min: 0.01, max: 1000, description: 'output pixel size ÷ input pixel size (2 = half the resolution); or give reference=' },
    method: { kind: 'string', default: 'nearest', enum: ['nearest', 'average', 'bilinear', 'cubic'] },
    reference: { kind: 'raster', single: true, description: 'raster whose grid (pixel size, extent, CRS) the output matches, instead of factor' },
  },
  async run(ctx) {
    const { method, factor: f, reference } = ctx.args;
    if (reference !== undefined) {
      if (f !== undefined) throw new Error('resample: give either "factor" or "reference", not both');
      return (require('./align') as typeof import('./align')).warpOntoReference(ctx, ctx.args.image, reference, 'resample', method, 'resampled');
    }
    if (f === undefined) throw new Error('resample: missing argument "factor" (output pixel size ÷ input pixel size, e.g. factor=2) or "reference" (a raster whose grid to match)');
    const ds = await openRaster(ctx.args.image, { signal: ctx.signal });
    try {
      requireMapGrid(ds, 'resample');
      const g = ds.geo.geoTransform;
      const W = Math.max(1, Math.round(ds.width / f)), H = Math.max(1, Math.round(ds.height / f));
      if (W > MAX_RESAMPLE_SIDE || H > MAX_RESAMPLE_SIDE || W * H > MAX_RESAMPLE_PIXELS) {
        // The smallest factor whose output fits both bounds (rounded up to two significant digits).
        const need = Math.max(ds.width / MAX_RESAMPLE_SIDE, ds.height / MAX_RESAMPLE_SIDE, Math.sqrt((ds.width * ds.height) / MAX_RESAMPLE_PIXELS));
        const min = Math.ceil(need * 100 * 1.0001) / 100;
        throw new Error(`resample: argument "factor"=${f} would make a ${W}×${H} output from the ${ds.width}×${ds.height} ${ds.source}; outputs are limited to ${MAX_RESAMPLE_PIXELS} pixels and ${MAX_RESAMPLE_SIDE} on a side, so use factor ≥ ${min} (or clip_bbox first)`);
      }
      const fx = ds.width / W, fy = ds.height / H;
      const geo: GeoInfo = { ...ds.geo, geoTransform: [g[0], g[1] * fx, g[2] * fy, g[3], g[4] * fx, g[5] * fy] };
      if (method === 'bilinear' || method === 'cubic') {
        // Interpolating kernels go through the warp (gdalwarp's kernels, scaled when downsampling).
        const out = outPath(ctx, 'resampled');
        const w = await warp().warpRaster(ctx, ds, { width: W, height: H, geo, crs: undefined }, method, out, 'resample');
        const r = w.acc.result();
        const summary = `Resampled ${ds.width}×${ds.height} to ${W}×${H} pixels (${num(Math.hypot(geo.geoTransform[1], geo.geoTransform[4]))}${ds.geo.geographic ? '°' : ' m'} pixels, ${method}); band 1 mean ${num(r.mean)}, range ${num(r.min)} to ${num(r.max)}.`;
        return { tool: 'resample', outputs: { resampled: rasterOutput(out, ['resampled']) }, stats: { width: W, height: H, geoTransform: geo.geoTransform, method, kernel_scale: [w.xScale, w.yScale], ...r }, summary };
      }
      // nearest and average: the strip pipeline (workers, stats and quicklook taken while writing).
      const avg = method === 'average';
      const spec = baseSpec(ds, W, H, geo, avg ? 'float32' : writableType(ds.dtype));
      if (avg) { spec.scales = undefined; spec.offsets = undefined; spec.nodata = -9999; spec.colorTable = undefined; spec.categoryNames = undefined; }
      const out = outPath(ctx, 'resampled');
      const { stats, ql } = await copyStrips(ctx, ds, out, spec, { type: 'resample', method: avg ? 'average' : 'nearest', fx, fy }, 'resampled');
      const r = stats.result();
      const summary = `Resampled ${ds.width}×${ds.height} to ${W}×${H} pixels (${num(Math.abs(geo.geoTransform[1]))}${ds.geo.geographic ? '°' : ' m'} pixels, ${avg ? 'average' : 'nearest'}); band 1 mean ${num(r.mean)}, range ${num(r.min)} to ${num(r.max)}.`;
      return { tool: 'resample', outputs: { resampled: rasterOutput(out, ['resampled']) }, stats: { width: W, height: H, geoTransform: geo.geoTransform, ...r }, summary, quicklook: ql };
    } finally { await ds.close(); }
  },
});
