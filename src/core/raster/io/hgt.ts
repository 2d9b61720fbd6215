/**
 * SRTM height files (`N37W122.hgt`): how NASA's SRTMGL1/SRTMGL3 (`N37W122.SRTMGL1.hgt.zip`),
 * viewfinderpanoramas and many DEM downloads deliver elevation. A square grid of big-endian 16-bit
 * signed heights in metres, nothing else: the size says the spacing (3601² is 1″, 1201² is 3″) and
 * the name says the tile's south-west corner. Read as GDAL's SRTMHGT driver reads it: EPSG:4326,
 * samples are points on whole degrees, so the grid's origin is half a sample outside the tile,
 * and −32768 is nodata (voids).
 */
import { windowProblem } from './window-check';
import * as fs from 'fs';
import * as path from 'path';
import type { GeoInfo, RasterDataset } from './dataset';
import { toFloat } from './dataset';
import type { DType, TypedArray } from './samples';

/** The tile's south-west corner from its name (N37W122, s05e120, as the SRTMGL1 zips name it too). */
const NAME = /^([NS])(\d{1,2})([EW])(\d{1,3})(?=[._]|$)/i;

/** Grid sizes GDAL's driver accepts: 1″, 3″ and 0.5″ tiles, and 1″ tiles halved in longitude at high latitudes. */
const SIZES: [number, number][] = [[3601, 3601], [1201, 1201], [7201, 7201], [1801, 3601]];

export class HgtDataset implements RasterDataset {
  width = 0; height = 0; bandCount = 1; blockWidth = 0; blockHeight = 1;
  dtype: DType = 'int16'; geo!: GeoInfo; nodata: number | null = -32768;
  bandDescriptions: (string | null)[] = [null]; scales = [1]; offsets = [0];
  private fh?: fs.promises.FileHandle;
  private closed = false;

  constructor(readonly source: string, private fail: (message: string) => Error) {}

  async init(): Promise<void> {
    const m = NAME.exec(path.basename(this.source));
    const st = await fs.promises.stat(this.source);
    const size = SIZES.find(([w, h]) => w * h * 2 === st.size);
    if (!size) throw this.fail(`${this.source}: not an SRTM height file (${st.size} bytes, where a 1201², 3601², 7201² or 1801×3601 grid of 16-bit heights takes 2 bytes a sample)`);
    if (!m) throw this.fail(`${this.source}: an SRTM height file says where it lies only by its name, which must start with its south-west corner (N37W122.hgt); rename it so`);
    const lat = Number(m[2]) * (m[1].toUpperCase() === 'S' ? -1 : 1);
    const lon = Number(m[4]) * (m[3].toUpperCase() === 'W' ? -1 : 1);
    if (Math.abs(lat) > 89 || Math.abs(lon) > 180) throw this.fail(`${this.source}: its name puts the tile at ${lat}°, ${lon}°, which is not a tile corner`);
    [this.width, this.height] = size;
    this.blockWidth = this.width;
    const dx = 1 / (this.width - 1), dy = 1 / (this.height - 1);
    this.geo = { epsg: 4326, geographic: true, geoTransform: [lon - dx / 2, dx, 0, lat + 1 + dy / 2, 0, -dy] };
    this.fh = await fs.promises.open(this.source, 'r');
  }

  private check(band: number, x: number, y: number, w: number, h: number): void {
    if (this.closed || !this.fh) throw this.fail(`${this.source}: dataset is closed`);
    const problem = windowProblem(this, band, x, y, w, h);
    if (problem) throw this.fail(problem);
  }


  async readWindowRaw(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal, into?: ArrayLike<number>): Promise<TypedArray> {
    this.check(band, x, y, w, h);
    const out = into instanceof Int16Array && into.length >= w * h ? into.subarray(0, w * h) : new Int16Array(w * h);
    // Whole rows at a time (a 1″ row is 7 KB), then the window's columns, swapped from big-endian.
    const rowsAtOnce = Math.max(1, Math.floor((4 << 20) / (this.width * 2)));
    const buf = Buffer.alloc(Math.min(h, rowsAtOnce) * this.width * 2);
    for (let r0 = 0; r0 < h; r0 += rowsAtOnce) {
      signal?.throwIfAborted();
      const rows = Math.min(rowsAtOnce, h - r0);
      const len = rows * this.width * 2;
      const { bytesRead } = await this.fh!.read(buf, 0, len, (y + r0) * this.width * 2);
      if (bytesRead < len) throw this.fail(`${this.source}: the file ended while reading rows ${y + r0}–${y + r0 + rows - 1}; it changed since it was opened`);
      for (let r = 0; r < rows; r++) {
        const base = (r * this.width + x) * 2, o = (r0 + r) * w;
        for (let c = 0; c < w; c++) out[o + c] = buf.readInt16BE(base + c * 2);
      }
    }
    return out;
  }

  async readWindow(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal): Promise<Float32Array> {
    return toFloat(await this.readWindowRaw(band, x, y, w, h, signal), this.nodata, 1, 0);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.fh?.close().catch(() => undefined);
    this.fh = undefined;
  }
}
