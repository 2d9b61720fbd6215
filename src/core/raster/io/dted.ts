/**
 * DTED elevation tiles (`.dt0`, `.dt1`, `.dt2`): how USGS EarthExplorer offers SRTM (beside BIL and
 * GeoTIFF) and how defence mapping delivers terrain. An 80-byte UHL record (origin and spacing in
 * tenths of arc-seconds, size), DSI and ACC records, then one record per column of longitude, south
 * to north: a header of 8 bytes (sentinel 0xAA, block and longitude counts), the heights as 16-bit
 * big-endian signed magnitude, a checksum. Read as GDAL's DTED driver reads it: Int16, nodata
 * −32767, the origin half a sample outside the tile (its samples are points), EPSG:4326 (4322 for
 * WGS72), negatives written in two's complement by some producers taken as such, and files that
 * hold only some of their columns read with the others as nodata.
 */
import * as fs from 'fs';
import type { GeoInfo, RasterDataset } from './dataset';
import { toFloat } from './dataset';
import { type DType, type TypedArray } from './samples';
import { windowTarget } from './window-check';

const UHL = 80, DSI = 648, ACC = 2700;
export const DTED_NODATA = -32767;
/** Samples up to which a tile is read whole and kept as rows (a 1″ tile has 13 M). */
const WHOLE_TILE = 64 << 20;

/** Whether a file's first bytes are DTED's (a UHL record, maybe after VOL/HDR tape labels). */
export function isDted(head: Buffer): boolean {
  const h = head.toString('latin1', 0, 3).toUpperCase();
  return h === 'UHL' || h === 'VOL' || h === 'HDR';
}

export class DtedDataset implements RasterDataset {
  width = 0; height = 0; bandCount = 1; blockWidth = 1; blockHeight = 0;
  dtype: DType = 'int16'; geo!: GeoInfo; nodata: number | null = DTED_NODATA;
  bandDescriptions: (string | null)[] = [null]; scales = [1]; offsets = [0];
  warnings?: string[];
  private dataAt = 0;
  /** File offset of each column's record, −1 where the file does not hold the column. */
  private columnAt = new Float64Array(0);
  private fh?: fs.promises.FileHandle;
  private closed = false;
  private rows?: Promise<Int16Array>;

  constructor(readonly source: string, private fail: (message: string) => Error) {}

  private get columnBytes(): number { return 12 + 2 * this.height; }

  async init(): Promise<void> {
    this.fh = await fs.promises.open(this.source, 'r');
    try {
      const size = (await this.fh.stat()).size;
      const read = async (at: number, n: number) => {
        const b = Buffer.alloc(n);
        const { bytesRead } = await this.fh!.read(b, 0, n, at);
        return b.subarray(0, bytesRead);
      };
      // Tape labels (VOL, HDR) may come first, 80 bytes each.
      let at = 0, uhl = await read(0, UHL);
      while (uhl.length === UHL && /^(VOL|HDR)/i.test(uhl.toString('latin1', 0, 3))) uhl = await read((at += UHL), UHL);
      if (uhl.length < UHL || uhl.toString('latin1', 0, 3).toUpperCase() !== 'UHL') throw this.fail(`${this.source}: not a DTED file (no UHL record at its start)`);
      const dsi = await read(at + UHL, DSI), acc = await read(at + UHL + DSI, ACC);
      if (dsi.toString('latin1', 0, 3).toUpperCase() !== 'DSI' || acc.toString('latin1', 0, 3).toUpperCase() !== 'ACC') {
        throw this.fail(`${this.source}: a DTED file without its DSI or ACC record; the file is cut short or damaged`);
      }
      this.dataAt = at + UHL + DSI + ACC;
      const text = uhl.toString('latin1');
      // Fields are 1-based in the specification (MIL-PRF-89020B), as GDAL's DTEDGetField reads them.
      const field = (start: number, n: number) => text.slice(start - 1, start - 1 + n);
      const int = (start: number, n: number, what: string) => {
        const v = field(start, n);
        if (!/^\s*\d+\s*$/.test(v)) throw this.fail(`${this.source}: the UHL record's ${what} is "${v}", not a number`);
        return Number.parseInt(v, 10);
      };
      const dx = int(21, 4, 'longitude interval') / 36000, dy = int(25, 4, 'latitude interval') / 36000;
      this.width = int(48, 4, 'number of longitude lines');
      this.height = int(52, 4, 'number of latitude points');
      if (!this.width || !this.height || !dx || !dy) throw this.fail(`${this.source}: the UHL record gives a ${this.width}×${this.height} grid at ${dx}° × ${dy}°; a DTED tile has columns, rows and a spacing`);
      this.blockHeight = this.height;
      const angle = (start: number, what: string) => {
        const v = int(start, 3, what) + int(start + 3, 2, what) / 60 + int(start + 5, 2, what) / 3600;
        return { v, hemisphere: text[start + 6].toUpperCase() };
      };
      let lon = angle(5, 'origin longitude'), lat = angle(13, 'origin latitude');
      // The first edition of MIL-D-89020 swapped them; the hemisphere letters tell (as GDAL reads them).
      const swapped = lon.hemisphere === 'N' || lon.hemisphere === 'S';
      if (swapped) [lon, lat] = [lat, lon];
      const x0 = lon.hemisphere === 'W' ? -lon.v : lon.v, y0 = lat.hemisphere === 'S' ? -lat.v : lat.v;
      const datum = dsi.toString('latin1', 144, 149).trim().toUpperCase();
      if (datum && datum !== 'WGS84' && datum !== 'WGS72') (this.warnings ??= []).push(`${this.source}: its horizontal datum is "${datum}"; read as WGS84`);
      this.geo = { epsg: datum === 'WGS72' ? 4322 : 4326, geographic: true, geoTransform: [x0 - dx / 2, dx, 0, y0 - dy / 2 + this.height * dy, 0, -dy] };
      await this.mapColumns(size);
    } catch (e) {
      await this.close();
      throw e;
    }
  }

  /** Where each column's record is: in order for a whole tile, else by the longitude count in each record's header. */
  private async mapColumns(size: number): Promise<void> {
    const n = this.columnBytes, W = this.width;
    const physical = Math.floor((size - this.dataAt) / n);
    if (physical < 1) throw this.fail(`${this.source}: a DTED file with no elevation columns after its headers (${size} bytes); it is cut short`);
    this.columnAt = new Float64Array(W).fill(-1);
    const head = Buffer.alloc(8);
    const header = async (i: number) => {
      await this.fh!.read(head, 0, 8, this.dataAt + i * n);
      return head[0] === 0xaa ? { block: head.readUInt16BE(2), lon: head.readUInt16BE(4) } : undefined;
    };
    const first = await header(0), last = await header(physical - 1);
    if (first && last && physical === W && first.block === 0 && first.lon === 0 && last.lon === W - 1) {
      for (let i = 0; i < W; i++) this.columnAt[i] = this.dataAt + i * n;
      return;
    }
    // Some producers write only the columns they have: each record says which column it is.
    let found = 0;
    for (let i = 0; i < physical; i++) {
      const h = await header(i);
      if (!h || h.lon >= W) continue;
      this.columnAt[h.lon] = this.dataAt + i * n;
      found++;
    }
    if (!found) throw this.fail(`${this.source}: none of its ${physical} elevation records starts with DTED's sentinel byte; the file is damaged`);
    if (found < W) (this.warnings ??= []).push(`${this.source}: holds ${found} of its ${W} columns; the others read as nodata`);
  }

  async readWindowRaw(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal, into?: ArrayLike<number>): Promise<TypedArray> {
    const out = windowTarget(this, !this.closed && !!this.fh, this.fail, band, x, y, w, h, into);
    // Columns on disk, rows asked for: a tile (26 MB at 1″) is turned once into rows and kept, so
    // strips going down do not read every column again.
    if (this.width * this.height <= WHOLE_TILE) {
      this.rows ??= this.readColumns(0, 0, this.width, this.height, new Int16Array(this.width * this.height), signal).catch((e) => { this.rows = undefined; throw e; });
      const all = await this.rows;
      for (let r = 0; r < h; r++) out.set(all.subarray((y + r) * this.width + x, (y + r) * this.width + x + w), r * w);
      return out;
    }
    return this.readColumns(x, y, w, h, out, signal);
  }

  private async readColumns<T extends TypedArray>(x: number, y: number, w: number, h: number, out: T, signal?: AbortSignal): Promise<T> {
    const n = this.columnBytes, H = this.height;
    const fh = this.fh;
    if (!fh) throw this.fail(`${this.source}: dataset is closed`);
    // Consecutive columns are read in one go, up to 8 MB; a column's samples run south to north.
    const perRead = Math.max(1, Math.floor((8 << 20) / n));
    const buf = Buffer.alloc(Math.min(w, perRead) * n);
    for (let c0 = 0; c0 < w;) {
      signal?.throwIfAborted();
      // A run of columns stored one after another.
      let c1 = c0 + 1;
      while (c1 < w && c1 - c0 < perRead && this.columnAt[x + c1] >= 0 && this.columnAt[x + c1] === this.columnAt[x + c0] + (c1 - c0) * n) c1++;
      const start = this.columnAt[x + c0];
      if (start < 0) {
        for (let r = 0; r < h; r++) out[r * w + c0] = DTED_NODATA;
        c0++;
        continue;
      }
      const len = (c1 - c0) * n;
      const { bytesRead } = await fh.read(buf, 0, len, start);
      if (bytesRead < len) throw this.fail(`${this.source}: the file ended while reading columns ${x + c0}–${x + c1 - 1}; it is cut short or changed since it was opened`);
      for (let c = c0; c < c1; c++) {
        const base = (c - c0) * n + 8;
        for (let r = 0; r < h; r++) {
          const i = base + 2 * (H - 1 - (y + r));
          const hi = buf[i], lo = buf[i + 1];
          let v = ((hi & 0x7f) << 8) | lo;
          if (hi & 0x80) {
            v = -v;
            // Some files hold negatives in two's complement (GDAL reads them so, below −16000).
            if (v < -16000 && v !== DTED_NODATA) v = ((hi << 8) | lo) << 16 >> 16;
          }
          out[r * w + c] = v;
        }
      }
      c0 = c1;
    }
    return out;
  }

  async readWindow(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal): Promise<Float32Array> {
    return toFloat(await this.readWindowRaw(band, x, y, w, h, signal), this.nodata, 1, 0, false);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.rows = undefined;
    await this.fh?.close().catch(() => undefined);
    this.fh = undefined;
  }
}
