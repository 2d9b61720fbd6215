/** Can a tool run on the data at hand? Required inputs, band roles and a runner, with readable reasons. */
import * as path from 'path';
import type { ToolManifest, ToolParam } from '../manifests/types';
import type { DataContext, DataItem, Readiness } from './types';

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
function findRole(item: DataItem, role: string): { band?: number } | undefined {
  if (item.roles?.includes(role)) return {};
  const b = item.bands?.find((x) => x.role === role);
  if (b) return { band: b.index };
  if (role === 'dem' && /(^|[^a-z])(dem|dtm|dsm|srtm|elev\w*)([^a-z]|$)/i.test(path.basename(item.path))) return {};
  return undefined;
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

/** Evaluates readiness of `m` on `data`; without a data context only the runner is judged. */
export function executability(m: ToolManifest, data?: DataContext): ExecutabilityResult {
  const runnable = !!m.runner;
  const notes: string[] = [];
  const missing: string[] = [];
  const args: Record<string, unknown> = {};
  const required = (m.inputs ?? []).filter((p) => isDataParam(p) && p.required !== false);
  if (!runnable) notes.push('catalog only — no runner here');
  if (!data) {
    return { ready: false, runnable, missing, args, notes, coverage: required.length ? 0.5 : 1 };
  }
  const used: DataItem[] = [];
  const isUsed = (it: DataItem) => used.some((u) => u === it || sameFile(u.path, it.path));
  let satisfied = 0;
  const paramNames = new Set((m.inputs ?? []).map((p) => p.name));
  for (const p of required) {
    const options = data.items.filter((it) => canFeed(it, p).ok);
    // Two inputs of the same kind (before/after, pre/post) take distinct items, in a time-aware order.
    const pick = orderForParam(p.name, options).find((it) => !isUsed(it)) ?? (options.length && !isPairParam(p.name) ? options[0] : undefined);
    const roles = p.bands ?? [];
    if (!pick) {
      const what = roles.length ? roles.filter((r) => !PRODUCT_ROLES.has(r)).map(roleLabel).join(' + ') || roles.map(roleLabel).join(' or ') : `a ${p.type}`;
      notes.push(`needs ${what} for ${p.name} — none found`);
      missing.push(p.name);
      continue;
    }
    used.push(pick);
    satisfied++;
    args[p.name] = pick.path;
    const { bands } = canFeed(pick, p);
    const spectral = roles.filter((r) => SPECTRAL.has(r));
    if (spectral.length) {
      // One line per input naming every role it needs: "needs red, NIR — found in s2_scene.tif bands 3, 5".
      for (const r of spectral) if (bands[r] !== undefined && paramNames.has(r)) args[r] = bands[r];
      const found = spectral.map((r) => bands[r]).filter((b): b is number => b !== undefined);
      const where = found.length === spectral.length ? ` ${found.length > 1 ? 'bands' : 'band'} ${found.join(', ')}` : '';
      notes.push(`needs ${spectral.map(roleLabel).join(', ')} — found in ${itemName(pick)}${where}`);
    } else if (roles.length) {
      const r = roles.find((x) => findRole(pick, x)) ?? roles[0];
      notes.push(`needs ${roleLabel(r)} — found ${itemName(pick)}`);
    } else {
      notes.push(`${p.name}: ${itemName(pick)}`);
    }
  }
  const coverage = required.length ? satisfied / required.length : 1;
  // A value the analyst must choose (reclassify's breaks, a threshold's value) keeps the tool from
  // running as inserted, but says nothing about the data: it does not lower coverage.
  for (const p of m.inputs ?? []) {
    if (isDataParam(p) || p.required !== true || p.default !== undefined) continue;
    notes.push(`set ${p.name} (${p.type}) — no default`);
    missing.push(p.name);
  }
  return { ready: runnable && missing.length === 0, runnable, missing, args, notes, coverage };
}

function isPairParam(name: string): boolean {
  return /^(before|after|pre|post|image[12]|a|b)$/i.test(name);
}

function orderForParam(name: string, items: DataItem[]): DataItem[] {
  const late = /^(after|post|image2|b)$/i.test(name);
  const early = /^(before|pre|image1|a)$/i.test(name);
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
