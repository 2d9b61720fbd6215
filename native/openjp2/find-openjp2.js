#!/usr/bin/env node
/**
 * Locates OpenJPEG 2 for binding.gyp (`<!(node find-openjp2.js lib|include)`): OPENJP2_LIB /
 * OPENJP2_INCLUDE if set, else pkg-config's, else the usual system folders. The addon links the
 * shared library (Debian's static archive is not position-independent), so it loads where
 * libopenjp2 is installed, which is wherever GDAL is. `check` exits 1 with a message when either
 * is missing (the build script asks first).
 */
'use strict';
const fs = require('fs');
const path = require('path');
const { pkgConfig, multiarch, main } = require('../find-lib');

function findInclude() {
  if (process.env.OPENJP2_INCLUDE) return fs.existsSync(path.join(process.env.OPENJP2_INCLUDE, 'openjpeg.h')) ? process.env.OPENJP2_INCLUDE : '';
  const fromPc = pkgConfig(['--variable=includedir', 'libopenjp2']);
  const dirs = [fromPc, ...['/usr/include', '/usr/local/include', '/opt/homebrew/include'].flatMap((d) => ['2.5', '2.4', '2.3'].map((v) => path.join(d, `openjpeg-${v}`)))];
  for (const d of dirs) if (d && fs.existsSync(path.join(d, 'openjpeg.h'))) return d;
  return '';
}

function findLib() {
  if (process.env.OPENJP2_LIB) return fs.existsSync(process.env.OPENJP2_LIB) ? process.env.OPENJP2_LIB : '';
  const libdir = pkgConfig(['--variable=libdir', 'libopenjp2']);
  const ma = multiarch();
  for (const d of [libdir, ma && `/usr/lib/${ma}`, '/usr/lib', '/usr/lib64', '/usr/local/lib', '/opt/homebrew/lib']) {
    for (const f of ['libopenjp2.so', 'libopenjp2.dylib']) if (d && fs.existsSync(path.join(d, f))) return path.join(d, f);
  }
  return '';
}

main({ script: 'find-openjp2.js', name: 'openjp2', header: 'openjpeg.h', lib: 'libopenjp2.so', apt: 'libopenjp2-7-dev', findLib, findInclude });
