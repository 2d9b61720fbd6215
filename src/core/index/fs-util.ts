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

export function fileSha256(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}
