/**
 * Rasters stored as raw samples, band-sequential (BSQ), line- (BIL) or pixel-interleaved (BIP),
 * after a header of a fixed size, in either byte order: what GDAL's RawDataset serves. The formats
 * built on it (ENVI, SRTM .hgt) say the layout from their header or name; this reads the windows.
 */
import * as fs from 'fs';
import type { GeoInfo, RasterDataset } from './dataset';
import { toFloat } from './dataset';
import { type DType, type TypedArray } from './samples';
import { windowTarget } from './window-check';

const BYTES: Partial<Record<DType, number>> = { uint8: 1, int16: 2, uint16: 2, int32: 4, uint32: 4, float32: 4, float64: 8 };

export class RawDataset implements RasterDataset {
  width = 0; height = 0; bandCount = 0; blockWidth = 0; blockHeight = 1;
  dtype: DType = 'uint8'; geo!: GeoInfo; nodata: number | null = null;
  bandDescriptions: (string | null)[] = []; scales: number[] = []; offsets: number[] = [];
  warnings?: string[];
  protected littleEndian = true;
  protected interleave: 'bsq' | 'bil' | 'bip' = 'bsq';
  protected headerOffset = 0;
  private fh?: fs.promises.FileHandle;
  private closed = false;

  constructor(readonly source: string, protected fail: (message: string) => Error) {}

  /** Bytes a sample takes in the file. */
  protected get bps(): number { return BYTES[this.dtype] ?? 1; }

  /** Opens the data file once the layout is known (blocks are whole rows; no scale or offset). */
  protected async openData(): Promise<void> {
    this.blockWidth = this.width;
    if (this.scales.length !== this.bandCount) this.scales = new Array(this.bandCount).fill(1);
    if (this.offsets.length !== this.bandCount) this.offsets = new Array(this.bandCount).fill(0);
    if (this.bandDescriptions.length !== this.bandCount) this.bandDescriptions = new Array(this.bandCount).fill(null);
    this.fh = await fs.promises.open(this.source, 'r');
  }

  async readWindowRaw(band: number, x: number, y: number, w: number, h: number, signal?: AbortSignal, into?: ArrayLike<number>): Promise<TypedArray> {
    const out = windowTarget(this, !this.closed && !!this.fh, this.fail, band, x, y, w, h, into);
    const { width: W, bandCount: B, bps } = this;
    // Where row r's samples of this band start, and the step between its samples, by interleave.
    const rowAt = (r: number) => this.headerOffset + bps * (
      this.interleave === 'bsq' ? ((band - 1) * this.height + r) * W + x
        : this.interleave === 'bil' ? (r * B + (band - 1)) * W + x
          : (r * W + x) * B + (band - 1));
    const step = this.interleave === 'bip' ? B : 1;
    const rowBytes = ((w - 1) * step + 1) * bps;
    // Consecutive rows of the window are read in one go, up to 8 MB.
    const stride = this.interleave === 'bsq' ? W * bps : W * B * bps;
    const rowsAt = Math.max(1, Math.min(h, Math.floor((8 << 20) / stride)));
    const buf = Buffer.alloc((rowsAt - 1) * stride + rowBytes);
    const get = this.getter(new DataView(buf.buffer, buf.byteOffset, buf.byteLength));
    for (let r0 = 0; r0 < h; r0 += rowsAt) {
      signal?.throwIfAborted();
      const rows = Math.min(rowsAt, h - r0);
      const len = (rows - 1) * stride + rowBytes;
      const { bytesRead } = await this.fh!.read(buf, 0, len, rowAt(y + r0));
      if (bytesRead < len) throw this.fail(`${this.source}: the file ended while reading rows ${y + r0}–${y + r0 + rows - 1}; it changed since it was opened`);
      for (let r = 0; r < rows; r++) {
        const o = (r0 + r) * w;
        for (let c = 0, at = r * stride; c < w; c++, at += step * bps) out[o + c] = get(at);
      }
    }
    return out;
  }

  private getter(v: DataView): (at: number) => number {
    const le = this.littleEndian;
    switch (this.dtype) {
      case 'uint8': return (a) => v.getUint8(a);
      case 'int16': return (a) => v.getInt16(a, le);
      case 'uint16': return (a) => v.getUint16(a, le);
      case 'int32': return (a) => v.getInt32(a, le);
      case 'uint32': return (a) => v.getUint32(a, le);
      case 'float32': return (a) => v.getFloat32(a, le);
      default: return (a) => v.getFloat64(a, le);
    }
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
