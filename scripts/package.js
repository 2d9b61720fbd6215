#!/usr/bin/env node
/**
 * `npm run package`: webpack (production), then a platform-specific vsix for the platform this runs
 * on (`vsce package --target linux-x64`, …): the package carries that platform's ONNX Runtime
 * binary for the transformers embedder. A script rather than shell substitution so it runs in any
 * shell (cmd.exe has no `$(…)`).
 */
const { spawnSync } = require('child_process');
const path = require('path');

const root = path.join(__dirname, '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', process.platform === 'win32' ? `${name}.cmd` : name);
const target = `${process.platform === 'win32' ? 'win32' : process.platform}-${process.arch}`;

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (r.status !== 0) {
    console.error(`package: ${path.basename(cmd)} ${args.join(' ')} failed (${r.error ? r.error.message : `exit ${r.status}`})`);
    process.exit(r.status || 1);
  }
}

run(bin('webpack'), ['--mode', 'production']);
// README images are relative (docs/img, shipped in the package): kept as they are, there is no repository to rewrite them to.
run(bin('vsce'), ['package', '--target', target, '--allow-missing-repository', '--skip-license', '--no-rewrite-relative-links', '-o', 'geoweave.vsix']);
