/** File names a task spells out ("NDVI for LC09_…_SR_B4.TIF", "zones in fields.gpkg", "the
 *  S2A_….SAFE"), so a workspace scan can check them on the spot: a file downloaded a moment before
 *  the task was typed may not be in a file list kept from the watcher's last report, and readiness
 *  on that list would answer for another file. */
import { RASTER_GLOB_EXTENSIONS, fileLayer } from '../raster/raster-files';
import { VECTOR_DATA, VECTOR_GLOB_EXTENSIONS } from '../raster/vector/formats';
import { ARCHIVE_FILE, ARCHIVE_GLOB_EXTENSIONS } from './archive/archive';

/** The binary halves of raw rasters GeoWeave reads through their header (ENVI, ESRI .hdr): an
 *  analyst names the file USGS delivered ("n37_w122_1arc_v3.bil"), the scan lists its .hdr. */
export const RAW_DATA_EXTENSIONS = ['bil', 'bip', 'bsq', 'flt', 'img', 'dat', 'raw'];
const RAW_DATA = new RegExp(`\\.(${RAW_DATA_EXTENSIONS.join('|')})$`, 'i');

/** Geodata formats GeoWeave does not read yet, by extension: a task naming one gets told so and
 *  how to convert it, instead of an answer for another file. */
const UNREAD: { exts: string[]; format: string; kind: 'raster' | 'vector' }[] = [
  { exts: ['hdf4', 'h4', 'he4'], format: 'HDF', kind: 'raster' },
  { exts: ['sid', 'ecw'], format: 'MrSID/ECW', kind: 'raster' },
  { exts: ['las', 'laz'], format: 'LAS point cloud', kind: 'raster' },
  { exts: ['gdb'], format: 'Esri file geodatabase', kind: 'vector' },
  { exts: ['tab', 'mif'], format: 'MapInfo', kind: 'vector' },
  { exts: ['gml', 'dxf'], format: 'GML/DXF', kind: 'vector' },
];
const extensionOf = (name: string) => /\.([^./]+)$/.exec(name.toLowerCase())?.[1] ?? '';

const EXTENSIONS = [...new Set([...RASTER_GLOB_EXTENSIONS, ...VECTOR_GLOB_EXTENSIONS, ...ARCHIVE_GLOB_EXTENSIONS, 'safe', ...RAW_DATA_EXTENSIONS, ...UNREAD.flatMap((u) => u.exts)].map((e) => e.toLowerCase()))]
  // "tar.gz" before "gz"-less "tar": the longer ending wins.
  .sort((a, b) => b.length - a.length)
  .map((e) => e.replace(/\./g, '\\.'));
// A name is a run of letters, digits and _ . - / \ (a relative path) ending in a data extension.
// Tasks are cut into such runs first (Han characters and everything else end one: "对L7_ETMs.tif计算"),
// so finding names takes one pass however long the text.
const ENDING = new RegExp(`[\\p{L}\\p{M}\\p{N}_\\-]\\.(?:${EXTENSIONS.join('|')})$`, 'iu');
const RUN = /[^\p{L}\p{M}\p{N}_.\-/\\]+|\p{Script=Han}+/u;

/** The file names (or workspace-relative paths) in `task`, as written, in order, without repeats. */
export function fileNamesIn(task: string): string[] {
  const out = new Set<string>();
  for (const raw of task.split(RUN)) {
    // A sentence's full stop is not part of the name; a URL's path (see urlsIn) is no workspace file.
    const token = trimEnd(raw, '.');
    if (!token || token.startsWith('//') || !ENDING.test(token)) continue;
    out.add(token.replace(/\\/g, '/').replace(/^(\.\/)+/, ''));
  }
  return [...out];
}

/** `s` without the trailing characters among `chars` (a loop: a regex would backtrack on long runs). */
function trimEnd(s: string, chars: string): string {
  let end = s.length;
  while (end > 0 && chars.includes(s[end - 1])) end--;
  return s.slice(0, end);
}

/**
 * Of the names in `task`, those that no listed path (workspace-relative, "/" separated) is or lies
 * in, compared without case: "S2B_….SAFE" is listed when one of its band files is.
 */
export function unlistedNames(task: string, listed: readonly string[]): string[] {
  return fileNamesIn(task).filter((name) => !isListed(name, listed));
}

/** Whether one of the `listed` paths is the file `name` names, holds it (a folder), or is its header or variable. */
export function isListed(name: string, listed: readonly string[]): boolean {
  const n = name.toLowerCase();
  // A raw raster's data file is listed as its header.
  const header = RAW_DATA.test(n) ? n.replace(RAW_DATA, '.hdr') : undefined;
  return listed.some((l) => {
    const p = l.replace(/\\/g, '/').toLowerCase();
    // A variable of a NetCDF file (era5.nc#t2m, s5p.nc#PRODUCT/ch4) lists its file.
    const file = fileLayer(p)?.file ?? p;
    return p === n || p.endsWith('/' + n) || p.startsWith(n + '/') || p.includes('/' + n + '/') || file === n || file.endsWith('/' + n) || (!!header && (p === header || p.endsWith('/' + header)));
  });
}

/** http(s) URLs of rasters in `task` (a COG GeoWeave reads with range requests when a cell runs). */
export function urlsIn(task: string): string[] {
  const out = new Set<string>();
  for (const raw of task.split(/[\s"'<>()]+/)) {
    const url = trimEnd(raw, '.,;:!?');
    if (/^https?:\/\/[^/?#]+\/[^?#]*\.(?:tiff?|jp2|vrt)(?:\?[^#]*)?$/i.test(url)) out.add(url);
  }
  return [...out];
}

/** A file the task names that the data at hand lacks, with the kinds of input it would have fed,
 *  and the format when it is one GeoWeave does not read (the file may well be there). */
export interface AbsentName {
  name: string;
  kinds: ('raster' | 'vector')[];
  unread?: string;
  /** An http(s) URL: read when a cell runs, never fetched to judge readiness. */
  remote?: boolean;
  /** The name is that of a derived layer ("slope.tif", "ndvi_2024.tif", "burn_mask.tif"): it can be
   *  what an input of values takes, not a scene's bands or a DEM. */
  product: boolean;
}

/** Words of derived layers in file names: indices, terrain derivatives, masks, classes. */
const PRODUCT = /(^|[^a-z])(slope|aspect|hillshade|curvature|tpi|tri|ndvi|evi|savi|ndwi|mndwi|ndbi|ndmi|nbr|dnbr|rdnbr|lst|mask|class|classes|classified|classification|landcover|lulc|severity|flow|accumulation|distance|buffer|change|diff|difference|zones?|stats)([^a-z]|$)/;

/**
 * The names in `task` that none of `paths` is (see unlistedNames): a typo, or a file not yet
 * downloaded. The task means that file, so readiness must not answer for another one. An archive
 * counts as there when what it unpacks to is ("S2B_….SAFE.zip" once the .SAFE is extracted).
 */
export function absentNames(task: string, paths: readonly string[]): AbsentName[] {
  const out: AbsentName[] = urlsIn(task).filter((u) => !paths.includes(u)).map((name) => ({ name, kinds: ['raster'], remote: true, product: false }));
  for (const name of unlistedNames(task, paths)) {
    if (ARCHIVE_FILE.test(name)) {
      if (isListed(name.replace(ARCHIVE_FILE, ''), paths)) continue;
      out.push({ name, kinds: ['raster', 'vector'], product: false });
    } else {
      const product = PRODUCT.test(name.toLowerCase().replace(/^.*\//, '').replace(/\.[^.]+$/, ''));
      const unread = UNREAD.find((u) => u.exts.includes(extensionOf(name)));
      if (unread) out.push({ name, kinds: [unread.kind], unread: unread.format, product });
      else out.push({ name, kinds: VECTOR_DATA.test(name) ? ['vector'] : ['raster'], product });
    }
  }
  return out;
}
