/**
 * NetCDF classic files (`.nc` of format CDF-1, CDF-2 "64-bit offset" and CDF-5 "64-bit data"), as
 * older Copernicus CDS downloads (ERA5, ERA5-Land before 2024), CORDEX and many model outputs come:
 * the backend that gives cf-grid.ts their variables. The header lists dimensions, attributes and
 * variables; a variable's values are stored in one block, or, along the record (unlimited)
 * dimension, one slab per record interleaved with the other record variables.
 */
import * as fs from 'fs';
import type { AttValue, CfDim, CfFile, CfVariable } from './cf-grid';
import { CTORS, type DType } from './samples';
import { trimEnd } from './trim-end';

type NcType = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11;
const SIZE: Record<NcType, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 4, 6: 8, 7: 1, 8: 2, 9: 4, 10: 8, 11: 8 };
const DTYPE: Partial<Record<NcType, DType>> = { 1: 'int8', 3: 'int16', 4: 'int32', 5: 'float32', 6: 'float64', 7: 'uint8', 8: 'uint16', 9: 'uint32', 10: 'int64', 11: 'uint64' };
interface Dim { name: string; length: number }
interface Var { name: string; dims: number[]; atts: Map<string, AttValue>; type: NcType; vsize: number; begin: number }

/** Whether a file's first bytes are a NetCDF classic header ("CDF" and version 1, 2 or 5). */
export function isNetcdfClassic(head: Buffer): boolean {
  return head.length >= 4 && head.toString('latin1', 0, 3) === 'CDF' && [1, 2, 5].includes(head[3]);
}

/** A parsed classic header: the part of the format that says where every value is. */
export interface NcHeader { version: number; numrecs: number; dims: Dim[]; atts: Map<string, AttValue>; vars: Var[]; recsize: number }

export function parseHeader(buf: Buffer, source: string, fail: (m: string) => Error): NcHeader {
  const version = buf[3];
  let at = 4;
  const need = (n: number) => { if (at + n > buf.length) throw fail(`${source}: its NetCDF header ends early (at byte ${at}); the file is cut short or its header is larger than read`); };
  const u32 = () => { need(4); const v = buf.readUInt32BE(at); at += 4; return v; };
  const u64 = () => { need(8); const v = Number(buf.readBigUInt64BE(at)); at += 8; return v; };
  const count = () => (version === 5 ? u64() : u32());
  const offset = () => (version === 1 ? u32() : u64());
  const name = () => {
    const n = count();
    if (n > 4096) throw fail(`${source}: a NetCDF name of ${n} bytes; the header is damaged`);
    need(n);
    const s = buf.toString('utf8', at, at + n);
    at += n + ((4 - (n % 4)) % 4);
    return s;
  };
  const values = (type: NcType, n: number): AttValue => {
    const size = SIZE[type];
    if (!size) throw fail(`${source}: NetCDF type ${type} is not a classic type; the header is damaged`);
    need(n * size);
    let v: AttValue;
    if (type === 2) v = trimEnd(buf.toString('utf8', at, at + n));
    else {
      const out: number[] = [];
      for (let i = 0; i < n; i++) {
        const o = at + i * size;
        out.push(type === 1 ? buf.readInt8(o) : type === 3 ? buf.readInt16BE(o) : type === 4 ? buf.readInt32BE(o) : type === 5 ? buf.readFloatBE(o) : type === 6 ? buf.readDoubleBE(o)
          : type === 7 ? buf.readUInt8(o) : type === 8 ? buf.readUInt16BE(o) : type === 9 ? buf.readUInt32BE(o) : type === 10 ? Number(buf.readBigInt64BE(o)) : Number(buf.readBigUInt64BE(o)));
      }
      v = out;
    }
    at += n * size + ((4 - ((n * size) % 4)) % 4);
    return v;
  };
  // A list: its tag (dimensions 10, variables 11, attributes 12) or ABSENT (two zeros), then its items.
  const list = <T>(tag: number, item: () => T): T[] => {
    const t = u32();
    const n = count();
    if (t === 0 && n === 0) return [];
    if (t !== tag) throw fail(`${source}: NetCDF header list tag ${t} where ${tag} was expected; the header is damaged`);
    if (n > 100000) throw fail(`${source}: a NetCDF list of ${n} items; the header is damaged`);
    return Array.from({ length: n }, item);
  };
  const attributes = () => new Map(list(12, () => {
    const k = name();
    const type = u32() as NcType;
    return [k, values(type, count())] as [string, AttValue];
  }));
  const numrecs = count();
  const dims = list(10, () => ({ name: name(), length: count() }));
  const atts = attributes();
  const vars = list(11, (): Var => {
    const n = name();
    const nd = count();
    if (nd > 64) throw fail(`${source}: variable "${n}" has ${nd} dimensions; the header is damaged`);
    const ids = Array.from({ length: nd }, () => count());
    for (const d of ids) if (d >= dims.length) throw fail(`${source}: variable "${n}" uses dimension ${d}, which the file does not define`);
    const va = attributes();
    const type = u32() as NcType;
    if (!SIZE[type]) throw fail(`${source}: variable "${n}" has NetCDF type ${type}, not a classic type`);
    return { name: n, dims: ids, atts: va, type, vsize: count(), begin: offset() };
  });
  const isRecord = (v: Var) => v.dims.length > 0 && dims[v.dims[0]].length === 0;
  const rec = vars.filter(isRecord);
  // One record variable is stored without padding between records (the format's special case).
  const recsize = rec.length === 1 ? slabBytes(rec[0], dims) : rec.reduce((s, v) => s + v.vsize, 0);
  return { version, numrecs, dims, atts, vars, recsize };
}

/** Bytes of one record's slab (or of the whole variable when it has no record dimension), unpadded. */
function slabBytes(v: Var, dims: Dim[]): number {
  return v.dims.filter((d) => dims[d].length !== 0).reduce((s, d) => s * dims[d].length, SIZE[v.type]);
}

/** A classic file's variables for cf-grid.ts, read through one open handle. */
export class ClassicFile implements CfFile {
  readonly variables: CfVariable[];
  private stored = new Map<CfVariable, Var>();

  private constructor(readonly source: string, private fh: fs.promises.FileHandle, private header: NcHeader, private size: number, private fail: (m: string) => Error) {
    const h = header;
    const cfVars = h.vars.map((v): CfVariable => ({
      name: v.name, group: '', atts: v.atts, dtype: DTYPE[v.type],
      dims: v.dims.map((d): CfDim => ({ name: h.dims[d].name, length: h.dims[d].length === 0 ? h.numrecs : h.dims[d].length, ...(h.dims[d].length === 0 ? { record: true } : {}) })),
    }));
    h.vars.forEach((v, i) => this.stored.set(cfVars[i], v));
    // A dimension's coordinate variable: the 1-D variable named after it.
    for (const cv of cfVars) {
      for (const d of cv.dims) d.coordinate = cfVars.find((c) => c.dims.length === 1 && c.name === d.name && c.dims[0].name === d.name);
    }
    this.variables = cfVars;
  }

  static async open(source: string, fail: (m: string) => Error): Promise<ClassicFile> {
    const fh = await fs.promises.open(source, 'r');
    try {
      const size = (await fh.stat()).size;
      // Headers are small; a model file's with hundreds of variables fits in a few hundred KB.
      const buf = Buffer.alloc(Math.min(size, 4 << 20));
      await fh.read(buf, 0, buf.length, 0);
      return new ClassicFile(source, fh, parseHeader(buf, source, fail), size, fail);
    } catch (e) {
      await fh.close().catch(() => undefined);
      throw e;
    }
  }

  private isRecord(v: Var): boolean {
    return v.dims.length > 0 && this.header.dims[v.dims[0]].length === 0;
  }

  /** Values must lie inside the file: a cut download is refused now rather than read as zeros. */
  async check(cv: CfVariable): Promise<void> {
    const v = this.stored.get(cv)!, h = this.header;
    const last = this.isRecord(v) ? v.begin + (h.numrecs - 1) * h.recsize + slabBytes(v, h.dims) : v.begin + slabBytes(v, h.dims);
    if (last > this.size) throw this.fail(`${this.source}: variable "${v.name}" runs to byte ${last} but the file has ${this.size}; it is cut short`);
  }

  /** A 1-D variable's values; a record variable's (time) are read one per record. */
  async values(cv: CfVariable): Promise<number[]> {
    const c = this.stored.get(cv)!;
    const size = SIZE[c.type];
    const record = this.isRecord(c);
    const n = cv.dims[0].length;
    const buf = Buffer.alloc(n * size);
    for (let i = 0; i < (record ? n : 1); i++) {
      const len = record ? size : n * size;
      const { bytesRead } = await this.fh.read(buf, i * size, len, c.begin + (record ? i * this.header.recsize : 0));
      if (bytesRead < len) throw this.fail(`${this.source}: coordinate variable "${c.name}" runs past the end of the file`);
    }
    const get = reader(c.type, buf);
    return Array.from({ length: n }, (_, i) => get(i));
  }

  /** Rows of one 2-D slab (every dimension before the grid's two at count 1), read whole and cut to the columns asked. */
  async read(cv: CfVariable, start: number[], count: number[], signal?: AbortSignal): Promise<ArrayLike<number>> {
    const v = this.stored.get(cv)!, size = SIZE[v.type];
    const k = cv.dims.length;
    const W = cv.dims[k - 1].length, H = cv.dims[k - 2].length;
    const [r0, x] = start.slice(-2), [h, w] = count.slice(-2);
    // The 2-D slab: in its record's slab for a record variable, else at its place in the block.
    const outer = cv.dims.slice(0, -2).map((d) => d.length);
    const record = this.isRecord(v);
    let inner = 0;
    for (let i = record ? 1 : 0; i < outer.length; i++) inner = inner * outer[i] + start[i];
    const slab = v.begin + (record ? start[0] * this.header.recsize : 0) + inner * W * H * size;
    const buf = Buffer.alloc(h * W * size);
    for (let done = 0; done < buf.length;) {
      signal?.throwIfAborted();
      const { bytesRead } = await this.fh.read(buf, done, Math.min(buf.length - done, 8 << 20), slab + r0 * W * size + done);
      if (!bytesRead) throw this.fail(`${this.source}: the file ended while reading variable "${v.name}"; it changed since it was opened`);
      done += bytesRead;
    }
    const get = reader(v.type, buf);
    const out = new CTORS[cv.dtype!](w * h);
    for (let r = 0; r < h; r++) for (let c = 0; c < w; c++) out[r * w + c] = get(r * W + x + c);
    return out;
  }

  async close(): Promise<void> {
    await this.fh.close().catch(() => undefined);
  }
}

/** Big-endian values of a classic type, by index. */
function reader(type: NcType, buf: Buffer): (i: number) => number {
  switch (type) {
    case 1: return (i) => buf.readInt8(i);
    case 3: return (i) => buf.readInt16BE(2 * i);
    case 4: return (i) => buf.readInt32BE(4 * i);
    case 5: return (i) => buf.readFloatBE(4 * i);
    case 6: return (i) => buf.readDoubleBE(8 * i);
    case 7: return (i) => buf.readUInt8(i);
    case 8: return (i) => buf.readUInt16BE(2 * i);
    case 9: return (i) => buf.readUInt32BE(4 * i);
    case 10: return (i) => Number(buf.readBigInt64BE(8 * i));
    case 11: return (i) => Number(buf.readBigUInt64BE(8 * i));
    default: return (i) => buf[i];
  }
}
