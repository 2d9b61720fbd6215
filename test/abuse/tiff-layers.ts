/** Where the layers of a TIFF lie (classic or BigTIFF, either byte order): header, IFD, out-of-line tag data, image blocks. */

export interface Layers {
  header: [number, number];
  ifd: [number, number];
  /** Out-of-line values of IFD entries: [offset, length, tag]. */
  tags: [number, number, number][];
  /** Image blocks: [offset, length]. */
  blocks: [number, number][];
}

const SIZE: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4, 16: 8, 17: 8, 18: 8 };

export function layersOf(b: Buffer): Layers {
  const le = b[0] === 0x49;
  const u16 = (o: number) => (le ? b.readUInt16LE(o) : b.readUInt16BE(o));
  const u32 = (o: number) => (le ? b.readUInt32LE(o) : b.readUInt32BE(o));
  const u64 = (o: number) => Number(le ? b.readBigUInt64LE(o) : b.readBigUInt64BE(o));
  const big = u16(2) === 43;
  const ifdAt = big ? u64(8) : u32(4);
  const n = big ? u64(ifdAt) : u16(ifdAt);
  const entrySize = big ? 20 : 12, first = ifdAt + (big ? 8 : 2);
  const tags: [number, number, number][] = [];
  const arrays = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const o = first + i * entrySize;
    const tag = u16(o), type = u16(o + 2), count = big ? u64(o + 4) : u32(o + 4);
    const bytes = (SIZE[type] ?? 1) * count;
    const inline = bytes <= (big ? 8 : 4);
    const at = inline ? o + (big ? 12 : 8) : big ? u64(o + 12) : u32(o + 8);
    if (!inline) tags.push([at, bytes, tag]);
    if ([273, 279, 324, 325].includes(tag)) {
      const vals: number[] = [];
      for (let k = 0; k < count; k++) {
        const p = at + k * SIZE[type];
        vals.push(type === 3 ? u16(p) : type === 16 ? u64(p) : u32(p));
      }
      arrays.set(tag, vals);
    }
  }
  const offs = arrays.get(324) ?? arrays.get(273) ?? [];
  const cnts = arrays.get(325) ?? arrays.get(279) ?? [];
  return {
    header: [0, big ? 16 : 8],
    ifd: [ifdAt, (big ? 8 : 2) + n * entrySize + (big ? 8 : 4)],
    tags,
    blocks: offs.map((o, i) => [o, cnts[i] ?? 0] as [number, number]).filter(([o, c]) => o > 0 && c > 0),
  };
}
