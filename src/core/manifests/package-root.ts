/** Locates the geoweave package root so the builtin catalog is found from src/, out/ and dist/. */
import * as fs from 'fs';
import * as path from 'path';

export function findPackageRoot(start: string = __dirname): string | undefined {
  let dir = path.resolve(start);
  for (;;) {
    const pkg = path.join(dir, 'package.json');
    try {
      if (fs.existsSync(pkg) && JSON.parse(fs.readFileSync(pkg, 'utf8')).name === 'geoweave') return dir;
    } catch {
      // unreadable package.json: keep walking up
    }
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** `tool-manifests/` of the installed package, if present. */
export function builtinManifestDir(): string | undefined {
  const root = findPackageRoot();
  if (!root) return undefined;
  const dir = path.join(root, 'tool-manifests');
  return fs.existsSync(dir) ? dir : undefined;
}
