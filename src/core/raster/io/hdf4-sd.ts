/**
 * The SD (multi-file scientific data, "mfhdf") model of an HDF4 file: each scientific data set
 * (SDS) is a Vgroup of class "Var0.0" holding its dimensions (Vgroups of class "Dim0.0", named),
 * its attributes (Vdatas of class "Attr0.0") and a numeric data group whose dimension record (SDD)
 * gives the extents and number type; global attributes hang from the Vgroup of class "CDF0.0".
 * `SdsReader` reads an SDS's values as a grid of chunks: the file's own chunks when it is chunked,
 * one chunk for an SDS compressed whole, stretches of rows of a contiguous one (so a window read
 * touches only what it needs), decoded chunks cached within a byte budget.
 */
import { type Hdf4File, type Layout, MAX_ELEMENT_BYTES, TAG } from './hdf4-file';
import { type AttValue, type Vdata, type Vgroup, decodeNumbers, numberType, readVdata, readVdataValues, readVgroup } from './hdf4-vset';
import { type DType, type SampleType, type TypedArray, samplesFromBytes } from './samples';

export interface SdsDim { name: string; size: number }
/** One SDS: its name, extents (slowest first), number type, attributes and where its data is. */
export interface Sds {
  name: string; vgRef: number; ndgRef?: number; dims: SdsDim[]; nt: number; dataRef?: number;
  attrs: Map<string, AttValue>;
  /** The number type each attribute is stored as. */
  attrTypes: Map<string, number>;
}
export interface SdModel { globals: Map<string, AttValue>; datasets: Sds[]; vgroups: Vgroup[] }

/** More objects than any real file has: the rest is damage. */
const MAX_OBJECTS = 200_000;

/** The SD model of an open HDF4 file. */
export async function readSdModel(f: Hdf4File): Promise<SdModel> {
  const vgDds = f.all(TAG.VG);
  if (vgDds.length > MAX_OBJECTS) throw f.fail(`${f.path}: ${vgDds.length} Vgroups; the file is damaged`);
  const vgroups: Vgroup[] = [];
  for (const dd of vgDds) vgroups.push(await readVgroup(f, dd.ref));
  const vgByRef = new Map(vgroups.map((g) => [g.ref, g]));
  const vdatas = new Map<number, Promise<Vdata>>();
  const vdata = (ref: number) => { let v = vdatas.get(ref); if (!v) vdatas.set(ref, (v = readVdata(f, ref))); return v; };
  const attributes = async (g: Vgroup, types = new Map<string, number>()): Promise<Map<string, AttValue>> => {
    const out = new Map<string, AttValue>();
    for (const m of g.members) {
      if (m.tag !== TAG.VH || !f.find(TAG.VH, m.ref)) continue;
      const v = await vdata(m.ref);
      if (!v.cls.startsWith('Attr0.')) continue;
      const vals = await readVdataValues(f, v);
      const val = vals.get('VALUES') ?? vals.values().next().value;
      if (val !== undefined) { out.set(v.name, val); types.set(v.name, (v.fields.find((x) => x.name === 'VALUES') ?? v.fields[0]).type); }
    }
    return out;
  };
  const datasets: Sds[] = [];
  for (const g of vgroups) {
    if (g.cls !== 'Var0.0') continue;
    let sddRef: number | undefined, dataRef: number | undefined;
    const ndg = g.members.find((m) => m.tag === TAG.NDG);
    if (ndg) {
      const l = await f.layout(TAG.NDG, ndg.ref, `the data group of SDS "${g.name}"`);
      if (l && l.kind !== 'chunked') {
        const b = await f.bytes(l, 1 << 16, `the data group of SDS "${g.name}"`);
        for (let i = 0; i + 4 <= b.length; i += 4) {
          const tag = b.readUInt16BE(i), ref = b.readUInt16BE(i + 2);
          if (tag === TAG.SDD) sddRef = ref;
          else if (tag === TAG.SD) dataRef = ref;
        }
      }
    }
    sddRef ??= g.members.find((m) => m.tag === TAG.SDD)?.ref;
    dataRef ??= g.members.find((m) => m.tag === TAG.SD)?.ref;
    if (sddRef === undefined) continue; // a netCDF variable without data (a coordinate of no values)
    const what = `the dimension record of SDS "${g.name}"`;
    const l = await f.layout(TAG.SDD, sddRef, what);
    if (!l || l.kind === 'chunked') continue;
    const sdd = await f.bytes(l, 1 << 16, what);
    const rank = sdd.length >= 2 ? sdd.readInt16BE(0) : -1;
    if (rank < 1 || rank > 32 || sdd.length < 2 + 4 * rank + 4) throw f.fail(`${f.path}: ${what} is not valid (rank ${rank}); the file is damaged`);
    const sizes = Array.from({ length: rank }, (_, i) => sdd.readInt32BE(2 + 4 * i));
    if (sizes.some((s) => s < 0)) throw f.fail(`${f.path}: ${what} has a negative extent; the file is damaged`);
    const ntRef = sdd.readUInt16BE(2 + 4 * rank + 2);
    const nt = await numberTypeElement(f, ntRef, g.name);
    const dimGroups = g.members.filter((m) => m.tag === TAG.VG).map((m) => vgByRef.get(m.ref)).filter((d): d is Vgroup => !!d && /^U?Dim0\./.test(d.cls));
    const dims = sizes.map((size, i) => ({ name: dimGroups.length === rank ? dimGroups[i].name : `fakeDim${i}`, size }));
    const attrTypes = new Map<string, number>();
    datasets.push({ name: g.name, vgRef: g.ref, ndgRef: ndg?.ref, dims, nt, attrs: await attributes(g, attrTypes), attrTypes, dataRef });
  }
  const cdf = vgroups.find((g) => g.cls === 'CDF0.0');
  const globals = cdf ? await attributes(cdf) : new Map<string, AttValue>();
  return { globals, datasets, vgroups };
}

/** The number type of an NT element (version, type, width, class): class 4 is little-endian. */
async function numberTypeElement(f: Hdf4File, ref: number, sds: string): Promise<number> {
  const what = `the number type of SDS "${sds}"`;
  const l = await f.layout(TAG.NT, ref, what);
  if (!l || l.kind === 'chunked') throw f.fail(`${f.path}: ${what} is missing; the file is damaged`);
  const b = await f.bytes(l, 64, what);
  if (b.length < 4) throw f.fail(`${f.path}: ${what} is cut short; the file is damaged`);
  // Class 4 (Intel/PC) and 8 (Alpha) are little-endian; 1 is big-endian, the SD default.
  return b[1] | (b[3] === 4 || b[3] === 8 ? 0x4000 : 0);
}

/** A decoded chunk: its values in C order over `extent`. */
interface Chunk { values: TypedArray; extent: number[] }

/** Values of one SDS as a grid of chunks, decoded on demand and cached. */
export class SdsReader {
  readonly dtype: DType;
  /** Chunk extents along each dimension (the last chunk of a dimension may hold fewer for a contiguous SDS). */
  chunk: number[] = [];
  private sample: SampleType;
  private size: number;
  private littleEndian: boolean;
  private layout?: Layout;
  private table = new Map<string, { tag: number; ref: number }>();
  private fillBytes: Buffer;
  private cache = new Map<string, Promise<Chunk>>();
  private cacheBytes = 0;
  private budget = 96 << 20;

  /**
   * `splitDim`: for contiguous data, the dimension cut into stretches (those before it are read one
   * index at a time, those after whole); `fill`: the value of data never written.
   */
  constructor(private f: Hdf4File, readonly sds: Sds, private what: string, private splitDim: number, fill: number | undefined) {
    const t = numberType(sds.nt);
    if (!t || !t.dtype || t.text) throw f.fail(`${f.path}: ${what} holds ${t ? t.name : `number type ${sds.nt}`} values, which GeoWeave does not read as a raster`);
    this.dtype = t.dtype;
    this.size = t.size;
    this.littleEndian = t.littleEndian;
    const float = t.dtype.startsWith('float'), signed = t.dtype.startsWith('int');
    this.sample = { dtype: t.dtype, bits: t.size * 8, format: float ? 3 : signed ? 2 : 1, packed: false, half: false };
    this.fillBytes = Buffer.alloc(t.size);
    if (fill !== undefined) this.fillBytes = encodeValue(fill, sds.nt, t.size);
  }

  get dims(): number[] { return this.sds.dims.map((d) => d.size); }

  async init(): Promise<void> {
    const dims = this.dims;
    const total = dims.reduce((a, b) => a * b, this.size);
    this.layout = this.sds.dataRef === undefined ? undefined : await this.f.layout(TAG.SD, this.sds.dataRef, this.what);
    const l = this.layout;
    if (l?.kind === 'chunked') {
      if (l.dims.length !== dims.length || l.ntSize !== this.size) throw this.f.fail(`${this.f.path}: ${this.what}: its chunk header does not match its dimensions; the file is damaged`);
      this.chunk = l.chunk;
      if (l.fill.length === this.size) this.fillBytes = l.fill;
      const v = await readVdata(this.f, l.tableRef);
      const vals = await readVdataValues(this.f, v, 256 << 20);
      const origin = vals.get('origin'), tags = vals.get('chk_tag'), refs = vals.get('chk_ref');
      if (!Array.isArray(origin) || !Array.isArray(tags) || !Array.isArray(refs) || origin.length !== refs.length * dims.length) {
        if (v.records > 0) throw this.f.fail(`${this.f.path}: ${this.what}: its chunk table is not valid; the file is damaged`);
      } else {
        for (let i = 0; i < refs.length; i++) this.table.set(origin.slice(i * dims.length, (i + 1) * dims.length).join(','), { tag: tags[i], ref: refs[i] });
      }
      return;
    }
    if (l?.kind === 'compressed') {
      if (l.length < total) throw this.f.fail(`${this.f.path}: ${this.what} holds ${l.length} bytes once decoded, fewer than its ${dims.join('×')} values need; the file is damaged`);
      if (total > MAX_ELEMENT_BYTES) throw this.f.fail(`${this.f.path}: ${this.what} is compressed whole into ${total} bytes, more than GeoWeave decodes at once; rechunk it with hrepack -c '*:CHUNK 512x512' (hdf4-tools)`);
      this.chunk = dims.slice();
      return;
    }
    if (l && l.length < total) throw this.f.fail(`${this.f.path}: ${this.what} holds ${l.length} bytes where its ${dims.join('×')} values need ${total}; the file is cut short or damaged`);
    // Contiguous (or never written): stretches of about 4 MB along the split dimension.
    const j = this.splitDim;
    const inner = dims.slice(j + 1).reduce((a, b) => a * b, this.size);
    const k = Math.max(1, Math.min(dims[j], Math.floor((4 << 20) / Math.max(1, inner))));
    this.chunk = dims.map((d, i) => (i < j ? 1 : i === j ? k : d));
  }

  /** The chunk whose index along each dimension is `idx`. */
  chunkAt(idx: number[], signal?: AbortSignal): Promise<Chunk> {
    const key = idx.join(',');
    const hit = this.cache.get(key);
    if (hit) { this.cache.delete(key); this.cache.set(key, hit); return hit; }
    const p = this.decode(idx, signal);
    this.cache.set(key, p);
    p.then((c) => {
      this.cacheBytes += c.values.byteLength;
      while (this.cacheBytes > this.budget && this.cache.size > 1) {
        const [oldest, q] = this.cache.entries().next().value as [string, Promise<Chunk>];
        this.cache.delete(oldest);
        q.then((o) => { this.cacheBytes -= o.values.byteLength; }, () => undefined);
      }
    }, () => this.cache.delete(key));
    return p;
  }

  private async decode(idx: number[], signal?: AbortSignal): Promise<Chunk> {
    signal?.throwIfAborted();
    const dims = this.dims, l = this.layout;
    const extent = l?.kind === 'chunked' ? this.chunk.slice() : this.chunk.map((c, i) => Math.min(c, dims[i] - idx[i] * c));
    const n = extent.reduce((a, b) => a * b, 1);
    let bytes: Buffer;
    if (l?.kind === 'chunked') {
      const entry = this.table.get(idx.join(','));
      const cl = entry ? await this.f.layout(entry.tag, entry.ref, `chunk (${idx.join(', ')}) of ${this.what}`) : undefined;
      if (!cl) bytes = this.filled(n);
      else if (cl.kind === 'chunked') throw this.f.fail(`${this.f.path}: chunk (${idx.join(', ')}) of ${this.what} is itself chunked; the file is damaged`);
      else {
        bytes = await this.f.bytes(cl, n * this.size, `chunk (${idx.join(', ')}) of ${this.what}`);
        if (bytes.length < n * this.size) bytes = Buffer.concat([bytes, this.filled(n - bytes.length / this.size)]);
      }
    } else if (l?.kind === 'compressed') {
      bytes = await this.f.bytes(l, l.length, this.what);
    } else if (l && l.length > 0) {
      // A contiguous stretch: dims before the split one at their index, the split one from its chunk start.
      let start = 0;
      for (let i = 0; i < dims.length; i++) start = start * dims[i] + idx[i] * this.chunk[i];
      bytes = await this.f.readRuns(l, start * this.size, n * this.size, this.what);
    } else {
      bytes = this.filled(n);
    }
    const values = samplesFromBytes(new Uint8Array(bytes.buffer, bytes.byteOffset, n * this.size), this.sample, this.littleEndian, n, null);
    return { values, extent };
  }

  private filled(n: number): Buffer {
    const b = Buffer.alloc(n * this.size);
    if (this.fillBytes.some((x) => x !== 0)) for (let i = 0; i < n; i++) this.fillBytes.copy(b, i * this.size);
    return b;
  }

  /**
   * Copies the window [y, y+h) × [x, x+w) of the 2-D slice at `fixed` (an index for every
   * dimension; those at `yd` and `xd` are ignored) into `out`, row by row.
   */
  async readSlice(fixed: number[], yd: number, xd: number, x: number, y: number, w: number, h: number, out: TypedArray | Float64Array, signal?: AbortSignal): Promise<void> {
    const c = this.chunk;
    const base = fixed.map((v, i) => Math.floor(v / c[i]));
    const jobs: Promise<void>[] = [];
    for (let cy = Math.floor(y / c[yd]); cy * c[yd] < y + h; cy++) {
      for (let cx = Math.floor(x / c[xd]); cx * c[xd] < x + w; cx++) {
        const idx = base.slice();
        idx[yd] = cy; idx[xd] = cx;
        jobs.push(this.chunkAt(idx, signal).then(({ values, extent }) => {
          // C-order strides over the chunk's extent.
          const strides = new Array<number>(extent.length);
          for (let i = extent.length - 1, s = 1; i >= 0; i--) { strides[i] = s; s *= extent[i]; }
          let at = 0;
          for (let i = 0; i < extent.length; i++) if (i !== yd && i !== xd) at += (fixed[i] - idx[i] * c[i]) * strides[i];
          const oy = cy * c[yd], ox = cx * c[xd];
          const y0 = Math.max(y, oy), y1 = Math.min(y + h, oy + extent[yd], this.dims[yd]);
          const x0 = Math.max(x, ox), x1 = Math.min(x + w, ox + extent[xd], this.dims[xd]);
          const sy = strides[yd], sx = strides[xd];
          for (let yy = y0; yy < y1; yy++) {
            let src = at + (yy - oy) * sy + (x0 - ox) * sx;
            let dst = (yy - y) * w + (x0 - x);
            if (sx === 1) { out.set(values.subarray(src, src + x1 - x0) as never, dst); continue; }
            for (let xx = x0; xx < x1; xx++, src += sx) out[dst++] = values[src];
          }
        }));
      }
    }
    await Promise.all(jobs);
  }

  /** Decoded chunks held in the cache, and their bytes. */
  cacheUse(): { chunks: number; bytes: number } { return { chunks: this.cache.size, bytes: this.cacheBytes }; }
}

/** `v` stored as number type `nt` (the file's byte order). */
function encodeValue(v: number, nt: number, size: number): Buffer {
  const t = numberType(nt)!;
  const b = Buffer.alloc(size);
  const le = t.littleEndian;
  switch (nt & 0xfff) {
    case 3: case 21: b.writeUInt8(v & 0xff); break;
    case 4: case 20: b.writeInt8(Math.max(-128, Math.min(127, v))); break;
    case 5: le ? b.writeFloatLE(v) : b.writeFloatBE(v); break;
    case 6: le ? b.writeDoubleLE(v) : b.writeDoubleBE(v); break;
    case 22: le ? b.writeInt16LE(v) : b.writeInt16BE(v); break;
    case 23: le ? b.writeUInt16LE(v) : b.writeUInt16BE(v); break;
    case 24: le ? b.writeInt32LE(v) : b.writeInt32BE(v); break;
    case 25: le ? b.writeUInt32LE(v) : b.writeUInt32BE(v); break;
    case 26: le ? b.writeBigInt64LE(BigInt(v)) : b.writeBigInt64BE(BigInt(v)); break;
    case 27: le ? b.writeBigUInt64LE(BigInt(v)) : b.writeBigUInt64BE(BigInt(v)); break;
  }
  // Round trip: a fill that the type cannot hold is dropped (zeros), not wrapped.
  return decodeNumbers(b, 0, nt, 1)[0] === v ? b : Buffer.alloc(size);
}
