/** band_math, threshold, cloud_mask, apply_mask: per-pixel tools on the worker pipeline. */
import { resolveBands, closeResolved, SENSORS, type ResolvedBand } from '../bands';
import { openRaster, RasterDataset } from '../io/dataset';
import { compileExpr, clipExpression, ExprError, ExprProgram } from '../expr';
import { runPixels, PixelRunResult } from '../pipeline/run-pixels';
import { KernelSpec } from '../pipeline/kernels';
import { InputRef } from '../pipeline/tile-job';
import { renderQuicklook, QuicklookKind } from '../quicklook';
import { DEFAULT_FLOAT_NODATA } from '../io/writer';
import { assertSameGrid, inputStem, isStriped, outPath, projectedPixelArea, rasterOutput } from './common';
import { describeContinuous, describeMask } from './summary';
import { maskDescription, type MaskLabels } from './analysis-support';
import { bandFileOf } from '../band-files';
import { defineTool, type ToolContext } from './types';
import type { ToolRunResult } from '../types';

const MASK_NODATA = 255;

async function pixelTool(ctx: ToolContext, ds: RasterDataset, inputs: InputRef[], kernel: KernelSpec, o: {
  name: string; output: string; mask: boolean; bands?: number; descriptions?: string[]; maskLabels?: MaskLabels;
}): Promise<{ run: PixelRunResult; out: string; ql: string }> {
  const out = outPath(ctx, o.name);
  const run = await runPixels({
    inputs, kernel, width: ds.width, height: ds.height, geo: ds.geo, outPath: out,
    outDtype: o.mask ? 'uint8' : 'float32', outBands: o.bands ?? 1, nodata: o.mask ? MASK_NODATA : DEFAULT_FLOAT_NODATA,
    descriptions: o.descriptions ?? [o.maskLabels ? maskDescription(o.output, o.maskLabels) : o.output], signal: ctx.signal, progress: (f) => ctx.progress(f * 0.95),
    rowAffinity: isStriped(ds),
  });
  const ql = outPath(ctx, o.name, 'png');
  const kind: QuicklookKind = o.mask ? 'mask' : 'continuous';
  await renderQuicklook(ql, run.preview.data, run.preview.w, run.preview.h, {
    kind, title: `${o.name.toUpperCase()} ${inputStem(ctx.args)}`,
    labels: o.mask ? { 0: o.maskLabels?.no ?? 'NO', 1: o.maskLabels?.yes ?? 'YES' } : undefined,
  });
  ctx.progress(1);
  return { run, out, ql };
}

export const bandMathTool = defineTool({
  id: 'band_math',
  params: {
    image: { kind: 'raster', required: true, single: true },
    expression: { kind: 'string', required: true, description: 'e.g. (b4-b3)/(b4+b3); b1..bn, + - * / ( ), comparisons, min max abs sqrt' },
  },
  async run(ctx): Promise<ToolRunResult> {
    const ds = await openRaster(ctx.args.image, { signal: ctx.signal });
    try {
      const { expression } = ctx.args;
      let program: ExprProgram;
      try { program = compileExpr(expression, ds.bandCount); }
      catch (e) { if (e instanceof ExprError) throw new Error(`band_math: argument "expression": ${e.message} in "${clipExpression(expression)}"`); throw e; }
      const bands = program.bands;
      if (!bands.length) throw new Error(`band_math: argument "expression" uses no band (b1..b${ds.bandCount}): "${clipExpression(expression)}"`);
      const mask = program.comparison;
      const { run, out, ql } = await pixelTool(ctx, ds, bands.map((b) => ({ source: ds.source, band: b })), { type: 'expr', program }, {
        name: 'band_math', output: clipExpression(expression, 200), mask,
      });
      const d = mask ? describeMask(run.stats, `true for ${clipExpression(expression)}`, projectedPixelArea(ds))
        : describeContinuous(run.stats, 'value');
      d.stats.expression = expression;
      return { tool: 'band_math', outputs: { result: rasterOutput(out, mask ? ['mask'] : ['continuous'], clipExpression(expression, 200)) }, stats: d.stats, summary: d.summary, quicklook: ql };
    } finally { await ds.close(); }
  },
});

const OPS: Record<string, string> = { gt: '>', ge: '≥', lt: '<', le: '≤', eq: '=', ne: '≠' };
/** The comparison a mask's 0s stand for. */
const NOT: Record<string, string> = { gt: 'le', ge: 'lt', lt: 'ge', le: 'gt', eq: 'ne', ne: 'eq' };

export const thresholdTool = defineTool({
  id: 'threshold',
  params: {
    image: { kind: 'raster', required: true },
    band: { kind: 'band', default: 1 },
    op: { kind: 'string', required: true, enum: ['gt', 'ge', 'lt', 'le', 'eq', 'ne'] },
    value: { kind: 'number', required: true },
  },
  async run(ctx) {
    const r = await resolveBands(ctx.args.image, ['band'], { band: ctx.args.band }, { cwd: ctx.cwd, signal: ctx.signal });
    try {
      const b = r.band;
      const { op, value } = ctx.args;
      const named = b.dataset.bandDescriptions[b.band - 1] ?? `band ${b.band}`;
      const what = `${named} ${OPS[op]} ${value}`;
      const { run, out, ql } = await pixelTool(ctx, b.dataset, [{ source: b.dataset.source, band: b.band, scale: b.scale, offset: b.offset }],
        { type: 'threshold', op, value }, { name: 'threshold', output: 'mask', mask: true, maskLabels: { yes: what, no: `${named} ${OPS[NOT[op]]} ${value}` } });
      const d = describeMask(run.stats, what, projectedPixelArea(b.dataset));
      return { tool: 'threshold', outputs: { mask: rasterOutput(out, ['mask'], what) }, stats: d.stats, summary: d.summary, quicklook: ql };
    } finally { await closeResolved(r); }
  },
});

export const cloudMaskTool = defineTool({
  id: 'cloud_mask',
  params: {
    image: { kind: 'raster', required: true },
    qa: { kind: 'band', description: 'Sentinel-2 SCL or Landsat QA_PIXEL band' },
    sensor: { kind: 'string', enum: [...SENSORS] },
  },
  async run(ctx) {
    const r = await resolveBands(ctx.args.image, ['qa'], { qa: ctx.args.qa, sensor: ctx.args.sensor }, { cwd: ctx.cwd, signal: ctx.signal });
    try {
      const b = r.qa;
      const desc = (b.dataset.bandDescriptions[b.band - 1] ?? '').toLowerCase();
      let sensor: string | undefined = ctx.args.sensor;
      // A QA band delivered as its own file says what it is by its name (…_SCL_20m.tif, …_QA_PIXEL.TIF).
      const named = b.dataset.bandCount === 1 ? bandFileOf(b.dataset.source) : undefined;
      if (!sensor) sensor = desc.includes('scl') ? 'sentinel2_l2a' : desc.includes('qa_pixel') ? 'landsat89_c2l2' : named?.role === 'qa' ? named.sensor : undefined;
      // Landsat 4-7 QA_PIXEL has the same cloud, shadow and dilated-cloud bits (bit 2, cirrus, stays 0).
      if (sensor === 'landsat457_c2l2') sensor = 'landsat89_c2l2';
      // A MOD09 state field named after `#` (MOD09A1.hdf#sur_refl_state_500m, MOD09GA.hdf#state_1km_1).
      const modis = !ctx.args.sensor && b.dataset.bandCount === 1 && isModisState(b.dataset.source);
      if (modis) return await modisCloudMask(ctx, b);
      if (sensor !== 'sentinel2_l2a' && sensor !== 'landsat89_c2l2') {
        throw new Error(`cloud_mask: cannot tell how to read QA band ${b.band} of ${b.dataset.source}${sensor ? ` for sensor ${sensor} (no QA band)` : ''}; pass --arg sensor=sentinel2_l2a (SCL) or --arg sensor=landsat89_c2l2 (QA_PIXEL)`);
      }
      const kernel: KernelSpec = sensor === 'sentinel2_l2a' ? { type: 'scl', classes: [3, 8, 9, 10] } : { type: 'qabits', bits: [1, 2, 3, 4] };
      const { run, out, ql } = await pixelTool(ctx, b.dataset, [{ source: b.dataset.source, band: b.band }], kernel, { name: 'cloud_mask', output: 'cloud mask', mask: true, maskLabels: { yes: 'cloud, shadow or cirrus', no: 'clear' } });
      const d = describeMask(run.stats, sensor === 'sentinel2_l2a' ? 'cloud, cloud shadow or cirrus (SCL 3, 8, 9, 10)' : 'cloud, shadow or cirrus (QA_PIXEL bits 1-4)',
        projectedPixelArea(b.dataset));
      d.stats.sensor = sensor; d.stats.qa_band = b.band;
      return { tool: 'cloud_mask', outputs: { mask: rasterOutput(out, ['mask', 'cloud'], '1 = cloud/shadow/cirrus, 0 = clear') }, stats: d.stats, summary: d.summary, quicklook: ql };
    } finally { await closeResolved(r); }
  },
});

/** A MOD09 state QA field by its name after `#`: `state_1km` (MOD09GA: `state_1km_1`), `sur_refl_state_500m`, `sur_refl_state_250m`. */
export function isModisState(source: string): boolean {
  return /#(?:state_1km(?:_1)?|sur_refl_state_(?:500m|250m))$/i.test(source);
}

/** cloud_mask over a MOD09 state field: its cloud state, shadow, cirrus and internal cloud bits (kernels.ts). */
async function modisCloudMask(ctx: ToolContext, b: ResolvedBand): Promise<ToolRunResult> {
  const { run, out, ql } = await pixelTool(ctx, b.dataset, [{ source: b.dataset.source, band: b.band }], { type: 'modis_state' }, { name: 'cloud_mask', output: 'cloud mask', mask: true, maskLabels: { yes: 'cloud, shadow or cirrus', no: 'clear' } });
  const d = describeMask(run.stats, 'cloud, cloud shadow or cirrus (MODIS state: cloudy or mixed, shadow, average or high cirrus, internal cloud flag)', projectedPixelArea(b.dataset));
  d.stats.sensor = 'modis_state'; d.stats.qa_band = b.band;
  return { tool: 'cloud_mask', outputs: { mask: rasterOutput(out, ['mask', 'cloud'], '1 = cloud/shadow/cirrus, 0 = clear') }, stats: d.stats, summary: d.summary, quicklook: ql };
}

export const applyMaskTool = defineTool({
  id: 'apply_mask',
  params: {
    image: { kind: 'raster', required: true, single: true },
    mask: { kind: 'raster', required: true, single: true },
    invert: { kind: 'boolean', default: false, description: 'keep pixels where the mask is 0 instead of 1' },
  },
  async run(ctx) {
    const ds = await openRaster(ctx.args.image, { signal: ctx.signal });
    let mk: RasterDataset | undefined;
    try {
      mk = await openRaster(ctx.args.mask, { signal: ctx.signal });
      assertSameGrid(ds, mk, 'image', 'mask');
      const { invert } = ctx.args;
      const inputs: InputRef[] = Array.from({ length: ds.bandCount }, (_, i) => ({ source: ds.source, band: i + 1 }));
      inputs.push({ source: mk.source, band: 1 });
      const descriptions = ds.bandDescriptions.map((d, i) => d ?? `band ${i + 1}`);
      const { run, out, ql } = await pixelTool(ctx, ds, inputs, { type: 'apply_mask', invert }, { name: 'masked', output: 'masked', mask: false, bands: ds.bandCount, descriptions });
      const r = run.stats.result();
      const kept = r.valid / r.count;
      const d = describeContinuous(run.stats, descriptions[0]);
      d.stats.kept_fraction = Math.round(kept * 10_000) / 10_000;
      const summary = `Kept ${Math.round(kept * 1000) / 10}% of pixels (where the mask is ${invert ? '0' : '1'}); ${d.summary}`;
      return { tool: 'apply_mask', outputs: { masked: rasterOutput(out, ['masked'], `${descriptions.join(', ')} where mask ${invert ? '= 0' : '= 1'}`) }, stats: d.stats, summary, quicklook: ql };
    } finally { await ds.close(); await mk?.close(); }
  },
});
