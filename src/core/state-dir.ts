/** The state folder (index, fingerprint, learned graph): created if needed, replaced by a fresh temp one if unusable. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/** Why `dir` cannot hold GeoWeave's state (created when missing), or undefined when it can. */
export function stateDirProblem(dir: string): string | undefined {
  try {
    if (fs.existsSync(dir) && !fs.statSync(dir).isDirectory()) return 'it is a file, not a folder';
    fs.mkdirSync(dir, { recursive: true });
    sweepDeadProbes(dir);
    const probe = path.join(dir, `.probe-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
    fs.writeFileSync(probe, '', { flag: 'wx' });
    fs.unlinkSync(probe);
    fs.readdirSync(dir);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

/**
 * Removes the probes of processes that are gone: one killed between writing its probe and removing
 * it (a window of microseconds, but `kill -9` finds it) would otherwise leave it for good.
 */
function sweepDeadProbes(dir: string): void {
  let names: string[];
  try { names = fs.readdirSync(dir); } catch { return; }
  for (const n of names) {
    const m = /^\.probe-(\d+)-/.exec(n);
    if (!m || Number(m[1]) === process.pid || alive(Number(m[1]))) continue;
    try { fs.unlinkSync(path.join(dir, n)); } catch { /* another process swept it */ }
  }
}

function alive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch (e) { return (e as NodeJS.ErrnoException).code === 'EPERM'; }
}

export function ensureStateDir(dir: string, log?: (level: 'info' | 'warn' | 'error', msg: string) => void): string {
  const problem = stateDirProblem(dir);
  if (!problem) return dir;
  const fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'geoweave-state-'));
  log?.('warn', `state folder ${dir} is unusable (${problem}); using a fresh one at ${fresh}`);
  return fresh;
}
