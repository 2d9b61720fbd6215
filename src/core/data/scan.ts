/** The data at hand in a folder: rasters described by their headers (band roles, CRS, grid, a
 *  guessed sensor when bands say nothing), GeoJSON, Shapefiles, GeoPackages and KML by CRS and extent, tables by extension. Used by the CLI's `--data DIR`; the extension lists files through
 *  VS Code and shares `orderDataItems`. */
import * as fs from 'fs';
import * as path from 'path';
import type { DataContext, DataItem } from '../retrieval/types';
import { describeRaster } from '../raster/engine';
import { listsLayers, RASTER_FILE } from '../raster/raster-files';
import { describeVector } from './vector';
import { VECTOR_DATA } from '../raster/vector/formats';
import { withBandProducts } from './band-products';
import { ARCHIVE_FILE, describeArchive } from './archive/archive';
import { whyUnreadable } from './unreadable';
import { gridLayers } from '../raster/io/layers';

const RASTER = RASTER_FILE;
const VECTOR = VECTOR_DATA;
const TABLE = /\.csv$/i;
const DATA = new RegExp(`${RASTER.source}|${VECTOR.source}|${TABLE.source}`, 'i');
const SKIP_DIRS = new Set(['node_modules', '.git', '.geoweave', '.geoweave-state', 'out']);

/** Files with data under `dir` (workspace-relative, sorted), at most `maxDepth` folders deep; inside
 *  a Sentinel-2 `.SAFE` folder four more (its bands sit in GRANULE/<granule>/IMG_DATA/R10m). */
export function listDataFiles(dir: string, maxDepth = 3, want: RegExp = DATA): string[] {
  const found: string[] = [];
  const walk = (rel: string, depth: number, limit: number) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(dir, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const child = rel ? path.join(rel, e.name) : e.name;
      if (e.isDirectory()) {
        if (depth < limit && !SKIP_DIRS.has(e.name) && !e.name.startsWith('.')) walk(child, depth + 1, /\.SAFE$/i.test(e.name) ? Math.max(limit, depth + 5) : limit);
      } else if (want.test(e.name) && regularFile(path.join(dir, child), e)) {
        found.push(child);
      }
    }
  };
  walk('', 0, maxDepth);
  return withoutEnviData(found).sort();
}

/**
 * `.img` files are rasters (ERDAS Imagine) unless an ENVI header is beside them (`scene.img` +
 * `scene.hdr` or `scene.img.hdr`): that raster is listed once, as its header.
 */
function withoutEnviData(found: string[]): string[] {
  const names = new Set(found.map((f) => f.toLowerCase()));
  return found.filter((f) => !/\.img$/i.test(f) || !(names.has(`${f.slice(0, -4)}.hdr`.toLowerCase()) || names.has(`${f}.hdr`.toLowerCase())));
}

/**
 * A regular file, or a link to one. A FIFO or device named `scene.tif` would block the first read of it
 * for good (a blocked read cannot be cancelled), and a scan runs while the analyst waits for the panel.
 */
function regularFile(p: string, e: fs.Dirent): boolean {
  if (e.isFile()) return true;
  if (!e.isSymbolicLink()) return false;
  try { return fs.statSync(p).isFile(); } catch { return false; }
}

/** Rasters with the most band roles first: retrieval resolves arguments from the first item
 *  that fits, and the richest scene is what an analyst usually means. */
export function orderDataItems(items: DataItem[]): DataItem[] {
  const roleCount = (it: DataItem) => (it.bands ?? []).filter((b) => b.role).length;
  return [...items].sort((a, b) => roleCount(b) - roleCount(a) || a.path.localeCompare(b.path));
}

/** Describes every data file under `dir`; unreadable rasters are reported through `warn` and left out. */
export async function scanDataFolder(dir: string, warn: (msg: string) => void = () => {}): Promise<DataContext> {
  const items: DataItem[] = [];
  const unreadable: { path: string; reason: string }[] = [];
  for (const rel of listDataFiles(dir)) {
    if (VECTOR.test(rel)) items.push(describeVector(rel, dir));
    else if (TABLE.test(rel)) items.push({ path: rel, type: 'table' });
    else {
      // A NetCDF file of several gridded variables is one item per variable (era5.nc#t2m), an HDF4
      // file of several grid fields one per field (MOD13Q1.hdf#250m 16 days NDVI), a GRIB file of
      // several messages one per message (era5.grib#2T, gfs.grib2#TMP:85000-ISBL); a MODIS or VIIRS
      // reflectance file is its scene (the file itself) besides its fields, a GRIB file its first
      // grid's messages as bands. Whether any layer was described: a file none of whose layers
      // opens is reported unreadable, not dropped.
      const layers = async (): Promise<boolean> => {
        const vars = await gridLayers(path.resolve(dir, rel), warn).catch(() => []);
        let described = 0;
        for (const v of vars.length > 1 ? vars : []) {
          try {
            items.push({ ...(await describeRaster(`${rel}#${v}`, dir)), path: `${rel}#${v}` });
            described++;
          } catch (ev) {
            warn(`cannot describe ${rel}#${v}: ${(ev as Error).message}`);
          }
        }
        return described > 0;
      };
      try {
        const item = await describeRaster(rel, dir);
        items.push({ ...item, path: rel });
        if (listsLayers(rel, item.bands?.length ?? 0)) await layers();
      } catch (e) {
        if (listsLayers(rel, undefined) && await layers()) continue;
        warn(`cannot describe ${rel}: ${(e as Error).message}`);
        unreadable.push({ path: rel, reason: whyUnreadable(e, path.resolve(dir, rel)) });
      }
    }
  }
  return { items: orderDataItems(withBandProducts(items)), ...(await archivedData(dir, warn)), ...(unreadable.length ? { unreadable } : {}) };
}

/** The archives under `dir` that hold data and are not extracted yet, for readiness to point at. */
export async function archivedData(dir: string, warn: (msg: string) => void = () => {}, files = listDataFiles(dir, 3, ARCHIVE_FILE)): Promise<Pick<DataContext, 'archives'>> {
  const archives: NonNullable<DataContext['archives']> = [];
  for (const rel of files) {
    try {
      const a = await describeArchive(rel, dir);
      if (!a.extracted && a.rasters + a.vectors > 0) archives.push({ path: rel, holds: a.holds, rasters: a.rasters, vectors: a.vectors });
    } catch (e) {
      warn(`cannot list ${rel}: ${(e as Error).message}`);
    }
  }
  return archives.length ? { archives } : {};
}
