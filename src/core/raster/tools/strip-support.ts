/** Strip streaming for the mask/zone tools: strip heights aligned to blocks, a row sink for the tiled writer, quicklook sampling, a memory guard. */
import type { RasterDataset, GeoInfo } from '../io/dataset';
import { GeoTiffWriter } from '../io/writer';
import { renderQuicklook, QuicklookOptions } from '../quicklook';
import { checkAbort, OutType } from './analysis-support';
import { readResolved, ResolvedBand } from '../bands';
import { toByteMask } from '../algorithms/morphology';

/**
 * Rows per strip: a multiple of the dataset's block height near 512 (so each tile is decoded once),
 * at most 1024 unless a single block is taller. GEOWEAVE_STRIP_ROWS overrides it (tests force many strips).
 */
export function stripRowsFor(ds: RasterDataset): number {
  const env = Number(process.env.GEOWEAVE_STRIP_ROWS);
  if (Number.isInteger(env) && env > 0) return env;
  const bh = Math.max(1, ds.blockHeight);
  if (bh >= 1024) return Math.min(bh, ds.height);
  return Math.min(bh * Math.max(1, Math.ceil(512 / bh)), Math.max(bh, 1024));
}

const CTOR: Record<OutType, { new (n: number): Uint8Array | Uint16Array | Int16Array | Int32Array | Float32Array }> = {
  uint8: Uint8Array, uint16: Uint16Array, int16: Int16Array, int32: Int32Array, float32: Float32Array,
};

/** Accepts output rows top to bottom in strips of any height and writes whole tile rows (temp file, rename on finish). */
export class RowSink {
  private buf: Uint8Array | Uint16Array | Int16Array | Int32Array | Float32Array;
  private filled = 0;
  private by = 0;
  private constructor(private wr: GeoTiffWriter, private w: number) {
    this.buf = new CTOR[wr.spec.dtype](wr.tile * w);
  }

  static async create(file: string, like: RasterDataset, dtype: OutType, nodata: number | null, description: string): Promise<RowSink> {
    const geo: GeoInfo = { ...like.geo };
    const wr = await GeoTiffWriter.create(file, { width: like.width, height: like.height, bands: 1, dtype, geo, nodata, descriptions: [description] });
    return new RowSink(wr, like.width);
  }

  /** Appends `rows` full-width rows (row-major, w values each). */
  async push(data: ArrayLike<number>, rows: number): Promise<void> {
    const { w } = this;
    const tile = this.wr.tile;
    let r = 0;
    while (r < rows) {
      const take = Math.min(rows - r, tile - this.filled);
      const src = data as unknown as { subarray?: (a: number, b: number) => ArrayLike<number> };
      if (src.subarray) this.buf.set(src.subarray(r * w, (r + take) * w) as any, this.filled * w);
      else for (let i = 0; i < take * w; i++) this.buf[this.filled * w + i] = data[r * w + i];
      this.filled += take; r += take;
      const { h: th } = this.wr.blockSize(0, this.by);
      if (this.filled === th) await this.flush();
    }
  }

  private async flush(): Promise<void> {
    const { w, wr } = this;
    const rows = this.filled;
    for (let bx = 0; bx < wr.tilesAcross; bx++) {
      const { w: bw } = wr.blockSize(bx, this.by);
      const block = new (this.buf.constructor as any)(bw * rows);
      for (let y = 0; y < rows; y++) block.set(this.buf.subarray(y * w + bx * wr.tile, y * w + bx * wr.tile + bw), y * bw);
      await wr.writeBlock(bx, this.by, [block]);
    }
    this.by++;
    this.filled = 0;
  }

  async finish(): Promise<string> {
    if (this.by !== this.wr.tilesDown) throw new Error(`${this.wr.path}: only ${this.by} of ${this.wr.tilesDown} tile rows were written`);
    await this.wr.finish();
    return this.wr.path;
  }

  abort(): Promise<void> { return this.wr.abort(); }
}

/**
 * Collects exactly the pixels renderQuicklook samples from a w×h raster (≤768 on the long side), strip by
 * strip, so the PNG of a streamed output shows the same pixels as one rendered from the whole band.
 */
export class QuicklookSampler {
  readonly iw: number; readonly ih: number; readonly data: Float32Array;
  private readonly f: number;
  private readonly xs: Int32Array;
  private next = 0; // next preview row to fill
  constructor(readonly w: number, readonly h: number) {
    const f = this.f = Math.max(w / 768, h / 768, 1);
    this.iw = Math.max(1, Math.round(w / f)); this.ih = Math.max(1, Math.round(h / f));
    this.data = new Float32Array(this.iw * this.ih);
    this.xs = new Int32Array(this.iw);
    for (let x = 0; x < this.iw; x++) this.xs[x] = Math.min(w - 1, Math.floor((x + 0.5) * f));
  }
  /** Strip rows y0..y0+rows-1; value(i) maps strip index i to the quicklook value (NaN = transparent). */
  add(y0: number, rows: number, value: (i: number) => number): void {
    const { iw, w, xs } = this;
    for (; this.next < this.ih; this.next++) {
      const sy = Math.min(this.h - 1, Math.floor((this.next + 0.5) * this.f));
      if (sy >= y0 + rows) break;
      if (sy < y0) continue;
      const ro = (sy - y0) * w;
      for (let x = 0; x < iw; x++) this.data[this.next * iw + x] = value(ro + xs[x]);
    }
  }
  async render(file: string, opts: QuicklookOptions): Promise<string> {
    await renderQuicklook(file, this.data, this.iw, this.ih, opts);
    return file;
  }
}

/** A band as a whole byte mask (1 set, 0 unset, 255 nodata), read strip by strip so no whole float copy is made. */
export async function readMask(signal: AbortSignal, band: ResolvedBand): Promise<Uint8Array> {
  const ds = band.dataset;
  const { width: w, height: h } = ds;
  const mask = new Uint8Array(w * h);
  const step = stripRowsFor(ds);
  for (let y0 = 0; y0 < h; y0 += step) {
    checkAbort(signal);
    const rows = Math.min(step, h - y0);
    mask.set(await readByteMask(band, 0, y0, w, rows, signal), y0 * w);
  }
  return mask;
}

/**
 * Mask readers go down the raster in full-width strips (with at most a halo overlapping the previous one):
 * the tile cache keeps this window's tiles and one more tile row (none for readers whose strips do not
 * overlap), not the default 32 MB of tiles that are never hit again (vectorize_mask at 10000²: 27 MB
 * less peak RSS, distance_to 33 MB).
 */
function fitStripCache(ds: RasterDataset, x: number, y: number, w: number, h: number, halo = true): void {
  if (!ds.fitTileCache || x !== 0 || w !== ds.width) return;
  const across = Math.ceil(ds.width / ds.blockWidth);
  const tileRows = Math.floor((y + h - 1) / ds.blockHeight) - Math.floor(y / ds.blockHeight) + 1;
  // One band is read: with separate band planes only its own tiles are cached.
  ds.fitTileCache(across * (tileRows + (halo ? 1 : 0)));
}

/**
 * A window of a band as a set mask: 1 where readByteMask gives 1, else 0 (unset and nodata alike), in one
 * pass over the raw samples of integer bands (for StripVectorizer.push(…, binary)). A byte band is read into
 * `into` when given (a strip buffer the caller reuses), else into a new array.
 */
export async function readSetMask(band: ResolvedBand, x: number, y: number, w: number, h: number, signal?: AbortSignal, into?: Uint8Array): Promise<Uint8Array> {
  const ds = band.dataset, b = band.band;
  fitStripCache(ds, x, y, w, h, false);
  const plain = INTEGER_TYPES.has(ds.dtype) && (ds.scales[b - 1] ?? 1) === 1 && (ds.offsets[b - 1] ?? 0) === 0
    && (band.scale === undefined || (band.scale === 1 && (band.offset ?? 0) === 0));
  if (!plain) {
    const m = toByteMask(await readResolved(band, x, y, w, h, signal));
    for (let i = 0; i < m.length; i++) m[i] = m[i] === 1 ? 1 : 0;
    return m;
  }
  // Strips that do not overlap: no block is read twice, so none is cached (readStripRaw).
  const raw = ds.readStripRaw ? await ds.readStripRaw(b, x, y, w, h, signal, ds.dtype === 'uint8' ? into : undefined)
    : await ds.readWindowRaw(b, x, y, w, h, signal, ds.dtype === 'uint8' ? into : undefined);
  const nd = ds.nodata === null || Number.isNaN(ds.nodata) ? NaN : ds.nodata;
  if (raw instanceof Uint8Array) {
    // Bytes (most masks): in place, no second array.
    if (nd === nd && nd >= 0 && nd <= 255) { for (let i = 0; i < raw.length; i++) { const v = raw[i]; raw[i] = v !== 0 && v !== nd ? 1 : 0; } }
    else for (let i = 0; i < raw.length; i++) raw[i] = raw[i] !== 0 ? 1 : 0;
    return raw;
  }
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) { const v = raw[i]; out[i] = v !== 0 && v !== nd ? 1 : 0; }
  return out;
}

const INTEGER_TYPES = new Set(['uint8', 'int8', 'uint16', 'int16', 'uint32', 'int32']);

/**
 * A window of a band as a byte mask (1 set, 0 unset, 255 nodata): the same as toByteMask(readResolved(...)),
 * but integer bands without scaling are read raw (no float window copy). `once`: the caller reads strips that
 * never overlap and is done with the result before its next call (a byte band is then read into `once.into`).
 */
export async function readByteMask(band: ResolvedBand, x: number, y: number, w: number, h: number, signal?: AbortSignal, once?: { into: Uint8Array }): Promise<Uint8Array> {
  const ds = band.dataset, b = band.band;
  fitStripCache(ds, x, y, w, h);
  const plain = INTEGER_TYPES.has(ds.dtype) && (ds.scales[b - 1] ?? 1) === 1 && (ds.offsets[b - 1] ?? 0) === 0
    && (band.scale === undefined || (band.scale === 1 && (band.offset ?? 0) === 0));
  if (!plain) return toByteMask(await readResolved(band, x, y, w, h, signal));
  const nd = ds.nodata === null || Number.isNaN(ds.nodata) ? NaN : ds.nodata;
  if (once && ds.dtype === 'uint8' && ds.readStripRaw) {
    // A reader whose strips never overlap, into its own reused buffer: blocks are not cached and the bytes
    // become the mask in place (no second array).
    const m = await ds.readStripRaw(b, x, y, w, h, signal, once.into) as Uint8Array;
    for (let i = 0; i < m.length; i++) { const v = m[i]; m[i] = v === nd ? 255 : v !== 0 ? 1 : 0; }
    return m;
  }
  const raw = await ds.readWindowRaw(b, x, y, w, h, signal);
  const out = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) { const v = raw[i]; out[i] = v === nd ? 255 : v !== 0 ? 1 : 0; }
  return out;
}
