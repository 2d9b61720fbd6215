/**
 * Products delivered a file per band, seen as the scene they are: the single-band files of one
 * Landsat C2 scene or Sentinel-2 granule (see raster/band-files.ts) become one data item whose bands
 * are those files, so readiness finds "red, NIR in LC09_…/ (SR_B4, SR_B5)" where it saw only unrelated
 * one-band rasters. The item's path is the folder when the folder holds only that product (the
 * engine reads a folder as its product), else one of its band files (the engine takes the others
 * from beside it).
 */
import * as path from 'path';
import type { DataItem } from '../retrieval/types';
import { bandFileOf } from '../raster/band-files';
import { SENSOR_NAMES } from '../raster/sensor-presets';

/** `items` plus one item per product of two or more band files, products first. */
export function withBandProducts(items: DataItem[]): DataItem[] {
  const groups = new Map<string, { dir: string; sensor: string; files: { item: DataItem; role: string; token: string }[] }>();
  const perDir = new Map<string, Set<string>>();
  for (const item of items) {
    if (item.type !== 'raster' || item.producedBy || (item.bands?.length ?? 0) !== 1) continue;
    const b = bandFileOf(item.path);
    if (!b) continue;
    // A SAFE's R10m, R20m and R60m folders hold one granule: its bands at three resolutions.
    const dir = path.dirname(item.path).replace(/[\\/]R(10|20|60)m$/, '');
    const key = `${dir}\u0001${b.sensor}\u0001${b.product}`;
    (perDir.get(dir) ?? perDir.set(dir, new Set()).get(dir)!).add(key);
    const g = groups.get(key) ?? groups.set(key, { dir, sensor: b.sensor, files: [] }).get(key)!;
    if (!g.files.some((f) => f.role === b.role)) g.files.push({ item, role: b.role, token: b.token });
  }
  const products: DataItem[] = [];
  for (const g of groups.values()) {
    if (g.files.length < 2) continue;
    const first = g.files[0].item;
    const alone = perDir.get(g.dir)!.size === 1 && g.dir !== '.' && g.dir !== '';
    // A SAFE granule is shown (and named in tasks) as the .SAFE folder the analyst downloaded; the engine
    // goes down from there (raster/band-files.ts safeBandFolder).
    const safe = /^(.*\.SAFE)[\\/]GRANULE[\\/][^\\/]+[\\/]IMG_DATA$/i.exec(g.dir)?.[1];
    products.push({
      path: alone ? safe ?? g.dir : (g.files.find((f) => f.role === 'red') ?? g.files[0]).item.path,
      type: 'raster',
      bands: g.files.map((f, i) => ({ index: i + 1, role: f.role, description: f.token })),
      roles: g.files.filter((f) => !['qa', 'thermal'].includes(f.role)).length >= 2 ? ['multispectral'] : [],
      product: { sensor: SENSOR_NAMES[g.sensor as keyof typeof SENSOR_NAMES], files: Object.fromEntries(g.files.map((f) => [f.role, f.item.path])) },
      ...(first.crs ? { crs: first.crs } : {}),
      ...(first.extent ? { extent: first.extent } : {}),
      ...(first.lonLat ? { lonLat: first.lonLat } : {}),
      ...(first.grid ? { grid: first.grid } : {}),
    });
  }
  return products.length ? [...products, ...items] : items;
}
