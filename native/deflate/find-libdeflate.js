#!/usr/bin/env node
/**
 * Locates libdeflate's static library and header for binding.gyp (`<!(node find-libdeflate.js lib|include)`):
 * LIBDEFLATE_LIB / LIBDEFLATE_INCLUDE if set, else pkg-config's dirs, else the usual system folders.
 * Linking the static archive means the built addon has no runtime dependency on libdeflate.so.
 * `node find-libdeflate.js check` exits 1 with a message when either is missing (the build script asks first).
 */
'use strict';
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');

function pkgConfig(variable) {
  try {
    const r = spawnSync('pkg-config', [`--variable=${variable}`, 'libdeflate'], { encoding: 'utf8' });
    return r.status === 0 ? r.stdout.trim() : '';
  } catch { return ''; }
}

function multiarch() {
  try {
    const r = spawnSync('gcc', ['-print-multiarch'], { encoding: 'utf8' });
    return r.status === 0 ? r.stdout.trim() : '';
  } catch { return ''; }
}

function findLib() {
  if (process.env.LIBDEFLATE_LIB) return fs.existsSync(process.env.LIBDEFLATE_LIB) ? process.env.LIBDEFLATE_LIB : '';
  const ma = multiarch();
  const dirs = [pkgConfig('libdir'), ma && `/usr/lib/${ma}`, '/usr/lib', '/usr/lib64', '/usr/local/lib', '/opt/homebrew/lib'];
  for (const d of dirs) if (d && fs.existsSync(path.join(d, 'libdeflate.a'))) return path.join(d, 'libdeflate.a');
  return '';
}

function findInclude() {
  if (process.env.LIBDEFLATE_INCLUDE) return fs.existsSync(path.join(process.env.LIBDEFLATE_INCLUDE, 'libdeflate.h')) ? process.env.LIBDEFLATE_INCLUDE : '';
  for (const d of [pkgConfig('includedir'), '/usr/include', '/usr/local/include', '/opt/homebrew/include']) {
    if (d && fs.existsSync(path.join(d, 'libdeflate.h'))) return d;
  }
  return '';
}

const what = process.argv[2];
if (what === 'lib') process.stdout.write(findLib());
else if (what === 'include') process.stdout.write(findInclude());
else if (what === 'check') {
  const lib = findLib(), inc = findInclude();
  if (lib && inc) { console.log(`libdeflate: ${lib}, ${path.join(inc, 'libdeflate.h')}`); process.exit(0); }
  console.log(`libdeflate not found (${!inc ? 'libdeflate.h' : ''}${!inc && !lib ? ' and ' : ''}${!lib ? 'libdeflate.a' : ''} missing; on Debian/Ubuntu: apt-get install libdeflate-dev)`);
  process.exit(1);
} else {
  console.error('usage: find-libdeflate.js lib|include|check');
  process.exit(2);
}
