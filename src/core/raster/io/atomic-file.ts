/**
 * Writing files so that nothing half-written is ever visible and no planted link is followed: data
 * goes to a temporary file with a random name in the target's folder, created exclusively (`wx`:
 * fails instead of opening an existing file or following a symlink), then renamed over the target.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';

/** Random temporary name beside `target` ("<target>.tmp-<24 hex digits>"). */
export function tempPathFor(target: string): string {
  return `${target}.tmp-${randomBytes(12).toString('hex')}`;
}

/** True for names made by tempPathFor. */
export function isTempName(name: string): boolean {
  return /\.tmp-[0-9a-f]{24}$/.test(name);
}

/** Creates a fresh temporary file beside `target` (exclusive, mode 0644) and returns its handle. */
export async function openTempExclusive(target: string): Promise<{ tmp: string; fh: fs.promises.FileHandle }> {
  for (let attempt = 0; ; attempt++) {
    const tmp = tempPathFor(target);
    try {
      return { tmp, fh: await fs.promises.open(tmp, 'wx', 0o644) };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 4) throw e;
    }
  }
}

/** Writes `data` to `target` through an exclusive temporary file and a rename; the temp file never survives an error. */
export async function writeFileAtomic(target: string, data: string | Uint8Array): Promise<void> {
  const { tmp, fh } = await openTempExclusive(target);
  try {
    await fh.writeFile(data);
    await fh.close();
    await fs.promises.rename(tmp, target);
  } catch (e) {
    await fh.close().catch(() => undefined);
    await fs.promises.rm(tmp, { force: true });
    throw e;
  }
}

/** Synchronous writeFileAtomic. */
export function writeFileAtomicSync(target: string, data: string | Uint8Array): void {
  let fd = -1, tmp = '';
  for (let attempt = 0; fd < 0; attempt++) {
    tmp = tempPathFor(target);
    try { fd = fs.openSync(tmp, 'wx', 0o644); } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 4) throw e;
    }
  }
  try {
    fs.writeFileSync(fd, data);
    fs.closeSync(fd); fd = -1;
    fs.renameSync(tmp, target);
  } catch (e) {
    if (fd >= 0) try { fs.closeSync(fd); } catch { /* closed */ }
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}

/** `file` lies inside `dir` (after resolving both; no `..` escape). */
export function isInside(dir: string, file: string): boolean {
  const rel = path.relative(path.resolve(dir), path.resolve(file));
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}
