/** Small file helpers: atomic writes (temp file then rename) and file digests. */
import * as fs from 'fs';
import * as path from 'path';
import { createHash, randomBytes } from 'crypto';

/**
 * Writes `data` to `file` so that readers see either the old or the whole new content: a temp file
 * beside it (random name, created exclusively so a planted symlink is never followed), flushed to
 * disk, then renamed over. On any failure (a full disk, a read-only folder) the temp file is
 * removed and the old file is left as it was.
 */
export function writeFileAtomic(file: string, data: string | Buffer): void {
  const tmp = tempPathFor(file);
  let fd: number | undefined;
  try {
    fd = fs.openSync(tmp, 'wx', 0o644);
    fs.writeFileSync(fd, data);
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(tmp, file);
  } catch (e) {
    if (fd !== undefined) fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw e;
  }
  syncDir(path.dirname(file));
}

/** A fresh temp name beside `file`: `<file>.tmp-<pid>-<random>`. */
export function tempPathFor(file: string): string {
  return `${file}.tmp-${process.pid}-${randomBytes(6).toString('hex')}`;
}

/**
 * Removes temp files of `file` (`<file>.tmp-<pid>-…`, and `<file>.lock.<pid>-…` lock drafts) left
 * by processes that died mid-write on this machine; those of live processes are left alone.
 */
export function removeStaleTemps(file: string): void {
  const dir = path.dirname(file);
  const base = path.basename(file);
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(base + '.')) continue;
    const m = /^\.(?:tmp-|lock\.)(\d+)-[0-9a-f]+$/.exec(name.slice(base.length));
    if (!m || processAlive(Number(m[1]))) continue;
    fs.rmSync(path.join(dir, name), { force: true });
  }
}

/** True when a process with this id runs on this machine (or may: no permission to ask). */
export function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Flushes a folder's entries (the rename) where the platform allows it; best effort. */
function syncDir(dir: string): void {
  if (process.platform === 'win32') return;
  try {
    const fd = fs.openSync(dir, 'r');
    try { fs.fsyncSync(fd); } finally { fs.closeSync(fd); }
  } catch {
    // Some file systems refuse fsync on folders; the rename itself is still atomic.
  }
}

/**
 * Reads a state file only if it is a regular file of at most `maxBytes`: a symlink (to /dev/zero,
 * to a key elsewhere), a FIFO or a device in a state folder that came with a repository is refused
 * instead of followed, hanging or filling memory.
 */
export function readRegularFile(file: string, maxBytes: number): Buffer {
  const noFollow = process.platform === 'win32' ? 0 : fs.constants.O_NOFOLLOW;
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | noFollow | (fs.constants.O_NONBLOCK ?? 0));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') throw new Error(`${file} is a symbolic link; state files must be regular files`);
    throw e;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw new Error(`${file} is not a regular file`);
    if (st.size > maxBytes) throw new Error(`${file} is ${st.size} bytes, more than ${maxBytes} expected at most`);
    const buf = Buffer.alloc(st.size);
    let off = 0;
    while (off < buf.length) {
      const n = fs.readSync(fd, buf, off, buf.length - off, off);
      if (n === 0) break;
      off += n;
    }
    return off === buf.length ? buf : buf.subarray(0, off);
  } finally {
    fs.closeSync(fd);
  }
}

/** Largest index, vectors or projection file read (a catalog of 200k texts at 1024 dimensions). */
export const MAX_INDEX_FILE_BYTES = 1 << 30;

export function fileSha256(file: string): string {
  return createHash('sha256').update(readRegularFile(file, MAX_INDEX_FILE_BYTES)).digest('hex');
}

/** A JSON.parse message without the quoted piece of input it may carry (a file's first bytes). */
export function jsonErrorMessage(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.replace(/, ".*"(\.\.\.)? is not valid JSON$/s, '').replace(/^(Unexpected token .*?), ".*$/s, '$1');
}
