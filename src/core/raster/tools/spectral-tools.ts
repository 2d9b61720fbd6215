/** ndvi, evi, savi, ndwi, mndwi, ndbi, nbr, ndmi, ndsi, ndci: one factory over the shared formulas. */
import { resolveBands, closeResolved, SENSORS, ResolvedBand } from '../bands';
import { INDICES, IndexId } from '../spectral';
import { runPixels } from '../pipeline/run-pixels';
import { renderQuicklook } from '../quicklook';
import { assertSameGrid, inputStem, isStriped, outPath, rasterOutput } from './common';
import { describeContinuous } from './summary';
import type { ArgsOf, BuiltinTool, ToolParams } from './types';
import { DEFAULT_FLOAT_NODATA } from '../io/writer';

const INTEGER_TYPES = new Set(['uint8', 'int8', 'uint16', 'int16', 'uint32', 'int32', 'uint64', 'int64']);

/** What every index tool takes; each adds a band parameter per role of its formula (savi also L). */
const COMMON_PARAMS = {
  image: { kind: 'raster', required: true, description: 'multispectral image, COG URL or {role: path} mapping' },
  sensor: { kind: 'string', enum: SENSORS, description: 'sensor preset for band roles and scaling' },
} as const satisfies ToolParams;

/** The role parameters differ per index, so only the common ones (and savi's L) are typed. */
type IndexArgs = ArgsOf<typeof COMMON_PARAMS> & { L?: number };

function makeIndexTool(id: IndexId): BuiltinTool {
  const def = INDICES[id];
  const params: ToolParams = { ...COMMON_PARAMS };
  for (const r of def.roles) params[r] = { kind: 'band', description: `${r} band (1-based index or role name)` };
  if (id === 'savi') params.L = { kind: 'number', default: 0.5, description: 'soil brightness correction factor' };
  return {
    id,
    params,
    async run(ctx) {
      const { image, L } = ctx.args as IndexArgs;
      // The role band arguments and sensor are looked up by role name.
      const resolved = await resolveBands(image, def.roles, ctx.args, { cwd: ctx.cwd, signal: ctx.signal });
      try {
        const first = resolved[def.roles[0]].dataset;
        for (const r of def.roles.slice(1)) assertSameGrid(first, resolved[r].dataset, def.roles[0], r);
        const notes: string[] = [];
        const inputs = def.roles.map((role) => {
          const b: ResolvedBand = resolved[role];
          let scale = b.scale, offset = b.offset;
          // EVI/SAVI constants assume reflectance: integer DNs without any declared scale are taken as reflectance × 10000.
          if (def.needsReflectance && scale === undefined && INTEGER_TYPES.has(b.dataset.dtype)
            && b.dataset.scales[b.band - 1] === 1 && b.dataset.offsets[b.band - 1] === 0) {
            scale = 0.0001; offset = 0;
            if (!notes.length) notes.push('integer DNs were read as reflectance × 10000 (pass sensor= for Landsat scaling)');
          }
          return { source: b.dataset.source, band: b.band, scale, offset };
        });
        const out = outPath(ctx, id);
        const run = await runPixels({
          inputs, kernel: { type: 'index', id, L: id === 'savi' ? L : undefined },
          width: first.width, height: first.height, geo: first.geo,
          outPath: out, outDtype: 'float32', outBands: 1, nodata: DEFAULT_FLOAT_NODATA, descriptions: [id],
          signal: ctx.signal, progress: (f) => ctx.progress(f * 0.95),
          rowAffinity: def.roles.some((r) => isStriped(resolved[r].dataset)),
        });
        const { stats, summary } = describeContinuous(run.stats, def.name, { low: def.low, high: def.high });
        stats.bands = Object.fromEntries(def.roles.map((r) => [r, { file: resolved[r].dataset.source, band: resolved[r].band, how: resolved[r].how }]));
        if (notes.length) stats.notes = notes;
        // Product metadata that was ignored, named: the scaling came from the file name instead.
        const warnings = [...new Set(def.roles.flatMap((r) => resolved[r].warnings ?? []))];
        if (warnings.length) stats.warnings = warnings;
        const ql = outPath(ctx, id, 'png');
        await renderQuicklook(ql, run.preview.data, run.preview.w, run.preview.h, { kind: 'index', title: `${def.name} ${inputStem(ctx.args)}` });
        ctx.progress(1);
        return { tool: id, outputs: { index: rasterOutput(out, ['index', id], `${def.name}: ${def.description}`) }, stats, summary, quicklook: ql };
      } finally {
        await closeResolved(resolved);
      }
    },
  };
}


export const ndviTool = makeIndexTool('ndvi');
export const eviTool = makeIndexTool('evi');
export const saviTool = makeIndexTool('savi');
export const ndwiTool = makeIndexTool('ndwi');
export const mndwiTool = makeIndexTool('mndwi');
export const ndbiTool = makeIndexTool('ndbi');
export const nbrTool = makeIndexTool('nbr');
export const ndmiTool = makeIndexTool('ndmi');
export const ndsiTool = makeIndexTool('ndsi');
export const ndciTool = makeIndexTool('ndci');
