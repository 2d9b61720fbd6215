/** The raster engine: validates and coerces arguments, runs builtin tools, guarantees quicklooks. */
import { planetLayout } from './planet-names';
import { wavelengthRoles } from './wavelength-roles';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RunOptions, ToolRunResult, OutputRef } from './types';
import type { ArgsOf, ArgValue, BuiltinTool, ToolParamSpec, ToolParams, ToolContext, ZonesArg } from './tools/types';
// Vector readers and the CRS code (proj4) load when an argument or a file needs them, not at start-up.
const vectorFormats = () => require('./vector/formats') as typeof import('./vector/formats');
const isVectorPath = (p: string) => vectorFormats().isVectorPath(p);
const crsModule = () => require('./crs/crs') as typeof import('./crs/crs');
import type { DataItem } from '../retrieval/types';
import { TOOL_LOADERS } from './tools/lazy-registry';
import { openRaster, isRemote, RasterDataset } from './io/dataset';
import { guessSensor, sampleBands } from './sensor-guess';
import { aliasOf, closestName } from './arg-aliases';
import { expandGlobs } from './arg-globs';
import { renderQuicklook, takePalette, QuicklookKind, ownLegend } from './quicklook';
import { describeInputs, inputPaths, boundedArgs, builtinManifestVersion, geoweaveVersion, provenanceItems, type RunProvenance } from './provenance';
import { addGdalMetadata } from './io/tiff-metadata';
import { writeFileAtomic } from './io/atomic-file';
import { qmlStyle } from '../results/qml';
import { readPreview, throwIfAborted } from './tools/common';
import { roleFromDescription, BAND_ROLES, landsatFromNames, roleOfBand } from './bands';
import { roleForSensor } from './sensor-presets';
import { RunStaging, remapPaths } from './io/run-staging';
import { isInside } from './io/atomic-file';

/** Public view of a builtin tool: id and parameter specs. */
export interface ToolSpec { id: string; params: Record<string, ToolParamSpec> }

/** Every builtin tool (loads all tool modules). */
function allTools(): BuiltinTool[] {
  return (require('./tools/registry') as typeof import('./tools/registry')).BUILTIN_TOOLS;
}

function byId(): Map<string, BuiltinTool> {
  const m = new Map<string, BuiltinTool>();
  for (const t of allTools()) m.set(t.id, t);
  return m;
}

/** Tool `id`, loading only its own module when it is a builtin (see lazy-registry.ts), else from the full list. */
function findTool(id: string): BuiltinTool | undefined {
  const load = Object.prototype.hasOwnProperty.call(TOOL_LOADERS, id) ? TOOL_LOADERS[id] : undefined;
  const t = load?.();
  if (t && t.id === id) return t;
  return byId().get(id);
}

export function listBuiltinTools(): ToolSpec[] {
  return allTools().map((t) => ({ id: t.id, params: t.params })).sort((a, b) => a.id.localeCompare(b.id));
}

export function getToolSpec(id: string): ToolSpec | undefined {
  // Only the tool's own module (a run asks for its spec first; the full registry costs start-up).
  const t = findTool(id);
  return t ? { id: t.id, params: t.params } : undefined;
}

/** Argument error: names the tool and the argument. */
export class ToolArgumentError extends Error {}

function splitList(v: string): string[] {
  const s = v.trim();
  if (s.startsWith('[')) {
    try { const a = JSON.parse(s); if (Array.isArray(a)) return a.map((x) => String(x)); } catch { /* fall through */ }
  }
  return s.split(',').map((x) => x.trim()).filter((x) => x.length);
}

/** A value as JSON for a message, at most 120 characters. */
function shortJson(v: unknown): string {
  let s: string;
  try { s = JSON.stringify(v) ?? String(v); } catch { s = String(v); }
  return s.length > 120 ? `${s.slice(0, 120)}… (${s.length} characters)` : s;
}

function resolvePath(p: string, cwd: string): string {
  // URLs keep their scheme (openRaster reads http(s) and refuses the others by name).
  return isRemote(p) || /^[a-z][a-z0-9+.-]*:\/\//i.test(p) ? p : path.resolve(cwd, p);
}

/** "between 0 and 90", "at least 1", or undefined when `n` is inside the spec's bounds. */
function outOfRange(spec: ToolParamSpec, n: number): string | undefined {
  const { min, max } = spec;
  if ((min === undefined || n >= min) && (max === undefined || n <= max)) return undefined;
  return min !== undefined && max !== undefined ? `between ${min} and ${max}` : min !== undefined ? `at least ${min}` : `at most ${max}`;
}

/**
 * Coerces one argument (CLI strings or JSON values) to the parameter's kind, the value `ArgsOf`
 * promises the tool (paths absolute, role maps parsed, numbers in range); throws naming it.
 */
export function coerceArg(tool: string, name: string, spec: ToolParamSpec, value: unknown, cwd: string): ArgValue {
  const bad = (what: string): never => { throw new ToolArgumentError(`${tool}: argument "${name}" ${what}, got ${shortJson(value)}`); };
  const num = (v: unknown): number => {
    const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
    if (!Number.isFinite(n)) bad('must be a number');
    return n;
  };
  const inRange = (n: number): number => {
    const range = outOfRange(spec, n);
    if (range) bad(`must be ${spec.kind === 'integer' ? 'an integer' : 'a number'} ${range}`);
    return n;
  };
  switch (spec.kind) {
    case 'raster': {
      if (typeof value === 'string') {
        const s = value.trim();
        if (s.startsWith('{')) {
          let obj: unknown;
          try { obj = JSON.parse(s); } catch { bad('is not valid JSON ({"red": "B04.tif", ...})'); }
          return coerceArg(tool, name, spec, obj, cwd);
        }
        if (!s) bad('must be a raster path or URL');
        return resolvePath(s, cwd);
      }
      if (value && typeof value === 'object' && !Array.isArray(value)) {
        if (spec.single) bad(`must be one raster file or URL (${tool} does not take a {role: path} mapping)`);
        const out: Record<string, string> = {};
        for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
          const role = k.toLowerCase();
          if (!BAND_ROLES.includes(role)) bad(`maps the unknown band role ${JSON.stringify(k.slice(0, 40))}; roles are ${BAND_ROLES.join(', ')}`);
          if (typeof v !== 'string' || !v) bad(`maps role "${k}" to something that is not a path`);
          out[role] = resolvePath(v as string, cwd);
        }
        if (!Object.keys(out).length) bad('is an empty mapping');
        return out;
      }
      return bad('must be a raster path, URL or {role: path} mapping');
    }
    case 'raster_list': {
      const list = typeof value === 'string' ? splitList(value) : Array.isArray(value) ? value : bad('must be a list of rasters');
      if (!list.length) bad('is an empty list');
      const paths = list.map((p) => (typeof p === 'string' && p ? resolvePath(p, cwd) : bad('must contain paths')));
      if (!spec.glob) return paths;
      try {
        return expandGlobs(paths, `${tool}: argument "${name}"`);
      } catch (e) {
        throw new ToolArgumentError((e as Error).message);
      }
    }
    case 'vector': {
      if (typeof value !== 'string' || !value.trim()) bad('must be a GeoJSON, Shapefile (.shp), GeoPackage (.gpkg) or KML (.kml) path');
      const s = (value as string).trim();
      const unread = vectorFormats().unreadVectorFormat(s);
      if (unread) bad(`is ${unread}`);
      if (!isVectorPath(s)) bad('must be a GeoJSON (.geojson), Shapefile (.shp), GeoPackage (.gpkg, or "file.gpkg#layer") or KML (.kml) path');
      return resolvePath(s, cwd);
    }
    case 'zones': {
      if (typeof value !== 'string' || !value.trim()) bad('must be a class raster or a polygon file (GeoJSON, Shapefile, GeoPackage, KML)');
      const s = (value as string).trim();
      const unread = vectorFormats().unreadVectorFormat(s);
      if (unread) bad(`is ${unread}`);
      const z: ZonesArg = { type: isVectorPath(s) ? 'vector' : 'raster', path: resolvePath(s, cwd) };
      return z;
    }
    case 'crs': {
      if (typeof value !== 'string' && typeof value !== 'number') bad('must be an EPSG code (EPSG:32632), a proj4 string or WKT');
      try {
        return crsModule().parseCrs(String(value), `${tool}: argument "${name}"`);
      } catch (e) {
        throw new ToolArgumentError((e as Error).message);
      }
    }
    case 'number': return inRange(num(value));
    case 'integer': { const n = num(value); if (!Number.isInteger(n)) bad('must be an integer'); return inRange(n); }
    case 'boolean': {
      if (typeof value === 'boolean') return value;
      const s = String(value).toLowerCase();
      if (['true', '1', 'yes', 'on'].includes(s)) return true;
      if (['false', '0', 'no', 'off'].includes(s)) return false;
      return bad('must be true or false');
    }
    case 'band': {
      if (typeof value === 'number') { if (!Number.isInteger(value) || value < 1) bad('must be a 1-based band index or a role name'); return value; }
      if (typeof value !== 'string' || !value.trim()) return bad('must be a 1-based band index or a role name');
      const s = value.trim();
      if (/^-?\d+(\.\d+)?$/.test(s)) { const n = Number(s); if (!Number.isInteger(n) || n < 1) bad('must be a 1-based band index (1, 2, ...)'); return n; }
      return s;
    }
    case 'string': {
      if (typeof value !== 'string' && typeof value !== 'number') bad('must be a string');
      const s = String(value);
      if (spec.enum && !spec.enum.includes(s)) {
        const ci = spec.enum.find((e) => e.toLowerCase() === s.toLowerCase());
        if (ci) return ci;
        bad(`must be one of ${spec.enum.join(', ')}`);
      }
      if (spec.path) {
        if (!s.trim()) bad('must be a path or URL');
        return resolvePath(s.trim(), cwd);
      }
      return s;
    }
    case 'number_list': {
      const list = typeof value === 'string' ? splitList(value) : Array.isArray(value) ? value : typeof value === 'number' ? [value] : bad('must be a list of numbers like 1,2,3');
      return list.map((x) => num(x));
    }
    case 'string_list': {
      const list = typeof value === 'string' ? splitList(value) : Array.isArray(value) ? value.map(String) : bad('must be a list like a,b,c');
      return list.map((x) => x.trim()).filter((x) => x.length);
    }
    case 'bbox': {
      const list = typeof value === 'string' ? splitList(value) : Array.isArray(value) ? value : bad('must be minx,miny,maxx,maxy');
      if (list.length !== 4) bad('must have 4 numbers: minx,miny,maxx,maxy');
      const b = list.map((x) => num(x));
      if (!(b[0] < b[2] && b[1] < b[3])) bad('must satisfy minx < maxx and miny < maxy');
      return [b[0], b[1], b[2], b[3]];
    }
  }
  return bad(`has a parameter kind ${shortJson(spec.kind)} the engine does not know`);
}

/**
 * Validates against the tool's params: unknown argument, missing required, wrong type; fills
 * defaults. The result is what the tool's `ctx.args` is typed as (`ArgsOf` its params).
 */
export function validateArgs(tool: BuiltinTool, args: Record<string, unknown>, cwd: string): ArgsOf<ToolParams> {
  args = bandFilesAsImage(tool, args ?? {});
  const out: Record<string, ArgValue> = {};
  const known = Object.keys(tool.params);
  for (const [given, v] of Object.entries(args ?? {})) {
    // `image: dem.tif` for slope is its `dem`: the same input under the name other tools use.
    const alias = aliasOf(given, known);
    const k = alias && !Object.prototype.hasOwnProperty.call(args ?? {}, alias) ? alias : given;
    // Own keys only: "constructor" or "__proto__" are not parameters of every tool.
    if (!Object.prototype.hasOwnProperty.call(tool.params, k)) {
      const near = closestName(k, known);
      throw new ToolArgumentError(`${tool.id}: unknown argument ${shortJson(k)}; ${tool.id} takes ${known.join(', ')}${near ? `; did you mean "${near}"?` : ''}`);
    }
    if (v === undefined || v === null || v === '') continue;
    out[k] = coerceArg(tool.id, k, tool.params[k], v, cwd);
  }
  for (const [k, spec] of Object.entries(tool.params)) {
    if (out[k] !== undefined) continue;
    if (spec.default !== undefined) out[k] = coerceArg(tool.id, k, spec, spec.default, cwd);
    else if (spec.required) throw new ToolArgumentError(`${tool.id}: missing required argument "${k}" (${spec.kind}${spec.description ? `: ${spec.description}` : ''}); pass --arg ${k}=...`);
  }
  return out;
}

/**
 * `--arg red=B04.tif --arg nir=B08.tif`: band files given under their roles, the way a product that
 * comes a file per band is named, are the {role: path} mapping of the tool's `image`.
 */
function bandFilesAsImage(tool: BuiltinTool, args: Record<string, unknown>): Record<string, unknown> {
  const isFile = (v: unknown) => typeof v === 'string' && (/\.(tiff?|vrt|jp2|j2k)$/i.test(v.trim()) || /^https?:\/\//i.test(v.trim()));
  const files = Object.entries(args).filter(([k, v]) => tool.params[k]?.kind === 'band' && BAND_ROLES.includes(k) && isFile(v));
  const image = tool.params.image;
  if (!files.length || !image || image.kind !== 'raster' || image.single) return args;
  const given = args.image ?? args.raster ?? args.input;
  if (given !== undefined && given !== '' && typeof given !== 'object') {
    throw new ToolArgumentError(`${tool.id}: ${files.map(([k]) => `"${k}"`).join(' and ')} ${files.length > 1 ? 'are files' : 'is a file'} and "image" is ${shortJson(given)}; give either one image with band numbers (--arg ${files[0][0]}=3) or every band as a file (--arg red=B04.tif --arg nir=B08.tif)`);
  }
  const map: Record<string, unknown> = { ...(given && typeof given === 'object' ? given as Record<string, unknown> : {}) };
  for (const [k, v] of files) map[k] = (v as string).trim();
  const rest = Object.fromEntries(Object.entries(args).filter(([k]) => !files.some(([f]) => f === k) && !['image', 'raster', 'input'].includes(k)));
  return { ...rest, image: map };
}

function quicklookKind(o: OutputRef): QuicklookKind {
  const r = o.roles ?? [];
  if (r.includes('mask')) return 'mask';
  if (r.includes('class') || r.includes('labels')) return 'class';
  if (r.includes('hillshade')) return 'hillshade';
  if (r.includes('difference') || r.includes('change') || r.includes('trend') || r.includes('dnbr')) return 'diverging';
  if (r.includes('index')) return 'index';
  return 'continuous';
}

/** Runs builtin tool `id`; errors name the tool/argument/file. Outputs land in opts.outDir. */
export async function runTool(id: string, args: Record<string, unknown>, opts: RunOptions): Promise<ToolRunResult> {
  const tool = findTool(id);
  if (!tool) {
    const ids = [...byId().keys()].sort();
    const near = ids.filter((t) => t.includes(id) || id.includes(t)).slice(0, 3);
    throw new ToolArgumentError(`unknown tool "${id}"${near.length ? ` (did you mean ${near.join(', ')}?)` : ''}; builtin tools: ${ids.join(', ')}`);
  }
  const t0 = Date.now();
  const started = new Date(t0).toISOString();
  const cwd = path.resolve(opts.cwd ?? process.cwd());
  const valid = validateArgs(tool, args, cwd);
  const outDir = path.resolve(cwd, opts.outDir);
  const signal = opts.signal ?? new AbortController().signal;
  throwIfAborted(signal);
  // Inputs are hashed beside the run (streamed; a rerun on unchanged files reads nothing again).
  const kinds = Object.fromEntries(Object.entries(tool.params).map(([k, p]) => [k, p.kind]));
  // Its own signal: a run that fails stops reading the inputs too.
  const hashStop = new AbortController();
  const stopHashing = () => hashStop.abort();
  signal.addEventListener('abort', stopHashing, { once: true });
  const hashing = describeInputs(inputPaths(valid, kinds), hashStop.signal).then((r) => ({ ok: true as const, r }), (e: unknown) => ({ ok: false as const, e }));
  // Everything is written into a private folder and moved into outDir only when the run succeeds.
  const staging = await RunStaging.create(outDir);
  const stagedPngs: string[] = [];
  try {
    let last = -1;
    const ctx: ToolContext<ArgsOf<ToolParams>> = {
      args: valid, outDir: staging.dir, finalDir: outDir, cwd, signal,
      progress(f, msg) {
        const c = Math.max(0, Math.min(1, f));
        if (c - last >= 0.01 || c === 1 || msg) { last = c; opts.onProgress?.(c, msg); }
      },
    };
    const result: ToolRunResult = await tool.run(ctx);
    throwIfAborted(signal);
    // Every raster output gets a quicklook PNG next to it (the tool's own when it made one).
    for (const o of Object.values(result.outputs)) {
      if (!isInside(staging.dir, o.path)) throw new Error(`${id}: output "${o.path}" is outside the output folder ${outDir}`);
      if (o.type !== 'raster' || !/\.tiff?$/i.test(o.path)) continue;
      const ql = o.path.replace(/\.tiff?$/i, '.png');
      stagedPngs.push(ql);
      const own = result.quicklook === ql || fs.existsSync(ql);
      throwIfAborted(signal);
      const ds = await openRaster(o.path);
      try {
        // An output that kept its input's colour table or category names (a clip of a land-cover map) is
        // drawn with them, also over the quicklook the tool made with a generic colour map.
        const legend = ownLegend(ds);
        if (!own || legend.colorTable || (legend.categoryNames && quicklookKind(o) === 'class')) {
          const p = await readPreview(ds, 1, 768, signal);
          await renderQuicklook(ql, p.data, p.w, p.h, { kind: quicklookKind(o), title: path.basename(o.path), ...legend });
        }
      } finally { await ds.close(); }
      result.quicklook ??= ql;
    }
    const hashed = await hashing;
    if (!hashed.ok) throw hashed.e;
    throwIfAborted(signal);
    const provenance: RunProvenance = {
      tool: id, ...(opts.manifestVersion ?? builtinManifestVersion(id) ? { manifest: opts.manifestVersion ?? builtinManifestVersion(id) } : {}),
      geoweave: geoweaveVersion(), args: boundedArgs(args ?? {}),
      inputs: hashed.r.inputs, ...(hashed.r.omitted ? { inputsOmitted: hashed.r.omitted } : {}),
      started, durationMs: Date.now() - t0,
    };
    // Each GeoTIFF output says how it was made (gdalinfo lists the items) and gets a QGIS style in
    // its quicklook's colours.
    const items = provenanceItems(provenance);
    for (const o of Object.values(result.outputs)) {
      if (o.type !== 'raster' || !/\.tiff?$/i.test(o.path)) continue;
      await addGdalMetadata(o.path, items);
      if (fs.existsSync(`${o.path}.aux.xml`)) o.sidecar = `${o.path}.aux.xml`;
      const palette = takePalette(o.path.replace(/\.tiff?$/i, '.png'));
      if (palette) {
        o.style = o.path.replace(/\.tiff?$/i, '.qml');
        await writeFileAtomic(o.style, qmlStyle(palette));
      }
    }
    throwIfAborted(signal);
    // A sidecar left by an earlier output of the same name would lend its category names to this one:
    // replacing a GeoTIFF replaces its .aux.xml, as GDAL's GTiff driver deletes it with the file.
    for (const o of Object.values(result.outputs)) {
      if (o.type === 'raster' && !o.sidecar) await fs.promises.rm(path.join(outDir, `${path.basename(o.path)}.aux.xml`), { force: true }).catch(() => undefined);
    }
    await staging.commit();
    return { ...remapPaths(result, staging.dir, outDir), provenance };
  } catch (e) {
    hashStop.abort();
    await staging.discard();
    throw e;
  } finally {
    signal.removeEventListener('abort', stopHashing);
    for (const p of stagedPngs) takePalette(p);
  }
}

/** Lon/lat box of a CRS without an EPSG code (GeoTIFF keys), or undefined when it cannot be transformed. */
function outlineLonLat(geo: RasterDataset['geo'], file: string, box: [number, number, number, number]): [number, number, number, number] | undefined {
  try {
    const { crsOfGeo, transformer, LONLAT } = crsModule();
    const crs = crsOfGeo(geo, file);
    if (!crs) return undefined;
    const t = transformer(crs, LONLAT);
    let lo0 = Infinity, la0 = Infinity, lo1 = -Infinity, la1 = -Infinity;
    for (let i = 0; i <= 8; i++) {
      for (let j = 0; j <= 8; j++) {
        if (i % 8 !== 0 && j % 8 !== 0) continue;
        const [lon, lat] = t.forward(box[0] + ((box[2] - box[0]) * i) / 8, box[1] + ((box[3] - box[1]) * j) / 8);
        if (!Number.isFinite(lon) || !Number.isFinite(lat)) continue;
        lo0 = Math.min(lo0, lon); lo1 = Math.max(lo1, lon); la0 = Math.min(la0, lat); la1 = Math.max(la1, lat);
      }
    }
    return lo0 <= lo1 && la0 <= la1 ? [lo0, la0, lo1, la1] : undefined;
  } catch {
    return undefined;
  }
}

/** Elevation by name or format: SRTM tiles (N37W122.hgt, USGS EarthExplorer's n37_w122_1arc_v3.bil/.tif)
 *  and DTED, which holds nothing but terrain. */
const SRTM_TILE = /\.hgt$|\.dt[0-3]$|^[ns]\d{1,2}_[ew]\d{1,3}_[13]arc_v\d/;

/** Data-context entry for a raster: bands with roles from descriptions, whole-raster roles (dem, class, mask), CRS. */
export async function describeRaster(p: string, cwd?: string): Promise<DataItem> {
  const ds = await openRaster(p, { cwd });
  try {
    const naming = landsatFromNames(ds.bandDescriptions);
    const byWavelength = wavelengthRoles(ds.bandDescriptions);
    // Where no band says what it is, a Planet product's name does (planet-names.ts).
    const described = ds.bandDescriptions.some((_, i) => roleOfBand(ds, i, naming) ?? byWavelength.get(i + 1));
    const planet = described ? undefined : planetLayout(p, ds.bandCount);
    const planetRole = new Map(Object.entries(planet?.bands ?? {}).map(([r, b]) => [b, r]));
    const bands = ds.bandDescriptions.map((d, i) => {
      const role = roleOfBand(ds, i, naming) ?? byWavelength.get(i + 1) ?? planetRole.get(i + 1);
      return { index: i + 1, ...(role ? { role } : {}), ...(d ? { description: d } : {}), ...(ds.units?.[i] ? { units: ds.units[i]! } : {}) };
    });
    const roles: string[] = [];
    const name = path.basename(p).toLowerCase();
    // GRIB bands are weather fields that their metadata names (GRIB_ELEMENT), never a sensor's bands, and
    // their descriptions name the level: a 2 m temperature's says "Specified height level above ground",
    // which is no DEM.
    const grib = (ds as { bandMetadata?: Record<string, string>[] }).bandMetadata?.[0]?.GRIB_ELEMENT !== undefined;
    const desc = grib ? '' : (ds.bandDescriptions[0] ?? '').toLowerCase();
    if (ds.bandCount === 1) {
      const floaty = ds.dtype === 'float32' || ds.dtype === 'float64' || ds.dtype === 'int16';
      if ((floaty && /elev|dem|height|altitude/.test(desc)) || /(^|[^a-z])(dem|dtm|dsm|srtm|elevation)([^a-z]|$)/.test(name) || SRTM_TILE.test(name)) { roles.push('dem'); bands[0].role = 'dem'; }
      else if (/mask/.test(desc) || /mask/.test(name)) roles.push('mask');
      else if (/class|label|severity|landcover/.test(desc) || /class|label|severity|landcover/.test(name)) roles.push('class');
      else if (/^(ndvi|evi|savi|ndwi|mndwi|ndbi|nbr|ndmi|ndsi|ndci)$/.test(desc)) roles.push('index', desc);
      else if (/dnbr/.test(desc) || /dnbr/.test(name)) roles.push('dnbr');
    }
    if (bands.filter((b) => b.role && !['dem', 'qa', 'thermal'].includes(b.role)).length >= 2) roles.push('multispectral');
    const crs = ds.geo.epsg ? `EPSG:${ds.geo.epsg}` : crsModule().crsLabelOf(ds.geo, ds.source);
    const g = ds.geo.geoTransform;
    const xs = [g[0], g[0] + g[1] * ds.width + g[2] * ds.height, g[0] + g[1] * ds.width, g[0] + g[2] * ds.height];
    const ys = [g[3], g[3] + g[4] * ds.width + g[5] * ds.height, g[3] + g[4] * ds.width, g[3] + g[5] * ds.height];
    const extent: [number, number, number, number] = [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
    const epsg = ds.geo.epsg ?? (ds.geo.geographic ? 4326 : undefined);
    // Without a geotransform the stand-in one would place the raster at 0°N 0°E: no extent is better than a wrong one.
    const placed = !ds.geo.ungeoreferenced;
    const lonLat = !placed ? undefined : (require('./proj') as typeof import('./proj')).boxToLonLat(epsg, extent) ?? outlineLonLat(ds.geo, ds.source, extent);
    // No band says what it is: guess the sensor, so readiness can say what the bands probably are.
    // Not for GRIB (see `grib`): sampling would decode every field whole (a GFS file of 740 took 11 s of a scan).
    const guess = ds.bandCount >= 3 && !grib && !bands.some((b) => b.role) && !isRemote(p) ? guessSensor(await sampleBands(ds)) : undefined;
    return {
      path: p, type: 'raster', bands, ...(roles.length ? { roles } : {}), ...(crs ? { crs } : {}),
      ...(placed ? { extent } : {}), ...(lonLat ? { lonLat } : {}), grid: { width: ds.width, height: ds.height, geoTransform: [...g] }, ...(guess ? { guess } : {}),
    };
  } finally {
    await ds.close();
  }
}

