#!/usr/bin/env node
/**
 * Builds GeoWeave's native DEFLATE addon (native/deflate: libdeflate, linked statically) with node-gyp.
 * Runs as the package's `install` script, so `npm ci` / `npm install` build it on a clean checkout, and as
 * `npm run build:native`. It never fails the install: without a compiler or libdeflate-dev the engine
 * uses Node's zlib (about 2x slower DEFLATE) and this says why. Set GEOWEAVE_REQUIRE_NATIVE=1 (CI) to make
 * a failed build an error instead; GEOWEAVE_SKIP_NATIVE=1 skips the build.
 */
'use strict';
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const dir = path.join(__dirname, '..', 'native', 'deflate');
const required = process.env.GEOWEAVE_REQUIRE_NATIVE === '1';

function give_up(why) {
  const msg = `geoweave: native DEFLATE addon not built (${why}); the raster engine will use Node's zlib (slower).`;
  if (required) { console.error(`${msg} GEOWEAVE_REQUIRE_NATIVE=1: failing.`); process.exit(1); }
  console.warn(msg);
  process.exit(0);
}

if (process.env.GEOWEAVE_SKIP_NATIVE === '1') give_up('GEOWEAVE_SKIP_NATIVE=1');
if (!fs.existsSync(path.join(dir, 'binding.gyp'))) give_up(`${dir} is missing`);

const check = spawnSync(process.execPath, [path.join(dir, 'find-libdeflate.js'), 'check'], { encoding: 'utf8' });
if (check.status !== 0) give_up((check.stdout || check.stderr || 'libdeflate not found').trim());

/** npm's bundled node-gyp (npm sets npm_config_node_gyp for scripts), a local one, or one on PATH. */
function nodeGyp() {
  const candidates = [process.env.npm_config_node_gyp];
  if (process.env.npm_execpath) candidates.push(path.join(path.dirname(process.env.npm_execpath), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  try { candidates.push(require.resolve('node-gyp/bin/node-gyp.js')); } catch { /* not installed locally */ }
  candidates.push(path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  for (const c of candidates) if (c && fs.existsSync(c)) return [process.execPath, [c]];
  return ['node-gyp', []];
}

/**
 * Headers: npm passes its `nodedir` setting as npm_config_nodedir; otherwise use the headers installed with
 * this Node (Debian's /usr/include/node) when present, so no header download is needed.
 */
function nodedirArgs() {
  if (process.env.npm_config_nodedir) return [];
  const prefix = path.join(path.dirname(process.execPath), '..');
  return fs.existsSync(path.join(prefix, 'include', 'node', 'node_api.h')) && fs.existsSync(path.join(prefix, 'include', 'node', 'common.gypi'))
    ? [`--nodedir=${path.resolve(prefix)}`] : [];
}

const [cmd, pre] = nodeGyp();
const r = spawnSync(cmd, [...pre, 'rebuild', ...nodedirArgs()], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
if (r.status !== 0) {
  process.stderr.write((r.stdout || '').split('\n').slice(-15).join('\n') + (r.stderr || '').split('\n').slice(-25).join('\n') + '\n');
  give_up(r.error ? `node-gyp: ${r.error.message}` : `node-gyp rebuild exited ${r.status}`);
}

// Load it once here, so a broken build is reported now rather than as a slow run later.
const file = path.join(dir, 'build', 'Release', 'geoweave_deflate.node');
const probe = spawnSync(process.execPath, ['-e', `
const m = { exports: {} }; process.dlopen(m, ${JSON.stringify(file)});
const a = m.exports, src = Buffer.from('geoweave '.repeat(100)), out = Buffer.alloc(a.deflateBound(6, src.length));
const n = a.deflate(src, 6, out), back = Buffer.alloc(src.length);
if (a.inflate(out.subarray(0, n), back, true) !== src.length || !back.equals(src)) throw new Error('round trip failed');
if (!require('zlib').inflateSync(out.subarray(0, n)).equals(src)) throw new Error('zlib cannot read the output');
console.log('libdeflate ' + a.version);`], { encoding: 'utf8' });
if (probe.status !== 0) give_up(`the built addon does not work: ${(probe.stderr || '').trim().split('\n').slice(-3).join(' ')}`);
console.log(`geoweave: native DEFLATE addon built (${probe.stdout.trim()}, ${path.relative(path.join(__dirname, '..'), file)})`);
