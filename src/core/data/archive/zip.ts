/**
 * The directory of a ZIP archive and its entries' bytes: what Copernicus Data Space (a Sentinel-2
 * `.SAFE.zip`), data portals (zipped Shapefiles) and Google Earth (a KMZ) deliver. Only the central
 * directory is read to list an archive (a 1 GB product is listed in a few small reads); ZIP64 sizes
 * and offsets are followed. Every size and offset is checked against the file, and an entry's data
 * is checked against its declared size and CRC-32 as it is read, so a damaged or hostile archive
 * fails with its name and the entry's rather than filling the disk.
 */
import * as fs from 'node:fs';
import * as zlib from 'node:zlib';
import { Transform, type Readable } from 'node:stream';

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated; anything else is refused when the entry is read. */
  method: number;
  compressedSize: number;
  size: number;
  crc32: number;
  /** Offset of the entry's local header. */
  local: number;
  directory: boolean;
  /** A symbolic link (Unix mode in the external attributes): never followed or written. */
  symlink: boolean;
  encrypted: boolean;
}

export class ZipError extends Error {
  /** What is wrong, without the file's name (a KMZ says it its own way). */
  constructor(file: string, readonly reason: string, whole = false) {
    super(whole ? `${file}: ${reason}` : `${file}: not a readable ZIP archive (${reason})`);
  }
}

/** More entries than this are refused (a Sentinel-2 L2A product has about 150). */
export const MAX_ZIP_ENTRIES = 200_000;

const EOCD = 0x06054b50, EOCD64_LOCATOR = 0x07064b50, EOCD64 = 0x06064b50, CENTRAL = 0x02014b50, LOCAL = 0x04034b50;

function readAt(fd: number, pos: number, len: number): Buffer {
  const b = Buffer.alloc(len);
  let got = 0;
  while (got < len) {
    const n = fs.readSync(fd, b, got, len - got, pos + got);
    if (n === 0) break;
    got += n;
  }
  return b.subarray(0, got);
}

/** The entries of the ZIP archive open at `fd` (`file` names it in errors). */
export function readZipDirectory(fd: number, file: string): ZipEntry[] {
  const bad = (why: string) => new ZipError(file, why);
  const size = fs.fstatSync(fd).size;
  if (size < 22) throw bad(`only ${size} bytes`);
  // End of central directory: the last signature within the final 64 KiB comment + 22 bytes.
  const tailStart = Math.max(0, size - 65557);
  const tail = readAt(fd, tailStart, size - tailStart);
  let e = -1;
  for (let i = tail.length - 22; i >= 0; i--) if (tail.readUInt32LE(i) === EOCD) { e = i; break; }
  if (e < 0) throw bad('no ZIP directory');
  if (tail.readUInt16LE(e + 4) !== 0 || tail.readUInt16LE(e + 6) !== 0) throw bad('it spans several disks; join the parts with zip -s 0 first');
  let count = tail.readUInt16LE(e + 10);
  let cdSize = tail.readUInt32LE(e + 12);
  let cdOffset = tail.readUInt32LE(e + 16);
  if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
    // ZIP64: a locator 20 bytes before the classic record points at the 64-bit one.
    const loc = e - 20;
    if (loc < 0 || tail.readUInt32LE(loc) !== EOCD64_LOCATOR) throw bad('a ZIP64 archive without its locator');
    const at = Number(tail.readBigUInt64LE(loc + 8));
    const r = readAt(fd, at, 56);
    if (r.length < 56 || r.readUInt32LE(0) !== EOCD64) throw bad('a damaged ZIP64 end record');
    count = Number(r.readBigUInt64LE(32));
    cdSize = Number(r.readBigUInt64LE(40));
    cdOffset = Number(r.readBigUInt64LE(48));
  }
  if (count > MAX_ZIP_ENTRIES) throw bad(`${count} entries, more than ${MAX_ZIP_ENTRIES}`);
  if (cdOffset + cdSize > size || cdSize < count * 46) throw bad('its directory lies outside the file');
  const cd = readAt(fd, cdOffset, cdSize);
  const entries: ZipEntry[] = [];
  let at = 0;
  for (let n = 0; n < count; n++) {
    if (at + 46 > cd.length || cd.readUInt32LE(at) !== CENTRAL) throw bad(`a damaged directory at entry ${n + 1}`);
    const flags = cd.readUInt16LE(at + 8);
    const nameLen = cd.readUInt16LE(at + 28), extraLen = cd.readUInt16LE(at + 30), commentLen = cd.readUInt16LE(at + 32);
    const end = at + 46 + nameLen + extraLen + commentLen;
    if (end > cd.length) throw bad(`a damaged directory at entry ${n + 1}`);
    const rawName = cd.subarray(at + 46, at + 46 + nameLen);
    // Bit 11 says UTF-8; older writers used the DOS code page, read here as Latin-1.
    const name = (flags & 0x800) || isUtf8(rawName) ? rawName.toString('utf8') : rawName.toString('latin1');
    let csize = cd.readUInt32LE(at + 20), usize = cd.readUInt32LE(at + 24), local = cd.readUInt32LE(at + 42);
    // The ZIP64 extra field holds, in this order, the 64-bit values of the fields that read 0xFFFFFFFF.
    for (let x = at + 46 + nameLen; x + 4 <= at + 46 + nameLen + extraLen;) {
      const id = cd.readUInt16LE(x), len = cd.readUInt16LE(x + 2);
      if (id === 0x0001) {
        let p = x + 4;
        const next = () => {
          if (p + 8 > x + 4 + len) throw bad(`a short ZIP64 field in entry ${name}`);
          const v = Number(cd.readBigUInt64LE(p));
          p += 8;
          return v;
        };
        if (usize === 0xffffffff) usize = next();
        if (csize === 0xffffffff) csize = next();
        if (local === 0xffffffff) local = next();
      }
      x += 4 + len;
    }
    const mode = cd.readUInt16LE(at + 4) >> 8 === 3 ? cd.readUInt32LE(at + 38) >>> 16 : 0;
    entries.push({
      name, method: cd.readUInt16LE(at + 10), compressedSize: csize, size: usize, crc32: cd.readUInt32LE(at + 16), local,
      directory: name.endsWith('/'), symlink: (mode & 0o170000) === 0o120000, encrypted: (flags & 1) === 1,
    });
    at = end;
  }
  return entries;
}

function isUtf8(b: Buffer): boolean {
  try { new TextDecoder('utf-8', { fatal: true }).decode(b); return true; } catch { return false; }
}

/** Where an entry's data starts, from its local header (whose name and extra lengths may differ from the directory's). */
export function entryDataStart(fd: number, file: string, e: ZipEntry): number {
  const h = readAt(fd, e.local, 30);
  if (h.length < 30 || h.readUInt32LE(0) !== LOCAL) throw new ZipError(file, `entry ${e.name} is damaged (no local header at ${e.local})`, true);
  const start = e.local + 30 + h.readUInt16LE(26) + h.readUInt16LE(28);
  if (start + e.compressedSize > fs.fstatSync(fd).size) throw new ZipError(file, `entry ${e.name} runs past the end of the file`, true);
  return start;
}

/** Why an entry's bytes cannot be read here, or undefined when they can. */
export function unreadableEntry(e: ZipEntry): string | undefined {
  if (e.encrypted) return `entry ${e.name} is encrypted; extract it with the password in another tool`;
  if (e.method !== 0 && e.method !== 8) return `entry ${e.name} uses ZIP method ${e.method} (${METHODS[e.method] ?? 'unknown'}), not stored or deflate; extract it with 7z or unzip`;
  return undefined;
}

const METHODS: Record<number, string> = { 9: 'Deflate64', 12: 'bzip2', 14: 'LZMA', 93: 'Zstandard', 95: 'XZ', 98: 'PPMd', 99: 'AES' };

/** An entry's whole content (for small entries: a KMZ's KML, a Shapefile's .prj), at most `max` bytes. */
export function readEntrySync(fd: number, file: string, e: ZipEntry, max: number): Buffer {
  const why = unreadableEntry(e);
  if (why) throw new ZipError(file, `${why}`, true);
  if (e.size > max) throw new ZipError(file, `entry ${e.name} holds ${e.size} bytes, more than ${max}`, true);
  const data = readAt(fd, entryDataStart(fd, file, e), e.compressedSize);
  let out: Buffer;
  try {
    out = e.method === 0 ? data : zlib.inflateRawSync(data, { maxOutputLength: Math.max(1, e.size) });
  } catch (err) {
    throw new ZipError(file, `entry ${e.name} does not inflate: ${(err as Error).message}`, true);
  }
  checkEntry(file, e, out.length, zlib.crc32(out));
  return out;
}

function checkEntry(file: string, e: ZipEntry, got: number, crc: number): void {
  if (got !== e.size) throw new ZipError(file, `entry ${e.name} holds ${got} bytes where its directory says ${e.size}; the archive is damaged`, true);
  if (crc >>> 0 !== e.crc32 >>> 0) throw new ZipError(file, `entry ${e.name} fails its CRC check; the archive is damaged`, true);
}

/**
 * An entry's content as a stream: inflated as it is read, stopped with an error the moment it would
 * exceed its declared size (a "zip bomb" writes no more than it admits to), CRC-checked at the end.
 */
export function entryStream(file: string, fd: number, e: ZipEntry, signal?: AbortSignal): Readable {
  const why = unreadableEntry(e);
  if (why) throw new ZipError(file, `${why}`, true);
  const start = entryDataStart(fd, file, e);
  let got = 0, crc = 0;
  const guard = new Transform({
    transform(chunk: Buffer, _enc, done) {
      got += chunk.length;
      if (got > e.size) return done(new ZipError(file, `entry ${e.name} inflates past the ${e.size} bytes its directory declares; the archive is damaged or hostile`, true));
      crc = zlib.crc32(chunk, crc);
      done(null, chunk);
    },
    flush(done) {
      try { checkEntry(file, e, got, crc); done(); } catch (err) { done(err as Error); }
    },
  });
  const fail = (err: Error) => guard.destroy(err instanceof ZipError || signal?.aborted ? err : new ZipError(file, `entry ${e.name} does not inflate: ${err.message}`, true));
  const inflate = e.method === 8 ? zlib.createInflateRaw() : undefined;
  inflate?.on('error', fail);
  if (e.compressedSize > 0) {
    const raw = fs.createReadStream(file, { start, end: start + e.compressedSize - 1, signal, highWaterMark: 1 << 20 });
    raw.on('error', fail);
    raw.pipe(inflate ?? guard);
  } else {
    (inflate ?? guard).end();
  }
  inflate?.pipe(guard);
  return guard;
}
