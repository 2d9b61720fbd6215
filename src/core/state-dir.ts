/** The state folder (index, fingerprint, learned graph): created if needed, replaced by a fresh temp one if unusable. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

export function ensureStateDir(dir: string, log?: (level: 'info' | 'warn' | 'error', msg: string) => void): string {
  try {
    fs.mkdirSync(dir, { recursive: true });
    const probe = path.join(dir, `.probe-${process.pid}`);
    fs.writeFileSync(probe, '');
    fs.unlinkSync(probe);
    fs.readdirSync(dir);
    return dir;
  } catch (e) {
    const fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'geoweave-state-'));
    log?.('warn', `state folder ${dir} is unusable (${(e as Error).message}); using a fresh one at ${fresh}`);
    return fresh;
  }
}
