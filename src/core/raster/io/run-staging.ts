/**
 * A private folder inside the output folder where one run writes everything. Committing moves
 * the finished files into the output folder (renames on one file system); discarding removes
 * the folder. A run that fails, is cancelled or throws after writing therefore leaves nothing, and
 * a process killed mid-run leaves only a hidden `.geoweave-run-<pid>-*` folder that the next run
 * removes once that process is gone.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isTempName } from './atomic-file';

const PREFIX = '.geoweave-run-';

function alive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch (e) { return (e as NodeJS.ErrnoException).code === 'EPERM'; }
}

/** Removes staging folders left in `outDir` by processes that no longer run. */
export async function sweepStaleStaging(outDir: string): Promise<void> {
  let names: string[];
  try { names = await fs.promises.readdir(outDir); } catch { return; }
  for (const name of names) {
    const m = /^\.geoweave-run-(\d+)-/.exec(name);
    if (!m || Number(m[1]) === process.pid || alive(Number(m[1]))) continue;
    await fs.promises.rm(path.join(outDir, name), { recursive: true, force: true }).catch(() => undefined);
  }
}

export class RunStaging {
  private done = false;
  private constructor(readonly outDir: string, readonly dir: string) {}

  /** Creates `outDir` when missing and a fresh staging folder in it (random name, mode 0700). */
  static async create(outDir: string): Promise<RunStaging> {
    await fs.promises.mkdir(outDir, { recursive: true });
    await sweepStaleStaging(outDir);
    const dir = await fs.promises.mkdtemp(path.join(outDir, `${PREFIX}${process.pid}-`));
    return new RunStaging(outDir, dir);
  }

  /** Final path of a staged file. */
  finalPath(staged: string): string {
    return path.join(this.outDir, path.relative(this.dir, staged));
  }

  /**
   * Moves every finished file into the output folder (replacing files of the same name) and removes
   * the staging folder. When a move fails, the files already moved are removed too and the error names the file.
   */
  async commit(): Promise<string[]> {
    if (this.done) throw new Error(`${this.dir}: run output already committed or discarded`);
    this.done = true;
    const moved: string[] = [];
    try {
      for (const e of await fs.promises.readdir(this.dir, { withFileTypes: true })) {
        if (!e.isFile() || isTempName(e.name)) continue;
        const to = path.join(this.outDir, e.name);
        try { await fs.promises.rename(path.join(this.dir, e.name), to); } catch (err) {
          throw new Error(`cannot move the output ${e.name} into ${this.outDir} (${(err as Error).message})`);
        }
        moved.push(to);
      }
    } catch (err) {
      await Promise.all(moved.map((f) => fs.promises.rm(f, { force: true }).catch(() => undefined)));
      await fs.promises.rm(this.dir, { recursive: true, force: true }).catch(() => undefined);
      throw err;
    }
    await fs.promises.rm(this.dir, { recursive: true, force: true });
    return moved;
  }

  /** Removes the staging folder and everything in it. */
  async discard(): Promise<void> {
    this.done = true;
    await fs.promises.rm(this.dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** A copy of `value` with every string path under `from` rewritten under `to` (plain objects and arrays only). */
export function remapPaths<T>(value: T, from: string, to: string): T {
  const prefix = from.endsWith(path.sep) ? from : from + path.sep;
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return v === from ? to : v.split(prefix).join(to + path.sep);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    }
    return v;
  };
  return walk(value) as T;
}
