#!/usr/bin/env node
// Runs the scenario files test/e2e/scenarios/*.scenario.js against the packaged extension in one
// code-server session whose workspace is the sample plus real-data-like files made with GDAL (a
// Landsat 7 scene without band descriptions in UTM 29N, an SRTM-like DEM, a Brazilian NDVI in UTM
// 23S, a coarser copy of fire_post.tif). Each scenario file exports { name, setup?(ws, lib), run(t) }
// and owns its notebooks; `npm run test:e2e` (scripts/e2e.js) runs them after the main walkthrough.
//   node test/e2e/run.js [--vsix FILE] [--keep]     GEOWEAVE_E2E_ONLY=regex selects scenarios
// Needs `npx tsc -p .` first (fixtures come from out/).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const S = require('./support');

const SCENARIOS = path.join(__dirname, 'scenarios');

/** Library the scenarios' setup uses: the notebook writer (support.js). */
function library() {
  return { notebook: S.writeNotebook };
}

async function writeWorkspace(ws, scenarios) {
  const out = (...p) => require(path.join(S.ROOT, 'out', ...p));
  const { writeSampleWorkspace } = out('src', 'core', 'raster', 'sample', 'generate.js');
  const { writeRealLikeData, writeCoarserCopy } = out('test', 'helpers', 'real-data.js');
  await writeSampleWorkspace(ws);
  const real = writeRealLikeData(ws);
  writeCoarserCopy(path.join(ws, 'fire_post.tif'), path.join(ws, 'fire_post_30m.tif'), 30);
  S.log(`workspace: sample + ${real.scene}, ${real.dem}, ${real.brazil}, fire_post_30m.tif`);
  const lib = library();
  for (const s of scenarios) if (s.setup) await s.setup(ws, lib);
}

function loadScenarios(only) {
  return fs.readdirSync(SCENARIOS).filter((f) => f.endsWith('.scenario.js')).sort()
    .map((f) => ({ file: f, ...require(path.join(SCENARIOS, f)) }))
    .filter((s) => !only || only.test(s.name) || only.test(s.file));
}

/**
 * Runs every scenario; returns [{ name, ok, error? }]. A scenario starts with all editors closed
 * and the panel as the previous one left it.
 */
async function runScenarioFiles({ vsix, codeServer, chromium, artifacts, keep = false, only }) {
  const scenarios = loadScenarios(only);
  const results = [];
  if (!scenarios.length) return results;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'geoweave-scenarios-'));
  const ws = path.join(tmp, 'workspace');
  fs.mkdirSync(ws, { recursive: true });
  let session;
  try {
    await writeWorkspace(ws, scenarios);
    session = await S.openSession({ vsix, codeServer, chromium, tmp, ws, artifacts });
    const { page } = session;
    for (const s of scenarios) {
      const t0 = Date.now();
      const shot = (name) => page.screenshot({ path: path.join(artifacts, `scenario-${s.file.replace('.scenario.js', '')}-${name}.png`) }).catch(() => undefined);
      try {
        await page.keyboard.press('Escape');
        await S.palette(page, 'View: Close All Editors');
        await page.waitForTimeout(500);
        const detail = await s.run({ page, ws, session, shot, vsix, codeServer, chromium, artifacts, ...S });
        results.push({ name: s.name, ok: true });
        S.log(`PASS ${s.name} (${((Date.now() - t0) / 1000).toFixed(1)} s)${detail ? `: ${detail}` : ''}`);
        await shot('pass');
      } catch (e) {
        results.push({ name: s.name, ok: false, error: e.message });
        S.log(`FAIL ${s.name}: ${e.message}`);
        await shot('FAILED');
      }
    }
  } catch (e) {
    results.push({ name: 'scenario session', ok: false, error: e.message });
    S.log(`ERROR ${e.stack ?? e.message}`);
  } finally {
    if (session) await session.close();
    if (!keep) fs.rmSync(tmp, { recursive: true, force: true });
    else S.log(`kept ${tmp}`);
  }
  return results;
}

module.exports = { runScenarioFiles };

if (require.main === module) {
  const argv = process.argv.slice(2);
  const opt = (name) => { const i = argv.indexOf(name); return i >= 0 ? argv[i + 1] : undefined; };
  const codeServerDir = process.env.GEOWEAVE_CODE_SERVER_DIR || path.join(S.ROOT, '.e2e', 'code-server');
  const artifacts = path.join(S.ROOT, 'test-artifacts', 'e2e-scenarios');
  fs.rmSync(artifacts, { recursive: true, force: true });
  fs.mkdirSync(artifacts, { recursive: true });
  runScenarioFiles({
    vsix: path.resolve(opt('--vsix') ?? path.join(S.ROOT, 'geoweave.vsix')),
    codeServer: path.join(codeServerDir, 'node_modules', '.bin', 'code-server'),
    chromium: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    artifacts,
    keep: argv.includes('--keep'),
    only: process.env.GEOWEAVE_E2E_ONLY ? new RegExp(process.env.GEOWEAVE_E2E_ONLY, 'i') : undefined,
  }).then((results) => {
    const passed = results.filter((r) => r.ok).length;
    fs.writeFileSync(path.join(artifacts, 'results.json'), JSON.stringify(results, null, 2) + '\n');
    process.stdout.write(`${passed} passed, ${results.length - passed} failed\n`);
    process.exitCode = results.length && passed === results.length ? 0 : 1;
  });
}
