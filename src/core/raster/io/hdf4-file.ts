/**
 * HDF4 files at the level of their data descriptors: the DD blocks (tag, ref, offset, length;
 * big-endian) and where an element's bytes lie, through the special elements HDF4 writes: linked
 * blocks (an element grown in pieces), compressed (DEFLATE, RLE, skipping Huffman) and chunked (a
 * chunk table Vdata, each chunk an element of its own, possibly compressed). Reads are positioned
 * reads on one file handle; every length is checked against the file's size before a buffer is made.
 */
import * as fs from 'node:fs';
import { type Coder, coderOf, decodeElement } from './hdf4-codecs';

/** Tags this reader uses (hdf.h / htags.h). */
export const TAG = {
  NULL: 1, LINKED: 20, COMPRESSED: 40, CHUNK: 61, NT: 106, SDD: 701, SD: 702, NDG: 720, VH: 1962, VS: 1963, VG: 1965,
} as const;
/** A special element's DD carries its base tag with this bit set. */
const SPECIAL_BIT = 0x4000;
const SPECIAL_LINKED = 1, SPECIAL_EXT = 2, SPECIAL_COMP = 3, SPECIAL_CHUNKED = 5;
/** A DD whose offset and length are both all ones: the object exists, nothing is stored yet. */
const UNSET = 0xffffffff;
/**
 * Largest element this reader holds in memory at once (a decoded chunk or a whole compressed SDS):
 * a 4800×4800 float64 MODIS field fits; a damaged header claiming more allocates nothing.
 */
export const MAX_ELEMENT_BYTES = 256 << 20;

export interface Dd { tag: number; ref: number; offset: number; length: number }

/** Stretches of the file that hold an element's bytes in order; offset −1 is a block never written (zeros). */
export interface Runs { kind: 'runs'; length: number; runs: { offset: number; length: number }[] }
/** An element stored compressed: `length` bytes once decoded, from the compressed element's runs. */
export interface Compressed { kind: 'compressed'; length: number; coder: Coder; data: Runs }
/** A chunked element: the array's and chunks' extents, the chunk table (a Vdata), the fill of missing chunks. */
export interface Chunked { kind: 'chunked'; dims: number[]; chunk: number[]; ntSize: number; fill: Buffer; tableRef: number }
export type Layout = Runs | Compressed | Chunked;

/** An HDF4 file open for positioned reads: its DD table and the elements it describes. */
export class Hdf4File {
  private dds = new Map<number, Dd>();
  private byTag = new Map<number, Dd[]>();

  private constructor(readonly path: string, readonly size: number, private fh: fs.promises.FileHandle, readonly fail: (m: string) => Error) {}

  /** Opens `path` and reads its DD blocks; `fail` makes the errors (each names the file). */
  static async open(path: string, fail: (m: string) => Error): Promise<Hdf4File> {
    const fh = await fs.promises.open(path, 'r');
    try {
      const f = new Hdf4File(path, (await fh.stat()).size, fh, fail);
      await f.readDds();
      return f;
    } catch (e) {
      await fh.close().catch(() => undefined);
      throw e;
    }
  }

  async close(): Promise<void> { await this.fh.close().catch(() => undefined); }

  private async readDds(): Promise<void> {
    const head = await this.read(0, Math.min(4, this.size), 'the file signature');
    if (head.length < 4 || head.readUInt32BE(0) !== 0x0e031301) throw this.fail(`${this.path}: not an HDF4 file (no 0e 03 13 01 signature)`);
    const seen = new Set<number>();
    for (let at = 4; at !== 0;) {
      if (seen.has(at)) throw this.fail(`${this.path}: its DD blocks link back to one another at byte ${at}; the file is damaged`);
      seen.add(at);
      if (at + 6 > this.size) throw this.fail(`${this.path}: a DD block at byte ${at} lies past the end of the file (${this.size} bytes); the file is cut short`);
      const h = await this.read(at, 6, 'a DD block');
      const n = h.readUInt16BE(0), next = h.readUInt32BE(2);
      if (at + 6 + 12 * n > this.size) throw this.fail(`${this.path}: the DD block at byte ${at} (${n} descriptors) runs past the end of the file (${this.size} bytes); the file is cut short`);
      const b = await this.read(at + 6, 12 * n, 'a DD block');
      for (let i = 0; i < n; i++) {
        const dd = { tag: b.readUInt16BE(12 * i), ref: b.readUInt16BE(12 * i + 2), offset: b.readUInt32BE(12 * i + 4), length: b.readUInt32BE(12 * i + 8) };
        if (dd.tag === TAG.NULL || dd.tag === 0) continue;
        this.dds.set(dd.tag * 65536 + dd.ref, dd);
        const list = this.byTag.get(dd.tag) ?? [];
        list.push(dd);
        this.byTag.set(dd.tag, list);
      }
      at = next;
    }
  }

  /** The DD of tag/ref, stored plain or as a special element. */
  find(tag: number, ref: number): Dd | undefined {
    return this.dds.get(tag * 65536 + ref) ?? this.dds.get((tag | SPECIAL_BIT) * 65536 + ref);
  }

  /** Every DD of a tag (plain and special), in file order of their DD blocks. */
  all(tag: number): Dd[] {
    return [...(this.byTag.get(tag) ?? []), ...(this.byTag.get(tag | SPECIAL_BIT) ?? [])];
  }

  /** `length` bytes at `offset`, refused when they lie past the end of the file. */
  async read(offset: number, length: number, what: string): Promise<Buffer> {
    if (!(offset >= 0 && length >= 0) || offset + length > this.size) {
      throw this.fail(`${this.path}: ${what} (${length} bytes at byte ${offset}) lies past the end of the file (${this.size} bytes); the file is cut short or damaged`);
    }
    const buf = Buffer.alloc(length);
    for (let done = 0; done < length;) {
      const { bytesRead } = await this.fh.read(buf, done, length - done, offset + done);
      if (!bytesRead) throw this.fail(`${this.path}: the file ended while reading ${what}; it changed while open`);
      done += bytesRead;
    }
    return buf;
  }

  /** Where the bytes of element tag/ref lie (plain, linked, compressed or chunked); undefined when it has no DD. */
  async layout(tag: number, ref: number, what: string, depth = 0): Promise<Layout | undefined> {
    const dd = this.find(tag, ref);
    if (!dd) return undefined;
    if (dd.offset === UNSET && dd.length === UNSET) return { kind: 'runs', length: 0, runs: [] };
    if (!(dd.tag & SPECIAL_BIT)) {
      this.checkInside(dd, what);
      return { kind: 'runs', length: dd.length, runs: [{ offset: dd.offset, length: dd.length }] };
    }
    if (depth > 3) throw this.fail(`${this.path}: ${what} nests special elements too deep; the file is damaged`);
    this.checkInside(dd, what);
    if (dd.length < 2) throw this.fail(`${this.path}: ${what} has a special header of ${dd.length} bytes; the file is damaged`);
    const head = await this.read(dd.offset, Math.min(dd.length, 4096), what);
    const kind = head.readUInt16BE(0);
    const need = (n: number) => { if (head.length < n) throw this.fail(`${this.path}: the special header of ${what} is cut short; the file is damaged`); };
    if (kind === SPECIAL_LINKED) {
      need(16);
      return this.linked(head.readInt32BE(2), head.readInt32BE(6), head.readInt32BE(10), head.readUInt16BE(14), what);
    }
    if (kind === SPECIAL_COMP) {
      need(14);
      const length = head.readInt32BE(4), compRef = head.readUInt16BE(8);
      const coder = coderOf(head, 10, (m) => this.fail(`${this.path}: ${what} ${m}`));
      const data = await this.layout(TAG.COMPRESSED, compRef, `the compressed data of ${what}`, depth + 1);
      if (length < 0 || length > MAX_ELEMENT_BYTES) throw this.fail(`${this.path}: ${what} declares ${length} bytes uncompressed; the file is damaged`);
      if (!data || data.kind !== 'runs') {
        // Never written (an empty compressed element reads as zeros) or a layout HDF4 does not make.
        if (!data) return { kind: 'runs', length, runs: length ? [{ offset: -1, length }] : [] };
        throw this.fail(`${this.path}: the compressed data of ${what} is itself compressed or chunked; the file is damaged`);
      }
      return { kind: 'compressed', length, coder, data };
    }
    if (kind === SPECIAL_CHUNKED) return this.chunked(head, what);
    if (kind === SPECIAL_EXT) {
      need(14);
      const nameLen = head.readInt32BE(10);
      const name = head.toString('latin1', 14, 14 + Math.max(0, Math.min(nameLen, head.length - 14)));
      throw this.fail(`${this.path}: ${what} is stored in an external file ("${name}"), which GeoWeave does not follow; pack it into one file with hrepack (hdf4-tools) and open that`);
    }
    throw this.fail(`${this.path}: ${what} is a special element of kind ${kind}, which GeoWeave does not read; rewrite the file with hrepack (hdf4-tools) or convert the field with gdal_translate`);
  }

  private checkInside(dd: Dd, what: string): void {
    if (dd.offset + dd.length > this.size) {
      throw this.fail(`${this.path}: ${what} (${dd.length} bytes at byte ${dd.offset}) runs past the end of the file (${this.size} bytes); the file is cut short (an interrupted download?)`);
    }
  }

  /** A linked-block element: the first block is as long as its DD says, the others `blockLength`. */
  private async linked(length: number, blockLength: number, perTable: number, linkRef: number, what: string): Promise<Runs> {
    if (length < 0 || length > this.size * 64 + (1 << 20) || blockLength <= 0 || perTable <= 0 || perTable > 65535) {
      throw this.fail(`${this.path}: the linked-block header of ${what} is not valid (length ${length}, blocks of ${blockLength}); the file is damaged`);
    }
    const runs: Runs['runs'] = [];
    let total = 0;
    const seen = new Set<number>();
    for (let ref = linkRef; ref !== 0 && total < length;) {
      if (seen.has(ref)) throw this.fail(`${this.path}: the link tables of ${what} loop; the file is damaged`);
      seen.add(ref);
      const dd = this.dds.get(TAG.LINKED * 65536 + ref);
      if (!dd) throw this.fail(`${this.path}: the link table ${ref} of ${what} is missing; the file is damaged`);
      this.checkInside(dd, `the link table of ${what}`);
      const table = await this.read(dd.offset, Math.min(dd.length, 2 + 2 * perTable), `the link table of ${what}`);
      const next = table.readUInt16BE(0);
      for (let i = 0; 2 + 2 * i + 2 <= table.length && total < length; i++) {
        const blockRef = table.readUInt16BE(2 + 2 * i);
        const block = blockRef ? this.dds.get(TAG.LINKED * 65536 + blockRef) : undefined;
        const want = Math.min(length - total, runs.length === 0 && block ? block.length : blockLength);
        if (!block) runs.push({ offset: -1, length: want });
        else {
          this.checkInside(block, `a block of ${what}`);
          runs.push({ offset: block.offset, length: Math.min(want, block.length) });
          if (block.length < want) runs.push({ offset: -1, length: want - block.length });
        }
        total += want;
      }
      ref = next;
    }
    if (total < length) runs.push({ offset: -1, length: length - total });
    return { kind: 'runs', length, runs };
  }

  /** The header of a chunked element (hchunks.c): extents, chunk extents, fill value, chunk table ref. */
  private chunked(head: Buffer, what: string): Chunked {
    const bad = () => this.fail(`${this.path}: the chunked-element header of ${what} is not valid; the file is damaged`);
    if (head.length < 39) throw bad();
    // special(2) header length(4) version(1) flag(4) total length(4) chunk size(4) nt size(4) table tag/ref(4) reserved tag/ref(4) rank(4)
    const ntSize = head.readInt32BE(19), tableRef = head.readUInt16BE(25), rank = head.readInt32BE(31);
    if (rank < 1 || rank > 32 || ntSize < 1 || ntSize > 8 || head.length < 35 + 12 * rank + 4) throw bad();
    const dims: number[] = [], chunk: number[] = [];
    for (let d = 0; d < rank; d++) {
      dims.push(head.readInt32BE(35 + 12 * d + 4));
      chunk.push(head.readInt32BE(35 + 12 * d + 8));
      if (dims[d] < 0 || chunk[d] < 1) throw bad();
    }
    let at = 35 + 12 * rank;
    const fillLen = head.readInt32BE(at);
    at += 4;
    if (fillLen < 0 || fillLen > 64 || at + fillLen > head.length) throw bad();
    const chunkBytes = chunk.reduce((a, b) => a * b, ntSize);
    if (chunkBytes > MAX_ELEMENT_BYTES) throw this.fail(`${this.path}: ${what} has chunks of ${chunkBytes} bytes; GeoWeave reads chunks up to ${MAX_ELEMENT_BYTES >> 20} MB (rechunk it with hrepack -c '*:CHUNK 512x512', from hdf4-tools)`);
    return { kind: 'chunked', dims, chunk, ntSize, fill: Buffer.from(head.subarray(at, at + fillLen)), tableRef };
  }

  /** Bytes [start, start + length) of an element stored as runs (plain or linked). */
  async readRuns(r: Runs, start: number, length: number, what: string): Promise<Buffer> {
    if (start < 0 || start + length > r.length) throw this.fail(`${this.path}: ${what}: bytes ${start}..${start + length} lie outside the element's ${r.length}; the file is damaged`);
    const out = Buffer.alloc(length);
    let pos = 0;
    for (const run of r.runs) {
      const a = Math.max(start, pos), b = Math.min(start + length, pos + run.length);
      if (a < b && run.offset >= 0) (await this.read(run.offset + a - pos, b - a, what)).copy(out, a - start);
      pos += run.length;
      if (pos >= start + length) break;
    }
    return out;
  }

  /** The whole element as bytes (decoded when compressed), at most `max` bytes. */
  async bytes(l: Runs | Compressed, max: number, what: string): Promise<Buffer> {
    if (l.length > max) throw this.fail(`${this.path}: ${what} declares ${l.length} bytes where at most ${max} are expected; the file is damaged`);
    if (l.kind === 'runs') return this.readRuns(l, 0, l.length, what);
    const packed = await this.readRuns(l.data, 0, l.data.length, what);
    try {
      return decodeElement(packed, l.coder, l.length);
    } catch (e) {
      throw this.fail(`${this.path}: cannot decode ${what} (${(e as Error).message}); the file is damaged or cut short`);
    }
  }
}
