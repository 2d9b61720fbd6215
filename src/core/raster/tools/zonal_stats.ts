/** zonal_stats: statistics of one band per zone (class raster zones or GeoJSON polygons), accumulated strip by strip. */
import { defineTool, type ToolContext } from './types';
import type { ToolRunResult } from '../types';
import { zonalByClass, ZoneAccumulator, preparePolygon, rasterizeRows, PreparedPolygon } from '../algorithms/zonal';
import type { RasterDataset } from '../io/dataset';
import { readVectorLayer, VectorError } from '../vector/read';
import { layerOnRaster, nameAttribute } from '../vector/to-raster';
import type { ZonesArg } from './types';
import { resolveRoles, closeResolved, outPath, writeCsv, assertSameGrid, gt, rowAreas, checkAbort, sig, areaText } from './analysis-support';
import { readResolved, ResolvedBand } from '../bands';
import { stripRowsFor } from './strip-support';

interface Zone { key: string; props: Record<string, unknown>; acc: ZoneAccumulator; m2: number }
interface PolygonZone extends Zone { parts: PreparedPolygon[] }

/** Reads the polygon layer (GeoJSON, Shapefile, GeoPackage; any CRS) and prepares each feature's polygons in pixel space. */
function vectorZones(ctx: ToolContext, file: string, ds: RasterDataset): { zones: PolygonZone[]; note?: string; nameKey?: string } {
  let placed;
  try {
    const layer = readVectorLayer(file);
    if (!layer.features.length) throw new VectorError(`${file} has no features`);
    placed = { layer, ...layerOnRaster(layer, ds, 'zones') };
  } catch (e) {
    const msg = (e as Error).message;
    throw new Error(msg.startsWith('argument') ? msg : `argument "zones": ${msg}`);
  }
  const g = gt(ds, 'zonal_stats');
  const nameKey = nameAttribute(placed.layer.features);
  const zones = placed.features.map(({ feature: f, polygons }, k) => {
    if (k % 16 === 0) checkAbort(ctx.signal);
    const props = { ...f.props };
    const parts = polygons.map((poly) => preparePolygon(poly, g, ds.height));
    return { key: String(props.id ?? f.id), props, acc: new ZoneAccumulator(), m2: 0, parts };
  });
  return { zones, ...(placed.note ? { note: placed.note } : {}), ...(nameKey ? { nameKey } : {}) };
}

/** Streams the value band (and the class band) strip by strip into the zones' accumulators. */
async function accumulate(ctx: ToolContext, vals: ResolvedBand, zoneBand: ResolvedBand | null, polys: PolygonZone[] | null): Promise<Map<number, { acc: ZoneAccumulator; m2: number }>> {
  const ds = vals.dataset;
  const { width: w, height: h } = ds;
  const rowA = rowAreas(ds, 'zonal_stats');
  const step = stripRowsFor(ds);
  const classes = new Map<number, ZoneAccumulator>();
  const m2 = new Map<number, number>();
  for (let y0 = 0; y0 < h; y0 += step) {
    checkAbort(ctx.signal);
    const rows = Math.min(step, h - y0), y1 = y0 + rows;
    const v = await readResolved(vals, 0, y0, w, rows, ctx.signal);
    if (zoneBand) {
      const z = await readResolved(zoneBand, 0, y0, w, rows, ctx.signal);
      zonalByClass(v, z, classes);
      for (let i = 0; i < z.length; i++) {
        const c = z[i];
        if (c === c && c !== 0) m2.set(c, (m2.get(c) ?? 0) + rowA[y0 + Math.floor(i / w)]);
      }
    }
    if (polys) {
      for (const zone of polys) {
        for (const part of zone.parts) {
          if (part.yEnd < y0 || part.yStart >= y1) continue; // bounding rows miss this strip
          rasterizeRows(part, w, y0, y1, (y, x) => { zone.acc.add(v[(y - y0) * w + x]); zone.m2 += rowA[y]; });
        }
      }
    }
    ctx.progress(y1 / h);
  }
  const out = new Map<number, { acc: ZoneAccumulator; m2: number }>();
  for (const [c, acc] of classes) out.set(c, { acc, m2: m2.get(c) ?? 0 });
  return out;
}

export const zonalStatsTool = defineTool({
  id: 'zonal_stats',
  params: {
    image: { kind: 'raster', required: true, description: 'values raster' },
    zones: { kind: 'zones', required: true, description: 'class raster on the same grid (zone = value, 0/nodata ignored), or polygons: GeoJSON, Shapefile (.shp), GeoPackage (.gpkg, "file.gpkg#layer") in any CRS, or KML' },
    band: { kind: 'band', default: 1 },
  },
  async run(ctx) {
    const V = await resolveRoles(ctx, 'image', ctx.args.image, ['band'], { band: ctx.args.band });
    try {
      return await runZonal(ctx, ctx.args.zones, V.band);
    } finally { await closeResolved(V); }
  },
});

async function runZonal(ctx: ToolContext, zonesArg: ZonesArg, valsBand: ResolvedBand): Promise<ToolRunResult> {
    const vals = { ds: valsBand.dataset, band: valsBand.band };
    let zones: Zone[];
    let kind: 'polygons' | 'classes';
    let note: string | undefined, nameKey: string | undefined;
    if (zonesArg.type === 'vector') {
      const v = vectorZones(ctx, zonesArg.path, vals.ds);
      await accumulate(ctx, valsBand, null, v.zones);
      zones = v.zones;
      note = v.note; nameKey = v.nameKey;
      kind = 'polygons';
    } else {
      const Z = await resolveRoles(ctx, 'zones', zonesArg.path, ['band'], { band: 1 });
      try {
        assertSameGrid(vals.ds, 'image', Z.band.dataset, 'zones');
        const accs = await accumulate(ctx, valsBand, Z.band, null);
        zones = [...accs.entries()].sort((a, b) => a[0] - b[0]).map(([v, z]) => ({ key: String(v), props: { zone: v }, acc: z.acc, m2: z.m2 }));
      } finally { await closeResolved(Z); }
      kind = 'classes';
    }
    const propCols = new Set<string>();
    for (const z of zones) for (const [k, v] of Object.entries(z.props)) if (v === null || typeof v !== 'object') propCols.add(k);
    if (!propCols.has('zone') && !propCols.has('id')) propCols.add('zone');
    const rows = zones.map((z) => {
      const r = z.acc.result();
      const row: Record<string, unknown> = { zone: z.key, ...z.props };
      Object.assign(row, {
        count: r.count, nodata_pixels: r.pixels - r.count, area_ha: Number((z.m2 / 1e4).toFixed(4)),
        mean: r.count ? r.mean : null, min: r.count ? r.min : null, max: r.count ? r.max : null, std: r.count ? r.std : null, sum: r.count ? r.sum : null,
      });
      return row;
    });
    const columns = [...propCols, 'count', 'nodata_pixels', 'area_ha', 'mean', 'min', 'max', 'std', 'sum'];
    const file = writeCsv(outPath(ctx, 'zonal_stats', 'table', 'csv'), columns, rows);
    const withData = rows.filter((r) => (r.count as number) > 0);
    const names = new Map<unknown, number>();
    if (nameKey) for (const r of rows) names.set(r[nameKey], (names.get(r[nameKey]) ?? 0) + 1);
    const label = (r: Record<string, unknown>) => {
      const id = r.id ?? r.zone;
      // A name attribute names the zone ("Clervaux"); the id only tells apart zones of the same name.
      if (nameKey && typeof r[nameKey] === 'string' && (r[nameKey] as string).trim()) return `${r[nameKey]}${(names.get(r[nameKey]) ?? 0) > 1 ? ` (${id})` : ''}`;
      const extra = r.crop ?? r.name ?? r.label;
      return `${kind === 'polygons' ? 'zone' : 'class'} ${id}${extra !== undefined ? ` (${extra})` : ''}`;
    };
    let summary: string;
    if (withData.length === 0) summary = `None of the ${rows.length} zones covers a valid pixel of ${vals.ds.source}.`;
    else {
      const hi = withData.reduce((a, b) => ((b.mean as number) > (a.mean as number) ? b : a));
      const lo = withData.reduce((a, b) => ((b.mean as number) < (a.mean as number) ? b : a));
      let n = 0, s = 0;
      for (const r of withData) { n += r.count as number; s += (r.mean as number) * (r.count as number); }
      const across = `Across ${rows.length} ${kind === 'polygons' ? 'polygons' : 'zones'} (${areaText(zones.reduce((a, z) => a + z.m2, 0))})`;
      // One zone with pixels has a mean, not a range ("from 0.005 in p0 to 0.005 in p0").
      summary = withData.length === 1 ? `${across}, only ${label(hi)} covers valid pixels: its mean is ${sig(hi.mean as number)}.`
        : `${across}, the zone mean ranges from ${sig(lo.mean as number)} in ${label(lo)} to ${sig(hi.mean as number)} in ${label(hi)}; the pixel-weighted mean is ${sig(s / n)}.`;
      const empty = rows.length - withData.length;
      if (empty) summary += ` ${empty} zone${empty > 1 ? 's have' : ' has'} no valid pixels.`;
    }
    if (note) summary += ` ${note[0].toUpperCase()}${note.slice(1)}.`;
    return {
      tool: 'zonal_stats',
      outputs: { table: { path: file, type: 'table', description: `statistics of ${vals.ds.source} band ${vals.band} per zone` } },
      stats: { zones: rows.length, zone_kind: kind, table: rows, ...(nameKey ? { name_attribute: nameKey } : {}), ...(note ? { crs_note: note } : {}) },
      summary,
    };
}
