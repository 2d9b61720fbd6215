/** area_by_class: pixels, m², ha, km² and percent per class value (projected or geographic grids). */
import type { BuiltinTool } from './types';
import { areaByClass, ClassArea } from '../algorithms/area';
import { loadBand, outPath, writeCsv, whereOf, rowAreas, areaText, labelsFromDescription, checkAbort } from './analysis-support';

const MAX_CLASSES = 1000;
const cap = (t: string) => t.charAt(0).toUpperCase() + t.slice(1);

export const areaByClassTool: BuiltinTool = {
  id: 'area_by_class',
  params: {
    image: { kind: 'raster', required: true, description: 'class or mask raster' },
    band: { kind: 'band', default: 1 },
  },
  async run(ctx) {
    const b = await loadBand(ctx, 'image');
    const { data, w, h, ds } = b;
    const rowA = rowAreas(ds);
    const acc = new Map<number, ClassArea>();
    const rows = 64;
    for (let y = 0; y < h; y += rows) {
      checkAbort(ctx.signal);
      const n = Math.min(rows, h - y);
      areaByClass(data.subarray(y * w, (y + n) * w), w, n, rowA, y, acc);
      if (acc.size > MAX_CLASSES) {
        throw new Error(`argument "image": ${ds.source} band ${b.band} has more than ${MAX_CLASSES} distinct values; it looks continuous, so reclassify or threshold it first`);
      }
    }
    const labels = labelsFromDescription(ds.bandDescriptions[b.band - 1]);
    const entries = [...acc.values()].sort((a, c) => a.value - c.value);
    const totalM2 = entries.reduce((s, e) => s + e.m2, 0);
    const table = entries.map((e) => ({
      class: e.value,
      pixels: e.pixels,
      m2: Number(e.m2.toFixed(3)),
      ha: Number((e.m2 / 1e4).toFixed(5)),
      km2: Number((e.m2 / 1e6).toFixed(7)),
      percent: totalM2 ? Number(((100 * e.m2) / totalM2).toFixed(4)) : 0,
      ...(labels ? { label: labels[e.value] ?? '' } : {}),
    }));
    const columns = ['class', 'pixels', 'm2', 'ha', 'km2', 'percent', ...(labels ? ['label'] : [])];
    const file = writeCsv(outPath(ctx, 'area_by_class', 'table', 'csv'), columns, table);
    const name = (v: number) => (labels?.[v] ? `${labels[v]} (${v})` : `class ${v}`);
    const byArea = [...table].sort((a, c) => c.m2 - a.m2);
    const parts = byArea.slice(0, 3).map((r) => `${name(r.class)} ${areaText(r.m2)} (${r.percent.toFixed(1)}%)`);
    // Locate the largest class that is neither background 0 nor the majority (masks: the 1s; severity: the burn).
    const focus = byArea.find((r) => r.class !== 0 && r.percent < 50) ?? byArea.find((r) => r.class !== 0) ?? byArea[0];
    const where = focus ? whereOf(w, h, (i) => data[i] === focus.class, (i) => data[i] === data[i]) : '';
    return {
      tool: 'area_by_class',
      outputs: { table: { path: file, type: 'table', description: `area per class of ${ds.source}` } },
      stats: {
        table, total_m2: totalM2, total_ha: totalM2 / 1e4, classes: table.length,
        pixel_area: ds.geo.geographic ? 'WGS84 ellipsoid, per row by latitude' : `${rowA[0]} m² (projected)`,
      },
      summary: `${table.length} classes over ${areaText(totalM2)}: ${parts.join(', ')}${byArea.length > 3 ? ` and ${byArea.length - 3} smaller` : ''}. `
        + (focus ? `${cap(name(focus.class))} lies ${where}.` : ''),
    };
  },
};
