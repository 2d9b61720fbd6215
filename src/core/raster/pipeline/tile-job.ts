/** One output tile of a per-pixel run: read the input windows, apply the kernel, encode. Used by workers and inline. */
import { openRaster, RasterDataset } from '../io/dataset';
import { encodeTile, toTile, OutDType } from '../io/encode';
import { applyKernel, KernelSpec } from './kernels';

/** One input band; scale/offset come from sensor presets (on top of the file's own). */
export interface InputRef { source: string; band: number; scale?: number; offset?: number }

export interface TileJobSpec {
  inputs: InputRef[];
  kernel: KernelSpec;
  width: number; height: number; tile: number;
  outDtype: OutDType; fill: number; zlevel: number;
}

export interface TileResult { tx: number; ty: number; encoded: Uint8Array[]; values: Float32Array; w: number; h: number }

/** Per-thread cache of open datasets (each worker opens the files itself). */
export class DatasetCache {
  private open = new Map<string, Promise<RasterDataset>>();
  get(source: string): Promise<RasterDataset> {
    let p = this.open.get(source);
    if (!p) { p = openRaster(source); this.open.set(source, p); }
    return p;
  }
  async closeAll(): Promise<void> {
    const all = [...this.open.values()]; this.open.clear();
    await Promise.all(all.map((p) => p.then((d) => d.close()).catch(() => undefined)));
  }
}

export async function runTileJob(spec: TileJobSpec, tx: number, ty: number, cache: DatasetCache, signal?: AbortSignal): Promise<TileResult> {
  const x = tx * spec.tile, y = ty * spec.tile;
  const w = Math.min(spec.tile, spec.width - x), h = Math.min(spec.tile, spec.height - y);
  const inputs = await Promise.all(spec.inputs.map(async (r) => {
    const ds = await cache.get(r.source);
    const a = await ds.readWindow(r.band, x, y, w, h, signal);
    if (r.scale !== undefined && (r.scale !== 1 || (r.offset ?? 0) !== 0)) {
      const s = r.scale, o = r.offset ?? 0;
      for (let i = 0; i < a.length; i++) a[i] = a[i] * s + o;
    }
    return a;
  }));
  const outs = applyKernel(spec.kernel, inputs);
  let values = outs[0];
  const inPlace = spec.outDtype === 'float32' && w === spec.tile && h === spec.tile;
  // In place, nodata in `values` becomes the fill value; the caller's stats treat fill as nodata.
  const encoded = outs.map((o) => encodeTile(toTile(o, w, h, spec.tile, spec.outDtype, spec.fill, inPlace), spec.tile, spec.outDtype, spec.zlevel));
  if (spec.outDtype !== 'float32') {
    // Stats must see the values as stored: rounded and clamped like the integer tile.
    values = values.slice();
    for (let i = 0; i < values.length; i++) { const v = values[i]; if (v === v) values[i] = Math.round(v); }
  }
  return { tx, ty, encoded: encoded.map((b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength)), values, w, h };
}
