#!/usr/bin/env node
// The CLI is compiled by `npm run build` into out/.
const path = require('path');
const { main, exitQuietlyOnEpipe } = require(path.join(__dirname, '..', 'out', 'src', 'cli', 'main.js'));
exitQuietlyOnEpipe();
main(process.argv.slice(2), {
  out: (t) => process.stdout.write(t + '\n'),
  err: (t) => process.stderr.write(t + '\n'),
}).then((code) => { process.exitCode = code; });
