/** The state folder (index, fingerprint, learned graph): created if needed, replaced by a fresh temp one if unusable. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/** Why `dir` cannot hold GeoWeave's state (created when missing), or undefined when it can. */
export function stateDirProblem(dir: string): string | undefined {
  try {
    if (fs.existsSync(dir) && !fs.statSync(dir).isDirectory()) return 'it is a file, not a folder';
    fs.mkdirSync(dir, { recursive: true });
    const probe = path.join(dir, `.probe-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
    fs.writeFileSync(probe, '', { flag: 'wx' });
    fs.unlinkSync(probe);
    fs.readdirSync(dir);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

export function ensureStateDir(dir: string, log?: (level: 'info' | 'warn' | 'error', msg: string) => void): string {
  const problem = stateDirProblem(dir);
  if (!problem) return dir;
  const fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'geoweave-state-'));
  log?.('warn', `state folder ${dir} is unusable (${problem}); using a fresh one at ${fresh}`);
  return fresh;
}
