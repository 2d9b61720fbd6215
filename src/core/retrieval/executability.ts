/** Can a tool run on the data at hand? Required inputs, band roles and a runner, with readable reasons. */
import * as path from 'path';
import type { ToolManifest, ToolParam } from '../manifests/types';
import { chosenByRunner } from '../manifests/foreign-fields';
import type { ArchivedData, DataContext, DataItem, Readiness } from './types';
import { mentionOf, Mention } from '../data/mentions';
import { parseQuery } from './query';
import { absentNames, isListed, RAW_DATA_EXTENSIONS, type AbsentName } from '../data/named-files';
import { closestName } from '../raster/arg-aliases';

/** Roles that describe what a whole raster is; any one of them satisfies an input listing several. */
const PRODUCT_ROLES = new Set(['class', 'mask', 'index', 'dnbr', 'difference', 'change', 'labels', 'severity', 'lst', 'trend', 'magnitude', 'slope', 'aspect', 'hillshade', 'distance']);
const SPECTRAL = new Set(['blue', 'green', 'red', 'rededge', 'nir', 'swir1', 'swir2', 'thermal', 'qa', 'pan', 'sar']);

const ROLE_LABEL: Record<string, string> = { nir: 'NIR', swir1: 'SWIR1', swir2: 'SWIR2', qa: 'a QA band', dem: 'a DEM', sar: 'SAR backscatter', rededge: 'red edge', class: 'a class map', mask: 'a mask', index: 'an index raster' };

/** Roles that a processing step produces (mask, class, index…) rather than raw spectral bands. */
export function isProductRole(role: string): boolean {
  return PRODUCT_ROLES.has(role);
}

export function roleLabel(role: string): string {
  return ROLE_LABEL[role] ?? role;
}

export interface ExecutabilityResult extends Readiness {
  /** Human lines such as "needs NIR — found in s2_scene.tif band 5". */
  notes: string[];
  /** Share of required inputs satisfied (1 when nothing is required). */
  coverage: number;
}

/** Where a role is found in an item: a band index, or the whole item. */
/** A layer of a file of several and its file: `era5.nc#t2m`, `s5p.nc4#PRODUCT/no2`, `MOD13Q1.hdf#250m 16 days NDVI`. */
const LAYER_PATH = /^(.*\.(?:nc|nc4|h5|hdf5|he5|hdf|grib2?|grb2?))#(.+)$/i;

function findRole(item: DataItem, role: string): { band?: number } | undefined {
  if (item.roles?.includes(role)) return {};
  const b = item.bands?.find((x) => x.role === role);
  if (b) return { band: b.index };
  // A file named as a DEM is one (a reprojected or filled copy too), unless its name goes on to say
  // what was made from the DEM: `valley_dem_slope.tif` is a slope, not a DEM.
  if (role === 'dem' && DEM_NAME.test(path.basename(item.path)) && !DERIVED_FROM_DEM.test(path.basename(item.path))) return {};
  return undefined;
}

const DEM_NAME = /(^|[^a-z])(dem|dtm|dsm|srtm|elev\w*)([^a-z]|$)/i;
/** Words of products made from a DEM (a filled DEM is still one, so "fill" is not among them). */
const DERIVED_FROM_DEM = /(^|[^a-z])(slope|aspect|hillshade|shade|curvature|tpi|tri|roughness|twi|flow\w*|accum\w*|contours?|viewshed|visibility|mask|class\w*|diff\w*|change|stats?)([^a-z]|$)/i;

/** A raster of sensor bands (described or guessed), as opposed to a product such as an index map. */
function isScene(item: DataItem): boolean {
  return item.type === 'raster' && (!!item.guess || !!item.bands?.some((b) => b.role && SPECTRAL.has(b.role)));
}

/** Whether an item holds the indicator (its file name, a band description or a role says so). */
function holds(item: DataItem, indicator: string): boolean {
  const re = new RegExp(`(^|[^\\p{L}\\p{M}\\p{N}])${indicator.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\p{L}\\p{M}\\p{N}])`, 'iu');
  return re.test(path.basename(item.path)) || !!item.bands?.some((b) => re.test(b.description ?? '') || re.test(b.role ?? '')) || !!item.roles?.some((r) => re.test(r));
}

function itemName(item: DataItem): string {
  return item.producedBy ? `${item.path} (from ${item.producedBy})` : path.basename(item.path) || item.path;
}

/** Whether `item` can feed the raster/vector/table param `p`; returns the band of each spectral role. */
export function canFeed(item: DataItem, p: ToolParam): { ok: boolean; bands: Record<string, number> } {
  const bands: Record<string, number> = {};
  const want = p.type === 'array' ? 'raster' : p.type;
  if (want !== item.type) return { ok: false, bands };
  const roles = p.bands ?? [];
  // A product delivered a file per band is read by its bands (ndvi's red + nir), not as one file.
  if (item.product && !roles.some((r) => SPECTRAL.has(r))) return { ok: false, bands };
  if (!roles.length) return { ok: true, bands };
  const product = roles.filter((r) => PRODUCT_ROLES.has(r));
  const other = roles.filter((r) => !PRODUCT_ROLES.has(r));
  if (product.length && !product.some((r) => findRole(item, r))) {
    // A product input (mask/class/index) cannot be fed by a raw scene, but an unlabeled single-band raster might be one.
    return { ok: false, bands };
  }
  for (const r of other) {
    const hit = findRole(item, r);
    if (!hit) return { ok: false, bands };
    if (hit.band !== undefined) bands[r] = hit.band;
  }
  return { ok: true, bands };
}

/**
 * Whether two item paths name the same file. A data context mixes workspace-relative paths with the
 * absolute ones a run reports, so a relative path that ends an absolute one is the same file.
 */
export function sameFile(a: string, b: string): boolean {
  const x = path.normalize(a);
  const y = path.normalize(b);
  if (x === y) return true;
  if (path.isAbsolute(x) === path.isAbsolute(y)) return false;
  const [abs, rel] = path.isAbsolute(x) ? [x, y] : [y, x];
  return abs.endsWith(path.sep + rel.replace(/^\.[\\/]/, ''));
}

/** Data items plus products of the steps so far, each file once (the data context's entry wins). */
export function withProducts(data: DataItem[], produced: DataItem[]): DataItem[] {
  return [...data, ...produced.filter((p) => !data.some((d) => sameFile(d.path, p.path)))];
}

function isDataParam(p: ToolParam): boolean {
  return p.type === 'raster' || p.type === 'vector' || p.type === 'table' || (p.type === 'array' && (p.bands?.length ?? 0) > 0);
}

/** How an item feeds an input: with the roles its bands declare, or with roles guessed from its sensor. */
interface Feed {
  item: DataItem;
  bands: Record<string, number>;
  guessed: boolean;
}

/**
 * A raster whose bands say nothing can still feed a spectral input when its sensor can be guessed
 * and the tool takes each needed band as an argument (`nir: 4`): the guess becomes those arguments.
 */
function feedByGuess(item: DataItem, p: ToolParam, paramNames: Set<string>): Feed | undefined {
  const g = item.guess;
  const want = p.type === 'array' ? 'raster' : p.type;
  if (!g || item.type !== 'raster' || want !== 'raster') return undefined;
  const roles = p.bands ?? [];
  const spectral = roles.filter((r) => SPECTRAL.has(r));
  if (!spectral.length || spectral.length !== roles.length) return undefined;
  const bands: Record<string, number> = {};
  for (const r of spectral) {
    if (g.bands[r] === undefined || !paramNames.has(r)) return undefined;
    bands[r] = g.bands[r];
  }
  return { item, bands, guessed: true };
}

function feedOf(item: DataItem, p: ToolParam, paramNames: Set<string>, named = false): Feed | undefined {
  const real = canFeed(item, p);
  if (real.ok) return { item, bands: real.bands, guessed: false };
  return feedByGuess(item, p, paramNames) ?? (named ? takenAsNamed(item, p) : undefined);
}

/**
 * A one-band raster that says nothing of what it holds (an ASCII grid `SU42.asc`, a GeoTIFF without
 * descriptions) feeds an elevation input when the task names it for that: the analyst said what it
 * is. Readiness flags it as taken on their word.
 */
function takenAsNamed(item: DataItem, p: ToolParam): Feed | undefined {
  const roles = p.bands ?? [];
  const bare = item.type === 'raster' && !item.producedBy && !item.product && !item.roles?.length && (item.bands?.length ?? 0) === 1 && !item.bands![0].role;
  return bare && roles.length === 1 && roles[0] === 'dem' ? { item, bands: {}, guessed: true } : undefined;
}

/** Items whose file the task names ("… for L7_ETMs.tif", "urban_2018"), in the order it names them. */
export function namedInTask(task: string | undefined, items: DataItem[]): DataItem[] {
  if (!task) return [];
  const text = task.toLowerCase();
  const at = (word: string): number => {
    const edge = '[^\\p{L}\\p{M}\\p{N}_.\\-]|\\p{Script=Han}';
    const re = new RegExp(`(^|${edge})${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=$|${edge}|\\.(?![\\p{L}\\p{N}]))`, 'u');
    const m = re.exec(text);
    return m ? m.index + m[1].length : -1;
  };
  const hits: { item: DataItem; at: number; depth: number }[] = [];
  for (const item of items) {
    const base = path.basename(item.path).toLowerCase();
    const stem = base.replace(/\.[a-z0-9]+$/, '');
    // The longest tail of the item's path the task writes out ("2024/B04.tif" of scenes/2024/B04.tif):
    // of two files of one name in different folders, the one whose folder the task gives is meant.
    const parts = item.path.toLowerCase().split(/[\\/]+/).filter(Boolean);
    let depth = 0;
    for (let k = parts.length; k >= 2 && !depth; k--) {
      const tail = parts.slice(parts.length - k);
      const j = Math.max(at(tail.join('/')), at(tail.join('\\')));
      if (j >= 0) depth = k;
    }
    // A bare stem counts only when it cannot be an ordinary word ("dem" is, "urban_2018" is not).
    let i = at(base);
    // A raw raster is listed as its header; the analyst names the data file USGS or ENVI delivered.
    if (i < 0 && base.endsWith('.hdr')) i = RAW_DATA_EXTENSIONS.map((e) => at(`${stem}.${e}`)).filter((x) => x >= 0).sort((a, b) => a - b)[0] ?? -1;
    // A variable of a NetCDF file (era5.nc#t2m) or a field of an HDF4 file is named by its file too.
    const nv = LAYER_PATH.exec(base);
    if (i < 0 && nv) i = at(nv[1]);
    if (i < 0 && stem.length >= 4 && /[_\-\d]/.test(stem)) i = at(stem);
    if (i >= 0 && !hits.some((h) => sameFile(h.item.path, item.path))) hits.push({ item, at: i, depth });
  }
  const deepest = (h: { item: DataItem; depth: number }) => hits.every((o) => path.basename(o.item.path).toLowerCase() !== path.basename(h.item.path).toLowerCase() || o.depth <= h.depth);
  // Of a NetCDF file's variables, the ones the task also names ("t2m of era5.nc"), when it names any.
  const variableOf = (p: string) => LAYER_PATH.exec(p.toLowerCase());
  const spoken = (h: { item: DataItem }) => {
    const v = variableOf(h.item.path);
    // The whole file, when the task also names one of its layers ("PRMSL in gfs.grib2"): the layer is
    // meant. A GRIB file opens whole (the messages on its first grid), and it is listed first.
    if (!v) return !hits.some((o) => { const ov = variableOf(o.item.path); return !!ov && sameFile(ov[1], h.item.path.toLowerCase()) && at(ov[2].toLowerCase()) >= 0; });
    const siblings = hits.filter((o) => variableOf(o.item.path)?.[1] === v[1]);
    return !siblings.some((o) => at(variableOf(o.item.path)![2]) >= 0) || at(v[2]) >= 0;
  };
  return hits.filter(deepest).filter(spoken).sort((a, b) => a.at - b.at).map((h) => h.item);
}

/** Names the task spells out that `data` lacks, worked out once per task and data context (every
 *  tool of a ranking is judged on the same two). */
const absentMemo = new WeakMap<DataContext, Map<string, AbsentName[]>>();
function absentFor(task: string, data: DataContext): AbsentName[] {
  const byTask = absentMemo.get(data) ?? absentMemo.set(data, new Map()).get(data)!;
  let hit = byTask.get(task);
  if (!hit) byTask.set(task, (hit = absentNames(task, [...data.items.map((it) => it.path), ...(data.archives ?? []).map((a) => a.path)])));
  return hit;
}

/** The GDAL command that makes a file GeoWeave reads out of one it does not. */
function convertHint(name: string, kind: string): string {
  const stem = name.replace(/\.[^./]+$/, '');
  return kind === 'vector' ? `ogr2ogr ${stem}.gpkg ${name}` : `gdal_translate ${name} ${stem}.tif`;
}

/** "; did you mean L7_ETMs.tif?" when a file of the data at hand is a likely typo of `name`. */
function nearName(name: string, items: DataItem[]): string {
  const base = path.basename(name);
  const near = closestName(base, [...new Set(items.map(fileName))]);
  return near ? `; did you mean ${near}?` : '';
}

function fileName(item: DataItem): string {
  return path.basename(item.path) || item.path;
}

/** "near 40.0°N 117.0°E" for a lon/lat box. */
function whereIs(box: [number, number, number, number]): string {
  const lon = (box[0] + box[2]) / 2, lat = (box[1] + box[3]) / 2;
  return `near ${Math.abs(lat).toFixed(1)}°${lat >= 0 ? 'N' : 'S'} ${Math.abs(lon).toFixed(1)}°${lon >= 0 ? 'E' : 'W'}`;
}

function intersects(a: number[], b: number[]): boolean {
  return a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
}

function pixelSize(it: DataItem): string {
  const g = it.grid!.geoTransform;
  const size = Math.abs(g[1]);
  const unit = it.crs === 'EPSG:4326' ? '°' : ' m';
  return `${Number(size.toPrecision(3))}${unit}`;
}

function sameGrid(a: DataItem, b: DataItem): boolean {
  if (!a.grid || !b.grid) return true;
  if (a.crs !== b.crs || a.grid.width !== b.grid.width || a.grid.height !== b.grid.height) return false;
  const ga = a.grid.geoTransform, gb = b.grid.geoTransform;
  const tol = Math.abs(ga[1]) * 1e-6 + 1e-9;
  return ga.every((v, i) => Math.abs(v - gb[i]) <= tol);
}

/**
 * Why two inputs of one call cannot run together, or undefined. Every tool needs its inputs to cover
 * the same ground; GeoWeave's own raster tools also combine rasters pixel by pixel (same grid);
 * polygons in another CRS are reprojected onto the raster by the tools themselves.
 */
function conflict(m: ToolManifest, a: DataItem, b: DataItem): string | undefined {
  if (sameFile(a.path, b.path)) return undefined;
  const crsA = a.crs ?? 'an unknown CRS', crsB = b.crs ?? 'an unknown CRS';
  if (a.lonLat && b.lonLat && !intersects(a.lonLat, b.lonLat)) {
    return `${fileName(a)} (${crsA}, ${whereIs(a.lonLat)}) and ${fileName(b)} (${crsB}, ${whereIs(b.lonLat)}) do not overlap`;
  }
  if (a.crs && a.crs === b.crs && a.extent && b.extent && !intersects(a.extent, b.extent)) {
    return `${fileName(a)} and ${fileName(b)} do not overlap (both ${crsA})`;
  }
  if (m.runner?.type !== 'builtin') return undefined;
  // A tool with a raster `reference` puts a raster onto that one's grid (align, resample): other
  // grids are what it is for, not a reason it cannot run ("align X onto Y first" on align itself).
  const regrids = (m.inputs ?? []).some((p) => p.type === 'raster' && /^reference$/i.test(p.name));
  if (a.type === 'raster' && b.type === 'raster' && !regrids && !sameGrid(a, b)) {
    const grid = (it: DataItem) => `${it.crs ?? '?'}, ${pixelSize(it)}, ${it.grid!.width}×${it.grid!.height}`;
    const step = a.crs !== b.crs ? 'reproject' : pixelSize(a) !== pixelSize(b) ? 'resample' : 'reproject';
    return `${fileName(a)} and ${fileName(b)} are not on the same grid (${grid(a)} vs ${grid(b)}): align ${fileName(b)} onto ${fileName(a)} first (${step})`;
  }
  return undefined;
}

/** Evaluates readiness of `m` on `data`; without a data context only the runner is judged. A task
 *  (the option, else `data.task`) makes the files it names the first choice for every input. */
export function executability(m: ToolManifest, data?: DataContext, opts: { task?: string } = {}): ExecutabilityResult {
  // A server's tool runs only where the workspace says how to start (or reach) that server.
  const serverMissing = m.runner?.type === 'mcp' && data?.mcpServers !== undefined && !data.mcpServers.includes(m.runner.server);
  const runnable = !!m.runner && !serverMissing;
  const notes: string[] = [];
  const missing: string[] = [];
  const args: Record<string, unknown> = {};
  const required = (m.inputs ?? []).filter((p) => isDataParam(p) && p.required !== false);
  if (!m.runner) notes.push('catalog only — no runner here');
  if (serverMissing) notes.push(`needs the MCP server "${(m.runner as { server: string }).server}", which this workspace does not configure (.vscode/mcp.json)`);
  const deprecated = m.deprecated ? [`${m.id} is deprecated by its service: it is kept for old flows and has a replacement`] : [];
  if (!data) {
    return { ready: false, runnable, missing, args, notes, coverage: required.length ? 0.5 : 1, ...(deprecated.length ? { caveats: deprecated } : {}) };
  }
  const task = opts.task ?? data.task;
  const named = namedInTask(task, data.items);
  // An archive the task names ("NDVI of S2B_….SAFE.zip") is the data meant: until it is extracted no
  // other file of its kind stands in for it.
  const archiveOf = (it: DataItem) => data.archives!.find((a) => a.path === it.path)!;
  const namedArchives = data.archives?.length ? namedInTask(task, data.archives.map((a) => ({ path: a.path, type: 'raster' as const }))).map(archiveOf) : [];
  const holdsKind = (a: ArchivedData, kind: string) => (kind === 'vector' ? a.vectors : a.rasters) > 0;
  // Files the task names that the data at hand lacks (a typo, a download not finished): the task
  // means them, so no other file of their kind stands in.
  const absent = task ? absentFor(task, data) : [];
  // Of those, the ones found but unreadable say why.
  const unreadableWhy = (name: string) => data.unreadable?.find((u) => isListed(name, [u.path]))?.reason;
  // A derived layer's name ("slope.tif" for a later zonal step) is not what a scene's bands or a DEM
  // input takes, so it holds back only inputs of values.
  const absentOf = (p: ToolParam) => {
    const kind = p.type === 'array' ? 'raster' : p.type;
    return absent.filter((a) => (a.kinds as string[]).includes(kind) && !(a.product && p.bands?.length));
  };
  const indicators = task ? [...new Set(parseQuery(task).slots.indicator ?? [])] : [];
  const mentions = new Map<DataItem, Mention>();
  const mention = (it: DataItem): Mention => {
    let m = mentions.get(it);
    if (!m) mentions.set(it, (m = task ? mentionOf(task, it) : { score: 0, at: Infinity, words: [] }));
    return m;
  };
  const isNamed = (it: DataItem) => named.some((n) => sameFile(n.path, it.path));
  const paramNames = new Set((m.inputs ?? []).map((p) => p.name));
  // Per input, what could feed it, best first: files the task names, then items whose bands say what
  // they are (in the context's order), then rasters fed by a guessed sensor.
  // What each input would take if the task said nothing: a mention is named only where it changed that.
  const unspoken: (DataItem | undefined)[] = [];
  const choices = required.map((p, i) => {
    const feeds = data.items.map((it) => feedOf(it, p, paramNames, isNamed(it))).filter((f): f is Feed => !!f);
    const ordered = orderForParam(p.name, feeds.map((f) => f.item), m).map((it) => feeds.find((f) => f.item === it)!);
    const mine = ordered.filter((f) => isNamed(f.item)).sort((a, b) => named.findIndex((n) => sameFile(n.path, a.item.path)) - named.findIndex((n) => sameFile(n.path, b.item.path)));
    const rest = ordered.filter((f) => !isNamed(f.item));
    // When the task names files of the input's kind, only those are its choices: a tool that cannot
    // use them is not ready on another file instead.
    const kind = p.type === 'array' ? 'raster' : p.type;
    if (named.some((n) => n.type === kind) || namedArchives.some((a) => holdsKind(a, kind)) || absentOf(p).length) return mine;
    // Then what the task speaks of without naming it ("the DEM", "the post-fire scene", "2018"). For a
    // pair of dates only whether it does, so that the earlier date still comes first.
    const pair = isPairParam(p.name);
    unspoken[i] = (rest.find((f) => !f.guessed) ?? rest[0])?.item;
    const byMention = (a: Feed, b: Feed) => {
      const ma = mention(a.item), mb = mention(b.item);
      return pair ? Number(mb.score > 0) - Number(ma.score > 0) : mb.score - ma.score || ma.at - mb.at;
    };
    const ranked = [...rest.filter((f) => !f.guessed).sort(byMention), ...rest.filter((f) => f.guessed).sort(byMention)];
    // An input that reads values takes a raster holding the task's indicator before any other.
    if (!p.values || !indicators.length) return ranked;
    const has = (f: Feed) => indicators.some((x) => holds(f.item, x));
    return [...ranked.filter(has), ...ranked.filter((f) => !has(f))];
  });
  const picks = assign(m, required, choices, (it) => (isNamed(it) ? Infinity : mention(it).score));
  let satisfied = 0;
  const caveats: string[] = [];
  for (let i = 0; i < required.length; i++) {
    const p = required[i];
    const pick = picks[i];
    const roles = p.bands ?? [];
    if (!pick) {
      const what = roles.length ? roles.filter((r) => !PRODUCT_ROLES.has(r)).map(roleLabel).join(' + ') || roles.map(roleLabel).join(' or ') : `a ${p.type}`;
      const kind = p.type === 'array' ? 'raster' : p.type;
      const mine = named.filter((n) => n.type === kind).map(fileName);
      const namedArchive = namedArchives.find((a) => holdsKind(a, kind));
      const archived = mine.length || namedArchive ? undefined : data.archives?.find((a) => holdsKind(a, kind));
      const gone = namedArchive || mine.length ? [] : absentOf(p);
      const why = gone.length ? unreadableWhy(gone[0].name) : undefined;
      notes.push(namedArchive ? `needs ${what} for ${p.name} — ${namedArchive.path}, which the task names, holds ${namedArchive.holds}: extract it first`
        : why ? `needs ${what} for ${p.name} — ${gone[0].name}, which the task names, cannot be read: ${why}`
        : gone[0]?.remote ? `needs ${what} for ${p.name} — ${gone[0].name}, which the task names, is read over HTTP when a cell runs; readiness checks files in the workspace only: give it in the cell (${p.name}: ${gone[0].name})`
        : gone[0]?.unread ? `needs ${what} for ${p.name} — ${gone[0].name}, which the task names, is ${gone[0].unread}, which GeoWeave does not read yet: convert it first (${convertHint(gone[0].name, kind)})`
        : gone.length ? `needs ${what} for ${p.name} — ${gone.map((g) => g.name).join(', ')}, which the task names, is not among the data found here${nearName(gone[0].name, data.items.filter((it) => it.type === kind))}`
        : mine.length ? `needs ${what} for ${p.name} — not in ${mine.join(', ')}, which the task names`
          : archived ? `needs ${what} for ${p.name} — none found; ${archived.path} holds ${archived.holds}: extract it first`
            : `needs ${what} for ${p.name} — none found`);
      missing.push(p.name);
      continue;
    }
    // An input that reads values (the manifest says so: zonal statistics, a threshold) would run on a
    // scene's first band; when the task asks about an indicator (mean NDVI per district) that is the
    // wrong input, and readiness must say the indicator is still to be made, not call the tool ready.
    // An elevation model is as plainly not the indicator: every indicator here (slope, aspect,
    // hillshade among them) is made from one, never is one ("mean slope per parcel" over dem.tif).
    const holding = !p.values ? undefined : isScene(pick.item) ? 'sensor bands' : findRole(pick.item, 'dem') ? 'elevation' : undefined;
    const wanted = holding ? indicators.filter((x) => !holds(pick.item, x)) : [];
    if (wanted.length && wanted.length === indicators.length) {
      notes.push(`needs the task's ${wanted.join(' / ')} for ${p.name} — ${fileName(pick.item)} holds ${holding}, not ${wanted.join(' / ')}: compute it first`);
      missing.push(p.name);
      continue;
    }
    satisfied++;
    args[p.name] = pick.item.path;
    // One variable of a NetCDF file of several, taken without the task naming it or the indicator
    // it asks about (a MODIS field whose name says NDVI, for "mean NDVI"): say which, and how to name another.
    const nv = LAYER_PATH.exec(pick.item.path);
    if (nv && task && !task.toLowerCase().includes(nv[2].toLowerCase()) && !indicators.some((x) => holds(pick.item, x))) {
      const others = data.items.filter((it) => it.path.startsWith(nv[1] + '#')).map((it) => it.path.slice(nv[1].length + 1));
      if (others.length > 1) caveats.push(`${path.basename(nv[1])} holds ${others.join(', ')}: ${nv[2]} is taken; name ${path.basename(nv[1])}#<variable> for another`);
    }
    const spoken = mention(pick.item);
    const swayed = spoken.score > 0 && !isNamed(pick.item) && unspoken[i] !== pick.item;
    const name = itemName(pick.item) + (isNamed(pick.item) ? ' (named in the task)' : swayed ? ` (the task's "${spoken.words.join('", "')}")` : '');
    const spectral = roles.filter((r) => SPECTRAL.has(r));
    if (spectral.length) {
      // One line per input naming every role it needs: "needs red, NIR — found in s2_scene.tif bands 3, 5".
      const product = pick.item.product;
      // A product's bands are files, each its own band 1: the path alone says where every band is.
      if (!product) for (const r of spectral) if (pick.bands[r] !== undefined && paramNames.has(r) && args[r] === undefined) args[r] = pick.bands[r];
      const found = spectral.map((r) => pick.bands[r]).filter((b): b is number => b !== undefined);
      const where = product
        ? ` files ${spectral.map((r) => pick.item.bands?.find((b) => b.role === r)?.description).filter(Boolean).join(', ')}`
        : found.length === spectral.length ? ` ${found.length > 1 ? 'bands' : 'band'} ${found.join(', ')}` : '';
      notes.push(`needs ${spectral.map(roleLabel).join(', ')} — ${pick.guessed ? 'guessed in' : 'found in'} ${name}${where}`);
      if (pick.guessed) {
        const g = pick.item.guess!;
        caveats.push(`${fileName(pick.item)} has no band descriptions: ${spectral.map(roleLabel).join(', ')} in ${found.length > 1 ? 'bands' : 'band'} ${found.join(', ')} is a guess (looks like ${g.label}: ${g.why})`);
      }
    } else if (roles.length) {
      const r = roles.find((x) => findRole(pick.item, x)) ?? roles[0];
      notes.push(`needs ${roleLabel(r)} — ${pick.guessed ? 'taken as such from' : 'found'} ${name}`);
      if (pick.guessed) caveats.push(`${fileName(pick.item)} does not say what it holds: taken as ${roleLabel(r)} because the task names it; check that it is`);
    } else {
      notes.push(`${p.name}: ${name}`);
    }
  }
  // Its service keeps it for old flows only: the reader should know before choosing it.
  caveats.push(...deprecated);
  // A service is sent what a cell names: an upload field gets the file, any other field its path,
  // which only a service on this machine can open. Ready, but the reader is told.
  if (m.runner?.type === 'http') {
    const uploaded = new Set([...(m.runner.files ?? (m.runner.body === 'multipart' ? required.map((p) => p.name) : [])), ...(m.runner.body === 'raw' ? ['body'] : [])]);
    const host = /^https?:\/\/([^/?#]+)/i.exec(m.runner.url)?.[1] ?? m.runner.url;
    required.forEach((p, i) => {
      const pick = picks[i];
      if (pick && !uploaded.has(p.name) && !/^(https?:\/\/|\/vsi)/i.test(pick.item.path)) caveats.push(`the service at ${host} is sent the path of ${fileName(pick.item)}, not the file: only a service on this machine can read it`);
    });
  }
  const issues = conflicts(m, picks.filter((f): f is Feed => !!f).map((f) => f.item));
  // What stops the run comes first: the reason line shows the first note.
  notes.unshift(...issues);
  const coverage = required.length ? satisfied / required.length : 1;
  // A value the analyst must choose (reclassify's breaks, a threshold's value) keeps the tool from
  // running as inserted, but says nothing about the data: it does not lower coverage.
  for (const p of m.inputs ?? []) {
    if (isDataParam(p) || p.required !== true || p.default !== undefined || chosenByRunner(m, p)) continue;
    notes.push(`set ${p.name} (${p.type}) — no default`);
    missing.push(p.name);
  }
  return {
    ready: runnable && missing.length === 0 && issues.length === 0, runnable, missing, args, notes, coverage,
    ...(issues.length ? { issues } : {}), ...(caveats.length ? { caveats } : {}),
  };
}

function conflicts(m: ToolManifest, items: DataItem[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < items.length; i++) {
    for (let j = i + 1; j < items.length; j++) {
      const c = conflict(m, items[i], items[j]);
      if (c && !out.includes(c)) out.push(c);
    }
  }
  return out;
}

/**
 * One item per input: distinct items for a pair of dates, and inputs that can run together when any
 * such choice exists (the first input's options tried in order, later inputs greedily).
 */
function assign(m: ToolManifest, params: ToolParam[], choices: Feed[][], spoken: (it: DataItem) => number = () => 0): (Feed | undefined)[] {
  const greedy = (first: Feed | undefined, compatible: boolean): (Feed | undefined)[] => {
    const out: (Feed | undefined)[] = [];
    const used = (it: DataItem) => out.some((f) => f && (f.item === it || sameFile(f.item.path, it.path)));
    params.forEach((p, i) => {
      if (i === 0 && first) return void out.push(first);
      const fits = (f: Feed) => !compatible || out.every((o) => !o || !conflict(m, o.item, f.item));
      const free = choices[i].filter((f) => !used(f.item));
      // Two inputs of the same kind (before/after, pre/post) take distinct items, in a time-aware order.
      // Only an input that reads bands of a file (red, NIR, a QA band) may take a file another input
      // already reads; one that takes a whole raster or product may not (align's image and reference,
      // an anomaly's image and baseline were both offered the one NDVI file).
      out.push(free.find(fits) ?? free[0] ?? (choices[i].length && sharesFile(p) ? choices[i][0] : undefined));
    });
    return out;
  };
  if (params.length > 1) {
    // When the task speaks of the data its first input takes first ("the Sentinel-2 NDVI"), a
    // combination that runs on other data instead (a Landsat QA band and its cloud mask) is no
    // answer: the data spoken of stays, and what keeps it from running is said.
    const said = choices[0].length ? spoken(choices[0][0].item) : 0;
    for (const first of choices[0]) {
      if (said > 0 && spoken(first.item) < said) break;
      const tryIt = greedy(first, true);
      if (tryIt.every((f) => f) && !conflicts(m, tryIt.map((f) => f!.item)).length) return tryIt;
    }
  }
  return greedy(undefined, false);
}

function sharesFile(p: ToolParam): boolean {
  return !isPairParam(p.name) && (p.bands ?? []).some((r) => SPECTRAL.has(r));
}

function isPairParam(name: string): boolean {
  return /^(before|after|pre|post|image[12]|a|b)$/i.test(name);
}

function orderForParam(name: string, items: DataItem[], m: ToolManifest): DataItem[] {
  // A baseline is the earlier period, and the image held against it the later one (ndvi_anomaly
  // took 2023 as the image and 2024 as the baseline).
  const againstBaseline = !/^baseline$/i.test(name) && (m.inputs ?? []).some((p) => /^baseline$/i.test(p.name));
  const late = /^(after|post|image2|b)$/i.test(name) || againstBaseline;
  const early = /^(before|pre|image1|a|baseline)$/i.test(name);
  if (!late && !early) return items;
  const key = (it: DataItem): number => {
    const base = path.basename(it.path).toLowerCase();
    if (/pre|before|old/.test(base)) return 0;
    if (/post|after|new/.test(base)) return 3000;
    const y = base.match(/(19|20)\d{2}/);
    return y ? Number(y[0]) : 1500;
  };
  const sorted = [...items].sort((a, b) => key(a) - key(b));
  return late ? sorted.reverse() : sorted;
}

/** The readiness a candidate shows: the whole result (where inputs were found, what stops a run, what is a guess). */
export function readinessOf(ex: ExecutabilityResult): Readiness {
  return { ready: ex.ready, runnable: ex.runnable, missing: ex.missing, args: ex.args, ...(ex.notes.length ? { notes: ex.notes } : {}), ...(ex.issues?.length ? { issues: ex.issues } : {}), ...(ex.caveats?.length ? { caveats: ex.caveats } : {}) };
}
