/**
 * Tar archives, plain or gzipped: how USGS EarthExplorer delivers a Landsat Collection 2 scene
 * (`LC09_L2SP_…_T1.tar`, one GeoTIFF per band) and how many servers bundle data. Headers are read
 * as POSIX ustar with the GNU long-name and pax `path`/`size` extensions that GNU tar and Python
 * write for long names and large files. Each header's checksum is verified, so a file that is not a
 * tar fails on its first block instead of being read as one.
 */
import * as fs from 'node:fs';
import * as zlib from 'node:zlib';
import type { Readable } from 'node:stream';

export class TarError extends Error {}

export interface TarEntry {
  name: string;
  size: number;
  /** Offset of the entry's data in the (uncompressed) tar stream. */
  offset: number;
  type: 'file' | 'directory' | 'link' | 'other';
}

const BLOCK = 512;
/** A pax or GNU long-name record larger than this is refused (a path is at most a few KB). */
const MAX_META = 1 << 20;
export const MAX_TAR_ENTRIES = 200_000;

/** True when `b` (at least 512 bytes) is a tar header whose checksum holds. */
export function isTarHeader(b: Buffer): boolean {
  if (b.length < BLOCK) return false;
  const stored = parseOctal(b.subarray(148, 156));
  if (stored === undefined) return false;
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : b[i];
  return sum === stored;
}

function parseOctal(f: Buffer): number | undefined {
  // GNU base-256 for sizes of 8 GiB and more: the high bit of the first byte set.
  if (f[0] & 0x80) {
    let v = f[0] & 0x7f;
    for (let i = 1; i < f.length; i++) v = v * 256 + f[i];
    return v;
  }
  const s = f.toString('latin1').replace(/\0.*$/s, '').trim();
  if (!s) return 0;
  return /^[0-7]+$/.test(s) ? parseInt(s, 8) : undefined;
}

function cString(b: Buffer): string {
  const z = b.indexOf(0);
  return b.subarray(0, z < 0 ? b.length : z).toString('utf8');
}

/** The records of a pax extended header ("LEN key=value\n"…). */
function paxRecords(b: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let i = 0;
  while (i < b.length) {
    const sp = b.indexOf(0x20, i);
    if (sp < 0) break;
    const len = parseInt(b.toString('latin1', i, sp), 10);
    if (!(len > 0) || i + len > b.length) break;
    const rec = b.toString('utf8', sp + 1, i + len - 1);
    const eq = rec.indexOf('=');
    if (eq > 0) out[rec.slice(0, eq)] = rec.slice(eq + 1);
    i += len;
  }
  return out;
}

/**
 * Reads headers from a byte source: `read(pos, len)` returns the stream's bytes at `pos` (fewer at
 * its end). Calls `onEntry` for every entry with the long name or pax values that preceded it;
 * returning false stops. Data is never read here, only skipped.
 */
export async function walkHeaders(file: string, read: (pos: number, len: number) => Promise<Buffer>, onEntry: (e: TarEntry) => boolean | Promise<boolean>): Promise<void> {
  const bad = (why: string) => new TarError(`${file}: not a readable tar archive (${why})`);
  let pos = 0, count = 0;
  let longName: string | undefined, pax: Record<string, string> = {}, global: Record<string, string> = {};
  for (;;) {
    const h = await read(pos, BLOCK);
    if (h.length < BLOCK) {
      if (pos === 0) throw bad('shorter than one header');
      return; // a tar cut after its last entry, without the two zero blocks, still lists what it holds
    }
    if (h.every((x) => x === 0)) return;
    if (!isTarHeader(h)) throw bad(pos === 0 ? 'no tar header at its start' : `a damaged header at byte ${pos}`);
    if (++count > MAX_TAR_ENTRIES * 2) throw bad(`more than ${MAX_TAR_ENTRIES} entries`);
    const flag = String.fromCharCode(h[156] || 0x30);
    let size = parseOctal(h.subarray(124, 136));
    if (size === undefined) throw bad(`a damaged size at byte ${pos + 124}`);
    const dataAt = pos + BLOCK;
    if (flag === 'L' || flag === 'x' || flag === 'g') {
      if (size > MAX_META) throw bad(`a ${size}-byte extended header at byte ${pos}`);
      const meta = await read(dataAt, size);
      if (meta.length < size) throw bad('it ends inside an extended header');
      if (flag === 'L') longName = cString(meta);
      else if (flag === 'x') pax = paxRecords(meta);
      else global = { ...global, ...paxRecords(meta) };
    } else {
      const vals = { ...global, ...pax };
      if (vals.size !== undefined && /^\d+$/.test(vals.size)) size = Number(vals.size);
      const prefix = h.subarray(257, 262).toString('latin1') === 'ustar' ? cString(h.subarray(345, 500)) : '';
      const name = vals.path ?? longName ?? (prefix ? `${prefix}/${cString(h.subarray(0, 100))}` : cString(h.subarray(0, 100)));
      const type = flag === '0' || flag === '7' ? 'file' : flag === '5' ? 'directory' : flag === '1' || flag === '2' ? 'link' : 'other';
      longName = undefined;
      pax = {};
      // Hard and symbolic links carry no data; the size of anything else is skipped.
      if (!(await onEntry({ name, size: type === 'link' ? 0 : size, offset: dataAt, type: type === 'file' && name.endsWith('/') ? 'directory' : type }))) return;
      if (type === 'link') size = 0;
    }
    pos = dataAt + Math.ceil(size / BLOCK) * BLOCK;
  }
}

/** Whether a path is gzip-compressed (by its first bytes). */
export function isGzip(head: Buffer): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/**
 * The entries of a plain tar by seeking from header to header (a 1 GB Landsat scene is listed in a
 * few dozen reads). A gzipped tar cannot be seeked: its listing inflates it, up to `maxBytes` of tar
 * (enough for the names of its first entries; `complete` is false when it stopped there).
 */
export async function listTar(file: string, opts: { maxBytes?: number } = {}): Promise<{ entries: TarEntry[]; complete: boolean }> {
  const entries: TarEntry[] = [];
  const fh = await fs.promises.open(file, 'r');
  try {
    const head = Buffer.alloc(2);
    await fh.read(head, 0, 2, 0);
    if (!isGzip(head)) {
      await walkHeaders(file, async (pos, len) => {
        const b = Buffer.alloc(len);
        const { bytesRead } = await fh.read(b, 0, len, pos);
        return b.subarray(0, bytesRead);
      }, (e) => { entries.push(e); return true; });
      return { entries, complete: true };
    }
  } finally {
    await fh.close();
  }
  const max = opts.maxBytes ?? Infinity;
  let complete = true;
  const src = fs.createReadStream(file).pipe(zlib.createGunzip());
  const reader = streamReader(src, file);
  try {
    await walkHeaders(file, reader.read, (e) => {
      if (e.offset > max) { complete = false; return false; }
      entries.push(e);
      return true;
    });
  } finally {
    reader.close();
  }
  return { entries, complete };
}

/**
 * Forward-only random access over a stream: `read(pos, len)` with non-decreasing positions, bytes in
 * between discarded. Lets one header walker serve a plain file and a gunzip stream alike.
 */
export function streamReader(src: Readable, file: string): { read: (pos: number, len: number) => Promise<Buffer>; close: () => void } {
  const it = src[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let buf = Buffer.alloc(0), at = 0, done = false;
  return {
    async read(pos, len) {
      if (pos < at) throw new TarError(`${file}: read backwards in a stream`);
      while (!done && at + buf.length < pos + len) {
        let r: IteratorResult<Buffer>;
        try { r = await it.next(); } catch (e) { throw new TarError(`${file}: ${(e as Error).message}`); }
        if (r.done) { done = true; break; }
        // Keep only what a read at or after `pos` can still need.
        const drop = Math.min(buf.length, Math.max(0, pos - at));
        buf = Buffer.concat([buf.subarray(drop), r.value]);
        at += drop;
      }
      const from = Math.max(0, pos - at);
      return buf.subarray(from, from + len);
    },
    close() { src.destroy(); },
  };
}

