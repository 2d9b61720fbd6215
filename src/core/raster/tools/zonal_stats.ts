/** zonal_stats: statistics of one band per zone (class raster zones or GeoJSON polygons). */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BuiltinTool, ToolContext } from './types';
import { zonalByClass, ZoneAccumulator, rasterizePolygon } from '../algorithms/zonal';
import type { Ring } from '../algorithms/vectorize';
import { loadBand, outPath, writeCsv, assertSameGrid, gt, rowAreas, checkAbort, sig, areaText } from './analysis-support';

interface Zone { key: string; props: Record<string, unknown>; acc: ZoneAccumulator; m2: number }

function geojsonEpsg(doc: any): number | 'crs84' | undefined {
  const name: string | undefined = doc?.crs?.properties?.name;
  if (!name) return undefined;
  if (/CRS84$/i.test(name) || /EPSG:{1,2}4326$/.test(name)) return 'crs84';
  const m = /EPSG:{1,2}(\d+)/i.exec(name);
  return m ? Number(m[1]) : undefined;
}

function polygonsOf(geom: any, file: string, idx: number): Ring[][] {
  if (!geom) return [];
  if (geom.type === 'Polygon') return [geom.coordinates];
  if (geom.type === 'MultiPolygon') return geom.coordinates;
  throw new Error(`argument "zones": feature ${idx} in ${file} is a ${geom.type}; zones must be Polygon or MultiPolygon`);
}

async function vectorZones(ctx: ToolContext, file: string, like: { w: number; h: number; ds: any; data: Float32Array }): Promise<Zone[]> {
  let doc: any;
  try { doc = JSON.parse(fs.readFileSync(file, 'utf8')); } catch (e) {
    throw new Error(`argument "zones": cannot read GeoJSON ${file}: ${e instanceof Error ? e.message : e}`);
  }
  const feats: any[] = doc?.type === 'FeatureCollection' ? doc.features : doc?.type === 'Feature' ? [doc] : [];
  if (!Array.isArray(feats) || feats.length === 0) throw new Error(`argument "zones": ${file} has no features`);
  const epsg = geojsonEpsg(doc);
  const rasterEpsg = like.ds.geo.epsg;
  const rasterGeographic = like.ds.geo.geographic;
  const vecGeographic = epsg === 'crs84' || epsg === undefined;
  if (vecGeographic !== rasterGeographic || (typeof epsg === 'number' && rasterEpsg !== undefined && epsg !== rasterEpsg)) {
    throw new Error(`argument "zones": ${file} is in ${epsg === undefined ? 'lon/lat (no crs member, RFC 7946)' : epsg === 'crs84' ? 'lon/lat' : `EPSG:${epsg}`} but ${like.ds.source} is in ${rasterEpsg ? `EPSG:${rasterEpsg}` : 'another CRS'}; reproject the polygons (vector_convert / ogr2ogr -t_srs) first`);
  }
  const rowA = rowAreas(like.ds);
  const g = gt(like.ds);
  return feats.map((f, k) => {
    if (k % 16 === 0) checkAbort(ctx.signal);
    const props = { ...(f.properties ?? {}) };
    const acc = new ZoneAccumulator();
    let m2 = 0;
    for (const poly of polygonsOf(f.geometry, file, k)) {
      rasterizePolygon(poly, g, like.w, like.h, (i) => { acc.add(like.data[i]); m2 += rowA[Math.floor(i / like.w)]; });
    }
    const key = String(props.id ?? f.id ?? k + 1);
    return { key, props, acc, m2 };
  });
}

export const zonalStatsTool: BuiltinTool = {
  id: 'zonal_stats',
  params: {
    image: { kind: 'raster', required: true, description: 'values raster' },
    zones: { kind: 'string', required: true, description: 'class raster (zone = value, 0/nodata ignored) or GeoJSON polygons in the raster\'s CRS' },
    band: { kind: 'band', default: 1 },
  },
  async run(ctx) {
    const vals = await loadBand(ctx, 'image');
    const zonesArg = String(ctx.args.zones);
    const zonesPath = path.resolve(ctx.cwd, zonesArg);
    const isVector = /\.(geo)?json$/i.test(zonesArg);
    let zones: Zone[];
    let kind: 'polygons' | 'classes';
    if (isVector) {
      if (!fs.existsSync(zonesPath)) throw new Error(`argument "zones": ${zonesPath} not found`);
      zones = await vectorZones(ctx, zonesPath, vals);
      kind = 'polygons';
    } else {
      const z = await loadBand({ ...ctx, args: { ...ctx.args, band: 1 } }, 'zones');
      assertSameGrid(vals.ds, 'image', z.ds, 'zones');
      const accs = zonalByClass(vals.data, z.data);
      const rowA = rowAreas(vals.ds);
      const m2 = new Map<number, number>();
      for (let i = 0; i < z.data.length; i++) {
        const v = z.data[i];
        if (v === v && v !== 0) m2.set(v, (m2.get(v) ?? 0) + rowA[Math.floor(i / z.w)]);
      }
      zones = [...accs.entries()].sort((a, b) => a[0] - b[0]).map(([v, acc]) => ({ key: String(v), props: { zone: v }, acc, m2: m2.get(v) ?? 0 }));
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
    const label = (r: Record<string, unknown>) => {
      const id = r.id ?? r.zone;
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
      summary = `Across ${rows.length} ${kind === 'polygons' ? 'polygons' : 'zones'} (${areaText(zones.reduce((a, z) => a + z.m2, 0))}), the zone mean ranges from ${sig(lo.mean as number)} in ${label(lo)} to ${sig(hi.mean as number)} in ${label(hi)}; the pixel-weighted mean is ${sig(s / n)}.`;
      const empty = rows.length - withData.length;
      if (empty) summary += ` ${empty} zone${empty > 1 ? 's have' : ' has'} no valid pixels.`;
    }
    return {
      tool: 'zonal_stats',
      outputs: { table: { path: file, type: 'table', description: `statistics of ${vals.ds.source} band ${vals.band} per zone` } },
      stats: { zones: rows.length, zone_kind: kind, table: rows },
      summary,
    };
  },
};
