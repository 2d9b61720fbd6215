/**
 * ESRI ASCII grids (`.asc`): how many national mapping agencies, hydrological models and DEM portals
 * deliver elevation and model output (OS Terrain 50, OpenTopography, WorldClim's older files). A
 * header of keyword lines (ncols, nrows, xllcorner/xllcenter, yllcorner/yllcenter, cellsize or
 * dx/dy, NODATA_value), then ncols × nrows numbers in rows from the north, split over lines as the
 * writer liked. Read as GDAL's AAIGrid driver reads it: one band, Int32 unless a number (or the
 * nodata value) has a decimal point, a comma or an exponent, then Float32; a centre origin is moved
 * half a cell; the CRS from the `.prj` beside it. The file is scanned once on open (GDAL scans it
 * for the data type too) to find where each row starts, so a window reads only its rows.
 */
import * as fs from 'fs';
import type { GeoInfo, RasterDataset } from './dataset';
import { toFloat } from './dataset';
import { type DType, type TypedArray } from './samples';
import { windowTarget } from './window-check';
import { prjBeside, prjCrs } from './ehdr';

/** The keywords that can open an ASCII grid (GDAL's Identify). */
const FIRST = /^(ncols|nrows|xllcorner|yllcorner|xllcenter|yllcenter|dx|dy|cellsize)\b/i;
const CHUNK = 1 << 20;
const FLT_MAX = 3.4028234663852886e38;

/** Whether the first bytes of a file are an ASCII grid's header. */
export function isAsciiGrid(head: Buffer): boolean {
  return FIRST.test(head.toString('latin1'));
}

export class AsciiGridDataset implements RasterDataset {
  width = 0; height = 0; bandCount = 1; blockWidth = 0; blockHeight = 1;
  dtype: DType = 'int32'; geo!: GeoInfo; nodata: number | null = null;
  bandDescriptions: (string | null)[] = [null]; scales = [1]; offsets = [0];
  warnings?: string[];
  /** Byte offset where each row's first number starts (height + 1 entries; the last is the data's end). */
  private rowAt = new Float64Array(0);
  private fh?: fs.promises.FileHandle;
  private closed = false;

  constructor(readonly source: string, private fail: (message: string) => Error) {}

  async init(signal?: AbortSignal): Promise<void> {
    this.fh = await fs.promises.open(this.source, 'r');
    try {
      const size = (await this.fh.stat()).size;
      const head = Buffer.alloc(Math.min(size, 4096));
      await this.fh.read(head, 0, head.length, 0);
      const { keys, dataStart } = this.header(head.toString('latin1'));
      const int = (k: string) => {
        const v = keys.get(k);
        const n = v === undefined ? NaN : Number.parseInt(v, 10);
        if (!Number.isInteger(n) || n < 1 || n > 10_000_000) throw this.fail(`${this.source}: the header's ${k} is ${v === undefined ? 'missing' : `"${v}"`}; an ASCII grid gives its size as whole numbers (ncols 400, nrows 300)`);
        return n;
      };
      this.width = int('ncols');
      this.height = int('nrows');
      this.blockWidth = this.width;
      this.setNodata(keys.get('nodata_value'));
      this.geo = this.georef(keys);
      await this.index(dataStart, size, signal);
    } catch (e) {
      await this.close();
      throw e;
    }
  }

  /** Keyword lines up to the first line that starts with a number (or "null", D12's nodata). */
  private header(text: string): { keys: Map<string, string>; dataStart: number } {
    const keys = new Map<string, string>();
    let at = 0;
    for (;;) {
      const newline = text.indexOf('\n', at);
      const end = newline < 0 ? text.length : newline;
      const line = text.slice(at, end).trim();
      if (line && (!/^[A-Za-z]/.test(line) || /^null(\s|$)/.test(line))) break;
      if (newline < 0) throw this.fail(`${this.source}: no grid values after the header (or a header longer than 4 KB)`);
      const m = /^([A-Za-z_]+)\s+(\S+)/.exec(line);
      if (m) keys.set(m[1].toLowerCase(), m[2]);
      else if (line) throw this.fail(`${this.source}: header line "${line.slice(0, 60)}" is not a keyword and a value`);
      at = end + 1;
    }
    return { keys, dataStart: at };
  }

  private setNodata(v: string | undefined): void {
    if (v === undefined) return;
    if (v === 'null') {
      this.dtype = 'float32';
      this.nodata = -FLT_MAX;
      return;
    }
    const n = Number.parseFloat(v.replace(',', '.'));
    if (!Number.isFinite(n) && !/^[+-]?inf/i.test(v)) throw this.fail(`${this.source}: the header's NODATA_value is "${v}", not a number`);
    const value = Number.isFinite(n) ? n : v.startsWith('-') ? -Infinity : Infinity;
    if (/[.,]/.test(v) || value < -2147483648 || value > 2147483647) this.dtype = Number.isFinite(value) && Math.abs(value) > FLT_MAX ? 'float64' : 'float32';
    this.nodata = this.dtype === 'float32' ? Math.fround(value) : value;
  }

  private georef(keys: Map<string, string>): GeoInfo {
    const num = (k: string) => {
      const v = keys.get(k);
      if (v === undefined) return undefined;
      const n = Number.parseFloat(v.replace(',', '.'));
      if (!Number.isFinite(n)) throw this.fail(`${this.source}: the header's ${k} is "${v}", not a number`);
      return n;
    };
    const cell = num('cellsize');
    const dx = cell ?? num('dx'), dy = cell ?? num('dy');
    if (dx === undefined || dy === undefined) throw this.fail(`${this.source}: the header gives no cell size (cellsize, or dx and dy)`);
    if (!(dx > 0) || !(dy > 0)) throw this.fail(`${this.source}: the header's cell size is ${dx} × ${dy}; it must be positive`);
    let gt: GeoInfo['geoTransform'];
    const xc = num('xllcorner'), yc = num('yllcorner'), xm = num('xllcenter'), ym = num('yllcenter');
    if (xc !== undefined && yc !== undefined) gt = [xc, dx, 0, yc + this.height * dy, 0, -dy];
    else if (xm !== undefined && ym !== undefined) gt = [xm - 0.5 * dx, dx, 0, ym - 0.5 * dy + this.height * dy, 0, -dy];
    else gt = [0, dx, 0, 0, 0, -dy];
    const prj = prjBeside(this.source);
    if (!prj) return { geographic: false, geoTransform: gt };
    const crs = prjCrs(prj, this.source);
    if (!crs) {
      (this.warnings ??= []).push(`${this.source}: its .prj names a coordinate system GeoWeave does not read; the grid is placed without one`);
      return { geographic: false, geoTransform: gt };
    }
    if (crs.seconds) gt = gt.map((v) => v / 3600) as GeoInfo['geoTransform'];
    return { ...(crs.epsg ? { epsg: crs.epsg } : { wkt: crs.wkt }), geographic: crs.geographic, geoTransform: gt };
  }

  /** One pass over the values: where each row starts, how many there are, whether any is fractional. */
  private async index(start: number, size: number, signal?: AbortSignal): Promise<void> {
    const { width: W, height: H } = this;
    const rowAt = new Float64Array(H + 1);
    let count = 0, inToken = false, fractional = this.dtype !== 'int32';
    const buf = Buffer.alloc(CHUNK);
    for (let pos = start; pos < size && count <= W * H;) {
      signal?.throwIfAborted();
      const { bytesRead } = await this.fh!.read(buf, 0, Math.min(CHUNK, size - pos), pos);
      if (!bytesRead) break;
      for (let i = 0; i < bytesRead; i++) {
        const c = buf[i];
        const space = c === 32 || c === 10 || c === 13 || c === 9 || c === 11 || c === 12;
        if (space) { inToken = false; continue; }
        if (!inToken) {
          inToken = true;
          if (count % W === 0 && count < W * H) rowAt[count / W] = pos + i;
          count++;
        }
        if (!fractional && (c === 46 || c === 44 || c === 101 || c === 69)) fractional = true;
      }
      pos += bytesRead;
    }
    if (count < W * H) throw this.fail(`${this.source}: the grid holds ${count} values where its header's ${W} columns × ${H} rows need ${W * H}; the file is cut short or the header is wrong`);
    rowAt[H] = size;
    if (fractional && this.dtype === 'int32') this.dtype = 'float32';
    this.rowAt = rowAt;
  }

  async readWindowRaw(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal, into?: ArrayLike<number>): Promise<TypedArray> {
    const out = windowTarget(this, !this.closed && !!this.fh, this.fail, band, x, y, w, h, into);
    const W = this.width;
    const value = this.dtype === 'int32'
      ? (t: string) => Number.parseInt(t, 10) | 0
      : (t: string) => (t === 'null' ? -FLT_MAX : clampFloat(Number.parseFloat(t.replace(',', '.')), this.dtype));
    // Rows are read in runs of up to 8 MB of text.
    for (let r0 = y; r0 < y + h;) {
      signal?.throwIfAborted();
      let r1 = r0 + 1;
      while (r1 < y + h && this.rowAt[r1 + 1] - this.rowAt[r0] <= 8 << 20) r1++;
      const from = this.rowAt[r0], to = r1 < this.height ? this.rowAt[r1] : this.rowAt[this.height];
      const buf = Buffer.alloc(to - from);
      const { bytesRead } = await this.fh!.read(buf, 0, buf.length, from);
      if (bytesRead < buf.length) throw this.fail(`${this.source}: the file ended while reading rows ${r0}–${r1 - 1}; it changed since it was opened`);
      const tokens = buf.toString('latin1').split(/[\s]+/).filter(Boolean);
      for (let r = r0; r < r1; r++) {
        const base = (r - r0) * W, o = (r - y) * w;
        for (let c = 0; c < w; c++) out[o + c] = value(tokens[base + x + c]);
      }
      r0 = r1;
    }
    return out;
  }

  async readWindow(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal): Promise<Float32Array> {
    return toFloat(await this.readWindowRaw(band, x, y, w, h, signal), this.nodata, 1, 0, this.dtype === 'float32');
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.fh?.close().catch(() => undefined);
    this.fh = undefined;
  }
}

/** A parsed number as the band's type holds it: float32 rounded and clamped as GDAL's DoubleToFloatClamp. */
function clampFloat(v: number, dtype: DType): number {
  if (dtype !== 'float32' || !Number.isFinite(v)) return v;
  return v > FLT_MAX ? FLT_MAX : v < -FLT_MAX ? -FLT_MAX : Math.fround(v);
}
