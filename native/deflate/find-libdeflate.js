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
const { pkgConfig, multiarch, main } = require('../find-lib');

function findLib() {
  if (process.env.LIBDEFLATE_LIB) return fs.existsSync(process.env.LIBDEFLATE_LIB) ? process.env.LIBDEFLATE_LIB : '';
  const ma = multiarch();
  const dirs = [pkgConfig(['--variable=libdir', 'libdeflate']), ma && `/usr/lib/${ma}`, '/usr/lib', '/usr/lib64', '/usr/local/lib', '/opt/homebrew/lib'];
  for (const d of dirs) if (d && fs.existsSync(path.join(d, 'libdeflate.a'))) return path.join(d, 'libdeflate.a');
  return '';
}

function findInclude() {
  if (process.env.LIBDEFLATE_INCLUDE) return fs.existsSync(path.join(process.env.LIBDEFLATE_INCLUDE, 'libdeflate.h')) ? process.env.LIBDEFLATE_INCLUDE : '';
  for (const d of [pkgConfig(['--variable=includedir', 'libdeflate']), '/usr/include', '/usr/local/include', '/opt/homebrew/include']) {
    if (d && fs.existsSync(path.join(d, 'libdeflate.h'))) return d;
  }
  return '';
}

main({ script: 'find-libdeflate.js', name: 'libdeflate', header: 'libdeflate.h', lib: 'libdeflate.a', apt: 'libdeflate-dev', findLib, findInclude });
