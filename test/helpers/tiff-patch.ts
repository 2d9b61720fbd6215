/** Editing classic TIFF headers in place, to make files no writer would: odd sample types, lying counts, loops. */

export interface IfdEntry { tag: number; type: number; count: number; value: number; at: number }

function reader(b: Buffer) {
  const le = b[0] === 0x49;
  return {
    le,
    u16: (o: number) => (le ? b.readUInt16LE(o) : b.readUInt16BE(o)),
    u32: (o: number) => (le ? b.readUInt32LE(o) : b.readUInt32BE(o)),
    w16: (o: number, v: number) => (le ? b.writeUInt16LE(v, o) : b.writeUInt16BE(v, o)),
    w32: (o: number, v: number) => (le ? b.writeUInt32LE(v >>> 0, o) : b.writeUInt32BE(v >>> 0, o)),
  };
}

/** Offset of the first IFD of a classic TIFF. */
export function firstIfd(b: Buffer): number {
  return reader(b).u32(4);
}

/** Entries of the IFD at `at` (default the first); `value` is the inline value or the offset of the data. */
export function ifdEntries(b: Buffer, at = firstIfd(b)): IfdEntry[] {
  const r = reader(b);
  const n = r.u16(at);
  return Array.from({ length: n }, (_, i) => {
    const o = at + 2 + 12 * i;
    const type = r.u16(o + 2), count = r.u32(o + 4);
    const inlineShort = (type === 3 || type === 8) && count <= 2;
    return { tag: r.u16(o), type, count, value: inlineShort ? r.u16(o + 8) : r.u32(o + 8), at: o };
  });
}

export function entry(b: Buffer, tag: number, ifd = firstIfd(b)): IfdEntry {
  const e = ifdEntries(b, ifd).find((x) => x.tag === tag);
  if (!e) throw new Error(`no tag ${tag} in the IFD at ${ifd}`);
  return e;
}

/** Offsets of every IFD of a classic TIFF, first to last (stopping at a loop). */
export function ifdChain(b: Buffer): number[] {
  const r = reader(b);
  const out: number[] = [];
  for (let at = firstIfd(b); at && !out.includes(at) && at + 2 <= b.length; at = r.u32(at + 2 + 12 * r.u16(at))) out.push(at);
  return out;
}

/** Sets a tag's count and/or its inline value / data offset (type kept), in the first IFD or the one at `ifd`. Returns the buffer. */
export function patchEntry(b: Buffer, tag: number, change: { count?: number; value?: number; type?: number }, ifd = firstIfd(b)): Buffer {
  const r = reader(b);
  const e = entry(b, tag, ifd);
  // A value that does not fit a SHORT makes the entry a LONG.
  if (change.value !== undefined && change.value > 0xffff && (change.type ?? e.type) === 3) change = { ...change, type: 4 };
  if (change.type !== undefined) r.w16(e.at + 2, change.type);
  if (change.count !== undefined) r.w32(e.at + 4, change.count);
  if (change.value !== undefined) {
    const type = change.type ?? e.type;
    if ((type === 3 || type === 8) && (change.count ?? e.count) <= 2) r.w16(e.at + 8, change.value);
    else r.w32(e.at + 8, change.value);
  }
  return b;
}

/** Every inline SHORT value of a single-sample entry (BitsPerSample, SampleFormat of one band) set to `value`. */
export function patchShort(b: Buffer, tag: number, value: number): Buffer {
  return patchEntry(b, tag, { value });
}

/** Points the next-IFD link of the first IFD (or the one at `at`) at `to` (e.g. itself: a loop). */
export function patchNextIfd(b: Buffer, to: number, at = firstIfd(b)): Buffer {
  const r = reader(b);
  r.w32(at + 2 + 12 * r.u16(at), to);
  return b;
}
