/** ZIP archives written entry by entry for tests, with directory fields that can lie (bombs, bad CRCs, offsets past the end). */
import * as zlib from 'node:zlib';

export interface ZipTestEntry {
  name: string;
  data: Buffer;
  /** 8 deflate (default), 0 stored, or any other method number written as is. */
  method?: number;
  /** Unix mode for the external attributes (0o120777: a symbolic link). */
  mode?: number;
  /** General-purpose flags (1: encrypted). */
  flags?: number;
  /** What this entry's central directory record declares instead of the truth. */
  lie?: { size?: number; csize?: number; offset?: number; crc?: number };
}

/** The archive's bytes; `lie` applies to every entry, `count` and `cdOffset` to the end record. */
export function zipBytes(entries: ZipTestEntry[], lie: ZipTestEntry['lie'] & { count?: number; cdOffset?: number } = {}): Buffer {
  const locals: Buffer[] = [], central: Buffer[] = [];
  let at = 0;
  for (const e of entries) {
    const method = e.method ?? 8;
    const body = method === 8 ? zlib.deflateRawSync(e.data) : e.data;
    const name = Buffer.from(e.name);
    const l = { ...lie, ...e.lie };
    const crc = zlib.crc32(e.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0); local.writeUInt16LE(e.flags ?? 0, 6); local.writeUInt16LE(method, 8); local.writeUInt32LE(l.crc ?? crc, 14);
    local.writeUInt32LE(body.length, 18); local.writeUInt32LE(l.size ?? e.data.length, 22); local.writeUInt16LE(name.length, 26);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0); c.writeUInt16LE(e.mode ? 0x031e : 0x14, 4); c.writeUInt16LE(e.flags ?? 0, 8); c.writeUInt16LE(method, 10);
    c.writeUInt32LE(l.crc ?? crc, 16); c.writeUInt32LE(l.csize ?? body.length, 20); c.writeUInt32LE(l.size ?? e.data.length, 24);
    c.writeUInt16LE(name.length, 28); c.writeUInt32LE(((e.mode ?? 0) << 16) >>> 0, 38); c.writeUInt32LE(l.offset ?? at, 42);
    locals.push(local, name, body); central.push(c, name);
    at += 30 + name.length + body.length;
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0); end.writeUInt16LE(lie.count ?? entries.length, 8); end.writeUInt16LE(lie.count ?? entries.length, 10);
  end.writeUInt32LE(cd.length, 12); end.writeUInt32LE(lie.cdOffset ?? at, 16);
  return Buffer.concat([...locals, cd, end]);
}
