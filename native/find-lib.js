/**
 * What the native addons' find-*.js scripts share when they locate a system library for binding.gyp: pkg-config's
 * answers, gcc's multiarch triple (Debian's /usr/lib/x86_64-linux-gnu), and the `lib|include|check`
 * command line.
 */
'use strict';
const path = require('path');
const { spawnSync } = require('child_process');

/** pkg-config's output for `args`, or '' when pkg-config or the package is missing. */
function pkgConfig(args) {
  try {
    const r = spawnSync('pkg-config', args, { encoding: 'utf8' });
    return r.status === 0 ? r.stdout.trim() : '';
  } catch { return ''; }
}

function multiarch() {
  try {
    const r = spawnSync('gcc', ['-print-multiarch'], { encoding: 'utf8' });
    return r.status === 0 ? r.stdout.trim() : '';
  } catch { return ''; }
}

/**
 * `node find-x.js lib|include|check`: prints the library's or header folder's path, or checks both
 * and says what is missing and which Debian package has it (exit 1).
 */
function main(o) {
  const what = process.argv[2];
  if (what === 'lib') process.stdout.write(o.findLib());
  else if (what === 'include') process.stdout.write(o.findInclude());
  else if (what === 'check') {
    const lib = o.findLib(), inc = o.findInclude();
    if (lib && inc) { console.log(`${o.name}: ${lib}, ${path.join(inc, o.header)}`); process.exit(0); }
    console.log(`${o.name} not found (${!inc ? o.header : ''}${!inc && !lib ? ' and ' : ''}${!lib ? o.lib : ''} missing; on Debian/Ubuntu: apt-get install ${o.apt})`);
    process.exit(1);
  } else {
    console.error(`usage: ${o.script} lib|include|check`);
    process.exit(2);
  }
}

module.exports = { pkgConfig, multiarch, main };
