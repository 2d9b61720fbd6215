#!/usr/bin/env node
// `npm test`: make sure the test environment exists, then run the unit suite (plain Node,
// GDAL as reference), the abuse suite (hostile inputs, CI-sized) and the end-to-end suite
// (packaged extension in a real VS Code).
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
const run = (cmd, args, opts = {}) => spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...opts }).status ?? 1;
const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

const addon = path.join(root, 'native/deflate/build/Release/geoweave_deflate.node');
const envReady = has('gdalinfo') && has('chromium') && fs.existsSync(path.join(root, '.e2e/code-server/node_modules/.bin/code-server'))
  && (process.platform !== 'linux' || fs.existsSync('/usr/include/libdeflate.h'));
if (!envReady && process.env.GEOWEAVE_SKIP_SETUP !== '1') {
  const status = run('bash', ['scripts/setup-test-env.sh']);
  if (status !== 0) {
    console.error('run-tests: could not install the test environment (GDAL, Chromium, code-server); ' +
      'tests that need them will skip outside CI. Run scripts/setup-test-env.sh as root to install them.');
    if (process.env.CI) process.exit(status);
  }
}

// The DEFLATE addon is built by npm install; when setup just installed libdeflate-dev, build it now.
if (!fs.existsSync(addon)) run(process.execPath, ['scripts/build-native.js']);

let failed = 0;
console.log('\n== unit tests (node --test out/test/unit/) ==');
failed += run(process.execPath, ['--test', 'out/test/unit/']) === 0 ? 0 : 1;
console.log('\n== abuse tests (node --test out/test/abuse/) ==');
failed += run(process.execPath, ['--test', 'out/test/abuse/']) === 0 ? 0 : 1;
if (process.env.GEOWEAVE_SKIP_E2E === '1' && !process.env.CI) {
  console.log('\n== end-to-end tests skipped (GEOWEAVE_SKIP_E2E=1) ==');
} else {
  console.log('\n== end-to-end tests (npm run test:e2e) ==');
  failed += run('npm', ['run', '-s', 'test:e2e']) === 0 ? 0 : 1;
}
process.exit(failed ? 1 : 0);
