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
import { QA_RULES, type QaRule, type LandQaField, landQaField, qaWhat, viirsSibling } from '../land-qa';
import * as path from 'node:path';

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
    rule: { kind: 'string', enum: [...QA_RULES], description: 'MODIS/VIIRS QA fields: cloud (default: cloud, shadow, cirrus; MOD13 reliability 3), cloud_snow (also snow/ice), strict (also marginal, probably clear, small cirrus, adjacent cloud)' },
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
      // A MODIS/VIIRS QA field named after `#` (MOD09A1.hdf#sur_refl_state_500m, MOD13Q1.hdf#250m 16 days
      // pixel reliability, MCD43A4.hdf#BRDF_Albedo_Band_Mandatory_Quality_Band1, VNP09GA.h5#SurfReflect_QF1_1):
      // read by its product's bit rule (land-qa.ts). An explicit sensor wins.
      const qa = !ctx.args.sensor && b.dataset.bandCount === 1 ? landQaField(b.dataset.source) : undefined;
      if (qa) return await landQaMask(ctx, b, qa, (ctx.args.rule ?? 'cloud') as QaRule);
      if (ctx.args.rule !== undefined) {
        throw new Error(`cloud_mask: argument "rule" applies to MODIS/VIIRS quality fields named after # (${QA_EXAMPLES}), not to band ${b.band} of ${b.dataset.source}; leave it out for SCL or QA_PIXEL`);
      }
      if (sensor !== 'sentinel2_l2a' && sensor !== 'landsat89_c2l2') {
        const field = b.dataset.source.includes('#') && !ctx.args.sensor ? `; a MODIS/VIIRS quality field is read by name: ${QA_EXAMPLES}` : '';
        throw new Error(`cloud_mask: cannot tell how to read QA band ${b.band} of ${b.dataset.source}${sensor ? ` for sensor ${sensor} (no QA band)` : ''}; pass --arg sensor=sentinel2_l2a (SCL) or --arg sensor=landsat89_c2l2 (QA_PIXEL)${field}`);
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

/** A MOD09 state QA field by its name after `#`: `state_1km` (MOD09GA: `state_1km_1`), `sur_refl_state_500m`, `sur_refl_state_250m` (and VNP09H1/A1's `SurfReflect_State…`). */
export function isModisState(source: string): boolean {
  return landQaField(source)?.kind === 'modis_state';
}

const QA_EXAMPLES = 'MOD09 sur_refl_state_500m/state_1km, VNP09H1 SurfReflect_State_500m, MOD13 "250m 16 days pixel reliability" or "250m 16 days VI Quality", MCD43A4 BRDF_Albedo_Band_Mandatory_Quality_Band1…7, VNP09GA SurfReflect_QF1_1/SurfReflect_QF2_1';

/** The mask's legend and output description per product (1 = what is flagged). */
function labels(kind: LandQaField['kind']): { yes: string; no: string; out: string } {
  if (kind === 'mod13_reliability') return { yes: 'flagged by pixel reliability', no: 'kept', out: '1 = flagged by MOD13 pixel reliability (see rule), 0 = kept' };
  if (kind === 'mod13_vi_quality') return { yes: 'flagged by VI Quality', no: 'kept', out: '1 = flagged by MOD13 VI Quality bits (see rule), 0 = kept' };
  if (kind === 'mcd43_quality') return { yes: 'magnitude inversion (lower quality)', no: 'full BRDF inversion', out: '1 = magnitude inversion (lower quality), 0 = full BRDF inversion' };
  return { yes: 'cloud, shadow or cirrus', no: 'clear', out: '1 = cloud/shadow/cirrus, 0 = clear' };
}

/**
 * cloud_mask over a MODIS/VIIRS QA field by its product's rule (land-qa.ts). VIIRS QF1 and QF2 are
 * one mask: the other of the pair is read beside the one named when the file has it (cloud from QF1,
 * shadow and cirrus from QF2), so `…#SurfReflect_QF1_1` alone masks what an analyst means by cloud.
 */
async function landQaMask(ctx: ToolContext, b: ResolvedBand, qa: LandQaField, rule: QaRule): Promise<ToolRunResult> {
  const source = b.dataset.source;
  if (qa.kind === 'mcd43_quality' && rule !== 'cloud') {
    throw new Error(`cloud_mask: argument "rule" (${rule}) does not apply to ${source}: MCD43 mandatory quality has one rule (1 = magnitude inversion, 0 = full inversion); leave "rule" out`);
  }
  const inputs: InputRef[] = [{ source, band: b.band }];
  let kernel: KernelSpec;
  let qfs: (1 | 2)[] = [];
  const fields = [qa.field];
  let note: string | undefined;
  if (qa.kind === 'viirs_qf') {
    qfs = [qa.qf!];
    const other = viirsSibling(source, qa.qf!);
    const sib = await openSibling(other, b.dataset, ctx.signal);
    if (sib) { inputs.push({ source: other, band: 1 }); qfs.push(qa.qf === 1 ? 2 : 1); fields.push(other.slice(other.lastIndexOf('#') + 1)); }
    else note = `${path.basename(source.slice(0, source.lastIndexOf('#')))} has no ${other.slice(other.lastIndexOf('#') + 1)}: the mask is from ${qa.field} alone`;
    kernel = { type: 'viirs_qf', rule, qfs };
  } else if (qa.kind === 'mod13_reliability') kernel = { type: 'mod13_reliability', rule };
  else if (qa.kind === 'mod13_vi_quality') kernel = { type: 'mod13_vi_quality', rule };
  else if (qa.kind === 'mcd43_quality') kernel = { type: 'mcd43_quality' };
  else kernel = rule === 'cloud' ? { type: 'modis_state' } : { type: 'modis_state', rule };
  const l = labels(qa.kind);
  const { run, out, ql } = await pixelTool(ctx, b.dataset, inputs, kernel, { name: 'cloud_mask', output: qa.kind === 'mcd43_quality' ? 'quality mask' : 'cloud mask', mask: true, maskLabels: { yes: l.yes, no: l.no } });
  const d = describeMask(run.stats, qaWhat(qa.kind, rule, qfs.length ? qfs : undefined), projectedPixelArea(b.dataset));
  d.stats.sensor = qa.kind; d.stats.qa_band = b.band; d.stats.qa_field = qa.field;
  if (qa.kind !== 'mcd43_quality') d.stats.rule = rule;
  if (qfs.length) d.stats.qa_fields = fields;
  // The summary's words already say which fields made the mask ("cloud (VIIRS QF1 …)"); the why is in stats.
  if (note) d.stats.note = note;
  return { tool: 'cloud_mask', outputs: { mask: rasterOutput(out, ['mask', 'cloud'], l.out) }, stats: d.stats, summary: d.summary, quicklook: ql };
}

/**
 * The other VIIRS QF field of the pair, checked to be on the QA field's grid; undefined when the file
 * has no such field (the message says "holds no grid field"). Any other failure (a damaged file) is
 * the tool's failure, so a mask never silently drops the shadow and cirrus bits of a broken field.
 */
async function openSibling(source: string, like: RasterDataset, signal?: AbortSignal): Promise<boolean> {
  let ds: RasterDataset;
  try { ds = await openRaster(source, { signal }); } catch (e) {
    if (/holds no (?:grid|gridded) field "/.test((e as Error).message)) return false;
    throw e;
  }
  try {
    if (ds.width !== like.width || ds.height !== like.height || ds.bandCount !== 1) {
      throw new Error(`cloud_mask: ${source} is ${ds.width}×${ds.height} in ${ds.bandCount} band(s), not on the grid of ${like.source} (${like.width}×${like.height}); the file is damaged or not a VNP09GA file: download it again`);
    }
    return true;
  } finally { await ds.close(); }
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
