/** area_by_class: pixels, m², ha, km² and percent per class value (projected or geographic grids), read in strips. */
import { defineTool } from './types';
import { areaByClass, ClassArea } from '../algorithms/area';
import { readResolved } from '../bands';
import { resolveRoles, closeResolved, outPath, writeCsv, rowAreas, areaText, labelsFromDescription, checkAbort } from './analysis-support';
import { whereText } from '../stats';
import { pixelArea } from './common';
import { tableColor } from '../io/color-table';
import { hex } from '../../results/palettes';

const MAX_CLASSES = 1000;
const STRIP = 256;
const cap = (t: string) => t.charAt(0).toUpperCase() + t.slice(1);

export const areaByClassTool = defineTool({
  id: 'area_by_class',
  params: {
    image: { kind: 'raster', required: true, description: 'class or mask raster' },
    band: { kind: 'band', default: 1 },
  },
  async run(ctx) {
    const R = await resolveRoles(ctx, 'image', ctx.args.image, ['band'], { band: ctx.args.band });
    try {
      const b = R.band, ds = b.dataset;
      const { width: w, height: h } = ds;
      const rowA = rowAreas(ds, 'area_by_class');
      const acc = new Map<number, ClassArea>();
      const cells = new Map<number, number[]>();
      const validCells = new Array(9).fill(0);
      const cx1 = Math.ceil(w / 3), cx2 = Math.ceil((2 * w) / 3), cy1 = Math.ceil(h / 3), cy2 = Math.ceil((2 * h) / 3);
      for (let y0 = 0; y0 < h; y0 += STRIP) {
        checkAbort(ctx.signal);
        const rows = Math.min(STRIP, h - y0);
        const data = await readResolved(b, 0, y0, w, rows, ctx.signal);
        areaByClass(data, w, rows, rowA, y0, acc);
        if (acc.size > MAX_CLASSES) {
          throw new Error(`argument "image": ${ds.source} band ${b.band} has more than ${MAX_CLASSES} distinct values; it looks continuous, so reclassify or threshold it first`);
        }
        for (let r = 0; r < rows; r++) {
          const rc = y0 + r < cy1 ? 0 : y0 + r < cy2 ? 3 : 6;
          for (let x = 0; x < w; x++) {
            const v = data[r * w + x];
            if (v !== v) continue;
            const cell = rc + (x < cx1 ? 0 : x < cx2 ? 1 : 2);
            validCells[cell]++;
            let c = cells.get(v);
            if (!c) { c = new Array(9).fill(0); cells.set(v, c); }
            c[cell]++;
          }
        }
        ctx.progress(Math.min(1, (y0 + rows) / h));
      }
      // Class names: the band description's code=label pairs, else the file's category names (PAM sidecar).
      const names = ds.categoryNames?.[b.band - 1];
      const palette = b.band === 1 ? ds.colorTable : undefined;
      let labels = labelsFromDescription(ds.bandDescriptions[b.band - 1]);
      if (!labels && names) {
        const named = [...acc.keys()].filter((v) => Number.isInteger(v) && v >= 0 && names[v]).map((v) => [v, names[v]] as [number, string]);
        if (named.length) labels = Object.fromEntries(named);
      }
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
        // The file's own colour of the class (its colour table), for the table's swatches.
        ...(palette && tableColor(palette, e.value) ? { color: hex(tableColor(palette, e.value)!) } : {}),
      }));
      const columns = ['class', 'pixels', 'm2', 'ha', 'km2', 'percent', ...(labels ? ['label'] : [])];
      const file = writeCsv(outPath(ctx, 'area_by_class', 'table', 'csv'), columns, table);
      const name = (v: number) => (labels?.[v] ? `${labels[v]} (${v})` : `class ${v}`);
      const byArea = [...table].sort((a, c) => c.m2 - a.m2);
      const parts = byArea.slice(0, 3).map((r) => `${name(r.class)} ${areaText(r.m2)} (${r.percent.toFixed(1)}%)`);
      // Locate the largest class that is neither background 0 nor the majority (masks: the 1s; severity: the burn).
      const focus = byArea.find((r) => r.class !== 0 && r.percent < 50) ?? byArea.find((r) => r.class !== 0) ?? byArea[0];
      return {
        tool: 'area_by_class',
        outputs: { table: { path: file, type: 'table', description: `area per class of ${ds.source}` } },
        stats: {
          table, total_m2: totalM2, total_ha: totalM2 / 1e4, classes: table.length,
          // An ignored colour table or category-name sidecar, named (the numbers do not depend on them).
          ...(ds.warnings?.length ? { warnings: ds.warnings } : {}),
          pixel_area: ds.geo.geographic ? 'WGS84 ellipsoid, per row by latitude' : rowA[0] !== pixelArea(ds) ? `m² on the ground, per row (the map area of a pixel is ${pixelArea(ds)} CRS units²)` : `${rowA[0]} m² (projected)`,
        },
        summary: table.length === 0
          ? `No valid pixels in ${ds.source} band ${b.band}.`
          : `${table.length} classes over ${areaText(totalM2)}: ${parts.join(', ')}${byArea.length > 3 ? ` and ${byArea.length - 3} smaller` : ''}. `
            + `${cap(name(focus.class))} lies ${whereText(cells.get(focus.class)!, validCells)}.`,
      };
    } finally { await closeResolved(R); }
  },
});
