/** raster_info, raster_stats and quicklook: read-only tools. */
import * as path from 'node:path';
import { openRaster, RasterDataset } from '../io/dataset';
import { resolveBands, closeResolved } from '../bands';
import { StatsAccumulator, num, pct, whereText } from '../stats';
import { renderQuicklook, QuicklookKind, ownLegend } from '../quicklook';
import { inputStem, outPath, readPreview, throwIfAborted, projectedPixelArea } from './common';
import { describeContinuous } from './summary';
import { landsatFromNames, roleOfBand } from '../bands';
import { defineTool } from './types';
import { crsLabelOf } from '../crs/crs';

export const rasterInfoTool = defineTool({
  id: 'raster_info',
  params: { image: { kind: 'raster', required: true, single: true } },
  async run(ctx) {
    const ds = await openRaster(ctx.args.image, { signal: ctx.signal });
    try {
      const g = ds.geo.geoTransform;
      const u = ds.geo.ungeoreferenced;
      const gcps = u ? Math.floor(u.gcps.length / 6) : 0;
      const crsName = crsLabelOf(ds.geo, ds.source);
      const crs = ds.geo.epsg ? `EPSG:${ds.geo.epsg}` : crsName;
      const naming = landsatFromNames(ds.bandDescriptions);
      const bands = ds.bandDescriptions.map((d, i) => ({ index: i + 1, description: d, role: roleOfBand(ds, i, naming) ?? null, scale: ds.scales[i], offset: ds.offsets[i], ...(ds.units?.[i] ? { units: ds.units[i] } : {}), ...fieldMetadata(ds.bandMetadata?.[i]) }));
      const unit = ds.geo.geographic ? '°' : ' m';
      // A rotated grid's pixel is the length of its column and row vectors, not gt[1] and gt[5].
      const size = [Math.hypot(g[1], g[4]), Math.hypot(g[2], g[5])];
      const rotation = g[2] !== 0 || g[4] !== 0 ? Number(((Math.atan2(g[4], g[1]) * 180) / Math.PI).toFixed(6)) : 0;
      const xs = [0, ds.width].flatMap((px) => [0, ds.height].map((py) => g[0] + px * g[1] + py * g[2]));
      const ys = [0, ds.width].flatMap((px) => [0, ds.height].map((py) => g[3] + px * g[4] + py * g[5]));
      const extent = [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
      // As gdalinfo lists them: a COG's overviews, a JPEG 2000's resolution levels (quicklooks and maps read them).
      const overviews = ds.computedOverviews ? [] : ((await ds.overviews?.(ctx.signal).catch(() => undefined)) ?? []).map((o) => [o.width, o.height]);
      const stats = {
        width: ds.width, height: ds.height, bandCount: ds.bandCount, dtype: ds.dtype, crs, epsg: ds.geo.epsg ?? null,
        geographic: ds.geo.geographic, geoTransform: u ? null : g, pixelSize: u ? null : size, ...(u ? { gcps } : {}), ...(rotation ? { rotationDegrees: rotation } : {}), extent,
        nodata: ds.nodata, blockSize: [ds.blockWidth, ds.blockHeight], overviews, bands,
      };
      const roles = bands.filter((b) => b.role).map((b) => `${b.role}=${b.index}`);
      const area = projectedPixelArea(ds);
      const areaKm2 = area === undefined ? null : (area * ds.width * ds.height) / 1e6;
      const where = u ? (gcps ? `placed by ${gcps} ground control points (no map grid: warp it with gdalwarp before tools that need one)` : 'with no georeferencing')
        : `at ${num(size[0])}${size[1] !== size[0] ? `×${num(size[1])}` : ''}${unit}${rotation ? ` (grid rotated ${num(rotation)}°)` : ''}`;
      const summary = `${ds.width}×${ds.height} pixels, ${ds.bandCount} ${ds.dtype} band${ds.bandCount === 1 ? '' : 's'} ${where} in ${crsName}`
        + `${areaKm2 !== null ? ` covering ${num(areaKm2)} km²` : ''}; nodata ${ds.nodata ?? 'not set'}.`
        + (roles.length ? ` Band roles from ${ds.bandRoles?.some((r) => r) ? "the product's band table" : 'descriptions'}: ${roles.join(', ')}.` : ds.bandCount > 1 ? ' Bands have no role descriptions: pass --arg red=3 etc. or sensor=.' : '')
        + (unitsText(ds) ? ` Units: ${unitsText(ds)}.` : '')
        + (overviews.length ? ` Overviews: ${overviews.map(([w, h]) => `${w}×${h}`).join(', ')}.` : '');
      return { tool: 'raster_info', outputs: {}, stats, summary };
    } finally { await ds.close(); }
  },
});

/** What gdalinfo shows of a GRIB field, under its keys: what it is, its level, unit and times. */
const FIELD_KEYS = ['GRIB_ELEMENT', 'GRIB_SHORT_NAME', 'GRIB_COMMENT', 'GRIB_UNIT', 'GRIB_REF_TIME', 'GRIB_VALID_TIME', 'GRIB_FORECAST_SECONDS'];

/**
 * A band's GRIB metadata as gdalinfo lists it (the same strings: times in seconds since 1970), with
 * the reference and valid times also as ISO dates, which an analyst reads. Flat, so the band table
 * shows each as a column; {} for a band without any.
 */
function fieldMetadata(md: Record<string, string> | undefined): Record<string, string> {
  if (!md) return {};
  const out: Record<string, string> = {};
  for (const k of FIELD_KEYS) if (md[k] !== undefined) out[k] = md[k];
  const iso = (s: string | undefined) => (s !== undefined && /^-?\d+$/.test(s.trim()) ? new Date(Number(s) * 1000).toISOString().replace(/\.000Z$/, 'Z') : undefined);
  const ref = iso(md.GRIB_REF_TIME), valid = iso(md.GRIB_VALID_TIME);
  if (ref) out.reference_time = ref;
  if (valid) out.valid_time = valid;
  return out;
}

/** The bands' units as the file states them ("K", or "1=reflectance, 2=reflectance"), '' when none. */
function unitsText(ds: RasterDataset): string {
  const u = ds.units;
  if (!u?.some((x) => x)) return '';
  return new Set(u).size === 1 ? u[0]! : u.map((x, i) => `${i + 1}=${x ?? '?'}`).join(', ');
}

/** Streams one band through a StatsAccumulator, tile row by tile row. */
export async function bandStats(ds: RasterDataset, band: number, opts: { bins?: number; signal?: AbortSignal; scale?: number; offset?: number; progress?: (f: number) => void } = {}): Promise<StatsAccumulator> {
  const acc = new StatsAccumulator(ds.width, ds.height, { bins: opts.bins });
  const rows = Math.max(ds.blockHeight, 256);
  for (let y = 0; y < ds.height; y += rows) {
    throwIfAborted(opts.signal);
    const h = Math.min(rows, ds.height - y);
    const a = await ds.readWindow(band, 0, y, ds.width, h, opts.signal);
    if (opts.scale !== undefined) { const s = opts.scale, o = opts.offset ?? 0; for (let i = 0; i < a.length; i++) a[i] = a[i] * s + o; }
    acc.add(a, 0, y, ds.width, h);
    opts.progress?.((y + h) / ds.height);
  }
  return acc;
}

export const rasterStatsTool = defineTool({
  id: 'raster_stats',
  params: {
    image: { kind: 'raster', required: true },
    band: { kind: 'band', default: 1 },
    bins: { kind: 'integer', default: 32, min: 1, max: 10_000 },
  },
  async run(ctx) {
    const { bins } = ctx.args;
    const r = await resolveBands(ctx.args.image, ['band'], { band: ctx.args.band }, { cwd: ctx.cwd, signal: ctx.signal });
    try {
      const b = r.band;
      const acc = await bandStats(b.dataset, b.band, { bins, signal: ctx.signal, scale: b.scale, offset: b.offset, progress: ctx.progress });
      const label = b.dataset.bandDescriptions[b.band - 1] ?? `band ${b.band}`;
      const d = describeContinuous(acc, label);
      const res = acc.result();
      if (res.histogram) {
        const c = res.histogram.counts;
        const top = c.indexOf(Math.max(...c));
        const w = (res.histogram.max - res.histogram.min) / c.length;
        const lo = res.histogram.min + top * w;
        const sampled = c.reduce((a, x) => a + x, 0);
        d.summary += ` The most common range is ${num(lo)} to ${num(lo + w)} (${pct(c[top] / sampled)} of valid pixels).`;
      }
      d.stats.band = b.band;
      return { tool: 'raster_stats', outputs: {}, stats: d.stats, summary: d.summary };
    } finally { await closeResolved(r); }
  },
});

const KINDS = ['auto', 'index', 'diverging', 'class', 'mask', 'continuous', 'hillshade'] as const;

export const quicklookTool = defineTool({
  id: 'quicklook',
  params: {
    image: { kind: 'raster', required: true },
    band: { kind: 'band', default: 1 },
    colormap: { kind: 'string', default: 'auto', enum: KINDS },
  },
  async run(ctx) {
    const r = await resolveBands(ctx.args.image, ['band'], { band: ctx.args.band }, { cwd: ctx.cwd, signal: ctx.signal });
    try {
      const b = r.band, ds = b.dataset;
      const p = await readPreview(ds, b.band, 1024, ctx.signal);
      let kind: QuicklookKind | 'auto' = ctx.args.colormap;
      if (kind === 'auto') {
        const desc = (ds.bandDescriptions[b.band - 1] ?? '').toLowerCase();
        const distinct = new Set<number>();
        for (let i = 0; i < p.data.length && distinct.size <= 20; i += 7) if (p.data[i] === p.data[i]) distinct.add(p.data[i]);
        const ints = [...distinct].every((v) => Number.isInteger(v));
        if (/ndvi|evi|savi|ndwi|mndwi|ndbi|nbr|ndmi|ndsi|ndci/.test(desc) && !/dnbr/.test(desc)) kind = 'index';
        else if (/hillshade/.test(desc)) kind = 'hillshade';
        else if (/dnbr|diff|change|trend/.test(desc)) kind = 'diverging';
        else if (ints && distinct.size <= 2 && [...distinct].every((v) => v === 0 || v === 1)) kind = 'mask';
        else if (ints && distinct.size <= 20 && !ds.dtype.startsWith('float')) kind = 'class';
        else kind = 'continuous';
      }
      const out = outPath(ctx, `quicklook_b${b.band}`, 'png');
      // A palette TIFF is drawn in its own colour table (and named classes), whatever the colormap.
      await renderQuicklook(out, p.data, p.w, p.h, { kind, title: `${inputStem(ctx.args)} ${ds.bandDescriptions[b.band - 1] ?? `band ${b.band}`}`, ...ownLegend(ds, b.band) });
      const acc = new StatsAccumulator(p.w, p.h); acc.add(p.data, 0, 0, p.w, p.h);
      const st = acc.result();
      const where = st.grid.mean.map((m, i) => ({ m, i })).filter((c) => c.m !== null) as { m: number; i: number }[];
      where.sort((a, c) => c.m - a.m);
      const hits = new Array(9).fill(0);
      if (where.length) hits[where[0].i] = 1;
      const hi = where.length ? whereText(hits) : 'nowhere';
      const summary = `Rendered ${path.basename(out)} with the ${kind} colormap (${p.w}×${p.h} preview); values ${num(st.percentiles?.p2)} to ${num(st.percentiles?.p98)} (2–98%), highest on average ${hi.replace('mostly ', '')}.`;
      return { tool: 'quicklook', outputs: { png: { path: out, type: 'raster', roles: ['quicklook', 'png'], description: 'PNG quicklook (not a GeoTIFF)' } }, stats: { colormap: kind, width: p.w, height: p.h, ...st }, summary, quicklook: out };
    } finally { await closeResolved(r); }
  },
});
