#!/usr/bin/env node
/**
 * Builds GeoWeave's native addons with node-gyp: native/deflate (libdeflate, linked statically) and
 * native/openjp2 (the system's OpenJPEG, the library GDAL decodes JPEG 2000 with). Runs as the
 * package's `install` script, so `npm ci` / `npm install` build them on a clean checkout, and as
 * `npm run build:native`. It never fails the install: without a compiler or libdeflate-dev the engine
 * uses Node's zlib (about 2x slower DEFLATE), without libopenjp2-7-dev OpenJPEG as WebAssembly (about
 * 2x slower per core, 1 or 3 bands), and this says why. Set GEOWEAVE_REQUIRE_NATIVE=1 (CI) to make a
 * failed build an error instead; GEOWEAVE_SKIP_NATIVE=1 skips the builds.
 */
'use strict';
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const required = process.env.GEOWEAVE_REQUIRE_NATIVE === '1';

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

const ADDONS = [
  {
    name: 'native DEFLATE addon', dir: 'deflate', finder: 'find-libdeflate.js', file: 'geoweave_deflate.node',
    fallback: "the raster engine will use Node's zlib (slower)",
    probe: `const a = m.exports, src = Buffer.from('geoweave '.repeat(100)), out = Buffer.alloc(a.deflateBound(6, src.length));
const n = a.deflate(src, 6, out), back = Buffer.alloc(src.length);
if (a.inflate(out.subarray(0, n), back, true) !== src.length || !back.equals(src)) throw new Error('round trip failed');
if (!require('zlib').inflateSync(out.subarray(0, n)).equals(src)) throw new Error('zlib cannot read the output');
console.log('libdeflate ' + a.version);`,
  },
  {
    name: 'native OpenJPEG addon', dir: 'openjp2', finder: 'find-openjp2.js', file: 'geoweave_openjp2.node',
    fallback: 'JPEG 2000 will be decoded by OpenJPEG as WebAssembly (slower; files of 1 or 3 bands)',
    // A 2x2 one-component lossless codestream (as GDAL's JP2OpenJPEG writes it, its comment marker dropped) must decode to its samples.
    probe: `const cs = Buffer.from('ff4fff510029000200000002000000020000000000000000000000020000000200000000000000000001070101ff52000d0100000100000404000199ff5c00044040ff90000a0000000000150001ff93cfb41008825c7fffd9', 'hex');
const t = m.exports.decode(new Uint8Array(cs), 0);
if (t.width !== 2 || t.height !== 2 || t.components !== 1 || Array.from(t.data).join() !== '1,2,3,4') throw new Error('decoded ' + JSON.stringify({ ...t, data: Array.from(t.data) }));
console.log('OpenJPEG ' + m.exports.version);`,
  },
];

let failed = 0;
for (const a of ADDONS) {
  const dir = path.join(__dirname, '..', 'native', a.dir);
  const why = build(a, dir);
  if (!why) continue;
  const msg = `geoweave: ${a.name} not built (${why}); ${a.fallback}.`;
  if (required) { console.error(`${msg} GEOWEAVE_REQUIRE_NATIVE=1: failing.`); failed++; } else console.warn(msg);
}
process.exit(failed ? 1 : 0);

/** Builds and loads one addon; the reason it is not usable, or '' when it is. */
function build(a, dir) {
  if (process.env.GEOWEAVE_SKIP_NATIVE === '1') return 'GEOWEAVE_SKIP_NATIVE=1';
  if (!fs.existsSync(path.join(dir, 'binding.gyp'))) return `${dir} is missing`;
  const check = spawnSync(process.execPath, [path.join(dir, a.finder), 'check'], { encoding: 'utf8' });
  if (check.status !== 0) return (check.stdout || check.stderr || 'library not found').trim();
  const [cmd, pre] = nodeGyp();
  const r = spawnSync(cmd, [...pre, 'rebuild', ...nodedirArgs()], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (r.status !== 0) {
    process.stderr.write((r.stdout || '').split('\n').slice(-15).join('\n') + (r.stderr || '').split('\n').slice(-25).join('\n') + '\n');
    return r.error ? `node-gyp: ${r.error.message}` : `node-gyp rebuild exited ${r.status}`;
  }
  // Load it once here, so a broken build is reported now rather than as a slow run later.
  const file = path.join(dir, 'build', 'Release', a.file);
  const probe = spawnSync(process.execPath, ['-e', `const m = { exports: {} }; process.dlopen(m, ${JSON.stringify(file)});\n${a.probe}`], { encoding: 'utf8' });
  if (probe.status !== 0) return `the built addon does not work: ${(probe.stderr || '').trim().split('\n').slice(-3).join(' ')}`;
  console.log(`geoweave: ${a.name} built (${probe.stdout.trim()}, ${path.relative(path.join(__dirname, '..'), file)})`);
  return '';
}
