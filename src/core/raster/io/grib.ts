/**
 * GRIB files (editions 1 and 2: ERA5 from CDS, GFS, ECMWF open data) as GDAL's GRIB driver opens
 * them: one Float64 band per field, with GDAL's band descriptions (`2[m] HTGL="Specified height
 * level above ground"`) and GRIB_* metadata, on the grid of the first field. A field's values are
 * one bitstream, so a window decodes the whole field; decoded fields stay in a cache bounded in
 * bytes, so reading a band window by window decodes it once.
 *
 * Messages on another grid than the first are left out, with a warning naming them and how to split
 * the file (grib_copy, cdo splitgrid). GDAL 3.6 lists them as bands too, but crops or pads each onto
 * the first grid under the first grid's georeferencing (it warns that "georeferencing may be
 * incorrect"): values placed where they are not, which a notebook would compute with silently. A
 * file of several grids is rare in practice (ECMWF open data and GFS files are on one grid each), so
 * the first grid's bands, equal to GDAL's, and a clear note of the rest serve better than layers.
 *
 * `file.grib2#N` (or `#TMP`, `#TMP:2-HTGL`: grib-select.ts) opens one field as a one-band raster on its
 * own grid, so a field on another grid than the first is read there too.
 */
import * as fs from 'fs';
import type { GeoInfo, RasterDataset } from './dataset';
import { MAX_RASTER_PIXELS, MAX_RASTER_SIDE, toFloat } from './dataset';
import type { DType, TypedArray } from './samples';
import { windowTarget } from './window-check';
import { gridCrs, lonLatPlacement, northUp, projectedPlacement, type GribGrid } from './grib-grid';
import { grib2Fields, type GribField, type ReadAt } from './grib2-sections';
import { grib1Field } from './grib1-sections';
import { decodeField } from './grib-decode';
import { selectField } from './grib-select';
import * as path from 'node:path';

/** Bytes at the start searched for "GRIB" (GDAL allows a WMO bulletin header before the first message). */
const SEARCH_HEAD = 1024;
/** Bytes decoded fields may hold in the cache (at least one field is always kept). */
const CACHE_BYTES = 256 << 20;
/** Bytes read at once from the start of each message for its sections 1–6 (read again where they run past). */
const MESSAGE_HEAD = 16 << 10;
/** Messages listed in one file at most (a GFS file has ~700). */
const MAX_MESSAGES = 100_000;

/** Where the first message starts: "GRIB" within the first bytes (after a WMO header), or −1. */
export function gribStart(head: Uint8Array): number {
  const h = Buffer.from(head.buffer, head.byteOffset, Math.min(head.length, SEARCH_HEAD)).toString('latin1');
  const i = h.indexOf('GRIB');
  return i >= 0 && i + 8 <= h.length && (head[i + 7] === 1 || head[i + 7] === 2) ? i : -1;
}

/** Whether a file's first bytes are a GRIB message's (possibly after a short WMO header). */
export function isGrib(head: Uint8Array): boolean { return gribStart(head) >= 0; }

/**
 * Every field of every message of a GRIB file of `size` bytes, in file order, from the section
 * headers only (no data is decoded): what the dataset opens and what the listing of its messages
 * (grib-layers.ts) names. Warnings name the file; errors do not (the caller adds it).
 */
export async function gribFields(readAt: ReadAt, size: number, file: string, signal?: AbortSignal): Promise<{ fields: GribField[]; warnings: string[] }> {
  const fields: GribField[] = [], warnings: string[] = [];
  const head = await readAt(0, Math.min(size, SEARCH_HEAD));
  let at = gribStart(head);
  if (at < 0) throw new Error('not a GRIB file (no "GRIB" in its first bytes)');
  for (let m = 1; at >= 0 && at + 8 <= size; m++) {
    signal?.throwIfAborted();
    if (m > MAX_MESSAGES) throw new Error(`holds more than ${MAX_MESSAGES} messages; split it (grib_copy) first`);
    // The message's first bytes in one read: its indicator and its small sections are there (a GFS file has ~700 messages).
    const h = await readAt(at, Math.min(MESSAGE_HEAD, size - at));
    if (h.toString('latin1', 0, 4) !== 'GRIB') {
      // Padding between messages (some archives align to 4 or 8 bytes): look a little further.
      const next = (await readAt(at, Math.min(SEARCH_HEAD, size - at))).indexOf('GRIB');
      if (next > 0) { at += next; m--; continue; }
      if (fields.length) { warnings.push(`${file}: ${size - at} bytes after message ${m - 1} are not a GRIB message; ignored`); break; }
      throw new Error(`message ${m} does not start with "GRIB"`);
    }
    const edition = h[7];
    const what = `message ${m}`;
    let length: number;
    if (edition === 2) {
      if (h.length < 16) throw new Error(`${what} is cut short (${h.length} bytes)`);
      length = Number(h.readBigUInt64BE(8));
    } else if (edition === 1) length = h.readUIntBE(4, 3);
    else throw new Error(`${what} is GRIB edition ${edition}; GeoWeave reads editions 1 and 2`);
    if (length < 16 || at + length > size) throw new Error(`${what} claims ${length} bytes, and ${size - at} are left in the file; it is cut short or damaged`);
    const start = at, head = h.subarray(0, Math.min(length, MESSAGE_HEAD));
    const read: ReadAt = (p, n) => (p >= start && p + n <= start + head.length ? Promise.resolve(head.subarray(p - start, p - start + n)) : readAt(p, n));
    if (edition === 2) fields.push(...await grib2Fields(read, at, at + length, m, what));
    else fields.push(await grib1Field(read, at, at + length, m, what));
    at += length;
  }
  return { fields, warnings };
}

/** Files whose field lists are kept (the scan opens each listed message of one file in turn). */
const FIELD_CACHE_FILES = 4;
/** Fields kept across those files at most (a field's headers take ~1 KB). */
const FIELD_CACHE_FIELDS = 200_000;
/** Field lists by file, size, modification time and inode, most recently used last. */
const fieldCache = new Map<string, { fields: GribField[]; warnings: string[] }>();

/**
 * gribFields, kept per file while it is unchanged: the scan, the workspace list and a notebook open
 * `gfs.grib2#1` … `#700` one after another, and parsing ~700 headers for each is quadratic (1000
 * fields took 98 s). The lists are shared and never changed by their users.
 */
export async function cachedGribFields(fh: fs.promises.FileHandle, readAt: ReadAt, file: string, signal?: AbortSignal): Promise<{ fields: GribField[]; warnings: string[] }> {
  const st = await fh.stat({ bigint: true });
  const key = `${file}\0${st.size}\0${st.mtimeNs}\0${st.ino}\0${st.dev}`;
  const hit = fieldCache.get(key);
  if (hit) { fieldCache.delete(key); fieldCache.set(key, hit); return hit; }
  const got = await gribFields(readAt, Number(st.size), file, signal);
  for (const k of fieldCache.keys()) if (k.startsWith(`${file}\0`)) fieldCache.delete(k); // an older version of the file
  fieldCache.set(key, got);
  const total = () => [...fieldCache.values()].reduce((n, v) => n + v.fields.length, 0);
  while (fieldCache.size > FIELD_CACHE_FILES || (fieldCache.size > 1 && total() > FIELD_CACHE_FIELDS)) fieldCache.delete(fieldCache.keys().next().value!);
  return got;
}

export class GribDataset implements RasterDataset {
  width = 0; height = 0; bandCount = 0; blockWidth = 0; blockHeight = 1;
  dtype: DType = 'float64'; geo!: GeoInfo; nodata: number | null = null;
  bandDescriptions: (string | null)[] = []; scales: number[] = []; offsets: number[] = [];
  /** GDAL's GRIB_* metadata of each band (GRIB_ELEMENT, GRIB_SHORT_NAME, GRIB_VALID_TIME, GRIB_UNIT…). */
  bandMetadata: Record<string, string>[] = [];
  warnings?: string[];
  private fields: GribField[] = [];
  private grid!: GribGrid;
  private split = 0;
  private fh?: fs.promises.FileHandle;
  private size = 0;
  private closed = false;
  /** Decoded bands (north-up rows), most recently used last. */
  private cache = new Map<number, Promise<Float64Array>>();

  /** The name that opens this raster again (`gfs.grib2#5` for one message): the pixel pipeline reopens its inputs by it. Messages name the file. */
  readonly source: string;

  /** `selector`: the one message to read (`5`, `TMP`, `TMP:2-HTGL`), for `file#selector`; every field on the first grid otherwise. */
  constructor(private readonly file: string, private fail: (message: string) => Error, private readonly selector?: string) {
    this.source = selector === undefined ? file : `${file}#${selector}`;
  }

  private readonly readAt: ReadAt = async (at, n) => {
    if (!this.fh) throw this.fail(`${this.file}: dataset is closed`);
    if (at < 0 || n < 0 || at + n > this.size) throw new Error(`a read of ${n} bytes at ${at} runs past the end of the file (${this.size} bytes); the file is cut short`);
    const b = Buffer.alloc(n);
    const { bytesRead } = await this.fh.read(b, 0, n, at);
    if (bytesRead < n) throw new Error(`the file ended while reading ${n} bytes at ${at}; it changed since it was opened`);
    return b;
  };

  async init(signal?: AbortSignal): Promise<void> {
    this.fh = await fs.promises.open(this.file, 'r');
    try {
      this.size = (await this.fh.stat()).size;
      await this.listFields(signal);
      if (this.selector !== undefined) this.fields = [this.fields[selectField(this.fields, this.selector, this.file) - 1]];
      this.place();
    } catch (e) {
      await this.close();
      if (signal?.aborted) throw e;
      throw this.fail(`${this.file}: ${(e as Error).message.replace(`${this.file}: `, '')}`);
    }
  }

  /** Every field of every message, in file order. */
  private async listFields(signal?: AbortSignal): Promise<void> {
    const { fields, warnings } = await cachedGribFields(this.fh!, this.readAt, this.file, signal);
    this.fields = fields;
    if (warnings.length) (this.warnings ??= []).push(...warnings);
  }

  /** The raster: the first field's grid, and the fields on it (see the file comment for the others). */
  private place(): void {
    const first = this.fields[0];
    if ('refused' in first.grid) throw new Error(first.grid.refused);
    const g = first.grid;
    if (!(g.nx >= 1 && g.ny >= 1) || g.nx > MAX_RASTER_SIDE || g.ny > MAX_RASTER_SIDE || g.nx * g.ny > MAX_RASTER_PIXELS) {
      throw new Error(`message ${first.message} is on a ${g.nx}×${g.ny} grid; GeoWeave reads grids up to ${MAX_RASTER_SIDE} points a side`);
    }
    const same = (f: GribField) => !('refused' in f.grid) && f.grid.nx === g.nx && f.grid.ny === g.ny;
    let n = 0;
    while (n < this.fields.length && same(this.fields[n])) n++;
    if (n < this.fields.length) {
      const rest = this.fields.slice(n).map((f) => f.message);
      (this.warnings ??= []).push(`${this.file}: messages ${[...new Set(rest)].join(', ')} are on another grid than message 1 and are not read (as GDAL); open one by its band number, as ${path.basename(this.file)}#${n + 1}, or split the file by grid (grib_copy, or cdo splitgrid) to read them`);
      this.fields = this.fields.slice(0, n);
    }
    this.grid = g;
    this.width = g.nx; this.height = g.ny; this.blockWidth = g.nx;
    this.bandCount = n;
    if (g.projection && !(g.dx > 0 && g.dy > 0)) throw new Error(`message ${first.message} gives grid increments ${g.dx} × ${g.dy}; the grid cannot be placed`);
    const { geoTransform, split } = g.projection ? { geoTransform: projectedPlacement(g), split: 0 } : lonLatPlacement(g);
    this.split = split;
    this.geo = { ...gridCrs(g), geoTransform };
    this.bandDescriptions = this.fields.map((f) => f.description);
    this.bandMetadata = this.fields.map((f) => f.metadata);
    this.scales = new Array(n).fill(1);
    this.offsets = new Array(n).fill(0);
    this.nodata = this.fields.find((f) => f.nodata !== null)?.nodata ?? null;
  }

  /** A band's values, north-up, decoded once and kept while the cache has room. */
  private band(band: number, signal?: AbortSignal): Promise<Float64Array> {
    let p = this.cache.get(band);
    if (p) {
      this.cache.delete(band);
      this.cache.set(band, p);
      return p;
    }
    const f = this.fields[band - 1];
    p = decodeField(this.readAt, f, this.grid, signal)
      .then((values) => northUp(values, this.grid, this.split))
      .catch((e) => {
        this.cache.delete(band);
        if (signal?.aborted) throw e;
        throw this.fail(`${this.file}: band ${band} (message ${f.message}): ${(e as Error).message}`);
      });
    this.cache.set(band, p);
    const perBand = this.width * this.height * 8;
    while (this.cache.size > Math.max(1, Math.floor(CACHE_BYTES / perBand))) this.cache.delete(this.cache.keys().next().value!);
    return p;
  }

  async readWindowRaw(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal, into?: ArrayLike<number>): Promise<TypedArray> {
    const out = windowTarget(this, !this.closed && !!this.fh, this.fail, band, x, y, w, h, into);
    signal?.throwIfAborted();
    const all = await this.band(band, signal);
    for (let r = 0; r < h; r++) out.set(all.subarray((y + r) * this.width + x, (y + r) * this.width + x + w), r * w);
    return out;
  }

  async readWindow(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal): Promise<Float32Array> {
    return toFloat(await this.readWindowRaw(band, x, y, w, h, signal), this.nodata, 1, 0, false);
  }

  tileCacheUse(): { tiles: number; bytes: number } {
    return { tiles: this.cache.size, bytes: this.cache.size * this.width * this.height * 8 };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.cache.clear();
    await this.fh?.close().catch(() => undefined);
    this.fh = undefined;
  }
}
