/**
 * accuracy_assessment: confusion matrix of a class raster against reference data (points, polygons
 * or a reference class raster on the same grid), with overall accuracy, producer's accuracy (per
 * reference class: correct / reference total), user's accuracy (per map class: correct / mapped
 * total) and Cohen's kappa = (po − pe) / (1 − pe), pe = Σ row·col / N². Rows are the reference,
 * columns the map. Samples where the map is nodata are counted apart, not in the matrix.
 */
import { defineTool, type ToolContext } from './types';
import type { ResolvedBand } from '../bands';
import { resolveRoles, closeResolved, outPath, writeCsv, assertSameGrid, checkAbort, labelsFromDescription, sig } from './analysis-support';
import { readResolved } from '../bands';
import { labelledPixels, valuesAt } from './label-samples';
import { stripRowsFor } from './strip-support';
import { pct } from '../stats';

export interface Accuracy {
  classes: number[];
  /** matrix[r][c]: samples of reference class classes[r] mapped as classes[c]. */
  matrix: number[][];
  total: number;
  overall: number;
  kappa: number;
  producers: (number | null)[];
  users: (number | null)[];
}

/** Confusion counts: counts.get(reference).get(map) = samples. */
export type Counts = Map<number, Map<number, number>>;

/** Most distinct classes a confusion matrix may have: more means a continuous raster, not a class map. */
export const MAX_CLASSES = 1000;

/** Throws when the pairs so far hold more than MAX_CLASSES classes on either side. */
export function assertClassLike(counts: Counts, mapSource: string, refSource: string): void {
  const mapped = new Set<number>();
  for (const row of counts.values()) for (const m of row.keys()) mapped.add(m);
  if (counts.size > MAX_CLASSES) throw new Error(`argument "reference": ${refSource} holds more than ${MAX_CLASSES} distinct classes; it looks like a continuous raster, not reference classes`);
  if (mapped.size > MAX_CLASSES) throw new Error(`argument "image": ${mapSource} holds more than ${MAX_CLASSES} distinct classes; give a class map (classify or reclassify first)`);
}

export function addPair(counts: Counts, ref: number, map: number): void {
  let row = counts.get(ref);
  if (!row) { row = new Map(); counts.set(ref, row); }
  row.set(map, (row.get(map) ?? 0) + 1);
}

/** Metrics of a confusion matrix given as (reference, map) pairs. */
export function accuracyOf(ref: ArrayLike<number>, map: ArrayLike<number>): Accuracy {
  const counts: Counts = new Map();
  for (let i = 0; i < ref.length; i++) addPair(counts, ref[i], map[i]);
  return accuracyFromCounts(counts);
}

export function accuracyFromCounts(counts: Counts): Accuracy {
  const set = new Set<number>();
  for (const [r, row] of counts) { set.add(r); for (const m of row.keys()) set.add(m); }
  const classes = [...set].sort((a, b) => a - b);
  const K = classes.length;
  const matrix = classes.map((r) => classes.map((m) => counts.get(r)?.get(m) ?? 0));
  const rows = matrix.map((r) => r.reduce((a, b) => a + b, 0));
  const cols = classes.map((_, c) => matrix.reduce((a, r) => a + r[c], 0));
  const N = rows.reduce((a, b) => a + b, 0);
  let diag = 0, chance = 0;
  for (let k = 0; k < K; k++) { diag += matrix[k][k]; chance += rows[k] * cols[k]; }
  const po = N ? diag / N : NaN, pe = N ? chance / (N * N) : NaN;
  return {
    classes, matrix, total: N, overall: po, kappa: pe < 1 ? (po - pe) / (1 - pe) : (po === 1 ? 1 : NaN),
    producers: matrix.map((r, k) => (rows[k] ? r[k] / rows[k] : null)),
    users: matrix.map((_, k) => (cols[k] ? matrix[k][k] / cols[k] : null)),
  };
}

/** Class code of a reference value: numbers as they are; names through the map's "code=label" band description. */
function codeResolver(mapBand: ResolvedBand, arg: string): (v: string | number) => number {
  const labels = labelsFromDescription(mapBand.dataset.bandDescriptions[mapBand.band - 1]);
  const byName = new Map(Object.entries(labels ?? {}).map(([k, v]) => [v.toLowerCase(), Number(k)]));
  return (v) => {
    if (typeof v === 'number') return v;
    const c = byName.get(v.toLowerCase());
    if (c === undefined) {
      throw new Error(`argument "${arg}": the class "${v}" is not a number and ${mapBand.dataset.source} names no class so${labels ? ` (its classes: ${Object.entries(labels).map(([k, l]) => `${k}=${l}`).join(', ')})` : ' (its band description has no "code=label" list)'}; use the map's class codes in the reference`);
    }
    return c;
  };
}

export const accuracyAssessmentTool = defineTool({
  id: 'accuracy_assessment',
  params: {
    image: { kind: 'raster', required: true, description: 'classified raster (class codes)' },
    reference: { kind: 'zones', required: true, description: 'reference points or polygons (GeoJSON, Shapefile, GeoPackage in any CRS, or KML) with the true class, or a reference class raster on the same grid (0/nodata = no reference)' },
    class_field: { kind: 'string', description: 'attribute holding the true class (code, or a name the map\'s band description lists); required for points/polygons' },
    band: { kind: 'band', default: 1 },
  },
  async run(ctx) {
    const M = await resolveRoles(ctx, 'image', ctx.args.image, ['band'], { band: ctx.args.band });
    try {
      const mapBand = M.band, ds = mapBand.dataset;
      const refArg = ctx.args.reference;
      const counts: Counts = new Map();
      let kind: string, outside = 0, note: string | undefined, samples = 0, unclassified = 0;
      if (refArg.type === 'vector') {
        const field = ctx.args.class_field;
        if (!field) throw new Error('argument "class_field" is required with reference points or polygons: name the attribute holding the true class');
        ctx.progress(0, 'reading reference');
        const L = labelledPixels(ctx, refArg.path, ds, 'reference', field);
        const code = codeResolver(mapBand, 'reference');
        const ref = Float64Array.from(L.values, (v) => code(v));
        const [map] = await valuesAt(ctx, [mapBand], L.xs, L.ys);
        for (let i = 0; i < ref.length; i++) { samples++; if (map[i] === map[i]) addPair(counts, ref[i], map[i]); else unclassified++; }
        assertClassLike(counts, ds.source, refArg.path);
        kind = L.kind; outside = L.outside; note = L.note;
      } else {
        if (ctx.args.class_field !== undefined) throw new Error('argument "class_field" only applies to reference points or polygons; a reference raster holds the classes itself');
        ({ samples, unclassified } = await rasterPairs(ctx, mapBand, refArg.path, counts));
        kind = 'raster';
      }
      if (samples === unclassified) throw new Error(`no reference sample falls on a classified pixel of ${ds.source} (${samples} samples${outside ? `, ${outside} off the raster` : ''}); check that the reference covers the map`);
      const a = accuracyFromCounts(counts);
      const names = labelsFromDescription(ds.bandDescriptions[mapBand.band - 1]) ?? {};
      const name = (c: number) => (names[c] ? `${c} (${names[c]})` : String(c));
      const rows: Record<string, unknown>[] = a.classes.map((c, r) => {
        const row: Record<string, unknown> = { reference: name(c) };
        a.classes.forEach((m, k) => { row[`map_${m}`] = a.matrix[r][k]; });
        row.total = a.matrix[r].reduce((x, y) => x + y, 0);
        row.producers_accuracy = a.producers[r];
        return row;
      });
      const colTotals: Record<string, unknown> = { reference: 'total' };
      a.classes.forEach((m, k) => { colTotals[`map_${m}`] = a.matrix.reduce((s, r) => s + r[k], 0); });
      colTotals.total = a.total;
      const users: Record<string, unknown> = { reference: 'users_accuracy' };
      a.classes.forEach((m, k) => { users[`map_${m}`] = a.users[k]; });
      users.total = a.overall; users.producers_accuracy = a.kappa;
      const columns = ['reference', ...a.classes.map((m) => `map_${m}`), 'total', 'producers_accuracy'];
      const file = writeCsv(outPath(ctx, 'accuracy_assessment', 'report', 'csv'), columns, [...rows, colTotals, users]);
      const perClass = a.classes.map((c, k) => ({ class: c, ...(names[c] ? { label: names[c] } : {}), reference: rows[k].total, mapped: colTotals[`map_${c}`], producers_accuracy: a.producers[k], users_accuracy: a.users[k] }));
      const ranked = perClass.filter((p) => p.producers_accuracy !== null).sort((x, y) => (x.producers_accuracy as number) - (y.producers_accuracy as number));
      const worst = ranked[0];
      return {
        tool: 'accuracy_assessment',
        outputs: { report: { path: file, type: 'table', description: 'confusion matrix (rows reference, columns map) with producer\'s and user\'s accuracy; the last row holds user\'s accuracy, overall accuracy (total) and kappa (producers_accuracy)' } },
        stats: {
          overall_accuracy: a.overall, kappa: a.kappa, samples: a.total, reference_kind: kind, classes: a.classes, confusion_matrix: a.matrix,
          per_class: perClass, unclassified_samples: unclassified, ...(outside ? { outside_samples: outside } : {}), ...(note ? { crs_note: note } : {}),
        },
        summary: `Against ${a.total} reference ${kind === 'points' ? 'points' : 'pixels'} the map is ${pct(a.overall)} correct (kappa ${sig(a.kappa, 3)})`
          + (worst && a.classes.length > 1 ? `; the weakest class is ${name(worst.class)}, of which ${pct(worst.producers_accuracy as number)} is mapped right (user's accuracy ${worst.users_accuracy === null ? 'n/a' : pct(worst.users_accuracy)})` : '')
          + `.${unclassified ? ` ${unclassified} samples fall on unclassified (nodata) pixels and are left out.` : ''}${outside ? ` ${outside} reference ${kind === 'points' ? 'points lie' : 'polygons lie'} off the map.` : ''}`,
      };
    } finally { await closeResolved(M); }
  },
});

/** (reference, map) per pixel where the reference raster has a class (not 0, not nodata). */
async function rasterPairs(ctx: ToolContext, mapBand: ResolvedBand, refPath: string, counts: Counts): Promise<{ samples: number; unclassified: number }> {
  const R = await resolveRoles(ctx, 'reference', refPath, ['band'], { band: 1 });
  try {
    const ds = mapBand.dataset;
    assertSameGrid(ds, 'image', R.band.dataset, 'reference');
    let samples = 0, unclassified = 0;
    const step = stripRowsFor(ds);
    for (let y0 = 0; y0 < ds.height; y0 += step) {
      checkAbort(ctx.signal);
      const rows = Math.min(step, ds.height - y0);
      const r = await readResolved(R.band, 0, y0, ds.width, rows, ctx.signal);
      const m = await readResolved(mapBand, 0, y0, ds.width, rows, ctx.signal);
      for (let i = 0; i < r.length; i++) {
        if (!(r[i] === r[i] && r[i] !== 0)) continue;
        samples++;
        if (m[i] === m[i]) addPair(counts, r[i], m[i]); else unclassified++;
      }
      assertClassLike(counts, ds.source, R.band.dataset.source);
      ctx.progress((y0 + rows) / ds.height);
    }
    return { samples, unclassified };
  } finally { await closeResolved(R); }
}
