/**
 * HDF4 Vgroups (named, classed lists of tag/ref members) and Vdatas (tables of fixed-size
 * records), as vio.c and vgp.c pack them, and HDF4 number types. The SD model and HDF-EOS are
 * built from these: a variable is a Vgroup of class "Var0.0", an attribute a one-record Vdata of
 * class "Attr0.0", a chunk table a Vdata of chunk origins and tag/refs.
 */
import { type Hdf4File, TAG } from './hdf4-file';
import type { DType } from './samples';
import { trimEnd } from './trim-end';

export interface Vgroup { ref: number; name: string; cls: string; members: { tag: number; ref: number }[] }
export interface VdataField { name: string; type: number; size: number; offset: number; order: number }
export interface Vdata { ref: number; name: string; cls: string; interlace: number; records: number; recordSize: number; fields: VdataField[] }
/** An attribute's value: text for character types, else its numbers. */
export type AttValue = string | number[];

/** HDF4 number types (hntdefs.h), without the little-endian/native flags. */
const NT_INFO: Record<number, { size: number; dtype?: DType; text?: boolean }> = {
  3: { size: 1, dtype: 'uint8', text: true }, 4: { size: 1, dtype: 'int8', text: true }, 5: { size: 4, dtype: 'float32' }, 6: { size: 8, dtype: 'float64' },
  20: { size: 1, dtype: 'int8' }, 21: { size: 1, dtype: 'uint8' }, 22: { size: 2, dtype: 'int16' }, 23: { size: 2, dtype: 'uint16' },
  24: { size: 4, dtype: 'int32' }, 25: { size: 4, dtype: 'uint32' }, 26: { size: 8, dtype: 'int64' }, 27: { size: 8, dtype: 'uint64' },
};
const NT_NAMES: Record<number, string> = { 3: 'uchar8', 4: 'char8', 5: 'float32', 6: 'float64', 20: 'int8', 21: 'uint8', 22: 'int16', 23: 'uint16', 24: 'int32', 25: 'uint32', 26: 'int64', 27: 'uint64' };
const LITTLE_ENDIAN = 0x4000, NATIVE = 0x1000;

/** Bytes, sample type and byte order of an HDF4 number type; undefined for a type this reader does not know. */
export function numberType(nt: number): { size: number; dtype?: DType; text: boolean; littleEndian: boolean; name: string } | undefined {
  const base = nt & 0xfff;
  const info = NT_INFO[base];
  if (!info) return undefined;
  return { size: info.size, dtype: info.dtype, text: !!info.text, littleEndian: (nt & LITTLE_ENDIAN) !== 0 || (nt & NATIVE) !== 0, name: NT_NAMES[base] };
}

/** `count` numbers of number type `nt` from `buf` at `at`. */
export function decodeNumbers(buf: Buffer, at: number, nt: number, count: number): number[] {
  const t = numberType(nt);
  if (!t) return [];
  const le = t.littleEndian, base = nt & 0xfff, out: number[] = [];
  for (let i = 0; i < count && at + (i + 1) * t.size <= buf.length; i++) {
    const o = at + i * t.size;
    switch (base) {
      case 3: case 21: out.push(buf.readUInt8(o)); break;
      case 4: case 20: out.push(buf.readInt8(o)); break;
      case 5: out.push(le ? buf.readFloatLE(o) : buf.readFloatBE(o)); break;
      case 6: out.push(le ? buf.readDoubleLE(o) : buf.readDoubleBE(o)); break;
      case 22: out.push(le ? buf.readInt16LE(o) : buf.readInt16BE(o)); break;
      case 23: out.push(le ? buf.readUInt16LE(o) : buf.readUInt16BE(o)); break;
      case 24: out.push(le ? buf.readInt32LE(o) : buf.readInt32BE(o)); break;
      case 25: out.push(le ? buf.readUInt32LE(o) : buf.readUInt32BE(o)); break;
      case 26: out.push(Number(le ? buf.readBigInt64LE(o) : buf.readBigInt64BE(o))); break;
      case 27: out.push(Number(le ? buf.readBigUInt64LE(o) : buf.readBigUInt64BE(o))); break;
    }
  }
  return out;
}

/** A cursor over a packed header that fails (naming what it reads) instead of reading past its end. */
class Cursor {
  at = 0;
  constructor(private b: Buffer, private bad: () => Error) {}
  private need(n: number): void { if (this.at + n > this.b.length) throw this.bad(); }
  u16(): number { this.need(2); const v = this.b.readUInt16BE(this.at); this.at += 2; return v; }
  i16(): number { this.need(2); const v = this.b.readInt16BE(this.at); this.at += 2; return v; }
  i32(): number { this.need(4); const v = this.b.readInt32BE(this.at); this.at += 4; return v; }
  text(): string { const n = this.u16(); this.need(n); const s = this.b.toString('latin1', this.at, this.at + n); this.at += n; return s; }
}

/** Headers are small; a longer one is damage. */
const MAX_HEADER = 1 << 20;

/** The Vgroup stored as VG/ref. */
export async function readVgroup(f: Hdf4File, ref: number): Promise<Vgroup> {
  const what = `Vgroup ${ref}`;
  const l = await f.layout(TAG.VG, ref, what);
  if (!l || l.kind === 'chunked') throw f.fail(`${f.path}: ${what} is missing or not a plain element; the file is damaged`);
  const c = new Cursor(await f.bytes(l, MAX_HEADER, what), () => f.fail(`${f.path}: ${what} ends early; the file is damaged`));
  const n = c.u16();
  const tags = Array.from({ length: n }, () => c.u16());
  const refs = Array.from({ length: n }, () => c.u16());
  const name = c.text(), cls = c.text();
  return { ref, name, cls, members: tags.map((tag, i) => ({ tag, ref: refs[i] })) };
}

/** The header (VH/ref) of a Vdata: its fields and record count. */
export async function readVdata(f: Hdf4File, ref: number): Promise<Vdata> {
  const what = `Vdata ${ref}`;
  const l = await f.layout(TAG.VH, ref, what);
  if (!l || l.kind === 'chunked') throw f.fail(`${f.path}: ${what} is missing or not a plain element; the file is damaged`);
  const c = new Cursor(await f.bytes(l, MAX_HEADER, what), () => f.fail(`${f.path}: the header of ${what} ends early; the file is damaged`));
  const interlace = c.i16(), records = c.i32(), recordSize = c.u16(), n = c.i16();
  if (records < 0 || n < 0 || n > 4096) throw f.fail(`${f.path}: the header of ${what} is not valid (${records} records, ${n} fields); the file is damaged`);
  const types = Array.from({ length: n }, () => c.i16());
  const sizes = Array.from({ length: n }, () => c.u16());
  const offsets = Array.from({ length: n }, () => c.u16());
  const orders = Array.from({ length: n }, () => c.u16());
  const names = Array.from({ length: n }, () => c.text());
  const name = c.text(), cls = c.text();
  return { ref, name, cls, interlace, records, recordSize, fields: names.map((fn, i) => ({ name: fn, type: types[i], size: sizes[i], offset: offsets[i], order: orders[i] })) };
}

/**
 * The values of every record of a Vdata, by field name: text for a character field of one record,
 * else the numbers of all records in order (each record's `order` values in turn).
 */
export async function readVdataValues(f: Hdf4File, v: Vdata, maxBytes = 64 << 20): Promise<Map<string, AttValue>> {
  const what = `the records of Vdata "${v.name}"`;
  const total = v.records * v.recordSize;
  const out = new Map<string, AttValue>();
  if (total === 0) return out;
  if (total > maxBytes || total > f.size * 64 + 4096) throw f.fail(`${f.path}: ${what} declare ${total} bytes; the file is damaged`);
  const l = await f.layout(TAG.VS, v.ref, what);
  if (!l) return out;
  if (l.kind === 'chunked') throw f.fail(`${f.path}: ${what} are chunked, which HDF4 does not do for a Vdata; the file is damaged`);
  const buf = await f.bytes(l, total, what);
  if (buf.length < total) throw f.fail(`${f.path}: ${what} are cut short (${buf.length} of ${total} bytes); the file is damaged`);
  // Fully interlaced: record after record; not interlaced: each field's values for every record in turn.
  let fieldStart = 0;
  for (const fd of v.fields) {
    const t = numberType(fd.type);
    if (!t) continue;
    if (t.text && v.records === 1) {
      const at = v.interlace === 0 ? fd.offset : fieldStart;
      out.set(fd.name, trimEnd(buf.toString('latin1', at, at + fd.order)));
    } else {
      const vals: number[] = [];
      for (let r = 0; r < v.records; r++) {
        const at = v.interlace === 0 ? r * v.recordSize + fd.offset : fieldStart + r * fd.size;
        vals.push(...decodeNumbers(buf, at, fd.type, fd.order));
      }
      out.set(fd.name, vals);
    }
    fieldStart += fd.size * v.records;
  }
  return out;
}
